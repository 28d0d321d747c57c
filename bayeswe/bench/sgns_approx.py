"""``bayeswe bench sgns-approx``: how honest are the approximations' intervals?

**Compared.** On the same simulated SGNS datasets (eqs. (16)-(18) of Yrjänäinen et
al., uniform co-occurrences, ``K = 5``, ``V = 100``: the first block of their Table 1),
each approximation against the exact PG-Gibbs sampler:

* ``pg-gibbs``: the reference (one chain, 500 warm-up sweeps, 1,000 kept), exact;
* ``jj-vb``: mean-field VB through the Jaakkola-Jordan bound (Sakaya's thesis) on the
  unidentified model, here with ``ard=False`` so that its prior is the one the others
  use, and with ARD (``jj-vb-ard``) as the thesis runs it;
* ``laplace-sparse``: our Laplace approximation at Stan's L-BFGS mode, exact sparse
  Hessian, sparse Cholesky;
* ``laplace``: Stan's own Laplace approximation (finite-difference dense Hessian) at
  the same start, as a check that ``laplace-sparse`` approximates the same Gaussian;
* ``advi``: Stan's mean-field ADVI (the paper's MFVI).

Every method gets 1,000 draws. The identified methods share one set of anchors (the
MAP of section 4.1.1, pivoted-QR rule) per dataset; jj-vb's draws are mapped onto the
same identified slice (Proposition 1) for the cosine similarities.

**Equal footing.** Every method fits the same data with the same prior (sd
``1/sqrt(K)``, the simulation's), the same anchors and 1,000 draws; intervals are
central 90 % intervals of the draws by one function for all. Wall times are recorded
but are not the point here: the methods are compared by their intervals.

**Measured, per dataset and method.** Coverage of the equal-tailed 90 % intervals of
the ``V^2`` true co-occurrence probabilities ``P(w ∧ v)`` (Table 1) and of the
``V (V - 1) / 2`` true cosine similarities of the target vectors (in identified
coordinates); the median over cells of each interval's width divided by PG-Gibbs's
(below 1: too narrow); RMSE_co of the posterior mean; wall time.

**Summary keys.** ``<method>_coverage90_co_n<N>`` and ``<method>_coverage90_cos_n<N>``
(mean over seeds); ``<method>_width_ratio_co_vs_pg_gibbs`` and
``<method>_width_ratio_cos_vs_pg_gibbs`` (median over datasets of the per-dataset
median ratio); ``laplace_sparse_width_ratio_co_vs_stan_laplace``. Method names use
``_`` for ``-``. ``--quick``: ``V = 20``, ``K = 2``, one seed, two sizes, 200 draws.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.special import expit

from bayeswe.bench import harness
from bayeswe.sgns.errors import IdentificationError
from bayeswe.sgns.fitting import UNIDENTIFIED_ONLY, find_anchors, fit_sgns
from bayeswe.sgns.identify import identify_transform
from bayeswe.sgns.metrics import draws_of, pairwise_cosines, rmse_co
from bayeswe.sgns.simulate import simulate_sgns

__all__ = ["METHODS", "build_parser", "main", "run"]

#: The methods compared (``jj-vb-ard`` is ``jj-vb`` with its ARD prior).
METHODS: tuple[str, ...] = ("pg-gibbs", "jj-vb", "jj-vb-ard", "laplace-sparse", "laplace", "advi")
LEVEL = 0.9


def _options(method: str, draws: int, warmup: int) -> dict[str, Any]:
    if method == "pg-gibbs":
        return {"iter_warmup": warmup, "iter_sampling": draws, "show_progress": False}
    if method == "jj-vb":
        return {"draws": draws, "ard": False}
    if method == "jj-vb-ard":
        return {"draws": draws, "ard": True}
    if method == "advi":
        return {"draws": draws, "require_converged": False}
    return {"draws": draws}


def _intervals(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = (1 - LEVEL) / 2, (1 + LEVEL) / 2
    q = np.quantile(values, [lo, hi], axis=0, method="inverted_cdf")
    return q[0], q[1]


def _cosines(rho: np.ndarray) -> np.ndarray:
    """Cosine similarity of every pair of target vectors, ``(..., V (V - 1) / 2)``."""
    return pairwise_cosines(rho)


def _score(
    method: str,
    idata: Any,
    sim: Any,
    anchors: Any,
    true_cos: np.ndarray,
) -> dict[str, Any]:
    rho, alpha = draws_of(idata)
    co = expit(rho @ np.swapaxes(alpha, -1, -2)).reshape(rho.shape[0], -1)
    co_lo, co_hi = _intervals(co)
    truth = sim.probability.ravel()
    if method in ("jj-vb", "jj-vb-ard"):
        # The unidentified fit's draws, each mapped onto the slice alpha[I] = M; a draw
        # whose alpha[I] is singular (a dimension ARD switched off) cannot be mapped.
        try:
            rho, alpha = identify_transform(rho, alpha, anchors.fixed_index, anchors.fixed_alpha)
        except IdentificationError:
            rho = np.full_like(rho, np.nan)
    cos = _cosines(rho)
    cos_lo, cos_hi = _intervals(cos)
    return {
        "method": method,
        "wall_s": float(idata.attrs.get("wall_time", math.nan)),
        "draws": int(rho.shape[0]),
        "coverage90_co": float(np.mean((co_lo <= truth) & (truth <= co_hi))),
        "coverage90_cos": float(np.mean((cos_lo <= true_cos) & (true_cos <= cos_hi))),
        "rmse_co": float(rmse_co(rho.mean(0), alpha.mean(0), sim.rho, sim.alpha)),
        "_co_width": co_hi - co_lo,
        "_cos_width": cos_hi - cos_lo,
    }


def run_dataset(
    V: int,
    K: int,
    N: int,
    seed: int,
    *,
    methods: Sequence[str] = METHODS,
    draws: int = 1000,
    warmup: int = 500,
) -> list[dict[str, Any]]:
    """Fit one simulated dataset by every method and score each (module docstring)."""
    sim = simulate_sgns(V, K, N, seed=seed)
    sd = 1.0 / math.sqrt(K)  # the simulation's sd (epsilon = 1): "the true lambda"
    fit_seed = (seed + 1) % 2**32
    anchors, _ = find_anchors(sim.data, K, prior_sd=sd, seed=fit_seed)
    true_rho, _ = identify_transform(sim.rho, sim.alpha, anchors.fixed_index, anchors.fixed_alpha)
    true_cos = _cosines(true_rho)
    rows = []
    for method in methods:
        name = "jj-vb" if method == "jj-vb-ard" else method
        identified = name not in UNIDENTIFIED_ONLY
        started = time.perf_counter()
        try:
            idata = fit_sgns(
                sim.data,
                K,
                method=name,
                identified=identified,
                anchors=anchors if identified else None,
                prior_sd=sd,
                seed=fit_seed,
                chains=1 if name == "pg-gibbs" else None,
                **_options(method, draws, warmup),
            )
        except Exception as exc:  # noqa: BLE001 - a failed method is a result, the rest go on
            rows.append({"method": method, "N": N, "seed": seed, "error": repr(exc)})
            harness.progress(rows[-1])
            continue
        row = _score(method, idata, sim, anchors, true_cos)
        row.update(N=N, seed=seed, V=V, K=K, total_s=time.perf_counter() - started)
        rows.append(row)
    reference = next((r for r in rows if r["method"] == "pg-gibbs" and "error" not in r), None)
    stan_laplace = next((r for r in rows if r["method"] == "laplace" and "error" not in r), None)
    for row in rows:
        if "error" in row:
            continue
        for what in ("co", "cos"):
            if reference is not None:
                row[f"width_ratio_{what}_vs_pg_gibbs"] = float(
                    np.median(row[f"_{what}_width"] / reference[f"_{what}_width"])
                )
            if stan_laplace is not None and row["method"] == "laplace-sparse":
                row[f"width_ratio_{what}_vs_stan_laplace"] = float(
                    np.median(row[f"_{what}_width"] / stan_laplace[f"_{what}_width"])
                )
    for row in rows:
        row.pop("_co_width", None)
        row.pop("_cos_width", None)
        harness.progress({k: v for k, v in row.items()})
    return rows


def _key(method: str) -> str:
    return method.replace("-", "_")


def summarize(rows: Sequence[dict[str, Any]], sizes: Sequence[int]) -> dict[str, Any]:
    """The summary keys of the module docstring from the per-dataset rows."""
    good = [r for r in rows if "error" not in r]
    summary: dict[str, Any] = {}
    for method in METHODS:
        mine = [r for r in good if r["method"] == method]
        for N in sizes:
            at = [r for r in mine if r["N"] == N]
            for what in ("co", "cos"):
                values = [r[f"coverage90_{what}"] for r in at]
                summary[f"{_key(method)}_coverage90_{what}_n{N}"] = (
                    float(np.mean(values)) if values else None
                )
        if method != "pg-gibbs":
            for what in ("co", "cos"):
                ratios = [r[f"width_ratio_{what}_vs_pg_gibbs"] for r in mine
                          if f"width_ratio_{what}_vs_pg_gibbs" in r]  # fmt: skip
                summary[f"{_key(method)}_width_ratio_{what}_vs_pg_gibbs"] = (
                    float(np.median(ratios)) if ratios else None
                )
    ratios = [r["width_ratio_co_vs_stan_laplace"] for r in good
              if "width_ratio_co_vs_stan_laplace" in r]  # fmt: skip
    summary["laplace_sparse_width_ratio_co_vs_stan_laplace"] = (
        float(np.median(ratios)) if ratios else None
    )
    summary["failed_fits"] = len(rows) - len(good)
    return summary


def run(
    *,
    quick: bool = False,
    sizes: Sequence[int] | None = None,
    seeds: int | None = None,
    methods: Sequence[str] = METHODS,
) -> dict[str, Any]:
    """Every method on every (size, seed) dataset (see the module docstring)."""
    if quick:
        V, K, draws, warmup = 20, 2, 200, 200
        sizes = sizes or (2_000, 20_000)
        seeds = seeds or 1
    else:
        V, K, draws, warmup = 100, 5, 1000, 500
        sizes = sizes or (1_000, 10_000, 100_000, 1_000_000)
        seeds = seeds or 3
    rows: list[dict[str, Any]] = []
    for N in sizes:
        for s in range(seeds):
            rows.extend(run_dataset(V, K, N, 1000 * s + 7, methods=methods, draws=draws,
                                    warmup=warmup))  # fmt: skip
    return {
        "summary": summarize(rows, sizes),
        "settings": {
            "V": V,
            "K": K,
            "sizes": list(sizes),
            "seeds": seeds,
            "draws": draws,
            "pg_gibbs_warmup": warmup,
            "level": LEVEL,
            "distribution": "uniform",
            "prior_sd": "1 / sqrt(K) (the simulation's)",
            "methods": list(methods),
        },
        "results": rows,
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench sgns-approx`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench sgns-approx", description=__doc__)
    harness.add_common_options(parser, quick="V = 20, K = 2, one seed, two sizes, 200 draws")
    parser.add_argument("--seeds", type=int, default=None, help="datasets per size (3)")
    parser.add_argument(
        "--sizes", default=None, help="comma-separated N (1000,10000,100000,1000000)"
    )
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    sizes = None
    if args.sizes is not None:
        try:
            sizes = tuple(int(x) for x in args.sizes.split(","))
        except ValueError:
            raise SystemExit(
                f"--sizes must be comma-separated integers, got {args.sizes!r}"
            ) from None
        if not sizes or min(sizes) < 1:
            raise SystemExit(f"--sizes must be positive, got {args.sizes!r}")
    if args.seeds is not None and args.seeds < 1:
        raise SystemExit("--seeds must be >= 1")
    return harness.run_cli(
        "sgns-approx",
        args,
        lambda: run(quick=args.quick, sizes=sizes, seeds=args.seeds),
        argv=argv,
    )
