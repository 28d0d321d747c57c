"""Held-out inference with the topics fixed (section 5.2, "G-LDA (fix)").

:func:`sweep_fixed` Gibbs-samples the topics of new documents' tokens from
precomputed per-(word, topic) log densities; used by
:func:`bayeswe.glda.inference.infer_theta`. :func:`completion_log_density` scores
held-out tokens of the training documents (document completion) under one state.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bayeswe.kernels.glda.common import _sample_log, log_t, rand_uniform

__all__ = [
    "completion_log_density",
    "sweep_fixed",
]


@njit(cache=True, nogil=True)
def sweep_fixed(
    tok_doc: np.ndarray,
    tok_word: np.ndarray,
    z: np.ndarray,
    loglik: np.ndarray,
    alpha: np.ndarray,
    n_dk: np.ndarray,
    rng: np.ndarray,
    logw: np.ndarray,
) -> None:
    """Gibbs pass over held-out tokens with the topics fixed (section 5.2, "G-LDA (fix)").

    ``p(z_i = k) ∝ (n_dk + alpha_k) exp(loglik[w_i, k])`` with ``theta_d`` integrated out
    and ``loglik`` the per-(word type, topic) log density of the learned topics.
    """
    K = alpha.shape[0]
    for i in range(z.shape[0]):
        d = tok_doc[i]
        w = tok_word[i]
        n_dk[d, z[i]] -= 1
        for k in range(K):
            logw[k] = math.log(n_dk[d, k] + alpha[k]) + loglik[w, k]
        new = _sample_log(logw, K, rand_uniform(rng))
        n_dk[d, new] += 1
        z[i] = new


@njit(cache=True, nogil=True)
def completion_log_density(
    held_doc: np.ndarray,
    held_word: np.ndarray,
    emb: np.ndarray,
    n_dk: np.ndarray,
    alpha: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
) -> float:
    """Sum over held-out tokens of ``log sum_k theta_dk t_k(v)`` under one state.

    ``theta_dk = (n_dk + alpha_k) / (n_d + sum(alpha))`` is the posterior mean of the
    document's proportions given its training tokens' topics and ``t_k`` the topic's
    posterior-predictive t density of eq. (1), both from the state's counts and
    factors (the t constants must be current: :func:`resync_topics`). Densities of a
    word type are computed once per call and reused by its other held-out tokens.
    """
    n_docs, K = n_dk.shape
    D = emb.shape[1]
    V = emb.shape[0]
    sa = 0.0
    for k in range(K):
        sa += alpha[k]
    # only the word types that occur among the held-out tokens get densities
    slot = np.full(V, -1, dtype=np.int64)
    n_types = 0
    for i in range(held_word.shape[0]):
        if slot[held_word[i]] < 0:
            slot[held_word[i]] = n_types
            n_types += 1
    logt = np.empty((n_types, K))
    y = np.empty(D)
    for w in range(V):
        s = slot[w]
        if s >= 0:
            for k in range(K):
                logt[s, k] = log_t(k, emb[w], mu, R, invd, tconst, tscale, texp, y)
    total = 0.0
    for i in range(held_doc.shape[0]):
        d = held_doc[i]
        s = slot[held_word[i]]
        nd = 0
        for k in range(K):
            nd += n_dk[d, k]
        top = -np.inf
        for k in range(K):
            if logt[s, k] > top:
                top = logt[s, k]
        acc = 0.0
        for k in range(K):
            acc += (n_dk[d, k] + alpha[k]) * math.exp(logt[s, k] - top)
        total += top + math.log(acc / (nd + sa))
    return total
