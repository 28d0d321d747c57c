"""Kernels of the collapsed Gibbs sampler of a DP mixture of multinomials.

The model is :class:`bayeswe.dp.DPMultinomialData`'s without truncation: a partition
``z`` of the ``N`` points from the Chinese restaurant process with concentration
``alpha ~ Gamma(a, b)`` (shape, rate), and per cluster category probabilities
``phi ~ Dirichlet(beta)``, integrated out. Point ``i`` is a bag of ``L_i`` tokens with
counts ``x_iv``; its density given ``phi`` is ``prod_v phi_v^{x_iv}`` (a token
sequence: no multinomial coefficient).

A cluster holding token counts ``c_v`` (total ``C``) has the Dirichlet-multinomial
marginal likelihood (the Polya or Dirichlet-multinomial distribution of the token
sequence, without the multinomial coefficient)::

    log m(S) = lgamma(B) - lgamma(B + C) + sum_v [lgamma(beta_v + c_v) - lgamma(beta_v)]

with ``B = sum_v beta_v``, and the posterior predictive of point ``x`` (total ``L``)
is the ratio ``m(S + x) / m(S)``::

    lgamma(B + C) - lgamma(B + C + L) + sum_{v: x_v > 0} [lgamma(a_v + x_v) - lgamma(a_v)]

with ``a_v = beta_v + c_v``: a sum over the point's non-zero counts only, so a
predictive costs O(nnz(x)) and adding or removing a point O(nnz(x)) (integer count
updates, exact).

The three moves are those of :mod:`bayeswe.kernels.dp_mixture` with this marginal and
predictive in place of the NIW ones: Neal's (2000) algorithm 3 (:func:`gibbs_sweep`),
Dahl's (2003) sequentially-allocated split-merge with Jain & Neal's (2004)
acceptance ratio (:func:`split_merge`) and Escobar & West's (1995) update of ``alpha``
(:func:`bayeswe.kernels.dp_mixture.sample_alpha`, shared).

Bookkeeping: slot ``k`` keeps its number of points, its total tokens and its
``(V,)`` int32 token counts. Free slots hold zero counts (a cluster emptied by
removals returns to zero exactly), so opening a slot costs nothing; the last three of
the ``N + 3`` slots are the split-merge's scratch clusters, cleared before each
proposal. Memory is ``(N + 3) V`` int32.

Random numbers: one xoshiro256+ state per chain; points visited in index order.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bayeswe.kernels.dp_mixture import _draw_log
from bayeswe.kernels.lda_cgs import next_double

__all__ = [
    "Clusters",
    "Points",
    "Prior",
    "add_point",
    "build_clusters",
    "cluster_log_marginal",
    "gibbs_sweep",
    "log_joint",
    "log_predictive",
    "make_points",
    "make_prior",
    "new_clusters",
    "predictive_log_density",
    "remove_point",
    "split_merge",
]


class Prior(NamedTuple):
    """The Dirichlet prior of the clusters and the gamma prior of alpha."""

    beta: np.ndarray  #: (V,) Dirichlet parameters
    beta_sum: float  #: B = sum_v beta_v
    lgamma_beta: float  #: sum_v lgamma(beta_v)
    alpha_shape: float
    alpha_rate: float


class Points(NamedTuple):
    """Count vectors in CSR form: point ``i`` holds ``word[ptr[i]:ptr[i+1]]`` with
    ``count[ptr[i]:ptr[i+1]]`` (all counts positive), ``length[i]`` tokens in all."""

    ptr: np.ndarray  #: int64 (N + 1,)
    word: np.ndarray  #: int64 (nnz,)
    count: np.ndarray  #: int64 (nnz,)
    length: np.ndarray  #: int64 (N,)


class Clusters(NamedTuple):
    """Per-slot statistics (``N + 3`` slots) and the list of occupied slots."""

    n: np.ndarray  #: int64 (S,): points in the slot
    tokens: np.ndarray  #: int64 (S,): tokens in the slot
    words: np.ndarray  #: int32 (S, V): token counts of each category
    active: np.ndarray  #: int64 (S,): the occupied slots, first ``counts[0]`` valid
    pos: np.ndarray  #: int64 (S,): position of a slot in ``active`` (-1: not occupied)
    free: np.ndarray  #: int64 (S,): stack of free slots, first ``counts[1]`` valid
    counts: np.ndarray  #: int64 (2,): occupied clusters, free slots


def make_prior(beta: np.ndarray, a: float, b: float) -> Prior:
    """The :class:`Prior` of a ``(V,)`` Dirichlet parameter and alpha's gamma prior."""
    beta = np.ascontiguousarray(beta, dtype=np.float64)
    lg = float(sum(math.lgamma(float(x)) for x in beta))
    return Prior(beta, float(beta.sum()), lg, float(a), float(b))


def make_points(ptr: np.ndarray, word: np.ndarray, count: np.ndarray) -> Points:
    """:class:`Points` of CSR arrays (copied to int64)."""
    ptr = np.ascontiguousarray(ptr, dtype=np.int64)
    count = np.ascontiguousarray(count, dtype=np.int64)
    rows = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    length = np.bincount(rows, weights=count, minlength=ptr.size - 1).astype(np.int64)
    return Points(ptr, np.ascontiguousarray(word, dtype=np.int64), count, length)


def new_clusters(N: int, V: int) -> Clusters:
    """Empty slots for ``N`` points (all free, the scratch slots excluded)."""
    S = N + 3
    free = np.arange(N - 1, -1, -1, dtype=np.int64)  # slot 0 popped first
    free = np.concatenate([free, np.zeros(3, dtype=np.int64)])
    return Clusters(
        n=np.zeros(S, dtype=np.int64),
        tokens=np.zeros(S, dtype=np.int64),
        words=np.zeros((S, V), dtype=np.int32),
        active=np.zeros(S, dtype=np.int64),
        pos=np.full(S, -1, dtype=np.int64),
        free=free,
        counts=np.array([0, N], dtype=np.int64),
    )


# --------------------------------------------------------------------------- densities


@njit(cache=True, inline="always")
def _rising(a: float, x: int) -> float:
    # log Gamma(a + x) - log Gamma(a); x = 1 (the common case for text) is log(a)
    if x == 1:
        return math.log(a)
    return math.lgamma(a + x) - math.lgamma(a)


@njit(cache=True)
def log_predictive(prior: Prior, cl: Clusters, k: int, pts: Points, i: int) -> float:
    """``log p(x_i | S_k)``: the Dirichlet-multinomial predictive of slot ``k`` (module
    docstring; the prior's if the slot is empty)."""
    C = prior.beta_sum + cl.tokens[k]
    out = -_rising(C, pts.length[i])
    row = cl.words[k]
    for e in range(pts.ptr[i], pts.ptr[i + 1]):
        v = pts.word[e]
        out += _rising(prior.beta[v] + row[v], pts.count[e])
    return out


@njit(cache=True)
def _prior_predictive(prior: Prior, pts: Points, i: int) -> float:
    out = -_rising(prior.beta_sum, pts.length[i])
    for e in range(pts.ptr[i], pts.ptr[i + 1]):
        out += _rising(prior.beta[pts.word[e]], pts.count[e])
    return out


@njit(cache=True)
def cluster_log_marginal(prior: Prior, cl: Clusters, k: int) -> float:
    """``log m(S_k)`` from slot ``k``'s counts (module docstring); 0 for an empty slot."""
    if cl.n[k] == 0:
        return 0.0
    out = math.lgamma(prior.beta_sum) - math.lgamma(prior.beta_sum + cl.tokens[k])
    row = cl.words[k]
    for v in range(row.shape[0]):
        if row[v] > 0:
            out += _rising(prior.beta[v], row[v])
    return out


# --------------------------------------------------------------------------- bookkeeping


@njit(cache=True)
def add_point(cl: Clusters, k: int, pts: Points, i: int) -> None:
    """Point ``i`` joins slot ``k``."""
    for e in range(pts.ptr[i], pts.ptr[i + 1]):
        cl.words[k, pts.word[e]] += pts.count[e]
    cl.tokens[k] += pts.length[i]
    cl.n[k] += 1


@njit(cache=True)
def remove_point(cl: Clusters, k: int, pts: Points, i: int) -> None:
    """Point ``i`` leaves slot ``k`` (an emptied slot's counts are exactly zero)."""
    for e in range(pts.ptr[i], pts.ptr[i + 1]):
        cl.words[k, pts.word[e]] -= pts.count[e]
    cl.tokens[k] -= pts.length[i]
    cl.n[k] -= 1


@njit(cache=True)
def _clear(cl: Clusters, k: int) -> None:
    cl.n[k] = 0
    cl.tokens[k] = 0
    cl.words[k, :] = 0


@njit(cache=True)
def _copy_slot(cl: Clusters, src: int, dst: int) -> None:
    cl.n[dst] = cl.n[src]
    cl.tokens[dst] = cl.tokens[src]
    cl.words[dst, :] = cl.words[src]


@njit(cache=True)
def _open_slot(cl: Clusters) -> int:
    # free slots hold zero counts already
    cl.counts[1] -= 1
    k = cl.free[cl.counts[1]]
    cl.pos[k] = cl.counts[0]
    cl.active[cl.counts[0]] = k
    cl.counts[0] += 1
    return k


@njit(cache=True)
def _close_slot(cl: Clusters, k: int) -> None:
    last = cl.active[cl.counts[0] - 1]
    p = cl.pos[k]
    cl.active[p] = last
    cl.pos[last] = p
    cl.pos[k] = -1
    cl.counts[0] -= 1
    cl.free[cl.counts[1]] = k
    cl.counts[1] += 1


@njit(cache=True)
def build_clusters(cl: Clusters, pts: Points, z: np.ndarray) -> bool:
    """Fill empty ``cl`` from labels ``z`` (ints in ``[0, N]``); ``z`` becomes slot ids.

    Returns False if a label is out of range.
    """
    N = z.shape[0]
    slot_of = np.full(N + 1, -1, dtype=np.int64)
    for i in range(N):
        lab = z[i]
        if lab < 0 or lab > N:
            return False
        if slot_of[lab] < 0:
            slot_of[lab] = _open_slot(cl)
        k = slot_of[lab]
        add_point(cl, k, pts, i)
        z[i] = k
    return True


# --------------------------------------------------------------------------- moves


@njit(cache=True, nogil=True)
def gibbs_sweep(
    prior: Prior, cl: Clusters, pts: Points, z: np.ndarray, alpha: float, rng: np.ndarray
) -> None:
    """One pass of Neal's algorithm 3 over the points in index order (in place)."""
    N = z.shape[0]
    logp = np.empty(N + 1)
    log_alpha = math.log(alpha)
    for i in range(N):
        k = z[i]
        remove_point(cl, k, pts, i)
        if cl.n[k] == 0:
            _close_slot(cl, k)
        K = cl.counts[0]
        for c in range(K):
            s = cl.active[c]
            logp[c] = math.log(cl.n[s]) + log_predictive(prior, cl, s, pts, i)
        logp[K] = log_alpha + _prior_predictive(prior, pts, i)
        c = _draw_log(logp, K + 1, next_double(rng))
        k = _open_slot(cl) if c == K else cl.active[c]
        add_point(cl, k, pts, i)
        z[i] = k


@njit(cache=True)
def log_joint(prior: Prior, cl: Clusters, N: int, alpha: float) -> float:
    """``log p(x, z, alpha)``: gamma prior, CRP (exchangeable partition), marginals."""
    K = cl.counts[0]
    a, b = prior.alpha_shape, prior.alpha_rate
    out = a * math.log(b) - math.lgamma(a) + (a - 1.0) * math.log(alpha) - b * alpha
    out += K * math.log(alpha) + math.lgamma(alpha) - math.lgamma(alpha + N)
    for c in range(K):
        k = cl.active[c]
        out += math.lgamma(cl.n[k]) + cluster_log_marginal(prior, cl, k)
    return out


@njit(cache=True)
def _allocate(
    prior: Prior,
    cl: Clusters,
    pts: Points,
    members: np.ndarray,
    m: int,
    side: np.ndarray,
    forced: bool,
    rng: np.ndarray,
) -> float:
    """Dahl's sequential allocation of ``members[:m]`` to scratch slots ``N``, ``N + 1``
    (holding the anchors); ``forced``: to ``side[r]``, else drawn into ``side``.
    Returns the log probability of the allocation."""
    N = members.shape[0]
    logq = 0.0
    for r in range(m):
        p = members[r]
        la = math.log(cl.n[N]) + log_predictive(prior, cl, N, pts, p)
        lb = math.log(cl.n[N + 1]) + log_predictive(prior, cl, N + 1, pts, p)
        top = max(la, lb)
        lse = top + math.log(math.exp(la - top) + math.exp(lb - top))
        if not forced:
            side[r] = 0 if next_double(rng) < math.exp(la - lse) else 1
        logq += (la if side[r] == 0 else lb) - lse
        add_point(cl, N + side[r], pts, p)
    return logq


@njit(cache=True, nogil=True)
def split_merge(
    prior: Prior,
    cl: Clusters,
    pts: Points,
    z: np.ndarray,
    alpha: float,
    rng: np.ndarray,
    members: np.ndarray,
    side: np.ndarray,
) -> int:
    """One SAMS split-merge proposal; returns 1 split, -1 merge, 0 none.

    The acceptance ratio of a split is ``alpha Gamma(n_i) Gamma(n_j) / Gamma(n_i + n_j)
    x m(S_i) m(S_j) / m(S_i u S_j) / q(split)`` (its inverse for a merge), as in
    :func:`bayeswe.kernels.dp_mixture.split_merge`. ``members`` and ``side`` are int64
    scratch arrays of length ``N``.
    """
    N = z.shape[0]
    if N < 2:
        return 0
    i = int(next_double(rng) * N)
    j = int(next_double(rng) * (N - 1))
    j += j >= i
    ci, cj = z[i], z[j]
    m = 0
    for p in range(N):  # the other points of the two clusters, in a random order
        if (z[p] == ci or z[p] == cj) and p != i and p != j:
            r = int(next_double(rng) * (m + 1))  # inside-out Fisher-Yates shuffle
            members[m] = members[r]
            side[m] = side[r]
            members[r] = p
            side[r] = 0 if z[p] == ci else 1
            m += 1
    for s in range(N, N + 3):
        _clear(cl, s)
    add_point(cl, N, pts, i)
    add_point(cl, N + 1, pts, j)
    logq = _allocate(prior, cl, pts, members, m, side, ci != cj, rng)
    na, nb = cl.n[N], cl.n[N + 1]
    if ci == cj:
        merged = cluster_log_marginal(prior, cl, ci)
    else:
        _copy_slot(cl, ci, N + 2)
        for e in range(cl.words.shape[1]):
            cl.words[N + 2, e] += cl.words[cj, e]
        cl.n[N + 2] += cl.n[cj]
        cl.tokens[N + 2] += cl.tokens[cj]
        merged = cluster_log_marginal(prior, cl, N + 2)
    log_split = (
        math.log(alpha)
        + math.lgamma(na)
        + math.lgamma(nb)
        - math.lgamma(na + nb)
        + cluster_log_marginal(prior, cl, N)
        + cluster_log_marginal(prior, cl, N + 1)
        - merged
    )
    u = 1.0 - next_double(rng)
    if ci == cj:
        if math.log(u) >= log_split - logq:
            return 0
        k = _open_slot(cl)
        _copy_slot(cl, N, ci)
        _copy_slot(cl, N + 1, k)
        z[j] = k
        for r in range(m):
            if side[r] == 1:
                z[members[r]] = k
        return 1
    if math.log(u) >= logq - log_split:
        return 0
    _copy_slot(cl, N + 2, ci)
    _clear(cl, cj)
    _close_slot(cl, cj)
    z[j] = ci
    for r in range(m):
        z[members[r]] = ci
    return -1


@njit(cache=True, nogil=True)
def predictive_log_density(
    prior: Prior, cl: Clusters, N: int, alpha: float, held: Points, out: np.ndarray
) -> None:
    """``log p(x_m | z, x, alpha)`` of each held-out point into ``out`` (label-free).

    ``sum_k n_k / (N + alpha) DirMult_k(x) + alpha / (N + alpha) DirMult_0(x)``: the
    density of a new point's token sequence given the partition, Rao-Blackwellised over
    the clusters' probabilities and the new point's cluster.
    """
    K = cl.counts[0]
    logp = np.empty(K + 1)
    norm = math.log(N + alpha)
    for r in range(held.length.shape[0]):
        for c in range(K):
            k = cl.active[c]
            logp[c] = math.log(cl.n[k]) + log_predictive(prior, cl, k, held, r)
        logp[K] = math.log(alpha) + _prior_predictive(prior, held, r)
        top = logp[0]
        for c in range(1, K + 1):
            top = max(top, logp[c])
        s = 0.0
        for c in range(K + 1):
            s += math.exp(logp[c] - top)
        out[r] = top + math.log(s) - norm
