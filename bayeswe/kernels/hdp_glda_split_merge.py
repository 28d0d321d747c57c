"""Split-merge moves for infinite Gaussian LDA (:mod:`bayeswe.kernels.hdp_glda`).

The moves of :mod:`bayeswe.kernels.hdp_split_merge` (anchors, tables seated afresh,
sequential allocation, the top-level restaurant with ``beta`` integrated out) with the
Normal-inverse-Wishart marginal likelihood of a topic's vectors in place of the
Dirichlet-multinomial of its words: a side's weight for a table is its tables times
``p(table's vectors | side's vectors) = ML(side + table) / ML(side)``, and

    log p(split) - log p(merged) = log gamma + log Gamma(m_A) + log Gamma(m_B)
        - log Gamma(m_A + m_B) + log ML(A) + log ML(B) - log ML(A + B),

``ML`` the NIW marginal likelihood (:func:`bayeswe.kernels.glda.common.niw_log_marginal`)
from the vectors' count, sum and scatter, each ``Psi_n`` factored afresh (O(D^3)).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bayeswe.kernels.glda.common import _logdet, _psi_from_sums, chol_factor, niw_log_marginal
from bayeswe.kernels.glda.structs import Prior
from bayeswe.kernels.hdp_glda import Assignments, VectorCorpus
from bayeswe.kernels.hdp_split_merge import (
    M_A,
    M_B,
    MERGE,
    N_TABLES,
    NONE,
    SPLIT,
    TABLE_I,
    TABLE_J,
    Scratch,
    allocate,
    anchors,
    crp_delta,
    log_anchor_ratio,
    seat_anchors,
)
from bayeswe.kernels.hdp_structs import Topics as Weights

__all__ = ["Stats", "new_stats", "propose", "settle_tokens"]


class Stats(NamedTuple):
    """Sufficient statistics of side A (0), side B (1) and a candidate (2)."""

    n: np.ndarray  #: int64 (3,): vectors
    sums: np.ndarray  #: float64 (3, D)
    scatter: np.ndarray  #: float64 (3, D, D): lower triangle of sum x x'
    log_ml: np.ndarray  #: float64 (3,): NIW log marginal likelihood of each
    psi: np.ndarray  #: float64 (D, D) scratch
    low: np.ndarray  #: float64 (D, D) scratch
    mu: np.ndarray  #: float64 (D,) scratch


def new_stats(dim: int) -> Stats:
    D = int(dim)
    return Stats(
        np.zeros(3, np.int64), np.zeros((3, D)), np.zeros((3, D, D)), np.zeros(3),
        np.zeros((D, D)), np.zeros((D, D)), np.zeros(D),
    )  # fmt: skip


@njit(cache=True, inline="always")
def _add_table(s: int, t: int, sc: Scratch, st: Stats, word: np.ndarray, emb: np.ndarray) -> None:
    """Table ``t``'s vectors into statistics ``s``."""
    D = emb.shape[1]
    for g in range(sc.start[t], sc.start[t + 1]):
        x = emb[word[sc.by_table[g]]]
        st.n[s] += 1
        for a in range(D):
            st.sums[s, a] += x[a]
            for b in range(a + 1):
                st.scatter[s, a, b] += x[a] * x[b]


@njit(cache=True, inline="always")
def _remove_table(
    s: int, t: int, sc: Scratch, st: Stats, word: np.ndarray, emb: np.ndarray
) -> None:
    """Table ``t``'s vectors out of statistics ``s``."""
    D = emb.shape[1]
    for g in range(sc.start[t], sc.start[t + 1]):
        x = emb[word[sc.by_table[g]]]
        st.n[s] -= 1
        for a in range(D):
            st.sums[s, a] -= x[a]
            for b in range(a + 1):
                st.scatter[s, a, b] -= x[a] * x[b]


@njit(cache=True)
def _log_ml(s: int, st: Stats, prior: Prior, logdet_psi0: float) -> float:
    """The NIW log marginal likelihood of statistics ``s`` (``-inf`` if ``Psi_n`` is not
    positive definite, which rounding alone cannot cause for a PD prior scale)."""
    mu0, kappa0, nu0, Psi0 = prior
    _psi_from_sums(st.n[s], st.sums[s], st.scatter[s], mu0, kappa0, Psi0, st.mu, st.psi)
    if not chol_factor(st.psi, st.low):
        return -math.inf
    return niw_log_marginal(st.n[s], _logdet(st.low), kappa0, nu0, logdet_psi0, mu0.size)


@njit(cache=True)
def _candidate(
    s: int, t: int, sc: Scratch, st: Stats, word: np.ndarray, emb: np.ndarray, prior: Prior,
    logdet_psi0: float,
) -> float:  # fmt: skip
    """log ML of side ``s`` with table ``t`` added (in the candidate slot, 2)."""
    st.n[2] = st.n[s]
    st.sums[2] = st.sums[s]
    st.scatter[2] = st.scatter[s]
    _add_table(2, t, sc, st, word, emb)
    return _log_ml(2, st, prior, logdet_psi0)


@njit(cache=True)
def _side_weights(
    t: int, tables: np.ndarray, sc: Scratch, st: Stats, word: np.ndarray, emb: np.ndarray,
    prior: Prior, logdet_psi0: float,
) -> tuple[float, float, float, float]:  # fmt: skip
    """Log weights of table ``t`` joining side A and side B (the side's tables times the
    table's predictive), and the two sides' log ML with it."""
    ml_a = _candidate(0, t, sc, st, word, emb, prior, logdet_psi0)
    ml_b = _candidate(1, t, sc, st, word, emb, prior, logdet_psi0)
    la = math.log(tables[0]) + ml_a - st.log_ml[0]
    lb = math.log(tables[1]) + ml_b - st.log_ml[1]
    return la, lb, ml_a, ml_b


@njit(cache=True, inline="always")
def _join(
    t: int, ml_a: float, ml_b: float, tables: np.ndarray, sc: Scratch, st: Stats,
    word: np.ndarray, emb: np.ndarray,
) -> None:  # fmt: skip
    """Table ``t`` into its side's statistics, log ML (``ml_a`` or ``ml_b``) and tables."""
    side = sc.side[t]
    _add_table(side, t, sc, st, word, emb)
    st.log_ml[side] = ml_a if side == 0 else ml_b
    tables[side] += 1


@njit(cache=True, nogil=True)
def propose(
    corpus: VectorCorpus, word_ptr: np.ndarray, by_word: np.ndarray, assign: Assignments,
    weights: Weights, alpha0: float, gamma: float, prior: Prior, logdet_psi0: float,
    rng: np.ndarray, sc: Scratch, st: Stats, scans: int = 0,
) -> int:  # fmt: skip
    """As :func:`bayeswe.kernels.hdp_split_merge.propose` (``scans`` restricted Gibbs
    scans in the launch), with the NIW likelihood."""
    word, emb, z, beta = corpus.word, corpus.emb, assign.z, weights.beta
    i, j = anchors(word_ptr, by_word, word, z, assign.n_k, rng)
    ki, kj = z[i], z[j]
    n_other = seat_anchors(i, j, ki, kj, alpha0 * beta[ki], alpha0 * beta[kj],
                           corpus.tok_ptr, z, assign.n_dk, rng, sc)  # fmt: skip
    ta, tb = sc.ints[TABLE_I], sc.ints[TABLE_J]
    if ta == tb:
        return NONE
    split = ki == kj
    st.n[:] = 0
    st.sums[:] = 0.0
    st.scatter[:] = 0.0
    _add_table(0, ta, sc, st, word, emb)
    _add_table(1, tb, sc, st, word, emb)
    st.log_ml[0] = _log_ml(0, st, prior, logdet_psi0)
    st.log_ml[1] = _log_ml(1, st, prior, logdet_psi0)
    tables = np.ones(2, dtype=np.int64)
    log_q = 0.0
    if scans > 0 and not split:  # a merge keeps its sides while the launch is drawn
        for r in range(n_other):
            t = sc.order[r]
            sc.kept[t] = sc.side[t]
    # sequential allocation; with ``scans``, the launch's first pass
    for r in range(n_other):
        t = sc.order[r]
        la, lb, ml_a, ml_b = _side_weights(t, tables, sc, st, word, emb, prior, logdet_psi0)
        lp = allocate(la, lb, split or scans > 0, t, sc, rng)
        if scans == 0:
            log_q += lp
        _join(t, ml_a, ml_b, tables, sc, st, word, emb)
    # ``scans`` restricted Gibbs scans, then the final one whose probability is q
    for scan in range(scans + 1 if scans > 0 else 0):
        final = scan == scans
        for r in range(n_other):
            t = sc.order[r]
            side = sc.side[t]
            _remove_table(side, t, sc, st, word, emb)
            st.log_ml[side] = _log_ml(side, st, prior, logdet_psi0)
            tables[side] -= 1
            la, lb, ml_a, ml_b = _side_weights(t, tables, sc, st, word, emb, prior, logdet_psi0)
            if final and not split:
                sc.side[t] = sc.kept[t]
            lp = allocate(la, lb, split or not final, t, sc, rng)
            if final:
                log_q += lp
            _join(t, ml_a, ml_b, tables, sc, st, word, emb)
    m_a, m_b = tables[0], tables[1]
    sc.ints[M_A], sc.ints[M_B] = m_a, m_b
    # the merged topic's statistics in the candidate slot
    st.n[2] = st.n[0] + st.n[1]
    for a in range(emb.shape[1]):
        st.sums[2, a] = st.sums[0, a] + st.sums[1, a]
        for b in range(a + 1):
            st.scatter[2, a, b] = st.scatter[0, a, b] + st.scatter[1, a, b]
    merged = _log_ml(2, st, prior, logdet_psi0)
    delta = crp_delta(gamma, m_a, m_b) + st.log_ml[0] + st.log_ml[1] - merged
    w = word[i]
    sc.floats[2] = log_anchor_ratio(word.size, word_ptr[w + 1] - word_ptr[w], word[j] == w,
                                    st.n[0], st.n[1])  # fmt: skip
    sc.floats[0], sc.floats[1] = delta, log_q + sc.floats[2]
    return SPLIT if split else MERGE


@njit(cache=True, nogil=True)
def settle_tokens(tok_doc: np.ndarray, assign: Assignments, frm: int, to: int, sc: Scratch) -> None:
    """Side B's tokens from slot ``frm`` to ``to`` (after
    :func:`bayeswe.kernels.hdp_split_merge.settle_slots`); the caller refreshes the two
    slots' factors."""
    z, n_dk, n_k = assign
    for t in range(sc.ints[N_TABLES]):
        if sc.side[t] == 1:
            for g in range(sc.start[t], sc.start[t + 1]):
                tok = sc.by_table[g]
                d = tok_doc[tok]
                n_dk[d, frm] -= 1
                n_dk[d, to] += 1
                n_k[frm] -= 1
                n_k[to] += 1
                z[tok] = to
