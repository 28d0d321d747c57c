"""Grids on Dask: cached cells, seeds independent of workers, failures, resume after a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bayeswe.reproduce.grid import Cell, GridError, run_grid
from bayeswe.reproduce.toy import toy_cell

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


@pytest.fixture(scope="module")
def address():
    """One two-worker cluster for the tests that are not about starting one."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def _cells(n: int, **extra) -> list[Cell]:
    return [Cell("toy", {"i": i, "mean": float(i), **extra}) for i in range(n)]


def _ran(marker: Path) -> list[int]:
    return [int(x) for x in marker.read_text().split()] if marker.exists() else []


def _start_toy_grid(
    tmp_path: Path, out: Path, params: dict, n: int, env: dict | None = None
) -> subprocess.Popen:
    """A toy grid of ``n`` cells (``i`` plus ``params``) on one worker, in a new session of
    its own, so that a test can signal the client, the scheduler and the worker together."""
    script = tmp_path / "run.py"
    script.write_text(
        textwrap.dedent(f"""
        from bayeswe.reproduce.grid import Cell, run_grid
        from bayeswe.reproduce.toy import toy_cell
        if __name__ == "__main__":
            cells = [Cell("toy", {{"i": i, **{params!r}}}) for i in range({n})]
            run_grid(cells, toy_cell, out={str(out)!r}, base_seed=5, workers=1, progress=False)
    """)
    )
    return subprocess.Popen([sys.executable, str(script)], start_new_session=True, env=env)


def test_cell_key_and_seed_depend_only_on_the_cell() -> None:
    a, b = Cell("t", {"x": 1, "y": [1, 2]}), Cell("t", {"y": [1, 2], "x": 1})
    assert a.key == b.key and a.seed(7) == b.seed(7)
    assert a.seed(7) != a.seed(8)
    assert Cell("t", {"x": 2}).key != a.key and Cell("u", {"x": 1, "y": [1, 2]}).key != a.key
    # a cell that repeats another for longer takes that cell's seed, under its own key
    longer = Cell("t", {"x": 1, "y": [1, 2], "n": 9}, seed_params={"x": 1, "y": [1, 2]})
    assert longer.seed(7) == a.seed(7) and longer.key != a.key
    assert longer.key == Cell("t", {"x": 1, "y": [1, 2], "n": 9}).key
    assert Cell("t", {"x": 1, "y": [1, 2], "n": 9}).seed(7) != a.seed(7)


def test_results_do_not_depend_on_the_number_of_workers(tmp_path: Path, address: str) -> None:
    cells = _cells(6)
    one = run_grid(cells, toy_cell, out=tmp_path / "one", base_seed=3, workers=1, progress=False)
    # the module's cluster has two workers
    two = run_grid(cells, toy_cell, out=tmp_path / "two", base_seed=3, scheduler=address,
                   progress=False)  # fmt: skip
    assert [r.result for r in one] == [r.result for r in two]
    assert [r.seed for r in one] == [c.seed(3) for c in cells]
    # and the draws are those of each cell's own seed
    assert one[4].result == toy_cell(dict(cells[4].params), cells[4].seed(3))
    other = run_grid(cells, toy_cell, out=tmp_path / "other", base_seed=4, scheduler=address,
                     progress=False)  # fmt: skip
    assert other[0].result != one[0].result


def test_a_failed_cell_is_recorded_the_rest_go_on_and_a_rerun_retries_it(
    tmp_path: Path, address: str
) -> None:
    marker = tmp_path / "ran.txt"
    cells = [Cell("toy", {"i": i, "fail": i == 2, "marker": str(marker)}) for i in range(4)]
    out = tmp_path / "grid"
    first = run_grid(cells, toy_cell, out=out, base_seed=1, scheduler=address, progress=False)
    assert [r.status for r in first] == ["done", "done", "failed", "done"]
    assert "cell 2 was told to fail" in first[2].error
    stored = json.loads((out / "cells" / f"{cells[2].key}.json").read_text())
    assert stored["status"] == "failed" and "told to fail" in stored["error"]
    assert sorted(_ran(marker)) == [0, 1, 2, 3]
    second = run_grid(cells, toy_cell, out=out, base_seed=1, scheduler=address, progress=False)
    assert sorted(_ran(marker)) == [0, 1, 2, 2, 3]  # only the failed cell ran again
    assert [r.cached for r in second] == [True, True, False, True]
    assert [r.result for r in second if r.status == "done"] == [
        r.result for r in first if r.status == "done"
    ]


def test_a_cell_file_from_other_inputs_is_not_reused(tmp_path: Path, address: str) -> None:
    marker = tmp_path / "ran.txt"
    cells = [Cell("toy", {"i": 0, "marker": str(marker)})]
    kw = {"out": tmp_path, "scheduler": address, "progress": False}
    run_grid(cells, toy_cell, base_seed=1, **kw)
    run_grid(cells, toy_cell, base_seed=1, **kw)  # finished: not run again
    path = tmp_path / "cells" / f"{cells[0].key}.json"
    path.write_text(path.read_text()[:20])  # truncated: redone
    run_grid(cells, toy_cell, base_seed=1, **kw)
    run_grid(cells, toy_cell, base_seed=2, **kw)  # another seed: redone
    assert _ran(marker) == [0, 0, 0]


def test_exclusive_cells_run_alone_after_the_others(tmp_path: Path, address: str) -> None:
    marker = tmp_path / "ran.txt"
    cells = [
        Cell("toy", {"i": i, "marker": str(marker), "sleep": 0.2}, exclusive=i >= 3)
        for i in range(6)
    ]
    run_grid(cells, toy_cell, out=tmp_path / "g", base_seed=1, scheduler=address, progress=False)
    order = _ran(marker)
    assert sorted(order[:3]) == [0, 1, 2] and order[3:] == [3, 4, 5]


def test_bad_grid_arguments(tmp_path: Path) -> None:
    cells = _cells(2)
    with pytest.raises(GridError, match="workers must be a positive integer"):
        run_grid(cells, toy_cell, out=tmp_path, base_seed=1, workers=0)
    with pytest.raises(GridError, match="not both"):
        run_grid(cells, toy_cell, out=tmp_path, base_seed=1, workers=2, scheduler="tcp://x:1")
    with pytest.raises(GridError, match="same target and parameters"):
        run_grid([*cells, cells[0]], toy_cell, out=tmp_path, base_seed=1, workers=1)


def test_an_existing_cluster_by_address(tmp_path: Path, address: str) -> None:
    cells = _cells(3)
    got = run_grid(cells, toy_cell, out=tmp_path, base_seed=9, scheduler=address, progress=False)
    assert [r.result for r in got] == [toy_cell(dict(c.params), c.seed(9)) for c in cells]


def test_killed_run_resumes_with_only_the_unfinished_cells(tmp_path: Path, address: str) -> None:
    marker = tmp_path / "ran.txt"
    out = tmp_path / "grid"
    proc = _start_toy_grid(tmp_path, out, {"marker": str(marker), "sleep": 0.5}, 8)
    try:
        deadline = time.monotonic() + 120
        while len(list((out / "cells").glob("*.json"))) < 3:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no cells finished in 2 minutes"
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the client and its worker processes
        proc.wait()
    finished = {json.loads(p.read_text())["params"]["i"] for p in (out / "cells").glob("*.json")}
    assert 3 <= len(finished) < 8
    before = len(_ran(marker))
    cells = [Cell("toy", {"i": i, "marker": str(marker), "sleep": 0.5}) for i in range(8)]
    results = run_grid(cells, toy_cell, out=out, base_seed=5, scheduler=address, progress=False)
    rerun = _ran(marker)[before:]
    assert sorted(rerun) == sorted(set(range(8)) - finished)
    # every cell, resumed or not, holds the draws of its own seed
    assert all(r.status == "done" for r in results)
    assert [r.result for r in results] == [
        toy_cell({**c.params, "marker": None}, c.seed(5)) for c in cells
    ]


def test_the_code_that_computed_a_cell_is_stored_and_read_back(
    tmp_path: Path, address: str
) -> None:
    cells = _cells(2)
    at = {"commit": "a" * 40, "dirty": False}
    first = run_grid(cells, toy_cell, out=tmp_path, base_seed=1, scheduler=address,
                     progress=False, computed_at=at)  # fmt: skip
    assert [r.extra["computed_at"] for r in first] == [at, at]
    stored = json.loads((tmp_path / "cells" / f"{cells[0].key}.json").read_text())
    assert stored["computed_at"] == at
    # a later run at another commit reuses the cells and keeps who computed them
    later = run_grid(cells, toy_cell, out=tmp_path, base_seed=1, workers=1, progress=False,
                     computed_at={"commit": "b" * 40, "dirty": False})  # fmt: skip
    assert [r.cached for r in later] == [True, True]
    assert [r.extra["computed_at"] for r in later] == [at, at]


def test_a_suspended_run_resumes_its_cells_in_progress(tmp_path: Path) -> None:
    """A run whose processes are all stopped (SIGSTOP, as a suspended laptop or job) and
    then continued finishes the cells it was running instead of starting them again.

    Dask's scheduler restarts a worker that has not sent a heartbeat for its
    ``worker-ttl`` (5 minutes by default), which a long enough suspension always
    exceeds. Here the TTL is set to its floor of 5 s through the environment, and the
    run is stopped for 8 s in the middle of a cell.
    """
    started = tmp_path / "started.txt"
    out = tmp_path / "grid"
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL": "1s"}
    proc = _start_toy_grid(tmp_path, out, {"start_marker": str(started), "sleep": 4.0}, 2, env)
    try:
        deadline = time.monotonic() + 120
        while not _ran(started):
            assert proc.poll() is None, "the run ended before its first cell started"
            assert time.monotonic() < deadline, "no cell started in 2 minutes"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGSTOP)  # the client, the scheduler and the worker
        time.sleep(8.0)
        os.killpg(proc.pid, signal.SIGCONT)
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert sorted(_ran(started)) == [0, 1]  # each cell started once
    assert len(list((out / "cells").glob("*.json"))) == 2
