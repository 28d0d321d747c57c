"""``bayeswe bench sgns-identification``: cost per effective draw, post hoc against MAP anchors.

**Compared.** Two ways to identify SGNS (``fit_sgns(identification=...)``), both
sampled by PG-Gibbs: ``anchors`` (the identified model, ``K`` context vectors fixed
at the MAP by the paper's rule, the last ``K`` observed context words) and
``posthoc`` (the unidentified model, every context vector free, a gauge move after
each sweep; draws mapped onto a gauge afterwards, which costs nothing beside the
fit and does not change what is measured here). A third side, ``posthoc-nomove``,
is ``posthoc`` without the gauge move, to show what the move buys.

**Data.** The simulated datasets of ``001-table1``
(:func:`bayeswe.reproduce.yrjanainen_table1.simulated_dataset`) at four settings
spanning its grid: ``(K, V, N)`` = (10, 100, 1,000), (20, 100, 5,000),
(20, 200, 100,000) and (5, 100, 1,000,000); datasets 0, 1 and 2 (``--seeds``). Prior
sd ``1/sqrt(K)``. ``--quick``: K = 2, V = 10, N = 2,000, one dataset.

**Equal footing.**

* Same start: the dataset's MAP of ``sgns`` (Stan's L-BFGS), mapped onto the
  identified slice for ``anchors`` (Proposition 1): the same ``rho @ alpha.T``.
* Same run: one chain, 1,000 warm-up and 1,000 kept sweeps, one thread, the same
  seed, the sides one after the other in the same process. Each side's time is the
  CPU time of this process over its ``bayeswe.fit`` call (``time.process_time``:
  the sweeps and the InferenceData build; no MAP, the start being given), which
  other processes on a shared machine do not inflate.
* What is counted is what every side samples the same way: the median over the
  ``V^2`` co-occurrence probabilities ``P(w ∧ v)`` of ArviZ's bulk ESS, and the
  bulk ESS of the log likelihood (eq. (5); the log joint differs between the two
  models by the fixed rows' prior).

**Summary keys.**

* ``cost_per_ess_ratio_median``, ``cost_per_ess_ratio_max`` - over settings and
  datasets, ``posthoc``'s seconds per effective draw of ``P(w ∧ v)`` over
  ``anchors``'s (below 1: post hoc is cheaper);
* ``cost_per_ess_ratio_{tag}`` - the same per setting (median over datasets), with
  ``tag`` like ``k10_v100_n1000``, and ``..._sd`` their spread over datasets;
* ``loglik_cost_per_ess_ratio_median`` - the ratio for the log likelihood;
* ``nomove_cost_per_ess_ratio_median`` - ``posthoc-nomove`` over ``posthoc``;
* ``coverage_anchors_{tag}``, ``coverage_posthoc_{tag}`` - mean over datasets of the
  share of true ``P(w ∧ v)`` inside the central 90 % interval.

``results`` holds one row per (setting, dataset, side).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness

__all__ = ["SETTINGS", "build_parser", "main", "measure", "run"]

#: ``(K, V, N)`` of the default run.
SETTINGS: tuple[tuple[int, int, int], ...] = (
    (10, 100, 1_000),
    (20, 100, 5_000),
    (20, 200, 100_000),
    (5, 100, 1_000_000),
)
#: The sides: name -> (identification, extra sampler options).
SIDES: dict[str, tuple[str, dict[str, Any]]] = {
    "anchors": ("anchors", {}),
    "posthoc": ("posthoc", {}),
    "posthoc-nomove": ("posthoc", {"gauge_moves": False}),
}


def _tag(K: int, V: int, N: int) -> str:
    return f"k{K}_v{V}_n{N}"


def measure(K: int, V: int, N: int, dataset: int, *, draws: int, warmup: int) -> list[dict]:
    """Every side on one dataset from the same MAP start: ESS, seconds, coverage."""
    import arviz as az
    import xarray as xr

    import bayeswe
    from bayeswe.reproduce.yrjanainen_table1 import simulated_dataset
    from bayeswe.sgns.identify import identify_transform
    from bayeswe.sgns.metrics import cooccurrence_probability, interval_coverage, log_likelihood

    sim, anchors, mode, sd = simulated_dataset(K, V, N, dataset)
    rho0 = mode.posterior["rho"].values[0, 0]
    alpha0 = mode.posterior["alpha"].values[0, 0]
    rows = []
    for side, (identification, extra) in SIDES.items():
        options: dict[str, Any] = {
            "iter_warmup": warmup,
            "iter_sampling": draws,
            "threads_per_chain": 1,
            "show_progress": False,
            **extra,
        }
        if identification == "anchors":
            rho, alpha = identify_transform(rho0, alpha0, anchors.fixed_index, anchors.fixed_alpha)
            free = np.setdiff1d(np.arange(V), anchors.fixed_index)
            data = sim.data.stan_data(K, prior_sd=sd, fixed_index=anchors.fixed_index,
                                      fixed_alpha=anchors.fixed_alpha)  # fmt: skip
            model, options["inits"] = "sgns_identified", {"rho": rho, "alpha_free": alpha[free]}
        else:
            data = sim.data.stan_data(K, prior_sd=sd)
            model, options["inits"] = "sgns", {"rho": rho0, "alpha": alpha0}
        cpu = time.process_time()
        idata = bayeswe.fit(model, data, method="pg-gibbs", seed=1000 + dataset, chains=1,
                            **options)  # fmt: skip
        seconds = time.process_time() - cpu
        rho_d = idata.posterior["rho"].values
        alpha_d = idata.posterior["alpha"].values
        p = cooccurrence_probability(rho_d, alpha_d)
        ess_p = az.ess(xr.Dataset({"p": (("chain", "draw", "w", "v"), p)}))["p"].values
        loglik = log_likelihood(rho_d[0], alpha_d[0], sim.data)
        ess_median = float(np.median(ess_p))
        ess_ll = float(az.ess(np.asarray(loglik)[None]))
        rows.append({
            "K": K, "V": V, "N": N, "dataset": dataset, "side": side,
            "sampler_cpu_s": seconds,
            "sampler_wall_s": float(idata.attrs["wall_time"]),
            "ess_p_median": ess_median,
            "ess_loglik": ess_ll,
            "s_per_ess_p": seconds / ess_median,
            "s_per_ess_loglik": seconds / ess_ll,
            "coverage90": float(interval_coverage(rho_d[0], alpha_d[0], sim.probability,
                                                  level=0.9).mean()),
        })  # fmt: skip
        harness.progress(rows[-1])
    return rows


def run(
    *,
    settings: Sequence[tuple[int, int, int]] = SETTINGS,
    datasets: Sequence[int] = (0, 1, 2),
    draws: int = 1000,
    warmup: int = 1000,
) -> dict[str, Any]:
    """Every setting and dataset; the rows and their summary."""
    rows = [
        row
        for K, V, N in settings
        for d in datasets
        for row in measure(K, V, N, d, draws=draws, warmup=warmup)
    ]

    def by(side: str, K: int, V: int, N: int) -> list[dict[str, Any]]:
        return [r for r in rows if (r["side"], r["K"], r["V"], r["N"]) == (side, K, V, N)]

    summary: dict[str, Any] = {}
    ratios, ll_ratios, nomove = [], [], []
    for K, V, N in settings:
        tag = _tag(K, V, N)
        anchored, posthoc, plain = (
            by("anchors", K, V, N),
            by("posthoc", K, V, N),
            by("posthoc-nomove", K, V, N),
        )
        here = [p["s_per_ess_p"] / a["s_per_ess_p"] for a, p in zip(anchored, posthoc, strict=True)]
        ratios += here
        ll_ratios += [p["s_per_ess_loglik"] / a["s_per_ess_loglik"]
                      for a, p in zip(anchored, posthoc, strict=True)]  # fmt: skip
        nomove += [q["s_per_ess_p"] / p["s_per_ess_p"] for p, q in zip(posthoc, plain, strict=True)]
        summary[f"cost_per_ess_ratio_{tag}"] = statistics.median(here)
        summary[f"cost_per_ess_ratio_{tag}_sd"] = statistics.stdev(here) if len(here) > 1 else 0.0
        for side, group in (("anchors", anchored), ("posthoc", posthoc)):
            summary[f"coverage_{side}_{tag}"] = statistics.mean(r["coverage90"] for r in group)
    summary["cost_per_ess_ratio_median"] = statistics.median(ratios)
    summary["cost_per_ess_ratio_max"] = max(ratios)
    summary["loglik_cost_per_ess_ratio_median"] = statistics.median(ll_ratios)
    summary["nomove_cost_per_ess_ratio_median"] = statistics.median(nomove)
    return {
        "summary": summary,
        "settings": {
            "settings": [list(s) for s in settings],
            "datasets": list(datasets),
            "draws": draws,
            "warmup": warmup,
            "chains": 1,
            "threads_per_chain": 1,
            "start": "the dataset's MAP of sgns (anchors: mapped onto alpha[I] = M)",
            "clock": "process CPU time over each bayeswe.fit call, sides one after the other",
        },
        "results": rows,
    }


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench sgns-identification`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(
            prog="bayeswe bench sgns-identification", description=__doc__
        )
    harness.add_common_options(parser, quick="K = 2, V = 10, N = 2,000, one dataset, 200 + 200")
    parser.add_argument("--datasets", type=_positive, default=3, help="datasets per setting (3)")
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object."""
    if args is None:
        args = build_parser().parse_args(argv)
    if args.quick:

        def body() -> dict[str, Any]:
            return run(settings=((2, 10, 2_000),), datasets=(0,), draws=200, warmup=200)
    else:

        def body() -> dict[str, Any]:
            return run(datasets=tuple(range(args.datasets)))

    return harness.run_cli("sgns-identification", args, body, argv=argv)
