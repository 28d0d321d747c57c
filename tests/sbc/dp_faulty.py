"""Deliberately wrong alpha updates for the DP mixture's SBC power checks.

Built here, outside the production kernels: each replaces Escobar & West's (1995)
update in :func:`bayeswe.sbc.cases.dp_replication` while the Gibbs and split-merge
moves stay the production ones.
"""

from __future__ import annotations

import math
from typing import Any

from bayeswe.kernels import dp_mixture as kern
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
