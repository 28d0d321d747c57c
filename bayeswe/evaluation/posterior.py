"""Posterior questions about individual words: cosines, neighbours, comparisons.

Each function evaluates a quantity of the embedding in every posterior draw and
summarizes the draws, so the answer carries the posterior uncertainty:

* :func:`posterior_cosine` / :func:`posterior_cosine_table`: the posterior of
  ``cos(w1, w2)`` (mean, sd, central credible interval);
* :func:`posterior_neighbours`: for every word, the posterior probability that it is
  among the ``k`` nearest neighbours (by cosine) of a given word. In each draw exactly
  ``k`` words are the top ``k`` (ties broken arbitrarily), so the probabilities sum to
  ``k``;
* :func:`posterior_prob_closer`: ``P(cos(a, b) > cos(a, c) | data)``, e.g. "is
  *immigration* closer to *economy* than to *security*?".

Draws are InferenceData from :func:`bayeswe.fit` or ``(n_draws, V, D)`` arrays; the
``vectors`` option and word matching are described in :mod:`bayeswe.evaluation.embedding`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayeswe.evaluation.embedding import (
    Draws,
    as_draws,
    central_interval,
    check_options,
    check_prob,
    unit_rows,
)
from bayeswe.evaluation.errors import EvaluationError
from bayeswe.options import check_int

__all__ = [
    "CloserResult",
    "CosinePosterior",
    "posterior_cosine",
    "posterior_cosine_table",
    "posterior_neighbours",
    "posterior_prob_closer",
]

#: Floats of word vectors held at once when a function needs the whole vocabulary.
_CHUNK_FLOATS = 1 << 22


@dataclasses.dataclass(frozen=True)
class CosinePosterior:
    """Posterior of the cosine similarity of two words.

    Attributes
    ----------
    word1, word2
        The words as asked.
    mean, sd, lower, upper
        Posterior mean, sd and central ``prob`` credible interval.
    prob
        Mass of the interval.
    draws
        The cosine in every draw, dims ``(chain, draw)``.
    """

    word1: str
    word2: str
    mean: float
    sd: float
    lower: float
    upper: float
    prob: float
    draws: xr.DataArray = dataclasses.field(repr=False)


@dataclasses.dataclass(frozen=True)
class CloserResult:
    """``P(cos(word, closer) > cos(word, than))`` and the posterior of the difference.

    Attributes
    ----------
    word, closer, than
        The words as asked.
    probability
        Fraction of draws in which ``cos(word, closer) > cos(word, than)``.
    difference
        ``mean``, ``sd``, ``lower``, ``upper``, ``prob`` of
        ``cos(word, closer) - cos(word, than)``.
    draws
        The difference in every draw, dims ``(chain, draw)``.
    """

    word: str
    closer: str
    than: str
    probability: float
    difference: pd.Series
    draws: xr.DataArray = dataclasses.field(repr=False)


def _per_draw(post: Draws, values: np.ndarray, name: str, **attrs: Any) -> xr.DataArray:
    return xr.DataArray(
        values.reshape(post.n_chain, post.n_draw),
        dims=("chain", "draw"),
        coords={"chain": np.arange(post.n_chain), "draw": np.arange(post.n_draw)},
        name=name,
        attrs=attrs,
    )


def _cosines(post: Draws, rows: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``(S, P)`` cosines of ``rows[pairs[p, 0]]`` and ``rows[pairs[p, 1]]``."""
    unit = unit_rows(post.take(rows))
    return np.einsum("spd,spd->sp", unit[:, pairs[:, 0]], unit[:, pairs[:, 1]])


def posterior_cosine(
    draws: Any,
    vocabulary: Any,
    word1: str,
    word2: str,
    *,
    vectors: str = "rho",
    prob: float = 0.9,
    case_sensitive: bool = False,
) -> CosinePosterior:
    """Posterior of ``cos(word1, word2)``.

    Parameters
    ----------
    draws
        InferenceData from :func:`bayeswe.fit` or an ``(n_draws, V, D)`` array.
    vocabulary
        The word of each row; ``None`` to take the InferenceData's ``word`` coords.
    word1, word2
        The two words.
    vectors
        ``"rho"`` (default), ``"alpha"``, ``"concat"`` or ``"sum"`` (InferenceData only).
    prob
        Mass of the central credible interval, in (0, 1).
    case_sensitive
        Match words exactly (default: case-insensitively).

    Raises
    ------
    OutOfVocabularyError
        If a word is not in the vocabulary (the message suggests close matches).
    EvaluationError
        Bad shapes, non-finite vectors, ``prob`` outside (0, 1).
    """
    check_options(vectors=vectors, case_sensitive=case_sensitive)
    check_prob(prob)
    post = as_draws(draws, vocabulary, vectors)
    rows = np.array([post.vocab.require(w, case_sensitive) for w in (word1, word2)])
    cos = _cosines(post, rows, np.array([[0, 1]]))[:, 0]
    return CosinePosterior(
        word1=word1,
        word2=word2,
        **central_interval(cos, prob),
        prob=float(prob),
        draws=_per_draw(post, cos, "cosine", word1=word1, word2=word2),
    )


def posterior_cosine_table(
    draws: Any,
    vocabulary: Any,
    pairs: Iterable[Sequence[str]],
    *,
    vectors: str = "rho",
    prob: float = 0.9,
    case_sensitive: bool = False,
) -> pd.DataFrame:
    """Posterior of the cosine of several word pairs, one row per pair.

    Returns
    -------
    pandas.DataFrame
        Columns ``word1``, ``word2``, ``mean``, ``sd``, ``lower``, ``upper``,
        ``p_positive`` (posterior probability that the cosine is > 0); ``attrs["prob"]``
        is the interval mass.

    Raises
    ------
    OutOfVocabularyError, EvaluationError
        As :func:`posterior_cosine`; also for an empty list or a pair that is not two words.
    """
    check_options(vectors=vectors, case_sensitive=case_sensitive)
    check_prob(prob)
    post = as_draws(draws, vocabulary, vectors)
    pairs = [tuple(p) for p in pairs]
    if not pairs:
        raise EvaluationError("pairs is empty")
    for p in pairs:
        if len(p) != 2:
            raise EvaluationError(f"each pair must be two words, got {p!r}")
    words = [w for p in pairs for w in p]
    rows = np.array([post.vocab.require(w, case_sensitive) for w in words])
    cos = _cosines(post, rows, np.arange(len(words)).reshape(-1, 2))
    table = pd.DataFrame(
        [
            {"word1": a, "word2": b, **central_interval(cos[:, j], prob)}
            for j, (a, b) in enumerate(pairs)
        ]
    )
    table["p_positive"] = (cos > 0).mean(axis=0)
    table.attrs["prob"] = float(prob)
    table.attrs["n_draws"] = post.n_samples
    return table


def posterior_neighbours(
    draws: Any,
    vocabulary: Any,
    word: str,
    *,
    k: int = 10,
    vectors: str = "rho",
    case_sensitive: bool = False,
) -> pd.DataFrame:
    """Nearest neighbours of ``word`` with the posterior probability of being in the top ``k``.

    In every draw the ``k`` words with the largest cosine to ``word`` (itself excluded)
    are tallied; a word's probability is its tally over the number of draws, so the
    probabilities of all words sum to exactly ``k``.

    Parameters
    ----------
    draws, vocabulary, vectors, case_sensitive
        As :func:`posterior_cosine`.
    word
        The word whose neighbours are wanted.
    k
        Neighbours per draw, ``1 <= k < V``.

    Returns
    -------
    pandas.DataFrame
        Every word that was a top-``k`` neighbour in at least one draw, columns
        ``word``, ``probability``, ``mean_cosine`` (posterior mean of its cosine with
        ``word``), sorted by probability then mean cosine; ``attrs`` holds ``word``,
        ``k`` and ``n_draws``.
    """
    check_options(vectors=vectors, case_sensitive=case_sensitive)
    post = as_draws(draws, vocabulary, vectors)
    n_word = len(post.vocab)
    target = post.vocab.require(word, case_sensitive)
    try:
        check_int("k", k, minimum=1)
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    if k >= n_word:
        raise EvaluationError(f"k must be < V = {n_word} (the word itself is excluded), got {k}")
    n_dim = sum(b.shape[2] for b in post.blocks)
    step = max(1, _CHUNK_FLOATS // (n_word * n_dim))
    tally = np.zeros(n_word, dtype=np.int64)
    cos_sum = np.zeros(n_word)
    for start in range(0, post.n_samples, step):
        unit = unit_rows(post.take_all(slice(start, min(start + step, post.n_samples))))
        cos = np.matmul(unit, unit[:, target, :, None])[..., 0]
        cos_sum += cos.sum(axis=0)
        cos[:, target] = -np.inf
        # argpartition puts exactly k indices first in every draw, ties or not.
        top = np.argpartition(-cos, k - 1, axis=1)[:, :k]
        tally += np.bincount(top.ravel(), minlength=n_word)
    hit = np.flatnonzero(tally)
    table = pd.DataFrame(
        {
            "word": [post.vocab.words[i] for i in hit],
            "probability": tally[hit] / post.n_samples,
            "mean_cosine": cos_sum[hit] / post.n_samples,
        }
    )
    table = table.sort_values(
        ["probability", "mean_cosine"], ascending=[False, False], kind="stable"
    ).reset_index(drop=True)
    table.attrs.update(word=word, k=int(k), n_draws=post.n_samples)
    return table


def posterior_prob_closer(
    draws: Any,
    vocabulary: Any,
    word: str,
    closer: str,
    than: str,
    *,
    vectors: str = "rho",
    prob: float = 0.9,
    case_sensitive: bool = False,
) -> CloserResult:
    """Posterior probability that ``word`` is closer (by cosine) to ``closer`` than to ``than``.

    Parameters
    ----------
    draws, vocabulary, vectors, prob, case_sensitive
        As :func:`posterior_cosine`.
    word, closer, than
        E.g. ``"immigration"``, ``"economy"``, ``"security"``.

    Returns
    -------
    CloserResult
        The probability, and the posterior of ``cos(word, closer) - cos(word, than)``.
    """
    check_options(vectors=vectors, case_sensitive=case_sensitive)
    check_prob(prob)
    post = as_draws(draws, vocabulary, vectors)
    rows = np.array([post.vocab.require(w, case_sensitive) for w in (word, closer, than)])
    cos = _cosines(post, rows, np.array([[0, 1], [0, 2]]))
    diff = cos[:, 0] - cos[:, 1]
    return CloserResult(
        word=word,
        closer=closer,
        than=than,
        probability=float((diff > 0).mean()),
        difference=pd.Series({**central_interval(diff, prob), "prob": float(prob)}),
        draws=_per_draw(post, diff, "cosine_difference", word=word, closer=closer, than=than),
    )
