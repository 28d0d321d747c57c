"""Fit a declared model, or any Stan program, with Stan or with bayeswe's samplers.

:func:`fit` is the one verb: the Stan methods run through
:func:`bayeswe.stan.fitting.fit_stan` (which validates the arguments and data,
compiles the program and runs one cmdstanpy method), the sampler methods through
the drivers in :mod:`bayeswe.samplers`. Both return :class:`arviz.InferenceData`
with the same variable names, dims and coords.

Methods and the cmdstanpy call behind each:

============== ==================================================================
``nuts``       ``CmdStanModel.sample`` (all chains in one process)
``advi``       ``CmdStanModel.variational(algorithm="meanfield")``
``advi-fullrank`` ``CmdStanModel.variational(algorithm="fullrank")``
``map``        ``CmdStanModel.optimize(algorithm="lbfgs")`` unless told otherwise
``laplace``    ``optimize(jacobian=True)`` then ``laplace_sample`` at that mode
``pathfinder`` ``CmdStanModel.pathfinder``
``pg-gibbs``   not Stan: Pólya-Gamma blocked Gibbs (:mod:`bayeswe.samplers.pg_gibbs`),
               for ``sgns_identified`` only
``cgs``        not Stan: collapsed Gibbs for ``lda`` (:mod:`bayeswe.samplers.lda_cgs`), for
               ``gaussian_lda`` (:mod:`bayeswe.samplers.gaussian_lda`) and for
               ``dp_mixture`` (:mod:`bayeswe.samplers.dp_mixture`)
``alias-mh``   not Stan: alias-table Metropolis-Hastings for ``gaussian_lda`` and alias tables
               for ``hdp_lda`` (:mod:`bayeswe.samplers.hdp_lda`)
``cavi``       not Stan: coordinate-ascent mean-field VI for ``lda``
               (:mod:`bayeswe.samplers.lda_vi`)
``svi``        not Stan: stochastic VI for ``lda`` (:mod:`bayeswe.samplers.lda_vi`)
``jj-vb``      not Stan: mean-field VB through the Jaakkola-Jordan bound with ARD
               context vectors, for ``sgns`` (:mod:`bayeswe.samplers.jj_vb`)
``jj-svi``     not Stan: its stochastic version (mini-batches of pairs)
``laplace-sparse`` not Stan: Laplace approximation at Stan's L-BFGS mode with the exact
               Hessian assembled sparse, for ``sgns_identified``
               (:mod:`bayeswe.samplers.laplace_sparse`)
============== ==================================================================

A failed Stan run raises a subclass of :class:`bayeswe.errors.StanError` whose
``stan_message`` holds what Stan printed: :class:`~bayeswe.errors.StanDataError`
(data Stan rejects), :class:`~bayeswe.errors.StanInitError` (no finite initial
value), :class:`~bayeswe.errors.StanConvergenceError` (optimizer/ADVI did not
converge and convergence was required), :class:`~bayeswe.errors.StanRuntimeError`
(anything else the model threw).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from bayeswe._arviz import az
from bayeswe._version import __version__
from bayeswe.inference_data import to_json
from bayeswe.model_spec import StanModelSpec, get_model
from bayeswe.options import rename_deprecated
from bayeswe.stan.fitting import (
    METHODS,
    AdviArgs,
    LaplaceArgs,
    MapArgs,
    NutsArgs,
    PathfinderArgs,
    check_seed,
    classify_stan_failure,
    fit_stan,
    method_args,
    stan_block_lines,
)

__all__ = [
    "METHODS",
    "AdviArgs",
    "LaplaceArgs",
    "MapArgs",
    "NutsArgs",
    "PathfinderArgs",
    "SAMPLER_METHODS",
    "classify_stan_failure",
    "fit",
    "method_args",
    "stan_block_lines",
]

#: Methods run by bayeswe's own samplers, each for the models listed.
SAMPLER_METHODS: Mapping[str, tuple[str, ...]] = {
    "pg-gibbs": ("sgns_identified", "sgns"),
    "cgs": (
        "lda",
        "gaussian_lda",
        "dp_mixture",
        "hdp_lda",
        "hdp_gaussian_lda",
    ),  # collapsed Gibbs: bayeswe.samplers.lda_cgs, .gaussian_lda, .dp_mixture, .hdp_lda,
    # .hdp_gaussian_lda
    "alias-mh": ("gaussian_lda", "hdp_lda"),
    "cavi": ("lda",),  # mean-field VI by coordinate ascent: bayeswe.samplers.lda_vi
    "svi": ("lda",),  # stochastic VI: bayeswe.samplers.lda_vi
    "jj-vb": ("sgns",),  # Jaakkola-bound VB with ARD: bayeswe.samplers.jj_vb
    "jj-svi": ("sgns",),  # its stochastic version: bayeswe.samplers.jj_vb
    "laplace-sparse": ("sgns_identified",),  # bayeswe.samplers.laplace_sparse
}


def fit(
    model: str | os.PathLike[str] | StanModelSpec,
    data: Mapping[str, Any] | str | os.PathLike[str] | None,
    *,
    method: str,
    seed: int | None = None,
    chains: int | None = None,
    dims: Mapping[str, Sequence[str]] | None = None,
    coords: Mapping[str, Sequence[Any]] | None = None,
    **options: Any,
) -> az.InferenceData:
    """Fit a model to data with one of Stan's inference methods or one of bayeswe's samplers.

    Parameters
    ----------
    model
        A registered model name, a :class:`~bayeswe.model_spec.StanModelSpec`,
        or the path of any Stan program (a ``str`` ending in ``.stan`` or naming
        an existing file, or a :class:`~os.PathLike`). A program needs no
        declaration: its data fields and output variables, with their types and
        numbers of axes, come from ``stanc --info``, and the sizes of the data
        from the declarations in its ``data`` block
        (:func:`bayeswe.model_spec.program_spec`).
    data
        Values of the model's data fields (other keys are allowed and are seen
        only by a declaration's coords hook), or the path of a JSON data file
        (Stan's format, as cmdstanpy accepts). For ``"lda"`` and
        ``"lda_users_guide"`` an :class:`~bayeswe.lda.LDAData` may be passed
        instead; it supplies the Stan data and the coords (document ids, vocabulary).
        Another data object with a ``to_stan()`` method (e.g.
        :class:`~bayeswe.glda.GaussianLDAData`) is converted by it for the Stan methods.
    method
        ``"nuts"``, ``"advi"`` (mean-field), ``"advi-fullrank"``, ``"map"``,
        ``"laplace"`` or ``"pathfinder"``; or ``"pg-gibbs"`` (Pólya-Gamma blocked
        Gibbs, :func:`bayeswe.samplers.pg_gibbs.sample_pg_gibbs`) for ``sgns_identified``,
        which returns the same names, dims and coords as NUTS.
        ``"cgs"``: collapsed Gibbs for ``lda`` with an :class:`~bayeswe.lda.LDAData`
        (:func:`bayeswe.samplers.lda_cgs.sample_cgs`; options in
        :class:`~bayeswe.samplers.lda_cgs.CGSArgs`); for ``hdp_lda`` with an
        :class:`~bayeswe.dp.HDPLDAData`, the direct-assignment sampler
        (:func:`bayeswe.samplers.hdp_lda.sample_hdp_lda`; options in
        :class:`~bayeswe.samplers.hdp_lda.HDPArgs`); for ``hdp_gaussian_lda`` (infinite
        Gaussian LDA) with an :class:`~bayeswe.glda.HDPGaussianLDAData`, its
        direct-assignment sampler
        (:func:`bayeswe.samplers.hdp_gaussian_lda.sample_hdp_gaussian_lda`; options in
        :class:`~bayeswe.samplers.hdp_gaussian_lda.HDPGLDAArgs`);
        ``"alias-mh"`` for ``hdp_lda``:
        the same conditional drawn with per-word alias tables (options in
        :class:`~bayeswe.samplers.hdp_lda.HDPAliasArgs`).
        ``"cavi"``: mean-field VI for ``lda`` with an :class:`~bayeswe.lda.LDAData`
        (:func:`bayeswe.samplers.lda_vi.sample_cavi`; options in
        :class:`~bayeswe.samplers.lda_vi.CAVIArgs`), draws from ``q``; ``"svi"``: its
        stochastic version (:class:`~bayeswe.samplers.lda_vi.SVIArgs`).
        ``"cgs"`` and ``"alias-mh"`` for ``gaussian_lda`` with a
        :class:`~bayeswe.glda.GaussianLDAData`
        (:func:`bayeswe.samplers.gaussian_lda.sample_gaussian_lda`).
        ``"cgs"`` for ``dp_mixture`` with a :class:`~bayeswe.dp.DPMixtureData`: collapsed
        Gibbs with split-merge moves (:func:`bayeswe.samplers.dp_mixture.sample_dp_mixture`;
        options in :class:`~bayeswe.samplers.dp_mixture.DPMixtureArgs`).
    seed
        Seed of Stan's random number generator, in ``[0, 2**32 - 1]``. ``None``
        draws one at random; the seed used is recorded in ``attrs["seed"]``.
    chains
        Number of Markov chains (``None``: 4) of ``nuts``, ``pg-gibbs``, ``cgs`` and
        ``alias-mh``. The other methods return one chain and accept only ``None``/1.
    dims
        Only with a Stan program: dim names of its data fields and output
        variables, as in ArviZ (``{"theta": ["school"]}``); unnamed axes are
        called ``"<variable>_dim_<axis>"``. A registered model's dims are part of
        its declaration.
    coords
        Only with a Stan program: coordinate values of dims
        (``{"school": ["A", "B"]}``); other dims get ``0, 1, ...``.
    **options
        Method options, named as in cmdstanpy for every method, Stan or not
        (``iter_warmup``, ``iter_sampling``, ``thin``, ``parallel_chains``,
        ``threads_per_chain``, ``show_progress``; ``iter``, ``tol_rel_obj``, ``draws``
        for the variational methods): see :class:`NutsArgs`, :class:`AdviArgs`,
        :class:`MapArgs`, :class:`LaplaceArgs`, :class:`PathfinderArgs` and the
        samplers' argument classes; the docs' options page tabulates every method's
        options and defaults. ``None`` means the method's default. Every Stan
        method takes ``inits``, ``sig_figs``, ``timeout``, ``output_dir`` (keep
        Stan's CSV files there), ``refresh``, ``show_console`` and ``save_profile``;
        NUTS also ``save_warmup`` (the ``warmup_posterior`` and
        ``warmup_sample_stats`` groups). Every MCMC method keeps
        ``ceil(iter_sampling / thin)`` draws per chain, starting with the first
        iteration after warm-up, as cmdstanpy does. Option names of earlier releases
        (``burn_in``, ``sweeps``, ``threads``, ``progress``, ``max_iter``, ``tol``,
        ``output_samples``) still work, with a :class:`DeprecationWarning`
        (:data:`bayeswe.options.DEPRECATED_OPTIONS`).

    Returns
    -------
    arviz.InferenceData
        ``posterior`` with dims ``(chain, draw, *declared dims)`` (one chain for
        the approximations; one chain of one draw for MAP, flagged by
        ``attrs["point_estimate"] == "mode"``), ``sample_stats``,
        ``observed_data``/``constant_data`` (a Stan program's data all go to
        ``constant_data``), and ``attrs`` recording ``method``, ``options``
        (JSON), ``seed``, ``wall_time`` (seconds of the Stan run(s), compilation
        excluded), ``stan_version`` and ``toolchain``. Every method gives the
        same variable names, dims and coords.

    Raises
    ------
    ValueError
        Bad method, option, seed or chains (before anything runs).
    FileNotFoundError
        The Stan program does not exist.
    StanDataError
        Data missing a field, of the wrong shape or of the wrong type (int
        declared, non-integers given), or an unreadable data file (all before
        Stan runs), or data Stan itself rejects (e.g. a constraint).
    ModelSpecError
        The model declaration disagrees with its Stan program (an undeclared
        data field, a non-scalar output variable without declared dims, a dim
        named like a variable of its group), or ``dims``/``coords`` do not fit
        the program (before anything is compiled).
    StanCompileError
        The Stan program does not compile.
    StanInitError
        Stan found no initial value with finite log density and gradient.
    StanConvergenceError
        ADVI or the optimizer did not converge and ``require_converged`` was not
        set to False.
    StanRuntimeError
        The model threw during the run.
    """
    options = rename_deprecated(method, options)
    if method in SAMPLER_METHODS:
        if dims is not None or coords is not None:
            raise ValueError(f"method {method!r} does not take dims or coords")
        return _fit_sampler(model, data, method=method, seed=seed, chains=chains, **options)
    if method not in METHODS:
        raise ValueError(
            f"method must be one of {', '.join((*METHODS, *SAMPLER_METHODS))}; got {method!r}"
        )
    return fit_stan(
        model, data, method=method, seed=seed, chains=chains, dims=dims, coords=coords, **options
    )


def _fit_sampler(
    model: str | StanModelSpec,
    data: Any,
    *,
    method: str,
    seed: int | None,
    chains: int | None,
    **options: Any,
) -> az.InferenceData:
    """Run one of bayeswe's own samplers (no Stan) and record the toolchain-free attrs."""
    name = model if isinstance(model, str) else getattr(model, "name", str(model))
    if name not in SAMPLER_METHODS[method]:
        raise ValueError(
            f"method {method!r} is for model(s) {', '.join(SAMPLER_METHODS[method])}; got {name!r}"
        )
    seed = check_seed(seed)
    if name == "lda":
        # LDA's collapsed Gibbs (bayeswe.samplers.lda_cgs) and CAVI (bayeswe.samplers.lda_vi)
        # take an LDAData, no Stan declaration.
        if method == "cavi":
            from bayeswe.samplers.lda_vi import sample_cavi as run_lda
        elif method == "svi":
            from bayeswe.samplers.lda_vi import sample_svi as run_lda
        else:
            from bayeswe.samplers.lda_cgs import sample_cgs as run_lda

        idata = run_lda(data, seed=seed, chains=chains, **options)
        for target in _attr_targets(idata):
            target.attrs["options"] = to_json({k: v for k, v in options.items() if v is not None})
            target.attrs["bayeswe_version"] = __version__
        return idata
    if name == "hdp_lda":
        # HDP-LDA's direct-assignment sampler (bayeswe.samplers.hdp_lda) takes an
        # HDPLDAData (or an LDAData or a bag of words), no Stan declaration.
        from bayeswe.samplers.hdp_lda import sample_hdp_lda

        idata = sample_hdp_lda(data, seed=seed, chains=chains, method=method, **options)
        for target in _attr_targets(idata):
            target.attrs["options"] = to_json(
                {k: v for k, v in options.items() if v is not None and k != "callback"}
            )
            target.attrs["bayeswe_version"] = __version__
        return idata
    if name == "hdp_gaussian_lda":
        # infinite Gaussian LDA's sampler (bayeswe.samplers.hdp_gaussian_lda) takes an
        # HDPGaussianLDAData (or a GaussianLDAData), no Stan declaration.
        from bayeswe.samplers.hdp_gaussian_lda import sample_hdp_gaussian_lda

        idata = sample_hdp_gaussian_lda(data, seed=seed, chains=chains, **options)
        for target in _attr_targets(idata):
            target.attrs["options"] = to_json(
                {k: v for k, v in options.items() if v is not None and k != "callback"}
            )
            target.attrs["bayeswe_version"] = __version__
        return idata
    if name == "gaussian_lda":
        # Gaussian LDA samplers (bayeswe.samplers.gaussian_lda) take a GaussianLDAData.
        from bayeswe.samplers.gaussian_lda import sample_gaussian_lda

        idata = sample_gaussian_lda(data, method=method, seed=seed, chains=chains, **options)
        idata.attrs["bayeswe_version"] = __version__
        return idata
    if name == "dp_mixture":
        # the DP mixture's collapsed Gibbs (bayeswe.samplers.dp_mixture) takes a DPMixtureData
        from bayeswe.samplers.dp_mixture import sample_dp_mixture

        idata = sample_dp_mixture(data, seed=seed, chains=chains, **options)
        for target in _attr_targets(idata):
            target.attrs["options"] = to_json(
                {k: v if isinstance(v, (str, int, float)) else "given"
                 for k, v in options.items() if v is not None and k != "callback"}
            )  # fmt: skip
            target.attrs["bayeswe_version"] = __version__
        return idata
    spec = get_model(model)
    spec.validate(data)  # StanDataError before anything runs, as for Stan methods
    if method == "jj-vb":
        from bayeswe.samplers.jj_vb import sample_jj_vb as run_sgns
    elif method == "jj-svi":
        from bayeswe.samplers.jj_vb import sample_jj_svi as run_sgns
    elif method == "laplace-sparse":
        from bayeswe.samplers.laplace_sparse import sample_laplace_sparse as run_sgns
    else:
        from bayeswe.samplers.pg_gibbs import sample_pg_gibbs

        def run_sgns(data: Any, **kwargs: Any) -> az.InferenceData:
            return sample_pg_gibbs(data, identified=name == "sgns_identified", **kwargs)

    idata = run_sgns(data, seed=seed, chains=chains, **options)
    # initial values are arrays: record that they were given, not their values
    given = {
        k: v if isinstance(v, (str, int, float, os.PathLike)) else "given"
        for k, v in options.items()
        if v is not None and k != "callback"
    }
    for target in _attr_targets(idata):
        target.attrs["options"] = to_json(given)
        target.attrs["bayeswe_version"] = __version__
    return idata


def _attr_targets(idata: az.InferenceData) -> list[Any]:
    """The InferenceData and its groups that carry the run's attrs."""
    groups = ("posterior", "sample_stats", "optimization_trace")
    return [idata, *(idata[g] for g in groups if g in idata.groups())]
