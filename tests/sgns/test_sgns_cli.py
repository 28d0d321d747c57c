"""`bayeswe compare sgns`, `bayeswe bench sgns-stan` and the Listing 2 reader."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from bayeswe.bench.sgns_stan import DEFAULT_PAPER_TEXT, ListingError, listing2_data, read_listing
from bayeswe.cli import main
from bayeswe.sgns import SGNSData, simulate_sgns

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

needs_paper = pytest.mark.skipif(
    not DEFAULT_PAPER_TEXT.is_file(), reason="the paper's text (Listing 2) is not available"
)


def coverage_band(n_cells: int, level: float = 0.9) -> tuple[float, float]:
    """Where the share of ``n_cells`` true ``P(w ∧ v)`` inside the ``level`` intervals
    of a correct sampler lies (4 standard deviations either side of ``level``).

    A calibrated interval covers each true value with probability ``level`` (the data
    are simulated from the prior the fit uses), so with independent cells the share
    would be Binomial(n, level) / n, sd ``sqrt(level (1 - level) / n)``. The cells are
    not independent: ``P(w ∧ v)`` shares ``rho_w`` with its row and ``alpha_v`` with its
    column, which inflates the variance by a design effect ``1 + 2 (V - 1) r`` (``r``
    the correlation of two cover indicators in a row or column). Measured over seeds of
    the two settings below (V=8 PG-Gibbs, 400 seeds: sd 0.059 against the binomial
    0.0375, design effect 2.5, mean 0.880; V=12 NUTS, 80 seeds: sd 0.047 against
    0.025, design effect 3.5, mean 0.889), i.e. r ~ 0.1; we take 4, which also
    absorbs the slight under-coverage of fixing the anchor vectors at the MAP (the
    means above, 0.01-0.02 below 0.9). The Monte Carlo error of the interval ends
    (each tail's probability is 0.05 +- ~0.01 with a few hundred effective draws) is
    part of the measured spread, as the runs had the tests' draws.

    With so few cells (64 and 144) the honest band is wide: about [0.60, 1] and
    [0.70, 1]; its upper end is above 1, so it cannot flag too-wide intervals.
    Rejecting a sampler that is off by less than ~0.2 in coverage needs many more
    cells or several independent datasets.
    """
    design_effect = 4.0
    sd = math.sqrt(design_effect * level * (1 - level) / n_cells)
    return level - 4 * sd, min(1.0, level + 4 * sd)


KEYS = {
    "method",
    "wall_s",
    "draws_per_s",
    "median_ess",
    "ess_per_s",
    "rmse_co",
    "coverage90",
    "holdout_loglik",
}


def test_compare_sgns_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "compare", "sgns", "--V", "12", "--K", "2", "--N", "3000", "--seed", "5",
            "--methods", "nuts,laplace,map", "--iter-warmup", "300", "--iter-sampling", "300",
            "--draws", "400", "--holdout", "0.2", "--json",
        ]
    )  # fmt: skip
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["V"] == 12 and out["settings"]["init"] == "map"
    assert len(out["anchor_words"]) == 2
    by_method = {r["method"]: r for r in out["results"]}
    assert set(by_method) == {"nuts", "laplace", "map"}
    for r in out["results"]:
        assert KEYS <= set(r)
    assert by_method["nuts"]["draws"] == 600 and by_method["laplace"]["draws"] == 400
    assert by_method["map"]["draws"] == 1 and by_method["map"]["coverage90"] is None
    assert by_method["map"]["median_ess"] is None and by_method["map"]["draws_per_s"] is None
    assert out["settings"]["N_train"] < 3000
    for r in out["results"]:
        assert 0 < r["rmse_co"] < 0.2
        # log(1/2) per observation is what a zero embedding scores
        assert -1.0 < r["holdout_loglik"] < 0
    nuts = by_method["nuts"]
    low, high = coverage_band(12 * 12)  # V^2 cells: about [0.70, 1]
    assert low <= nuts["coverage90"] <= high
    assert nuts["rhat_max"] < 1.05
    assert 0 < nuts["median_ess"] and nuts["ess_per_s"] == pytest.approx(
        nuts["median_ess"] / nuts["wall_s"]
    )
    # Laplace draws are independent: ESS near the number of draws
    assert 200 < by_method["laplace"]["median_ess"] < 800


def test_compare_sgns_out_dir_and_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import arviz as az

    from bayeswe.sgns.compare import main as compare_main

    args = ["--V", "8", "--K", "2", "--N", "1500", "--seed", "3", "--methods", "nuts,advi,map"]
    args += ["--iter-warmup", "200", "--iter-sampling", "200", "--draws", "300"]
    assert compare_main([*args, "--out", str(tmp_path / "run"), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    files = {"nuts.nc", "advi.nc", "map.nc", "cosine_similarity.png"}
    assert set(out["files"]) == files
    assert {p.name for p in (tmp_path / "run").iterdir()} == files
    assert (tmp_path / "run" / "cosine_similarity.png").stat().st_size > 1000
    nuts = az.from_netcdf(tmp_path / "run" / "nuts.nc")
    assert nuts.posterior["rho"].dims == ("chain", "draw", "word", "dim")
    assert nuts.posterior.sizes["draw"] == 200
    # default hold-out: N // 5 fresh observations from the true embeddings
    assert out["settings"]["N_holdout"] == 300 and out["settings"]["N_train"] == 1500
    assert all(r["holdout_loglik"] is not None for r in out["results"])
    # progress on stderr, one line before and one after each fit
    assert "[1/3] nuts: fitting" in captured.err and "[3/3] map: done" in captured.err


def test_compare_sgns_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "sgns", "--V", "8", "--K", "2", "--N", "1000", "--methods", "map"]) == 0
    out = capsys.readouterr().out
    assert "fixed context words" in out and "\nmap " in out
    for column in ("wall s", "draws/s", "ESS med", "ESS/s", "RMSE_co", "cover90", "hold-out"):
        assert column in out


@needs_paper
def test_read_listing_from_the_paper() -> None:
    two = read_listing(DEFAULT_PAPER_TEXT, 2)
    assert two.startswith("data {") and "fixed_context_matrix" in two
    assert two.count("\n") == 63
    one = read_listing(DEFAULT_PAPER_TEXT, 1)
    assert "fixed_context_matrix" not in one and one.count("\n") == 36


def test_read_listing_errors(tmp_path: Path) -> None:
    text = tmp_path / "paper.txt"
    text.write_text("no code here\nListing 1: caption\n")
    with pytest.raises(ListingError, match="does not start with a data block"):
        read_listing(text, 1)
    with pytest.raises(ListingError, match="no 'Listing 2:'"):
        read_listing(text, 2)
    text.write_text("1data {\n3 int x;\n2}\nListing 1: caption\n")
    with pytest.raises(ListingError, match="line 2"):
        read_listing(text, 1)


def test_listing2_data_rows() -> None:
    data = SGNSData(3, [0, 1, 2], [1, 2, 0], [4, 2, 3], [1, 2, 0])
    d = listing2_data(data, 1, 0.5, np.ones((1, 1)))
    assert d["U"] == 4
    rows = set(
        zip(d["target_word"], d["context_word"], d["posneg_labels"], d["counts"], strict=True)
    )
    assert rows == {(1, 2, 1, 1), (1, 2, 0, 3), (2, 3, 1, 2), (3, 1, 0, 3)}


@needs_paper
def test_bench_sgns_stan_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "sgns-stan", "--json", "--V", "15", "--K", "2", "--N", "2000"]
    assert main([*args, "--repeats", "1", "--iters", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    summary = out["summary"]
    assert summary["grad_speedup_vs_listing2"] > 0
    # Same posterior: the two programs agree on the log density at the starting point.
    assert summary["lp_abs_diff_at_start"] < 1e-8 * abs(summary["lp_at_start"])
    run = out["runs"][0]
    assert run["ours_leapfrog_steps"] > 0 and run["listing2_leapfrog_steps"] > 0
    assert out["settings"]["P_unique_pairs"] == simulate_sgns(15, 2, 2000, seed=20261121).data.P


def test_compare_rejects_unknown_methods_before_running() -> None:
    from bayeswe.sgns.compare import compare_methods

    with pytest.raises(ValueError, match="subset"):
        compare_methods(5, 2, 100, seed=1, methods=["nuts", "hmc"])


def test_a_failed_method_is_reported_not_fatal() -> None:
    from bayeswe.sgns.compare import MethodResult, SGNSComparison

    ok = MethodResult("map", 0.1, 1, math.nan, math.nan, math.nan, 0.07, math.nan, -0.68)
    bad = MethodResult.failed("advi-fullrank", 2.5, "All proposed step-sizes failed.")
    comparison = SGNSComparison(settings={}, results=(ok, bad))
    table = comparison.table()
    assert "advi-fullrank" in table and "failed: All proposed step-sizes failed." in table
    as_json = comparison.to_dict()["results"]
    assert as_json[1]["error"] == "All proposed step-sizes failed."
    assert as_json[1]["rmse_co"] is None and as_json[0]["error"] is None


def test_compare_runs_pg_gibbs_beside_stan() -> None:
    from bayeswe.sgns.compare import compare_methods

    result = compare_methods(
        8, 2, 1500, seed=3, methods=["pg-gibbs", "map"], iter_warmup=100, iter_sampling=100,
        chains=2, progress=None,
    )  # fmt: skip
    gibbs = result.to_dict()["results"][0]
    assert gibbs["method"] == "pg-gibbs" and gibbs["error"] is None
    assert gibbs["draws"] == 200
    assert 0 < gibbs["rmse_co"] < 0.2
    low, high = coverage_band(8 * 8)  # V^2 cells: about [0.60, 1]
    assert low <= gibbs["coverage90"] <= high
    assert gibbs["rhat_max"] is not None


def test_bench_pg_gibbs_is_a_cli_command() -> None:
    from bayeswe import cli

    args = cli.build_parser().parse_args(["bench", "pg-gibbs", "--json", "--quick", "--no-nuts"])
    assert args.quick and args.no_nuts and args.json
