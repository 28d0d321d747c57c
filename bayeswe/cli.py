"""The ``bayeswe`` command line.

``bayeswe toolchain [path|build]``, ``bayeswe demo``, ``bayeswe compare sgns``
(inference methods on simulated SGNS data) and ``bayeswe bench sgns-stan``
(gradient cost of the SGNS Stan program against the paper's Listing 2).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

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
    import arviz as az
    import numpy as np
    import pandas as pd

    from bayeswe import fit
    from bayeswe.model_spec import MODELS_DIR, DataField, StanModelSpec

    spec = StanModelSpec(
        name="beta_bernoulli",
        stan_file=MODELS_DIR / "beta_bernoulli.stan",
        data_fields=(
            DataField("N", "int"),
            DataField("y", "int", ("N",), observed=True),
            DataField("a", "real"),
            DataField("b", "real"),
        ),
        description="Beta-Bernoulli: posterior Beta(a + sum y, b + N - sum y)",
    )
    rng = np.random.default_rng(args.seed)
    y = (rng.random(50) < 0.3).astype(int)
    data = {"N": len(y), "y": y, "a": 2.0, "b": 2.0}
    a_post, b_post = 2.0 + y.sum(), 2.0 + len(y) - y.sum()
    exact_mean = a_post / (a_post + b_post)
    exact_sd = np.sqrt(a_post * b_post / ((a_post + b_post) ** 2 * (a_post + b_post + 1)))
    print(f"Beta-Bernoulli, N={len(y)}, sum(y)={y.sum()}; exact posterior mean of theta")
    print(f"  {exact_mean:.4f} (sd {exact_sd:.4f})\n")
    print(f"{'method':14s} {'mean':>8s} {'sd':>8s} {'wall s':>8s}")
    for method in ("nuts", "map", "laplace", "advi", "advi-fullrank", "pathfinder"):
        idata = fit(spec, data, method=method, seed=args.seed)
        theta = idata.posterior["theta"].values
        sd = float(theta.std()) if theta.size > 1 else float("nan")
        print(f"{method:14s} {theta.mean():8.4f} {sd:8.4f} {idata.attrs['wall_time']:8.2f}")
        if method == "nuts":
            nuts = idata
    print("\nNUTS summary (ArviZ):")
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(az.summary(nuts, var_names=["theta"]))
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from bayeswe.sgns import compare

    return compare.main(args=args)


def _cmd_bench(args: argparse.Namespace) -> int:
    from bayeswe.sgns import bench

    return bench.main(args=args)


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

    demo = sub.add_parser("demo", help="short end-to-end fit by every method")
    demo.add_argument("--seed", type=int, default=20261121)
    demo.set_defaults(func=_cmd_demo)

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
    from bayeswe.sgns.bench import build_parser as build_bench_parser

    sgns_stan = bench_sub.add_parser(
        "sgns-stan", help="gradient time of sgns_identified.stan vs the paper's Listing 2"
    )
    build_bench_parser(sgns_stan)
    sgns_stan.set_defaults(func=_cmd_bench)

    from bayeswe.samplers import bench as pg_bench

    pg_gibbs = bench_sub.add_parser(
        "pg-gibbs", help="PG blocked Gibbs vs NUTS (Table 3 grid), Congress-scale sweep time"
    )
    pg_bench.build_parser(pg_gibbs)
    pg_gibbs.set_defaults(func=lambda args: pg_bench.main(args=args))

    from bayeswe.glda import bench as glda_bench

    gaussian_lda = bench_sub.add_parser(
        "gaussian-lda", help="Gaussian LDA: naive vs Cholesky-update vs alias-MH sweep time"
    )
    glda_bench.build_parser(gaussian_lda)
    gaussian_lda.set_defaults(func=lambda args: glda_bench.main(args=args))

    from bayeswe.glda import stan_bench as glda_stan_bench

    glda_stan = bench_sub.add_parser(
        "gaussian-lda-stan",
        help="gradient cost of gaussian_lda.stan vs a per-token program, and a NUTS fit",
    )
    glda_stan_bench.build_parser(glda_stan)
    glda_stan.set_defaults(func=lambda args: glda_stan_bench.main(args=args))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
