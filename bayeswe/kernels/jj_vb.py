"""Kernels of mean-field VB for SGNS with the Jaakkola–Jordan bound (thesis ch. 4.9).

The likelihood of pair ``p`` (target ``w``, context ``c``, ``n_p`` observations of which
``n_pos_p`` positive) is bounded with one variational parameter ``xi_p``
(Jaakkola and Jordan 2000; Sakaya's thesis, section 4.5)::

    n_pos log s(x) + (n - n_pos) log s(-x)
        >= n (log s(xi) - xi / 2 + lam(xi) xi^2) + kappa x - n lam(xi) x^2,

with ``x = rho_w' alpha_c``, ``kappa = n_pos - n / 2`` and
``lam(xi) = tanh(xi / 2) / (4 xi)``. Under this Gaussian-form bound every vector's
factor of ``q`` is Gaussian with natural parameters (thesis eqs. (*) of section 4.9.1
and 4.9.2, without the biases)::

    precision = diag(prior) + scale * sum_p 2 n_p lam(xi_p) E[o o']
    linear    =               scale * sum_p kappa_p E[o],

``o`` the other vector of pair ``p``. :func:`natural_params` accumulates them over CSR
pair lists (one row per vector), :func:`moments_from_natural` turns them into the mean,
covariance and ``log det`` covariance, :func:`xi_update` sets ``xi_p^2 = E_q[x_p^2]``
(section 4.9.4) and returns each pair's bound at that ``xi``.

Every kernel loops over rows or pairs with ``prange``; each iteration writes only its
own row or pair and sums serially in a fixed order, so the results do not depend on the
number of threads.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = [
    "jj_lambda",
    "log_sigmoid",
    "moments_from_natural",
    "natural_params",
    "second_moments",
    "xi_update",
]

#: Below this ``xi`` ``tanh(xi / 2) / (4 xi)`` is replaced by its series
#: ``1/8 - xi^2 / 96`` (relative error below 1e-17; the quotient loses digits there).
XI_SERIES: float = 1e-4


@njit(cache=True, inline="always")
def jj_lambda(xi: float) -> float:
    """``lambda(xi) = tanh(xi / 2) / (4 xi)`` (thesis section 4.5), even in ``xi``."""
    a = abs(xi)
    if a < XI_SERIES:
        return 0.125 - a * a / 96.0
    return math.tanh(0.5 * a) / (4.0 * a)


@njit(cache=True, inline="always")
def log_sigmoid(x: float) -> float:
    """``log(1 / (1 + exp(-x)))`` without overflow."""
    if x >= 0.0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


@njit(parallel=True, cache=True)
def second_moments(mean: np.ndarray, cov: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    """``out[v] = mean[v] mean[v]' + cov[v]`` (``E[o o']`` under ``q``) for ``v`` in ``rows``."""
    K = mean.shape[1]
    for i in prange(rows.shape[0]):
        v = rows[i]
        for r in range(K):
            for c in range(K):
                out[v, r, c] = mean[v, r] * mean[v, c] + cov[v, r, c]


@njit(parallel=True, cache=True)
def natural_params(
    rows: np.ndarray,
    ptr: np.ndarray,
    pair: np.ndarray,
    other: np.ndarray,
    n: np.ndarray,
    kappa: np.ndarray,
    lam: np.ndarray,
    moments: np.ndarray,
    means: np.ndarray,
    prior: np.ndarray,
    scale: np.ndarray,
    prec_out: np.ndarray,
    lin_out: np.ndarray,
) -> None:
    """Natural parameters of ``q`` for the vectors ``rows`` (thesis section 4.9.1-4.9.2).

    For row ``i`` (vector ``v = rows[i]``) with block entries ``j`` in
    ``ptr[i]:ptr[i+1]`` (data pair ``p = pair[j]``, other vector ``o = other[j]``)::

        prec_out[v] = diag(prior) + scale[i] * sum_j 2 n_p lam_p moments[o]
        lin_out[v]  =               scale[i] * sum_j kappa_p means[o]

    ``n``, ``kappa`` and ``lam`` (``lambda(xi_p)``) are in data-pair order. ``scale`` is 1
    for the batch update and the mini-batch factor of the stochastic update (thesis
    Algorithm 3, lines 3 and 15-16). The full matrix is written (symmetric).
    """
    K = means.shape[1]
    for i in prange(rows.shape[0]):
        v = rows[i]
        acc = np.zeros((K, K))
        b = np.zeros(K)
        for j in range(ptr[i], ptr[i + 1]):
            p = pair[j]
            o = other[j]
            wgt = 2.0 * n[p] * lam[p]
            kp = kappa[p]
            for r in range(K):
                b[r] += kp * means[o, r]
                for c in range(r + 1):
                    acc[r, c] += wgt * moments[o, r, c]
        s = scale[i]
        for r in range(K):
            lin_out[v, r] = s * b[r]
            for c in range(r):
                x = s * acc[r, c]
                prec_out[v, r, c] = x
                prec_out[v, c, r] = x
            prec_out[v, r, r] = prior[r] + s * acc[r, r]


@njit(parallel=True, cache=True)
def moments_from_natural(
    rows: np.ndarray,
    prec: np.ndarray,
    lin: np.ndarray,
    mean_out: np.ndarray,
    cov_out: np.ndarray,
    logdet_out: np.ndarray,
) -> int:
    """Mean ``prec^-1 lin``, covariance ``prec^-1`` and ``log det prec^-1`` of rows ``rows``.

    Through the lower Cholesky factor ``L`` of the precision: the mean by two triangular
    solves, the covariance as ``L^-T L^-1`` (lower triangle computed, mirrored, so it is
    exactly symmetric) and ``log det = -2 sum log L_ii``. Returns the number of rows
    whose precision is not numerically positive definite (those rows are left as they
    were).
    """
    K = lin.shape[1]
    failed = np.zeros(rows.shape[0], dtype=np.int64)
    for i in prange(rows.shape[0]):
        v = rows[i]
        chol = np.zeros((K, K))
        ok = True
        for j in range(K):
            d = prec[v, j, j]
            for k in range(j):
                d -= chol[j, k] * chol[j, k]
            if not d > 0.0:
                ok = False
                break
            d = math.sqrt(d)
            chol[j, j] = d
            for r in range(j + 1, K):
                s = prec[v, r, j]
                for k in range(j):
                    s -= chol[r, k] * chol[j, k]
                chol[r, j] = s / d
        if not ok:
            failed[i] = 1
            continue
        # inv = L^-1 (lower triangular), column by column
        inv = np.zeros((K, K))
        for c in range(K):
            inv[c, c] = 1.0 / chol[c, c]
            for r in range(c + 1, K):
                s = 0.0
                for k in range(c, r):
                    s -= chol[r, k] * inv[k, c]
                inv[r, c] = s / chol[r, r]
        # mean = L^-T (L^-1 lin)
        z = np.zeros(K)
        for r in range(K):
            s = 0.0
            for k in range(r + 1):
                s += inv[r, k] * lin[v, k]
            z[r] = s
        logdet = 0.0
        for r in range(K):
            s = 0.0
            for k in range(r, K):
                s += inv[k, r] * z[k]
            mean_out[v, r] = s
            logdet -= 2.0 * math.log(chol[r, r])
        # cov = L^-T L^-1: cov[r, c] = sum_{k >= max(r, c)} inv[k, r] inv[k, c]
        for r in range(K):
            for c in range(r + 1):
                s = 0.0
                for k in range(r, K):
                    s += inv[k, r] * inv[k, c]
                cov_out[v, r, c] = s
                cov_out[v, c, r] = s
        logdet_out[v] = logdet
    return int(failed.sum())


@njit(parallel=True, cache=True)
def xi_update(
    pairs: np.ndarray,
    target: np.ndarray,
    context: np.ndarray,
    n: np.ndarray,
    kappa: np.ndarray,
    rho_mean: np.ndarray,
    rho_moments: np.ndarray,
    alpha_mean: np.ndarray,
    alpha_moments: np.ndarray,
    xi: np.ndarray,
    lam: np.ndarray,
    bound_out: np.ndarray,
) -> None:
    """Optimal ``xi_p = sqrt(E_q[x_p^2])`` (thesis sections 4.9.4-4.9.5) for data pairs ``pairs``.

    ``E_q[x^2] = tr(E[rho rho'] E[alpha alpha'])`` under the mean field. Writes
    ``xi[p]``, ``lam[p] = lambda(xi_p)`` and ``bound_out[j]`` (``j`` the position in
    ``pairs``): the expected Jaakkola–Jordan bound of the pair's ``n_p`` observations at
    the new ``xi``, ``n (log s(xi) - xi/2 + lam xi^2) + kappa E[x] - n lam E[x^2]``.
    """
    K = rho_mean.shape[1]
    for j in prange(pairs.shape[0]):
        p = pairs[j]
        w = target[p]
        c = context[p]
        ex = 0.0
        for r in range(K):
            ex += rho_mean[w, r] * alpha_mean[c, r]
        ex2 = 0.0
        for r in range(K):
            for s in range(K):
                ex2 += rho_moments[w, r, s] * alpha_moments[c, r, s]
        # both factors are positive semidefinite: a negative trace is rounding
        ex2 = max(ex2, 0.0)
        x = math.sqrt(ex2)
        lm = jj_lambda(x)
        xi[p] = x
        lam[p] = lm
        bound_out[j] = (
            n[p] * (log_sigmoid(x) - 0.5 * x + lm * x * x) + kappa[p] * ex - n[p] * lm * ex2
        )
