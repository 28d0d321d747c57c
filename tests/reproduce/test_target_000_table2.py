"""``bayeswe reproduce 000-table2``: the quick grid end to end, the helpers, the grid's design."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayeswe.reproduce import sakaya_table2 as table2

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

pytest.importorskip("gensim.models")  # WS-353 and the word2vec baselines


def test_spearman_rows_is_scipys_spearman_row_by_row() -> None:
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 5, size=(4, 30)).astype(float)  # many ties
    cosines = rng.normal(size=(4, 30))
    cosines[:, :3] = 0.25  # tied cosines too
    ours = table2.spearman_rows(scores, cosines)
    for row in range(4):
        assert ours[row] == pytest.approx(stats.spearmanr(scores[row], cosines[row])[0], abs=1e-12)
    assert table2.spearman_rows(scores[:1], scores[:1])[0] == pytest.approx(1.0, abs=1e-12)


def test_bootstrap_is_paired_and_fixed() -> None:
    rng = np.random.default_rng(1)
    scores = rng.normal(size=50)
    cos = {"a": scores + rng.normal(size=50), "b": rng.normal(size=50)}
    one, two = table2.bootstrap_scores(scores, cos), table2.bootstrap_scores(scores, cos)
    assert set(one) == {"a", "b"} and one["a"].shape == (table2.BOOTSTRAP,)
    assert np.array_equal(one["a"], two["a"]) and np.array_equal(one["b"], two["b"])
    # the same resamples for every method: a method compared with itself differs by 0
    same = table2.bootstrap_scores(scores, {"a": cos["a"], "a2": cos["a"].copy()})
    assert np.array_equal(same["a"], same["a2"])
    assert np.median(one["a"]) > np.median(one["b"])


def test_the_paper_table_and_the_grid() -> None:
    assert len(table2.PAPER_TABLE) == 12
    values = {name: v for name, _, v in table2.PAPER_TABLE}
    assert values["Algorithm 4"] == 46.86 and values["Algorithm 3"] == 19.47
    assert max(values, key=values.get) == "Algorithm 4"  # the thesis's claim
    assert set(table2.OURS_FOR) <= set(values)
    full = table2.cells(quick=False)
    assert [(c.params["method"], c.params["ard"]) for c in full] == [
        *table2.FITS, table2.LONG_RUN, table2.LONG_RUN]  # fmt: skip
    capped = full[0].params
    assert "role" not in capped and table2.cell_label(capped) == "jj-vb (ARD)"
    for cell, iterations in zip(full[-2:], (60, 200), strict=True):
        long_run = cell.params
        assert long_run["role"] == table2.LONG_RUN_ROLE
        same = {**long_run, "iterations": capped["iterations"], "role": None}
        assert same == {**capped, "role": None}
        assert long_run["iterations"] == iterations and capped["iterations"] == 25
        assert table2.cell_label(long_run) == f"jj-vb (ARD), {iterations} iterations"
        assert cell.seed(1) == full[0].seed(1)
    for c in full:  # the thesis's settings (section 6.2, Table 2's caption)
        p = c.params
        assert (p["K"], p["window"], p["negatives"], p["subsample"], p["min_count"]) == (
            50, 2, 2, 1e-5, 10)  # fmt: skip
        assert p["corpus"] == "sotu+brown" and not c.exclusive
    assert len({c.key for c in full} | {c.key for c in table2.cells(quick=True)}) == 17
    assert table2.label("jj-vb", True) == "jj-vb (ARD)"
    assert table2.label("jj-svi", False) == "jj-svi (no ARD)" and table2.label("map", None) == "map"


def test_variational_fit_is_fit_sgns_jj_methods() -> None:
    """The target calls the function behind ``fit_sgns(method="jj-vb"/"jj-svi")``."""
    from bayeswe.sgns.fitting import fit_sgns
    from bayeswe.sgns.simulate import simulate_sgns

    data = simulate_sgns(V=15, K=2, N=3000, seed=4).data
    for method, extra in (("jj-vb", {}), ("jj-svi", {"batch_size": 40})):
        for ard in (True, False):
            params = {"K": 2, "method": method, "ard": ard, "iterations": 4, **extra}
            ours = table2._variational(params, data, seed=9)
            opts = {"iter": 4} if method == "jj-vb" else {"passes": 4, **extra}
            idata = fit_sgns(data, 2, method=method, identified=False, seed=9, draws=5, ard=ard,
                             **opts)  # fmt: skip
            assert ours["elbo"] == idata.optimization_trace["elbo"].values.tolist()
            assert (ours["ard_precision"] is None) == (not ard)


def test_quick_run(run_cli, target_outputs, tmp_path: Path) -> None:
    from bayeswe.evaluation.testsets import load_similarity
    from bayeswe.reproduce.run import reproduce

    code, out, _ = run_cli(["reproduce", "000-table2", "--quick", "--out", str(tmp_path),
                            "--workers", "2"])  # fmt: skip
    assert code == 0
    directory = tmp_path / "000-table2"
    results, table, report = target_outputs(directory, "table2.png")
    assert results["cells_done"] == 8 and results["cells_failed"] == 0 and results["quick"]
    bench = load_similarity("WS-353")
    assert len(table) == 8
    for cell, row in zip(results["cells"], table.itertuples(), strict=True):
        r, p = cell["result"], cell["params"]
        assert row.fit == table2.cell_label(p)
        assert r["n_pairs"] == 353 and 2 <= r["n_covered"] <= 353
        # the stored score is Spearman's rho of the stored cosines with WS-353's scores
        cos = np.array([np.nan if c is None else c for c in r["cosines"]])
        covered = ~np.isnan(cos)
        assert covered.sum() == r["n_covered"]
        expected = stats.spearmanr(bench.score[covered], cos[covered])[0]
        assert r["spearman"] == pytest.approx(expected, abs=1e-12)
        assert row.spearman_x100 == pytest.approx(100 * r["spearman"], rel=1e-12)
        assert row.n_covered == r["n_covered"]
        if p["method"] in ("jj-vb", "jj-svi"):
            post = r["posterior"]
            assert -1 <= post["lower"] <= post["mean"] <= post["upper"] <= 1
            assert len(r["elbo"]) == r["iterations_run"] <= p["iterations"]
            assert (r["ard_active"] is not None) == p["ard"]
            if p["method"] == "jj-vb":  # coordinate ascent: the bound never decreases
                assert np.all(np.diff(r["elbo"]) >= -1e-9 * np.abs(r["elbo"][1:]))
        else:
            assert r["posterior"] is None and r["elbo"] is None
    # every fit sees the same data
    assert len({(c["result"]["V"], c["result"]["P"], c["result"]["n_covered"])
                for c in results["cells"]}) == 1  # fmt: skip
    for name, citation, value in table2.PAPER_TABLE:
        assert f"| {name} | {citation} | {value:.2f} |" in report
    assert "Quick run" in report and "State of the Union" in report and "RCV1" in report
    verdicts = results["verdicts"]
    assert len(verdicts) == 15
    kinds = [v["verdict"] for v in verdicts]
    assert kinds.count("not run") == 8
    assert all(k in ("reproduced", "differs") for k in kinds if k != "not run")
    for v in verdicts:
        assert v["claim"] in report
    # each analogue row names the corpus's share of its gap: skip-gram here minus published
    sg = next(r for r in table.itertuples() if r.fit == "word2vec-sg").spearman_x100
    share = f"word2vec-sg on our corpus scores {sg:.2f} against its published 42.73"
    with_share = [v["claim"] for v in verdicts if share in v["measured"]]
    assert with_share == ["Algorithm 3: 19.47", "word2vec (SK) [Dhi14]: 42.73",
                          "word2vec (CB) [Dhi14]: 42.97", "Algorithm 4: 46.86"]  # fmt: skip
    assert f"({sg - 42.73:+.1f}): the corpus's share" in verdicts[-4]["measured"]
    # the long run against the 25-iteration cap: the score's difference and the bound's gain
    fits = {r.fit: r for r in table.itertuples()}
    capped, longer = fits["jj-vb (ARD)"], fits["jj-vb (ARD), 30 iterations"]
    assert longer.iterations_run > capped.iterations_run
    # the same start (the capped cell's seed): the long run's first iterations are the capped fit's
    by_fit = {table2.cell_label(c["params"]): c for c in results["cells"]}
    capped_cell, long_cell = by_fit["jj-vb (ARD)"], by_fit["jj-vb (ARD), 30 iterations"]
    assert long_cell["seed"] == capped_cell["seed"] and long_cell["key"] != capped_cell["key"]
    n = capped.iterations_run
    assert long_cell["result"]["elbo"][:n] == capped_cell["result"]["elbo"]
    assert longer.final_elbo >= capped.final_elbo  # coordinate ascent: the bound never falls
    last = verdicts[-1]
    assert last["claim"].startswith("Algorithm 4 near optimal after 20-25 iterations")
    assert last["verdict"] in ("reproduced", "differs")
    d = longer.spearman_x100 - capped.spearman_x100
    assert f"jj-vb (ARD), 30 iterations minus jj-vb (ARD): {d:+.2f}" in last["measured"]
    ard = f"ARD dims on {capped.ard_active:.0f} then {longer.ard_active:.0f}"
    assert ard in last["measured"]
    assert f"report {directory / 'REPORT.md'}" in out

    # a rerun restricted to jj-vb reuses its cells; the other analogues are then not run
    again = reproduce("000-table2", quick=True, out=tmp_path, only={"method": ["jj-vb"]},
                      progress=False)  # fmt: skip
    results2 = json.loads((again / "results.json").read_text())
    assert results2["cells_done"] == 3
    assert all(c["result"] == next(d["result"] for d in results["cells"] if d["key"] == c["key"])
               for c in results2["cells"])  # fmt: skip
    by_claim = {v["claim"]: v["verdict"] for v in results2["verdicts"]}
    assert by_claim["Algorithm 3: 19.47"] == "not run"
    assert by_claim["word2vec (SK) [Dhi14]: 42.73"] == "not run"
    assert by_claim["Algorithm 4: 46.86"] in ("reproduced", "differs")
    # without the skip-gram fit there is no corpus share to name
    assert not any("on our corpus" in v["measured"] for v in results2["verdicts"])
    assert sum(v == "not run" for v in by_claim.values()) == 13
    assert by_claim[last["claim"]] == last["verdict"]  # both jj-vb (ARD) fits are in
    assert not pd.read_csv(again / "table.csv").spearman_x100.isna().any()


def test_report_without_finished_cells_marks_every_row_not_run(tmp_path: Path) -> None:
    out = table2.report([], tmp_path, quick=False)
    assert len(out["verdicts"]) == 15
    assert {v["verdict"] for v in out["verdicts"]} == {"not run"}
    assert (tmp_path / "table2.png").stat().st_size > 0
    assert len(pd.read_csv(tmp_path / "table.csv")) == 0
    assert "| Algorithm 4 |  | 46.86 | jj-vb (ARD) | not run |" in out["markdown"]


def test_long_run_verdict_compares_the_longest_run_and_lists_the_others() -> None:
    """With long runs of 60 and 200 iterations, the verdict is on the 200-iteration run
    against the cap, and the 60-iteration run is given as a step between."""
    rng = np.random.default_rng(3)
    base = rng.normal(size=table2.BOOTSTRAP)
    boot = {
        "jj-vb (ARD)": base,
        "jj-vb (ARD), 60 iterations": base - 0.05,
        "jj-vb (ARD), 200 iterations": base + 0.002 * rng.normal(size=base.size),
    }
    rows = [("jj-vb (ARD)", 35.0, 25, -100.0, 40.0, False),
            ("jj-vb (ARD), 200 iterations", 35.5, 200, -98.0, 10.0, True),
            ("jj-vb (ARD), 60 iterations", 30.0, 60, -99.0, 14.0, True)]  # fmt: skip
    table = pd.DataFrame(
        [
            {
                "fit": f,
                "spearman_x100": s,
                "iterations_run": n,
                "final_elbo": e,
                "ard_active": a,
                "long_run": lr,
                "n_covered": 340,
                "n_pairs": 353,
            }
            for f, s, n, e, a, lr in rows
        ]
    )
    last = table2._claims(table, boot)[-1]
    assert last["claim"].startswith("Algorithm 4 near optimal after 20-25 iterations")
    measured = last["measured"]
    assert measured.startswith("jj-vb (ARD), 200 iterations minus jj-vb (ARD): +0.50")
    assert "final ELBO +2.00% higher after 200 iterations than after 25" in measured
    assert "ARD dims on 40 then 10; after 60 iterations 30.00, ARD dims on 14;" in measured
    # the paired differences of the 200-iteration run straddle 0: reproduced
    assert last["verdict"] == "reproduced"
    # without the 200-iteration run, the 60-iteration run (5 points lower) decides
    last = table2._claims(table[table.iterations_run != 200], boot)[-1]
    assert last["measured"].startswith("jj-vb (ARD), 60 iterations minus jj-vb (ARD): -5.00")
    assert "after 60 iterations 30.00" not in last["measured"] and last["verdict"] == "differs"
