"""``bayeswe reproduce``: the targets' quick grids end to end, and the command's errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from bayeswe.reproduce import TARGETS

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_list_names_every_target(run_cli) -> None:
    code, out, _ = run_cli(["reproduce", "--list"])
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == list(TARGETS)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["reproduce"], "name a target"),
        (["reproduce", "003-table9"], "unknown target '003-table9'"),
        (["reproduce", "002-fig8", "--workers", "0"], "--workers must be >= 1"),
        (["reproduce", "002-fig8", "--workers", "2", "--scheduler", "tcp://h:1"], "not both"),
        (["reproduce", "002-fig8", "--only", "colour=red"], "no cell has parameter(s) ['colour']"),
        (["reproduce", "002-fig8", "--only", "K"], "KEY=VALUE"),
        (["reproduce", "002-fig8", "--only", "K=7"], "no cell matches"),
        (["reproduce", "--list", "002-fig8"], "--list takes no target"),
    ],
)
def test_bad_arguments_exit_2_before_anything_runs(
    argv: list[str], message: str, run_cli, tmp_path: Path
) -> None:
    code, out, err = run_cli([*argv, "--out", str(tmp_path / "r")])
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").rglob("*.json"))


def test_naidu_fig8_quick(run_cli, target_outputs, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "002-fig8", "--quick", "--out", str(tmp_path), "--scheduler", scheduler]
    code, out, _ = run_cli(argv)
    assert code == 0
    directory = tmp_path / "002-fig8"
    results, _, report = target_outputs(directory, "fig8.png")
    assert results["cells_done"] == 12 and results["cells_failed"] == 0 and results["quick"]
    assert results["run"]["cpu_model"] is not None and results["run"]["versions"]
    V = results["cells"][0]["result"]["V"]
    changes: dict[tuple[int, str], list[float]] = {}
    ends: dict[tuple[int, str], list[float]] = {}
    for cell in results["cells"]:
        assert cell["params"]["warm_jit"] and cell["params"]["budget"] == 0.5
        assert cell["params"]["checkpoints"] == [0.125, 0.25, 0.5]
        trace = cell["result"]["trace"]
        assert all(p["cpu_s"] >= c for p, c in zip(trace, [0.125, 0.25, 0.5], strict=True))
        # a log predictive per token: above a uniform guess over the vocabulary, below 0
        assert all(-math.log(V) < p["heldout"] < 0 for p in trace)
        assert trace[-1]["units"] >= trace[0]["units"] >= 1
        key = (cell["params"]["K"], cell["params"]["method"])
        half = next(p["heldout"] for p in trace if p["cpu_s"] >= trace[-1]["cpu_s"] / 2)
        changes.setdefault(key, []).append(trace[-1]["heldout"] - half)
        ends.setdefault(key, []).append(trace[-1]["heldout"])
    # two seeds per (K, method): replicate 0 without the key, replicate 1 with it
    assert sorted(c["params"].get("replicate", 0) for c in results["cells"]) == [0] * 6 + [1] * 6
    claims = [v["claim"] for v in results["verdicts"]]
    assert len(claims) == 3 and all(v["verdict"] in ("reproduced", "differs")
                                    for v in results["verdicts"])  # fmt: skip
    assert "Quick run" in report and "Naidu" in report and claims[0] in report
    for (K, method), values in ends.items():
        row = (f"| {K} | {method} | 2 | ", f"{np.median(values):.4f} [{min(values):.4f}, "
               f"{max(values):.4f}] | {max(changes[K, method], key=abs):+.4f} |")  # fmt: skip
        assert row[0] in report and row[1] in report
    # "SVI ends at least as high as CAVI" holds only when it does on every seed
    svi_low = {K: min(v) for (K, m), v in ends.items() if m == "svi"}
    cavi_high = {K: max(v) for (K, m), v in ends.items() if m == "cavi"}
    last = results["verdicts"][-1]
    assert last["claim"] == "every K: SVI ends at least as high as CAVI"
    holds = all(svi_low[K] >= cavi_high[K] for K in svi_low)
    assert last["verdict"] == ("reproduced" if holds else "differs")
    assert f"report {directory / 'REPORT.md'}" in out


def test_yrjanainen_table1_quick_subset(run_cli, tmp_path: Path, scheduler: str) -> None:
    argv = ["reproduce", "001-table1", "--quick", "--out", str(tmp_path), "--scheduler",
            scheduler, "--only", "method=pg-gibbs,advi"]  # fmt: skip
    assert run_cli(argv).code == 0
    directory = tmp_path / "001-table1"
    results = json.loads((directory / "results.json").read_text())
    assert results["cells_done"] == 4 and results["only"] == {"method": ["pg-gibbs", "advi"]}
    for cell in results["cells"]:
        assert 0.0 <= cell["result"]["coverage90"] <= 1.0
        assert cell["result"]["draws"] == 200
    report = (directory / "REPORT.md").read_text()
    assert "not run" in report and "| HMC (nuts) | ours | not run" in report
    # the paper's six settings, none in the quick grid, are listed beside "not run"
    from bayeswe.reproduce.yrjanainen_table1 import SETTINGS

    for K, V in SETTINGS:
        assert f"### K = {K}, V = {V}" in report
        assert f"| K = {K}, V = {V}, Laplace | not run | setting not run |" in report
    assert results["cells_reused"] == 0 and "Cells: 4 done, 0 failed" in report
    assert "by `bayeswe reproduce 001-table1 --quick --only method=pg-gibbs,advi` (seed" in report
    cells_wall = sum(c["wall_s"] for c in results["cells"])
    assert results["cells_wall_s"] == pytest.approx(cells_wall, abs=1e-3)
    # a second run reuses every finished cell, and its report says so
    before = {c["key"]: c["result"] for c in results["cells"]}
    assert run_cli(argv).code == 0
    again = json.loads((directory / "results.json").read_text())
    assert {c["key"]: c["result"] for c in again["cells"]} == before
    assert again["cells_reused"] == 4 and again["cells_wall_s"] == results["cells_wall_s"]
    report = (directory / "REPORT.md").read_text()
    assert "Cells: 4 done (4 of them finished by an earlier run and reused), 0 failed" in report
    # --finished-only runs nothing: a wider selection reports its unfinished cells not run
    cell_files = sorted((directory / "cells").iterdir())
    base = ["reproduce", "001-table1", "--quick", "--out", str(tmp_path), "--finished-only"]
    wider = [*base, "--only", "method=pg-gibbs,advi,laplace-sparse"]
    assert run_cli(wider).code == 0
    assert sorted((directory / "cells").iterdir()) == cell_files
    partial = json.loads((directory / "results.json").read_text())
    assert partial["finished_only"] and partial["cells_selected"] == 6
    assert {c["key"]: c["result"] for c in partial["cells"]} == before
    report = (directory / "REPORT.md").read_text()
    assert "4 of the 6 selected cells had finished; this run computed none" in report
    assert "and the other 2 are reported as not run.\n\n**Quick run**" in report
    quick_setting = report.split("### K = 2, V = 10")[1].split("###")[0]
    not_run_row = " | ".join(["not run"] * 9)
    assert f"| Laplace (laplace-sparse) | ours | {not_run_row} |" in quick_setting
    assert f"| MFVI (advi) | ours | {not_run_row} |" not in quick_setting
    # a selection whose cells have all finished reports none as not run
    assert run_cli([*base, "--only", "method=pg-gibbs,advi"]).code == 0
    report = (directory / "REPORT.md").read_text()
    assert "4 of the 4 selected cells had finished; this run computed none, and none is" in report
    assert "`bayeswe reproduce 001-table1 --quick --only method=pg-gibbs,advi --finished-only`" in (
        report
    )
    complete = json.loads((directory / "results.json").read_text())
    assert complete["finished_only"] and complete["cells_selected"] == 4
    # with no finished cell in the selection, it stops before writing anything
    code, out, err = run_cli([*base, "--only", "method=nuts"])
    assert code == 2 and out == "" and "none of the 2 selected cells has finished" in err
    assert json.loads((directory / "results.json").read_text()) == complete
    code, _, err = run_cli([*wider, "--workers", "2"])
    assert code == 2 and "--finished-only runs no cell" in err


def test_anchors_are_the_last_words_observed_as_contexts() -> None:
    from bayeswe.reproduce.yrjanainen_table1 import last_observed_contexts, simulated_dataset
    from bayeswe.sgns.data import SGNSData

    # word 4 is never a context word (only a target), word 3 only in a pair with n=0
    data = SGNSData.from_counts(5, [4, 4, 0, 1, 3], [0, 1, 2, 3, 1], [3, 2, 1, 0, 5],
                                [1, 1, 0, 0, 2])  # fmt: skip
    assert last_observed_contexts(data, 2) == [1, 2]
    assert last_observed_contexts(data, 3) == [0, 1, 2]
    # K=10, V=200, N=1,000, dataset 5: the paper's last ten words miss w192 and w197
    sim, anchors, _, _ = simulated_dataset(10, 200, 1000, 5)
    assert anchors.words == tuple(f"w{i}" for i in (188, 189, 190, 191, 193, 194, 195, 196,
                                                     198, 199))  # fmt: skip


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_a_run_with_no_finished_cell_reports_every_claim_not_run(name: str, tmp_path: Path) -> None:
    from bayeswe.reproduce import get_target

    report = get_target(name).report([], tmp_path, quick=False)
    assert {v["verdict"] for v in report["verdicts"]} <= {"not run"}
    assert report["markdown"].endswith("\n") and (tmp_path / "table.csv").exists()


def test_table1_true_anchor_row_explains_a_shortfall_by_what_it_measured(tmp_path: Path) -> None:
    from bayeswe.reproduce import yrjanainen_table1 as t1
    from bayeswe.reproduce.grid import Cell, CellResult

    # the fifth row fixes the same anchor words at the simulation's true vectors
    sim, anchors, _, _ = t1.simulated_dataset(2, 10, 2_000, 0)
    truth = t1.true_anchors(sim, anchors)
    assert truth.words == anchors.words
    assert np.array_equal(truth.fixed_index, anchors.fixed_index)
    assert np.array_equal(truth.fixed_alpha, np.asarray(sim.alpha)[anchors.fixed_index])
    assert not np.allclose(truth.fixed_alpha, anchors.fixed_alpha)

    def cell(method: str, N: int, coverage: float) -> CellResult:
        params = {"K": 5, "V": 100, "N": N, "dataset": 0, "method": method}
        return CellResult(Cell("001-table1", params), 0, "done",
                          {"coverage90": coverage, "rmse_co": 0.1, "fit_s": 1.0})  # fmt: skip

    # Gibbs 5.2 points short at N = 1,000 with MAP anchors, 89.3 % with true anchors;
    # HMC short as well, and true anchors 86.0 % at its worst N (2,000)
    results = [cell("pg-gibbs", 1_000, 0.848), cell("pg-gibbs", 2_000, 0.899),
               cell(t1.TRUE_ANCHORS, 1_000, 0.893), cell(t1.TRUE_ANCHORS, 2_000, 0.860),
               cell("nuts", 1_000, 0.889), cell("nuts", 2_000, 0.850)]  # fmt: skip
    report = t1.report(results, tmp_path, quick=False)
    found = {v["claim"]: v for v in report["verdicts"]}
    gibbs, hmc = found["K = 5, V = 100, Gibbs"], found["K = 5, V = 100, HMC"]
    assert gibbs["verdict"] == hmc["verdict"] == "differs"
    assert gibbs["measured"] == (
        "largest |coverage - 90| over N: 5.2 points (claim: about 90 at every N); at N = "
        "1,000, 84.8 % with the anchors at the MAP against 89.3 % with them at their true "
        "vectors (pg-gibbs, the same dataset): the shortfall comes from fixing the anchors "
        "at a noisy MAP"
    )
    assert hmc["measured"].endswith(
        "at N = 2,000, 85.0 % with the anchors at the MAP against 86.0 % with them at their "
        "true vectors (pg-gibbs, the same dataset): true anchors do not close the gap"
    )
    # the comparison pairs datasets: a second dataset run only with true anchors (and
    # Gibbs) does not enter HMC's, and enters Gibbs's on both sides
    second = [CellResult(Cell("001-table1", {**r.cell.params, "dataset": 1}), 0, "done",
                         {**r.result, "coverage90": r.result["coverage90"] + 0.02})
              for r in results if r.cell.params["method"] != "nuts"]  # fmt: skip
    paired = t1.report(results + second, tmp_path, quick=False)
    found = {v["claim"]: v["measured"] for v in paired["verdicts"]}
    assert found["K = 5, V = 100, HMC"].endswith(
        "at N = 2,000, 85.0 % with the anchors at the MAP against 86.0 % with them at their "
        "true vectors (pg-gibbs, the same dataset): true anchors do not close the gap"
    )
    assert found["K = 5, V = 100, Gibbs"] == (
        "largest |coverage - 90| over N: 4.2 points (claim: about 90 at every N); at N = "
        "1,000, 85.8 % with the anchors at the MAP against 90.3 % with them at their true "
        "vectors (pg-gibbs, the same 2 datasets): the shortfall comes from fixing the anchors "
        "at a noisy MAP"
    )
    # the fifth row sits under Gibbs's, also for a setting the run did not include
    md = report["markdown"]
    assert (
        "| Gibbs, true anchors (pg-gibbs-true-anchors) | ours | 89.3 (1) | 86.0 (1) | not run" in md
    )
    assert md.count("| Gibbs, true anchors (pg-gibbs-true-anchors) | ours |") == 6
    # within the tolerance the verdict adds nothing
    close = t1.report([cell("pg-gibbs", 1_000, 0.88), cell(t1.TRUE_ANCHORS, 1_000, 0.9)],
                      tmp_path, quick=False)  # fmt: skip
    measured = {v["claim"]: v["measured"] for v in close["verdicts"]}["K = 5, V = 100, Gibbs"]
    assert measured == "largest |coverage - 90| over N: 2.0 points (claim: about 90 at every N)"
    # Laplace's claim is about large N: not judged until an N >= 500,000 has finished
    small = t1.report([cell("laplace-sparse", 100_000, 0.95)], tmp_path, quick=False)
    laplace = {v["claim"]: v for v in small["verdicts"]}["K = 5, V = 100, Laplace"]
    assert (laplace["verdict"], laplace["measured"]) == ("not run", "no N >= 500,000 finished")
    both = [cell("laplace-sparse", 100_000, 0.95), cell("laplace-sparse", 500_000, 0.91)]
    large = t1.report(both, tmp_path, quick=False)
    laplace = {v["claim"]: v for v in large["verdicts"]}["K = 5, V = 100, Laplace"]
    assert laplace["verdict"] == "reproduced"
    assert laplace["measured"].startswith("at N = 500,000: 91.0 % (claim: near 90 at large N")


def test_table1_cost_section_counts_only_methods_run_at_every_n(tmp_path: Path) -> None:
    from bayeswe.reproduce import yrjanainen_table1 as t1
    from bayeswe.reproduce.grid import Cell, CellResult

    def cell(method: str, N: int, dataset: int, fit_s: float) -> CellResult:
        params = {"K": 5, "V": 100, "N": N, "dataset": dataset, "method": method}
        return CellResult(Cell("001-table1", params), 0, "done",
                          {"coverage90": 0.9, "rmse_co": 0.1, "fit_s": fit_s})  # fmt: skip

    # advi at every N in two datasets (40 s and 80 s: 60 s mean), nuts at two N only
    results = [cell("advi", N, d, 40.0 * (d + 1)) for N in t1.SIZES for d in range(2)]
    results += [cell("nuts", N, 0, 600.0) for N in t1.SIZES[:2]]
    md = t1.report(results, tmp_path, quick=False)["markdown"]
    assert "| 5 x 100 | 2 of 9 N | 9.0 | 0 of 9 N | 0 of 9 N | 0 of 9 N |" in md
    # ten datasets of advi at 9 minutes each; nuts, not run at every N, is left out
    assert "measured at every N take 1.5 hours of cell time" in md
