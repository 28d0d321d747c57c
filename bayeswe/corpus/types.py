"""The two data structures every corpus in bayeswe is expressed in.

* :class:`Vocabulary` — word strings with integer ids ``0..V-1`` and their corpus
  frequencies.
* :class:`BagOfWords` — a document-term count matrix in CSR form (documents are
  rows), tied to a vocabulary, with document ids and optional per-document
  metadata. LDA and Gaussian LDA take it directly; the SGNS pair extraction works
  from token sequences instead.

Arrays have a stated dtype and are read-only so that kernels can take them as is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bayeswe.errors import BayesweError

__all__ = ["BagOfWords", "CorpusError", "Vocabulary"]


class CorpusError(BayesweError, ValueError):
    """A corpus, vocabulary or document-term matrix is malformed or empty."""


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


def _integer_array(name: str, value: Any, *, limit: int) -> np.ndarray:
    """``value`` as int64, refusing non-numbers, fractions, non-finite values and
    magnitudes beyond ``limit`` (which a cast would silently wrap or truncate)."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise CorpusError(f"{name} must be an array of integers: {exc}") from None
    if arr.dtype == object and arr.size:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise CorpusError(f"{name} must hold integers, got {arr.flat[0]!r}") from None
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iuf" or arr.dtype == np.bool_:
        raise CorpusError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise CorpusError(f"{name} holds a NaN or infinite value")
        if not (arr == np.floor(arr)).all():
            bad = arr[arr != np.floor(arr)][0]
            raise CorpusError(f"{name} must hold integers, found {float(bad)!r}")
    big = np.abs(arr.astype(np.float64)).max()
    if big > limit:
        raise CorpusError(f"{name} holds {big:.0f}, beyond the supported maximum {limit}")
    return arr.astype(np.int64)


_INT32_MAX = int(np.iinfo(np.int32).max)
_INT64_SAFE = 2**62


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """Words with integer ids (their position in ``words``) and corpus counts.

    Parameters
    ----------
    words
        The word strings; ``words[i]`` has id ``i``. Must be unique and non-empty.
    counts
        Corpus frequency of each word (int64, same length); zeros if unknown.
    unk
        The token that stands for out-of-vocabulary words, if the vocabulary has
        one (it must then be among ``words``); ``None`` means unknown words are
        dropped.
    """

    words: tuple[str, ...]
    counts: np.ndarray = field(default=None)  # type: ignore[assignment]
    unk: str | None = None
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.words, str) or not isinstance(self.words, Iterable):
            raise CorpusError(
                f"vocabulary words must be a sequence of strings, got {type(self.words).__name__}"
            )
        words = tuple(str(w) for w in self.words)
        if not words:
            raise CorpusError("a vocabulary needs at least one word")
        index = {w: i for i, w in enumerate(words)}
        if len(index) != len(words):
            seen: set[str] = set()
            dup = next(w for w in words if w in seen or seen.add(w))  # type: ignore[func-returns-value]
            raise CorpusError(f"vocabulary words must be unique; {dup!r} appears twice")
        counts = (
            np.zeros(len(words), dtype=np.int64)
            if self.counts is None
            else _integer_array("vocabulary counts", self.counts, limit=_INT64_SAFE)
        )
        if counts.shape != (len(words),):
            raise CorpusError(
                f"vocabulary counts have shape {counts.shape}, expected ({len(words)},)"
            )
        if (counts < 0).any():
            raise CorpusError("vocabulary counts must be non-negative")
        if self.unk is not None and self.unk not in index:
            raise CorpusError(f"the unknown-word token {self.unk!r} is not in the vocabulary")
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "counts", _frozen(counts))
        object.__setattr__(self, "_index", index)

    @classmethod
    def from_counts(
        cls,
        counts: Mapping[str, int],
        *,
        min_count: int = 1,
        max_size: int | None = None,
        unk: str | None = None,
    ) -> Vocabulary:
        """Build a vocabulary from word frequencies, most frequent first.

        Ties are broken alphabetically so the result does not depend on the
        mapping's order. Words below ``min_count`` and beyond ``max_size`` are
        left out; with ``unk`` set, their total count goes to that token
        (placed last).
        """
        if min_count < 1:
            raise CorpusError(f"min_count must be >= 1, got {min_count}")
        if max_size is not None and max_size < 1:
            raise CorpusError(f"max_size must be >= 1, got {max_size}")
        ranked = sorted(counts.items(), key=lambda item: (-int(item[1]), item[0]))
        kept = [(w, int(c)) for w, c in ranked if int(c) >= min_count and w != unk]
        if max_size is not None:
            kept = kept[: max_size - (1 if unk is not None else 0)]
        if not kept:
            raise CorpusError(
                f"no word occurs at least min_count={min_count} times "
                f"({len(counts)} distinct words in the corpus)"
            )
        words = [w for w, _ in kept]
        freqs = [c for _, c in kept]
        if unk is not None:
            words.append(unk)
            freqs.append(int(sum(int(c) for c in counts.values())) - sum(freqs))
        return cls(tuple(words), np.asarray(freqs, dtype=np.int64), unk=unk)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self._index

    def __getitem__(self, word: str) -> int:
        return self.id(word)

    def id(self, word: str) -> int:
        """The id of ``word``; the ``unk`` id for unknown words if there is one."""
        found = self._index.get(word)
        if found is not None:
            return found
        if self.unk is not None:
            return self._index[self.unk]
        raise KeyError(f"{word!r} is not in the vocabulary")

    def ids(self, words: Iterable[str], *, drop_unknown: bool = False) -> np.ndarray:
        """Ids of ``words`` (int32); unknown words map to ``unk`` or are dropped.

        Without ``unk`` and without ``drop_unknown``, an unknown word raises ``KeyError``.
        """
        out: list[int] = []
        for w in words:
            found = self._index.get(w)
            if found is None:
                if self.unk is not None:
                    found = self._index[self.unk]
                elif drop_unknown:
                    continue
                else:
                    raise KeyError(f"{w!r} is not in the vocabulary")
            out.append(found)
        return np.asarray(out, dtype=np.int32)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vocabulary):
            return NotImplemented
        return (
            self.words == other.words
            and self.unk == other.unk
            and np.array_equal(self.counts, other.counts)
        )

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class BagOfWords:
    """A document-term count matrix in CSR form (documents are rows).

    Document ``d`` holds the distinct words ``word_ids[doc_ptr[d]:doc_ptr[d+1]]``
    with counts ``counts[doc_ptr[d]:doc_ptr[d+1]]``; within a document word ids
    are strictly increasing.

    Parameters
    ----------
    vocabulary
        The vocabulary the word ids refer to.
    doc_ptr
        Row pointers, int64, shape ``(n_docs + 1,)``, starting at 0, non-decreasing.
    word_ids
        Column indices, int32, shape ``(nnz,)``, in ``[0, V)``.
    counts
        Token counts, int32, shape ``(nnz,)``, all positive.
    doc_ids
        A name per document (defaults to ``"0", "1", ...``); used as the ``doc``
        coordinate of fits.
    metadata
        Optional per-document table (one row per document, in order), e.g. year,
        party, genre.
    """

    vocabulary: Vocabulary
    doc_ptr: np.ndarray
    word_ids: np.ndarray
    counts: np.ndarray
    doc_ids: tuple[str, ...] = ()
    metadata: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        doc_ptr = _integer_array("doc_ptr", self.doc_ptr, limit=_INT64_SAFE)
        word_ids = _integer_array("word_ids", self.word_ids, limit=_INT64_SAFE)
        # counts are stored as int32 (the kernels' and Stan's int)
        counts = _integer_array("document-term counts", self.counts, limit=_INT32_MAX)
        if doc_ptr.ndim != 1 or doc_ptr.size < 1 or doc_ptr[0] != 0:
            raise CorpusError("doc_ptr must be a 1-d array starting at 0")
        if (np.diff(doc_ptr) < 0).any():
            raise CorpusError("doc_ptr must be non-decreasing")
        nnz = int(doc_ptr[-1])
        if word_ids.shape != (nnz,) or counts.shape != (nnz,):
            raise CorpusError(
                f"word_ids {word_ids.shape} and counts {counts.shape} must both have "
                f"shape ({nnz},) = (doc_ptr[-1],)"
            )
        V = len(self.vocabulary)
        if nnz and (word_ids.min() < 0 or word_ids.max() >= V):
            bad = int(word_ids[(word_ids < 0) | (word_ids >= V)][0])
            raise CorpusError(f"word id {bad} is out of range for a vocabulary of {V} words")
        if nnz and (counts <= 0).any():
            raise CorpusError("document-term counts must be positive (store only non-zeros)")
        word_ids = word_ids.astype(np.int32)
        counts = counts.astype(np.int32)
        n_docs = doc_ptr.size - 1
        if nnz:
            # Strictly increasing within each row: differences are positive except
            # at row starts.
            step = np.diff(word_ids.astype(np.int64))
            row_start = np.zeros(nnz, dtype=bool)
            row_start[doc_ptr[:-1][doc_ptr[:-1] < nnz]] = True
            if (step[~row_start[1:]] <= 0).any():
                raise CorpusError("word ids must be strictly increasing within each document")
        doc_ids = (
            tuple(str(i) for i in range(n_docs))
            if not self.doc_ids
            else tuple(str(d) for d in self.doc_ids)
        )
        if len(doc_ids) != n_docs:
            raise CorpusError(f"{len(doc_ids)} doc_ids for {n_docs} documents")
        if len(set(doc_ids)) != n_docs:
            raise CorpusError("doc_ids must be unique")
        if self.metadata is not None and len(self.metadata) != n_docs:
            raise CorpusError(f"metadata has {len(self.metadata)} rows for {n_docs} documents")
        object.__setattr__(self, "doc_ptr", _frozen(doc_ptr))
        object.__setattr__(self, "word_ids", _frozen(word_ids))
        object.__setattr__(self, "counts", _frozen(counts))
        object.__setattr__(self, "doc_ids", doc_ids)

    # -- construction --------------------------------------------------------

    @classmethod
    def from_token_ids(
        cls,
        documents: Sequence[Sequence[int] | np.ndarray],
        vocabulary: Vocabulary,
        *,
        doc_ids: Sequence[str] = (),
        metadata: pd.DataFrame | None = None,
    ) -> BagOfWords:
        """Count the word ids of each document (a sequence of token ids)."""
        V = len(vocabulary)
        ptr = [0]
        ids: list[np.ndarray] = []
        cnts: list[np.ndarray] = []
        for d, doc in enumerate(documents):
            arr = _integer_array(f"token ids of document {d}", doc, limit=_INT64_SAFE)
            if arr.size and (arr.min() < 0 or arr.max() >= V):
                raise CorpusError(f"document {d} has a word id out of range [0, {V})")
            uniq, c = np.unique(arr, return_counts=True)
            ids.append(uniq)
            cnts.append(c)
            ptr.append(ptr[-1] + uniq.size)
        return cls(
            vocabulary,
            np.asarray(ptr, dtype=np.int64),
            np.concatenate(ids) if ids else np.zeros(0, np.int32),
            np.concatenate(cnts) if cnts else np.zeros(0, np.int32),
            doc_ids=tuple(doc_ids),
            metadata=metadata,
        )

    @classmethod
    def from_dense(cls, matrix: np.ndarray, vocabulary: Vocabulary, **kwargs: Any) -> BagOfWords:
        """From a dense ``(n_docs, V)`` array of non-negative integer counts."""
        m = _integer_array("document-term counts", matrix, limit=_INT32_MAX)
        if m.ndim != 2 or m.shape[1] != len(vocabulary):
            raise CorpusError(
                f"a dense document-term matrix must have shape (n_docs, {len(vocabulary)}), "
                f"got {m.shape}"
            )
        if (m < 0).any() or not np.all(np.equal(np.mod(m, 1), 0)):
            raise CorpusError("document-term counts must be non-negative integers")
        rows, cols = np.nonzero(m)
        ptr = np.zeros(m.shape[0] + 1, dtype=np.int64)
        np.add.at(ptr, rows + 1, 1)
        return cls(vocabulary, np.cumsum(ptr), cols, m[rows, cols], **kwargs)

    # -- views ---------------------------------------------------------------

    @property
    def n_docs(self) -> int:
        return self.doc_ptr.size - 1

    @property
    def n_words(self) -> int:
        """Vocabulary size V."""
        return len(self.vocabulary)

    @property
    def n_tokens(self) -> int:
        return int(self.counts.sum(dtype=np.int64))

    @property
    def doc_lengths(self) -> np.ndarray:
        """Tokens per document (int64)."""
        return np.bincount(self.doc_index(), weights=self.counts, minlength=self.n_docs).astype(
            np.int64
        )

    def doc_index(self) -> np.ndarray:
        """Document of each stored (document, word) entry (int32, shape ``(nnz,)``)."""
        return np.repeat(np.arange(self.n_docs, dtype=np.int32), np.diff(self.doc_ptr))

    def tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """Expand to one row per token: ``(doc, word)`` arrays (int32), documents in order."""
        reps = self.counts.astype(np.int64)
        return np.repeat(self.doc_index(), reps), np.repeat(self.word_ids, reps)

    def to_dense(self) -> np.ndarray:
        """The ``(n_docs, V)`` count matrix (int64)."""
        out = np.zeros((self.n_docs, self.n_words), dtype=np.int64)
        out[self.doc_index(), self.word_ids] = self.counts
        return out

    def subset(self, docs: Sequence[int] | np.ndarray) -> BagOfWords:
        """The documents ``docs`` (indices, or a boolean mask), in the given order."""
        idx = np.asarray(docs)
        if idx.dtype == bool:
            if idx.shape != (self.n_docs,):
                raise CorpusError(f"a document mask must have length {self.n_docs}")
            idx = np.flatnonzero(idx)
        idx = idx.astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self.n_docs):
            raise CorpusError(f"document index out of range [0, {self.n_docs})")
        starts, stops = self.doc_ptr[idx], self.doc_ptr[idx + 1]
        lengths = stops - starts
        ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        take = (
            np.concatenate([np.arange(a, b) for a, b in zip(starts, stops, strict=True)])
            if idx.size
            else np.zeros(0, np.int64)
        )
        meta = None if self.metadata is None else self.metadata.iloc[idx].reset_index(drop=True)
        return BagOfWords(
            self.vocabulary,
            ptr,
            self.word_ids[take],
            self.counts[take],
            doc_ids=tuple(self.doc_ids[i] for i in idx),
            metadata=meta,
        )

    def check_nonempty(self) -> None:
        """Raise :class:`CorpusError` naming the first empty document, if any."""
        if self.n_docs == 0:
            raise CorpusError("the corpus has no documents")
        empty = np.flatnonzero(np.diff(self.doc_ptr) == 0)
        if empty.size:
            raise CorpusError(
                f"{empty.size} document(s) are empty, first {self.doc_ids[empty[0]]!r} "
                f"(index {int(empty[0])}); drop them with .subset(bow.doc_lengths > 0)"
            )

    def __repr__(self) -> str:
        return (
            f"BagOfWords(n_docs={self.n_docs}, n_words={self.n_words}, "
            f"n_tokens={self.n_tokens}, nnz={self.word_ids.size})"
        )
