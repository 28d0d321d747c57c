"""``bayeswe reproduce 001-fig1``, ``001-fig4`` and ``001-fig9``: quick grids end to end,
and their pure helpers on inputs with known answers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from bayeswe.reproduce import yrjanainen_common as common
from bayeswe.reproduce import yrjanainen_fig1 as fig1
from bayeswe.reproduce import yrjanainen_fig4 as fig4
from bayeswe.reproduce import yrjanainen_fig9 as fig9
from bayeswe.sgns.data import SGNSData

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def _verdicts_in_report(results: dict, report: str) -> None:
    for v in results["verdicts"]:
        assert v["verdict"] in ("reproduced", "differs", "not run")
        assert v["claim"].replace("|", "\\|") in report


# ------------------------------------------------------------------ pure helpers


def test_shell_stats_of_a_ring_and_of_a_cluster() -> None:
    angles = np.linspace(0, 2 * np.pi, 400, endpoint=False)
    radius = np.where(np.arange(400) % 2 == 0, 1.9, 2.1)
    ring = fig1.shell_stats(np.stack([radius * np.cos(angles), radius * np.sin(angles)], 1))
    assert ring["resultant"] == pytest.approx(0.0, abs=1e-12)
    assert ring["mean_to_radius"] == pytest.approx(0.0, abs=1e-12)
    assert ring["mean_radius"] == pytest.approx(2.0)
    assert ring["radial_sd"] == pytest.approx(0.1 * math.sqrt(400 / 399))
    # evenly spread angles: sd of a uniform on (-pi, pi], times the radius over 0.1
    assert ring["arc_to_radial"] == pytest.approx(2.0 * math.pi / math.sqrt(3) / 0.1, rel=0.01)
    cluster = fig1.shell_stats(np.array([[1.0, 0.0], [1.0, 0.1], [1.0, -0.1], [1.2, 0.0]]))
    assert cluster["resultant"] > 0.99 and cluster["mean_to_radius"] > 0.99
    assert cluster["angle_sd_deg"] < 6


def test_pair_cosines_and_comparisons_are_exact() -> None:
    rho = np.array([[[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0]], [[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]])
    cos = common.pair_cosines(rho, [(0, 1), (0, 2)])
    np.testing.assert_allclose(cos, [[0.0, -1.0], [1 / math.sqrt(2), 1 / math.sqrt(2)]])
    x = np.random.default_rng(1).normal(size=400)
    same = common.compare_draws(x, x)
    assert same["std_mean_diff"] == 0.0 and same["sd_ratio"] == 1.0 and same["ks"] == 0.0
    shifted = common.compare_draws(x, 2 * x + 1.0)
    assert shifted["sd_ratio"] == pytest.approx(2.0)
    assert shifted["std_mean_diff"] == pytest.approx(1.0 / x.std(ddof=1) + x.mean() / x.std(ddof=1))
    assert common.two_run_rhat(x, x + 3.0) > 1.5 and common.split_rhat(x) < 1.05
    s = common.summarize_draws(np.arange(101.0))
    assert (s["mean"], s["lower"], s["upper"]) == pytest.approx((50.0, 5.0, 95.0), abs=1e-12)
    assert common.rounded([[0.123456, 1.0]], 3) == [[0.123, 1.0]]


def test_fig4_pairs_and_thresholds() -> None:
    pairs = fig4.all_pairs(100)
    assert len(pairs) == 4950 and (pairs[:, 0] < pairs[:, 1]).all()
    assert fig4.PAPER_PAIRS == {"rho_1, rho_2": (0, 1), "rho_42, rho_44": (41, 43)}
    chosen = fig4.compare_pairs(100)
    assert len(chosen) == fig4.COMPARE_PAIRS == len(set(chosen.tolist()))
    np.testing.assert_array_equal(chosen, fig4.compare_pairs(100))
    assert fig4.similar({"std_mean_diff": 0.3, "sd_ratio": 0.75, "ks": 0.2})
    assert not fig4.similar({"std_mean_diff": 0.31, "sd_ratio": 1.0, "ks": 0.0})
    assert fig4.drastic({"std_mean_diff": -1.0, "sd_ratio": 1.0})
    assert fig4.drastic({"std_mean_diff": 0.0, "sd_ratio": 0.5})
    assert not fig4.drastic({"std_mean_diff": 0.9, "sd_ratio": 0.6})


def test_fig9_rules_choose_observed_context_words() -> None:
    # word 4 is never a context word: "last" skips it
    data = SGNSData(
        ("a", "b", "c", "d", "e"),
        [0, 1, 2, 3, 4, 0],
        [0, 1, 2, 3, 0, 1],
        [5, 3, 2, 9, 1, 4],
        [2, 1, 1, 4, 0, 2],
    )
    alpha = np.random.default_rng(0).normal(size=(5, 2))
    np.testing.assert_array_equal(fig9.anchor_index("last", alpha, data, 2), [2, 3])
    random = fig9.anchor_index("random", alpha, data, 2)
    assert len(set(random.tolist())) == 2 and 4 not in random
    np.testing.assert_array_equal(fig9.context_counts(data), [6, 7, 2, 9, 0])
    vocab = ("that", "it", "law", "the", "speak", "of")
    pairs = fig9.word_pairs(vocab, 4, 3)
    assert pairs[:2] == [(4, 2), (0, 1)] and len(pairs) == 5
    assert all(a < b < 4 for a, b in pairs[2:])


# ------------------------------------------------------------------ quick grids


def test_fig1_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-fig1", "--quick", "--out", str(tmp_path), "--scheduler", scheduler]
    assert run_cli(argv).code == 0
    results, table, report = target_outputs(tmp_path / "001-fig1", "shell.png")
    assert results["cells_done"] == 2 and results["cells_failed"] == 0
    by = {c["params"]["model"]: c["result"] for c in results["cells"]}
    assert set(by) == {"sgns", "sgns_identified"}
    for model, r in by.items():
        assert r["draws_total"] == 4 * 150 and len(r["points"]) == 600
        assert 0 <= r["resultant"] <= 1 and r["mean_radius"] > 0
        # the stored draws reproduce the stored statistics
        again = fig1.shell_stats(np.asarray(r["points"]))
        assert again["resultant"] == pytest.approx(r["resultant"], abs=1e-3)
        row = table[table.model == model].iloc[0]
        assert row.resultant == pytest.approx(r["resultant"], rel=1e-12)
        assert row.arc_to_radial == pytest.approx(r["arc_to_radial"], rel=1e-12)
    assert by["sgns_identified"]["fixed_words"] == [8, 9]  # the paper's "last" rule, V = 10
    assert by["sgns"]["fixed_words"] == [] and "truth_d2" in by["sgns_identified"]
    claims = [v["claim"] for v in results["verdicts"]]
    assert len(claims) == 4 and all(v["verdict"] != "not run" for v in results["verdicts"])
    _verdicts_in_report(results, report)
    assert "K = 2, V = 10, N = 20,000" in report and "Figure 1" in report
    assert "Quick run" in report


def test_fig4_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-fig4", "--quick", "--out", str(tmp_path), "--scheduler", scheduler]
    assert run_cli(argv).code == 0
    results, table, report = target_outputs(tmp_path / "001-fig4", "cosines.png")
    assert results["cells_done"] == 3 and results["cells_failed"] == 0
    for cell in results["cells"]:
        r, p = cell["result"], cell["params"]
        assert r["pairs"] == p["V"] * (p["V"] - 1) // 2
        assert 0 <= r["coverage90"] <= 1 and 0 <= r["coverage90_slice"] <= 1
        assert set(r["paper_pairs"]) == set(fig4.PAPER_PAIRS)
        for s in r["paper_pairs"].values():
            assert len(s["draws"]) == r["draws_total"] == p["draws"]
            assert -1 <= s["lower"] <= s["mean"] <= s["upper"] <= 1 and -1 <= s["truth"] <= 1
            assert s["mean"] == pytest.approx(np.mean(s["draws"]), abs=1e-4)
        assert len(r["compare_mean"]) == len(r["compare_sd"]) == fig4.COMPARE_PAIRS
    # one CSV row per (method, paper pair), with the numbers of results.json
    assert len(table) == 6
    for row in table.itertuples():
        cell = next(c for c in results["cells"] if c["params"]["method"] == row.method)
        s = cell["result"]["paper_pairs"][row.pair]
        assert row.mean == pytest.approx(s["mean"], rel=1e-12) and row.truth == s["truth"]
        assert row.coverage90 == pytest.approx(cell["result"]["coverage90"], rel=1e-12)
    assert len(results["verdicts"]) == 8
    assert all(v["verdict"] != "not run" for v in results["verdicts"])
    _verdicts_in_report(results, report)
    assert "rho_42, rho_44" in report and "Figure 4" in report and "Quick run" in report
    assert "K = 5, V = 100, N = 100,000" in report  # the paper's setting, beside ours


def test_fig9_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-fig9", "--quick", "--out", str(tmp_path), "--scheduler", scheduler]
    assert run_cli(argv).code == 0
    results, table, report = target_outputs(tmp_path / "001-fig9", "sensitivity.png")
    assert results["cells_done"] == 4 and results["cells_failed"] == 0
    by = {c["params"]["rule"]: (c["params"], c["result"]) for c in results["cells"]}
    assert list(by) == list(fig9.RULES)
    pairs = by["last"][1]["pairs"]
    assert pairs[:2] == [["speak", "law"], ["that", "it"]] and len(pairs) == 2 + 20
    for p, r in by.values():
        assert len(r["fixed_words"]) == p["K"] and r["fixed_counts_min"] > 0
        assert r["pairs"] == pairs and r["paper_pairs"] == 2
        assert np.asarray(r["cosines"]).shape == (22, p["draws"])
        assert abs(r["N_actual"] - p["N"]) < 0.05 * p["N"]
    assert by["frequent"][1]["fixed_words"] == ["the", "of", "and"]
    # the two runs' R-hat in the CSV is recomputed from the draws in results.json
    assert len(table) == 4 * 22
    ref = by["last"][1]["cosines"]
    for row in table[table.rule != "last"].itertuples():
        k = pairs.index(row.pair.split(", "))
        draws = by[row.rule][1]["cosines"][k]
        assert row.rhat == pytest.approx(common.two_run_rhat(ref[k], draws), rel=1e-12)
    assert table[table.rule == "last"].rhat.isna().all()
    assert len(results["verdicts"]) == 9
    _verdicts_in_report(results, report)
    assert "1.0012" in report and "State of the Union" in report and "Quick run" in report
