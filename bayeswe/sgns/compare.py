"""Compare inference methods on simulated SGNS data (section 4.1.2, Tables 1-3).

One simulated dataset (eqs. (16)-(18)) with known embeddings; the identification
workflow of section 4.1.1 (MAP anchors, chosen by pivoted QR unless told
otherwise) and then one fit of ``sgns_identified`` per method. For each method:

* ``rmse_co``: eq. (12) between the point estimate (posterior mean of the
  identified ``rho`` and ``alpha``; the mode for MAP) and the truth (Figure 2);
* ``coverage``: share of the ``V^2`` true ``P(w ∧ v)`` inside the equal-tailed 90 %
  credible interval (Table 1);
* ``ess_bulk_median`` and ``rhat_max`` over the free parameters (Table 2; NUTS only
  — the approximations' draws are independent by construction);
* ``wall_time`` of the Stan run (compilation excluded) and ``draws_per_second``
  (Table 3);
* with ``holdout_fraction``, ``holdout_loglik``: the mean log likelihood per
  held-out observation (eq. (5)) of the point estimate, the comparison of
  posterior mean and MAP of Tables 5 and 6. The fits then see only the training part.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import arviz as az
import numpy as np

from bayeswe.sgns.identify import find_anchors
from bayeswe.sgns.metrics import draws_of, interval_coverage, mean_log_likelihood, rmse_co
from bayeswe.sgns.models import fit_sgns
from bayeswe.sgns.simulate import simulate_sgns

__all__ = ["DEFAULT_METHODS", "MethodResult", "SGNSComparison", "compare_methods"]

#: Methods compared by default: the paper's HMC, MFVI, Laplace and MAP, plus Pathfinder.
DEFAULT_METHODS: tuple[str, ...] = ("nuts", "advi", "laplace", "pathfinder", "map")


@dataclass(frozen=True)
class MethodResult:
    """Accuracy and cost of one method on one dataset (see the module docstring)."""

    method: str
    rmse_co: float
    coverage: float
    ess_bulk_median: float
    rhat_max: float
    draws: int
    wall_time: float
    draws_per_second: float
    holdout_loglik: float = math.nan


@dataclass(frozen=True)
class SGNSComparison:
    """Settings and per-method results of :func:`compare_methods`."""

    settings: Mapping[str, Any]
    results: tuple[MethodResult, ...]
    anchor_words: tuple[str, ...] = ()
    anchor_condition_number: float = math.nan
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``NaN`` becomes ``None``)."""

        def clean(value: Any) -> Any:
            if isinstance(value, float) and not math.isfinite(value):
                return None
            if isinstance(value, dict):
                return {k: clean(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return [clean(v) for v in value]
            return value

        return clean(
            {
                "settings": dict(self.settings),
                "anchor_words": list(self.anchor_words),
                "anchor_condition_number": self.anchor_condition_number,
                "results": [asdict(r) for r in self.results],
                **dict(self.extra),
            }
        )

    def table(self) -> str:
        """The results as a fixed-width text table."""
        head = (
            f"{'method':12s} {'RMSE_co':>9s} {'cover90':>8s} {'ESS med':>8s} "
            f"{'R-hat max':>9s} {'draws':>6s} {'wall s':>8s} {'draws/s':>9s} {'hold-out':>9s}"
        )
        lines = [head, "-" * len(head)]
        for r in self.results:

            def fmt(x: float, spec: str) -> str:
                if not math.isfinite(x):
                    return "-"
                return format(x, spec[:-1]) + "%" if spec.endswith("%") else format(x, spec)

            lines.append(
                f"{r.method:12s} {fmt(r.rmse_co, '9.5f'):>9s} {fmt(100 * r.coverage, '7.1f%'):>8s} "
                f"{fmt(r.ess_bulk_median, '8.0f'):>8s} {fmt(r.rhat_max, '9.3f'):>9s} "
                f"{r.draws:6d} {r.wall_time:8.2f} {fmt(r.draws_per_second, '9.1f'):>9s} "
                f"{fmt(r.holdout_loglik, '9.4f'):>9s}"
            )
        return "\n".join(lines)


def _method_options(method: str, iter_warmup: int, iter_sampling: int, draws: int) -> dict:
    if method == "nuts":
        return {"iter_warmup": iter_warmup, "iter_sampling": iter_sampling}
    if method in ("advi", "advi-fullrank"):
        # Stan's defaults (meanfield, 10 000 iterations at most) and the paper's 2000 draws;
        # ADVI often stops on its relative tolerance without "converging" in Stan's sense.
        return {"draws": draws, "require_converged": False}
    if method == "laplace":
        return {"draws": draws}
    if method == "pathfinder":
        return {"draws": draws}
    return {}


def compare_methods(
    V: int = 100,
    K: int = 5,
    N: int = 50_000,
    *,
    seed: int,
    methods: Sequence[str] = DEFAULT_METHODS,
    prior_sd: float | None = None,
    epsilon: float = 1.0,
    distribution: str = "uniform",
    chains: int = 2,
    iter_warmup: int = 1000,
    iter_sampling: int = 1000,
    draws: int = 2000,
    anchor_words: str | Sequence[int] = "qr",
    init: str = "map",
    level: float = 0.9,
    holdout_fraction: float | None = None,
) -> SGNSComparison:
    """Simulate one dataset and fit it by each method (the paper's section 4.1.2).

    Parameters
    ----------
    V, K, N
        Vocabulary size, embedding dimension, number of observations.
    seed
        Seeds the simulation and every fit (fits get ``seed + 1``, modulo ``2**32``).
    methods
        :func:`bayeswe.fit` methods to compare.
    prior_sd
        Prior standard deviation; default ``epsilon / sqrt(K)``, the sd of the
        simulated embeddings ("the true lambda" of section 4.1).
    epsilon, distribution
        Simulation settings (see :func:`~bayeswe.sgns.simulate.simulate_sgns`).
    chains, iter_warmup, iter_sampling
        NUTS settings (the paper: 2 chains, 1000 warm-up iterations).
    draws
        Draws of ADVI, Laplace and Pathfinder (the paper: 2000 for MFVI).
    anchor_words
        Rule for the fixed words (see :func:`~bayeswe.sgns.identify.choose_anchor_words`).
    init
        ``"map"`` or ``"random"`` initialization (see :func:`~bayeswe.sgns.models.fit_sgns`).
    level
        Credible level of the coverage check.
    holdout_fraction
        If given, hold out this share of the observations (``SGNSData.split`` with
        ``seed``) and report the point estimates' mean hold-out log likelihood.

    Returns
    -------
    SGNSComparison
    """
    from bayeswe.fit import METHODS

    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(f"methods must be a non-empty subset of {METHODS}, got {list(methods)}")
    fit_seed = (int(seed) + 1) % 2**32
    sim = simulate_sgns(V, K, N, seed=seed, epsilon=epsilon, distribution=distribution)
    sd = float(epsilon / math.sqrt(K)) if prior_sd is None else float(prior_sd)
    truth = sim.probability
    train, test = sim.data, None
    if holdout_fraction is not None:
        train, test = sim.data.split(holdout_fraction, seed=seed)
    anchors, _ = find_anchors(train, K, prior_sd=sd, anchor_words=anchor_words, seed=fit_seed)
    results = []
    for method in methods:
        options = _method_options(method, iter_warmup, iter_sampling, draws)
        idata = fit_sgns(
            train,
            K,
            method=method,
            anchors=anchors,
            prior_sd=sd,
            init=init,
            seed=fit_seed,
            chains=chains if method == "nuts" else None,
            **options,
        )
        rho, alpha = draws_of(idata)
        n_draws = rho.shape[0]
        rho_hat, alpha_hat = rho.mean(axis=0), alpha.mean(axis=0)
        estimate = rmse_co(rho_hat, alpha_hat, sim.rho, sim.alpha)
        holdout = math.nan if test is None else mean_log_likelihood(rho_hat, alpha_hat, test)
        if n_draws > 1:
            coverage = float(interval_coverage(rho, alpha, truth, level=level).mean())
        else:
            coverage = math.nan
        ess_median = rhat_max = math.nan
        if method == "nuts":
            names = ["rho", "alpha_free"]
            ess = az.ess(idata, var_names=names, method="bulk")
            ess_median = float(np.median(np.concatenate([ess[v].values.ravel() for v in names])))
            rhat = az.rhat(idata, var_names=names)
            rhat_max = float(max(rhat[v].values.max() for v in names))
        wall = float(idata.attrs["wall_time"])
        results.append(
            MethodResult(
                method=method,
                rmse_co=float(estimate),
                coverage=coverage,
                ess_bulk_median=ess_median,
                rhat_max=rhat_max,
                draws=int(n_draws),
                wall_time=wall,
                draws_per_second=n_draws / wall if n_draws > 1 and wall > 0 else math.nan,
                holdout_loglik=float(holdout),
            )
        )
    settings = {
        "V": V,
        "K": K,
        "N": N,
        "P": sim.data.P,
        "holdout_fraction": holdout_fraction,
        "N_train": train.total,
        "seed": seed,
        "prior_sd": sd,
        "epsilon": epsilon,
        "distribution": distribution,
        "chains": chains,
        "iter_warmup": iter_warmup,
        "iter_sampling": iter_sampling,
        "draws": draws,
        "init": init,
        "level": level,
    }
    return SGNSComparison(
        settings=settings,
        results=tuple(results),
        anchor_words=anchors.words,
        anchor_condition_number=anchors.condition_number,
    )
