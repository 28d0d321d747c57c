"""Kernels of the sparse Laplace approximation of identified SGNS (section 3.1, App. B).

The negative log posterior of ``models/sgns_identified.stan`` is

    f(theta) = sum_p [n_p log(1 + e^{x_p}) - n_pos_p x_p]
               + (|rho|^2 + |alpha_free|^2) / (2 lambda^2),   x_p = rho_w . alpha_c,

and its Hessian (eqs. (30)-(33), here for the aggregated likelihood eq. (5), negative
samples included) has one ``K x K`` block per pair of vectors:

* ``rho_w``-``rho_w``: ``sum_{p: w_p = w} n_p s'_p alpha_c alpha_c' + I / lambda^2``;
* ``alpha_c``-``alpha_c`` (free ``c``): ``sum_{p: c_p = c} n_p s'_p rho_w rho_w' + I / lambda^2``;
* ``rho_w``-``alpha_c`` (free ``c``, rows of ``rho_w``, columns of ``alpha_c``):
  ``sum_p n_p s'_p alpha_c rho_w' + (n_p s_p - n_pos_p) I``;

with ``s_p = sigma(x_p)`` and ``s'_p = s_p (1 - s_p)``; every other block is zero.
(Eq. (31) of the paper states the cross block for the positives with the opposite sign
of the identity term; the derivative of the gradient ``sum_p (n_p s_p - n_pos_p)
alpha_c`` with respect to ``alpha_c`` gives the sign above, which the tests check
against finite differences and against Stan's ``laplace``.)

Variables are numbered ``rho`` row-major (``w * K + k``), then ``alpha_free``
row-major (``V * K + j * K + k`` for the ``j``-th free word). The *block pattern* is
the symmetric pattern of the ``nb = V + V_free`` vectors in CSC form (``bptr``,
``brow``, rows sorted within a column, the diagonal always present); the scalar matrix
stores every block dense, so column ``b * K + kc`` holds ``K * deg(b)`` entries:
the ``K`` rows of each neighbour block in block order.

Every kernel is parallel over block columns (``prange``); a column is written by one
thread only, summing its pairs in their stored order, so the values are bitwise
identical for any number of threads.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from bayeswe.kernels.pg_gibbs import log_joint

__all__ = [
    "csc_structure",
    "diagonal_blocks",
    "hessian_values",
    "log_joint_draws",
]


@njit(cache=True, inline="always")
def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@njit(cache=True, inline="always")
def _dot(a: np.ndarray, b: np.ndarray) -> float:
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k] * b[k]
    return s


@njit(parallel=True, cache=True)
def csc_structure(bptr: np.ndarray, brow: np.ndarray, K: int, out_ptr: np.ndarray,
                  out_idx: np.ndarray) -> None:  # fmt: skip
    """Scalar CSC ``indptr``/``indices`` of the block pattern with dense ``K x K`` blocks.

    ``out_ptr`` has ``nb * K + 1`` entries and ``out_idx`` ``K^2 * bptr[-1]`` (either
    ``int32`` or ``int64``).
    """
    nb = bptr.shape[0] - 1
    out_ptr[0] = 0
    for b in prange(nb):
        deg = bptr[b + 1] - bptr[b]
        base = K * K * bptr[b]
        for kc in range(K):
            start = base + kc * K * deg
            out_ptr[b * K + kc + 1] = start + K * deg
            for s in range(deg):
                r0 = brow[bptr[b] + s] * K
                for kr in range(K):
                    out_idx[start + s * K + kr] = r0 + kr


@njit(parallel=True, cache=True)
def hessian_values(
    rho: np.ndarray,
    alpha: np.ndarray,
    t_ptr: np.ndarray,
    t_context: np.ndarray,
    t_slot: np.ndarray,
    t_free: np.ndarray,
    c_ptr: np.ndarray,
    c_pair: np.ndarray,
    c_target: np.ndarray,
    c_slot: np.ndarray,
    free_index: np.ndarray,
    n: np.ndarray,
    n_pos: np.ndarray,
    bptr: np.ndarray,
    diag_slot: np.ndarray,
    prior_precision: float,
    out: np.ndarray,
) -> None:
    """Values of the Hessian of ``f`` (module docstring) in the layout of :func:`csc_structure`.

    Parameters
    ----------
    rho, alpha
        ``V x K`` matrices at which ``H`` is evaluated (``alpha`` with its fixed rows).
    t_ptr, t_context, t_slot, t_free
        Pairs sorted by target: ``rho_w`` owns pairs ``t_ptr[w]:t_ptr[w + 1]``, with
        context word ``t_context[p]``, ``t_free[p]`` 1 when that word is free, and
        ``t_slot[p]`` the slot of ``alpha_c``'s block in column ``w``.
    c_ptr, c_pair, c_target, c_slot
        The pairs of free word ``free_index[j]`` are ``c_pair[c_ptr[j]:c_ptr[j + 1]]``
        (indices into the target-sorted pairs) with targets ``c_target``; ``c_slot``
        is the slot of ``rho_w``'s block in column ``V + j``.
    free_index
        The free words, in ``alpha_free`` order.
    n, n_pos
        Counts of the target-sorted pairs.
    bptr, diag_slot
        Block pattern pointers and the slot of each column's diagonal block.
    prior_precision
        ``lambda^-2``.
    out
        The ``K^2 * bptr[-1]`` values, overwritten.

    References
    ----------
    Appendix B, eqs. (30)-(33) (signs as in the module docstring).
    """
    V, K = rho.shape
    nb = bptr.shape[0] - 1
    for b in prange(nb):
        deg = bptr[b + 1] - bptr[b]
        base = K * K * bptr[b]
        col = K * deg  # stride between the scalar columns of block column b
        for i in range(K * K * deg):
            out[base + i] = 0.0
        d0 = base + diag_slot[b] * K
        if b < V:
            w = b
            u = rho[w]
            for p in range(t_ptr[w], t_ptr[w + 1]):
                a = alpha[t_context[p]]
                s = _sigmoid(_dot(u, a))
                c2 = n[p] * s * (1.0 - s)
                # c2 * (a_r a_c): the product commutes, so H is bitwise symmetric
                for kc in range(K):
                    for kr in range(K):
                        out[d0 + kc * col + kr] += c2 * (a[kr] * a[kc])
                if t_free[p]:
                    # rows alpha_c, column rho_w: H[alpha_c kr, rho_w kc]
                    #   = n s' alpha_c[kc] rho_w[kr] + (n s - n_pos) delta
                    r = n[p] * s - n_pos[p]
                    o0 = base + t_slot[p] * K
                    for kc in range(K):
                        for kr in range(K):
                            out[o0 + kc * col + kr] += c2 * (a[kc] * u[kr])
                        out[o0 + kc * col + kc] += r
        else:
            j = b - V
            u = alpha[free_index[j]]
            for q in range(c_ptr[j], c_ptr[j + 1]):
                p = c_pair[q]
                t = rho[c_target[q]]
                s = _sigmoid(_dot(t, u))
                c2 = n[p] * s * (1.0 - s)
                r = n[p] * s - n_pos[p]
                o0 = base + c_slot[q] * K
                for kc in range(K):
                    for kr in range(K):
                        out[d0 + kc * col + kr] += c2 * (t[kr] * t[kc])
                        # rows rho_w, column alpha_c: H[rho_w kr, alpha_c kc]
                        #   = n s' alpha_c[kr] rho_w[kc] + (n s - n_pos) delta
                        out[o0 + kc * col + kr] += c2 * (u[kr] * t[kc])
                    out[o0 + kc * col + kc] += r
        for k in range(K):
            out[d0 + k * col + k] += prior_precision


@njit(parallel=True, cache=True)
def diagonal_blocks(
    rho: np.ndarray,
    alpha: np.ndarray,
    t_ptr: np.ndarray,
    t_context: np.ndarray,
    c_ptr: np.ndarray,
    c_pair: np.ndarray,
    c_target: np.ndarray,
    free_index: np.ndarray,
    n: np.ndarray,
    prior_precision: float,
) -> np.ndarray:
    """The ``nb`` diagonal ``K x K`` blocks of ``H`` (eq. (30) and its ``alpha`` twin).

    Arguments as for :func:`hessian_values`. Returns ``(V + V_free, K, K)``.
    """
    V, K = rho.shape
    nb = V + free_index.shape[0]
    out = np.zeros((nb, K, K))
    for b in prange(nb):
        blk = out[b]
        if b < V:
            u = rho[b]
            for p in range(t_ptr[b], t_ptr[b + 1]):
                a = alpha[t_context[p]]
                s = _sigmoid(_dot(u, a))
                c2 = n[p] * s * (1.0 - s)
                for i in range(K):
                    for k in range(K):
                        blk[i, k] += c2 * (a[k] * a[i])
        else:
            j = b - V
            u = alpha[free_index[j]]
            for q in range(c_ptr[j], c_ptr[j + 1]):
                t = rho[c_target[q]]
                p = c_pair[q]
                s = _sigmoid(_dot(t, u))
                c2 = n[p] * s * (1.0 - s)
                for i in range(K):
                    for k in range(K):
                        blk[i, k] += c2 * (t[k] * t[i])
        for k in range(K):
            blk[k, k] += prior_precision
    return out


@njit(parallel=True, cache=True)
def log_joint_draws(
    rho: np.ndarray,
    alpha: np.ndarray,
    free_index: np.ndarray,
    t_ptr: np.ndarray,
    t_context: np.ndarray,
    n: np.ndarray,
    n_pos: np.ndarray,
    prior_precision: float,
) -> np.ndarray:
    """Stan's ``lp__`` of each draw ``rho[d], alpha[d]`` (``(draws, V, K)`` each)."""
    out = np.empty(rho.shape[0])
    for d in prange(rho.shape[0]):
        out[d] = log_joint(rho[d], alpha[d], free_index, t_ptr, t_context, n, n_pos,
                           prior_precision)  # fmt: skip
    return out
