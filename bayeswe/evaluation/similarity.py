"""Word-similarity evaluation: Spearman correlation of cosines with human scores.

The usual score (e.g. Sakaya 2015, paper 000, section on word-similarity evaluation)
is Spearman's rank correlation between the human scores of the benchmark pairs and the
cosine similarities of the two words' vectors, over the pairs whose two words are both
in the vocabulary ("covered" pairs); the coverage is reported beside it because a
correlation over 40 % of WS-353 is not comparable with one over all of it.

Cosines are rounded to 12 decimals before ranking, so that pairs with equal cosines in
exact arithmetic (WS-353's *tiger-tiger*, a repeated pair) tie in every draw.

For posterior draws, the correlation is a function of the embedding, so each draw gives
one value; their distribution is the posterior of the benchmark score (mean, sd and a
central credible interval), something point-estimate tools cannot report.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from bayeswe.evaluation.embedding import (
    Draws,
    as_draws,
    as_embedding,
    central_interval,
    check_options,
    check_prob,
    unit_rows,
)
from bayeswe.evaluation.errors import EvaluationError, warn_low_coverage
from bayeswe.evaluation.testsets import SimilarityBenchmark, as_similarity_benchmark

__all__ = ["PosteriorSpearman", "SimilarityResult", "posterior_spearman", "word_similarity"]

#: Floats held at once when cosines are computed draw chunk by draw chunk.
_CHUNK_FLOATS = 1 << 22


@dataclasses.dataclass(frozen=True)
class SimilarityResult:
    """Spearman correlation of one embedding on one benchmark.

    Attributes
    ----------
    benchmark
        Benchmark name.
    spearman
        Spearman's rho over the covered pairs (:func:`scipy.stats.spearmanr`, ties
        averaged); NaN if the cosines or scores are constant.
    pvalue
        scipy's two-sided p-value for no correlation.
    n_pairs, n_covered
        Pairs in the benchmark; pairs with both words in the vocabulary.
    pairs
        One row per benchmark pair: ``word1``, ``word2``, ``score``, ``covered``,
        ``cosine`` (NaN when not covered).
    """

    benchmark: str
    spearman: float
    pvalue: float
    n_pairs: int
    n_covered: int
    pairs: pd.DataFrame = dataclasses.field(repr=False)

    @property
    def coverage(self) -> float:
        """Fraction of pairs covered."""
        return self.n_covered / self.n_pairs


@dataclasses.dataclass(frozen=True)
class PosteriorSpearman:
    """Posterior distribution of the Spearman correlation on one benchmark.

    Attributes
    ----------
    benchmark
        Benchmark name.
    summary
        ``mean``, ``sd``, ``lower``, ``upper`` (central ``prob`` interval), ``prob``,
        ``n_draws``, ``n_pairs``, ``n_covered``.
    draws
        One correlation per posterior draw, dims ``(chain, draw)``.
    pairs
        Per covered pair: ``word1``, ``word2``, ``score`` and the posterior mean, sd and
        interval of its cosine (``cos_mean``, ``cos_sd``, ``cos_lower``, ``cos_upper``).
    """

    benchmark: str
    summary: pd.Series
    draws: xr.DataArray = dataclasses.field(repr=False)
    pairs: pd.DataFrame = dataclasses.field(repr=False)


def _covered(bench: SimilarityBenchmark, draws: Draws, case_sensitive: bool) -> tuple:
    i1 = draws.vocab.indices(bench.word1, case_sensitive)
    i2 = draws.vocab.indices(bench.word2, case_sensitive)
    covered = (i1 >= 0) & (i2 >= 0)
    n_covered = int(covered.sum())
    if n_covered < 2:
        raise EvaluationError(
            f"only {n_covered} of the {len(bench)} pairs of {bench.name!r} have both words in "
            "the vocabulary; a rank correlation needs at least 2"
        )
    warn_low_coverage(n_covered, len(bench), "pairs", bench.name)
    return i1, i2, covered


#: Cosines are rounded to this many decimals before ranking.
_DECIMALS = 12


def _pair_cosines(draws: Draws, i1: np.ndarray, i2: np.ndarray) -> np.ndarray:
    """``(S, P)`` cosines of pairs ``(i1[p], i2[p])``, over chunks of draws.

    Rounded to ``_DECIMALS`` decimals so that pairs whose cosines are equal in exact
    arithmetic (a word with itself, as WS-353's *tiger-tiger*; a pair listed twice) tie
    in the ranks whatever the floating-point rounding of each draw; otherwise a rotation
    of the draw, which leaves every cosine unchanged, could reorder them.
    """
    rows, inverse = np.unique(np.concatenate([i1, i2]), return_inverse=True)
    j1, j2 = inverse[: len(i1)], inverse[len(i1) :]
    n_dim = sum(b.shape[2] for b in draws.blocks)
    step = max(1, _CHUNK_FLOATS // max(1, len(rows) * n_dim))
    out = np.empty((draws.n_samples, len(i1)))
    for start in range(0, draws.n_samples, step):
        chunk = slice(start, min(start + step, draws.n_samples))
        unit = unit_rows(draws.take(rows, chunk))
        out[chunk] = np.einsum("spd,spd->sp", unit[:, j1], unit[:, j2])
    return np.round(out, _DECIMALS, out=out)


def _rowwise_spearman(scores: np.ndarray, cosines: np.ndarray) -> np.ndarray:
    """Spearman's rho of ``scores`` (P,) with every row of ``cosines`` (S, P).

    Pearson correlation of average ranks, which is what :func:`scipy.stats.spearmanr`
    computes; NaN for a constant row (as scipy).
    """
    rs = stats.rankdata(scores)
    rs = rs - rs.mean()
    rc = stats.rankdata(cosines, axis=1)
    rc = rc - rc.mean(axis=1, keepdims=True)
    denom = np.sqrt((rs * rs).sum() * (rc * rc).sum(axis=1))
    num = rc @ rs
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(denom > 0, num / np.where(denom > 0, denom, 1.0), np.nan)
    # Rounding can push a perfect correlation a hair past 1.
    return np.clip(rho, -1.0, 1.0)


def word_similarity(
    embedding: Any,
    vocabulary: Any,
    benchmark: Any,
    *,
    vectors: str = "rho",
    case_sensitive: bool = False,
) -> SimilarityResult:
    """Spearman correlation between an embedding's cosines and a benchmark's scores.

    Parameters
    ----------
    embedding
        A ``(V, D)`` array, or an InferenceData with exactly one draw (MAP).
    vocabulary
        The word of each row; ``None`` to take the InferenceData's ``word`` coords.
    benchmark
        A name (``"WS-353"``, ``"SimLex-999"``, ``"MEN"``, ... see
        :func:`~bayeswe.evaluation.list_benchmarks`), a path to a ``w1 w2 score`` file,
        a DataFrame or iterable of ``(w1, w2, score)``, or a
        :class:`~bayeswe.evaluation.SimilarityBenchmark`.
    vectors
        ``"rho"``, ``"alpha"``, ``"concat"`` or ``"sum"`` (InferenceData only); see
        :mod:`bayeswe.evaluation.embedding`.
    case_sensitive
        Match words exactly; by default both sides are lower-cased.

    Returns
    -------
    SimilarityResult

    Raises
    ------
    EvaluationError
        Bad shapes, a vocabulary of the wrong length or with duplicates, non-finite
        vectors, fewer than 2 covered pairs.
    UnknownBenchmarkError, BenchmarkUnavailableError, BenchmarkFormatError
        For the benchmark.
    """
    check_options(vectors=vectors, case_sensitive=case_sensitive)
    bench = as_similarity_benchmark(benchmark)
    matrix, vocab = as_embedding(embedding, vocabulary, vectors)
    draws = Draws((matrix[None],), "single", vocab, 1, 1)
    i1, i2, covered = _covered(bench, draws, case_sensitive)
    cos = _pair_cosines(draws, i1[covered], i2[covered])[0]
    result = stats.spearmanr(bench.score[covered], cos)
    cosine = np.full(len(bench), np.nan)
    cosine[covered] = cos
    pairs = bench.to_frame()
    pairs["covered"] = covered
    pairs["cosine"] = cosine
    return SimilarityResult(
        benchmark=bench.name,
        spearman=float(result.statistic),
        pvalue=float(result.pvalue),
        n_pairs=len(bench),
        n_covered=int(covered.sum()),
        pairs=pairs,
    )


def posterior_spearman(
    draws: Any,
    vocabulary: Any,
    benchmark: Any,
    *,
    vectors: str = "rho",
    prob: float = 0.9,
    case_sensitive: bool = False,
) -> PosteriorSpearman:
    """Posterior distribution of the Spearman correlation on a similarity benchmark.

    For every posterior draw of the embedding, the Spearman correlation between human
    scores and cosines over the covered pairs (the same pairs in every draw); then its
    posterior mean, sd and central ``prob`` credible interval.

    Parameters
    ----------
    draws
        InferenceData from :func:`bayeswe.fit` (posterior ``rho``/``alpha`` with dims
        ``(chain, draw, word, dim)``), or an ``(n_draws, V, D)`` array.
    vocabulary
        The word of each row; ``None`` to take the InferenceData's ``word`` coords.
    benchmark
        As for :func:`word_similarity`.
    vectors
        ``"rho"`` (default), ``"alpha"``, ``"concat"`` or ``"sum"`` (InferenceData only).
    prob
        Probability mass of the central credible interval, in (0, 1).
    case_sensitive
        Match words exactly; by default both sides are lower-cased.

    Returns
    -------
    PosteriorSpearman
        ``summary`` (pandas Series), per-draw ``draws`` (xarray, ``(chain, draw)``) and a
        per-pair table of cosine posteriors.

    Raises
    ------
    EvaluationError
        As :func:`word_similarity`, and for ``prob`` outside (0, 1).
    """
    check_options(vectors=vectors, case_sensitive=case_sensitive)
    check_prob(prob)
    bench = as_similarity_benchmark(benchmark)
    post = as_draws(draws, vocabulary, vectors)
    i1, i2, covered = _covered(bench, post, case_sensitive)
    cos = _pair_cosines(post, i1[covered], i2[covered])
    scores = bench.score[covered]
    values = _rowwise_spearman(scores, cos)
    summary = pd.Series(
        {
            **central_interval(values, prob),
            "prob": float(prob),
            "n_draws": post.n_samples,
            "n_pairs": len(bench),
            "n_covered": int(covered.sum()),
        },
        name=f"spearman {bench.name}",
    )
    per_draw = xr.DataArray(
        values.reshape(post.n_chain, post.n_draw),
        dims=("chain", "draw"),
        coords={"chain": np.arange(post.n_chain), "draw": np.arange(post.n_draw)},
        name="spearman",
        attrs={"benchmark": bench.name, "vectors": vectors},
    )
    frame = bench.to_frame()[covered].reset_index(drop=True)
    tail = (1.0 - prob) / 2.0
    frame["cos_mean"] = cos.mean(axis=0)
    frame["cos_sd"] = cos.std(axis=0, ddof=1) if post.n_samples > 1 else np.nan
    frame["cos_lower"] = np.quantile(cos, tail, axis=0)
    frame["cos_upper"] = np.quantile(cos, 1.0 - tail, axis=0)
    return PosteriorSpearman(benchmark=bench.name, summary=summary, draws=per_draw, pairs=frame)
