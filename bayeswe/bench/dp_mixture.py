"""``bayeswe bench dp-mixture``: collapsed Gibbs for the DP mixture against Stan's NUTS.

**Compared.** :func:`bayeswe.samplers.dp_mixture.sample_dp_mixture` (``method="cgs"``:
Neal's algorithm 3, three split-merge proposals per sweep, Escobar-West ``alpha``)
against NUTS on ``models/dp_mixture.stan`` (``bayeswe.fit(..., method="nuts")``), on the
same data and priors.

**Data.** :func:`bayeswe.dp.simulate_dp_mixture`: ``--points`` (default 100) points in
P = 2 from three Gaussians with weights 0.5, 0.3, 0.2, means at least 8 sds apart
(the simulator's default), a new draw per seed; default priors of
:class:`~bayeswe.dp.DPMixtureData` (``alpha ~ Gamma(1, 1)``); Stan's truncation
``--truncation`` (default 16), whose posterior leftover stick mass is reported
(``leftover_mean_max``: the largest over seeds of its posterior mean).

**Equal footing.** Same start: NUTS from :func:`bayeswe.dp.initial_values` (k-means,
clusters in the first sticks by size, ``alpha = 1``), the collapsed sampler from the
partition that start implies (each point in its most probable component under the
start) and ``alpha = 1``. Same schedule: ``--chains`` (4) chains of ``--warmup`` (500)
warm-up and ``--draws`` (1000) kept iterations on both sides, two chains at a time
(``parallel_chains=2``: the machine's two cores) on both. Time: each side's wall time
of the whole run, warm-up included (NUTS: Stan's run, compilation excluded; Gibbs:
the driver's run, Numba compilation excluded by a throwaway run first).

**ESS.** ArviZ's bulk ESS, over all chains, of the label-free quantities each side
records: the log density (each side's own: Stan's ``lp__``, the collapsed ``log p(y, z,
alpha)``), the number of occupied clusters (Stan's ``n_occupied``, from one draw of the
indicators per iteration) and ``alpha``. A side's figure is the least of the three ESS
over its seconds; the ratio is Gibbs's over NUTS's, per seed.

**Agreement.** Per seed, the difference of the two posterior means of the number of
clusters and of ``alpha``, in Monte Carlo standard errors (ArviZ's MCSE of both sides
combined): a sanity check that both sample one posterior (NUTS's MCSE can be too
small when its chains do not move clusters between sticks).

**Summary keys.** ``ess_per_s_ratio_vs_nuts`` (median over seeds of the per-seed
ratio of the least ESS per second), ``ess_per_s_ratio_vs_nuts_min`` and ``_max``;
``ess_per_s_ratio_vs_nuts_{lp,n_clusters,alpha}`` (medians of the per-quantity ratios);
``ess_per_s_cgs`` and ``ess_per_s_nuts`` (medians of the least ESS per second);
``wall_s_cgs`` and ``wall_s_nuts`` (medians); ``z_n_clusters_max_abs`` and
``z_alpha_max_abs`` (largest over seeds); ``leftover_mean_max``; ``setting``.
``--quick``: 40 points, T = 6, 2 chains of 50 + 50 iterations, one seed.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness

__all__ = ["build_parser", "main", "run", "start_labels"]

QUANTITIES = ("lp", "n_clusters", "alpha")


def start_labels(data: Any, start: dict[str, Any]) -> np.ndarray:
    """Each point's most probable component under a start of ``dp_mixture.stan``."""
    from scipy.stats import multivariate_normal

    v = np.asarray(start["v"], dtype=float)
    # the program's stick_breaking_log_weights: log v_k + sum_{j<k} log(1 - v_j), last forced
    log_w = np.append(np.log(v), 0.0) + np.concatenate([[0.0], np.cumsum(np.log1p(-v))])
    L = np.asarray(start["L_Sigma"])
    dens = np.column_stack(
        [
            log_w[k] + multivariate_normal(start["mu"][k], L[k] @ L[k].T).logpdf(data.points)
            for k in range(L.shape[0])
        ]
    )
    return dens.argmax(axis=1).astype(np.int64)


def _ess(values: np.ndarray) -> float:
    import arviz as az

    return float(az.ess(az.convert_to_dataset({"x": np.asarray(values, dtype=float)})).x)


def _z(a: np.ndarray, b: np.ndarray) -> float:
    import arviz as az

    se = [float(az.mcse(az.convert_to_dataset({"x": np.asarray(x, float)})).x) for x in (a, b)]
    return float((np.mean(a) - np.mean(b)) / np.hypot(*se))


def cell(seed: int, *, points: int, truncation: int, chains: int, warmup: int, draws: int):
    """One seed: both samplers from the same start; their ESS, times and agreement."""
    import bayeswe
    from bayeswe.dp import initial_values, simulate_dp_mixture

    sim = simulate_dp_mixture(n_points=points, truncation=truncation, seed=seed)
    data = sim.data
    starts = initial_values(data, seed=seed, chains=chains)
    common = {"chains": chains, "iter_warmup": warmup, "iter_sampling": draws,
              "parallel_chains": 2, "show_progress": False}  # fmt: skip
    nuts = bayeswe.fit("dp_mixture", data, method="nuts", seed=seed, inits=starts, **common)
    init = [{"z": start_labels(data, s), "alpha": float(s["alpha"])} for s in starts]
    cgs = bayeswe.fit("dp_mixture", data, method="cgs", seed=seed, init=init, **common)
    values = {
        "nuts": {
            "lp": nuts.sample_stats["lp"].values,
            "n_clusters": nuts.posterior["n_occupied"].values,
            "alpha": nuts.posterior["alpha"].values,
        },
        "cgs": {
            "lp": cgs.sample_stats["lp"].values,
            "n_clusters": cgs.posterior["n_clusters"].values,
            "alpha": cgs.posterior["alpha"].values,
        },
    }
    wall = {"nuts": float(nuts.attrs["wall_time"]), "cgs": float(cgs.attrs["wall_time"])}
    row: dict[str, Any] = {"seed": seed, "true_clusters": sim.n_clusters, "wall_s": wall}
    for side in ("nuts", "cgs"):
        ess = {q: _ess(values[side][q]) for q in QUANTITIES}
        row[side] = {
            "ess": ess,
            "ess_per_s": {q: e / wall[side] for q, e in ess.items()},
            "ess_per_s_min": min(ess.values()) / wall[side],
            "mean": {q: float(np.mean(values[side][q])) for q in QUANTITIES},
        }
    row["ratio"] = row["cgs"]["ess_per_s_min"] / row["nuts"]["ess_per_s_min"]
    row["ratio_by_quantity"] = {
        q: row["cgs"]["ess_per_s"][q] / row["nuts"]["ess_per_s"][q] for q in QUANTITIES
    }
    row["z_n_clusters"] = _z(values["cgs"]["n_clusters"], values["nuts"]["n_clusters"])
    row["z_alpha"] = _z(values["cgs"]["alpha"], values["nuts"]["alpha"])
    row["leftover_mean"] = float(nuts.posterior["leftover"].mean())
    row["nuts_divergences"] = int(nuts.sample_stats["diverging"].sum())
    row["cgs_splits_merges"] = [cgs.attrs["splits_accepted"], cgs.attrs["merges_accepted"]]
    return row


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every seed's cell and the summary."""
    from bayeswe.dp import simulate_dp_mixture
    from bayeswe.samplers.dp_mixture import sample_dp_mixture

    if args.quick:
        setting = {"points": 40, "truncation": 6, "chains": 2, "warmup": 50, "draws": 50}
        seeds = [1]
    else:
        setting = {
            "points": args.points, "truncation": args.truncation, "chains": args.chains,
            "warmup": args.warmup, "draws": args.draws,
        }  # fmt: skip
        seeds = [int(s) for s in str(args.seeds).split(",") if s]
    # compile the kernels outside the timed runs
    sample_dp_mixture(simulate_dp_mixture(n_points=5, seed=0).data, chains=1, seed=0,
                      iter_warmup=1, iter_sampling=1, show_progress=False)  # fmt: skip
    rows = []
    for seed in seeds:
        rows.append(cell(seed, **setting))
        harness.progress({k: rows[-1][k] for k in ("seed", "ratio", "z_n_clusters", "z_alpha")})
    ratios = [r["ratio"] for r in rows]
    summary: dict[str, Any] = {
        "ess_per_s_ratio_vs_nuts": float(np.median(ratios)),
        "ess_per_s_ratio_vs_nuts_min": float(np.min(ratios)),
        "ess_per_s_ratio_vs_nuts_max": float(np.max(ratios)),
        **{
            f"ess_per_s_ratio_vs_nuts_{q}": float(
                np.median([r["ratio_by_quantity"][q] for r in rows])
            )
            for q in QUANTITIES
        },
        "ess_per_s_cgs": float(np.median([r["cgs"]["ess_per_s_min"] for r in rows])),
        "ess_per_s_nuts": float(np.median([r["nuts"]["ess_per_s_min"] for r in rows])),
        "wall_s_cgs": float(np.median([r["wall_s"]["cgs"] for r in rows])),
        "wall_s_nuts": float(np.median([r["wall_s"]["nuts"] for r in rows])),
        "z_n_clusters_max_abs": float(max(abs(r["z_n_clusters"]) for r in rows)),
        "z_alpha_max_abs": float(max(abs(r["z_alpha"]) for r in rows)),
        "leftover_mean_max": float(max(r["leftover_mean"] for r in rows)),
        "setting": {**setting, "seeds": seeds},
    }
    return {
        "summary": summary,
        "settings": {
            **setting,
            "seeds": seeds,
            "dim": 2,
            "weights": [0.5, 0.3, 0.2],
            "parallel_chains": 2,
            "start": "initial_values (k-means) for NUTS; its implied partition, alpha=1, for cgs",
            "clock": "each side's wall_time attr (whole run incl. warm-up, no compilation)",
        },
        "results": rows,
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench dp-mixture`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench dp-mixture", description=__doc__)
    harness.add_common_options(parser, quick="40 points, T = 6, 2 x (50 + 50), one seed")
    parser.add_argument("--points", type=int, default=100, help="points per data set")
    parser.add_argument("--truncation", type=int, default=16, help="Stan's T")
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=500, help="warm-up iterations, both")
    parser.add_argument("--draws", type=int, default=1000, help="kept iterations, both")
    parser.add_argument("--seeds", default="1,2,3", help="comma-separated seeds")
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    least = {"points": 2, "truncation": 2, "chains": 1, "warmup": 0, "draws": 1}
    for name, low in least.items():
        if getattr(args, name) < low:
            raise SystemExit(f"--{name} must be >= {low}")
    return harness.run_cli("dp-mixture", args, lambda: run(args), argv=argv)
