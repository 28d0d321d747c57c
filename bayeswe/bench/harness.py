"""The benchmark harness: how every ``bayeswe bench`` module times, runs and reports.

One implementation of what each benchmark needs besides its own measurement:

* **clocks and timing** - :data:`CLOCKS`: ``"wall"`` (``time.perf_counter``),
  ``"thread"`` (``time.thread_time``: CPU seconds of the calling thread, the figure
  that other processes on a shared machine do not inflate) and ``"process"``
  (``time.process_time``: all threads of this process); :func:`timed` (one call on
  all three clocks), :func:`repeat_timings` / :func:`best_of` (repeated calls on one
  clock) and :func:`run_for` (call until a budget on one clock is spent, with the
  trace of every call, so that two samplers can be compared after equal time);
* **subprocesses** - :func:`call_in_subprocess` runs ``module:function`` in a fresh
  interpreter (its own peak memory, thread counts fixed through
  :data:`THREAD_ENV_VARS` before anything reads them) and returns its JSON result;
* **Stan programs** - :func:`compile_program_text`, :func:`json_ready`,
  :func:`log_prob_at`, :func:`time_per_gradient` and :func:`gradient_timings`, so that
  the three benchmarks that pit a Stan program against a peer program time gradients
  the same way;
* **facts about the run** (:func:`start_run`, :func:`finish_run`) - the command line,
  git commit (``None`` with ``"dirty": true`` when the tree differs from it), UTC
  start and end, Python and package versions (the peers' too), the Stan toolchain,
  CPU model and count, thread settings, and the load average at start and end;
* **command line and output** - :func:`add_common_options` (``--json``,
  ``--output PATH``, ``--quick``), :func:`run_cli` (facts + body + output),
  :func:`emit` (one JSON object on stdout; with ``--output`` the same text written
  atomically by :func:`write_json_atomic`) and :func:`progress` (stderr).

Every result object is ``{"benchmark": NAME, "summary": {...}, "run": {...}, ...}``:
``summary`` holds the headline figures (documented in each module), ``run`` the facts.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.metadata
import json
import logging
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bayeswe.errors import BayesweError

__all__ = [
    "BASE_PACKAGES",
    "THREAD_ENV_VARS",
    "BenchError",
    "BenchSubprocessError",
    "CLOCKS",
    "BudgetRun",
    "SubprocessResult",
    "Timed",
    "add_common_options",
    "best_of",
    "call_in_subprocess",
    "compile_program_text",
    "cpu_model",
    "emit",
    "finish_run",
    "git_state",
    "gradient_timings",
    "json_ready",
    "load_average",
    "log_prob_at",
    "progress",
    "repeat_timings",
    "repository_root",
    "run_cli",
    "run_for",
    "stan_toolchain",
    "start_run",
    "thread_env",
    "thread_settings",
    "time_per_gradient",
    "timed",
    "to_json",
    "versions",
    "write_json_atomic",
]


class BenchError(BayesweError):
    """A benchmark could not run (missing input, failed measurement)."""


class BenchSubprocessError(BenchError, RuntimeError):
    """A measurement run in a subprocess failed; the message ends with its stderr."""


# --------------------------------------------------------------------------- clocks

#: The clocks by name: ``wall`` (``perf_counter``), ``thread`` (``thread_time``, CPU
#: of the calling thread), ``process`` (``process_time``, CPU of every thread).
CLOCKS: dict[str, Callable[[], float]] = {
    "wall": time.perf_counter,
    "thread": time.thread_time,
    "process": time.process_time,
}


def _clock(name: str) -> Callable[[], float]:
    try:
        return CLOCKS[name]
    except KeyError:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {name!r}") from None


@dataclass(frozen=True)
class Timed:
    """One timed call: its return value and the seconds it took on each clock."""

    value: Any
    wall_s: float
    cpu_s: float  # thread CPU (time.thread_time)
    process_cpu_s: float


def timed(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Timed:
    """Call ``fn(*args, **kwargs)`` once; its value and its wall, thread and process times."""
    p0, c0, w0 = time.process_time(), time.thread_time(), time.perf_counter()
    value = fn(*args, **kwargs)
    w1, c1, p1 = time.perf_counter(), time.thread_time(), time.process_time()
    return Timed(value, w1 - w0, c1 - c0, p1 - p0)


def repeat_timings(
    fn: Callable[[], Any], repeats: int, *, clock: str = "wall"
) -> tuple[list[float], Any]:
    """Seconds of ``repeats`` calls of ``fn()`` on ``clock``, and the last call's value."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    now = _clock(clock)
    times, value = [], None
    for _ in range(repeats):
        t0 = now()
        value = fn()
        times.append(now() - t0)
    return times, value


def best_of(fn: Callable[[], Any], repeats: int, *, clock: str = "wall") -> tuple[float, Any]:
    """Least seconds over ``repeats`` calls of ``fn()`` (on ``clock``), and the last value."""
    times, value = repeat_timings(fn, repeats, clock=clock)
    return min(times), value


@dataclass
class BudgetRun:
    """What :func:`run_for` did: calls made, seconds spent, the last value, the trace.

    ``trace`` holds ``(seconds, value)`` after each call (cumulative seconds on the
    budget's clock) when :func:`run_for` was asked to record it.
    """

    calls: int
    seconds: float
    wall_s: float
    value: Any
    trace: list[tuple[float, Any]] = field(default_factory=list)

    def at(self, budget: float) -> tuple[int, float, Any]:
        """``(calls, seconds, value)`` at the last recorded call that ended within ``budget``.

        The first call counts even if it alone exceeds the budget, so that every side
        has a value. Needs ``record=True``.
        """
        if not self.trace:
            raise ValueError("no trace: call run_for(..., record=True)")
        n = 1
        for i, (seconds, _) in enumerate(self.trace, start=1):
            if seconds <= budget:
                n = i
        seconds, value = self.trace[n - 1]
        return n, seconds, value


def run_for(
    fn: Callable[[], Any],
    budget: float,
    *,
    clock: str = "wall",
    min_calls: int = 1,
    record: bool = False,
) -> BudgetRun:
    """Call ``fn()`` until ``budget`` seconds on ``clock`` are spent (at least ``min_calls``).

    The budget is checked between calls, so the last call may end past it;
    :meth:`BudgetRun.at` gives the state at the last call that ended within a budget.
    """
    now = _clock(clock)
    w0, t0 = time.perf_counter(), now()
    calls, value, trace = 0, None, []
    spent = 0.0
    while calls < min_calls or spent < budget:
        value = fn()
        calls += 1
        spent = now() - t0
        if record:
            trace.append((spent, value))
    return BudgetRun(calls, spent, time.perf_counter() - w0, value, trace)


# --------------------------------------------------------------------------- subprocesses

#: Environment variables that fix a subprocess's thread counts (Numba, OpenMP, BLAS).
THREAD_ENV_VARS = (
    "NUMBA_NUM_THREADS",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
)

_CHILD = """
import importlib, json, sys, time
from bayeswe.memory import peak_rss_gb
spec = json.loads(sys.argv[1])
module, _, name = spec["target"].partition(":")
fn = getattr(importlib.import_module(module), name)
w0 = time.perf_counter()
value = fn(*spec["args"], **spec["kwargs"])
wall_s = time.perf_counter() - w0
peak = peak_rss_gb()
print(json.dumps({"value": value, "peak_rss_gb": peak, "wall_s": wall_s}))
"""


def thread_env(threads: int | None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of ``base`` (default ``os.environ``) with every thread count set to ``threads``.

    ``None`` leaves the counts as they are.
    """
    env = dict(os.environ if base is None else base)
    if threads is not None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        for name in THREAD_ENV_VARS:
            env[name] = str(int(threads))
    return env


@dataclass(frozen=True)
class SubprocessResult:
    """A subprocess call: the function's value, the process's peak RSS and the call's time."""

    value: Any
    peak_rss_gb: float
    wall_s: float


def call_in_subprocess(
    target: str,
    /,
    *args: Any,
    threads: int | None = None,
    timeout: float | None = None,
    **kwargs: Any,
) -> SubprocessResult:
    """Run ``module:function(*args, **kwargs)`` in a fresh Python; its JSON value.

    A fresh process has its own peak resident memory (:func:`bayeswe.memory.peak_rss_gb`:
    its own address space's, not the parent's high-water mark that ``ru_maxrss`` carries
    over; it includes the interpreter and the imports, so compare against a baseline
    call of the same kind) and reads ``threads`` (:func:`thread_env`) before Numba,
    OpenMP or BLAS start. Arguments and the return value go through JSON. ``wall_s`` is the
    function call alone (imports excluded).

    Raises
    ------
    BenchSubprocessError
        The process failed or printed no JSON result (the message holds its stderr).
    """
    spec = json.dumps({"target": target, "args": list(args), "kwargs": kwargs})
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, spec],
            capture_output=True,
            text=True,
            env=thread_env(threads),
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise BenchSubprocessError(f"{target} timed out after {timeout} s") from err
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise BenchSubprocessError(
            f"{target} failed in a subprocess (exit {done.returncode}):\n{done.stderr[-4000:]}"
        )
    out = json.loads(lines[-1])
    return SubprocessResult(out["value"], float(out["peak_rss_gb"]), float(out["wall_s"]))


# --------------------------------------------------------------------------- Stan programs


def json_ready(data: Mapping[str, Any], *, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """``data`` with NumPy arrays as lists (as cmdstanpy writes JSON), without the ``drop`` keys."""
    import numpy as np

    return {
        k: (v.tolist() if isinstance(v, np.ndarray) else v)
        for k, v in data.items()
        if k not in drop
    }


def compile_program_text(text: str, file_name: str) -> Any:
    """Compile a Stan program given as text (a benchmark's peer) through the model cache.

    The source is written to ``file_name`` in a temporary folder; the executable is
    cached like any other by :func:`bayeswe.stan.toolchain.compile_model` (by name and
    source hash), so the folder can go.
    """
    from bayeswe.stan.toolchain import compile_model

    with tempfile.TemporaryDirectory(prefix="bayeswe-peer-") as tmp:
        source = Path(tmp) / file_name
        source.write_text(text)
        return compile_model(source)


def time_per_gradient(
    model: Any,
    data: Mapping[str, Any],
    inits: Mapping[str, Any],
    *,
    seed: int,
    iters: int,
    step: float,
    depth: int,
    metric: str | None = None,
) -> tuple[float, int]:
    """Seconds per gradient evaluation of a compiled Stan program, and how many were timed.

    Runs NUTS without adaptation (fixed ``step`` and ``max_treedepth=depth``) from
    ``inits`` and divides Stan's own sampling time by the number of leapfrog steps, so
    start-up, I/O and warm-up are excluded for every program alike. ``metric`` is
    passed to cmdstanpy (e.g. ``"unit_e"``; ``None`` keeps Stan's default).
    """
    # Without adaptation most iterations hit max_treedepth on purpose; cmdstanpy's
    # warning about it is noise here.
    logger = logging.getLogger("cmdstanpy")
    level = logger.level
    logger.setLevel(max(level, logging.ERROR))
    extra = {} if metric is None else {"metric": metric}
    try:
        with tempfile.TemporaryDirectory(prefix="bayeswe-bench-") as out:
            fit = model.sample(
                data=dict(data),
                chains=1,
                iter_warmup=0,
                iter_sampling=iters,
                adapt_engaged=False,
                step_size=step,
                max_treedepth=depth,
                inits=dict(inits),
                seed=seed,
                show_progress=False,
                show_console=False,
                output_dir=out,
                **extra,
            )
            steps = int(fit.method_variables()["n_leapfrog__"].sum())
            seconds = float(fit.time[0]["sampling"])
    finally:
        logger.setLevel(level)
    return seconds / steps, steps


def gradient_timings(
    programs: Sequence[tuple[str, Any, Mapping[str, Any], Mapping[str, Any]]],
    *,
    repeats: int,
    seed: int,
    iters: int,
    step: float,
    depth: int,
    metric: str | None = None,
    alternate: bool = False,
) -> list[dict[str, Any]]:
    """:func:`time_per_gradient` of each ``(name, model, data, inits)``, ``repeats`` times.

    Within a repeat the programs run back to back (in reverse order on odd repeats
    with ``alternate``), so that the machine's load hits them alike; repeat ``r`` uses
    ``seed + r`` for every program. One dict per repeat, with ``{name}_grad_us``
    (microseconds per gradient) and ``{name}_leapfrog_steps``; each is also printed
    as a progress line.
    """
    runs = []
    for r in range(repeats):
        entry: dict[str, Any] = {}
        order = programs[::-1] if alternate and r % 2 else programs
        for name, model, data, inits in order:
            seconds, steps = time_per_gradient(
                model, data, inits, seed=seed + r, iters=iters, step=step, depth=depth,
                metric=metric,
            )  # fmt: skip
            entry[f"{name}_grad_us"] = seconds * 1e6
            entry[f"{name}_leapfrog_steps"] = steps
        progress({"repeat": r, **entry})
        runs.append(entry)
    return runs


def log_prob_at(model: Any, params: Mapping[str, Any], data: Mapping[str, Any]) -> float:
    """The program's log density (no Jacobian) at constrained ``params``, to 16 digits."""
    frame = model.log_prob(dict(params), dict(data), jacobian=False, sig_figs=16)
    return float(frame["lp__"].iloc[0])


# --------------------------------------------------------------------------- facts

#: Packages whose versions every run records (distribution names).
BASE_PACKAGES = ("bayeswe", "numpy", "numba", "scipy", "arviz", "cmdstanpy")


def repository_root() -> Path:
    """The folder that holds the ``bayeswe`` package (the git checkout, when there is one)."""
    return Path(__file__).resolve().parents[2]


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_state(root: Path | None = None) -> dict[str, Any]:
    """``{"commit": hash or None, "dirty": bool or None}`` of the checkout at ``root``.

    A tree that differs from its commit (modified, staged or untracked files) gives
    ``"commit": None, "dirty": True``: the hash would not say what code ran. Outside
    a git checkout both are ``None``.
    """
    root = repository_root() if root is None else Path(root)
    head = _git(root, "rev-parse", "HEAD")
    status = _git(root, "status", "--porcelain")
    if head is None or status is None:
        return {"commit": None, "dirty": None}
    dirty = bool(status.strip())
    return {"commit": None if dirty else head.strip(), "dirty": dirty}


def cpu_model() -> str | None:
    """The CPU's ``model name`` from ``/proc/cpuinfo`` (``None`` where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return platform.processor() or None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "cpu model"):
            return value.strip()
    return platform.processor() or None


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (``None`` where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def thread_settings() -> dict[str, Any]:
    """Thread-count environment variables, Numba's thread counts and the BLAS pools."""
    out: dict[str, Any] = {"env": {name: os.environ.get(name) for name in THREAD_ENV_VARS}}
    try:
        import numba

        out["numba_num_threads"] = int(numba.config.NUMBA_NUM_THREADS)
        out["numba_threads_in_use"] = int(numba.get_num_threads())
    except ImportError:
        pass
    try:
        from threadpoolctl import threadpool_info

        out["threadpools"] = [
            {"api": p.get("internal_api"), "num_threads": p.get("num_threads")}
            for p in threadpool_info()
        ]
    except ImportError:
        pass
    return out


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def stan_toolchain() -> dict[str, Any]:
    """The Stan toolchain in use or on disk, without building it.

    A real CmdStan: :func:`bayeswe.stan.toolchain.toolchain_info`. Else the bundled
    installation's stamp (``"built": False`` if it has not been built yet).
    """
    from bayeswe.stan import toolchain

    if toolchain.find_real_cmdstan() is not None:
        return {**toolchain.toolchain_info(), "built": True}
    stamp = toolchain.bundled_path() / toolchain.STAMP_FILE
    try:
        info = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return {"kind": "bundled", "version": None, "built": False}
    return {
        "kind": "bundled",
        "version": info.get("stan_version"),
        "toolchain_id": info.get("toolchain_id"),
        "built": True,
    }


def versions(peers: Iterable[str] = ()) -> dict[str, Any]:
    """Python, :data:`BASE_PACKAGES`, the ``peers`` (distribution names) and Stan.

    A package that is not installed is ``None``.
    """
    out: dict[str, Any] = {"python": platform.python_version()}
    for name in (*BASE_PACKAGES, *peers):
        out[name] = _version(name)
    try:
        out["stan_toolchain"] = stan_toolchain()
    except Exception as err:  # noqa: BLE001 - a fact we could not read, not a failure
        out["stan_toolchain"] = {"error": str(err)}
    return out


def _utc_now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def start_run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """The facts known before a benchmark runs (see :func:`finish_run` for the rest).

    ``command`` is the process's command line (``sys.argv``); ``argv``, when given, the
    arguments the benchmark's ``main`` received.
    """
    facts: dict[str, Any] = {
        "command": shlex.join(sys.argv),
        "argv": None if argv is None else [str(a) for a in argv],
        "cwd": os.getcwd(),
        **git_state(),
        "started_utc": _utc_now(),
        "ended_utc": None,
        "duration_s": None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpus_available": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "threads": thread_settings(),
        "load_average_start": load_average(),
        "load_average_end": None,
        "versions": None,
    }
    facts["_t0"] = time.perf_counter()
    return facts


def finish_run(facts: dict[str, Any], *, peers: Iterable[str] = ()) -> dict[str, Any]:
    """Complete :func:`start_run`'s facts: end time, duration, load at the end, versions."""
    out = dict(facts)
    t0 = out.pop("_t0", None)
    out["ended_utc"] = _utc_now()
    out["duration_s"] = None if t0 is None else round(time.perf_counter() - t0, 3)
    out["load_average_end"] = load_average()
    out["versions"] = versions(peers)
    return out


# --------------------------------------------------------------------------- output


def _default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def to_json(obj: Any) -> str:
    """``obj`` as indented JSON text; NumPy scalars and arrays become numbers and lists."""
    return json.dumps(obj, indent=2, default=_default)


def write_json_atomic(path: str | os.PathLike[str], obj: Any) -> Path:
    """Write ``obj`` as JSON to ``path`` so that the file is either complete or untouched.

    :func:`bayeswe.atomic.write_text_atomic`: a temporary file in the same folder,
    flushed and renamed over ``path``, with the permissions the umask gives; a failure
    is an :class:`~bayeswe.errors.OutputError` naming ``path``, which keeps its previous
    content (or stays absent).
    """
    from bayeswe.atomic import write_text_atomic

    return write_text_atomic(path, json.dumps(obj, indent=2, default=_default) + "\n")


def progress(message: Any) -> None:
    """One progress line on stderr (dicts and lists as compact JSON); stdout stays JSON."""
    text = message if isinstance(message, str) else json.dumps(message, default=_default)
    print(text, file=sys.stderr, flush=True)


def emit(
    result: Mapping[str, Any],
    *,
    output: str | os.PathLike[str] | None = None,
    text: str | None = None,
) -> None:
    """Print ``result`` as one JSON object (or ``text`` instead); write it to ``output``.

    The file gets the same object as stdout (:func:`write_json_atomic`); it is written
    first, so a failing stdout does not lose it. A failing write does not lose the
    result either: it is printed (as JSON, even where ``text`` was asked for) before
    the write's :class:`~bayeswe.errors.OutputError` is raised.
    """
    failure: OSError | None = None
    if output is not None:
        try:
            write_json_atomic(output, result)
        except OSError as exc:  # OutputError, or an OSError of the directory's creation
            failure = exc
    print(to_json(result) if text is None or failure is not None else text, flush=True)
    if failure is not None:
        raise failure


def add_common_options(
    parser: argparse.ArgumentParser, *, quick: str | None = None, text_report: bool = False
) -> argparse.ArgumentParser:
    """Add ``--json``, ``--output PATH`` and (with a help text ``quick``) ``--quick``.

    ``text_report``: the benchmark prints a one-line report unless ``--json`` is given;
    otherwise JSON is its only format and ``--json`` is accepted for uniformity.
    """
    json_help = "print the JSON object" + ("" if text_report else " (the only format)")
    parser.add_argument("--json", action="store_true", help=json_help)
    parser.add_argument(
        "--output",
        metavar="PATH",
        default=None,
        help="also write the JSON object to PATH (atomically: complete or not at all)",
    )
    if quick is not None:
        parser.add_argument("--quick", action="store_true", help=quick)
    return parser


def run_cli(
    name: str,
    args: argparse.Namespace,
    body: Callable[[], Mapping[str, Any]],
    *,
    peers: Iterable[str] = (),
    argv: Sequence[str] | None = None,
    report: Callable[[Mapping[str, Any]], str] | None = None,
) -> int:
    """Run a benchmark's ``body`` between :func:`start_run` and :func:`finish_run`; emit it.

    ``body()`` returns the benchmark's results with a ``summary``; the object printed
    (and written to ``args.output``) is ``{"benchmark": name, "summary": ..., "run":
    facts, **the rest}``. Without ``--json`` a benchmark with a ``report`` prints
    ``report(result)`` instead of the JSON. ``--output`` is checked before ``body`` runs
    (``ValueError``); if writing it fails all the same, the JSON is still printed
    (:func:`emit`). Returns the exit code 0.
    """
    output = getattr(args, "output", None)
    if output is not None:
        # before the run: a benchmark of hours must not end in a file it cannot write
        from bayeswe.atomic import check_output_file

        check_output_file(output, "--output")
    facts = start_run(argv)
    result = dict(body())
    if "summary" not in result:
        raise BenchError(f"benchmark {name!r} returned no summary")
    summary = result.pop("summary")
    result.pop("benchmark", None)
    out = {"benchmark": name, "summary": summary, "run": finish_run(facts, peers=peers), **result}
    use_text = report is not None and not getattr(args, "json", False)
    emit(out, output=output, text=report(out) if use_text else None)
    return 0
