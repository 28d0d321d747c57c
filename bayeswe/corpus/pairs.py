"""From token sequences to aggregated SGNS data (Yrjänäinen et al., eqs. (3)-(5)).

Pipeline (each step documented where it is implemented):

1. vocabulary (:func:`bayeswe.corpus.build_vocabulary`: ``min_count``, ``max_size``,
   ``unk`` or dropping of rare words) and token ids (:func:`bayeswe.corpus.encode`);
2. optional frequent-word subsampling (:func:`subsample_tokens`);
3. positive pairs: every (centre, context) pair within ``window`` tokens in the
   same document (eq. (4)), counted per unique pair;
4. ``negatives`` negative samples per positive: for a positive with target ``w``,
   contexts drawn i.i.d. from the unigram distribution raised to the power 0.75
   (Mikolov et al. 2013); counted per unique pair;
5. the result is a :class:`bayeswe.sgns.SGNSData` (``n = n_pos + n_neg`` per pair),
   and :func:`holdout_split` splits its observations into training and held-out sets.

Memory: documents are processed in chunks of about ``chunk_pairs`` positive keys
(int64); each chunk is sorted and merged into the running sorted unique pairs, so
peak memory is a few times ``8 * chunk_pairs`` bytes plus ~24 bytes per unique
pair, independent of the corpus length. Documents may come from a generator
(streaming) when the vocabulary is given.

Random numbers: ``numpy.random.SeedSequence(seed)`` spawns one stream for
subsampling and one for negatives. Both are consumed in corpus order (one uniform
per token, then one per negative sample in (target, draw) order, mapped to a word by
Walker's alias method), so the output
depends only on the seed and the inputs — not on ``chunk_pairs`` or thread counts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from bayeswe.corpus.tokenize import build_vocabulary
from bayeswe.corpus.types import CorpusError, Vocabulary
from bayeswe.kernels.pairs import (
    alias_table,
    merge_counts,
    merge_pos_neg,
    negative_keys,
    run_length,
    window_pair_keys,
)
from bayeswe.options import check_seed
from bayeswe.sgns.data import SGNSData

__all__ = [
    "holdout_split",
    "keep_probabilities",
    "negative_distribution",
    "sgns_data",
    "sgns_data_from_ids",
    "subsample_tokens",
]

Progress = Callable[[str], None]

#: Power of the unigram distribution negatives are drawn from (Mikolov et al. 2013).
NEGATIVE_POWER = 0.75


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise CorpusError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise CorpusError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def negative_distribution(counts: np.ndarray, power: float = NEGATIVE_POWER) -> np.ndarray:
    """Probabilities ``q_v ∝ count_v ** power`` of drawing word ``v`` as a negative context."""
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or c.size == 0 or (c < 0).any() or c.sum() <= 0:
        raise CorpusError("negative sampling needs non-negative word counts with a positive sum")
    q = c**power
    return q / q.sum()


def keep_probabilities(counts: np.ndarray, threshold: float) -> np.ndarray:
    """Probability of keeping each occurrence of a word under subsampling.

    Mikolov et al. (2013, "Distributed representations...", eq. (5)) discard each
    occurrence of word ``w`` with probability ``1 - sqrt(t / f(w))``, ``f(w)`` its
    relative frequency; so it is kept with ``min(1, sqrt(t / f(w)))``.
    """
    if not (isinstance(threshold, (int, float)) and 0 < threshold < 1):
        raise CorpusError(f"subsample threshold must be in (0, 1), got {threshold!r}")
    c = np.asarray(counts, dtype=np.float64)
    f = c / c.sum()
    with np.errstate(divide="ignore"):
        keep = np.sqrt(threshold / f)
    return np.minimum(1.0, keep)


def subsample_tokens(
    tokens: np.ndarray,
    doc_ptr: np.ndarray,
    keep: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Drop each token independently with probability ``1 - keep[token]``.

    One uniform per token in order; returns the kept tokens (remaining tokens of
    a document become adjacent, so windows reach further, as in word2vec) and the
    new document pointers.
    """
    u = rng.random(tokens.size)
    mask = u < keep[tokens]
    kept_before = np.concatenate([[0], np.cumsum(mask, dtype=np.int64)])
    return tokens[mask], kept_before[doc_ptr]


def _encode_chunks(
    documents: Iterable[Sequence[str]], vocabulary: Vocabulary, chunk_tokens: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Token ids of consecutive groups of documents with about ``chunk_tokens`` tokens."""
    parts: list[np.ndarray] = []
    lengths: list[int] = []
    size = 0
    lookup = {w: i for i, w in enumerate(vocabulary.words)}
    unk = -1 if vocabulary.unk is None else lookup[vocabulary.unk]
    for doc in documents:
        if isinstance(doc, str):
            raise CorpusError("documents must be sequences of tokens, not strings (tokenize first)")
        # dict lookups in one comprehension: the hot Python loop of the pipeline
        ids = np.fromiter((lookup.get(w, unk) for w in doc), dtype=np.int32, count=len(doc))
        if unk < 0:
            ids = ids[ids >= 0]
        parts.append(ids)
        lengths.append(ids.size)
        size += ids.size
        if size >= chunk_tokens:
            yield _join(parts, lengths)
            parts, lengths, size = [], [], 0
    if lengths:
        yield _join(parts, lengths)


def _join(parts: list[np.ndarray], lengths: list[int]) -> tuple[np.ndarray, np.ndarray]:
    tokens = np.concatenate(parts).astype(np.int32) if parts else np.zeros(0, np.int32)
    ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    return tokens, ptr


class _PairCounter:
    """Running sorted unique positive-pair keys and counts."""

    def __init__(self, V: int, window: int | None, chunk_pairs: int) -> None:
        self.V = V
        self.window = window
        self.chunk_pairs = chunk_pairs
        self.keys = np.zeros(0, dtype=np.int64)
        self.counts = np.zeros(0, dtype=np.int64)
        self.n_tokens = 0
        self.n_docs = 0

    def add(self, tokens: np.ndarray, doc_ptr: np.ndarray) -> None:
        self.n_tokens += int(tokens.size)
        self.n_docs += int(doc_ptr.size - 1)
        if tokens.size == 0:
            return
        lengths = np.diff(doc_ptr)
        # window=None: the whole document is the context (MovieLens "sentences").
        window = int(lengths.max()) if self.window is None else self.window
        per_centre = 2 * min(window, int(lengths.max()))
        step = max(1, self.chunk_pairs // max(per_centre, 1))
        buf = np.empty(step * per_centre, dtype=np.int64)
        for c_lo in range(0, tokens.size, step):
            c_hi = min(tokens.size, c_lo + step)
            first_doc = int(np.searchsorted(doc_ptr, c_lo, side="right") - 1)
            k = window_pair_keys(tokens, doc_ptr, first_doc, c_lo, c_hi, window, self.V, buf)
            chunk = np.sort(buf[:k])
            keys, counts = run_length(chunk)
            self.keys, self.counts = merge_counts(self.keys, self.counts, keys, counts)


def _negatives(
    pos_keys: np.ndarray,
    pos_counts: np.ndarray,
    V: int,
    q: np.ndarray,
    negatives: int,
    rng: np.random.Generator,
    block: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Aggregated negative samples: ``negatives`` draws from ``q`` per positive, same target.

    Draws are made in order of target word, one uniform per draw turned into a
    word by Walker's alias method, ``block`` draws at a time, so the result does
    not depend on ``block``.
    """
    per_target = np.bincount(pos_keys // V, weights=pos_counts, minlength=V).astype(np.int64)
    n_draws = per_target * negatives
    prob, alias = alias_table(q)
    keys = np.zeros(0, dtype=np.int64)
    counts = np.zeros(0, dtype=np.int64)
    targets = np.flatnonzero(n_draws)
    start = 0
    while start < targets.size:
        # targets start..stop-1 make one block of at most ~block draws (at least one target)
        csum = np.cumsum(n_draws[targets[start:]])
        stop = start + max(1, int(np.searchsorted(csum, block, side="right")))
        t = targets[start:stop]
        u = rng.random(int(n_draws[t].sum()))
        buf = np.empty(u.size, dtype=np.int64)
        negative_keys(t, n_draws[t], u, prob, alias, V, buf)
        buf.sort()
        k, c = run_length(buf)
        # blocks hold increasing targets, so concatenation stays sorted
        keys = np.concatenate([keys, k])
        counts = np.concatenate([counts, c])
        start = stop
    return keys, counts


def sgns_data_from_ids(
    chunks: Iterable[tuple[np.ndarray, np.ndarray]],
    vocabulary: Vocabulary,
    *,
    window: int | None = 2,
    negatives: int = 1,
    subsample: float | None = None,
    seed: int | None,
    chunk_pairs: int = 4_000_000,
    progress: Progress | None = None,
) -> SGNSData:
    """SGNS data from chunks of token ids ``(tokens, doc_ptr)`` (see :func:`sgns_data`).

    ``window=None`` makes the whole document the context of each token (every
    ordered pair of distinct positions in a document is a positive).
    """
    if window is not None:
        window = _check_int("window", window, 1)
    negatives = _check_int("negatives", negatives, 0)
    chunk_pairs = _check_int("chunk_pairs", chunk_pairs, 1)
    seed = check_seed("seed", seed, error=CorpusError)
    V = len(vocabulary)
    if vocabulary.counts.sum() <= 0:
        raise CorpusError("the vocabulary has no counts; build it from the corpus")
    seq = np.random.SeedSequence(seed)
    sub_seq, neg_seq = seq.spawn(2)
    sub_rng = np.random.default_rng(sub_seq)
    keep = None if subsample is None else keep_probabilities(vocabulary.counts, subsample)
    counter = _PairCounter(V, window, chunk_pairs)
    kept = 0
    for tokens, doc_ptr in chunks:
        tokens = np.ascontiguousarray(tokens, dtype=np.int32)
        doc_ptr = np.ascontiguousarray(doc_ptr, dtype=np.int64)
        if tokens.size and (tokens.min() < 0 or tokens.max() >= V):
            raise CorpusError(f"token id out of range [0, {V})")
        if keep is not None:
            tokens, doc_ptr = subsample_tokens(tokens, doc_ptr, keep, sub_rng)
        kept += tokens.size
        counter.add(tokens, doc_ptr)
        if progress is not None:
            progress(
                f"[pairs] {counter.n_docs} documents, {kept} tokens, "
                f"{counter.keys.size} unique positive pairs"
            )
    if counter.n_docs == 0:
        raise CorpusError("the corpus has no documents")
    if counter.keys.size == 0:
        raise CorpusError(
            f"no positive pairs: {kept} in-vocabulary tokens in {counter.n_docs} documents "
            "(every document has fewer than two tokens after vocabulary filtering"
            + (" and subsampling)" if keep is not None else ")")
        )
    q = negative_distribution(vocabulary.counts)
    if negatives:
        neg_keys, neg_counts = _negatives(
            counter.keys,
            counter.counts,
            V,
            q,
            negatives,
            np.random.default_rng(neg_seq),
            block=chunk_pairs,
        )
    else:
        neg_keys = neg_counts = np.zeros(0, dtype=np.int64)
    keys, n, n_pos = merge_pos_neg(counter.keys, counter.counts, neg_keys, neg_counts)
    # free the inputs before SGNSData makes its own copies (peak memory ~ unique pairs)
    del counter, neg_keys, neg_counts
    if progress is not None:
        progress(f"[pairs] {keys.size} unique pairs, {int(n.sum())} observations")
    target = (keys // V).astype(np.int32)
    context = (keys % V).astype(np.int32)
    del keys
    return SGNSData(vocabulary.words, target, context, n, n_pos)


def sgns_data(
    documents: Iterable[Sequence[str]],
    vocabulary: Vocabulary | None = None,
    *,
    window: int | None = 2,
    negatives: int = 1,
    subsample: float | None = None,
    seed: int | None,
    min_count: int = 1,
    max_size: int | None = None,
    unk: str | None = None,
    chunk_tokens: int = 1_000_000,
    chunk_pairs: int = 4_000_000,
    progress: Progress | None = None,
) -> SGNSData:
    """Aggregated SGNS pair counts of tokenized documents.

    Parameters
    ----------
    documents
        Token sequences (e.g. :attr:`Corpus.documents`). With ``vocabulary`` given
        they are read once, in chunks of ``chunk_tokens`` tokens, so a generator
        over a corpus larger than memory works; without it they are read twice
        (once to count words) and must be a re-iterable collection.
    vocabulary
        Word ids; built with ``min_count``/``max_size``/``unk`` if ``None``. Its
        counts define the negative-sampling and subsampling frequencies.
        Out-of-vocabulary tokens are dropped (or become ``unk``).
    window
        ``M`` of eq. (4): contexts within ``M`` tokens, same document. ``None``:
        the whole document.
    negatives
        ``n_s``: negative samples per positive, contexts from unigram^0.75.
    subsample
        Threshold ``t`` of word2vec's frequent-word subsampling (e.g. ``1e-4``),
        applied before windows are formed; ``None`` for none.
    seed
        Seed of all random draws (subsampling, negatives): an integer in
        [0, 2**32 - 1], or ``None`` for fresh entropy.

    Returns
    -------
    SGNSData
        Unique pairs sorted by (target, context) with ``n`` and ``n_pos``.

    Raises
    ------
    CorpusError
        Empty corpus, no word reaching ``min_count``, ``window < 1``, bad options,
        or no pair at all.
    """
    chunk_tokens = _check_int("chunk_tokens", chunk_tokens, 1)
    seed = check_seed("seed", seed, error=CorpusError)
    if window is not None:
        _check_int("window", window, 1)
    _check_int("negatives", negatives, 0)
    if vocabulary is None:
        if iter(documents) is documents:  # type: ignore[comparison-overlap]
            raise CorpusError(
                "documents is a one-shot iterator: give a vocabulary, or a re-iterable collection"
            )
        vocabulary = build_vocabulary(documents, min_count=min_count, max_size=max_size, unk=unk)
    return sgns_data_from_ids(
        _encode_chunks(documents, vocabulary, chunk_tokens),
        vocabulary,
        window=window,
        negatives=negatives,
        subsample=subsample,
        seed=seed,
        chunk_pairs=chunk_pairs,
        progress=progress,
    )


def holdout_split(
    data: SGNSData, test_fraction: float = 0.1, *, seed: int | None
) -> tuple[SGNSData, SGNSData]:
    """Training and held-out SGNS data: each observation is held out with ``test_fraction``.

    Thin wrapper of :meth:`bayeswe.sgns.SGNSData.split` (per pair, the held-out
    count is Binomial(n, f) and its positives hypergeometric), for hold-out
    log-likelihood as in Yrjänäinen et al. Tables 5-6.
    """
    return data.split(test_fraction, seed=seed)
