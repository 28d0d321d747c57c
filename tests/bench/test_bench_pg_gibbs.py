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
    # equal footing: the same warm-up and kept iterations on both sides, three seeds each
    assert summary["seeds"] == [1, 2, 3] and setting["seeds"] == [1, 2, 3]
    assert (setting["gibbs_warmup"], setting["gibbs_kept"]) == (100, 200)
    assert (setting["nuts_warmup"], setting["nuts_draws"]) == (100, 200)
    runs = setting["runs"]
    assert set(runs) == {"gibbs_t1", "gibbs_per_block_t1", "nuts"}
    for name, rows in runs.items():
        assert [r["seed"] for r in rows] == [1, 2, 3], name
        for r in rows:
            # the sampling phase is part of the whole run, and ESS/s uses it
            assert 0 < r["sampling_s"] < r["wall_s"], (name, r)
            assert r["ess_per_s"] == pytest.approx(r["ess"] / r["sampling_s"])
            assert r["ess_per_s_total"] == pytest.approx(r["ess"] / r["wall_s"])
    assert len({r["ess"] for r in runs["nuts"]}) == 3  # the seeds give different chains
    assert runs["gibbs_t1"][0]["threads"] == 1
    gibbs = [r["ess_per_s"] for r in runs["gibbs_t1"]]
    nuts = [r["ess_per_s"] for r in runs["nuts"]]
    assert summary["ess_per_s_ratio_vs_nuts"] == pytest.approx(sorted(gibbs)[1] / sorted(nuts)[1])
    per_seed = [g / n for g, n in zip(gibbs, nuts, strict=True)]
    assert summary["ess_per_s_ratio_vs_nuts_min"] == pytest.approx(min(per_seed))
    assert summary["ess_per_s_ratio_vs_nuts_max"] == pytest.approx(max(per_seed))
    total = [r["ess_per_s_total"] for r in runs["gibbs_t1"]]
    nuts_total = [r["ess_per_s_total"] for r in runs["nuts"]]
    assert summary["ess_per_s_ratio_vs_nuts_total_time"] == pytest.approx(
        sorted(total)[1] / sorted(nuts_total)[1]
    )
    assert result["congress"]["P"] == 100_000 and result["congress"]["peak_gb"] < 4
    assert set(result["congress_by_threads"]) == {"1"}
    assert result["congress"]["threads"] == 1  # NUMBA_NUM_THREADS=1 in its process


def test_gflops_measurement_is_a_ratio_of_medians() -> None:
    g = bench.gflops_measurement(K=20, rows=8, pairs=256, repeats=3)
    assert g["gflops"] > 0 and g["peak_gflops_blas_same_shape"] > 0
    assert g["fraction"] == pytest.approx(g["gflops"] / g["peak_gflops_blas_same_shape"])
    assert g["fraction_min"] <= g["fraction_max"]
