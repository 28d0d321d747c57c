"""``bayeswe reproduce 001-table4``, ``001-table5`` and ``001-table6``: helpers and quick grids."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from bayeswe.bench.pg_gibbs import iterations_reached
from bayeswe.reproduce import yrjanainen_realdata as real
from bayeswe.reproduce import yrjanainen_table4 as table4
from bayeswe.reproduce import yrjanainen_table5 as table5
from bayeswe.reproduce import yrjanainen_table6 as table6
from bayeswe.sgns.metrics import cosine_similarity

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_list_shows_the_three_targets(run_cli) -> None:
    names = {line.split()[0] for line in run_cli(["reproduce", "--list"]).out.splitlines()}
    assert {"001-table4", "001-table5", "001-table6"} <= names


def test_stan_console_and_the_unfinished_bound() -> None:
    console = "Iteration:  1 / 200 [  0%]  (Warmup)\nIteration: 12 / 200 [  6%]  (Warmup)\n"
    # the cell reads how far a stopped chain got with bench pg-gibbs's parser
    assert iterations_reached(console) == 12
    assert iterations_reached("Gradient evaluation took 0.01 seconds") == 0
    assert table4.unfinished_bound(0, 1800) == 1 / 1800
    assert table4.unfinished_bound(5, 1000) == 0.005
    # words/s is samples/s x V
    assert table4.PAPER_RATES[(20, 50_000)]["HMC"][1] == pytest.approx(0.8333 * 603, abs=0.1)


def test_nuts_cost_says_what_the_papers_rate_would_need() -> None:
    # 0.1 draws/s at 250 leapfrogs per draw: 25 gradients/s, 40 ms each; 0.8 draws/s at
    # 250 needs 200 gradients/s, 5 ms each
    nuts = {"rate": 0.1, "leapfrogs": 250.0, "step_size": 0.04}
    assert table4._nuts_cost(nuts, 0.8) == (
        "NUTS took 250 leapfrog steps per draw (step size 0.0400) at 40.0 ms per gradient; "
        "the paper's 0.8000 samples/s at this trajectory length needs 5.0 ms per gradient, "
        "8.0x faster gradients or as many times fewer steps per draw"
    )


def test_training_and_holdout_are_fixed_by_their_indices() -> None:
    data = real.movielens_pairs(300)
    train, test = real.training_and_holdout(data, 20_000, 0)
    again, test_again = real.training_and_holdout(data, 20_000, 0)
    assert train == again and test == test_again
    other, test_other = real.training_and_holdout(data, 20_000, 1)
    assert other != train and test_other != test
    # about N training observations, a tenth of all held out, none shared beyond the total
    assert abs(train.total - 20_000) < 5 * np.sqrt(20_000)
    assert abs(test.total - 0.1 * data.total) < 5 * np.sqrt(data.total)
    assert train.total + test.total <= data.total
    assert train.vocabulary == test.vocabulary == data.vocabulary
    with pytest.raises(ValueError, match="below the"):
        real.training_and_holdout(data, data.total, 0)


def test_identified_start_keeps_the_map_likelihood() -> None:
    train, test = real.training_and_holdout(real.movielens_pairs(300), 5_000, 0)
    start = real.identified_start(train, 2, prior_sd=1.0, rule="last", seed=3, max_iter=200)
    V = train.V
    assert list(start.fixed_index) == [V - 2, V - 1]  # the paper's last K words
    free = np.setdiff1d(np.arange(V), start.fixed_index)
    alpha = np.zeros((V, 2))
    alpha[free], alpha[start.fixed_index] = start.start["alpha_free"], start.fixed_alpha
    # Proposition 1: the identified start has the MAP's likelihood on any data
    assert real.holdout(start.start["rho"], alpha, test) == pytest.approx(
        real.holdout(start.rho_map, start.alpha_map, test), rel=1e-9
    )


def test_estimator_means_average_over_datasets() -> None:
    table = pd.DataFrame(
        {"N": [10, 10, 10, 10], "dataset": [0, 0, 1, 1], "fit": ["gibbs", "mfvi"] * 2,
         "PM-Gibbs": [-0.5, np.nan, -0.7, np.nan], "MAP": [-0.8, np.nan, -1.0, np.nan],
         "MFVI": [np.nan, -0.9, np.nan, -0.95]}
    )  # fmt: skip
    means = table5.estimator_means(table)
    assert means[10]["PM-Gibbs"] == (pytest.approx(-0.6), 2)
    assert means[10]["MAP"] == (pytest.approx(-0.9), 2)
    assert means[10]["MFVI"] == (pytest.approx(-0.925), 2)


def test_mfvi_cosines_in_the_identified_frame() -> None:
    rng = np.random.default_rng(0)
    V, K = 6, 2
    m, mu = rng.normal(size=(V, K)), rng.normal(size=(V, K))
    q = SimpleNamespace(m=m, mu=mu, S=np.broadcast_to(1e-16 * np.eye(K), (V, K, K)).copy())
    fixed = np.array([4, 5])
    # anchors equal to q's own mean: the map is the identity, cosines are those of the means
    (cos,) = table6.mfvi_cosines(q, [(0, 1)], fixed, mu[fixed], 5, 1)
    assert np.allclose(cos, cosine_similarity(m[0], m[1]))
    # other anchors: each vector is mapped by A^{-1}, A = mu[I]^{-1} M (Proposition 1)
    M = np.array([[2.0, 0.0], [1.0, 1.0]])
    A = np.linalg.solve(mu[fixed], M)
    (cos,) = table6.mfvi_cosines(q, [(0, 1)], fixed, M, 5, 1)
    mapped = np.linalg.solve(A, m[[0, 1]].T).T
    assert np.allclose(cos, cosine_similarity(mapped[0], mapped[1]))


def test_table4_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-table4", "--quick", "--out", str(tmp_path), "--scheduler", scheduler]
    assert run_cli(argv).code == 0
    results, table, report = target_outputs(tmp_path / "001-table4", "rates.png")
    assert results["cells_done"] == 4 and results["cells_failed"] == 0
    assert all(cell["exclusive"] for cell in results["cells"])
    for cell in results["cells"]:
        r, p = cell["result"], cell["params"]
        assert r["words_per_s"] == pytest.approx(r["samples_per_s"] * r["V"], rel=1e-12)
        if r["finished"]:
            assert r["draws_kept"] == p["draws"] and 0 < r["sampling_s"] < r["total_s"]
            assert r["samples_per_s"] == r["draws_kept"] / r["sampling_s"]
        else:  # the 1-second NUTS run at V = 603: stopped, its rate a bound
            assert p["method"] == "nuts" and p["limit_s"] == 1 and r["V"] == 603
            assert r["iterations_done"] < p["warmup"] + p["draws"]
            assert r["samples_per_s"] == table4.unfinished_bound(r["draws_kept"], 1)
    assert len(table) == 4
    for row, cell in zip(table.itertuples(), results["cells"], strict=True):
        assert (row.K, row.N, row.method) == tuple(cell["params"][k] for k in ("K", "N", "method"))
        assert row.samples_per_s == pytest.approx(cell["result"]["samples_per_s"], rel=1e-12)
    # the paper's numbers, typed, its unfinished run marked, a verdict for each claim
    assert "| 20 | 50,000 | HMC (nuts) | 0.8333 | 502.50 | not run" in report
    assert "| 20 | 50,000 | Gibbs (pg-gibbs, S = 10) | 0.2780 | 167.50 | not run" in report
    assert "| 100 | 1,000,000 | HMC (nuts) | < 0.0069* | < 4.19* | not run" in report
    assert "| 100 | 1,000,000 | Gibbs (pg-gibbs, S = 10) | 0.0267 | 16.15 | not run" in report
    assert "< 1.0000*" in report  # our unfinished quick run
    # NUTS's cost per draw: the finished quick run only, no paper rate at its setting
    nuts = next(c["result"] for c in results["cells"]
                if c["params"]["method"] == "nuts" and c["result"]["finished"])  # fmt: skip
    ms = 1000 / (nuts["samples_per_s"] * nuts["leapfrogs_per_draw"])
    assert (f"| 2 | 5,000 | {nuts['step_size']:.4f} | {nuts['leapfrogs_per_draw']:.1f} | "
            f"{nuts['divergences']} | {ms:.1f} | – |") in report  # fmt: skip
    assert "| 10 | 20,000 |" not in report.split("## NUTS's cost per draw")[1]
    assert [v["verdict"] for v in results["verdicts"]] == ["not run"] * 3
    assert "Quick run" in report and "load" in report


def test_table5_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-table5", "--quick", "--out", str(tmp_path), "--scheduler", scheduler]
    assert run_cli(argv).code == 0
    results, table, report = target_outputs(tmp_path / "001-table5", "holdout.png")
    assert results["cells_done"] == 4 and results["cells_failed"] == 0
    by_key = {}
    for cell in results["cells"]:
        r, p = cell["result"], cell["params"]
        assert r["V"] == 33 and abs(r["N_train"] - p["N"]) < 5 * np.sqrt(p["N"])
        for name in ("PM-Gibbs", "MAP", "MFVI"):
            if name in r:
                assert -5 < r[name] < 0  # a log likelihood per observation
        by_key[(p["N"], p["fit"])] = r
    # the two fits of an N share the data, the MAP and so its iterations
    for N in (5_000, 20_000):
        g, v = by_key[(N, "gibbs")], by_key[(N, "mfvi")]
        assert (g["N_train"], g["map_iterations"]) == (v["N_train"], v["map_iterations"])
    assert len(table) == 4
    for row in table.itertuples():
        r = by_key[(row.N, row.fit)]
        column = "MAP" if row.fit == "gibbs" else "MFVI"
        assert getattr(row, column) == pytest.approx(r[column], rel=1e-12)
    for N, values in table5.PAPER_TABLE.items():
        assert f"| {N:,} | paper | " + " | ".join(f"{v:.4f}" for v in values) + " |" in report
    verdicts = {v["claim"]: v["verdict"] for v in results["verdicts"]}
    assert len(verdicts) == 2 * 4 + 2 * 2 + 1
    assert sum(v == "not run" for v in verdicts.values()) == 2 * 4 + 1
    assert sum(v == "no paper row" for v in verdicts.values()) == 2 * 2


def test_table6_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-table6", "--quick", "--out", str(tmp_path), "--scheduler", scheduler]
    assert run_cli(argv).code == 0
    directory = tmp_path / "001-table6"
    results, table, report = target_outputs(directory, "cosines.csv", "cosines_K3.png")
    assert results["cells_done"] == 2 and results["cells_failed"] == 0
    cosines = pd.read_csv(directory / "cosines.csv")
    for cell in results["cells"]:
        r, p = cell["result"], cell["params"]
        assert r["V"] == 450 and len(r["fixed_words"]) == p["K"] == 3
        assert r["pairs"] == [["speak", "law"], ["that", "it"]]
        assert r["gibbs_draws"] == p["kept"]
        assert ("MFVI" in r) == p["mfvi"]
        for pair, cos in r["cosines"].items():
            assert len(cos["gibbs"]) == p["kept"] and -1 <= min(cos["gibbs"]) <= 1
            assert ("mfvi" in cos) == p["mfvi"]
            a, b = pair.split("|")
            rows = cosines[(cosines.N == p["N"]) & (cosines.word1 == a) & (cosines.word2 == b)]
            gibbs = rows[rows.method == "Gibbs"].iloc[0]
            assert gibbs["mean"] == pytest.approx(np.mean(cos["gibbs"]), rel=1e-12)
            assert rows[rows.method == "MAP"].iloc[0]["mean"] == pytest.approx(cos["map"])
    assert set(table.N) == {20_000, 60_000}
    for row in table.itertuples():
        cell = next(c for c in results["cells"] if c["params"]["N"] == row.N)
        assert row.MAP == pytest.approx(cell["result"]["MAP"], rel=1e-12)
    assert "State of the Union" in report and "not available offline" in report
    for rows in table6.PAPER_TABLE.values():
        for N, values in rows.items():
            typed = " | ".join(map(table6.typed, values))
            assert f"| {N:,} | paper | {typed} | – |" in report
    assert "| 1,000,000 | paper | -0.72549 | -0.7374 | -0.7896 | – |" in report
    assert "| 10,000,000 | paper | -0.6360 | NA | -0.6357 | – |" in report
    verdicts = [v["verdict"] for v in results["verdicts"]]
    # 8 Table 6 rows + HMC + 2 trends, 4 figure rows + 2 quick rows + HMC
    assert len(verdicts) == 8 + 1 + 2 + 4 + 2 + 1
    assert verdicts.count("no paper row") == 2 and verdicts.count("not run") == 16
    # the full grid is the paper's
    assert set(table6.GRID) == {(K, N) for K, rows in table6.PAPER_TABLE.items() for N in rows}
    why = {v["claim"].split(":")[0]: v["measured"] for v in results["verdicts"]}
    assert why["Table 6, K = 100, N = 10,000,000"] == "not in this run"
    assert why["Table 6, K = 100, N = 1,000,000"] == "not in this run"


def test_table6_lead_verdict_says_which_estimator_moved() -> None:
    def row(pm: float, mp: float) -> dict:
        return {"PM-Gibbs": pm, "MAP": mp}

    shrinks = [(500_000, row(-0.80, -0.90)), (1_000_000, row(-0.75, -0.80))]
    v = table6._lead_verdict("claim", shrinks)
    assert (v["verdict"], v["measured"]) == (
        "reproduced",
        "ours +0.1000 at 500,000, +0.0500 at 1,000,000",
    )
    # lower at the end than at the start, but rising in between: the claim is not met,
    # and the verdict says which estimator moved where the lead rose
    bump = [(500_000, row(-0.8451, -0.9075)), (1_000_000, row(-0.8432, -0.9446)),
            (5_000_000, row(-0.6665, -0.7176))]  # fmt: skip
    v = table6._lead_verdict("claim", bump)
    assert v["verdict"] == "differs"
    assert v["measured"] == (
        "ours +0.0624 at 500,000, +0.1014 at 1,000,000, +0.0511 at 5,000,000; from 500,000 "
        "to 1,000,000 the lead rises (PM-Gibbs -0.8451 to -0.8432, MAP -0.9075 to -0.9446)"
    )
    # a rise smaller than TIE (Monte Carlo noise of the PM) does not count
    flat = [(500_000, row(-0.80, -0.90)), (1_000_000, row(-0.797, -0.90)),
            (5_000_000, row(-0.70, -0.75))]  # fmt: skip
    assert table6._lead_verdict("claim", flat)["verdict"] == "reproduced"


def test_table6_row_that_differs_names_an_unconverged_map() -> None:
    import pandas as pd

    def rows(converged: bool) -> dict[str, str]:
        table = pd.DataFrame([{"K": 100, "N": 10_000_000, "PM-Gibbs": -0.6236, "MAP": -0.6468,
                               "map_converged": converged, "map_iterations": 1000},
                              {"K": 100, "N": 5_000_000, "PM-Gibbs": -0.6665, "MAP": -0.7176,
                               "map_converged": False, "map_iterations": 1000}])  # fmt: skip
        return {v["claim"].split(":")[0]: v for v in table6._table_verdicts(table)}

    unconverged = rows(False)
    assert unconverged["Table 6, K = 100, N = 10,000,000"]["measured"] == (
        "ours PM-Gibbs -0.6236, MAP -0.6468 (difference +0.0232); the MAP stopped unconverged "
        "after 1,000 iterations, but running it on widens the gap: in one longer run (outside "
        "the grid) its hold-out was -0.6046, -0.6456, -0.6538, -0.6572 after 250, 1,000, 2,000, "
        "3,000 iterations, PM-Gibbs +0.0336 ahead of the last"
    )
    # a setting with no longer run says so
    assert table6._unconverged_map(50, 100_000, 1000, -0.9) == (
        "; the MAP stopped unconverged after 1,000 iterations (what more would change is not "
        "measured)"
    )
    # a row that holds does not mention it
    assert unconverged["Table 6, K = 100, N = 5,000,000"]["verdict"] == "reproduced"
    assert "unconverged" not in unconverged["Table 6, K = 100, N = 5,000,000"]["measured"]
    assert rows(True)["Table 6, K = 100, N = 10,000,000"]["measured"] == (
        "ours PM-Gibbs -0.6236, MAP -0.6468 (difference +0.0232)"
    )
