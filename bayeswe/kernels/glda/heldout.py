"""Held-out inference with the topics fixed (section 5.2, "G-LDA (fix)").

:func:`sweep_fixed` Gibbs-samples the topics of new documents' tokens from
precomputed per-(word, topic) log densities; used by
:func:`bayeswe.glda.inference.infer_theta`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bayeswe.kernels.glda.common import _sample_log, rand_uniform

__all__ = [
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
