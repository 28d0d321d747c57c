"""Analogy accuracy with 3CosAdd (Mikolov et al. 2013; paper 000's analogy evaluation).

A question ``a : b :: c : d`` is answered by the word ``x`` maximizing
``cos(x, b) - cos(x, a) + cos(x, c)`` over the vocabulary, with ``a``, ``b`` and ``c``
themselves excluded; with unit vectors ``u`` that is ``argmax_x u_x . (u_b - u_a + u_c)``
(3CosAdd in Levy & Goldberg's 2014 naming; gensim's ``most_similar(positive=[b, c],
negative=[a])`` has the same argmax). A question counts only when all four words are in
the vocabulary ("covered"); accuracy is correct / covered, per section and in total.

The scores of a chunk of questions against the whole vocabulary are one matrix product,
so 19,544 questions against V = 5,000 words is a few dense products (chunked to bound
memory) rather than a Python loop.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayeswe.evaluation.embedding import (
    Vocabulary,
    as_draws,
    as_embedding,
    central_interval,
    check_options,
    check_prob,
    unit_rows,
)
from bayeswe.evaluation.errors import EvaluationError, warn_low_coverage
from bayeswe.evaluation.testsets import AnalogyBenchmark, as_analogy_benchmark
from bayeswe.options import check_choice, check_int

__all__ = ["AnalogyResult", "PosteriorAnalogy", "analogy_accuracy", "posterior_analogy_accuracy"]

#: Default bound on the floats of one chunk's score matrix (questions x vocabulary).
_CHUNK_FLOATS = 1 << 22


@dataclasses.dataclass(frozen=True)
class AnalogyResult:
    """Analogy accuracy of one embedding.

    Attributes
    ----------
    benchmark
        Benchmark name.
    accuracy
        Correct / covered over all sections (NaN if nothing is covered).
    n_questions, n_covered, n_correct
        Totals.
    sections
        One row per section (file order), index ``section``: ``n_questions``,
        ``n_covered``, ``n_correct``, ``accuracy``.
    questions
        One row per question: ``a``, ``b``, ``c``, ``d``, ``section``, ``covered``,
        ``predicted`` (the 3CosAdd answer, missing if not covered), ``correct``.
    seconds
        Wall time of the scoring.
    """

    benchmark: str
    accuracy: float
    n_questions: int
    n_covered: int
    n_correct: int
    sections: pd.DataFrame = dataclasses.field(repr=False)
    questions: pd.DataFrame = dataclasses.field(repr=False)
    seconds: float


@dataclasses.dataclass(frozen=True)
class PosteriorAnalogy:
    """Posterior distribution of analogy accuracy (one accuracy per draw).

    Attributes
    ----------
    benchmark
        Benchmark name.
    summary
        ``mean``, ``sd``, ``lower``, ``upper``, ``prob``, ``n_draws``, ``n_questions``,
        ``n_covered``.
    draws
        Total accuracy per draw, dims ``(chain, draw)``.
    sections
        Per section (index): posterior mean accuracy and its interval (``mean``,
        ``lower``, ``upper``) and ``n_covered``.
    """

    benchmark: str
    summary: pd.Series
    draws: xr.DataArray = dataclasses.field(repr=False)
    sections: pd.DataFrame = dataclasses.field(repr=False)


class _Plan:
    """Question rows and candidate set, shared by every draw."""

    def __init__(self, bench: AnalogyBenchmark, vocab: Vocabulary, case_sensitive: bool) -> None:
        flat = [w for q in bench.questions for w in q]
        idx = vocab.indices(flat, case_sensitive).reshape(len(bench), 4)
        self.covered = (idx >= 0).all(axis=1)
        # Every vocabulary row is a candidate answer. Case-insensitively, rows that
        # lower-case alike form one word (gensim's rule): all of them are excluded when
        # that word is in the question, and any of them answers it. members[g] lists the
        # rows of word g (its first row, which is what Vocabulary.find returns), padded by
        # repeating that row.
        n_word = len(vocab)
        if case_sensitive:
            self.group = np.arange(n_word)
        else:
            self.group = np.array([vocab.lower[w.lower()] for w in vocab.words], dtype=np.int64)
        extra = [[] for _ in range(n_word)]
        for row, g in enumerate(self.group):
            if row != g:
                extra[g].append(row)
        width = 1 + max(len(e) for e in extra)
        self.members = np.repeat(np.arange(n_word)[:, None], width, axis=1)
        for g, rows in enumerate(extra):
            self.members[g, 1 : 1 + len(rows)] = rows
        self.idx = idx[self.covered]  # (n_covered, 4) first rows of a, b, c, d
        self.vocab = vocab
        self.section = np.asarray(bench.section, dtype=object)
        self.section_names = bench.sections

    def predict(self, matrix: np.ndarray, chunk_size: int | None, dtype: str) -> np.ndarray:
        """Row of the 3CosAdd answer of every covered question."""
        unit = unit_rows(matrix).astype(dtype, copy=False)
        step = chunk_size or max(1, _CHUNK_FLOATS // unit.shape[0])
        pred = np.empty(len(self.idx), dtype=np.int64)
        for start in range(0, len(self.idx), step):
            q = self.idx[start : start + step]
            target = unit[q[:, 1]] - unit[q[:, 0]] + unit[q[:, 2]]
            scores = target @ unit.T
            rows = np.arange(len(q))[:, None]
            for j in range(3):
                scores[rows, self.members[q[:, j]]] = -np.inf
            pred[start : start + step] = scores.argmax(axis=1)
        return pred

    def correct(self, pred: np.ndarray) -> np.ndarray:
        """Per-question correctness (False where not covered)."""
        out = np.zeros(len(self.covered), dtype=bool)
        out[self.covered] = self.group[pred] == self.idx[:, 3]
        return out

    def section_table(self, correct: np.ndarray) -> pd.DataFrame:
        rows = []
        for name in self.section_names:
            mask = self.section == name
            n_cov = int(self.covered[mask].sum())
            n_ok = int(correct[mask].sum())
            rows.append(
                {
                    "section": name,
                    "n_questions": int(mask.sum()),
                    "n_covered": n_cov,
                    "n_correct": n_ok,
                    "accuracy": n_ok / n_cov if n_cov else float("nan"),
                }
            )
        return pd.DataFrame(rows).set_index("section")


def _check_chunk(chunk_size: int | None, dtype: str) -> None:
    try:
        check_int("chunk_size", chunk_size, minimum=1)
        check_choice("dtype", dtype, ("float32", "float64"))
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None


def _plan(bench: AnalogyBenchmark, vocab: Vocabulary, case_sensitive: bool) -> _Plan:
    plan = _Plan(bench, vocab, case_sensitive)
    if not plan.covered.any():
        raise EvaluationError(
            f"none of the {len(bench)} questions of {bench.name!r} has all four words in the "
            "vocabulary"
        )
    warn_low_coverage(int(plan.covered.sum()), len(bench), "questions", bench.name)
    return plan


def analogy_accuracy(
    embedding: Any,
    vocabulary: Any,
    benchmark: Any = "google",
    *,
    vectors: str = "rho",
    case_sensitive: bool = False,
    chunk_size: int | None = None,
    dtype: str = "float32",
) -> AnalogyResult:
    """3CosAdd analogy accuracy of one embedding, per section and in total.

    Parameters
    ----------
    embedding
        A ``(V, D)`` array, or an InferenceData with exactly one draw (MAP).
    vocabulary
        The word of each row; ``None`` to take the InferenceData's ``word`` coords.
    benchmark
        ``"google"`` (``questions-words.txt``, 19,544 questions in 14 sections), a path
        to a file in that format, or an :class:`~bayeswe.evaluation.AnalogyBenchmark`.
    vectors
        ``"rho"``, ``"alpha"``, ``"concat"`` or ``"sum"`` (InferenceData only).
    case_sensitive
        Match words exactly; by default both sides are lower-cased (and the
        vocabulary entries that lower-case alike count as one word, as in gensim).
    chunk_size
        Questions scored per matrix product; default: as many as keep the score matrix
        under 4 Mi floats.
    dtype
        Precision of the score products: ``"float32"`` (default; gensim's precision and
        several times faster) or ``"float64"``. Only candidates whose scores differ by
        less than about 1e-6 can be ranked differently.

    Returns
    -------
    AnalogyResult

    Raises
    ------
    EvaluationError
        Bad shapes or vocabulary, non-finite vectors, no covered question.
    """
    check_options(vectors=vectors, case_sensitive=case_sensitive)
    _check_chunk(chunk_size, dtype)
    bench = as_analogy_benchmark(benchmark)
    matrix, vocab = as_embedding(embedding, vocabulary, vectors)
    plan = _plan(bench, vocab, case_sensitive)
    start = time.perf_counter()
    pred = plan.predict(matrix, chunk_size, dtype)
    seconds = time.perf_counter() - start
    correct = plan.correct(pred)
    predicted = np.full(len(bench), None, dtype=object)
    words = np.asarray(vocab.words, dtype=object)
    predicted[plan.covered] = words[pred]
    columns = list(zip(*bench.questions, strict=True))
    questions = pd.DataFrame(
        {
            "a": columns[0],
            "b": columns[1],
            "c": columns[2],
            "d": columns[3],
            "section": bench.section,
            "covered": plan.covered,
            "predicted": predicted,
            "correct": correct,
        }
    )
    n_covered = int(plan.covered.sum())
    n_correct = int(correct.sum())
    return AnalogyResult(
        benchmark=bench.name,
        accuracy=n_correct / n_covered,
        n_questions=len(bench),
        n_covered=n_covered,
        n_correct=n_correct,
        sections=plan.section_table(correct),
        questions=questions,
        seconds=seconds,
    )


def posterior_analogy_accuracy(
    draws: Any,
    vocabulary: Any,
    benchmark: Any = "google",
    *,
    vectors: str = "rho",
    prob: float = 0.9,
    case_sensitive: bool = False,
    chunk_size: int | None = None,
    dtype: str = "float32",
) -> PosteriorAnalogy:
    """Posterior distribution of 3CosAdd analogy accuracy: one accuracy per draw.

    Costs one :func:`analogy_accuracy` per draw (about a second for the Google set at
    V = 5,000 here); thin the draws first if there are many.

    Parameters are those of :func:`analogy_accuracy`, with ``draws`` an InferenceData or
    an ``(n_draws, V, D)`` array, and ``prob`` the mass of the central interval.

    Returns
    -------
    PosteriorAnalogy
    """
    check_options(vectors=vectors, case_sensitive=case_sensitive)
    check_prob(prob)
    _check_chunk(chunk_size, dtype)
    bench = as_analogy_benchmark(benchmark)
    post = as_draws(draws, vocabulary, vectors)
    plan = _plan(bench, post.vocab, case_sensitive)
    total = np.empty(post.n_samples)
    per_section = np.empty((post.n_samples, len(plan.section_names)))
    for s in range(post.n_samples):
        correct = plan.correct(plan.predict(post.take_all(slice(s, s + 1))[0], chunk_size, dtype))
        table = plan.section_table(correct)
        total[s] = table["n_correct"].sum() / table["n_covered"].sum()
        per_section[s] = table["accuracy"].to_numpy()
    summary = pd.Series(
        {
            **central_interval(total, prob),
            "prob": float(prob),
            "n_draws": post.n_samples,
            "n_questions": len(bench),
            "n_covered": int(plan.covered.sum()),
        },
        name=f"analogy accuracy {bench.name}",
    )
    tail = (1.0 - prob) / 2.0
    sections = pd.DataFrame(
        {
            "n_covered": table["n_covered"].to_numpy(),
            "mean": per_section.mean(axis=0),
            "lower": np.quantile(per_section, tail, axis=0),
            "upper": np.quantile(per_section, 1.0 - tail, axis=0),
        },
        index=pd.Index(plan.section_names, name="section"),
    )
    per_draw = xr.DataArray(
        total.reshape(post.n_chain, post.n_draw),
        dims=("chain", "draw"),
        coords={"chain": np.arange(post.n_chain), "draw": np.arange(post.n_draw)},
        name="analogy_accuracy",
        attrs={"benchmark": bench.name, "vectors": vectors},
    )
    return PosteriorAnalogy(
        benchmark=bench.name, summary=summary, draws=per_draw, sections=sections
    )
