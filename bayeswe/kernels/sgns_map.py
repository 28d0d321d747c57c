"""Numba kernel of :mod:`bayeswe.samplers.sgns_map`: the SGNS negative log posterior and
its gradient, in one pass over the pairs by target and one by context.

Each word's sums run over its own pairs in a fixed order and the per-word terms are
added in word order, so the value and the gradient are the same for any thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _softplus(x: float) -> float:
    # log(1 + exp(x)) without overflow
    if x > 0.0:
        return x + np.log1p(np.exp(-x))
    return np.log1p(np.exp(x))


@njit(cache=True, inline="always")
def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + np.exp(-x))
    e = np.exp(x)
    return e / (1.0 + e)


@njit(parallel=True, cache=True)
def loss_and_gradient(
    rho: np.ndarray,
    alpha: np.ndarray,
    t_ptr: np.ndarray,
    t_context: np.ndarray,
    t_n: np.ndarray,
    t_pos: np.ndarray,
    c_ptr: np.ndarray,
    c_target: np.ndarray,
    c_n: np.ndarray,
    c_pos: np.ndarray,
    free: np.ndarray,
    precision: float,
    grad_rho: np.ndarray,
    grad_alpha: np.ndarray,
) -> float:
    """``-log p(rho, alpha | D)`` up to a constant (eq. (5) and the N(0, 1/precision)
    prior on ``rho`` and the free rows of ``alpha``) and its gradient (written in place;
    zero for the fixed rows of ``alpha``)."""
    V, K = rho.shape
    per_word = np.zeros(2 * V)
    for w in prange(V):
        total = 0.0
        for k in range(K):
            grad_rho[w, k] = precision * rho[w, k]
            total += 0.5 * precision * rho[w, k] * rho[w, k]
        for j in range(t_ptr[w], t_ptr[w + 1]):
            c = t_context[j]
            x = 0.0
            for k in range(K):
                x += rho[w, k] * alpha[c, k]
            total += t_n[j] * _softplus(x) - t_pos[j] * x
            s = t_n[j] * _sigmoid(x) - t_pos[j]
            for k in range(K):
                grad_rho[w, k] += s * alpha[c, k]
        per_word[w] = total
    for c in prange(V):
        if not free[c]:
            for k in range(K):
                grad_alpha[c, k] = 0.0
            continue
        total = 0.0
        for k in range(K):
            grad_alpha[c, k] = precision * alpha[c, k]
            total += 0.5 * precision * alpha[c, k] * alpha[c, k]
        for j in range(c_ptr[c], c_ptr[c + 1]):
            w = c_target[j]
            x = 0.0
            for k in range(K):
                x += rho[w, k] * alpha[c, k]
            s = c_n[j] * _sigmoid(x) - c_pos[j]
            for k in range(K):
                grad_alpha[c, k] += s * rho[w, k]
        per_word[V + c] = total
    out = 0.0
    for i in range(2 * V):
        out += per_word[i]
    return out
