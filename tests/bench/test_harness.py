"""The benchmark harness: timing, subprocesses, run facts, atomic output, the CLI glue."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from bench_checks import check_run_facts

from bayeswe.bench import BENCHMARKS, harness
from bayeswe.errors import OutputError


def _spin(seconds: float) -> int:
    """Burn CPU for about ``seconds`` of thread time."""
    t0, n = time.thread_time(), 0
    while time.thread_time() - t0 < seconds:
        n += 1
    return n


# --------------------------------------------------------------------------- timing


def test_timed_measures_wall_and_cpu_separately() -> None:
    slept = harness.timed(time.sleep, 0.05)
    assert slept.value is None and slept.wall_s >= 0.05
    assert slept.cpu_s < 0.03  # sleeping uses no CPU
    spun = harness.timed(_spin, 0.05)
    assert spun.value > 0 and spun.cpu_s >= 0.05 and spun.process_cpu_s >= spun.cpu_s * 0.9


def test_best_of_is_the_least_of_the_repeats() -> None:
    delays = iter([0.03, 0.01, 0.02])
    times, value = harness.repeat_timings(lambda: time.sleep(next(delays)) or "done", 3)
    assert len(times) == 3 and value == "done"
    assert times[1] < times[0] and times[1] >= 0.01
    delays = iter([0.03, 0.01, 0.02])
    best, _ = harness.best_of(lambda: time.sleep(next(delays)), 3)
    assert 0.01 <= best < 0.03
    with pytest.raises(ValueError, match="repeats"):
        harness.best_of(lambda: None, 0)
    with pytest.raises(ValueError, match="clock"):
        harness.best_of(lambda: None, 1, clock="sundial")


def test_run_for_stops_after_the_budget_and_reports_the_state_within_it() -> None:
    run = harness.run_for(lambda: _spin(0.01), 0.1, clock="thread", record=True)
    assert run.seconds >= 0.1 and run.calls == len(run.trace) >= 5
    times = [t for t, _ in run.trace]
    assert times == sorted(times) and times[-1] == run.seconds
    calls, seconds, value = run.at(0.05)
    assert seconds <= 0.05 and (calls == len(run.trace) or times[calls] > 0.05)
    assert value == run.trace[calls - 1][1]
    # the first call counts even when it alone is over the budget
    assert run.at(0.0)[0] == 1
    once = harness.run_for(lambda: _spin(0.02), 0.001, clock="thread")
    assert once.calls == 1 and once.trace == []
    with pytest.raises(ValueError, match="record=True"):
        once.at(1.0)
    assert harness.run_for(lambda: 1 / 0, -1.0, min_calls=0).calls == 0


# --------------------------------------------------------------------------- subprocesses


def test_call_in_subprocess_sets_the_thread_counts() -> None:
    for threads in (1, 2):
        res = harness.call_in_subprocess("os:getenv", "NUMBA_NUM_THREADS", threads=threads)
        assert res.value == str(threads)
        assert 0.005 < res.peak_rss_gb < 2 and res.wall_s >= 0
    env = harness.thread_env(3, base={"PATH": "/bin"})
    assert env == {"PATH": "/bin", **dict.fromkeys(harness.THREAD_ENV_VARS, "3")}
    assert harness.thread_env(None, base={"A": "1"}) == {"A": "1"}


def test_a_subprocess_peak_memory_is_its_own_not_its_parents() -> None:
    # ru_maxrss survives exec: a child of this process (the test process's own memory and
    # half a GiB) would report more than that half GiB
    parent = np.ones(2**26)  # 0.5 GiB, touched
    idle = harness.call_in_subprocess("builtins:exec", "x = 1")
    busy = harness.call_in_subprocess("builtins:exec", "import numpy as np; a = np.ones(2**25)")
    assert parent[-1] == 1.0
    assert 0.005 < idle.peak_rss_gb < 0.5
    # the child's own quarter GiB shows in full
    assert 0.22 < busy.peak_rss_gb - idle.peak_rss_gb < 0.4


def test_a_failing_subprocess_raises_with_its_stderr() -> None:
    with pytest.raises(harness.BenchSubprocessError, match="ZeroDivisionError"):
        harness.call_in_subprocess("operator:truediv", 1, 0)


# --------------------------------------------------------------------------- facts


def test_run_facts_are_present_and_well_typed() -> None:
    facts = harness.start_run(["--quick"])
    time.sleep(0.01)
    run = harness.finish_run(facts, peers=("gensim", "no-such-distribution-bayeswe"))
    check_run_facts(run)
    assert run["argv"] == ["--quick"] and "_t0" not in run
    assert run["duration_s"] >= 0.01
    assert run["versions"]["numpy"] == np.__version__
    assert run["versions"]["no-such-distribution-bayeswe"] is None
    assert "gensim" in run["versions"]
    json.dumps(run)  # JSON as it is


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def test_git_state_reports_a_dirty_tree_without_a_commit(tmp_path: Path) -> None:
    assert harness.git_state(tmp_path) == {"commit": None, "dirty": None}  # not a checkout
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one\n")
    _git(tmp_path, "add", "a.txt")
    _git(tmp_path, "commit", "-q", "-m", "one")
    head = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    assert harness.git_state(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "a.txt").write_text("two\n")  # modified
    assert harness.git_state(tmp_path) == {"commit": None, "dirty": True}
    _git(tmp_path, "checkout", "-q", "a.txt")
    (tmp_path / "new.py").write_text("")  # untracked code can change what runs too
    assert harness.git_state(tmp_path) == {"commit": None, "dirty": True}


def test_stan_toolchain_is_read_without_building(monkeypatch: pytest.MonkeyPatch) -> None:
    from bayeswe.stan import toolchain

    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("the harness must not build the toolchain")

    monkeypatch.setattr(toolchain, "build_bundled", no_build)
    monkeypatch.setattr(toolchain, "find_real_cmdstan", lambda: None)
    monkeypatch.setattr(toolchain, "bundled_path", lambda: Path("/nonexistent/bayeswe"))
    assert harness.stan_toolchain() == {"kind": "bundled", "version": None, "built": False}


# --------------------------------------------------------------------------- output


def test_atomic_write_leaves_no_file_when_serialisation_fails(tmp_path: Path) -> None:
    path = tmp_path / "results" / "bench.json"
    # the unserialisable value comes after a long list: json.dump has written part of it
    bad = {"rows": list(range(10_000)), "bad": object()}
    with pytest.raises(TypeError, match="not JSON serializable"):
        harness.write_json_atomic(path, bad)
    assert not path.exists()
    # no temporary file left behind either (the directory is made only for a good file)
    assert not path.parent.exists() or list(path.parent.iterdir()) == []
    # an earlier complete file survives a failed rewrite untouched
    harness.write_json_atomic(path, {"summary": {"x": 1}})
    before = path.read_text()
    with pytest.raises(TypeError):
        harness.write_json_atomic(path, bad)
    assert path.read_text() == before and json.loads(before) == {"summary": {"x": 1}}
    assert [p.name for p in path.parent.iterdir()] == ["bench.json"]


def test_atomic_write_leaves_no_file_when_the_rename_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bench.json"

    def crash(src: str, dst: str) -> None:
        raise OSError("disk went away")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk went away"):
        harness.write_json_atomic(path, {"summary": {}})
    assert list(tmp_path.iterdir()) == []


def test_json_output_handles_numpy_values(tmp_path: Path) -> None:
    obj = {"a": np.float64(1.5), "b": np.arange(3), "c": np.int32(2), "p": Path("/x")}
    path = harness.write_json_atomic(tmp_path / "x.json", obj)
    assert json.loads(path.read_text()) == {"a": 1.5, "b": [0, 1, 2], "c": 2, "p": "/x"}
    assert path.read_text() == harness.to_json(obj) + "\n"


def _args(*argv: str, report: bool = False) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    harness.add_common_options(parser, quick="smoke", text_report=report)
    return parser.parse_args(list(argv))


def test_run_cli_prints_and_writes_the_same_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    args = _args("--json", "--output", str(out), "--quick")
    assert args.quick

    def body() -> dict:
        harness.progress("working")
        return {"rows": [1, 2], "summary": {"speedup": np.float64(2.0)}, "benchmark": "x"}

    assert harness.run_cli("toy", args, body, argv=["--quick"], peers=("tomotopy",)) == 0
    captured = capsys.readouterr()
    assert captured.err == "working\n"  # progress on stderr, stdout holds only the JSON
    assert out.read_text() == captured.out
    result = json.loads(captured.out)
    assert list(result) == ["benchmark", "summary", "run", "rows"]
    assert result["benchmark"] == "toy" and result["summary"] == {"speedup": 2.0}
    check_run_facts(result["run"])
    assert "tomotopy" in result["run"]["versions"]


def test_run_cli_text_report_still_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    args = _args("--output", str(out), report=True)
    code = harness.run_cli(
        "toy", args, lambda: {"summary": {"x": 3}}, report=lambda r: f"x is {r['summary']['x']}"
    )
    assert code == 0
    assert capsys.readouterr().out == "x is 3\n"
    assert json.loads(out.read_text())["summary"] == {"x": 3}
    with pytest.raises(harness.BenchError, match="no summary"):
        harness.run_cli("toy", _args("--json"), lambda: {"rows": []})


def test_run_cli_checks_the_output_before_the_benchmark_runs(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    ran = []
    with pytest.raises(ValueError, match="--output"):
        harness.run_cli("toy", _args("--output", str(blocker / "r.json")), lambda: ran.append(1))
    assert ran == []  # refused before the body, not after hours of it


def test_run_cli_prints_the_json_when_the_output_cannot_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    out = results / "r.json"

    def body() -> dict:
        results.write_text("")  # the output's directory becomes a file while it runs
        return {"summary": {"x": 3}}

    for argv in (("--json", "--output", str(out)), ("--output", str(out))):
        results.unlink(missing_ok=True)
        with pytest.raises(OutputError, match="r.json"):
            harness.run_cli("toy", _args(*argv, report=True), body, report=lambda r: "x is 3")
        # the result is not lost: the JSON is on stdout even where a text report was asked
        assert json.loads(capsys.readouterr().out)["summary"] == {"x": 3}
        assert results.read_text() == ""


def test_every_benchmark_has_the_common_options() -> None:
    import importlib

    for name, (module_name, _help) in BENCHMARKS.items():
        module = importlib.import_module(module_name)
        parser = module.build_parser()
        args = parser.parse_args(["--json", "--output", "x.json"])
        assert args.json and args.output == "x.json", name
        doc = module.__doc__
        assert "Equal footing" in doc and "Summary keys" in doc, name
