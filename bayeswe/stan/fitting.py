"""Run one of Stan's inference methods on a declared model or any Stan program.

:func:`fit_stan` validates its arguments and the data, compiles the Stan program
(through :mod:`bayeswe.stan.toolchain`), runs one cmdstanpy method and returns
:class:`arviz.InferenceData` built by :mod:`bayeswe.inference_data`. A Stan
program without a declaration is declared from what ``stanc`` says about it
(:mod:`bayeswe.stan.program_info`, :func:`bayeswe.model_spec.program_spec`),
so that its data are checked before anything is compiled.

Users call :func:`bayeswe.fit`, which also dispatches to bayeswe's own samplers;
this module is the Stan half, kept below the samplers so that a sampler can run
Stan (the Pólya-Gamma Gibbs sampler starts from Stan's MAP) without an import
cycle.

Methods and the cmdstanpy call behind each:

================= ================================================================
``nuts``          ``CmdStanModel.sample`` (all chains in one process)
``advi``          ``CmdStanModel.variational(algorithm="meanfield")``
``advi-fullrank`` ``CmdStanModel.variational(algorithm="fullrank")``
``map``           ``CmdStanModel.optimize(algorithm="lbfgs")`` unless told otherwise
``laplace``       ``optimize(jacobian=True)`` then ``laplace_sample`` at that mode
``pathfinder``    ``CmdStanModel.pathfinder``
================= ================================================================

A failed Stan run raises a subclass of :class:`bayeswe.errors.StanError` whose
``stan_message`` holds what Stan printed: :class:`~bayeswe.errors.StanDataError`
(data Stan rejects), :class:`~bayeswe.errors.StanInitError` (no finite initial
value), :class:`~bayeswe.errors.StanConvergenceError` (optimizer/ADVI did not
converge and convergence was required), :class:`~bayeswe.errors.StanRuntimeError`
(anything else the model threw).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np

from bayeswe._arviz import az
from bayeswe.errors import (
    BayesweError,
    StanConvergenceError,
    StanDataError,
    StanError,
    StanInitError,
    StanRuntimeError,
    StanTimeoutError,
)
from bayeswe.inference_data import from_cmdstanpy
from bayeswe.model_spec import (
    StanModelSpec,
    available_models,
    get_model,
    program_spec,
    read_data,
)
from bayeswe.options import (
    build_options,
    check_bool,
    check_choice,
    check_float,
    check_int,
    invalid,
)

__all__ = [
    "METHODS",
    "AdviArgs",
    "LaplaceArgs",
    "MapArgs",
    "NutsArgs",
    "PathfinderArgs",
    "classify_stan_failure",
    "check_seed",
    "fit_stan",
    "stan_block_lines",
    "method_args",
]

_MAX_SEED = 2**32 - 1

# --------------------------------------------------------------------------- arguments


def _check_inits(value: Any, *, allow_list: bool) -> None:
    if value is None:
        return
    if isinstance(value, bool):
        raise invalid(f"inits must be a number, mapping or path, got {value!r}")
    if isinstance(value, (int, float, np.integer, np.floating)):
        check_float("inits", value, low=0, open_low=False)
        return
    if isinstance(value, (Mapping, str, os.PathLike)):
        return
    if allow_list and isinstance(value, list) and all(isinstance(v, Mapping) for v in value):
        return
    kinds = "a number >= 0, a mapping, a path" + (" or a list of mappings" if allow_list else "")
    raise ValueError(f"inits must be {kinds}, got {type(value).__name__}")


@dataclass(frozen=True, kw_only=True)
class _MethodArgs:
    """Options common to all methods; ``None`` means the backend's default."""

    #: How the parameters are initialized: radius on the unconstrained scale
    #: (number >= 0), a mapping of values, or a JSON file.
    inits: Any = None
    #: Significant figures in Stan's CSV output (1..18).
    sig_figs: int | None = None
    #: Seconds after which the run is stopped.
    timeout: float | None = None
    #: Directory that keeps Stan's output (CSV and console files); created if
    #: missing. ``None``: a temporary directory, removed after the run.
    output_dir: str | os.PathLike[str] | None = None
    #: Progress is printed every ``refresh`` iterations (with ``show_console``).
    refresh: int | None = None
    #: Print Stan's console output while it runs.
    show_console: bool | None = None
    #: Write the timings of the program's ``profile`` blocks to a CSV file.
    save_profile: bool | None = None

    method: ClassVar[str] = ""
    _multi_inits: ClassVar[bool] = False

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        """Build and validate the arguments from ``fit``'s keyword options.

        Raises
        ------
        ValueError
            For an option the method does not take or a value out of range.
        """
        return build_options(cls, cls.method, options)

    def validate(self) -> None:
        """Check every option; raise ValueError naming the first bad one."""
        _check_inits(self.inits, allow_list=self._multi_inits)
        check_int("sig_figs", self.sig_figs, minimum=1)
        if self.sig_figs is not None and self.sig_figs > 18:
            raise ValueError(f"sig_figs must be <= 18, got {self.sig_figs}")
        check_float("timeout", self.timeout, low=0)
        if self.output_dir is not None and not isinstance(self.output_dir, (str, os.PathLike)):
            raise invalid(f"output_dir must be a path, got {self.output_dir!r}")
        check_int("refresh", self.refresh, minimum=1)
        check_bool("show_console", self.show_console)
        check_bool("save_profile", self.save_profile)

    def given(self) -> dict[str, Any]:
        """The options that were set (not ``None``), for cmdstanpy and for ``attrs``."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not None
        }


@dataclass(frozen=True, kw_only=True)
class NutsArgs(_MethodArgs):
    """Options of ``method="nuts"`` (CmdStan's adaptive diagonal/dense NUTS).

    ``save_warmup=True`` keeps the warmup draws in the InferenceData groups
    ``warmup_posterior`` and ``warmup_sample_stats`` (``ceil(iter_warmup / thin)``
    draws per chain). ``chain_ids`` numbers the chains (first id, or one id per
    chain), which sets their random streams. ``fixed_param=True`` runs Stan's
    fixed-parameter sampler (for programs without parameters it is automatic).
    ``save_diagnostics=True`` writes the unconstrained draws and gradients to
    extra CSV files (keep them with ``output_dir``).
    """

    chains: int | None = None
    iter_warmup: int | None = None
    iter_sampling: int | None = None
    thin: int | None = None
    max_treedepth: int | None = None
    adapt_delta: float | None = None
    adapt_engaged: bool | None = None
    adapt_init_phase: int | None = None
    adapt_metric_window: int | None = None
    adapt_step_size: int | None = None
    step_size: float | None = None
    metric: str | None = None
    parallel_chains: int | None = None
    threads_per_chain: int | None = None  # for programs using reduce_sum (e.g. SGNS grainsize > 0)
    show_progress: bool | None = None
    save_warmup: bool | None = None
    chain_ids: int | list[int] | None = None
    fixed_param: bool | None = None
    save_diagnostics: bool | None = None

    method: ClassVar[str] = "nuts"
    _multi_inits: ClassVar[bool] = True

    def validate(self) -> None:
        super().validate()
        check_int("chains", self.chains, minimum=1)
        check_int("iter_warmup", self.iter_warmup, minimum=0)
        check_int("iter_sampling", self.iter_sampling, minimum=1)
        check_int("thin", self.thin, minimum=1)
        check_int("max_treedepth", self.max_treedepth, minimum=1)
        check_float("adapt_delta", self.adapt_delta, low=0, high=1)
        check_bool("adapt_engaged", self.adapt_engaged)
        check_int("adapt_init_phase", self.adapt_init_phase, minimum=0)
        check_int("adapt_metric_window", self.adapt_metric_window, minimum=0)
        check_int("adapt_step_size", self.adapt_step_size, minimum=0)
        check_float("step_size", self.step_size, low=0)
        check_choice("metric", self.metric, ("diag_e", "dense_e", "unit_e", "diag", "dense"))
        check_int("parallel_chains", self.parallel_chains, minimum=1)
        check_int("threads_per_chain", self.threads_per_chain, minimum=1)
        check_bool("show_progress", self.show_progress)
        check_bool("save_warmup", self.save_warmup)
        check_bool("fixed_param", self.fixed_param)
        check_bool("save_diagnostics", self.save_diagnostics)
        if isinstance(self.chain_ids, list):
            for chain_id in self.chain_ids:
                check_int("chain_ids", chain_id, minimum=1)
            if len(self.chain_ids) != (self.chains or 4):
                raise ValueError(
                    f"chain_ids lists {len(self.chain_ids)} ids but there are "
                    f"{self.chains or 4} chains"
                )
        else:
            check_int("chain_ids", self.chain_ids, minimum=1)
        if isinstance(self.inits, list) and len(self.inits) != (self.chains or 4):
            raise ValueError(
                f"inits is a list of {len(self.inits)} mappings but there are "
                f"{self.chains or 4} chains"
            )


@dataclass(frozen=True, kw_only=True)
class AdviArgs(_MethodArgs):
    """Options of ``method="advi"`` and ``"advi-fullrank"`` (Stan's ADVI).

    Stan's ``adapt engaged=0`` is not offered: cmdstanpy 1.3.2 cannot read the
    output of a run without step-size adaptation.
    """

    iter: int | None = None
    grad_samples: int | None = None
    elbo_samples: int | None = None
    eta: float | None = None
    adapt_iter: int | None = None
    tol_rel_obj: float | None = None
    eval_elbo: int | None = None
    draws: int | None = None
    require_converged: bool | None = None
    save_diagnostics: bool | None = None

    method: ClassVar[str] = "advi"

    def validate(self) -> None:
        super().validate()
        check_int("iter", self.iter, minimum=1)
        check_int("grad_samples", self.grad_samples, minimum=1)
        check_int("elbo_samples", self.elbo_samples, minimum=1)
        check_float("eta", self.eta, low=0)
        check_int("adapt_iter", self.adapt_iter, minimum=1)
        check_float("tol_rel_obj", self.tol_rel_obj, low=0)
        check_int("eval_elbo", self.eval_elbo, minimum=1)
        check_int("draws", self.draws, minimum=2)
        check_bool("require_converged", self.require_converged)
        check_bool("save_diagnostics", self.save_diagnostics)


@dataclass(frozen=True, kw_only=True)
class _LbfgsSettings(_MethodArgs):
    """Line-search and convergence settings shared by Stan's optimizers and Pathfinder."""

    init_alpha: float | None = None
    tol_obj: float | None = None
    tol_rel_obj: float | None = None
    tol_grad: float | None = None
    tol_rel_grad: float | None = None
    tol_param: float | None = None
    history_size: int | None = None

    def validate(self) -> None:
        super().validate()
        for name in ("init_alpha", "tol_obj", "tol_rel_obj", "tol_grad", "tol_rel_grad"):
            check_float(name, getattr(self, name), low=0)
        check_float("tol_param", self.tol_param, low=0)
        check_int("history_size", self.history_size, minimum=1)


@dataclass(frozen=True, kw_only=True)
class _OptimizerArgs(_LbfgsSettings):
    algorithm: str | None = None
    jacobian: bool | None = None
    iter: int | None = None

    def validate(self) -> None:
        super().validate()
        check_choice("algorithm", self.algorithm, ("lbfgs", "bfgs", "newton"))
        check_bool("jacobian", self.jacobian)
        check_int("iter", self.iter, minimum=1)
        if self.algorithm not in (None, "lbfgs", "bfgs") and any(
            getattr(self, n) is not None
            for n in ("init_alpha", "tol_obj", "tol_rel_obj", "tol_grad", "tol_rel_grad")
        ):
            raise ValueError(f"tolerances and init_alpha do not apply to {self.algorithm!r}")
        if self.algorithm not in (None, "lbfgs") and self.history_size is not None:
            raise ValueError("history_size applies only to algorithm='lbfgs'")


@dataclass(frozen=True, kw_only=True)
class MapArgs(_OptimizerArgs):
    """Options of ``method="map"`` (posterior mode by Stan's optimizer).

    ``jacobian`` defaults to Stan's ``False``: the mode of the posterior density
    of the constrained parameters. ``True`` gives the mode on the unconstrained
    scale (the one Laplace uses). ``algorithm`` defaults to ``"lbfgs"``.
    ``save_iterations=True`` writes every iteration to Stan's CSV file (keep it
    with ``output_dir``); the result is the final one.
    """

    require_converged: bool | None = None
    save_iterations: bool | None = None

    method: ClassVar[str] = "map"

    def validate(self) -> None:
        super().validate()
        check_bool("require_converged", self.require_converged)
        check_bool("save_iterations", self.save_iterations)


@dataclass(frozen=True, kw_only=True)
class LaplaceArgs(_OptimizerArgs):
    """Options of ``method="laplace"``.

    The optimizer options (``algorithm``, ``iter``, tolerances, ``inits``) apply
    to the mode-finding run; ``jacobian`` (default ``True``) is used for both
    the mode and the Laplace draws; ``draws`` is the number of draws (Stan's
    default 1000). The mode is written with 18 significant digits whatever
    ``sig_figs`` says (which applies to the draws), so that constrained
    parameters such as simplexes pass Stan's checks when the mode is read back.
    With ``output_dir``, the draws are written there and the mode-finding run
    in its subdirectory ``mode``.
    """

    draws: int | None = None

    method: ClassVar[str] = "laplace"

    def validate(self) -> None:
        super().validate()
        check_int("draws", self.draws, minimum=1)


@dataclass(frozen=True, kw_only=True)
class PathfinderArgs(_LbfgsSettings):
    """Options of ``method="pathfinder"`` (Stan's multi-path Pathfinder)."""

    num_paths: int | None = None
    draws: int | None = None
    num_single_draws: int | None = None
    max_lbfgs_iters: int | None = None
    num_elbo_draws: int | None = None
    psis_resample: bool | None = None
    calculate_lp: bool | None = None
    num_threads: int | None = None

    method: ClassVar[str] = "pathfinder"

    def validate(self) -> None:
        super().validate()
        for name in ("num_paths", "draws", "num_single_draws", "max_lbfgs_iters"):
            check_int(name, getattr(self, name), minimum=1)
        check_int("num_elbo_draws", self.num_elbo_draws, minimum=1)
        check_bool("psis_resample", self.psis_resample)
        check_bool("calculate_lp", self.calculate_lp)
        check_int("num_threads", self.num_threads, minimum=1)


_ARGS: dict[str, type[_MethodArgs]] = {
    "nuts": NutsArgs,
    "advi": AdviArgs,
    "advi-fullrank": AdviArgs,
    "map": MapArgs,
    "laplace": LaplaceArgs,
    "pathfinder": PathfinderArgs,
}

#: The inference methods :func:`fit` knows.
METHODS: tuple[str, ...] = tuple(_ARGS)


def method_args(method: str, chains: int | None = None, **options: Any) -> _MethodArgs:
    """Validate ``fit``'s method, chains and options without running anything.

    Parameters
    ----------
    method
        One of :data:`METHODS`.
    chains
        Number of chains; only NUTS runs several, the others take ``None`` or 1.
    **options
        Method options (see the ``*Args`` classes).

    Returns
    -------
    _MethodArgs
        The validated argument object of the method.

    Raises
    ------
    ValueError
        For an unknown method, an option the method does not take, or a bad value.
    """
    if method not in _ARGS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if "chains" in options:
        raise ValueError("pass chains as fit(..., chains=N), not as an option")
    cls = _ARGS[method]
    if method == "nuts":
        return cls.from_options({**options, "chains": chains})
    check_int("chains", chains, minimum=1)
    if chains not in (None, 1):
        raise ValueError(
            f"method {method!r} returns its draws as one chain; chains must be None or 1, "
            f"got {chains}"
        )
    return cls.from_options(options)


def check_seed(seed: Any) -> int:
    if seed is None:
        return int(np.random.default_rng().integers(0, _MAX_SEED, endpoint=True))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise invalid(f"seed must be an integer in [0, 2**32 - 1], got {seed!r}")
    if not 0 <= seed <= _MAX_SEED:
        raise ValueError(f"seed must be in [0, 2**32 - 1], got {seed}")
    return int(seed)


# --------------------------------------------------------------------------- fit


def fit_stan(
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
    """Fit a model to data with one of Stan's inference methods.

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
        ``"laplace"`` or ``"pathfinder"`` (:data:`METHODS`).
    seed
        Seed of Stan's random number generator, in ``[0, 2**32 - 1]``. ``None``
        draws one at random; the seed used is recorded in ``attrs["seed"]``.
    chains
        Number of NUTS chains (``None``: Stan's default, 4), all run in one
        process. The other methods return one chain and accept only ``None``/1.
    dims
        Only with a Stan program: dim names of its data fields and output
        variables, as in ArviZ (``{"theta": ["school"]}``); unnamed axes are
        called ``"<variable>_dim_<axis>"``. A registered model's dims are part of
        its declaration.
    coords
        Only with a Stan program: coordinate values of dims
        (``{"school": ["A", "B"]}``); other dims get ``0, 1, ...``.
    **options
        Method options, named as in cmdstanpy: see :class:`NutsArgs`,
        :class:`AdviArgs`, :class:`MapArgs`, :class:`LaplaceArgs`,
        :class:`PathfinderArgs`. ``None`` means the backend's default. Every
        method takes ``inits``, ``sig_figs``, ``timeout``, ``output_dir`` (keep
        Stan's CSV files there), ``refresh``, ``show_console`` and ``save_profile``;
        NUTS also ``save_warmup`` (the ``warmup_posterior`` and
        ``warmup_sample_stats`` groups).

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
    target = _resolve_model(model)
    args = method_args(method, chains, **options)
    seed = check_seed(seed)
    data = read_data(data)

    from bayeswe.stan.program_info import program_info

    if isinstance(target, Path):
        spec, stan_data = program_spec(program_info(target), data, dims=dims, coords=coords)
        data = stan_data
    else:
        if dims is not None or coords is not None:
            raise ValueError(
                f"dims and coords of model {target.name!r} are part of its declaration; "
                "pass them only with a Stan file (or declare them in a StanModelSpec)"
            )
        spec = target
        data = _as_stan_data(data, spec)
        stan_data = spec.validate(data)
        # stanc's view of the program is checked before the (slow) C++ compilation
        spec.check_program(program_info(spec.stan_file).info)

    from bayeswe.stan.toolchain import compile_model

    cmdstan_model = compile_model(spec.stan_file)

    given = args.given()
    run_options = {k: v for k, v in given.items() if k != "output_dir"}
    runner = _RUNNERS[method]
    with _output_directory(given.get("output_dir"), spec.name) as output_dir:
        run = _StanRun(spec=spec, method=method, output_dir=output_dir)
        start = time.perf_counter()
        result, extra_attrs = runner(run, cmdstan_model, stan_data, seed, run_options)
        wall_time = time.perf_counter() - start
        attrs = {
            "model": spec.name,
            "method": method,
            "options": given,
            "seed": seed,
            "wall_time": wall_time,
            "toolchain": _toolchain_description(),
            "bayeswe_version": _bayeswe_version(),
            **extra_attrs,
        }
        if isinstance(target, Path):
            attrs["stan_file"] = str(target)
        return from_cmdstanpy(result, spec, method=method, data=data, attrs=attrs)


def _resolve_model(model: Any) -> StanModelSpec | Path:
    """The declaration of a registered model or a spec; the path of a Stan program."""
    if isinstance(model, os.PathLike):
        path = Path(model)
    elif isinstance(model, str) and (model in available_models() or not _looks_like_file(model)):
        return get_model(model)
    elif isinstance(model, str):
        path = Path(model)
    else:
        return get_model(model)
    if not path.is_file():
        raise FileNotFoundError(f"Stan program not found: {path}")
    return path


def _looks_like_file(name: str) -> bool:
    return name.endswith(".stan") or os.sep in name or Path(name).is_file()


@contextlib.contextmanager
def _output_directory(output_dir: str | os.PathLike[str] | None, name: str) -> Iterator[Path]:
    """The user's output directory (kept), or a temporary one (removed afterwards)."""
    if output_dir is not None:
        path = Path(output_dir)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix=f"bayeswe-{name}-") as tmp:
        yield Path(tmp)


def _as_stan_data(data: Any, spec: StanModelSpec) -> Any:
    """The Stan data mapping of ``data`` for ``spec``.

    A mapping is used as is. A data object may answer ``stan_data_for(spec)`` (when
    one object serves several programs, e.g. :class:`~bayeswe.lda.LDAData` for
    ``lda`` and ``lda_users_guide``) or ``to_stan()`` (e.g.
    :class:`~bayeswe.glda.GaussianLDAData`).
    """
    if data is None or isinstance(data, Mapping):
        return data
    for_spec = getattr(data, "stan_data_for", None)
    if callable(for_spec):
        return for_spec(spec)
    to_stan = getattr(data, "to_stan", None)
    return to_stan() if callable(to_stan) else data


# --------------------------------------------------------------------------- runners


@dataclass
class _StanRun:
    """Runs cmdstanpy calls in one output directory and turns failures into StanErrors."""

    spec: StanModelSpec
    method: str
    output_dir: Path

    def call(
        self,
        what: str,
        func: Callable[..., Any],
        *,
        check_retcode: bool = False,
        subdir: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """Run ``func(**kwargs)`` (a cmdstanpy method); raise a StanError if Stan failed.

        ``subdir`` puts the run's files in a subdirectory of ``output_dir``: cmdstanpy
        names files by model and second, so two runs of one fit started in the same
        second would otherwise overwrite each other's files (and console output).
        """
        directory = self.output_dir / subdir if subdir else self.output_dir
        directory.mkdir(parents=True, exist_ok=True)
        before = _stdout_files(directory)
        kwargs.setdefault("show_console", False)
        try:
            result = func(output_dir=str(directory), **kwargs)
        except TimeoutError as exc:
            # cmdstanpy kills the run and raises the builtin TimeoutError (an OSError)
            timeout = kwargs.get("timeout")
            raise StanTimeoutError(
                f"{what} of model {self.spec.name!r} was stopped after the timeout of "
                f"{timeout} s: {exc}",
                stan_message=_console_since(directory, before),
            ) from exc
        except (RuntimeError, ValueError) as exc:
            console = _console_since(directory, before)
            if not console and isinstance(exc, ValueError):
                raise  # cmdstanpy rejected an argument: nothing ran
            raise self._error(what, str(exc), console, exc) from exc
        # cmdstanpy's laplace_sample does not check Stan's return code itself.
        runset = getattr(result, "_runset", None)
        check = getattr(runset, "_check_retcodes", None)
        if check_retcode and check is not None and not check():
            console = _console_since(directory, before)
            raise self._error(what, "CmdStan returned a non-zero exit code", console, None)
        return result

    def _error(
        self, what: str, cmdstanpy_message: str, console: str, exc: BaseException | None
    ) -> StanError:
        source = _read_text(self.spec.stan_file)
        text = console or cmdstanpy_message
        if exc is not None and exc.__cause__ is not None and not console:
            text = f"{cmdstanpy_message}\n{exc.__cause__}"
        cls = classify_stan_failure(
            text + "\n" + cmdstanpy_message, stan_source=source, stan_file=self.spec.stan_file
        )
        stan_message = stan_message_from_console(text)
        summary = (
            _first_line(stan_message, _EXCEPTION_LINE)
            or _first_line(stan_message, _DIAGNOSTIC)
            or cmdstanpy_message.strip().splitlines()[0]
        )
        return cls(
            f"{what} of model {self.spec.name!r} failed: {summary}",
            stan_message=stan_message,
            command=_command_from_message(cmdstanpy_message),
        )


def _stdout_files(directory: Path) -> dict[Path, tuple[int, int]]:
    """Console files of a directory with their modification time and size."""
    out = {}
    for f in directory.glob("*-stdout.txt"):
        try:
            st = f.stat()
        except OSError:
            continue
        out[f] = (st.st_mtime_ns, st.st_size)
    return out


def _console_since(directory: Path, before: Mapping[Path, tuple[int, int]]) -> str:
    """What the runs since ``before`` printed (new files, or files written again)."""
    after = _stdout_files(directory)
    files = sorted(f for f, stamp in after.items() if before.get(f) != stamp)
    return "\n".join(f.read_text(errors="replace") for f in files)


_Runner = Callable[
    [_StanRun, Any, Mapping[str, Any], int, dict[str, Any]], tuple[Any, dict[str, Any]]
]


def _run_nuts(
    run: _StanRun, model: Any, data: Mapping[str, Any], seed: int, given: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    kwargs = dict(given)
    kwargs.setdefault("show_progress", False)
    result = run.call("NUTS sampling", model.sample, data=data, seed=seed, **kwargs)
    return result, {"num_chains": result.chains}


def _variational_runner(algorithm: str) -> _Runner:
    def runner(
        run: _StanRun, model: Any, data: Mapping[str, Any], seed: int, given: dict[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        kwargs = dict(given)
        result = run.call(
            f"ADVI ({algorithm})",
            model.variational,
            data=data,
            seed=seed,
            algorithm=algorithm,
            **kwargs,
        )
        return result, {
            "algorithm": algorithm,
            "eta": float(result.eta),
            "approximation": "draws from the variational approximation, stored as one chain",
        }

    return runner


def _run_map(
    run: _StanRun, model: Any, data: Mapping[str, Any], seed: int, given: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    kwargs = dict(given)
    kwargs.setdefault("algorithm", "lbfgs")
    result = run.call("Optimization (MAP)", model.optimize, data=data, seed=seed, **kwargs)
    return result, {
        "point_estimate": "mode",
        "point_estimate_note": (
            "posterior mode found by Stan's optimizer, stored as a single draw of a "
            "single chain; it is not a posterior sample"
        ),
        "jacobian": bool(kwargs.get("jacobian", False)),
        "algorithm": kwargs["algorithm"],
        "converged": bool(result.converged),
    }


def _run_laplace(
    run: _StanRun, model: Any, data: Mapping[str, Any], seed: int, given: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    kwargs = dict(given)
    draws = kwargs.pop("draws", None)
    jacobian = kwargs.pop("jacobian", True)
    kwargs.setdefault("algorithm", "lbfgs")
    sig_figs = kwargs.pop("sig_figs", None)
    common = {
        k: kwargs.pop(k)
        for k in ("timeout", "refresh", "show_console", "save_profile")
        if k in kwargs
    }
    mode = run.call(
        "Optimization (Laplace mode)",
        model.optimize,
        subdir="mode",
        data=data,
        seed=seed,
        jacobian=jacobian,
        # Stan's default 6 digits can leave a simplex summing to 1 +- 1e-6, which
        # fails Stan's check (tolerance 1e-8) when laplace_sample reads the mode.
        sig_figs=18,
        **kwargs,
        **common,
    )
    result = run.call(
        "Laplace sampling",
        model.laplace_sample,
        data=data,
        mode=mode,
        draws=draws,
        jacobian=jacobian,
        seed=seed,
        check_retcode=True,
        sig_figs=sig_figs,
        **common,
    )
    return result, {
        "jacobian": jacobian,
        "approximation": "draws from the Laplace approximation at the mode, stored as one chain",
    }


def _run_pathfinder(
    run: _StanRun, model: Any, data: Mapping[str, Any], seed: int, given: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    result = run.call("Pathfinder", model.pathfinder, data=data, seed=seed, **given)
    return result, {"approximation": "Pathfinder draws, stored as one chain"}


_RUNNERS: dict[str, _Runner] = {
    "nuts": _run_nuts,
    "advi": _variational_runner("meanfield"),
    "advi-fullrank": _variational_runner("fullrank"),
    "map": _run_map,
    "laplace": _run_laplace,
    "pathfinder": _run_pathfinder,
}

# --------------------------------------------------------------------------- errors

_DATA_PATTERNS = (
    re.compile(r"processing stage=data initialization"),
    re.compile(r"variable does not exist"),
    re.compile(r"mismatch in (number )?dimensions? declared and found"),
    re.compile(r"int variable contained non-int values"),
    re.compile(r"Error reading (data|JSON)", re.IGNORECASE),
)
_UNRECOVERABLE = re.compile(r"Unrecoverable error evaluating the log probability")
_INIT_PATTERNS = (
    re.compile(r"Initialization failed"),
    re.compile(r"Rejecting initial value"),
    re.compile(r"Initialization between \(.*\) failed"),
)
_CONVERGENCE_PATTERNS = (
    re.compile(r"may not have converged"),
    re.compile(r"Line search failed"),
)
_LOCATION = re.compile(r"\(in '([^']*)', line (\d+), column \d+")
_BLOCK_NAMES = (
    "functions",
    "data",
    "transformed data",
    "parameters",
    "transformed parameters",
    "model",
    "generated quantities",
)


def classify_stan_failure(
    text: str, *, stan_source: str | None = None, stan_file: str | Path | None = None
) -> type[StanError]:
    """Decide which StanError a failed run's console output describes.

    Parameters
    ----------
    text
        What Stan printed (console output of the run, or cmdstanpy's message).
    stan_source
        The Stan program, used to find the block of an error's source location.
    stan_file
        Path of the Stan program (only its file name is compared with locations).

    Returns
    -------
    type[StanError]
        :class:`StanDataError` for data Stan could not read or that violates the
        ``data`` block's declarations (or fails a check in ``transformed
        data``); :class:`StanRuntimeError` for an exception thrown while
        evaluating the model at the initial value that is not a rejection;
        :class:`StanInitError` for failed initialization;
        :class:`StanConvergenceError` for non-convergence;
        :class:`StanRuntimeError` otherwise.
    """
    if any(p.search(text) for p in _DATA_PATTERNS):
        return StanDataError
    if stan_source is not None:
        blocks = stan_block_lines(stan_source)
        name = Path(stan_file).name if stan_file is not None else None
        for match in _LOCATION.finditer(text):
            if name is not None and Path(match.group(1)).name != name:
                continue
            block = _block_of_line(blocks, int(match.group(2)))
            if block in ("data", "transformed data"):
                return StanDataError
            break  # only the first located exception decides
    if _UNRECOVERABLE.search(text):
        return StanRuntimeError
    if any(p.search(text) for p in _INIT_PATTERNS):
        return StanInitError
    if any(p.search(text) for p in _CONVERGENCE_PATTERNS):
        return StanConvergenceError
    return StanRuntimeError


def stan_block_lines(source: str) -> dict[str, tuple[int, int]]:
    """Line ranges (1-based, inclusive) of the top-level blocks of a Stan program."""
    blocks: dict[str, tuple[int, int]] = {}
    depth = 0
    line = 1
    words: list[str] = []
    current: str | None = None
    start = 0
    i = 0
    n = len(source)
    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif source.startswith("//", i) or (c == "#" and depth == 0):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += source.count("\n", i, j)
            i = j
        elif c == '"':
            j = source.find('"', i + 1)
            i = n if j < 0 else j + 1
        elif c == "{":
            if depth == 0:
                current = " ".join(words[-2:]) if " ".join(words[-2:]) in _BLOCK_NAMES else None
                if current is None and words and words[-1] in _BLOCK_NAMES:
                    current = words[-1]
                start = line
                words = []
            depth += 1
            i += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and current is not None:
                blocks[current] = (start, line)
                current = None
            i += 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (source[j].isalnum() or source[j] == "_"):
                j += 1
            if depth == 0:
                words.append(source[i:j])
            i = j
        else:
            i += 1
    return blocks


def _block_of_line(blocks: Mapping[str, tuple[int, int]], line: int) -> str | None:
    for name, (first, last) in blocks.items():
        if first <= line <= last:
            return name
    return None


_PROGRESS = re.compile(r"^\s*(Chain \[?\d+\]? )?Iteration:|^\s*(Chain \[?\d+\]? )?Elapsed Time")
_DIAGNOSTIC = re.compile(
    r"Exception|Error|error|Rejecting|Initialization|Unrecoverable|must be|does not exist|"
    r"mismatch|converge|failed|Failed"
)


def stan_message_from_console(console: str, *, max_lines: int = 40) -> str:
    """The part of a CmdStan console transcript that explains a failure.

    Drops the echo of the configuration and progress lines: keeps everything
    from the first line that looks like a diagnostic; if there is none, keeps
    everything. Longer than ``max_lines``, the first quarter and the last three
    quarters of those lines are kept (Stan's conclusion comes last).
    """
    lines = [ln.rstrip() for ln in console.splitlines() if not _PROGRESS.search(ln)]
    first = next((i for i, ln in enumerate(lines) if _DIAGNOSTIC.search(ln)), None)
    kept = lines[first:] if first is not None else lines
    while kept and not kept[-1].strip():
        kept.pop()
    if len(kept) > max_lines:
        head = kept[: max_lines // 4]
        tail = kept[-(max_lines - len(head)) :]
        kept = [*head, f"... ({len(kept) - len(head) - len(tail)} lines omitted) ...", *tail]
    return "\n".join(kept).strip()


_EXCEPTION_LINE = re.compile(r"^\s*Exception: ")


def _first_line(text: str, pattern: re.Pattern[str]) -> str | None:
    """The first line matching ``pattern``; with the next line if it ends in ``:``.

    Stan puts the reason on the line after its heading ("Optimization terminated with
    error:" then "Line search failed ..."): the heading alone explains nothing.
    """
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for i, ln in enumerate(lines):
        if pattern.search(ln):
            if ln.endswith(":") and i + 1 < len(lines):
                return f"{ln} {lines[i + 1]}"
            return ln
    return None


def _command_from_message(message: str) -> list[str] | None:
    match = re.search(r"Command '(.*?)' failed", message)
    if match:
        return match.group(1).split()
    match = re.search(r"cmd \(chain 1\):\s*\n\s*(\[.*?\])", message)
    if match:
        return re.findall(r"'([^']*)'", match.group(1)) or None
    return None


# --------------------------------------------------------------------------- helpers


def _read_text(path: Path) -> str | None:
    try:
        return Path(path).read_text()
    except OSError:
        return None


def _toolchain_description() -> str:
    try:
        from bayeswe.stan import toolchain

        info = toolchain.toolchain_info()
    except (ImportError, AttributeError, RuntimeError, OSError, BayesweError):
        return "unknown"
    if isinstance(info, Mapping):
        return "; ".join(f"{k}={v}" for k, v in info.items())
    return str(info)


def _bayeswe_version() -> str:
    from bayeswe._version import __version__

    return __version__
