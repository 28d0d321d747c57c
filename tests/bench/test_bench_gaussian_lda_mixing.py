"""``bayeswe bench gaussian-lda-mixing``: ESS of the log joint per CPU-second, alias-MH vs cgs."""

from __future__ import annotations

import math

import pytest
from bench_checks import check_result


def test_quick_run_reports_ess_ratios_over_seeds(run_bench) -> None:
    out = run_bench("gaussian-lda-mixing", "--quick", "--seeds", "2")
    keys = {"corpus"}
    for K in (5, 10):
        keys |= {
            f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}",
            f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}_min",
            f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}_max",
            f"ess_per_cpu_s_cgs_k{K}",
            f"ess_per_cpu_s_alias_k{K}",
            f"plateau_time_ratio_cgs_over_alias_k{K}",
            f"sweep_speed_ratio_k{K}",
            f"rhat_max_k{K}",
        }
    summary = check_result(out, "gaussian-lda-mixing", keys)
    rows = out["results"]
    assert [(r["K"], r["seed"]) for r in rows] == [(5, 1), (5, 2), (10, 1), (10, 2)]
    for K in (5, 10):
        mine = [r for r in rows if r["K"] == K]
        ratios = sorted(r["alias_ess_per_cpu_s_ratio_vs_cgs"] for r in mine)
        assert summary[f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}_min"] == ratios[0]
        assert summary[f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}_max"] == ratios[-1]
        assert summary[f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}"] == pytest.approx(sum(ratios) / 2)
        assert math.isfinite(summary[f"rhat_max_k{K}"])
        for r in mine:
            for side in ("cgs", "alias"):
                s = r[side]
                # the window's ESS per CPU-second, inside the budget on the thread clock
                assert s["ess_per_cpu_s"] == pytest.approx(s["ess"] / s["window_cpu_s"])
                # from the end of the last burn-in sweep to the end of the budget
                assert s["window_start_cpu_s"] <= r["burn_in_cpu_s"]
                total = r["burn_in_cpu_s"] + r["window_cpu_s"]
                assert 0 < s["window_cpu_s"] <= total - s["window_start_cpu_s"]
                assert 1 <= s["ess"] and s["window_sweeps"] >= 8
            assert r["alias_ess_per_cpu_s_ratio_vs_cgs"] == pytest.approx(
                r["alias"]["ess_per_cpu_s"] / r["cgs"]["ess_per_cpu_s"]
            )
            # the plateau is reached by cgs itself within its run
            assert r["cgs"]["time_to_plateau_cpu_s"] is not None


def test_budgets_can_be_set_for_every_k(run_bench) -> None:
    out = run_bench("gaussian-lda-mixing", "--quick", "--seeds", "1", "--burn-in", "0.1",
                    "--window", "0.15")  # fmt: skip
    assert out["settings"]["budgets_cpu_s"] == {"5": [0.1, 0.15], "10": [0.1, 0.15]}
    for row in out["results"]:
        assert (row["burn_in_cpu_s"], row["window_cpu_s"]) == (0.1, 0.15)
        assert row["cgs"]["window_start_cpu_s"] <= 0.1
