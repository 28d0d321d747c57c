"""A corpus of tokenized documents with per-document metadata."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bayeswe.corpus.tokenize import build_vocabulary, encode
from bayeswe.corpus.types import BagOfWords, CorpusError, Vocabulary

if TYPE_CHECKING:
    from bayeswe.sgns.data import SGNSData

__all__ = ["Corpus"]


@dataclass(frozen=True, eq=False)
class Corpus:
    """Tokenized documents, their ids and a metadata table (one row per document).

    Parameters
    ----------
    name
        Short dataset name (``"sotu"``, ``"brown"``...).
    documents
        Tokens of each document (tuples of strings).
    doc_ids
        A unique name per document.
    metadata
        One row per document, in order (columns depend on the dataset, e.g.
        ``year``, ``party``, ``president``; ``genre``; ``label``).
    description
        Provenance: source package and licence.
    """

    name: str
    documents: tuple[tuple[str, ...], ...]
    doc_ids: tuple[str, ...]
    metadata: pd.DataFrame
    description: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        docs = tuple(tuple(d) for d in self.documents)
        if not docs:
            raise CorpusError(f"corpus {self.name!r} has no documents")
        ids = tuple(str(d) for d in self.doc_ids)
        if len(ids) != len(docs):
            raise CorpusError(f"{len(ids)} doc_ids for {len(docs)} documents")
        if len(set(ids)) != len(ids):
            raise CorpusError("doc_ids must be unique")
        if not isinstance(self.metadata, pd.DataFrame):
            raise CorpusError(
                f"metadata must be a pandas DataFrame (one row per document), got "
                f"{type(self.metadata).__name__}"
            )
        if len(self.metadata) != len(docs):
            raise CorpusError(f"metadata has {len(self.metadata)} rows for {len(docs)} documents")
        object.__setattr__(self, "documents", docs)
        object.__setattr__(self, "doc_ids", ids)
        object.__setattr__(self, "metadata", self.metadata.reset_index(drop=True))

    def __len__(self) -> int:
        return len(self.documents)

    def __repr__(self) -> str:
        return f"Corpus({self.name!r}, n_docs={self.n_docs}, n_tokens={self.n_tokens})"

    @property
    def n_docs(self) -> int:
        return len(self.documents)

    @property
    def doc_lengths(self) -> np.ndarray:
        """Tokens per document (int64)."""
        return np.fromiter((len(d) for d in self.documents), dtype=np.int64, count=self.n_docs)

    @property
    def n_tokens(self) -> int:
        return int(self.doc_lengths.sum())

    def vocabulary(
        self, *, min_count: int = 1, max_size: int | None = None, unk: str | None = None
    ) -> Vocabulary:
        """The corpus vocabulary (see :func:`bayeswe.corpus.build_vocabulary`)."""
        return build_vocabulary(self.documents, min_count=min_count, max_size=max_size, unk=unk)

    def subset(self, docs: Sequence[int] | np.ndarray) -> Corpus:
        """The documents ``docs`` (indices or a boolean mask), in the given order."""
        idx = np.asarray(docs)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        return Corpus(
            self.name,
            tuple(self.documents[i] for i in idx),
            tuple(self.doc_ids[i] for i in idx),
            self.metadata.iloc[idx],
            self.description,
            dict(self.attrs),
        )

    def token_ids(self, vocabulary: Vocabulary) -> tuple[np.ndarray, np.ndarray]:
        """``(tokens, doc_ptr)`` as in :func:`bayeswe.corpus.encode`."""
        return encode(self.documents, vocabulary)

    def bag_of_words(
        self,
        vocabulary: Vocabulary | None = None,
        *,
        min_count: int = 1,
        max_size: int | None = None,
    ) -> BagOfWords:
        """Document-term counts over ``vocabulary`` (built from the corpus if ``None``).

        Out-of-vocabulary tokens are dropped, or counted as ``vocabulary.unk``.
        """
        vocab = vocabulary or self.vocabulary(min_count=min_count, max_size=max_size)
        tokens, ptr = self.token_ids(vocab)
        docs = [tokens[ptr[d] : ptr[d + 1]] for d in range(self.n_docs)]
        return BagOfWords.from_token_ids(
            docs, vocab, doc_ids=self.doc_ids, metadata=self.metadata.copy()
        )

    def sgns_data(self, vocabulary: Vocabulary | None = None, **options: Any) -> SGNSData:
        """SGNS pair counts of this corpus (:func:`bayeswe.corpus.sgns_data`)."""
        from bayeswe.corpus.pairs import sgns_data

        return sgns_data(self.documents, vocabulary, **options)
