"""Compare inference methods on simulated SGNS data (section 4.1.2, Tables 1-3, 5).

One simulated dataset (eqs. (16)-(18)) with known embeddings and one fit per method,
each identified as :func:`~bayeswe.sgns.fitting.fit_sgns` does by default (post hoc
for NUTS and PG-Gibbs; the MAP anchors of section 4.1.1, chosen by pivoted QR unless
told otherwise, for the others) or as ``identification`` says. For each method
(the JSON keys of :meth:`SGNSComparison.to_dict`):

* ``wall_s``: wall time of the Stan run (compilation excluded), ``draws`` and
  ``draws_per_s`` (Table 3);
* ``median_ess``: median bulk ESS (ArviZ) over the ``V^2`` co-occurrence
  probabilities ``P(w ∧ v)`` (Table 2; a seeded random 2 000 of them when
  ``V^2 > 2000``: ArviZ computes ESS one cell at a time, about 1 ms each), and
  ``ess_per_s`` = ``median_ess / wall_s``.
  For the approximations (one "chain" of independent draws) it is close to the
  number of draws by construction; for MAP it is undefined;
* ``rhat_max``: largest R-hat of the free parameters (NUTS with two or more chains);
* ``rmse_co``: eq. (12) between the point estimate and the truth (Figure 2); the
  point estimate is the posterior mean of the anchored ``rho`` and ``alpha`` (the
  mode for MAP), and for a post hoc or unidentified fit the posterior mean of
  ``rho @ alpha.T`` (gauge-free: averaged coordinates of draws in different gauges
  mean nothing), factorized to rank ``K``;
* ``coverage90``: share of the ``V^2`` true ``P(w ∧ v)`` inside the equal-tailed
  credible interval at ``level`` (90 % by default; Table 1);
* ``holdout_loglik``: mean log likelihood per held-out observation (eq. (5)) of
  the point estimate (Tables 5 and 6). Held-out data are ``N // 5`` fresh
  observations from the true embeddings, or with ``holdout_fraction`` a share of
  the simulated observations that the fits then do not see.

With ``out_dir`` each method's InferenceData is saved as ``<out_dir>/<method>.nc``
and ``<out_dir>/cosine_similarity.png`` overlays the posteriors of the cosine
similarity of a few word pairs (target vectors ``rho`` in the svd gauge of
:mod:`bayeswe.sgns.gauge`, whatever the fit's own; Figures 4-6) for all methods, with
the true value in the same gauge. Each
file is written whole or not at all (:mod:`bayeswe.atomic`; a full disk raises
:class:`~bayeswe.errors.OutputError`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
from scipy.special import expit

from bayeswe._arviz import az
from bayeswe.atomic import savefig_atomic, write_netcdf_atomic
from bayeswe.errors import BayesweError, MethodFailedError, one_line
from bayeswe.fit import METHODS as STAN_METHODS
from bayeswe.fit import SAMPLER_METHODS
from bayeswe.options import parse_method_list
from bayeswe.sgns.fitting import UNIDENTIFIED_ONLY, default_identification, find_anchors, fit_sgns
from bayeswe.sgns.gauge import svd_gauge, to_gauge
from bayeswe.sgns.identify import (
    ANCHOR_RULES,
    DEFAULT_ANCHOR_RULE,
)
from bayeswe.sgns.metrics import (
    cosine_similarity,
    draws_of,
    interval_coverage,
    mean_log_likelihood,
    posterior_cosine_similarity,
    rmse_co,
)
from bayeswe.sgns.simulate import DISTRIBUTIONS, simulate_sgns

__all__ = [
    "DEFAULT_METHODS",
    "METHODS",
    "MethodResult",
    "SGNSComparison",
    "build_parser",
    "check_args",
    "compare_methods",
    "main",
    "parse_methods",
]

#: Methods compared by default: the paper's HMC, MFVI, Laplace and MAP, plus Pathfinder.
DEFAULT_METHODS: tuple[str, ...] = ("nuts", "advi", "laplace", "pathfinder", "map")

#: Every method that can fit ``sgns_identified`` (Stan's, and bayeswe's samplers for
#: it), and bayeswe's variational Bayes of the unidentified ``sgns``, whose draws are
#: mapped onto the identified slice (Proposition 1) for the cosine figure.
METHODS: tuple[str, ...] = (
    *STAN_METHODS,
    *(m for m, models in SAMPLER_METHODS.items() if "sgns_identified" in models),
    *UNIDENTIFIED_ONLY,
)

#: Word pairs of the cosine-similarity figure (indices into the vocabulary).
FIGURE_PAIRS: tuple[tuple[int, int], ...] = ((0, 1), (2, 3), (4, 5))


@dataclass(frozen=True)
class MethodResult:
    """Accuracy and cost of one method on one dataset (see the module docstring)."""

    method: str
    wall_s: float
    draws: int
    draws_per_s: float
    median_ess: float
    ess_per_s: float
    rmse_co: float
    coverage90: float
    holdout_loglik: float
    rhat_max: float = math.nan
    error: str | None = None  # why the method failed (Stan's message); the numbers are then NaN

    @classmethod
    def failed(cls, method: str, wall_s: float, error: str) -> MethodResult:
        nan = math.nan
        return cls(method, wall_s, 0, nan, nan, nan, nan, nan, nan, error=error)


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

        def fmt(x: float, spec: str) -> str:
            return "-" if not math.isfinite(x) else format(x, spec)

        head = (
            f"{'method':14s} {'wall s':>8s} {'draws/s':>9s} {'ESS med':>8s} {'ESS/s':>8s} "
            f"{'RMSE_co':>8s} {'cover90':>8s} {'hold-out':>9s} {'R-hat':>6s}"
        )
        lines = [head, "-" * len(head)]
        for r in self.results:
            if r.error is not None:
                lines.append(f"{r.method:14s} {r.wall_s:8.2f}  failed: {r.error}")
                continue
            cover = fmt(100 * r.coverage90, ".1f") + ("" if math.isnan(r.coverage90) else " %")
            lines.append(
                f"{r.method:14s} {r.wall_s:8.2f} {fmt(r.draws_per_s, '9.1f'):>9s} "
                f"{fmt(r.median_ess, '8.0f'):>8s} {fmt(r.ess_per_s, '8.1f'):>8s} "
                f"{r.rmse_co:8.4f} {cover:>8s} {fmt(r.holdout_loglik, '9.5f'):>9s} "
                f"{fmt(r.rhat_max, '6.3f'):>6s}"
            )
        return "\n".join(lines)


def _method_options(method: str, iter_warmup: int, iter_sampling: int, draws: int) -> dict:
    if method in ("nuts", "pg-gibbs"):
        return {"iter_warmup": iter_warmup, "iter_sampling": iter_sampling}
    if method in ("advi", "advi-fullrank"):
        # Stan's defaults (10 000 iterations at most) and the paper's 2000 draws;
        # ADVI often stops on its relative tolerance without "converging" in Stan's sense.
        return {"draws": draws, "require_converged": False}
    if method in ("laplace", "pathfinder", "laplace-sparse", "jj-vb", "jj-svi"):
        return {"draws": draws}
    return {}


#: Largest number of ``P(w ∧ v)`` cells whose ESS is computed; above it, a seeded
#: random subset of this many cells (memory: cells x draws doubles).
MAX_ESS_CELLS = 2_000


def _cooccurrence_ess(idata: az.InferenceData) -> float:
    """Median bulk ESS over the draws of ``P(w ∧ v)`` (chains kept apart).

    All ``V^2`` cells up to :data:`MAX_ESS_CELLS`, else a seeded random subset.
    """
    post = idata.posterior
    rho = post["rho"].transpose("chain", "draw", "word", "dim").values
    alpha = post["alpha"].transpose("chain", "draw", "word", "dim").values
    if rho.shape[0] * rho.shape[1] < 4:
        return math.nan
    V = rho.shape[2]
    cells = np.arange(V * V)
    if cells.size > MAX_ESS_CELLS:
        cells = np.sort(np.random.default_rng(0).choice(cells, MAX_ESS_CELLS, replace=False))
    target, context = np.divmod(cells, V)
    prob = expit(np.einsum("cdpk,cdpk->cdp", rho[:, :, target], alpha[:, :, context]))
    ds = xr.Dataset({"p": (("chain", "draw", "cell"), prob)})
    return float(np.nanmedian(az.ess(ds, method="bulk")["p"].values))


def _stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


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
    anchor_words: str | Sequence[int] = DEFAULT_ANCHOR_RULE,
    init: str = "map",
    identification: str | None = None,
    level: float = 0.9,
    holdout_fraction: float | None = None,
    out_dir: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> SGNSComparison:
    """Simulate one dataset and fit it by each method (the paper's section 4.1.2).

    Parameters
    ----------
    V, K, N
        Vocabulary size, embedding dimension, number of observations.
    seed
        Seeds the simulation and every fit (fits get ``seed + 1``, modulo ``2**32``;
        the fresh hold-out data ``seed + 2``).
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
        ``"map"`` or ``"random"`` initialization (see :func:`~bayeswe.sgns.fitting.fit_sgns`).
    identification
        ``"posthoc"``, ``"anchors"`` or ``"none"`` for every method; by default each
        method's own (:func:`~bayeswe.sgns.fitting.default_identification`: post hoc
        for NUTS and PG-Gibbs). Anchored methods share one set of anchors.
    level
        Credible level of the coverage check (reported as ``coverage90``).
    holdout_fraction
        If given, hold out this share of the simulated observations
        (``SGNSData.split`` with ``seed``); otherwise ``N // 5`` fresh observations.
    out_dir
        If given, save ``<method>.nc`` per method and ``cosine_similarity.png``.
    progress
        Called with a one-line message before and after each fit (the command
        line prints them to stderr; NUTS then also shows CmdStan's progress bars).

    Returns
    -------
    SGNSComparison
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(
            f"methods must be a non-empty subset of {', '.join(METHODS)}; got {list(methods)}"
        )
    if len(set(methods)) != len(methods):
        raise ValueError(f"methods repeat: {list(methods)}")
    out = None if out_dir is None else Path(out_dir)
    if out is not None:
        # before the simulation and the fits: a bad directory fails at once
        out.mkdir(parents=True, exist_ok=True)
    fit_seed = (int(seed) + 1) % 2**32
    sim = simulate_sgns(V, K, N, seed=seed, epsilon=epsilon, distribution=distribution)
    sd = float(epsilon / math.sqrt(K)) if prior_sd is None else float(prior_sd)
    truth = sim.probability
    if holdout_fraction is None:
        train, test = sim.data, sim.sample(max(N // 5, 1), seed=(int(seed) + 2) % 2**32)
    else:
        train, test = sim.data.split(holdout_fraction, seed=seed)
    anchors, _ = find_anchors(train, K, prior_sd=sd, anchor_words=anchor_words, seed=fit_seed)
    results, fits = [], {}
    for i, method in enumerate(methods, start=1):
        options = _method_options(method, iter_warmup, iter_sampling, draws)
        if progress is not None:
            progress(f"[{i}/{len(methods)}] {method}: fitting ...")
            if method == "nuts":
                options["show_progress"] = True
        started = time.perf_counter()
        how = identification or default_identification(method)
        try:
            idata = fit_sgns(
                train,
                K,
                method=method,
                identification=how,
                anchors=anchors if how == "anchors" else None,
                prior_sd=sd,
                init=init,
                seed=fit_seed,
                chains=chains if method in ("nuts", "pg-gibbs") else None,
                **options,
            )
        except BayesweError as exc:
            # A method that fails (e.g. ADVI's step-size search, a sampler's state going
            # non-finite) is a result of the comparison, not a reason to lose the others.
            message = f"{type(exc).__name__}: {one_line(exc)}"
            results.append(MethodResult.failed(method, time.perf_counter() - started, message))
            if progress is not None:
                progress(f"[{i}/{len(methods)}] {method}: FAILED: {message}")
            continue
        results.append(_evaluate(method, idata, sim, test, truth, level))
        fits[method] = idata
        if out is not None:
            write_netcdf_atomic(idata, out / f"{method}.nc")
        if progress is not None:
            r = results[-1]
            progress(
                f"[{i}/{len(methods)}] {method}: done in {time.perf_counter() - started:.1f} s "
                f"(Stan {r.wall_s:.1f} s), RMSE_co {r.rmse_co:.4f}"
            )
    settings = {
        "V": V,
        "K": K,
        "N": N,
        "P": sim.data.P,
        "holdout_fraction": holdout_fraction,
        "N_train": train.total,
        "N_holdout": test.total,
        "seed": seed,
        "prior_sd": sd,
        "epsilon": epsilon,
        "distribution": distribution,
        "chains": chains,
        "iter_warmup": iter_warmup,
        "iter_sampling": iter_sampling,
        "draws": draws,
        "anchor_rule": anchor_words if isinstance(anchor_words, str) else "explicit",
        "init": init,
        "identification": identification or "per method",
        "level": level,
    }
    extra: dict[str, Any] = {}
    if out is not None:
        # Cosine similarity depends on the gauge: every fit, and the truth, in the svd
        # gauge (a function of rho @ alpha.T alone, whatever the fit's own gauge).
        true_rho, _ = svd_gauge(sim.rho, sim.alpha)
        mapped = {m: to_gauge(idata, "svd") for m, idata in fits.items()}
        figure = _cosine_figure(mapped, train.vocabulary, true_rho, out / "cosine_similarity.png")
        extra["files"] = sorted([f"{m}.nc" for m in fits] + [figure.name])
    return SGNSComparison(
        settings=settings,
        results=tuple(results),
        anchor_words=anchors.words,
        anchor_condition_number=anchors.condition_number,
        extra=extra,
    )


def _evaluate(
    method: str,
    idata: az.InferenceData,
    sim: Any,
    test: Any,
    truth: np.ndarray,
    level: float,
) -> MethodResult:
    rho, alpha = draws_of(idata)
    n_draws = rho.shape[0]
    rho_hat, alpha_hat = rho.mean(axis=0), alpha.mean(axis=0)
    if idata.attrs.get("identification") in ("posthoc", "none"):
        # averaged coordinates of draws in different gauges mean nothing: the point
        # estimate is the posterior mean of rho @ alpha.T, factorized in the svd gauge
        theta = np.einsum("dwk,dvk->wv", rho, alpha) / n_draws
        u, sv, wt = np.linalg.svd(theta)
        K = rho.shape[-1]
        rho_hat, alpha_hat = u[:, :K] * np.sqrt(sv[:K]), wt[:K].T * np.sqrt(sv[:K])
    coverage = math.nan
    if n_draws > 1:
        coverage = float(interval_coverage(rho, alpha, truth, level=level).mean())
    ess = _cooccurrence_ess(idata) if n_draws > 1 else math.nan
    rhat_max = math.nan
    if method in ("nuts", "pg-gibbs") and idata.posterior.sizes["chain"] > 1:
        if idata.attrs.get("identification") == "anchors":
            names = ["rho", "alpha_free"]
            rhat = az.rhat(idata, var_names=names)
            rhat_max = float(max(rhat[v].values.max() for v in names))
        else:  # single coordinates are not identified: R-hat of P(w ∧ v)
            post = idata.posterior
            prob = expit(np.einsum("cdwk,cdvk->cdwv", post["rho"].values, post["alpha"].values))
            ds = xr.Dataset({"p": (("chain", "draw", "w", "v"), prob)})
            rhat_max = float(np.nanmax(az.rhat(ds)["p"].values))
    wall = float(idata.attrs["wall_time"])
    return MethodResult(
        method=method,
        wall_s=wall,
        draws=int(n_draws),
        draws_per_s=n_draws / wall if n_draws > 1 and wall > 0 else math.nan,
        median_ess=ess,
        ess_per_s=ess / wall if wall > 0 else math.nan,
        rmse_co=float(rmse_co(rho_hat, alpha_hat, sim.rho, sim.alpha)),
        coverage90=coverage,
        holdout_loglik=float(mean_log_likelihood(rho_hat, alpha_hat, test)),
        rhat_max=rhat_max,
    )


def _cosine_figure(
    fits: Mapping[str, az.InferenceData],
    vocabulary: Sequence[str],
    true_rho: np.ndarray,
    path: Path,
) -> Path:
    """Overlay the cosine-similarity posteriors of :data:`FIGURE_PAIRS` for every method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairs = [(a, b) for a, b in FIGURE_PAIRS if max(a, b) < len(vocabulary)]
    fig, axes = plt.subplots(1, len(pairs), figsize=(4.2 * len(pairs), 3.4), squeeze=False)
    bins = np.linspace(-1, 1, 81)
    for ax, (a, b) in zip(axes[0], pairs, strict=True):
        wa, wb = vocabulary[a], vocabulary[b]
        for j, (method, idata) in enumerate(fits.items()):
            color = f"C{j}"
            cos = posterior_cosine_similarity(idata, wa, wb).values.ravel()
            if cos.size > 1:
                ax.hist(cos, bins=bins, density=True, histtype="step", color=color, label=method)
            else:
                ax.axvline(float(cos[0]), color=color, linestyle="--", label=method)
        ax.axvline(
            float(cosine_similarity(true_rho[a], true_rho[b])), color="k", lw=1.5, label="truth"
        )
        ax.set_title(f"cos(rho[{wa}], rho[{wb}])")
        ax.set_xlabel("cosine similarity")
    axes[0][0].set_ylabel("posterior density")
    axes[0][-1].legend(fontsize="small")
    fig.tight_layout()
    try:
        savefig_atomic(fig, path, dpi=110)
    finally:
        plt.close(fig)
    return path


def parse_methods(text: str | Sequence[str]) -> list[str]:
    """The methods of ``--methods`` (comma-separated text or a list), checked.

    Raises ``ValueError`` for none, a repeat, or one not in :data:`METHODS` (listing them).
    """
    return parse_method_list(text, METHODS)


def _methods_option(text: str) -> list[str]:
    try:
        return parse_methods(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def check_args(args: argparse.Namespace) -> list[str]:
    """Check the options of ``bayeswe compare sgns`` before anything runs; the methods.

    Raises ``ValueError`` naming the option: sizes (``--V`` >= 2, ``1 <= --K < --V``,
    ``--N`` >= 1), ``--seed`` in [0, 2**32 - 1], ``--prior-sd`` > 0, ``--chains`` >= 1,
    ``--iter-warmup`` >= 0, ``--iter-sampling`` and ``--draws`` >= 1, ``--holdout`` in
    (0, 1), the methods (see :func:`parse_methods`), and ``--out`` (a directory that
    exists and is writable, or can be created; nothing is created here).
    """
    from bayeswe.atomic import check_output_dir

    methods = parse_methods(args.methods)
    for option, value, low in (
        ("--V", args.V, 2),
        ("--K", args.K, 1),
        ("--N", args.N, 1),
        ("--chains", args.chains, 1),
        ("--iter-warmup", args.iter_warmup, 0),
        ("--iter-sampling", args.iter_sampling, 1),
        ("--draws", args.draws, 1),
    ):
        if value < low:
            raise ValueError(f"{option} must be >= {low}, got {value}")
    if args.K >= args.V:
        raise ValueError(f"--K must be below --V (K fixed context words), got {args.K} >= {args.V}")
    if not 0 <= args.seed <= 2**32 - 1:
        raise ValueError(f"--seed must be in [0, {2**32 - 1}], got {args.seed}")
    if args.prior_sd is not None and not (math.isfinite(args.prior_sd) and args.prior_sd > 0):
        raise ValueError(f"--prior-sd must be a number > 0, got {args.prior_sd}")
    if args.holdout is not None and not 0 < args.holdout < 1:
        raise ValueError(f"--holdout must be in (0, 1), got {args.holdout}")
    if getattr(args, "out", None) is not None:
        check_output_dir(args.out, "--out")
    return methods


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe compare sgns`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(
            prog="bayeswe compare sgns",
            description="fit one simulated SGNS dataset by several methods (paper section 4.1)",
        )
    add = parser.add_argument
    add("--V", type=int, default=100, help="vocabulary size (default 100)")
    add("--K", type=int, default=5, help="embedding dimension (default 5)")
    add("--N", type=int, default=50_000, help="observations (default 50000)")
    add("--seed", type=int, default=20261121)
    add(
        "--methods",
        type=_methods_option,
        default=",".join(DEFAULT_METHODS),
        help=f"comma-separated subset of {','.join(METHODS)} (default: %(default)s)",
    )
    add("--prior-sd", "--lambda", dest="prior_sd", type=float, default=None,
        help="prior standard deviation lambda (default 1/sqrt(K))")  # fmt: skip
    add("--distribution", choices=DISTRIBUTIONS, default="uniform")
    add("--chains", type=int, default=2, help="NUTS chains (default 2)")
    add("--iter-warmup", type=int, default=1000)
    add("--iter-sampling", type=int, default=1000)
    add("--draws", type=int, default=2000, help="draws of the approximations")
    add(
        "--anchor-words",
        choices=ANCHOR_RULES,
        default=DEFAULT_ANCHOR_RULE,
        help="how the K fixed context words are chosen (default: %(default)s)",
    )
    add("--init", choices=("map", "random"), default="map",
        help="start at the MAP (default) or at Stan's random inits")  # fmt: skip
    add("--identification", choices=("posthoc", "anchors", "none"), default=None,
        help="for every method (default: each method's own, post hoc for nuts and "
        "pg-gibbs, MAP anchors for the others)")  # fmt: skip
    add(
        "--holdout",
        type=float,
        default=None,
        help="hold out this share of the observations (default: N/5 fresh observations)",
    )
    add("--out", type=Path, default=None, help="save <method>.nc and cosine_similarity.png here")
    add("--quiet", action="store_true", help="no progress messages on stderr")
    add("--json", action="store_true", help="print JSON")
    return parser


def main(argv: Sequence[str] | None = None, *, args: argparse.Namespace | None = None) -> int:
    """Run ``bayeswe compare sgns``; prints the table (or JSON) and returns 0.

    The options are checked (:func:`check_args`, ``ValueError``) before anything runs.
    When a method failed, the table (or JSON) is printed first and then
    :class:`~bayeswe.errors.MethodFailedError` is raised (the CLI exits 1).
    """
    if args is None:
        args = build_parser().parse_args(argv)
    methods = check_args(args)
    result = compare_methods(
        args.V,
        args.K,
        args.N,
        seed=args.seed,
        methods=methods,
        prior_sd=args.prior_sd,
        distribution=args.distribution,
        chains=args.chains,
        iter_warmup=args.iter_warmup,
        iter_sampling=args.iter_sampling,
        draws=args.draws,
        anchor_words=args.anchor_words,
        init=args.init,
        identification=getattr(args, "identification", None),
        holdout_fraction=args.holdout,
        out_dir=getattr(args, "out", None),
        progress=None if getattr(args, "quiet", False) else _stderr_progress,
    )
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        _raise_if_failed(result.results)
        return 0
    s = result.settings
    print(
        f"SGNS on simulated data: V={s['V']}, K={s['K']}, N={s['N']} ({s['P']} unique pairs), "
        f"{s['distribution']} pairs, prior sd {s['prior_sd']:.4g}, seed {s['seed']}"
    )
    print(
        f"fixed context words: {', '.join(result.anchor_words)} "
        f"(condition number {result.anchor_condition_number:.3g})\n"
    )
    print(result.table())
    if "files" in result.extra:
        print(f"\nsaved in {args.out}: {', '.join(result.extra['files'])}")
    _raise_if_failed(result.results)
    return 0


def _raise_if_failed(results: Sequence[MethodResult]) -> None:
    """:class:`MethodFailedError` naming each failed method and why (after the table)."""
    failed = [r for r in results if r.error is not None]
    if failed:
        why = "; ".join(f"{r.method}: {r.error}" for r in failed)
        raise MethodFailedError(f"{len(failed)} of {len(results)} methods failed: {why}")


if __name__ == "__main__":
    sys.exit(main())
