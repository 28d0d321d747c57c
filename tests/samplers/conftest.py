"""Shared fixtures of the sampler tests: small identified SGNS problems with fixed seeds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bayeswe.sgns import simulate_sgns


def identified_data(V: int, K: int, N: int, *, seed: int, prior_sd: float = 1.0) -> dict[str, Any]:
    """Simulated data of ``sgns_identified``; the last ``K`` words' true context vectors fixed."""
    sim = simulate_sgns(V, K, N, seed=seed)
    fixed = np.arange(V - K, V)
    return sim.data.stan_data(K, prior_sd=prior_sd, fixed_index=fixed, fixed_alpha=sim.alpha[fixed])


@pytest.fixture
def make_data() -> Any:
    """:func:`identified_data`, for tests that need other sizes."""
    return identified_data


@pytest.fixture
def small_data() -> dict[str, Any]:
    """V=8, K=2, N=3000: a few hundred sweeps take well under a second."""
    return identified_data(8, 2, 3000, seed=3)
