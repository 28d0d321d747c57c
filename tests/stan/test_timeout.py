"""A Stan run stopped by its ``timeout`` is a StanTimeoutError (a StanError), not an OSError."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import bayeswe
from bayeswe.errors import StanError, StanRuntimeError, StanTimeoutError

REPO = Path(__file__).resolve().parents[2]
BERNOULLI = REPO / "models" / "beta_bernoulli.stan"
DATA = {"N": 10, "y": [0, 1, 0, 0, 0, 0, 0, 0, 0, 1], "a": 1.0, "b": 1.0}


def test_a_timeout_is_a_stan_timeout_error() -> None:
    bayeswe.fit(BERNOULLI, DATA, method="nuts", seed=1, chains=1)  # compiled, warm
    start = time.perf_counter()
    with pytest.raises(StanTimeoutError) as info:
        # 10^8 draws take minutes: the one-second timeout stops the run
        bayeswe.fit(
            BERNOULLI, DATA, method="nuts", seed=1, chains=1, iter_sampling=10**8, timeout=1.0
        )
    assert time.perf_counter() - start < 60
    assert isinstance(info.value, StanRuntimeError) and isinstance(info.value, StanError)
    assert "timeout of 1.0 s" in str(info.value) and "beta_bernoulli" in str(info.value)
