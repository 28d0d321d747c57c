"""Exact draws from HDP-LDA's prior by the Chinese restaurant franchise.

Teh, Jordan, Beal and Blei (2006), section 4.3: in document ``d`` token ``i`` joins an
occupied table with probability proportional to its customers, or a new table with
``alpha0``; a new table takes an existing topic ``k`` in proportion to ``m_.k``, the
tables serving it in all documents, or a new topic with ``gamma``. The words given the
topics are a Pólya urn per topic (``phi_k ~ Dirichlet(eta)`` integrated out). These are
the "marginal-conditional" draws of Geweke's (2004) joint-distribution test and the
prior draws of simulation-based calibration for the HDP-LDA sampler
(:mod:`bayeswe.samplers.hdp_lda`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

__all__ = ["CRFDraw", "crf_draw", "log_p_words", "words_given_topics"]


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
    return float(
        (gammaln(n_wk + eta) - math.lgamma(eta)).sum()
        + (math.lgamma(n_words * eta) - gammaln(n_k + n_words * eta)).sum()
    )
