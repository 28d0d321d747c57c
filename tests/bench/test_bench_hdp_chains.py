"""``bayeswe bench hdp-chains``: four HDP-LDA chains from two starts, ours and tomotopy's."""

import numpy as np
import pytest
from bench_checks import check_result

from bayeswe.bench import hdp_chains as bench

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_bench_reports_both_sides_diagnostics(run_bench) -> None:
    result = run_bench("hdp-chains", "--quick", "--peer-warmup", "12", "--peer-draws", "16")
    summary = check_result(result, "hdp-chains")
    assert result["starts"] == {"bayeswe": [1, 1, 20, 20], "tomotopy": [2, 2, 20, 20]}
    assert (result["warmup"], result["draws"]) == (20, 20)
    # tomotopy's iterations are its own when --peer-warmup/--peer-draws are given
    assert (result["peer_warmup"], result["peer_draws"]) == (12, 16)
    assert result["bayeswe"]["draws_per_chain"] == 20
    assert result["tomotopy"]["draws_per_chain"] == 16
    for side, scalars in (("bayeswe", bench.OURS), ("tomotopy", bench.TOMOTOPY)):
        diag = result[side]
        assert set(diag["rhat"]) == set(diag["ess_bulk"]) == set(scalars)
        assert diag["ess_bulk_min"] == min(diag["ess_bulk"].values())
        assert len(diag["live_topics_by_chain"]) == 4
        assert set(diag["mean_by_chain"]) == set(scalars)
        assert all(len(means) == 4 for means in diag["mean_by_chain"].values())
        assert np.isfinite(list(diag["rhat"].values())).all()
    assert summary["rhat_n_topics"] == result["bayeswe"]["rhat"]["n_topics"]
    assert summary["tomotopy_rhat_n_topics"] == result["tomotopy"]["rhat"]["live_k"]
    # 20 kept draws of four chains cannot reach a bulk ESS of 400
    assert summary["diagnosable"] is False and summary["tomotopy_diagnosable"] is False
    assert summary["wall_s"] > 0 and summary["tomotopy_wall_s"] > 0


def test_fixed_concentrations_diagnose_the_scalars_that_move(run_bench) -> None:
    result = run_bench(
        "hdp-chains", "--quick", "--peer-warmup", "4", "--peer-draws", "8",
        "--fixed-concentrations", "--alpha0", "2", "--gamma", "0.5", "--split-merge", "3",
    )  # fmt: skip
    summary = check_result(result, "hdp-chains")
    assert (summary["alpha0"], summary["gamma"], summary["concentrations"]) == (2, 0.5, "fixed")
    assert (result["alpha0"], result["gamma"], result["split_merge"]) == (2, 0.5, 3)
    assert set(result["bayeswe"]["rhat"]) == {"lp", "n_topics", "n_tables"}
    assert set(result["tomotopy"]["rhat"]) == {"ll_per_word", "live_k", "num_tables"}
    assert result["bayeswe"]["split_merge"] == 3
    assert 0 <= result["bayeswe"]["split_merge_accepted"] <= 4 * 40 * 3


def test_fixed_concentrations_leave_out_the_concentrations_by_name() -> None:
    fixed, resampled = bench.Prior(fixed=True), bench.Prior()
    assert fixed.scalars(bench.OURS) == ("lp", "n_topics", "n_tables")
    assert fixed.scalars(bench.TOMOTOPY) == ("ll_per_word", "live_k", "num_tables")
    # by name, not position: a reordered tuple keeps the same scalars
    assert fixed.scalars(("gamma", "lp", "alpha0", "n_topics")) == ("lp", "n_topics")
    assert resampled.scalars(bench.OURS) == bench.OURS


def test_verdict_needs_every_bar() -> None:
    rng = np.random.default_rng(1)
    mixed = {"k": rng.normal(size=(4, 2000)), "x": rng.normal(size=(4, 2000))}
    assert bench._diagnostics(mixed, "k", 10.0)["diagnosable"]
    assert not bench._diagnostics(mixed, "k", 2000.0)["diagnosable"]  # over the budget
    apart = dict(mixed, k=mixed["k"] + np.arange(4)[:, None])  # chains disagree
    means = bench._diagnostics(apart, "k", 10.0)["mean_by_chain"]["k"]
    np.testing.assert_allclose(means, apart["k"].mean(axis=1))
    assert bench._diagnostics(apart, "k", 10.0)["rhat_n_topics"] > 1.01
    assert not bench._diagnostics(apart, "k", 10.0)["diagnosable"]
    short = {k: v[:, :50] for k, v in mixed.items()}  # too few draws for ESS 400
    assert not bench._diagnostics(short, "k", 10.0)["diagnosable"]


@pytest.mark.parametrize(
    "argv",
    [["--draws", "3"], ["--peer-draws", "2"], ["--warmup", "-1"], ["--gamma", "0"],
     ["--alpha0", "nan"], ["--split-merge", "-1"]],
)  # fmt: skip
def test_bad_iterations_exit_2_before_anything_runs(argv, capsys) -> None:
    from bayeswe.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["bench", "hdp-chains", *argv, "--json"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("bayeswe: error:") and argv[0] in err
