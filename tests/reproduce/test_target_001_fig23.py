"""``bayeswe reproduce 001-fig2``, ``001-fig2-zipf`` and ``001-fig3``: quick grids, helpers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayeswe.reproduce import yrjanainen_fig2 as fig2
from bayeswe.reproduce import yrjanainen_fig2_zipf as fig2_zipf
from bayeswe.reproduce import yrjanainen_fig3 as fig3
from bayeswe.reproduce import yrjanainen_rmse as shared
from bayeswe.reproduce.grid import Cell, CellResult
from bayeswe.sgns.simulate import word_probabilities

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_list_shows_the_three_targets(run_cli) -> None:
    code, out, _ = run_cli(["reproduce", "--list"])
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert {"001-fig2", "001-fig2-zipf", "001-fig3"} <= set(names)


def test_helpers_are_exact() -> None:
    sizes = [1_000, 10_000, 100_000, 1_000_000]
    assert shared.loglog_slope(sizes, [3.0 * n**-0.5 for n in sizes]) == pytest.approx(-0.5)
    assert shared.loglog_slope([10, 100], [1.0, 0.1]) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="two or more"):
        shared.loglog_slope([10], [1.0])
    # the log-linear regime: five observations per pair on average
    assert shared.slope_sizes(shared.SIZES, 100) == [50_000, 100_000, 500_000, 1_000_000]
    assert shared.slope_sizes((200, 2_000, 20_000), 10) == [2_000, 20_000]


def test_full_grids_are_the_papers() -> None:
    for module, target, distribution in (
        (fig2, "001-fig2", "uniform"),
        (fig2_zipf, "001-fig2-zipf", "zipf"),
    ):
        grid = module.cells(False)
        # 9 sizes x 10 datasets x MAP, MFVI, NUTS, Gibbs
        assert len(grid) == 9 * 10 * 4 == 360
        assert len({c.key for c in grid}) == len(grid)
        assert {c.target for c in grid} == {target}
        assert {c.params["distribution"] for c in grid} == {distribution}
        assert {(c.params["K"], c.params["V"]) for c in grid} == {(5, 100)}
        assert sorted({c.params["N"] for c in grid}) == list(shared.SIZES)
        nuts = {c.params["dataset"] for c in grid if c.params["method"] == "nuts"}
        assert nuts == set(range(10))
        assert all(c.params["draws"] == c.params["warmup"] == 1000 for c in grid)
    assert len(fig2.cells(True)) == len(fig2_zipf.cells(True)) == 3 * (2 * 3 + 1)


def test_zipf_datasets_share_the_truth_of_the_uniform_ones() -> None:
    uniform, u_anchors, _, sd = shared.dataset("uniform", 2, 10, 2_000, 0)
    zipf, z_anchors, _, sd_z = shared.dataset("zipf", 2, 10, 2_000, 0)
    assert sd == sd_z == 1 / math.sqrt(2)
    np.testing.assert_array_equal(uniform.rho, zipf.rho)
    np.testing.assert_array_equal(uniform.alpha, zipf.alpha)
    np.testing.assert_array_equal(zipf.word_prob, word_probabilities(10, "zipf"))
    assert zipf.data.total == uniform.data.total == 2_000
    # uniform keeps the paper's last K words
    assert list(u_anchors.fixed_index) == [8, 9]
    assert len(z_anchors.fixed_index) == 2
    with pytest.raises(ValueError, match="distribution"):
        shared.dataset("pareto", 2, 10, 2_000, 0)


def _synthetic(hmc_factor: float) -> list[CellResult]:
    """Cells whose RMSE_co follow the paper's story exactly (Gibbs: 0.1 (N / 1000)^-0.5)."""
    results = []
    for N in shared.SIZES:
        gibbs = 0.1 * (N / 1_000) ** -0.5
        late = N >= 50_000
        rmse = {"pg-gibbs": gibbs, "nuts": gibbs * hmc_factor,
                "map": gibbs * (1.02 if late else 1.3),
                "advi": gibbs * ((N / 50_000) ** 0.2 if late else 1.0)}  # fmt: skip
        for d in range(2):
            for method, value in rmse.items():
                params = {"distribution": "uniform", "K": 5, "V": 100, "N": N, "dataset": d,
                          "method": method, "draws": 1000, "warmup": 1000}  # fmt: skip
                results.append(CellResult(Cell("001-fig2", params), 0, "done",
                                          {"rmse_co": value, "rmse_co_prob": value}))  # fmt: skip
    return results


def test_verdicts_on_known_numbers(tmp_path: Path) -> None:
    out = shared.report(_synthetic(1.02), tmp_path, quick=False, distribution="uniform",
                        doc=fig2.__doc__)  # fmt: skip
    verdicts = {v["claim"]: v for v in out["verdicts"]}
    rows = shared.claim_rows(5, 100)
    assert list(verdicts) == rows
    assert [verdicts[c]["verdict"] for c in rows] == ["reproduced"] * 8 + ["not run"]
    assert "fitted slope -0.500" in verdicts[rows[4]]["measured"]  # MAP
    assert "fitted slope -0.300" in verdicts[rows[5]]["measured"]  # MFVI
    assert "MFVI / Gibbs at N = 1,000,000: 1.821" in verdicts[rows[1]]["measured"]
    assert "| Gibbs (pg-gibbs) | ours | 0.1000 (2) |" in out["markdown"]
    assert (tmp_path / "rmse.png").stat().st_size > 0
    # HMC 20 % off Gibbs: "similar" and "very close" fail, the slopes do not
    out = shared.report(_synthetic(1.2), tmp_path, quick=False, distribution="uniform",
                        doc=fig2.__doc__)  # fmt: skip
    kinds = [v["verdict"] for v in out["verdicts"]]
    assert kinds == ["differs", "reproduced", "reproduced", "differs"] + ["reproduced"] * 4 + [
        "not run"
    ]
    table = pd.read_csv(tmp_path / "table.csv")
    assert len(table) == 9 * 2 * 4 and set(table.method) == set(shared.METHODS.values())


def _check_quick(outputs: tuple[dict, pd.DataFrame, str], distribution: str) -> tuple[dict, str]:
    results, table, report = outputs
    assert results["cells_done"] == 21 and results["cells_failed"] == 0 and results["quick"]
    by_key = {}
    for cell in results["cells"]:
        p, r = cell["params"], cell["result"]
        assert p["distribution"] == distribution and (p["K"], p["V"]) == (2, 10)
        assert 0 < r["rmse_co"] < 0.5 and 0 < r["rmse_co_prob"] < 0.5
        if p["method"] == "map":  # a point estimate: both errors are the same number
            assert r["draws"] is None and r["rmse_co"] == r["rmse_co_prob"]
        else:
            assert r["draws"] == p["draws"] == 200
        by_key[(p["N"], p["dataset"], p["method"])] = r
    assert {d for _, d, m in by_key if m == "nuts"} == {0}
    # the CSV holds the numbers of results.json, one row per cell
    assert len(table) == 21
    for row in table.itertuples():
        r = by_key[(row.N, row.dataset, row.method)]
        assert row.rmse_co == pytest.approx(r["rmse_co"], rel=1e-12)
        assert row.rmse_co_prob == pytest.approx(r["rmse_co_prob"], rel=1e-12)
    # the report's means are the CSV's
    mean = table.groupby(["method", "N"])["rmse_co"].agg(["mean", "count"])
    for (method, n), (value, count) in mean.iterrows():
        assert f"{value:.4f} ({int(count)})" in report, (method, n)
    # every claim of the paper, quoted, and a verdict for each at both settings
    for text in shared.PAPER_CLAIMS.values():
        assert text in report
    verdicts = results["verdicts"]
    paper_rows = [v for v in verdicts if v["claim"].startswith("K = 5, V = 100")]
    quick_rows = [v for v in verdicts if v["claim"].startswith("K = 2, V = 10")]
    assert [v["claim"] for v in paper_rows] == shared.claim_rows(5, 100)
    assert [v["claim"] for v in quick_rows] == shared.claim_rows(2, 10)
    assert len(verdicts) == 18
    assert all(v["verdict"] == "not run" for v in paper_rows)
    assert [v["verdict"] for v in quick_rows].count("not run") == 1  # the V claim
    assert all(v["verdict"] in ("reproduced", "differs", "not run") for v in quick_rows)
    assert "| MAP | paper |" in report and "| MFVI | paper |" in report
    assert "Quick run" in report and "Fig. 2" in report
    return results, report


def test_fig2_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-fig2", "--quick", "--out", str(tmp_path), "--scheduler", scheduler]
    assert run_cli(argv).code == 0
    results, report = _check_quick(target_outputs(tmp_path / "001-fig2", "rmse.png"), "uniform")
    assert "left panel" in results["source"] and "last" in report


def test_fig2_zipf_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-fig2-zipf", "--quick", "--out", str(tmp_path),
            "--scheduler", scheduler]  # fmt: skip
    assert run_cli(argv).code == 0
    results, report = _check_quick(target_outputs(tmp_path / "001-fig2-zipf", "rmse.png"), "zipf")
    assert "right panel" in results["source"] and "qr" in report
    # Zipf pairs reach fewer distinct (w, v) cells than uniform ones at the same N
    cells = {(c["params"]["N"], c["params"]["dataset"]): c["result"]["P"]
             for c in results["cells"]}  # fmt: skip
    uniform = {k: shared.dataset("uniform", 2, 10, k[0], k[1])[0].data.P for k in cells}
    assert sum(cells.values()) < sum(uniform.values())


# ---- 001-fig3: the Gibbs sampler by N / V over several (K, V) ----


def test_fig3_grids_are_the_papers() -> None:
    grid = fig3.cells(False)
    # 6 settings x 9 sizes x 10 datasets, Gibbs only, 250 + 250
    assert len(grid) == 6 * 9 * 10 == 540
    assert len({c.key for c in grid}) == len(grid) and {c.target for c in grid} == {"001-fig3"}
    assert {(c.params["K"], c.params["V"]) for c in grid} == set(fig3.SETTINGS)
    assert set(fig3.SETTINGS) == {(K, V) for K in (5, 10, 20) for V in (100, 200)}
    assert sorted({c.params["N"] for c in grid}) == list(fig3.SIZES)
    assert {c.params["dataset"] for c in grid} == set(range(10))
    assert {c.params["method"] for c in grid} == {"pg-gibbs"}
    assert {c.params["distribution"] for c in grid} == {"uniform"}
    assert all(c.params["draws"] == c.params["warmup"] == 250 for c in grid)
    quick = fig3.cells(True)
    assert len(quick) == 2 * 3 * 2
    assert {(c.params["K"], c.params["V"]) for c in quick} == {(2, 10), (2, 20)}


def test_fig3_collapse_ratios_are_exact() -> None:
    # RMSE_co = (N / V)^-0.5 for both V: the V = 200 points lie on the V = 100 line
    small = {n: (n / 100) ** -0.5 for n in fig3.SIZES}
    large = {n: (n / 200) ** -0.5 for n in fig3.SIZES}
    ratios = fig3.collapse_ratios(small, large, 100, 200)
    assert list(ratios) == [2_500.0, 5_000.0]  # N >= 5 V^2 = 200,000 for V = 200
    assert all(r == pytest.approx(1.0) for r in ratios.values())
    # RMSE_co proportional to V at fixed N: 2 / sqrt(2) above the line
    large = {n: 2 * n**-0.5 for n in fig3.SIZES}
    small = {n: n**-0.5 for n in fig3.SIZES}
    ratios = fig3.collapse_ratios(small, large, 100, 200)
    assert all(r == pytest.approx(math.sqrt(2)) for r in ratios.values())
    assert fig3.collapse_ratios(small, {1_000: 0.1}, 100, 200) == {}


def _fig3_synthetic(law) -> list[CellResult]:  # noqa: ANN001
    results = []
    for K, V in fig3.SETTINGS:
        for N in fig3.SIZES:
            for d in range(2):
                params = {"distribution": "uniform", "method": "pg-gibbs", "draws": 250,
                          "warmup": 250, "K": K, "V": V, "N": N, "dataset": d}  # fmt: skip
                value = law(K, V, N)
                results.append(CellResult(Cell("001-fig3", params), 0, "done",
                                          {"rmse_co": value, "rmse_co_prob": value}))  # fmt: skip
    return results


def test_fig3_verdicts_on_known_numbers(tmp_path: Path) -> None:
    rows = fig3.claim_rows(fig3.SETTINGS)
    assert len(rows) == 6 * 2 + 3 * 2
    # the paper's reading: RMSE_co = 0.05 sqrt(K) (N / V)^-0.5, straight at every size
    out = fig3.report(_fig3_synthetic(lambda K, V, N: 0.05 * math.sqrt(K) * (N / V) ** -0.5),
                      tmp_path, quick=False)  # fmt: skip
    verdicts = {v["claim"]: v for v in out["verdicts"]}
    assert list(verdicts) == rows
    assert all(v["verdict"] == "reproduced" for v in verdicts.values())
    assert "fitted slope -0.500 over N = 50,000-1,000,000" in verdicts[rows[1]]["measured"]
    assert "fitted slope -0.500 over N = 500,000-1,000,000" in verdicts[rows[7]]["measured"]
    growth, collapse = verdicts[rows[12]]["measured"], verdicts[rows[13]]["measured"]
    assert "N = 500,000: 1.414 (exponent of V 0.50)" in growth
    assert "N/V = 2,500: 1.000, N/V = 5,000: 1.000" in collapse
    table = pd.read_csv(tmp_path / "table.csv")
    assert len(table) == 6 * 9 * 2
    np.testing.assert_allclose(table.N_over_V, table.N / table.V)
    assert "| 5 | 100 | ours | 0.0354 (2) |" in out["markdown"]  # 0.05 sqrt(5) / sqrt(10)
    assert (tmp_path / "rmse.png").stat().st_size > 0

    # the literal reading, RMSE_co proportional to V, and K = 20, V = 200 flat at the top
    def literal(K: int, V: int, N: int) -> float:
        n = 500_000 if (K, V, N) == (20, 200, 1_000_000) else N
        return 0.05 * math.sqrt(K) * V / 100 * n**-0.5

    out = fig3.report(_fig3_synthetic(literal), tmp_path, quick=False)
    verdicts = {v["claim"]: v for v in out["verdicts"]}
    kinds = [verdicts[c]["verdict"] for c in rows]
    assert kinds[:10] == ["reproduced"] * 10 and kinds[10:12] == ["differs"] * 2
    assert kinds[12:] == ["reproduced", "differs"] * 3
    assert "N = 1,000,000: 2.000 (exponent of V 1.00)" in verdicts[rows[12]]["measured"]
    assert "N/V = 2,500: 1.414" in verdicts[rows[13]]["measured"]


def test_fig3_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-fig3", "--quick", "--out", str(tmp_path), "--scheduler", scheduler]
    assert run_cli(argv).code == 0
    results, table, report = target_outputs(tmp_path / "001-fig3", "rmse.png")
    assert results["cells_done"] == 12 and results["cells_failed"] == 0 and results["quick"]
    assert "Fig. 3" in results["source"] and "Quick run" in report
    by_key = {}
    for cell in results["cells"]:
        p, r = cell["params"], cell["result"]
        assert p["method"] == "pg-gibbs" and p["distribution"] == "uniform"
        assert (p["K"], p["V"]) in fig3.QUICK_SETTINGS and r["draws"] == p["draws"] == 100
        assert 0 < r["rmse_co"] < 0.5
        by_key[(p["V"], p["N"], p["dataset"])] = r
    # the data are 001-table1's datasets
    sim = fig3.shared.dataset("uniform", 2, 20, 10_000, 1)[0]
    assert by_key[(20, 10_000, 1)]["P"] == sim.data.P
    # the CSV holds the numbers of results.json; the report's means are the CSV's
    assert len(table) == 12
    for row in table.itertuples():
        assert row.rmse_co == pytest.approx(by_key[(row.V, row.N, row.dataset)]["rmse_co"])
        assert row.N_over_V == row.N / row.V
    for (K, V, n), value in table.groupby(["K", "V", "N"])["rmse_co"].mean().items():
        assert f"{value:.4f} (2)" in report, (K, V, n)
    for text in fig3.PAPER_CLAIMS.values():
        assert text in report
    verdicts = results["verdicts"]
    rows = fig3.claim_rows([*fig3.SETTINGS, *fig3.QUICK_SETTINGS])
    assert [v["claim"] for v in verdicts] == rows
    paper = [v for v in verdicts if not v["claim"].startswith("K = 2,")]
    quick = {v["claim"]: v["verdict"] for v in verdicts if v["claim"].startswith("K = 2,")}
    assert len(paper) == 18 and all(v["verdict"] == "not run" for v in paper)
    assert len(quick) == 6 and set(quick.values()) <= {"reproduced", "differs"}
    # at fixed N the larger vocabulary has the larger error, at every size
    assert quick["K = 2, V = 10 -> 20: RMSE_co increases with V at fixed N"] == "reproduced"
    assert "| 5 | 100 | paper |" in report and "≈ -0.5" in report
