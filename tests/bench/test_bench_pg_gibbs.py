"""``bayeswe bench pg-gibbs --quick``: smoke test of the JSON; the GFLOP/s figure."""

from __future__ import annotations

import pytest
from bench_checks import check_result, pg_gibbs_summary_keys

from bayeswe.bench import pg_gibbs as bench


def test_quick_benchmark_prints_one_json_object_with_the_summary_keys(run_bench) -> None:
    result = run_bench("pg-gibbs", "--quick", "--threads", "1")
    summary = check_result(result, "pg-gibbs", pg_gibbs_summary_keys(1))
    for key in (
        "ess_per_s_ratio_vs_nuts",
        "ess_per_s_ratio_vs_nuts_per_block",
        "congress_s_per_sweep",
        "congress_peak_gb",
        "gflops_fraction_of_peak",
    ):
        assert isinstance(summary[key], float) and summary[key] > 0, key
    (setting,) = result["settings"]
    assert (setting["V"], setting["K"], setting["N"], setting["S"]) == (100, 5, 50_000, 1)
    assert setting["gibbs_t1_threads"] == 1
    for key in (
        "gibbs_t1_sweeps_per_s",
        "gibbs_t1_ess_per_s",
        "gibbs_per_block_t1_sweeps_per_s",
        "gibbs_per_block_t1_ess_per_s",
        "nuts_ess_per_s",
    ):
        assert setting[key] > 0, key
    assert summary["ess_per_s_ratio_vs_nuts"] == pytest.approx(
        setting["gibbs_t1_ess_per_s"] / setting["nuts_ess_per_s"]
    )
    assert result["congress"]["P"] == 100_000 and result["congress"]["peak_gb"] < 4
    assert set(result["congress_by_threads"]) == {"1"}
    assert result["congress"]["threads"] == 1  # NUMBA_NUM_THREADS=1 in its process


def test_gflops_measurement_is_a_ratio_of_medians() -> None:
    g = bench.gflops_measurement(K=20, rows=8, pairs=256, repeats=3)
    assert g["gflops"] > 0 and g["peak_gflops_blas_same_shape"] > 0
    assert g["fraction"] == pytest.approx(g["gflops"] / g["peak_gflops_blas_same_shape"])
    assert g["fraction_min"] <= g["fraction_max"]
