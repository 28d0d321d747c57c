"""Fitting SGNS: :func:`fit_sgns` (MAP, fixed context vectors, then any method) and
:func:`find_anchors` (the MAP and the choice of the fixed words, section 4.1.1).

The Stan declarations live in :mod:`bayeswe.sgns.models`; this module sits above
:func:`bayeswe.fit`, which dispatches to Stan and to the samplers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe._arviz import az
from bayeswe.fit import fit
from bayeswe.options import rename_deprecated
from bayeswe.sgns.data import SGNSData
from bayeswe.sgns.errors import IdentificationError, SGNSDataError
from bayeswe.sgns.identify import (
    ANCHOR_RULES,
    DEFAULT_ANCHOR_RULE,
    Anchors,
    check_anchors,
    check_anchors_in_data,
    choose_anchor_words,
    identify_transform,
    word_counts,
)
from bayeswe.sgns.models import SGNS, SGNS_IDENTIFIED
from bayeswe.stan.fitting import METHODS, check_seed, method_args

__all__ = [
    "IDENTIFICATIONS",
    "IDENTIFIED_ONLY",
    "UNIDENTIFIED_ONLY",
    "default_identification",
    "find_anchors",
    "fit_sgns",
]

#: Ways to identify the model (see :func:`fit_sgns`).
IDENTIFICATIONS: tuple[str, ...] = ("posthoc", "anchors", "none")
#: Methods whose default identification is ``"posthoc"`` (:func:`default_identification`).
POSTHOC_DEFAULT: tuple[str, ...] = ("nuts", "pg-gibbs")
#: bayeswe's own methods for ``sgns_identified`` only.
IDENTIFIED_ONLY: tuple[str, ...] = ("laplace-sparse",)
#: bayeswe's own methods for the unidentified ``sgns`` (``identified=False``): the
#: variational Bayes of Sakaya's thesis, whose ARD prior on the context vectors would
#: conflict with fixing K of them.
UNIDENTIFIED_ONLY: tuple[str, ...] = ("jj-vb", "jj-svi")


def fit_sgns(
    data: SGNSData,
    K: int,
    *,
    method: str,
    identification: str | None = None,
    gauge: str = "svd",
    identified: bool | None = None,
    anchors: Anchors | None = None,
    anchor_words: str | Sequence[int] | Sequence[str] = DEFAULT_ANCHOR_RULE,
    prior_sd: float = 1.0,
    init: str = "map",
    init_jitter: float = 0.1,
    seed: int | None = None,
    chains: int | None = None,
    **options: Any,
) -> az.InferenceData:
    """Fit SGNS embeddings to ``data`` by any :func:`bayeswe.fit` method.

    The likelihood depends on ``rho`` and ``alpha`` only through ``rho @ alpha.T``, so
    the embeddings are determined up to an invertible ``K x K`` matrix (eq. (7)).
    ``identification`` says how that freedom is removed:

    * ``"posthoc"``: sample the unidentified ``sgns`` (every context vector free),
      then map every draw onto ``gauge`` (:mod:`bayeswe.sgns.gauge`; ``"svd"``, the
      balanced factorization of ``rho @ alpha.T``, by default). Nothing is
      conditioned on, so the posterior of the co-occurrence probabilities is the
      model's; cosines and neighbours are those of the gauge. PG-Gibbs adds an
      exact move along the orbit after every sweep. The default for ``"nuts"`` and
      ``"pg-gibbs"``: on the simulated grid of the paper's Table 1 its 90 %
      intervals held 88-92 % of the true probabilities where the anchored fits held
      71.5-90 % (``reproductions/001-table1``).
    * ``"anchors"``: the workflow of the paper's section 4.1.1: MAP of ``sgns``
      (same ``seed``), fix ``K`` context vectors at their MAP values
      (``anchor_words``), fit ``sgns_identified``. Conditioning on a noisy MAP
      narrows the intervals where data are few per parameter. The default for the
      other methods, whose behaviour on the unidentified model is not measured, and
      the only choice for the Laplace approximations (a mode of the unidentified
      posterior is one of a continuum). Initialization matters here: fixing ``K``
      rows removes the exact symmetry, but only the data of the ``K`` fixed context
      words pin the remaining directions, so the identified posterior can keep
      secondary modes far from the MAP (from Stan's uniform(-2, 2) start, V=100,
      K=5, N=5e4, 2 chains: R-hat 1.8); ``init="map"`` starts every chain at the
      MAP mapped onto the identified slice (Proposition 1) plus seeded
      ``N(0, (init_jitter * prior_sd)^2)`` noise per chain and coordinate.
    * ``"none"``: the unidentified fit as it comes (the only choice for ``"jj-vb"``
      and ``"jj-svi"``, whose ARD prior is not the model's).

    Parameters
    ----------
    data
        Aggregated SGNS data.
    K
        Embedding dimension.
    method
        ``"nuts"``, ``"advi"``, ``"advi-fullrank"``, ``"map"``, ``"laplace"`` or
        ``"pathfinder"`` (Stan); ``"pg-gibbs"``; ``"laplace-sparse"`` (anchors only);
        ``"jj-vb"`` or ``"jj-svi"`` (``"none"`` only).
    identification
        ``"posthoc"``, ``"anchors"`` or ``"none"`` (see above); default
        :func:`default_identification` of ``method``.
    gauge
        The gauge of ``"posthoc"``: ``"svd"`` or ``"anchors"`` (Proposition 1's
        ``alpha[I] = I`` for the words ``anchor_words`` picks from the MAP).
    identified
        The older flag: True is ``identification="anchors"``, False ``"none"``.
    anchors
        Fixed words and vectors to use instead of finding them by MAP (implies
        ``identification="anchors"``).
    anchor_words
        How to choose the fixed words (see :func:`bayeswe.sgns.identify.choose_anchor_words`).
    prior_sd
        Prior standard deviation (Stan's ``lambda``).
    init
        ``"map"`` (start at the MAP plus jitter) or ``"random"`` (the method's own
        start); ignored when ``inits`` is passed as an option,
        and for ``method="pathfinder"``, which needs an optimization path to learn from.
    init_jitter
        Per-chain noise of ``init="map"``, in units of ``prior_sd``.
    seed, chains, **options
        As for :func:`bayeswe.fit`.

    Returns
    -------
    arviz.InferenceData
        ``posterior`` with ``rho`` and ``alpha`` (``(chain, draw, word, dim)``);
        ``attrs["identification"]``; ``attrs["gauge"]`` of a post hoc fit;
        ``attrs["fixed_words"]`` lists the fixed words of an anchored fit.

    Raises
    ------
    IdentificationError
        ``K >= V``; a fixed word not in the vocabulary or never observed as a
        context word; a singular or ill-conditioned fixed matrix (condition
        number above :data:`~bayeswe.sgns.identify.MAX_CONDITION`, reported in
        the message).
    SGNSDataError
        ``data`` is not an :class:`~bayeswe.sgns.data.SGNSData`.
    """
    if not isinstance(data, SGNSData):
        raise SGNSDataError(f"data must be an SGNSData, got {type(data).__name__}")
    options = rename_deprecated(method, options)
    identification = _resolve_identification(identification, identified, anchors, method)
    if identification == "posthoc":
        return _fit_posthoc(
            data, K, method=method, gauge=gauge, anchor_words=anchor_words,
            prior_sd=prior_sd, init=init, init_jitter=init_jitter, seed=seed, chains=chains,
            **options,
        )  # fmt: skip
    identified = identification == "anchors"
    if init not in ("map", "random"):
        raise ValueError(f"init must be 'map' or 'random', got {init!r}")
    # Everything that can be checked is checked before the MAP, the first expensive step.
    data.stan_data(K, prior_sd=prior_sd)  # K, prior_sd, and pairs present
    _check_method(method, chains, identified=identified, options=options)
    check_seed(seed)
    if identified and anchors is None:
        _check_anchor_words(data, K, anchor_words)
    if not identified:
        if anchors is not None:
            raise ValueError("anchors apply only to identified=True")
        idata = fit(
            SGNS,
            data.stan_data(K, prior_sd=prior_sd),
            method=method,
            seed=seed,
            chains=chains,
            **options,
        )
        for attrs in (idata.attrs, idata.posterior.attrs):
            attrs["identification"] = "none"
        return idata
    mode = None
    if anchors is None:
        anchors, mode = find_anchors(
            data, K, prior_sd=prior_sd, anchor_words=anchor_words, seed=seed
        )
    check_anchors(anchors.fixed_index, anchors.fixed_alpha, V=data.V, K=K)
    check_anchors_in_data(data, anchors.fixed_index)
    stan_data = data.stan_data(
        K, prior_sd=prior_sd, fixed_index=anchors.fixed_index, fixed_alpha=anchors.fixed_alpha
    )
    used_init = "user" if "inits" in options else init
    if used_init == "map" and method == "pathfinder":
        # Pathfinder learns its approximation from the optimization path; started at
        # the mode the path is empty (its draws covered 100 % of true probabilities
        # in bayeswe compare sgns, against 34 % from random starts).
        used_init = "random"
    if used_init == "map":
        if mode is None:
            mode = fit(SGNS, data.stan_data(K, prior_sd=prior_sd), method="map", seed=seed)
        options["inits"] = _map_inits(
            mode, anchors, method=method, chains=chains, scale=init_jitter * prior_sd, seed=seed
        )
    idata = fit(SGNS_IDENTIFIED, stan_data, method=method, seed=seed, chains=chains, **options)
    words = ",".join(anchors.words or (data.vocabulary[i] for i in anchors.fixed_index))
    for attrs in (idata.attrs, idata.posterior.attrs):
        attrs["fixed_words"] = words
        attrs["init"] = used_init
        attrs["identification"] = "anchors"
    return idata


def default_identification(method: str) -> str:
    """The identification :func:`fit_sgns` uses for ``method`` when none is given.

    ``"posthoc"`` for the samplers whose coverage it was measured for (``"nuts"``,
    ``"pg-gibbs"``), ``"none"`` for the ARD variational methods, ``"anchors"`` for
    the rest.
    """
    if method in POSTHOC_DEFAULT:
        return "posthoc"
    if method in UNIDENTIFIED_ONLY:
        return "none"
    return "anchors"


def _resolve_identification(
    identification: str | None, identified: bool | None, anchors: Anchors | None, method: str
) -> str:
    """``identification`` from it, or from the older ``identified`` flag and ``anchors``,
    or :func:`default_identification`."""
    if identification is not None and identified is not None:
        raise ValueError("give identification or identified, not both")
    if identification is None:
        if identified is None:
            return "anchors" if anchors is not None else default_identification(method)
        return "anchors" if identified else "none"
    if identification not in IDENTIFICATIONS:
        raise ValueError(f"identification must be one of {IDENTIFICATIONS}, got {identification!r}")
    if anchors is not None and identification != "anchors":
        raise ValueError("anchors apply only to identification='anchors'")
    return identification


def _fit_posthoc(
    data: SGNSData,
    K: int,
    *,
    method: str,
    gauge: str,
    anchor_words: str | Sequence[int] | Sequence[str],
    prior_sd: float,
    init: str,
    init_jitter: float,
    seed: int | None,
    chains: int | None,
    **options: Any,
) -> az.InferenceData:
    """Fit the unidentified ``sgns``, then map every draw onto ``gauge``."""
    from bayeswe.sgns.gauge import GAUGES, to_gauge

    if gauge not in GAUGES:
        raise ValueError(f"gauge must be one of {GAUGES}, got {gauge!r}")
    if method in UNIDENTIFIED_ONLY:
        raise ValueError(
            f"{method} fits the unidentified model with ARD priors, not the model whose "
            "gauge this maps: use identification='none'"
        )
    if method in ("laplace", *IDENTIFIED_ONLY):
        raise ValueError(
            f"{method} approximates the posterior at a mode, and a mode of the unidentified "
            "posterior is one of a continuum: use identification='anchors'"
        )
    stan_data = data.stan_data(K, prior_sd=prior_sd)
    _check_method(method, chains, identified=False, options=options)
    check_seed(seed)
    words: Sequence[int] | None = None
    if gauge == "anchors":
        _check_anchor_words(data, K, anchor_words)
    start = init == "map" and method in ("nuts", "pg-gibbs") and "inits" not in options
    mode = None
    if start or gauge == "anchors":
        mode = fit(SGNS, stan_data, method="map", seed=seed)
    if start:
        # Every chain from the MAP plus its own jitter, as for the identified model:
        # Stan's uniform(-2, 2) start lies far outside the prior's scale.
        at_mode = {name: mode.posterior[name].values[0, 0] for name in ("rho", "alpha")}
        options["inits"] = _jittered(
            at_mode, chains=chains, scale=init_jitter * prior_sd, seed=seed
        )
    idata = fit(
        SGNS, stan_data, method=method, seed=seed, chains=chains,
        **options,
    )  # fmt: skip
    if mode is not None and gauge == "anchors":
        # the words are chosen from the MAP's context vectors, as find_anchors does; the
        # gauge's matrix is the identity whatever their values
        alpha = mode.posterior["alpha"].values[0, 0]
        words = choose_anchor_words(alpha, K, anchor_words, counts=word_counts(data), seed=seed)
    out = to_gauge(idata, gauge, anchor_words=words)
    for attrs in (out.attrs, out.posterior.attrs):
        attrs["identification"] = "posthoc"
        attrs["init"] = "map" if start else ("user" if "inits" in options else init)
    return out


def _jittered(
    start: dict[str, Any], *, chains: int | None, scale: float, seed: int | None
) -> list[dict[str, Any]]:
    """One start per chain: ``start`` plus seeded ``N(0, scale^2)`` noise on every entry."""
    rng = np.random.default_rng(seed)
    return [
        {name: value + scale * rng.normal(size=value.shape) for name, value in start.items()}
        for _ in range(chains or 4)
    ]


def _check_method(
    method: str, chains: int | None, *, identified: bool, options: dict[str, Any]
) -> None:
    """Validate ``method``, ``chains`` and ``options`` as :func:`bayeswe.fit` will, now."""
    if method in METHODS:
        method_args(method, chains, **options)
    elif method == "pg-gibbs":
        from bayeswe.samplers.checkpoint import check_checkpoint_path
        from bayeswe.samplers.pg_gibbs import PGGibbsArgs

        args = PGGibbsArgs.from_options(options)
        if args.checkpoint is not None:
            check_checkpoint_path(args.checkpoint)
    elif method == "laplace-sparse" and identified:
        from bayeswe.samplers.laplace_sparse import check_options

        check_options(chains, options)
    elif method in ("jj-vb", "jj-svi") and not identified:
        from bayeswe.samplers.jj_vb import check_options as check_jj_options

        check_jj_options(method, chains, options)
    else:
        allowed = (*METHODS, *IDENTIFIED_ONLY) if identified else (*METHODS, *UNIDENTIFIED_ONLY)
        hint = ""
        if method in UNIDENTIFIED_ONLY:
            hint = f" ({method} fits the unidentified model with ARD: identification='none')"
        elif method in IDENTIFIED_ONLY:
            hint = f" ({method} needs the identified model: identification='anchors')"
        raise ValueError(
            f"method must be one of {', '.join(allowed)} for "
            f"{'identified' if identified else 'unidentified'} SGNS; got {method!r}{hint}"
        )


def _check_anchor_words(
    data: SGNSData, K: int, anchor_words: str | Sequence[int] | Sequence[str]
) -> None:
    """Refuse a bad anchor rule or bad explicit anchor words before the MAP runs."""
    if K >= data.V:
        raise IdentificationError(
            f"cannot fix K={K} context words of a vocabulary of V={data.V}: need K < V"
        )
    if isinstance(anchor_words, str):
        if anchor_words not in ANCHOR_RULES:
            raise IdentificationError(
                f"anchor rule must be one of {ANCHOR_RULES} or a sequence of words or "
                f"indices, got {anchor_words!r}"
            )
        return
    words = list(anchor_words)
    if len(words) != K:
        raise IdentificationError(f"{len(words)} anchor words given for K={K}")
    if words and all(isinstance(w, str) for w in words):
        unknown = [w for w in words if w not in data.vocabulary]
        if unknown:
            raise IdentificationError(f"fixed word(s) {unknown} absent from the vocabulary")
        index = np.array([data.word_index(w) for w in words], dtype=np.int64)
    else:
        index = np.asarray(words)
        if index.dtype.kind not in "iu":
            raise IdentificationError(
                f"explicit anchor words must be words or integer indices, got {anchor_words!r}"
            )
        if index.size and (index.min() < 0 or index.max() >= data.V):
            raise IdentificationError(f"anchor indices must be in [0, {data.V}), got {words}")
    if len(set(index.tolist())) != len(index):
        raise IdentificationError(f"anchor words must be distinct, got {words}")
    check_anchors_in_data(data, index)


def _map_inits(
    mode: az.InferenceData,
    anchors: Anchors,
    *,
    method: str,
    chains: int | None,
    scale: float,
    seed: int | None,
) -> dict[str, Any] | list[dict[str, Any]]:
    """The MAP moved onto the slice alpha[I] = M (Prop. 1), jittered per chain for NUTS."""
    rho, alpha = identify_transform(
        mode.posterior["rho"].values[0, 0],
        mode.posterior["alpha"].values[0, 0],
        anchors.fixed_index,
        anchors.fixed_alpha,
    )
    free = np.setdiff1d(np.arange(rho.shape[0]), anchors.fixed_index)
    start = {"rho": rho, "alpha_free": alpha[free]}
    if method not in ("nuts", "pg-gibbs"):  # the multi-chain samplers get one start per chain
        return start
    return _jittered(start, chains=chains, scale=scale, seed=seed)


def find_anchors(
    data: Any,
    K: int,
    *,
    prior_sd: float = 1.0,
    anchor_words: str | Sequence[int] | Sequence[str] = DEFAULT_ANCHOR_RULE,
    seed: int | None = None,
    **map_options: Any,
) -> tuple[Anchors, az.InferenceData]:
    """MAP of the unidentified model, then fix ``K`` context vectors at their MAP values.

    This is the procedure of section 4.1.1.

    Parameters
    ----------
    data
        An :class:`~bayeswe.sgns.data.SGNSData`.
    K
        Embedding dimension.
    prior_sd
        Prior standard deviation (Stan's ``lambda``).
    anchor_words
        A rule of :func:`choose_anchor_words` (default ``"qr"``; the paper used
        ``"last"``), or explicit words (strings) or 0-based indices.
    seed
        Seed of the optimizer's random initialization and of ``anchor_words="random"``.
    **map_options
        Options of ``fit(method="map")``.

    Returns
    -------
    (anchors, map_fit)
        The anchors and the MAP InferenceData of ``sgns``.

    Raises
    ------
    IdentificationError
        ``K >= V``; a chosen word not in the vocabulary or absent from the data
        (never a context word); the chosen words' MAP context vectors (nearly)
        linearly dependent (the message reports the condition number).
    """
    if K >= data.V:
        raise IdentificationError(
            f"cannot fix K={K} context words of a vocabulary of V={data.V}: need K < V"
        )
    if not isinstance(anchor_words, str) and len(anchor_words) and isinstance(anchor_words[0], str):
        unknown = [w for w in anchor_words if w not in data.vocabulary]
        if unknown:
            raise IdentificationError(f"fixed word(s) {unknown} absent from the vocabulary")
    idata = fit(SGNS, data.stan_data(K, prior_sd=prior_sd), method="map", seed=seed, **map_options)
    alpha = idata.posterior["alpha"].values[0, 0]
    if not isinstance(anchor_words, str) and len(anchor_words) and isinstance(anchor_words[0], str):
        rule: str | Sequence[int] = [data.word_index(w) for w in anchor_words]
    else:
        rule = anchor_words
    index = choose_anchor_words(alpha, K, rule, counts=word_counts(data), seed=seed)
    index = np.asarray(index, dtype=np.int64)
    if len(index) == K and index.min() >= 0 and index.max() < data.V:
        check_anchors_in_data(data, index)
    index, matrix = check_anchors(index, alpha[index], V=data.V, K=K)
    words = tuple(data.vocabulary[i] for i in index)
    return Anchors(index, matrix, words), idata
