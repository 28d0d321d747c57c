"""``bayeswe bench pg-gibbs --quick``: smoke test of the JSON; the GFLOP/s figure."""

from __future__ import annotations

import pytest
from bench_checks import check_result, pg_gibbs_summary_keys

from bayeswe.bench import harness
from bayeswe.bench import pg_gibbs as bench

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


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
    assert (setting["V"], setting["K"], setting["N"], setting["S"]) == (40, 3, 5_000, 1)
    # equal footing: the same warm-up and kept iterations on both sides, three seeds each
    assert summary["seeds"] == [1, 2, 3] and setting["seeds"] == [1, 2, 3]
    assert (setting["gibbs_warmup"], setting["gibbs_kept"]) == (50, 100)
    assert (setting["nuts_warmup"], setting["nuts_draws"]) == (50, 100)
    assert (summary["warmup"], summary["draws"]) == (50, 100)
    runs = setting["runs"]
    assert set(runs) == {"gibbs_t1", "gibbs_overrelax_t1", "gibbs_per_block_t1", "nuts"}
    for name, rows in runs.items():
        assert [r["seed"] for r in rows] == [1, 2, 3], name
        for r in rows:
            # the sampling phase is part of the whole run, and ESS/s uses it
            assert 0 < r["sampling_s"] < r["wall_s"], (name, r)
            assert r["ess_per_s"] == pytest.approx(r["ess"] / r["sampling_s"])
            assert r["ess_per_s_total"] == pytest.approx(r["ess"] / r["wall_s"])
            assert r["tail_ess_per_s"] == pytest.approx(r["tail_ess"] / r["sampling_s"])
            assert r["lp_ess_per_s"] == pytest.approx(r["lp_ess"] / r["sampling_s"])
    # the overrelaxed side: same seeds, its own chains, its ratio in the summary
    assert summary["overrelax"] == -0.5
    relaxed = [r["ess_per_s"] for r in runs["gibbs_overrelax_t1"]]
    assert relaxed != [r["ess_per_s"] for r in runs["gibbs_t1"]]
    assert summary["ess_per_s_ratio_vs_nuts_overrelaxed"] == pytest.approx(
        sorted(relaxed)[1] / sorted(r["ess_per_s"] for r in runs["nuts"])[1]
    )
    tails = [sorted(r["tail_ess_per_s"] for r in runs[n])[1] for n in ("gibbs_t1", "nuts")]
    assert summary["tail_ess_per_s_ratio_vs_nuts"] == pytest.approx(tails[0] / tails[1])
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
    # the only setting is the largest where NUTS finished
    assert summary["ess_per_s_ratio_vs_nuts_by_setting"] == {
        "40,3,5000,1,uniform": summary["ess_per_s_ratio_vs_nuts"]
    }
    assert summary["nuts_unfinished_settings"] == []
    assert summary["largest_finished_setting"] == "40,3,5000,1,uniform"
    assert summary["ess_per_s_ratio_vs_nuts_largest_finished"] == summary["ess_per_s_ratio_vs_nuts"]
    assert setting["nuts_finished"] is True and setting["distribution"] == "uniform"
    assert result["congress"]["P"] == 100_000 and result["congress"]["peak_gb"] < 4
    assert set(result["congress_by_threads"]) == {"1"}
    assert result["congress"]["threads"] == 1  # NUMBA_NUM_THREADS=1 in its process


def test_gflops_measurement_is_a_ratio_of_medians() -> None:
    g = bench.gflops_measurement(K=20, rows=8, pairs=256, repeats=3)
    assert g["gflops"] > 0 and g["peak_gflops_blas_same_shape"] > 0
    assert g["fraction"] == pytest.approx(g["gflops"] / g["peak_gflops_blas_same_shape"])
    assert g["fraction_min"] <= g["fraction_max"]


def test_a_nuts_chain_stopped_by_the_timeout_leaves_its_setting_without_a_ratio(run_bench) -> None:
    # --quick: 50 + 100 NUTS iterations; on this setting they take several seconds, and
    # 0.5 s cannot finish them
    result = run_bench(
        "pg-gibbs", "--quick", "--setting", "100,5,50000,1,zipf", "--nuts-timeout", "0.5",
        "--no-per-block", "--no-congress", "--threads", "1", "--seeds", "1,2",
        "--overrelax", "0",
    )  # fmt: skip
    summary = result["summary"]
    (setting,) = result["settings"]
    assert setting["distribution"] == "zipf" and setting["nuts_finished"] is False
    # the first chain was stopped, so the second seed was not started
    assert setting["nuts_stopped"] == {"seed": 1, "timeout_s": 0.5}
    (reached,) = setting["nuts_stopped_chains"]
    assert reached["seed"] == 1 and reached["iterations"] == 150
    # Stan reports iteration 1, the first sampling iteration and every NUTS_REFRESH
    progress = reached["iterations_reached"]
    assert progress in (0, 1, 51) or (progress % bench.NUTS_REFRESH == 0 and progress < 150)
    assert setting["nuts_runs_before_stop"] == []
    # Gibbs still ran; neither Algorithm 1 nor the overrelaxed side (--overrelax 0)
    assert set(setting["runs"]) == {"gibbs_t1"}
    assert summary["overrelax"] is None
    assert summary["ess_per_s_ratio_vs_nuts_overrelaxed_by_setting"] is None
    assert [r["seed"] for r in setting["runs"]["gibbs_t1"]] == [1, 2]
    assert summary["nuts_unfinished_settings"] == ["100,5,50000,1,zipf"]
    assert summary["ess_per_s_ratio_vs_nuts_by_setting"] == {"100,5,50000,1,zipf": None}
    assert summary["ess_per_s_ratio_vs_nuts"] is None
    assert summary["largest_finished_setting"] is None


def test_a_stopped_chain_reports_the_last_iteration_stan_printed() -> None:
    console = (
        "method = sample (Default)\n"
        "Iteration:   1 / 700 [  0%]  (Warmup)\n"
        "Iteration:  10 / 700 [  1%]  (Warmup)\n"
        "Iteration: 201 / 700 [ 28%]  (Sampling)\n"
        "Iteration: 210 / 700 [ 30%]  (Sampling)\n"
    )
    assert bench.iterations_reached(console) == 210
    assert bench.iterations_reached("method = sample (Default)\n") == 0


def test_settings_are_parsed_with_their_distribution_and_bad_ones_are_named() -> None:
    assert bench.parse_setting("200,20,500000,1") == (200, 20, 500_000, 1, "uniform")
    assert bench.parse_setting("1000,50,10000000,1,zipf") == (1000, 50, 10_000_000, 1, "zipf")
    for text, problem in [
        ("200,20,500000", "expected V,K,N,S"),
        ("200,20,500000,1,pareto", "DIST must be one of"),
        ("200,x,500000,1", "must be integers"),
        ("1000,50,1e7,1", "must be integers"),
        ("20,20,500000,1", "need V > K"),
    ]:
        with pytest.raises(harness.BenchError, match=problem):
            bench.parse_setting(text)


def _setting_record(V: int, K: int, N: int, ratio: float | None) -> dict:
    record = {"V": V, "K": K, "N": N, "S": 1, "distribution": "uniform"}
    record["nuts_finished"] = ratio is not None
    if ratio is not None:
        record["gibbs_t1_ratio_ess_per_s"] = {
            "of_medians": ratio, "per_seed_min": ratio - 1, "per_seed_max": ratio + 1,
        }  # fmt: skip
    return record


def test_the_largest_finished_setting_is_largest_in_k_times_v_then_n() -> None:
    settings = [
        _setting_record(200, 20, 50_000, 2.0),
        _setting_record(200, 20, 500_000, 3.0),  # the largest where NUTS finished
        _setting_record(100, 5, 5_000_000, 4.0),  # larger N, smaller K x V
        _setting_record(1000, 50, 1_000_000, None),  # NUTS did not finish
    ]
    summary = bench._scaling_summary(settings, threads=1, ran_nuts=True)
    assert summary == {
        "ess_per_s_ratio_vs_nuts_by_setting": {
            "200,20,50000,1,uniform": 2.0,
            "200,20,500000,1,uniform": 3.0,
            "100,5,5000000,1,uniform": 4.0,
            "1000,50,1000000,1,uniform": None,
        },
        "nuts_unfinished_settings": ["1000,50,1000000,1,uniform"],
        "ess_per_s_ratio_vs_nuts_largest_finished": 3.0,
        "ess_per_s_ratio_vs_nuts_largest_finished_min": 2.0,
        "ess_per_s_ratio_vs_nuts_largest_finished_max": 4.0,
        "largest_finished_setting": "200,20,500000,1,uniform",
    }


def test_nuts_chains_run_side_by_side_give_the_chains_of_a_serial_run(run_bench) -> None:
    # --nuts-jobs 2 runs the two seeds' chains at the same time; each chain depends only on
    # its seed, so its draws (here its ESS) are those of the one-at-a-time run
    common = (
        "--quick", "--setting", "40,3,5000,1", "--no-per-block", "--no-congress",
        "--threads", "1", "--seeds", "1,2", "--overrelax", "0",
    )  # fmt: skip
    side_by_side = run_bench("pg-gibbs", *common, "--nuts-jobs", "2")
    serial = run_bench("pg-gibbs", *common)
    (together,), (alone,) = side_by_side["settings"], serial["settings"]
    assert (together["nuts_jobs"], alone["nuts_jobs"]) == (2, 1)
    assert side_by_side["nuts"] == "1 chain (1 core) per seed, 2 chains at a time"
    rows = together["runs"]["nuts"]
    assert [r["seed"] for r in rows] == [1, 2]
    assert [r["ess"] for r in rows] == [r["ess"] for r in alone["runs"]["nuts"]]
    for r in rows:
        total_leapfrogs = r["leapfrogs_per_draw"] * together["nuts_draws"]
        assert r["s_per_leapfrog"] == pytest.approx(r["sampling_s"] / total_leapfrogs)
    with pytest.raises(harness.BenchError, match="--nuts-jobs must be at least 1"):
        bench.run(bench.build_parser().parse_args(["--nuts-jobs", "0"]))
