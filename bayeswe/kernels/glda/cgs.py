"""Exact collapsed Gibbs sweeps of Gaussian LDA (``method="cgs"``; eq. 1, section 4.1).

Each token draws its topic from all ``K`` posterior-predictive t densities of eq. (1),
with the Cholesky factors of eq. (2) kept in step by the O(D^2) rank-1 moves of eq. (4)
(:func:`.common.topic_move`). Two kernels, same conditional and same factor updates,
differing only in how the K Mahalanobis distances are computed:

* :func:`sweep_cgs` (``density="solve"``): K forward substitutions run together on
  topic-minor copies of the factors (:func:`topic_minor`, kept in step by ``_mirror``);
* :func:`sweep_cgs_precision` (``density="precision"``, the default): dot products with
  the precision cache of :mod:`.precision`.

``_draw_topic`` is the per-token draw both share.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bayeswe.kernels.glda.common import _log_t_without, _sample_log, rand_uniform, topic_move
from bayeswe.kernels.glda.precision import all_topics_quad, topic_move_precision
from bayeswe.kernels.glda.structs import Corpus, PrecisionCache, TopicMinor, Topics

__all__ = [
    "sweep_cgs",
    "sweep_cgs_precision",
    "topic_minor",
]


@njit(cache=True, fastmath=True, inline="always")
def _all_topics_sqnorm(
    x: np.ndarray,
    muT: np.ndarray,
    RT: np.ndarray,
    invdT: np.ndarray,
    Y: np.ndarray,
    Q: np.ndarray,
) -> None:
    # Q[k] = |R_k'^{-1}(x - mu_k)|^2 for every topic at once: the forward substitution
    # of :func:`.common._forward_sqnorm` with the topic index innermost, on topic-minor copies
    # (RT[j, i, k] = R[k, j, i]), so every step is a SIMD loop over topics.
    D, K = muT.shape
    for i in range(D):
        xi = x[i]
        Yi = Y[i]
        m = muT[i]
        for k in range(K):
            Yi[k] = xi - m[k]
    for k in range(K):
        Q[k] = 0.0
    for j in range(D):
        yj = Y[j]
        ij = invdT[j]
        for k in range(K):
            v = yj[k] * ij[k]
            yj[k] = v
            Q[k] += v * v
        Rj = RT[j]
        for i in range(j + 1, D):
            Yi = Y[i]
            Rji = Rj[i]
            for k in range(K):
                Yi[k] -= yj[k] * Rji[k]


@njit(cache=True, inline="always")
def _mirror(k: int, mu: np.ndarray, R: np.ndarray, invd: np.ndarray, muT: np.ndarray,
            RT: np.ndarray, invdT: np.ndarray) -> None:  # fmt: skip
    # copy topic k's parameters into the topic-minor arrays (O(D^2) strided writes)
    D = mu.shape[1]
    for j in range(D):
        muT[j, k] = mu[k, j]
        invdT[j, k] = invd[k, j]
        Rk = R[k, j]
        RTj = RT[j]
        for i in range(j + 1, D):
            RTj[i, k] = Rk[i]


@njit(cache=True)
def topic_minor(topics: Topics, minor: TopicMinor) -> None:
    """Fill the topic-minor copies ``minor.muT``, ``minor.RT``, ``minor.invdT`` from
    ``topics``' means and factors."""
    for k in range(topics.mu.shape[0]):
        _mirror(k, topics.mu, topics.R, topics.invd, minor.muT, minor.RT, minor.invdT)


@njit(cache=True, inline="always")
def _draw_topic(
    d: int,
    old: int,
    D: int,
    Q: np.ndarray,
    n_dk: np.ndarray,
    alpha: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    logdet: np.ndarray,
    logw: np.ndarray,
    rng: np.ndarray,
) -> int:
    # Eq. (1): the topic of a token of document d (counted out of n_dk, still held by
    # topic ``old``) from its Mahalanobis distances Q[k]; topic ``old`` without the
    # token comes from the same distance (_log_t_without).
    K = alpha.shape[0]
    for k in range(K):
        logw[k] = (
            math.log(n_dk[d, k] + alpha[k]) + tconst[k] - texp[k] * math.log1p(Q[k] * tscale[k])
        )
    logw[old] = math.log(n_dk[d, old] + alpha[old]) + _log_t_without(
        old, Q[old], D, kappa_k, nu_k, logdet
    )
    return _sample_log(logw, K, rand_uniform(rng))


@njit(cache=True, nogil=True)
def sweep_cgs(
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    topics: Topics,
    minor: TopicMinor,
    rng: np.ndarray,
    work: np.ndarray,
    start: int,
    stop: int,
) -> int:
    """One exact collapsed Gibbs pass (eq. 1) over tokens ``start:stop``; returns #changes.

    Each token draws ``k`` with probability ``(n_dk + alpha_k) t(x | k)`` (counts and
    topic ``z_i`` without the token, eq. 1) from all ``K`` topics (one solve each,
    O(K D^2)); only if ``k`` differs from its topic does it leave it (downdate) and
    join ``k`` (update). The K solves run together on the topic-minor copies of the
    factors in ``minor`` (filled by :func:`topic_minor`, kept in step after each move).
    ``z``, ``n_dk`` and ``topics`` are updated in place; ``work`` needs
    ``3 * D + 2 * K`` floats.
    """
    tok_doc, tok_word, emb, alpha = corpus
    mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp = topics
    muT, RT, invdT, Y = minor
    K = alpha.shape[0]
    D = emb.shape[1]
    logw = work[3 * D : 3 * D + K]
    Q = work[3 * D + K : 3 * D + 2 * K]
    changed = 0
    for i in range(start, stop):
        d = tok_doc[i]
        x = emb[tok_word[i]]
        old = z[i]
        n_dk[d, old] -= 1
        # the token stays in its topic while the K densities are evaluated; topic
        # ``old`` without it comes from the same solve (_log_t_without)
        _all_topics_sqnorm(x, muT, RT, invdT, Y, Q)
        new = _draw_topic(d, old, D, Q, n_dk, alpha, tconst, tscale, texp, kappa_k, nu_k,
                          logdet, logw, rng)  # fmt: skip
        n_dk[d, new] += 1
        if new != old:
            topic_move(old, x, -1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
            _mirror(old, mu, R, invd, muT, RT, invdT)
            topic_move(new, x, 1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
            _mirror(new, mu, R, invd, muT, RT, invdT)
            z[i] = new
            changed += 1
    return changed


@njit(cache=True, nogil=True)
def sweep_cgs_precision(
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    topics: Topics,
    cache: PrecisionCache,
    rng: np.ndarray,
    work: np.ndarray,
    start: int,
    stop: int,
) -> int:
    """:func:`sweep_cgs` with the quadratic forms from the precision cache.

    Same conditional (eq. 1) and same moves of the Cholesky factors; only the
    Mahalanobis distances of the K densities come from :func:`.precision.all_topics_quad`
    instead of K forward substitutions. ``cache`` must be filled by
    :func:`.precision.precision_from_factor` before the pass and is kept in step by
    :func:`.precision.topic_move_precision`; ``work`` needs ``3 * D + 2 * K`` floats.
    """
    tok_doc, tok_word, emb, alpha = corpus
    _, _, _, logdet, kappa_k, nu_k, tconst, tscale, texp = topics
    Pp, Pmu, muPmu, xx = cache.Pp, cache.Pmu, cache.muPmu, cache.xx
    K = alpha.shape[0]
    D = emb.shape[1]
    logw = work[3 * D : 3 * D + K]
    Q = work[3 * D + K : 3 * D + 2 * K]
    changed = 0
    for i in range(start, stop):
        d = tok_doc[i]
        x = emb[tok_word[i]]
        old = z[i]
        n_dk[d, old] -= 1
        all_topics_quad(x, Pp, Pmu, muPmu, xx, Q)
        new = _draw_topic(d, old, D, Q, n_dk, alpha, tconst, tscale, texp, kappa_k, nu_k,
                          logdet, logw, rng)  # fmt: skip
        n_dk[d, new] += 1
        if new != old:
            topic_move_precision(old, x, -1.0, topics, cache, work)
            topic_move_precision(new, x, 1.0, topics, cache, work)
            z[i] = new
            changed += 1
    return changed
