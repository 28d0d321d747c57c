"""``bayeswe bench pg-gibbs-profile --quick``: the parts of a sweep add up to the sweep."""

from __future__ import annotations

import pytest
from bench_checks import check_result

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_profile_parts_add_up(run_bench) -> None:
    result = run_bench("pg-gibbs-profile", "--quick")
    summary = check_result(result, "pg-gibbs-profile")
    prof = result["profile"]
    assert summary["setting"] == {"V": 100, "K": 5, "N": 50_000}
    assert prof["threads"] == 1 and prof["sweeps"] == 20
    parts = prof["parts_ms_per_sweep"]
    assert set(parts) == {"pg_draws", "linear_predictor", "gaussian_update", "log_joint", "other"}
    assert sum(parts.values()) == pytest.approx(prof["ms_per_sweep"])
    for label in ("pg_draws", "linear_predictor", "gaussian_update", "log_joint"):
        assert 0 < parts[label] < prof["ms_per_sweep"], label
    assert summary["pg_draw_fraction"] == pytest.approx(parts["pg_draws"] / prof["ms_per_sweep"])
    assert summary["pg_ns_per_draw"] == pytest.approx(
        1e6 * parts["pg_draws"] / prof["pg_draws_per_sweep"]
    )
    assert prof["pg_draws_per_sweep"] == prof["P"]
    # the side-by-side PG draws: 3 repeats of each sampler on the last sweep's requests
    side = prof["pg_side_by_side_s"]
    assert len(side["auto"]) == len(side["devroye"]) == 3
    assert summary["pg_table_speedup"] == pytest.approx(
        sorted(side["devroye"])[1] / sorted(side["auto"])[1]
    )
    # every PG request of a sweep is counted once, by the sampler the choice gives it
    assert sum(prof["pg_method_counts"].values()) == prof["pg_draws_per_sweep"]
    assert prof["pg_method_counts"]["table"] > 0
