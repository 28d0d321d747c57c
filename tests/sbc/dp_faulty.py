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
def _faulty_predictive(prior, cl, k, pts, i, fault):
    """A wrong ``log p(x_i | S_k)``. ``fault`` 0: the tokens scored as if independent
    given the cluster's counts, ``sum_v x_v log((beta_v + c_v) / (B + C))``, instead of
    the rising-factorial ratio that counts the point's own tokens; 1: the rising
    factorials without the normalizer ``lgamma(B + C) - lgamma(B + C + L)``."""
    C = prior.beta_sum + cl.tokens[k]
    out = 0.0
    for e in range(pts.ptr[i], pts.ptr[i + 1]):
        a = prior.beta[pts.word[e]] + cl.words[k, pts.word[e]]
        x = pts.count[e]
        if fault == 0:
            out += x * (math.log(a) - math.log(C))
        else:
            out += math.lgamma(a + x) - math.lgamma(a)
    return out


@njit(cache=True)
def _faulty_sweep(prior, cl, pts, z, alpha, rng, fault):
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
            logp[c] = math.log(cl.n[s]) + _faulty_predictive(prior, cl, s, pts, i, fault)
        empty = cl.free[cl.counts[1] - 1]  # a free slot (zero counts): the prior's
        logp[K] = math.log(alpha) + _faulty_predictive(prior, cl, empty, pts, i, fault)
        c = _draw_log(logp, K + 1, next_double(rng))
        k = mk._open_slot(cl) if c == K else cl.active[c]
        mk.add_point(cl, k, pts, i)
        z[i] = k


def gibbs_sweep_independent_tokens(prior, cl, pts, z, alpha, rng) -> None:
    """:func:`bayeswe.kernels.dp_multinomial.gibbs_sweep` with independent-token scores."""
    _faulty_sweep(prior, cl, pts, z, alpha, rng, 0)


def gibbs_sweep_unnormalized(prior, cl, pts, z, alpha, rng) -> None:
    """:func:`bayeswe.kernels.dp_multinomial.gibbs_sweep` without the predictive's
    normalizer (favours large clusters)."""
    _faulty_sweep(prior, cl, pts, z, alpha, rng, 1)
