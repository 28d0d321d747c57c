"""Benchmark of PG blocked Gibbs for identified SGNS against Stan's NUTS (issue 4).

Prints one JSON object: ``settings`` (the paper's Table 3 grid: N, K x V, S), each
with Gibbs sweeps/s, words/s and median ESS/s of the co-occurrence probabilities
and, unless ``--no-nuts``, NUTS draws/s and median ESS/s on the same data; a
``congress`` run (V=5000, K=100, ~3e6 unique pairs; seconds per sweep, peak RSS,
GFLOP/s of the precision accumulation); and a ``summary`` object with
``ess_per_s_ratio_vs_nuts``, ``congress_s_per_sweep``, ``congress_peak_gb`` and
``gflops_fraction_of_peak``.

The fixed rows are the true context vectors of the last K words (no MAP step), so
Gibbs and NUTS see exactly the same posterior. Run as
``bayeswe bench pg-gibbs --json [--quick]`` (or ``python benchmarks/pg_gibbs.py``).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np


def _median_ess_per_s(idata: Any, wall: float, pairs: np.ndarray) -> float:
    import arviz as az
    from scipy.special import expit

    rho, alpha = idata.posterior["rho"].values, idata.posterior["alpha"].values
    w, v = pairs
    p = expit(np.einsum("cdpk,cdpk->cdp", rho[:, :, w], alpha[:, :, v]))
    ess = np.array([az.ess(p[..., j]) for j in range(p.shape[-1])])
    return float(np.median(ess) / wall)


def _setting(
    V: int,
    K: int,
    N: int,
    S: int,
    sweeps: int,
    nuts: tuple[int, int] | None,
    seed: int,
    nuts_cache: dict[tuple[int, int, int], dict[str, float]],
) -> dict[str, Any]:
    import bayeswe
    from bayeswe.samplers.pg_gibbs import sample_pg_gibbs
    from bayeswe.sgns import simulate_sgns

    sim = simulate_sgns(V, K, N, seed=seed)
    fixed = np.arange(V - K, V)
    data = sim.data.stan_data(K, prior_sd=1.0, fixed_index=fixed, fixed_alpha=sim.alpha[fixed])
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, V, size=(2, 200))
    sweeps = max(sweeps // S, 100)
    warm = max(sweeps // 5, 10)
    sample_pg_gibbs(data, seed=seed, chains=1, iter_warmup=0, iter_sampling=2, inner_steps=S)
    g = sample_pg_gibbs(
        data, seed=seed, chains=1, iter_warmup=warm, iter_sampling=sweeps, inner_steps=S
    )
    wall = float(g.attrs["wall_time"])
    sweeps_per_s = (warm + sweeps) / wall
    out: dict[str, Any] = {
        "V": V,
        "K": K,
        "N": N,
        "S": S,
        "P": int(data["P"]),
        "gibbs_sweeps": sweeps,
        "gibbs_sweeps_per_s": sweeps_per_s,
        "gibbs_words_per_s": sweeps_per_s * S * (2 * V - K),
        # ESS of the kept draws per second of the whole run, warm-up included (as for NUTS)
        "gibbs_ess_per_s": _median_ess_per_s(g, wall, pairs),
    }
    if nuts is not None:
        key = (V, K, N)
        if key not in nuts_cache:  # NUTS does not depend on S: run it once per dataset
            n_warm, n_draws = nuts
            n = bayeswe.fit(
                "sgns_identified", data, method="nuts", seed=seed, chains=1,
                iter_warmup=n_warm, iter_sampling=n_draws,
            )  # fmt: skip
            nwall = float(n.attrs["wall_time"])
            nuts_cache[key] = {
                "nuts_iterations": n_warm + n_draws,
                "nuts_draws_per_s": (n_warm + n_draws) / nwall,
                "nuts_ess_per_s": _median_ess_per_s(n, nwall, pairs),
                "nuts_max_treedepth_fraction": float(
                    np.mean(n.sample_stats["tree_depth"].values >= 10)
                ),
            }
        out.update(nuts_cache[key])
        out["ess_per_s_ratio"] = out["gibbs_ess_per_s"] / out["nuts_ess_per_s"]
    return out


def _peak_gflops() -> float:
    """Practical peak: GFLOP/s of a large float64 matrix product (BLAS, all cores)."""
    a = np.random.default_rng(0).normal(size=(2000, 2000))
    a @ a
    start = time.perf_counter()
    for _ in range(3):
        a @ a
    return 3 * 2 * 2000**3 / (time.perf_counter() - start) / 1e9


def _congress(V: int, K: int, P: int, sweeps: int, seed: int) -> dict[str, Any]:
    from bayeswe.kernels import pg_gibbs as kern
    from bayeswe.samplers.pg_gibbs import SGNSGibbsProblem, init_state, step

    rng = np.random.default_rng(seed)
    # Zipf-like: cells drawn with probability ∝ 1/((rank_w + 2.7)(rank_v + 2.7)), unique.
    weight = 1.0 / (np.arange(1, V + 1) + 2.7)
    weight /= weight.sum()
    target = rng.choice(V, size=4 * P, p=weight)
    context = rng.choice(V, size=4 * P, p=weight)
    cells = rng.permutation(np.unique(target.astype(np.int64) * V + context))[:P]
    t, c = np.divmod(np.sort(cells), V)
    n = 1 + rng.geometric(0.3, size=len(t))
    n_pos = rng.binomial(n, 0.3)
    fixed = np.arange(V - K, V)
    data = {
        "V": V, "K": K, "P": len(t), "target_word": t + 1, "context_word": c + 1,
        "n": n, "n_pos": n_pos, "lambda": 1.0, "grainsize": 0, "fixed_index": fixed + 1,
        "fixed_alpha": np.eye(K) + 0.1 * rng.normal(size=(K, K)),
    }  # fmt: skip
    problem = SGNSGibbsProblem.from_stan_data(data)
    state = init_state(problem, seed=seed, chain=0)
    import numba

    state, _ = step(problem, state)  # compile
    start = time.perf_counter()
    for _ in range(sweeps):
        state, _ = step(problem, state)
    s_per_sweep = (time.perf_counter() - start) / sweeps
    pg_start = time.perf_counter()
    block = problem.blocks[0]
    eta = kern.block_linear_predictor(state.rho, state.alpha, block.rows, block.ptr, block.other)
    rngs = [np.random.Generator(np.random.PCG64(g)) for g in range(block.n_groups)]
    addresses = np.array([r.bit_generator.ctypes.bit_generator.value for r in rngs], np.uint64)
    omega = np.empty(len(block.n))
    kern.polya_gamma_groups(addresses, block.group_pair_ptr, block.n, eta, kern.PG_AUTO, omega)
    pg_s = time.perf_counter() - pg_start
    # precision accumulation alone: K(K+1) flops per pair and block
    eps = np.zeros((len(block.rows), K))
    rho = state.rho.copy()
    start = time.perf_counter()
    kern.block_update(
        rho, state.alpha, block.rows, block.ptr, block.other, block.kappa, omega, eps, 1.0
    )
    update_s = time.perf_counter() - start
    flops = len(block.n) * K * (K + 1) + len(block.rows) * K**3 / 3
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "V": V,
        "K": K,
        "P": int(len(t)),
        "s_per_sweep": s_per_sweep,
        "peak_gb": peak_mb / 1024,
        "rho_block_pg_s": pg_s,
        "rho_block_update_s": update_s,
        "gflops": flops / update_s / 1e9,
        "threads": numba.get_num_threads(),
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench pg-gibbs`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench pg-gibbs", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print JSON (the only format)")
    parser.add_argument("--quick", action="store_true", help="smallest setting only (smoke test)")
    parser.add_argument("--no-nuts", action="store_true", help="skip the Stan NUTS runs")
    parser.add_argument("--no-congress", action="store_true", help="skip the Congress-scale run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sweeps", type=int, default=1000, help="Gibbs sweeps at S=1 (/S)")
    parser.add_argument("--nuts-warmup", type=int, default=300)
    parser.add_argument("--nuts-draws", type=int, default=300)
    parser.add_argument(
        "--setting",
        action="append",
        metavar="V,K,N,S",
        help="run only these settings (repeatable); default: the paper's Table 3 grid",
    )
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    if args.setting:
        grid = [tuple(int(x) for x in item.split(",")) for item in args.setting]
        congress = (5000, 100, 3_000_000, 2)
    elif args.quick:
        grid = [(100, 5, 50_000, 1)]
        congress = (1000, 20, 100_000, 2)
    else:
        grid = [
            (V, K, N, S)
            for N in (50_000, 500_000)
            for (K, V) in ((5, 100), (10, 200), (20, 200))
            for S in (10, 1)
        ]
        congress = (5000, 100, 3_000_000, 2)
    nuts = None if args.no_nuts else (args.nuts_warmup, args.nuts_draws)
    settings = []
    cache: dict[tuple[int, int, int], dict[str, float]] = {}
    for V, K, N, S in grid:
        settings.append(_setting(V, K, N, S, args.sweeps, nuts, args.seed, cache))
        print(json.dumps(settings[-1]), file=sys.stderr, flush=True)
    result: dict[str, Any] = {"settings": settings}
    peak = _peak_gflops()
    result["peak_gflops_dgemm"] = peak
    if not args.no_congress:
        result["congress"] = _congress(*congress, seed=args.seed)
    # The target setting of the issue, with the sampler's default S=1 when it was run.
    target = [s for s in settings if (s["V"], s["K"], s["N"]) == (200, 20, 500_000)]
    chosen = [s for s in target if s["S"] == 1] or target or settings
    result["summary"] = {
        "ess_per_s_ratio_vs_nuts": (
            max(s["ess_per_s_ratio"] for s in chosen) if not args.no_nuts else None
        ),
        "congress_s_per_sweep": result.get("congress", {}).get("s_per_sweep"),
        "congress_peak_gb": result.get("congress", {}).get("peak_gb"),
        "gflops_fraction_of_peak": (
            result["congress"]["gflops"] / peak if "congress" in result else None
        ),
    }
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
