"""Exact draws from HDP-LDA's prior by the Chinese restaurant franchise.

Teh, Jordan, Beal and Blei (2006), section 4.3: in document ``d`` token ``i`` joins an
occupied table with probability proportional to its customers, or a new table with
``alpha0``; a new table takes an existing topic ``k`` in proportion to ``m_.k``, the
tables serving it in all documents, or a new topic with ``gamma``. The words given the
topics are a Pólya urn per topic (``phi_k ~ Dirichlet(eta)`` integrated out). These are
the "marginal-conditional" draws of Geweke's (2004) joint-distribution test and the
prior draws of simulation-based calibration for the HDP-LDA sampler
(:mod:`bayeswe.samplers.hdp_lda`). :func:`topic_count_posterior` is the exact posterior
of the number of topics of a corpus of a few tokens, by enumeration: the reference any
HDP-LDA sampler can be checked against.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

__all__ = [
    "CRFDraw",
    "crf_draw",
    "log_p_words",
    "log_stirling",
    "partition_posterior",
    "topic_count_posterior",
    "words_given_topics",
]

#: Most tokens :func:`topic_count_posterior` enumerates (Bell(9) = 21,147 partitions).
MAX_ENUMERATED_TOKENS = 9


@dataclass(frozen=True)
class CRFDraw:
    """Topics of the tokens (labels ``0 .. K - 1`` in order of appearance) and tables."""

    z: np.ndarray  #: int32 (N,): topic of each token, documents one after another
    m_k: np.ndarray  #: int64 (K,): tables serving each topic

    @property
    def n_topics(self) -> int:
        return int(self.m_k.size)

    @property
    def n_tables(self) -> int:
        return int(self.m_k.sum())


def crf_draw(
    doc_lengths: np.ndarray, alpha0: float, gamma: float, rng: np.random.Generator
) -> CRFDraw:
    """The topics of documents of the given lengths, drawn from the HDP prior."""
    m_k: list[int] = []
    z = []
    for n_d in np.asarray(doc_lengths, dtype=np.int64):
        table_size: list[int] = []
        table_topic: list[int] = []
        for i in range(int(n_d)):
            u = rng.uniform(0.0, i + alpha0)
            t = int(np.searchsorted(np.cumsum(table_size), u, side="right"))
            if t == len(table_size):  # a new table, and its topic
                v = rng.uniform(0.0, sum(m_k) + gamma)
                k = int(np.searchsorted(np.cumsum(m_k), v, side="right")) if m_k else 0
                if k == len(m_k):
                    m_k.append(0)
                m_k[k] += 1
                table_size.append(0)
                table_topic.append(k)
            table_size[t] += 1
            z.append(table_topic[t])
    return CRFDraw(np.array(z, dtype=np.int32), np.array(m_k, dtype=np.int64))


def words_given_topics(
    z: np.ndarray, n_words: int, eta: float, rng: np.random.Generator
) -> np.ndarray:
    """Words of tokens with topics ``z``, ``phi_k ~ Dirichlet(eta)`` integrated out."""
    n_wk: dict[int, np.ndarray] = {}
    words = np.empty(z.size, dtype=np.int32)
    for i, k in enumerate(np.asarray(z)):
        counts = n_wk.setdefault(int(k), np.zeros(n_words))
        p = counts + eta
        w = int(rng.choice(n_words, p=p / p.sum()))
        counts[w] += 1
        words[i] = w
    return words


def log_p_words(z: np.ndarray, words: np.ndarray, n_words: int, eta: float) -> float:
    """``log p(w | z, eta)``: a Dirichlet-multinomial per topic (label-free)."""
    _, k = np.unique(np.asarray(z), return_inverse=True)
    n_wk = np.zeros((k.max(initial=-1) + 1, n_words))
    np.add.at(n_wk, (k, np.asarray(words)), 1.0)
    n_k = n_wk.sum(axis=1)
    # math.fsum: the same value, to the last bit, for any labelling of the topics
    return math.fsum(
        np.concatenate(
            [
                (gammaln(n_wk + eta) - math.lgamma(eta)).ravel(),
                math.lgamma(n_words * eta) - gammaln(n_k + n_words * eta),
            ]
        ).tolist()
    )


def log_stirling(n: int) -> np.ndarray:
    """``(n + 1, n + 1)``: ``log s(i, m)``, the unsigned Stirling numbers of the first kind
    (the number of ways ``i`` customers sit at ``m`` tables; ``-inf`` where there is
    none), by ``s(i, m) = s(i - 1, m - 1) + (i - 1) s(i - 1, m)``."""
    s = np.zeros((n + 1, n + 1))
    s[0, 0] = 1.0
    for i in range(1, n + 1):
        for m in range(1, i + 1):
            s[i, m] = s[i - 1, m - 1] + (i - 1) * s[i - 1, m]
    with np.errstate(divide="ignore"):
        return np.log(s)


def _partitions(n: int) -> Iterator[list[list[int]]]:
    """Every set partition of ``0 .. n - 1`` (blocks in order of their first element)."""
    if n == 0:
        yield []
        return
    for p in _partitions(n - 1):
        for i in range(len(p)):
            yield p[:i] + [p[i] + [n - 1]] + p[i + 1 :]
        yield p + [[n - 1]]


def _log_p_partition(
    blocks: list[list[int]], doc: np.ndarray, lengths: Sequence[int], alpha0: float,
    gamma: float, log_stirling: np.ndarray,
) -> float:  # fmt: skip
    """``log p(z | alpha0, gamma)`` of the tokens' partition into topics under the
    Chinese restaurant franchise, summed over the table counts (Teh et al. 2006, eqs. 38
    and 40: ``s(n_dk, m_dk)`` seatings of ``n_dk`` customers at ``m_dk`` tables)."""
    K = len(blocks)
    n_dk = np.zeros((len(lengths), K), dtype=int)
    for k, block in enumerate(blocks):
        for i in block:
            n_dk[doc[i], k] += 1
    total = -np.inf
    ranges = [range(1, n + 1) if n else range(1) for n in n_dk.ravel()]
    for ms in itertools.product(*ranges):
        m = np.array(ms).reshape(n_dk.shape)
        lp = sum(math.lgamma(alpha0) - math.lgamma(alpha0 + n) for n in lengths)
        lp += float((log_stirling[n_dk, m] + m * math.log(alpha0))[n_dk > 0].sum())
        m_k = m.sum(axis=0)
        lp += K * math.log(gamma) + math.lgamma(gamma) - math.lgamma(gamma + m_k.sum())
        lp += sum(math.lgamma(x) for x in m_k)
        total = np.logaddexp(total, lp)
    return float(total)


def partition_posterior(
    doc_lengths: Sequence[int],
    log_likelihood: Callable[[list[list[int]]], float],
    *,
    alpha0: float,
    gamma: float,
) -> np.ndarray:
    """Exact ``P(K = k | data)`` of an HDP mixture, ``K`` the number of topics holding a
    token, for any topic likelihood with its parameters integrated out.

    Enumerates every partition of the tokens (documents one after another) into topics,
    weighs it by the Chinese restaurant franchise's probability (table counts summed
    out) times ``exp(log_likelihood(blocks))``, and adds up by the number of blocks.
    Feasible for a few tokens only: the cost grows with the Bell number of the token
    count.

    Parameters
    ----------
    doc_lengths
        Tokens per document.
    log_likelihood
        The data's log marginal likelihood given a partition, passed as its blocks
        (lists of token indices).
    alpha0, gamma
        The concentrations, positive.

    Returns
    -------
    numpy.ndarray
        ``(N + 1,)`` probabilities of ``K = 0 .. N`` (``P(K = 0) = 0``).

    Raises
    ------
    ValueError
        More than :data:`MAX_ENUMERATED_TOKENS` tokens, a negative length, or a
        non-positive concentration.
    """
    lengths = [int(n) for n in doc_lengths]
    N = sum(lengths)
    if min(lengths, default=0) < 0:
        raise ValueError(f"doc_lengths must not be negative, got {lengths}")
    if not 0 < N <= MAX_ENUMERATED_TOKENS:
        raise ValueError(f"enumeration needs 1 to {MAX_ENUMERATED_TOKENS} tokens, got {N}")
    for name, value in (("alpha0", alpha0), ("gamma", gamma)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be positive and finite, got {value!r}")
    doc = np.repeat(np.arange(len(lengths)), lengths)
    log_s = log_stirling(N)
    log_post, counts = [], []
    for blocks in _partitions(N):
        log_post.append(
            _log_p_partition(blocks, doc, lengths, alpha0, gamma, log_s) + log_likelihood(blocks)
        )
        counts.append(len(blocks))
    w = np.exp(np.array(log_post) - max(log_post))
    return np.bincount(counts, weights=w, minlength=N + 1) / w.sum()


def topic_count_posterior(
    doc_lengths: Sequence[int],
    words: Sequence[int] | np.ndarray,
    n_words: int,
    *,
    eta: float,
    alpha0: float,
    gamma: float,
) -> np.ndarray:
    """Exact ``P(K = k | words)`` of HDP-LDA, ``K`` the number of topics holding a token:
    :func:`partition_posterior` with the topics' words a Dirichlet-multinomial
    (:func:`log_p_words`).

    Parameters
    ----------
    doc_lengths
        Tokens per document; the documents' tokens are ``words`` in order.
    words
        Word id of each token, ``0 .. n_words - 1``.
    n_words, eta, alpha0, gamma
        Vocabulary size and the model's positive hyperparameters.

    Returns
    -------
    numpy.ndarray
        ``(N + 1,)`` probabilities of ``K = 0 .. N`` (``P(K = 0) = 0``).

    Raises
    ------
    ValueError
        As :func:`partition_posterior`; also lengths that do not add up to the number
        of words, a word outside the vocabulary, or a non-positive ``eta``.
    """
    lengths = [int(n) for n in doc_lengths]
    words = np.asarray(words, dtype=np.int64)
    N = words.size
    if sum(lengths) != N:
        raise ValueError(f"doc_lengths {lengths} do not add up to the {N} words")
    if N and (words.min() < 0 or words.max() >= n_words):
        raise ValueError(f"word ids must be in 0 .. {n_words - 1}")
    if not (math.isfinite(eta) and eta > 0):
        raise ValueError(f"eta must be positive and finite, got {eta!r}")

    def log_likelihood(blocks: list[list[int]]) -> float:
        z = np.empty(N, dtype=int)
        for k, block in enumerate(blocks):
            z[block] = k
        return log_p_words(z, words, n_words, eta)

    return partition_posterior(lengths, log_likelihood, alpha0=alpha0, gamma=gamma)
