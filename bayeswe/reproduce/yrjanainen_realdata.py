"""Shared pieces of ``001-table4``, ``001-table5`` and ``001-table6``: real data as SGNS.

* :func:`movielens_pairs` and :func:`sotu_pairs`: the aggregated SGNS data of the whole
  of MovieLens ml-100k (:meth:`bayeswe.datasets.MovieLens.sgns_data`) and of the State
  of the Union addresses (the Congress substitute of section 4.3), each built once per
  process;
* :func:`training_and_holdout`: a hold-out set (a tenth of all observations) and a
  training set of about ``N`` observations drawn from the rest, as the paper's ``N``
  counts observations (positive plus negative samples, eq. (5));
* :func:`identified_start`: the MAP of ``sgns`` (:func:`bayeswe.samplers.sgns_map.sgns_map`,
  the same objective as Stan's L-BFGS without its autodiff tape: ten times faster here,
  and at V = 5000 Stan's tape does not fit in memory), the ``K`` fixed context words
  chosen from it, and the MAP moved onto the identified slice (Proposition 1) as every
  sampler's start;
* :func:`posterior_mean` and :func:`holdout`: the point estimates and the metric of
  Tables 5-6 (the SGNS log likelihood per held-out observation).

Every random choice derives from :data:`DATA_SEED` and the cell's data indices
(``N``, ``dataset``), never from the cell's own seed, so that every method of a
(N, dataset) sees the same data, MAP and anchors.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe.sgns.data import SGNSData

__all__ = [
    "DATA_SEED",
    "TEST_FRACTION",
    "IdentifiedStart",
    "data_seed",
    "holdout",
    "identified_start",
    "movielens_pairs",
    "posterior_mean",
    "sotu_pairs",
    "training_and_holdout",
]

#: Root of every data-side random choice (hold-out split, thinning, negatives, MAP start).
DATA_SEED = 20240425
#: Share of all observations held out (the paper does not give its split).
TEST_FRACTION = 0.1


def data_seed(*key: int) -> int:
    """A seed derived from :data:`DATA_SEED` and integer ``key`` (independent streams)."""
    state = np.random.SeedSequence(DATA_SEED, spawn_key=tuple(int(k) for k in key))
    return int(state.generate_state(1)[0])


@functools.lru_cache(maxsize=2)
def movielens_pairs(min_ratings: int = 50) -> SGNSData:
    """SGNS data of all of ml-100k: V = 603 movies with the default ``min_ratings``.

    One negative per positive (the default of
    :meth:`~bayeswe.datasets.MovieLens.sgns_data`); a larger ``min_ratings`` gives a
    smaller vocabulary (the quick runs).
    """
    from bayeswe.datasets import load_movielens

    return load_movielens(min_ratings=min_ratings).sgns_data(negatives=1, seed=data_seed(1))


@functools.lru_cache(maxsize=2)
def sotu_pairs(
    vocab_size: int = 5000, window: int = 2, negatives: int = 1, first_year: int = 1790
) -> SGNSData:
    """SGNS data of the State of the Union addresses from ``first_year`` on.

    Section 4.3's preprocessing applied to the substitute corpus: the ``vocab_size``
    most common words (no stop-word removal: the paper's Fig. 5 pair *that*-*it* is
    two of them), other words dropped, window ``M = window``, ``n_s = negatives``
    negatives per positive, no subsampling (the paper mentions none).
    """
    from bayeswe.corpus import build_vocabulary, sgns_data
    from bayeswe.datasets import load_sotu

    corpus = load_sotu()
    corpus = corpus.subset(np.flatnonzero(corpus.metadata["year"].to_numpy() >= first_year))
    vocabulary = build_vocabulary(corpus.documents, max_size=vocab_size)
    return sgns_data(corpus.documents, vocabulary, window=window, negatives=negatives,
                     seed=data_seed(2))  # fmt: skip


def training_and_holdout(data: SGNSData, N: int, dataset: int) -> tuple[SGNSData, SGNSData]:
    """``(train, test)``: :data:`TEST_FRACTION` of ``data`` held out, then ~``N`` of the rest.

    Dataset ``dataset`` has its own hold-out split; its training set keeps each
    remaining observation with probability ``N / remaining`` (so it holds ``N``
    observations up to binomial noise, ``train.total`` is the exact count).

    Raises
    ------
    ValueError
        ``N`` not below the number of observations left after the hold-out.
    """
    pool, test = data.split(TEST_FRACTION, seed=data_seed(3, dataset))
    if not 0 < N < pool.total:
        raise ValueError(f"N = {N:,} must be positive and below the {pool.total:,} observations "
                         "left after the hold-out")  # fmt: skip
    train = pool.split(N / pool.total, seed=data_seed(4, dataset, N))[1]
    return train, test


@dataclass(frozen=True)
class IdentifiedStart:
    """The MAP, the fixed context words and the identified model's data and start."""

    #: ``sgns_identified`` data (Stan's fields, with ``fixed_index``/``fixed_alpha``)
    stan_data: dict[str, Any]
    #: the MAP of ``sgns``, ``V x K`` each (the MAP estimator of Tables 5-6)
    rho_map: np.ndarray
    alpha_map: np.ndarray
    #: 0-based fixed words and their ``K x K`` context vectors
    fixed_index: np.ndarray
    fixed_alpha: np.ndarray
    #: the MAP on the identified slice: ``{"rho", "alpha_free"}``
    start: dict[str, np.ndarray]
    #: the optimizer's record: iterations, converged, objective, seconds
    map_run: dict[str, Any]


def identified_start(
    train: SGNSData, K: int, *, prior_sd: float, rule: str, seed: int, max_iter: int
) -> IdentifiedStart:
    """MAP of ``sgns`` on ``train``, ``K`` fixed words by ``rule``, and the start.

    ``max_iter`` caps L-BFGS-B's iterations (the objective of the large real problems
    keeps creeping down for thousands of them; ``map_run`` records whether it stopped
    by its own tolerance). The start is the MAP mapped onto the identified slice.
    """
    from bayeswe.samplers.sgns_map import sgns_map
    from bayeswe.sgns.identify import (
        check_anchors,
        check_anchors_in_data,
        choose_anchor_words,
        identify_transform,
        word_counts,
    )

    mode = sgns_map(train.stan_data(K, prior_sd=prior_sd), seed=seed, max_iter=max_iter)
    index = choose_anchor_words(mode.alpha, K, rule, counts=word_counts(train), seed=seed)
    check_anchors_in_data(train, index)
    index, matrix = check_anchors(index, mode.alpha[index], V=train.V, K=K)
    rho, alpha = identify_transform(mode.rho, mode.alpha, index, matrix)
    free = np.setdiff1d(np.arange(train.V), index)
    return IdentifiedStart(
        stan_data=train.stan_data(K, prior_sd=prior_sd, fixed_index=index, fixed_alpha=matrix),
        rho_map=mode.rho,
        alpha_map=mode.alpha,
        fixed_index=index,
        fixed_alpha=matrix,
        start={"rho": rho, "alpha_free": alpha[free]},
        map_run={"iterations": mode.iterations, "converged": mode.converged,
                 "objective": mode.objective, "seconds": mode.seconds},
    )  # fmt: skip


def posterior_mean(idata: Any) -> tuple[np.ndarray, np.ndarray]:
    """Posterior means of ``rho`` and ``alpha`` (``V x K``): the PM estimator of Tables 5-6."""
    post = idata.posterior
    return tuple(  # type: ignore[return-value]
        post[name].mean(("chain", "draw")).transpose("word", "dim").values
        for name in ("rho", "alpha")
    )


def holdout(rho: np.ndarray, alpha: np.ndarray, test: SGNSData) -> float:
    """SGNS log likelihood per held-out observation (eq. (5) over ``test.total``)."""
    from bayeswe.sgns.metrics import mean_log_likelihood

    return float(mean_log_likelihood(rho, alpha, test))
