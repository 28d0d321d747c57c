"""The precision cache of the Gaussian LDA samplers: densities by dot products.

Used by :func:`.cgs.sweep_cgs_precision` (``method="cgs"`` with the default
``density="precision"``) and by :mod:`.alias` with ``precision=True``
(``method="alias-mh"``, default density); the driver fills the cache with
:func:`precision_from_factor` at the start of every sweep.

Density evaluation. Besides the factor, the samplers keep (by default) a *precision
cache*: ``P_k = Psi_k^{-1}``, its upper triangle packed with doubled off-diagonals, ``P_k
mu_k`` and ``mu_k' P_k mu_k``. Then ``(x - mu_k)' P_k (x - mu_k)`` for all K topics is the
packed outer product of ``x`` dotted with each topic's packed ``P_k`` plus two cheap
terms (:func:`all_topics_quad`): contiguous dot products that vectorize, where a forward
substitution is ``D`` dependent steps. The cache is rebuilt from the factors at the start
of every sweep (so it is a function of the checkpointed state), follows each move by
Sherman-Morrison and is recomputed from the factor after every
:data:`PRECISION_REFRESH` moves of a topic, so its rounding error stays ~1e-10. The
forward-substitution kernels remain (``density="solve"`` in the driver).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bayeswe.kernels.glda.common import topic_move
from bayeswe.kernels.glda.structs import PrecisionCache, Topics

__all__ = [
    "PRECISION_REFRESH",
    "all_topics_quad",
    "precision_from_factor",
    "topic_move_precision",
]


# Moves of a topic between two exact refreshes of its precision from the factor.
PRECISION_REFRESH = 128

# Reassociation (and FMA contraction) let LLVM vectorize the dot products' reductions;
# no flag that assumes finite values, so a NaN or inf would still propagate.
_DOT_FLAGS = {"reassoc", "contract", "nsz", "arcp"}


@njit(cache=True, fastmath=_DOT_FLAGS)
def precision_from_factor(
    k: int,
    R: np.ndarray,
    mu: np.ndarray,
    P: np.ndarray,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    W: np.ndarray,
) -> None:
    """``P_k = Psi_k^{-1} = R_k^{-1} R_k^{-T}`` from the factor, O(D^3), and its packed forms.

    ``W`` is ``(D, D)`` scratch (receives ``R_k^{-1}``, upper triangular). ``Pp[k]``
    holds the upper triangle row by row with the off-diagonal entries doubled, so that
    ``x' P_k x = Pp[k] . xx`` with ``xx[(a, b)] = x_a x_b`` (``a <= b``, same order);
    ``Pmu[k] = P_k mu_k`` and ``muPmu[k] = mu_k' P_k mu_k``.
    """
    Rk = R[k]
    D = Rk.shape[0]
    for j in range(D):
        for i in range(j + 1, D):
            W[i, j] = 0.0
        W[j, j] = 1.0 / Rk[j, j]
        for i in range(j - 1, -1, -1):
            s = 0.0
            for m in range(i + 1, j + 1):
                s += Rk[i, m] * W[m, j]
            W[i, j] = -s / Rk[i, i]
    Pk = P[k]
    for a in range(D):
        for b in range(a, D):
            s = 0.0
            for m in range(b, D):
                s += W[a, m] * W[b, m]
            Pk[a, b] = s
            Pk[b, a] = s
    _precision_derived(k, mu, P, Pp, Pmu, muPmu)


@njit(cache=True, inline="always")
def _precision_derived(
    k: int, mu: np.ndarray, P: np.ndarray, Pp: np.ndarray, Pmu: np.ndarray, muPmu: np.ndarray
) -> None:
    # Pp[k], Pmu[k], muPmu[k] from the full P[k] and mu[k], O(D^2)
    Pk = P[k]
    m_k = mu[k]
    D = Pk.shape[0]
    pk = Pp[k]
    off = 0
    c = 0.0
    for a in range(D):
        row = Pk[a]
        n = D - a
        seg = pk[off : off + n]  # row views vectorize, as in _outer_packed
        tail = row[a:]
        seg[0] = tail[0]
        for b in range(1, n):
            seg[b] = 2.0 * tail[b]
        off += n
        s = 0.0
        for b in range(D):
            s += row[b] * m_k[b]
        Pmu[k, a] = s
        c += m_k[a] * s
    muPmu[k] = c


@njit(cache=True, inline="always")
def _precision_rank1(Pk: np.ndarray, u: np.ndarray, coef: float, g: np.ndarray) -> None:
    # Sherman-Morrison: (Psi + coef u u')^{-1} = P - coef (P u)(P u)' / (1 + coef u' P u)
    D = Pk.shape[0]
    s = 0.0
    for a in range(D):
        row = Pk[a]
        t = 0.0
        for b in range(D):
            t += row[b] * u[b]
        g[a] = t
        s += u[a] * t
    f = coef / (1.0 + coef * s)
    for a in range(D):
        ga = f * g[a]
        row = Pk[a]
        for b in range(D):
            row[b] -= ga * g[b]


@njit(cache=True)
def _outer_packed(x: np.ndarray, xx: np.ndarray) -> None:
    # xx[(a, b)] = x_a x_b for a <= b, rows of the upper triangle in order. Written
    # through row views: with them LLVM vectorizes the short rows (5x faster at D=50
    # than indexing xx with a running offset).
    D = x.shape[0]
    off = 0
    for a in range(D):
        xa = x[a]
        n = D - a
        seg = xx[off : off + n]
        xs = x[a:]
        for b in range(n):
            seg[b] = xa * xs[b]
        off += n


@njit(cache=True, fastmath=_DOT_FLAGS)
def _one_topic_quad(
    k: int, x: np.ndarray, Pp: np.ndarray, Pmu: np.ndarray, muPmu: np.ndarray, xx: np.ndarray
) -> float:
    # (x - mu_k)' P_k (x - mu_k) from the packed outer product xx of x (see all_topics_quad)
    pk = Pp[k]
    s = 0.0
    for t in range(xx.shape[0]):
        s += pk[t] * xx[t]
    pm = Pmu[k]
    s2 = 0.0
    for a in range(x.shape[0]):
        s2 += pm[a] * x[a]
    return s - 2.0 * s2 + muPmu[k]


@njit(cache=True, fastmath=_DOT_FLAGS)
def all_topics_quad(
    x: np.ndarray, Pp: np.ndarray, Pmu: np.ndarray, muPmu: np.ndarray, xx: np.ndarray, Q: np.ndarray
) -> None:
    """``Q[k] = (x - mu_k)' Psi_k^{-1} (x - mu_k)`` for every topic, O(K D^2 / 2).

    Expanded as ``x' P_k x - 2 x' P_k mu_k + mu_k' P_k mu_k``: the packed outer product
    ``xx`` of ``x`` is formed once, and each topic costs one contiguous dot product of
    length ``D (D + 1) / 2`` (SIMD, no dependency chain), where the forward substitution
    of :func:`.common._forward_sqnorm` is ``D`` dependent steps.
    """
    K = Pp.shape[0]
    D = x.shape[0]
    _outer_packed(x, xx)
    M = xx.shape[0]
    for k in range(K):
        pk = Pp[k]
        s = 0.0
        for t in range(M):
            s += pk[t] * xx[t]
        pm = Pmu[k]
        s2 = 0.0
        for a in range(D):
            s2 += pm[a] * x[a]
        Q[k] = s - 2.0 * s2 + muPmu[k]


@njit(cache=True, fastmath=_DOT_FLAGS)
def topic_move_precision(
    k: int,
    x: np.ndarray,
    sign: float,
    topics: Topics,
    cache: PrecisionCache,
    work: np.ndarray,
) -> None:
    """:func:`.common.topic_move` plus the same rank-1 change applied to the precision cache.

    Token vector ``x`` joins (``sign=1``) or leaves (``sign=-1``) topic ``k``: the
    factor and constants in ``topics`` follow by eq. (4); the cache follows the factor
    by Sherman-Morrison (O(D^2)), and every :data:`PRECISION_REFRESH` moves of topic
    ``k`` is recomputed from the factor (:func:`precision_from_factor`), so its
    rounding error cannot grow with the run. ``work`` needs ``3 * D`` floats.
    """
    D = x.shape[0]
    mu, R = topics.mu, topics.R
    P, Pp, Pmu, muPmu, moves = cache.P, cache.Pp, cache.Pmu, cache.muPmu, cache.moves
    kap = topics.kappa_k[k]
    scale = kap / (kap + sign)
    topic_move(k, x, sign, mu, R, topics.invd, topics.logdet, topics.kappa_k, topics.nu_k,
               topics.tconst, topics.tscale, topics.texp, work)  # fmt: skip
    moves[k] += 1
    if moves[k] >= PRECISION_REFRESH:
        moves[k] = 0
        precision_from_factor(k, R, mu, P, Pp, Pmu, muPmu, cache.W)
        return
    # topic_move leaves u = x - mu_k (the old mean) in work[D:2D]
    _precision_rank1(P[k], work[D : 2 * D], sign * scale, work[2 * D : 3 * D])
    _precision_derived(k, mu, P, Pp, Pmu, muPmu)
