"""Embeddings and posterior draws of embeddings, as the evaluation functions see them.

Every evaluation function takes either

* one embedding: a ``(V, D)`` array plus a vocabulary, or an :class:`arviz.InferenceData`
  holding exactly one draw (a MAP fit from ``bayeswe.fit(..., method="map")``), or
* posterior draws: an :class:`arviz.InferenceData` from :func:`bayeswe.fit` whose
  posterior has ``rho`` (and ``alpha``) with dims ``(chain, draw, word, dim)`` and
  ``word`` coords giving the vocabulary, or a plain ``(n_draws, V, D)`` array plus a
  vocabulary list.

Which vectors (``vectors=``, InferenceData only):

* ``"rho"`` (default): the target ("word") vectors, the usual word2vec choice;
* ``"alpha"``: the context vectors;
* ``"concat"``: ``[rho, alpha]`` side by side (``2 D`` dimensions), cosine of the pair of
  vectors;
* ``"sum"``: ``rho + alpha`` (the GloVe habit).

Cosines are invariant under the rotation ``rho -> rho Q``, ``alpha -> alpha Q`` (``Q``
orthogonal) that leaves the SGNS posterior unchanged (paper 001, section 2), so they can
be summarized across draws of the non-identified model too. ``"concat"`` and ``"sum"``
are invariant only when both blocks rotate by the same ``Q``, which the SGNS symmetry
guarantees for orthogonal ``Q`` (``rho alpha' = rho Q (alpha Q)'``).

A vocabulary is a sequence of unique strings, one per row, or an object with a ``words``
attribute (such as ``bayeswe.corpus.Vocabulary``).

Words are matched case-insensitively by default (``case_sensitive=False``): both the
vocabulary and the benchmark are lower-cased and, when two vocabulary entries lower-case
to the same string, the first one (the more frequent in a frequency-ordered vocabulary)
is used, as gensim does. A zero vector has cosine 0 with every vector.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bayeswe._arviz import az
from bayeswe.evaluation.errors import EvaluationError, OutOfVocabularyError
from bayeswe.options import check_bool, check_choice, check_float

__all__ = ["VECTOR_CHOICES", "Vocabulary", "central_interval"]

#: Accepted values of the ``vectors`` argument.
VECTOR_CHOICES = ("rho", "alpha", "concat", "sum")


class Vocabulary:
    """Word -> row lookup, exact and lower-cased (first occurrence wins)."""

    def __init__(self, words: Sequence[Any]) -> None:
        # An object with a ``words`` attribute (bayeswe.corpus.Vocabulary) gives its words.
        words = getattr(words, "words", words)
        if isinstance(words, (str, bytes)):
            raise EvaluationError("vocabulary must be a sequence of words, not one string")
        words = list(words)
        for i, w in enumerate(words):
            if not isinstance(w, str):
                raise EvaluationError(
                    f"vocabulary entries must be strings; entry {i} is {w!r} ({type(w).__name__})"
                )
        self.words: list[str] = [str(w) for w in words]
        self.exact: dict[str, int] = {}
        for i, w in enumerate(self.words):
            if w in self.exact:
                raise EvaluationError(f"vocabulary has {w!r} twice (rows {self.exact[w]} and {i})")
            self.exact[w] = i
        self.lower: dict[str, int] = {}
        for i, w in enumerate(self.words):
            self.lower.setdefault(w.lower(), i)
        # Hash indexes for vectorized lookups of many words (a benchmark's 78k words).
        self._exact_index = pd.Index(self.words)
        self._lower_index = pd.Index(list(self.lower))
        self._lower_rows = np.fromiter(self.lower.values(), dtype=np.int64, count=len(self.lower))

    def __len__(self) -> int:
        return len(self.words)

    def find(self, word: str, case_sensitive: bool) -> int:
        """Row of ``word`` or -1."""
        if case_sensitive:
            return self.exact.get(word, -1)
        return self.lower.get(word.lower(), -1)

    def indices(self, words: Sequence[str], case_sensitive: bool) -> np.ndarray:
        """Rows of ``words`` (int64), -1 where absent."""
        if len(words) == 0:
            return np.empty(0, dtype=np.int64)
        if case_sensitive:
            return self._exact_index.get_indexer(list(words)).astype(np.int64)
        pos = self._lower_index.get_indexer([w.lower() for w in words])
        return np.where(pos >= 0, self._lower_rows[pos], -1).astype(np.int64)

    def require(self, word: Any, case_sensitive: bool) -> int:
        """Row of ``word``; :class:`OutOfVocabularyError` (with close matches) if absent."""
        if not isinstance(word, str):
            raise EvaluationError(f"a word must be a string, got {word!r}")
        i = self.find(word, case_sensitive)
        if i < 0:
            # Suggestions from the first 20,000 words only: difflib is slow on huge lists.
            close = difflib.get_close_matches(word, self.words[:20000], n=3)
            hint = f"; close matches: {', '.join(map(repr, close))}" if close else ""
            raise OutOfVocabularyError(
                f"word {word!r} is not in the vocabulary ({len(self.words)} words){hint}"
            )
        return i


def central_interval(values: np.ndarray, prob: float) -> dict[str, float]:
    """Mean, sd and the central ``prob`` interval of a 1-d sample.

    ``lower``/``upper`` are the ``(1 - prob)/2`` and ``(1 + prob)/2`` quantiles
    (:func:`numpy.quantile`, linear interpolation); ``sd`` uses ``ddof=1``.
    """
    values = np.asarray(values, dtype=np.float64)
    tail = (1.0 - prob) / 2.0
    lower, upper = np.quantile(values, [tail, 1.0 - tail])
    return {
        "mean": float(values.mean()),
        "sd": float(values.std(ddof=1)) if values.size > 1 else float("nan"),
        "lower": float(lower),
        "upper": float(upper),
    }


def check_prob(prob: Any) -> None:
    """``prob`` of a credible interval must be a number in the open interval (0, 1)."""
    try:
        check_float("prob", prob, low=0.0, high=1.0)
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None


def check_options(*, vectors: str, case_sensitive: bool) -> None:
    try:
        check_choice("vectors", vectors, VECTOR_CHOICES)
        check_bool("case_sensitive", case_sensitive)
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None


def _float_array(x: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(x)
    except Exception as exc:  # noqa: BLE001 - anything unconvertible is a bad input
        raise EvaluationError(f"{what} is not an array: {exc}") from None
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise EvaluationError(f"{what} must be a numeric array, got dtype {arr.dtype}")
    return arr


@dataclasses.dataclass
class Draws:
    """Posterior draws of an embedding, ``S = chains x draws`` samples, never copied whole.

    ``blocks`` are ``(S, V, D_b)`` views; the evaluated vector of a word is their
    concatenation (``concat``), their sum (``sum``) or the single block.
    """

    blocks: tuple[np.ndarray, ...]
    combine: str
    vocab: Vocabulary
    n_chain: int
    n_draw: int

    @property
    def n_samples(self) -> int:
        return self.blocks[0].shape[0]

    def take(self, rows: np.ndarray, samples: slice = slice(None)) -> np.ndarray:
        """Vectors of vocabulary ``rows`` for ``samples``: ``(s, len(rows), D)`` float64.

        Raises :class:`EvaluationError` naming a word whose vector is not finite.
        """
        parts = [np.asarray(b[samples][:, rows, :], dtype=np.float64) for b in self.blocks]
        if self.combine == "concat":
            out = np.concatenate(parts, axis=-1)
        elif self.combine == "sum":
            out = parts[0] + parts[1]
        else:
            out = parts[0]
        if not np.isfinite(out).all():
            bad = np.argwhere(~np.isfinite(out))[0]
            start = samples.start or 0
            word = self.vocab.words[int(np.atleast_1d(rows)[bad[1]])]
            raise EvaluationError(
                f"the vector of word {word!r} in draw {start + int(bad[0])} is not finite "
                "(NaN or inf); cosines are undefined"
            )
        return out

    def take_all(self, samples: slice) -> np.ndarray:
        """All words for ``samples``: ``(s, V, D)`` float64 (finite-checked)."""
        return self.take(np.arange(len(self.vocab)), samples)


def _posterior_blocks(
    idata: az.InferenceData, vectors: str
) -> tuple[tuple[np.ndarray, ...], list[Any], int, int]:
    if not hasattr(idata, "posterior"):
        raise EvaluationError("the InferenceData has no posterior group")
    names = {
        "rho": ("rho",),
        "alpha": ("alpha",),
        "concat": ("rho", "alpha"),
        "sum": ("rho", "alpha"),
    }[vectors]
    blocks = []
    coords: list[Any] | None = None
    n_chain = n_draw = 0
    for name in names:
        if name not in idata.posterior:
            raise EvaluationError(
                f"vectors={vectors!r} needs posterior variable {name!r}, which this "
                f"InferenceData lacks (it has: {', '.join(map(str, idata.posterior.data_vars))})"
            )
        da = idata.posterior[name]
        other = [d for d in da.dims if d not in ("chain", "draw", "word")]
        if "word" not in da.dims or len(other) != 1 or da.ndim != 4:
            raise EvaluationError(
                f"posterior {name!r} must have dims (chain, draw, word, dim); got {da.dims}"
            )
        da = da.transpose("chain", "draw", "word", other[0])
        arr = _float_array(da.values, f"posterior {name!r}")
        n_chain, n_draw, n_word, n_dim = arr.shape
        blocks.append(arr.reshape(n_chain * n_draw, n_word, n_dim))
        coords = list(da.coords["word"].values) if "word" in da.coords else None
    if len(blocks) == 2 and blocks[0].shape != blocks[1].shape:
        raise EvaluationError(
            f"rho and alpha have different shapes {blocks[0].shape} and {blocks[1].shape}"
        )
    return tuple(blocks), coords, n_chain, n_draw


def _vocabulary(coords: list[Any] | None, vocabulary: Any, n_word: int) -> Vocabulary:
    if vocabulary is None:
        if coords is None or not all(isinstance(w, str) for w in coords):
            raise EvaluationError(
                "the InferenceData's 'word' coords are not words (was the model fitted "
                "without a vocabulary?); pass vocabulary=[...]"
            )
        vocabulary = coords
    vocab = Vocabulary(vocabulary)
    if len(vocab) != n_word:
        raise EvaluationError(
            f"vocabulary has {len(vocab)} words but the embedding has {n_word} rows"
        )
    return vocab


def as_draws(draws: Any, vocabulary: Any, vectors: str) -> Draws:
    """Posterior draws from an InferenceData or an ``(n_draws, V, D)`` array."""
    if isinstance(draws, az.InferenceData):
        blocks, coords, n_chain, n_draw = _posterior_blocks(draws, vectors)
        vocab = _vocabulary(coords, vocabulary, blocks[0].shape[1])
        combine = vectors if vectors in ("concat", "sum") else "single"
        return Draws(blocks, combine, vocab, n_chain, n_draw)
    if vectors != "rho":
        raise EvaluationError(
            f"vectors={vectors!r} applies to InferenceData; for a plain array combine rho and "
            "alpha yourself (np.concatenate or +) and pass the result"
        )
    arr = _float_array(draws, "the posterior draws")
    if arr.ndim != 3:
        raise EvaluationError(
            f"posterior draws must be an (n_draws, V, D) array, got shape {arr.shape}; "
            "for one embedding use the point functions (word_similarity, analogy_accuracy)"
        )
    if vocabulary is None:
        raise EvaluationError("a plain array of draws needs vocabulary=[...] (one word per row)")
    if 0 in arr.shape:
        raise EvaluationError(f"posterior draws are empty: shape {arr.shape}")
    vocab = _vocabulary(None, vocabulary, arr.shape[1])
    return Draws((arr,), "single", vocab, 1, arr.shape[0])


def as_embedding(embedding: Any, vocabulary: Any, vectors: str) -> tuple[np.ndarray, Vocabulary]:
    """One embedding ``(V, D)`` float64 (finite-checked) and its vocabulary."""
    if isinstance(embedding, az.InferenceData):
        draws = as_draws(embedding, vocabulary, vectors)
        if draws.n_samples != 1:
            raise EvaluationError(
                f"the InferenceData holds {draws.n_samples} draws; one embedding needs exactly "
                "one (a MAP fit). For posterior draws use posterior_spearman / "
                "posterior_analogy_accuracy, or pass the posterior mean as an array"
            )
        return draws.take_all(slice(0, 1))[0], draws.vocab
    if vectors != "rho":
        raise EvaluationError(
            f"vectors={vectors!r} applies to InferenceData; for a plain array combine rho and "
            "alpha yourself and pass the result"
        )
    arr = _float_array(embedding, "the embedding")
    if arr.ndim != 2:
        raise EvaluationError(
            f"an embedding must be a (V, D) array, got shape {arr.shape}; for posterior "
            "draws use the posterior_* functions"
        )
    if vocabulary is None:
        raise EvaluationError("a plain array needs vocabulary=[...] (one word per row)")
    if 0 in arr.shape:
        raise EvaluationError(f"the embedding is empty: shape {arr.shape}")
    vocab = _vocabulary(None, vocabulary, arr.shape[0])
    draws = Draws((arr[None],), "single", vocab, 1, 1)
    return draws.take_all(slice(0, 1))[0], vocab


def unit_rows(x: np.ndarray) -> np.ndarray:
    """``x`` scaled to unit norm along the last axis; zero vectors stay zero."""
    norm = np.linalg.norm(x, axis=-1, keepdims=True)
    return np.divide(x, norm, out=np.zeros_like(x), where=norm > 0)
