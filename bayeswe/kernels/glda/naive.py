"""The naive O(D^3)-per-density collapsed Gibbs sweep of Gaussian LDA (section 4 baseline).

:func:`sweep_naive` keeps only sufficient statistics per topic and forms and factorizes
``Psi_k`` (eq. 3) afresh for every (token, topic) density. Not used by the driver: the
benchmark (:mod:`bayeswe.bench.gaussian_lda`) times it against the Cholesky-update
samplers, and the tests check it has the same conditional as :func:`.cgs.sweep_cgs`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bayeswe.kernels.glda.common import _LOG_PI, _logdet, _sample_log, chol_factor, rand_uniform
from bayeswe.kernels.glda.structs import Corpus, Prior, TopicSums

__all__ = [
    "sweep_naive",
]


@njit(cache=True, inline="always")
def _forward_sqnorm_lower(L: np.ndarray, x: np.ndarray, mu: np.ndarray, y: np.ndarray) -> float:
    # |L^{-1}(x - mu)|^2 with a lower factor (row-oriented), for the naive baseline.
    n = L.shape[0]
    q = 0.0
    for i in range(n):
        s = x[i] - mu[i]
        for j in range(i):
            s -= L[i, j] * y[j]
        yi = s / L[i, i]
        y[i] = yi
        q += yi * yi
    return q


@njit(cache=True, nogil=True)
def sweep_naive(
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    prior: Prior,
    sums: TopicSums,
    rng: np.ndarray,
    A: np.ndarray,
    Lk: np.ndarray,
    work: np.ndarray,
    start: int,
    stop: int,
) -> int:
    """Exact collapsed Gibbs with a fresh O(D^3) Cholesky per (token, topic) evaluation,
    over tokens ``start:stop``; returns how many changed topic.

    The baseline of section 4 ("direct naive computation ... O(M^3)"): topics keep
    only sufficient statistics (``sums``: counts, vector sums and the lower triangle of
    ``sum x x'``, kept in step); ``Psi_k`` is formed by eq. (3) and factorized for every
    evaluation. ``A``/``Lk`` are ``(D, D)`` scratch; ``work`` needs ``2 * D + K``.
    Same distribution as :func:`.cgs.sweep_cgs` (not the same draws: rounding differs).
    """
    tok_doc, tok_word, emb, alpha = corpus
    mu0, kappa0, nu0, Psi0 = prior
    counts_k, vsums, scatter = sums
    K = alpha.shape[0]
    D = emb.shape[1]
    m = work[:D]
    y = work[D : 2 * D]
    logw = work[2 * D : 2 * D + K]
    changed = 0
    for i in range(start, stop):
        d = tok_doc[i]
        x = emb[tok_word[i]]
        old = z[i]
        n_dk[d, old] -= 1
        counts_k[old] -= 1
        for a in range(D):
            vsums[old, a] -= x[a]
            for b in range(a + 1):
                scatter[old, a, b] -= x[a] * x[b]
        for k in range(K):
            kap = kappa0 + counts_k[k]
            nuk = nu0 + counts_k[k]
            for a in range(D):
                m[a] = (kappa0 * mu0[a] + vsums[k, a]) / kap
            for a in range(D):
                for b in range(a + 1):
                    A[a, b] = (
                        Psi0[a, b] + scatter[k, a, b] + kappa0 * mu0[a] * mu0[b] - kap * m[a] * m[b]
                    )
            chol_factor(A, Lk)
            dof = nuk - D + 1.0
            c = (kap + 1.0) / (kap * dof)
            q = _forward_sqnorm_lower(Lk, x, m, y)
            logw[k] = (
                math.log(n_dk[d, k] + alpha[k])
                + math.lgamma(0.5 * (dof + D))
                - math.lgamma(0.5 * dof)
                - 0.5 * D * (math.log(dof) + _LOG_PI)
                - 0.5 * (D * math.log(c) + _logdet(Lk))
                - 0.5 * (dof + D) * math.log1p(q / (c * dof))
            )
        new = _sample_log(logw, K, rand_uniform(rng))
        counts_k[new] += 1
        for a in range(D):
            vsums[new, a] += x[a]
            for b in range(a + 1):
                scatter[new, a, b] += x[a] * x[b]
        n_dk[d, new] += 1
        z[i] = new
        if new != old:
            changed += 1
    return changed
