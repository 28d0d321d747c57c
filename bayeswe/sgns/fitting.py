"""Fitting SGNS: :func:`fit_sgns` (MAP, fixed context vectors, then any method) and
:func:`find_anchors` (the MAP and the choice of the fixed words, section 4.1.1).

The Stan declarations live in :mod:`bayeswe.sgns.models`; this module sits above
:func:`bayeswe.fit`, which dispatches to Stan and to the samplers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import arviz as az
import numpy as np

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

__all__ = ["IDENTIFIED_ONLY", "UNIDENTIFIED_ONLY", "find_anchors", "fit_sgns"]

#: bayeswe's own methods for ``sgns_identified`` (``identified=True``).
IDENTIFIED_ONLY: tuple[str, ...] = ("pg-gibbs", "laplace-sparse")
#: bayeswe's own methods for the unidentified ``sgns`` (``identified=False``): the
#: variational Bayes of Sakaya's thesis, whose ARD prior on the context vectors would
#: conflict with fixing K of them.
UNIDENTIFIED_ONLY: tuple[str, ...] = ("jj-vb", "jj-svi")


def fit_sgns(
    data: SGNSData,
    K: int,
    *,
    method: str,
    identified: bool = True,
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

    With ``identified=True`` (the default) and no ``anchors``, this runs the
    workflow of section 4.1.1: MAP of ``sgns`` (same ``seed``), fix ``K`` context
    vectors at their MAP values (``anchor_words``), then fit ``sgns_identified``.

    Initialization matters for the identified model. Fixing ``K`` rows removes
    the exact ``GL(K)`` symmetry, but only the data of the ``K`` fixed context
    words pin the remaining "rotation" directions, so the identified posterior
    can keep secondary modes far from the MAP. With Stan's random
    initialization (uniform(-2, 2) on every coordinate) NUTS chains can settle in
    them (V=100, K=5, N=5e4, 2 chains: R-hat 1.8, median bulk ESS 18 of 2000
    draws); started at the MAP they agree (R-hat 1.03, median ESS 610). So
    ``init="map"`` (the default) starts every chain at the MAP mapped onto the
    identified slice by Proposition 1, plus independent N(0, (init_jitter *
    prior_sd)^2) noise per chain and coordinate (seeded by ``seed``). Chains
    started together cannot reveal modes they never visit: compare with
    ``init="random"`` when it matters.

    Parameters
    ----------
    data
        Aggregated SGNS data.
    K
        Embedding dimension.
    method
        ``"nuts"``, ``"advi"``, ``"advi-fullrank"``, ``"map"``, ``"laplace"`` or
        ``"pathfinder"`` (Stan); ``"pg-gibbs"`` or ``"laplace-sparse"`` (identified only);
        ``"jj-vb"`` or ``"jj-svi"`` (``identified=False`` only).
    identified
        Fit ``sgns_identified`` (True) or the unidentified ``sgns`` (False).
    anchors
        Fixed words and vectors to use instead of finding them by MAP.
    anchor_words
        How to choose the fixed words (see :func:`bayeswe.sgns.identify.choose_anchor_words`).
    prior_sd
        Prior standard deviation (Stan's ``lambda``).
    init
        ``"map"`` (start at the MAP, see above) or ``"random"`` (Stan's default);
        only for ``identified=True``; ignored when ``inits`` is passed as an option,
        and for ``method="pathfinder"``, which needs an optimization path to learn from.
    init_jitter
        Per-chain noise of ``init="map"``, in units of ``prior_sd``.
    seed, chains, **options
        As for :func:`bayeswe.fit`.

    Returns
    -------
    arviz.InferenceData
        ``posterior`` with ``rho`` and ``alpha`` (``(chain, draw, word, dim)``);
        ``attrs["fixed_words"]`` lists the fixed words of an identified fit.

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
        return fit(
            SGNS,
            data.stan_data(K, prior_sd=prior_sd),
            method=method,
            seed=seed,
            chains=chains,
            **options,
        )
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
    return idata


def _check_method(
    method: str, chains: int | None, *, identified: bool, options: dict[str, Any]
) -> None:
    """Validate ``method``, ``chains`` and ``options`` as :func:`bayeswe.fit` will, now."""
    if method in METHODS:
        method_args(method, chains, **options)
    elif method == "pg-gibbs" and identified:
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
            hint = f" ({method} fits the unidentified model with ARD: pass identified=False)"
        elif method in IDENTIFIED_ONLY:
            hint = f" ({method} needs the identified model: pass identified=True)"
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
    if method not in ("nuts", "pg-gibbs"):  # the multi-chain samplers get one start per chain
        return {"rho": rho, "alpha_free": alpha[free]}
    rng = np.random.default_rng(seed)
    return [
        {
            "rho": rho + scale * rng.normal(size=rho.shape),
            "alpha_free": alpha[free] + scale * rng.normal(size=alpha[free].shape),
        }
        for _ in range(chains or 4)
    ]


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
