"""Deliberately wrong moves for the DP mixtures' power checks (SBC and enumeration).

Built here, outside the production kernels. The alpha updates each replace Escobar &
West's (1995) update in :func:`bayeswe.sbc.cases.dp_replication` while the Gibbs and
split-merge moves stay the production ones; ``gibbs_sweep_independent_tokens``
replaces the multinomial mixture's Gibbs pass
(:func:`bayeswe.sbc.cases.dp_multinomial_replication`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from bayeswe.kernels import dp_mixture as kern
from bayeswe.kernels import dp_multinomial as mk
from bayeswe.kernels.dp_mixture import _draw_log
from bayeswe.kernels.lda_cgs import next_double


def escobar_west_beta_off_by_one(problem: Any, state: Any, alpha: float) -> float:
    """Escobar-West with ``eta ~ Beta(alpha, N)`` instead of ``Beta(alpha + 1, N)``."""
    rng = state.rng_state
    K, N = int(state.clusters.counts[0]), problem.n_points
    a, b = problem.prior.alpha_shape, problem.prior.alpha_rate
    x = kern.gamma_draw(alpha, rng)  # the bug: alpha, not alpha + 1
    eta = max(x / (x + kern.gamma_draw(float(N), rng)), 1e-300)  # Gamma(alpha) may underflow
    rate = b - math.log(eta)
    odds = (a + K - 1.0) / (N * rate)
    shape = a + K if next_double(rng) * (1.0 + odds) < odds else a + K - 1.0
    return kern.gamma_draw(shape, rng) / rate


def escobar_west_no_mixture(problem: Any, state: Any, alpha: float) -> float:
    """Escobar-West with the two-component mixture dropped: always ``Gamma(a + K, ...)``."""
    rng = state.rng_state
    K, N = int(state.clusters.counts[0]), problem.n_points
    a, b = problem.prior.alpha_shape, problem.prior.alpha_rate
    x = kern.gamma_draw(alpha + 1.0, rng)
    eta = x / (x + kern.gamma_draw(float(N), rng))
    return kern.gamma_draw(a + K, rng) / (b - math.log(eta))


# ------------------------------------------------------------ DP mixture of multinomials


@njit(cache=True)
def _independent_tokens_predictive(prior, cl, k, pts, i):
    """``sum_v x_v log((beta_v + c_v) / (B + C))``: the point's tokens scored as if
    independent given the cluster's counts (the predictive of one token raised to the
    count), instead of the rising-factorial ratio that counts the point's own tokens."""
    total = math.log(prior.beta_sum + cl.tokens[k])
    out = 0.0
    for e in range(pts.ptr[i], pts.ptr[i + 1]):
        v = pts.word[e]
        out += pts.count[e] * (math.log(prior.beta[v] + cl.words[k, v]) - total)
    return out


@njit(cache=True)
def gibbs_sweep_independent_tokens(prior, cl, pts, z, alpha, rng):
    """:func:`bayeswe.kernels.dp_multinomial.gibbs_sweep` with the predictive of
    :func:`_independent_tokens_predictive` (a new cluster: the empty slot's)."""
    N = z.shape[0]
    logp = np.empty(N + 1)
    for i in range(N):
        k = z[i]
        mk.remove_point(cl, k, pts, i)
        if cl.n[k] == 0:
            mk._close_slot(cl, k)
        K = cl.counts[0]
        for c in range(K):
            s = cl.active[c]
            logp[c] = math.log(cl.n[s]) + _independent_tokens_predictive(prior, cl, s, pts, i)
        empty = cl.free[cl.counts[1] - 1]
        logp[K] = math.log(alpha) + _independent_tokens_predictive(prior, cl, empty, pts, i)
        c = _draw_log(logp, K + 1, next_double(rng))
        k = mk._open_slot(cl) if c == K else cl.active[c]
        mk.add_point(cl, k, pts, i)
        z[i] = k
