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

import os
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from bayeswe.corpus.types import CorpusError, Vocabulary

__all__ = [
    "ENGLISH_STOPWORDS",
    "TOKEN_PATTERN",
    "build_vocabulary",
    "count_words",
    "encode",
    "read_lines",
    "tokenize",
]

#: Letters (no digits/underscore), with internal apostrophes.
TOKEN_PATTERN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")


#: English function words (articles, pronouns, auxiliaries, prepositions, conjunctions,
#: common adverbs), in the form :func:`tokenize` produces; optional, e.g. to leave them
#: out of a vocabulary (``build_vocabulary(..., exclude=ENGLISH_STOPWORDS)``).
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can can't cannot could couldn't did didn't
    do does doesn't doing don't down during each even ever every few for from further had
    hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself
    just let's like made make many may me might more most much must mustn't my myself no
    nor not now of off on once one only or other ought our ours ourselves out over own
    same shall shan't she she'd she'll she's should shouldn't so some such than that
    that's the their theirs them themselves then there there's these they they'd they'll
    they're they've this those through to too under until up upon us very was wasn't we
    we'd we'll we're we've were weren't what what's when when's where where's which while
    who who's whom why why's will with won't would wouldn't yet you you'd you'll you're
    you've your yours yourself yourselves
    """.split()
)


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lower-case word tokens by the module's rules.

    >>> tokenize("The Nation's 2nd well-known tax-cut, isn’t it?")
    ['the', "nation's", 'nd', 'well', 'known', 'tax', 'cut', "isn't", 'it']
    """
    if not isinstance(text, str):
        raise CorpusError(f"tokenize expects a string, got {type(text).__name__}")
    text = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    return TOKEN_PATTERN.findall(text)


def read_lines(path: str | os.PathLike[str], *, encoding: str = "utf-8") -> Iterator[list[str]]:
    """Stream a text file with one document per line as token lists (blank lines skipped).

    Nothing but the current line is held in memory, so a corpus larger than memory
    can go through :func:`build_vocabulary` (one pass) and
    :func:`bayeswe.corpus.sgns_data` with that vocabulary (a second pass)::

        vocab = build_vocabulary(read_lines(path), min_count=5)
        data = sgns_data(read_lines(path), vocab, window=2, negatives=1, seed=1)
    """
    try:
        handle = open(path, encoding=encoding)  # noqa: SIM115 - closed by the generator
    except FileNotFoundError:
        raise CorpusError(f"corpus file {path} does not exist") from None
    with handle:
        try:
            for line in handle:
                tokens = tokenize(line)
                if tokens:
                    yield tokens
        except UnicodeDecodeError as exc:
            raise CorpusError(f"{path} is not valid {encoding} text: {exc}") from None


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
    exclude: Iterable[str] = (),
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
    exclude
        Words never in the vocabulary (e.g. :data:`ENGLISH_STOPWORDS`); they are
        treated like rare words (dropped, or counted as ``unk``).

    Raises
    ------
    CorpusError
        Empty corpus, no word reaching ``min_count``, or bad ``min_count``/``max_size``.
    """
    counts = count_words(documents)
    excluded = set(exclude)
    if excluded:
        total = sum(counts.values())
        counts = Counter({w: c for w, c in counts.items() if w not in excluded})
        if unk is not None:
            # the excluded words' occurrences go to unk like rare words do
            counts[unk] = counts.get(unk, 0) + total - sum(counts.values())
        if not counts:
            raise CorpusError("every word of the corpus is excluded")
    return Vocabulary.from_counts(counts, min_count=min_count, max_size=max_size, unk=unk)


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
