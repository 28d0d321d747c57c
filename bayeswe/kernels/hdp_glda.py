"""Kernels of the direct-assignment collapsed Gibbs sampler for infinite Gaussian LDA.

The HDP of Teh, Jordan, Beal and Blei (2006, section 5.3) with Gaussian LDA's topics
(Das, Zaheer and Dyer 2015): each topic's mean and covariance carry a
Normal-inverse-Wishart prior and are integrated out, so a token's vector ``x`` has
under topic ``k`` the multivariate Student-t posterior predictive ``t_k(x)`` of Gaussian
LDA's eq. (1)-(2), and under a new topic the prior predictive ``t_0(x)`` (the same
density with no tokens). One token's conditional (HDP paper eq. 37 with Gaussian LDA's
likelihood; counts and topic statistics without the token)::

    p(z_i = k   | z_-i, beta) ∝ (n_dk + alpha0 beta_k) t_k(x_i)    k represented
    p(z_i = new | z_-i, beta) ∝ alpha0 beta_u t_0(x_i)                               (1)

:func:`sweep` draws (1) for every token; the topics' factors follow by the O(D^2)
rank-1 moves of :func:`bayeswe.kernels.glda.common.topic_move` (Gaussian LDA's eq. 4).
A topic whose last token leaves is no longer represented: its weight joins ``beta_u``
and its slot returns to the prior. A new topic takes ``b beta_u``, ``b ~ Beta(1,
gamma)``. Table counts, ``beta | m`` and the concentrations are HDP-LDA's kernels
(:mod:`bayeswe.kernels.hdp_lda`), which depend on the counts ``n_dk`` only.

Slots, free stack and growth are HDP-LDA's: :func:`sweep` returns the token where no
slot was free (nothing of it changed) so that the caller grows the arrays.

Random numbers: the chain's xoshiro256+ stream (:func:`bayeswe.kernels.lda_cgs.next_double`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bayeswe.kernels.glda.common import (
    _forward_sqnorm,
    _log_t_without,
    _sample_log,
    log_t,
    topic_move,
)
from bayeswe.kernels.glda.structs import Topics
from bayeswe.kernels.hdp_lda import beta_draw
from bayeswe.kernels.hdp_structs import Topics as Weights
from bayeswe.kernels.lda_cgs import next_double

__all__ = [
    "Assignments",
    "VectorCorpus",
    "log_p_z",
    "reset_empty",
    "reset_slot",
    "sweep",
    "word_log_density",
]


class VectorCorpus(NamedTuple):
    """The tokens by document and the vectors (never written by a kernel)."""

    tok_ptr: np.ndarray  #: int64 (D + 1,): token range of each document
    word: np.ndarray  #: int32 (N,): word type of each token
    emb: np.ndarray  #: float64 (V, dim): vector of each word type
    #: float64 (V,): log t_0(v_w), the prior predictive of each word's vector
    log_prior_pred: np.ndarray


class Assignments(NamedTuple):
    """The topic slot of every token and the counts it implies."""

    z: np.ndarray  #: int32 (N,)
    n_dk: np.ndarray  #: int32 (D, C)
    n_k: np.ndarray  #: int64 (C,)


@njit(cache=True)
def reset_slot(k: int, topics: Topics, prior: Topics) -> None:
    """Slot ``k`` of ``topics`` set to the prior (slot 0 of ``prior``): no tokens."""
    topics.mu[k] = prior.mu[0]
    topics.R[k] = prior.R[0]
    topics.invd[k] = prior.invd[0]
    topics.logdet[k] = prior.logdet[0]
    topics.kappa_k[k] = prior.kappa_k[0]
    topics.nu_k[k] = prior.nu_k[0]
    topics.tconst[k] = prior.tconst[0]
    topics.tscale[k] = prior.tscale[0]
    topics.texp[k] = prior.texp[0]


@njit(cache=True)
def reset_empty(n_k: np.ndarray, topics: Topics, prior: Topics) -> None:
    """Every slot without tokens (``n_k == 0``) set to the prior."""
    for k in range(n_k.size):
        if n_k[k] == 0:
            reset_slot(k, topics, prior)


@njit(cache=True, nogil=True)
def sweep(
    corpus: VectorCorpus,
    assign: Assignments,
    topics: Topics,
    prior: Topics,
    weights: Weights,
    alpha0: float,
    gamma: float,
    rng: np.ndarray,
    start: int,
) -> int:
    """Draw (1) for tokens ``start ..`` in order; returns ``N`` or the token where no slot
    was free (nothing of that token changed)."""
    tok_ptr, word, emb, log_prior_pred = corpus
    z, n_dk, n_k = assign
    mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp = topics
    beta, free = weights.beta, weights.free
    beta_u, n_free = weights.rest[0], weights.n_free[0]
    C = n_k.size
    n_docs = tok_ptr.size - 1
    dim = emb.shape[1]
    logw = np.empty(C + 1)
    cand = np.empty(C + 1, dtype=np.int64)
    y = np.empty(dim)
    work = np.empty(2 * dim)
    first = 0
    while first < n_docs and tok_ptr[first + 1] <= start:
        first += 1
    stop = z.size
    for d in range(first, n_docs):
        for i in range(max(start, tok_ptr[d]), tok_ptr[d + 1]):
            if n_free == 0:  # a new topic could not be placed: let the caller grow
                stop = i
                break
            w = word[i]
            x = emb[w]
            old = z[i]
            n_dk[d, old] -= 1
            # alone: without the token its topic is not represented, and (1) offers it
            # as the new topic (the token stays in the slot, which then holds the prior
            # plus this token: exactly what a new topic would hold)
            alone = n_k[old] == 1
            if alone:
                beta_u += beta[old]
                beta[old] = 0.0
            n = 0
            for k in range(C):
                if n_k[k] == 0 or (alone and k == old):
                    continue
                q = _forward_sqnorm(R[k], invd[k], x, mu[k], y)
                if k == old:  # the token's own topic without it, from the same solve
                    lt = _log_t_without(k, q, dim, kappa_k, nu_k, logdet)
                else:
                    lt = tconst[k] - texp[k] * math.log1p(q * tscale[k])
                cand[n] = k
                logw[n] = math.log(n_dk[d, k] + alpha0 * beta[k]) + lt
                n += 1
            cand[n] = -1
            logw[n] = math.log(alpha0 * beta_u) + log_prior_pred[w]
            n += 1
            k = cand[_sample_log(logw, n, next_double(rng))]
            if k < 0:  # a new topic: b ~ Beta(1, gamma) breaks beta_u
                if alone:
                    k = old
                else:
                    n_free -= 1
                    k = free[n_free]
                b = beta_draw(1.0, gamma, rng)
                beta[k] = b * beta_u
                beta_u *= 1.0 - b
            if k != old:
                if alone:
                    reset_slot(old, topics, prior)
                    free[n_free] = old
                    n_free += 1
                else:
                    topic_move(old, x, -1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst,
                               tscale, texp, work)  # fmt: skip
                topic_move(k, x, 1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale,
                           texp, work)  # fmt: skip
                n_k[old] -= 1
                n_k[k] += 1
                z[i] = k
            n_dk[d, k] += 1
        if stop < z.size:
            break
    weights.rest[0] = beta_u
    weights.n_free[0] = n_free
    return stop


@njit(cache=True, nogil=True)
def log_p_z(n_dk: np.ndarray, beta: np.ndarray, alpha0: float) -> float:
    """``log p(z | alpha0 beta)``: per document the Dirichlet-multinomial with prior
    ``alpha0 beta`` over the represented topics (their mass and ``alpha0 beta_u`` sum to
    ``alpha0``); free slots add nothing."""
    n_docs, C = n_dk.shape
    total = 0.0
    for d in range(n_docs):
        n_d = 0
        for k in range(C):
            c = n_dk[d, k]
            if c > 0:
                n_d += c
                a = alpha0 * beta[k]
                total += math.lgamma(c + a) - math.lgamma(a)
        total += math.lgamma(alpha0) - math.lgamma(n_d + alpha0)
    return total


@njit(cache=True)
def word_log_density(emb: np.ndarray, topics: Topics, slots: np.ndarray, out: np.ndarray) -> None:
    """``out[j, w] = log t_{slots[j]}(v_w)`` for every word type ``w``."""
    mu, R, invd, _, _, _, tconst, tscale, texp = topics
    y = np.empty(emb.shape[1])
    for j in range(slots.size):
        for w in range(emb.shape[0]):
            out[j, w] = log_t(slots[j], emb[w], mu, R, invd, tconst, tscale, texp, y)
