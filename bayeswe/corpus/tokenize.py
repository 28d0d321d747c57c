"""Tokenization and vocabulary building: the documented text -> tokens rules.

Rules of :func:`tokenize` (the same for every text corpus in bayeswe):

1. Unicode NFKC normalisation, then lower-casing (``str.lower``).
2. A token is a maximal run of letters (Unicode category L*, no digits, no
   underscore), optionally joined by single internal apostrophes (``'`` or ``’``,
   the latter stored as ``'``) to further letter runs: ``don't``, ``nation's``.
   Hyphens split words (``well-known`` -> ``well``, ``known``).
3. Everything else (digits, punctuation, whitespace, symbols) separates tokens
   and is dropped.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from bayeswe.corpus.types import CorpusError, Vocabulary

__all__ = ["TOKEN_PATTERN", "build_vocabulary", "count_words", "encode", "tokenize"]

#: Letters (no digits/underscore), with internal apostrophes.
TOKEN_PATTERN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lower-case word tokens by the module's rules.

    >>> tokenize("The Nation's 2nd well-known tax-cut, isn’t it?")
    ['the', "nation's", 'nd', 'well', 'known', 'tax', 'cut', "isn't", 'it']
    """
    if not isinstance(text, str):
        raise CorpusError(f"tokenize expects a string, got {type(text).__name__}")
    text = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    return TOKEN_PATTERN.findall(text)


def count_words(documents: Iterable[Sequence[str]]) -> Counter[str]:
    """Corpus frequency of every token (one pass over ``documents``)."""
    counts: Counter[str] = Counter()
    n_docs = 0
    for doc in documents:
        if isinstance(doc, str):
            raise CorpusError("documents must be sequences of tokens, not strings (tokenize first)")
        counts.update(doc)
        n_docs += 1
    if n_docs == 0:
        raise CorpusError("the corpus has no documents")
    if not counts:
        raise CorpusError(f"the corpus has {n_docs} document(s) but no tokens")
    return counts


def build_vocabulary(
    documents: Iterable[Sequence[str]],
    *,
    min_count: int = 1,
    max_size: int | None = None,
    unk: str | None = None,
) -> Vocabulary:
    """Vocabulary of the tokens of ``documents``, most frequent first.

    Parameters
    ----------
    documents
        Token sequences (e.g. from :func:`tokenize`); consumed once.
    min_count
        Words occurring fewer times are left out.
    max_size
        Keep at most this many words (including ``unk``), the most frequent;
        ties broken alphabetically.
    unk
        If given (e.g. ``"<unk>"``), left-out words are mapped to this token,
        which gets their total count; if ``None`` they are dropped from documents.

    Raises
    ------
    CorpusError
        Empty corpus, no word reaching ``min_count``, or bad ``min_count``/``max_size``.
    """
    return Vocabulary.from_counts(
        count_words(documents), min_count=min_count, max_size=max_size, unk=unk
    )


def encode(
    documents: Iterable[Sequence[str]], vocabulary: Vocabulary
) -> tuple[np.ndarray, np.ndarray]:
    """Token ids of ``documents`` as one flat array plus document pointers.

    Out-of-vocabulary tokens map to ``vocabulary.unk`` or, without one, are dropped
    (the remaining tokens of a document become adjacent, as in word2vec).

    Returns
    -------
    tokens : int32 array, shape ``(n_tokens,)``
    doc_ptr : int64 array, shape ``(n_docs + 1,)``; document ``d`` is
        ``tokens[doc_ptr[d]:doc_ptr[d+1]]``.
    """
    parts: list[np.ndarray] = []
    ptr = [0]
    for doc in documents:
        if isinstance(doc, str):
            raise CorpusError("documents must be sequences of tokens, not strings (tokenize first)")
        ids = vocabulary.ids(doc, drop_unknown=True)
        parts.append(ids)
        ptr.append(ptr[-1] + ids.size)
    if len(ptr) == 1:
        raise CorpusError("the corpus has no documents")
    tokens = np.concatenate(parts).astype(np.int32) if parts else np.zeros(0, np.int32)
    return tokens, np.asarray(ptr, dtype=np.int64)
