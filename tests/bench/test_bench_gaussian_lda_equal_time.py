"""``bayeswe bench gaussian-lda-equal-time``: cgs vs alias-MH after equal CPU time."""

from __future__ import annotations

import pytest
from bench_checks import check_result

from bayeswe.bench.gaussian_lda_equal_time import QUICK_BUDGETS, budget_label

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_budget_labels() -> None:
    assert [budget_label(b) for b in (5.0, 20, 0.3, 0.25)] == ["5s", "20s", "0p3s", "0p25s"]


def test_quick_run_compares_both_samplers_within_each_budget(run_bench) -> None:
    out = run_bench("gaussian-lda-equal-time", "--quick")
    tags = [f"k{K}_{budget_label(B)}" for K in (20, 100) for B in QUICK_BUDGETS]
    expected = {"corpus"} | {
        f"{kind}_{tag}"
        for tag in tags
        for kind in ("lp_alias_minus_cgs", "lp_cgs", "lp_alias", "sweeps_cgs", "sweeps_alias")
    }
    summary = check_result(out, "gaussian-lda-equal-time", expected)
    assert summary["corpus"] == "synthetic"
    for tag in tags:
        assert summary[f"lp_alias_minus_cgs_{tag}"] == pytest.approx(
            summary[f"lp_alias_{tag}"] - summary[f"lp_cgs_{tag}"]
        )
        assert summary[f"sweeps_cgs_{tag}"] >= 1 and summary[f"sweeps_alias_{tag}"] >= 1
    rows = out["results"]
    assert len(rows) == 4
    for row in rows:
        for side in ("cgs", "alias"):
            # within the budget (or the single first sweep); CPU never above wall
            assert row[side]["cpu_s"] <= row["cpu_budget_s"] or row[side]["sweeps"] == 1
            assert row[side]["cpu_s"] <= row[side]["wall_s"] * 1.05
        assert row["cgs"]["acceptance_rate"] == 1.0 and 0 < row["alias"]["acceptance_rate"] <= 1
    # more time, more sweeps; both runs continue from the same start
    for K in (20, 100):
        short, long = (r for r in rows if r["K"] == K)
        assert long["cgs"]["sweeps"] >= short["cgs"]["sweeps"]
        assert long["alias"]["sweeps"] >= short["alias"]["sweeps"]
