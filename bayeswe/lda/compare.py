"""Compare inference methods on one simulated LDA dataset with known topics.

One corpus of ``D`` documents of ``doc_length`` tokens is drawn from the LDA
generative model (:func:`~bayeswe.lda.simulate.simulate_lda`: ``phi_k ~ Dir(beta)``,
``theta_d ~ Dir(alpha)``), plus ``D // 5`` held-out documents from the same true
topics, and each method fits the corpus with the true ``K``, ``alpha`` and ``beta``.
Before any measurement every chain's topics are matched to the true ones
(:func:`~bayeswe.lda.align.align_chains`, Hungarian matching on Hellinger distance),
since the labels of a fit are arbitrary. For each method (the JSON keys of
:meth:`LDAComparison.to_dict`):

* ``wall_s``: seconds of the fit, compilation excluded (Stan's run, or the sweeps of
  ``cgs``; ``cavi`` and ``svi`` are timed after a warm-up call on a two-document corpus
  has loaded their Numba kernels);
* ``draws``: posterior draws, all chains (1 for MAP);
* ``hellinger_mean``, ``hellinger_max``: mean and largest Hellinger distance
  (in [0, 1]) between the aligned posterior-mean ``phi`` and the true topics
  (the mode for MAP);
* ``coverage90``: share of the ``K * V`` true ``phi[k, w]`` inside the equal-tailed
  credible interval at ``level`` (90 % by default) of the aligned draws; undefined for
  MAP. ``cgs`` saves ``E[phi | z]`` per sweep, whose spread understates the
  posterior's, so its intervals use one draw of ``phi | z ~ Dir(n_wk + beta)`` per
  saved sweep instead (:func:`cgs_phi_draws`);
* ``heldout_log_predictive``: average log predictive probability per held-out token by
  document completion (:func:`~bayeswe.lda.evaluation.heldout_log_predictive`, at most
  20 draws of ``phi``);
* ``elbo``: the last value of ``optimization_trace.elbo`` for ``cavi`` and ``svi`` (the ELBO
  at convergence, or after the last pass), undefined for the other methods.

With ``out_dir`` each method's InferenceData is saved, as returned by
:func:`bayeswe.fit`, to ``<out_dir>/<method>.nc``, and ``<out_dir>/topics.png`` shows
the per-topic Hellinger distance to the truth of every method and, for true topic 0,
the 90 % intervals of the probabilities of its top words against their true values.
Each file is written whole or not at all (:mod:`bayeswe.atomic`; a full disk raises
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

import bayeswe
from bayeswe._arviz import az
from bayeswe.atomic import savefig_atomic, write_netcdf_atomic
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.errors import BayesweError, MethodFailedError, one_line
from bayeswe.fit import METHODS as STAN_METHODS
from bayeswe.fit import SAMPLER_METHODS
from bayeswe.lda.align import align_chains, topic_distances
from bayeswe.lda.data import LDAData
from bayeswe.lda.evaluation import heldout_log_predictive
from bayeswe.lda.simulate import SimulatedLDA, simulate_lda
from bayeswe.options import magnitude_problem, parse_method_list

__all__ = [
    "DEFAULT_METHODS",
    "METHODS",
    "LDAComparison",
    "MethodResult",
    "build_parser",
    "cgs_dirichlet_parameters",
    "cgs_phi_draws",
    "check_args",
    "compare_methods",
    "interval_coverage",
    "main",
    "parse_methods",
]

#: Methods compared by default: bayeswe's three LDA samplers, all fast at the default size.
DEFAULT_METHODS: tuple[str, ...] = ("cgs", "cavi", "svi")

#: Every method that fits ``lda``: bayeswe's samplers for it, then Stan's.
METHODS: tuple[str, ...] = (
    *(m for m, models in SAMPLER_METHODS.items() if "lda" in models),
    *STAN_METHODS,
)

#: Held-out documents are ``D // HELDOUT_DIVISOR`` fresh documents from the true topics.
HELDOUT_DIVISOR = 5

#: Methods with several chains (the others return one chain).
_MULTI_CHAIN = ("cgs", "nuts")


@dataclass(frozen=True)
class MethodResult:
    """Accuracy and cost of one method on one dataset (see the module docstring)."""

    method: str
    wall_s: float
    draws: int
    hellinger_mean: float
    hellinger_max: float
    coverage90: float
    heldout_log_predictive: float
    elbo: float = math.nan
    error: str | None = None  # why the method failed (Stan's message); the numbers are then NaN

    @classmethod
    def failed(cls, method: str, wall_s: float, error: str) -> MethodResult:
        nan = math.nan
        return cls(method, wall_s, 0, nan, nan, nan, nan, error=error)


@dataclass(frozen=True)
class LDAComparison:
    """Settings and per-method results of :func:`compare_methods`."""

    settings: Mapping[str, Any]
    results: tuple[MethodResult, ...]
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
                "results": [asdict(r) for r in self.results],
                **dict(self.extra),
            }
        )

    def table(self) -> str:
        """The results as a fixed-width text table."""

        def fmt(x: float, spec: str) -> str:
            return "-" if not math.isfinite(x) else format(x, spec)

        head = (
            f"{'method':14s} {'wall s':>8s} {'draws':>6s} {'H mean':>7s} {'H max':>7s} "
            f"{'cover90':>8s} {'held-out':>9s} {'ELBO':>12s}"
        )
        lines = [head, "-" * len(head)]
        for r in self.results:
            if r.error is not None:
                lines.append(f"{r.method:14s} {r.wall_s:8.2f}  failed: {r.error}")
                continue
            cover = fmt(100 * r.coverage90, ".1f") + ("" if math.isnan(r.coverage90) else " %")
            lines.append(
                f"{r.method:14s} {r.wall_s:8.2f} {r.draws:6d} {r.hellinger_mean:7.4f} "
                f"{r.hellinger_max:7.4f} {cover:>8s} {fmt(r.heldout_log_predictive, '9.4f'):>9s} "
                f"{fmt(r.elbo, '12.1f'):>12s}"
            )
        return "\n".join(lines)


def interval_coverage(draws: np.ndarray, truth: np.ndarray, level: float = 0.9) -> float:
    """Share of ``truth`` inside the equal-tailed ``level`` intervals of ``draws``.

    Parameters
    ----------
    draws
        ``(S, *shape)`` draws; the interval of each entry runs from the
        ``(1 - level) / 2`` to the ``(1 + level) / 2`` quantile over the first axis
        (``numpy.quantile``'s default linear interpolation), ends included.
    truth
        ``shape`` true values.
    level
        Credible level in (0, 1).

    Returns
    -------
    float
        In [0, 1].
    """
    draws = np.asarray(draws, dtype=np.float64)
    truth = np.asarray(truth, dtype=np.float64)
    if draws.shape[1:] != truth.shape:
        raise ValueError(f"draws {draws.shape} do not match truth {truth.shape} after axis 0")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    tail = (1.0 - level) / 2.0
    lower, upper = np.quantile(draws, [tail, 1.0 - tail], axis=0)
    return float(np.mean((truth >= lower) & (truth <= upper)))


def cgs_dirichlet_parameters(idata: az.InferenceData, data: LDAData) -> np.ndarray:
    """``n_wk + beta`` of every saved sweep of a ``cgs`` fit, ``(chain, draw, topic, word)``.

    ``cgs`` saves ``phi[k, w] = (n_wk + beta) / (n_k + V beta)`` and
    ``theta[d, k] = (n_dk + alpha_k) / (N_d + sum(alpha))``, the means of the full
    conditionals given the topic assignments. ``n_k = sum_d n_dk`` follows from
    ``theta`` and the document lengths, so ``phi * (n_k + V beta)`` is the parameter of
    ``phi_k | z, w ~ Dir(n_wk + beta)`` (Griffiths and Steyvers 2004, eq. 6).

    Parameters
    ----------
    idata
        A ``cgs`` fit of ``data`` (topics in any order: each chain's ``phi`` and
        ``theta`` carry the same permutation).
    data
        The data it was fitted to.
    """
    post = idata.posterior
    phi = post["phi"].transpose("chain", "draw", "topic", "word").values
    theta = post["theta"].transpose("chain", "draw", "doc", "topic").values
    alpha = data.alpha_vector()
    lengths = data.corpus.doc_lengths.astype(np.float64)
    n_dk = theta * (lengths + alpha.sum())[:, None] - alpha
    n_k = np.rint(n_dk.sum(axis=2))  # integer counts up to float64 rounding
    return phi * (n_k + data.n_words * data.beta)[..., None]


def cgs_phi_draws(idata: az.InferenceData, data: LDAData, seed: int) -> np.ndarray:
    """One draw of ``phi | z, w`` per saved sweep of a ``cgs`` fit, ``(chain, draw, K, V)``.

    The saved ``phi`` are conditional means ``E[phi | z]``, whose spread over sweeps
    is narrower than the posterior's; these draws from ``Dir(n_wk + beta)``
    (:func:`cgs_dirichlet_parameters`) are draws from the posterior of ``phi``.

    Parameters
    ----------
    idata, data
        A ``cgs`` fit and the data it was fitted to.
    seed
        Seeds the Dirichlet draws.
    """
    concentration = cgs_dirichlet_parameters(idata, data)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3,)))
    # floor: with small beta a Gamma variate underflows to 0 and a row could be all zeros
    gamma = rng.gamma(concentration) + 1e-300
    return gamma / gamma.sum(axis=-1, keepdims=True)


def _stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _method_options(
    method: str, iter_warmup: int, iter_sampling: int, thin: int, draws: int, show: bool
) -> dict[str, Any]:
    if method == "cgs":
        return {
            "iter_warmup": iter_warmup,
            "iter_sampling": iter_sampling,
            "thin": thin,
            "show_progress": show,
        }
    if method == "nuts":
        return {"iter_warmup": iter_warmup, "iter_sampling": iter_sampling, "show_progress": show}
    if method in ("advi", "advi-fullrank"):
        # ADVI on LDA often stops on its relative tolerance without "converging" in
        # Stan's sense; its draws are still the approximation to compare.
        return {"draws": draws, "require_converged": False}
    if method in ("laplace", "pathfinder", "cavi", "svi"):
        return {"draws": draws}
    return {}


def _warm_up(method: str) -> None:
    """Load ``cavi``'s or ``svi``'s Numba kernels (and the ``cgs`` start's) on a tiny corpus.

    Unlike ``cgs`` and Stan they report no time without compilation, so the fit is timed
    here and must not include the first call's compile or cache load.
    """
    bow = BagOfWords.from_token_ids([[0, 1, 1], [2, 0]], Vocabulary(("a", "b", "c")))
    tiny = LDAData(bow, n_topics=2)
    bayeswe.fit("lda", tiny, method=method, seed=0, draws=1, init_sweeps=1, iter=1)


def compare_methods(
    D: int = 500,
    K: int = 8,
    V: int = 200,
    doc_length: int = 100,
    *,
    seed: int,
    methods: Sequence[str] = DEFAULT_METHODS,
    alpha: float = 0.1,
    beta: float = 0.05,
    chains: int = 2,
    iter_warmup: int = 500,
    iter_sampling: int = 1000,
    thin: int = 10,
    draws: int = 1000,
    level: float = 0.9,
    out_dir: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> LDAComparison:
    """Simulate one LDA corpus with known topics and fit it by each method.

    Parameters
    ----------
    D, K, V, doc_length
        Documents, topics, vocabulary size, tokens per document.
    seed
        Seeds the simulation; the fits get ``seed + 1``, the held-out documents
        ``seed + 2`` and the held-out evaluation and the ``cgs`` Dirichlet draws
        ``seed + 3`` (modulo ``2**32``).
    methods
        Methods of :data:`METHODS` to compare.
    alpha, beta
        Symmetric Dirichlet parameters of the simulation, also the priors of the fits.
    chains
        Chains of ``cgs`` and ``nuts``.
    iter_warmup, iter_sampling
        Burn-in and kept sweeps of ``cgs``; warm-up and sampling iterations of ``nuts``.
    thin
        ``cgs`` saves every ``thin``-th sweep (``nuts`` keeps all its iterations).
    draws
        Draws of ``advi``, ``advi-fullrank``, ``laplace``, ``pathfinder``, ``cavi``
        and ``svi``.
    level
        Credible level of the coverage check (reported as ``coverage90``).
    out_dir
        If given, save ``<method>.nc`` per method and ``topics.png``.
    progress
        Called with a one-line message before and after each fit (the command line
        prints them to stderr; ``cgs`` and ``nuts`` then also show progress bars).

    Returns
    -------
    LDAComparison
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(
            f"methods must be a non-empty subset of {', '.join(METHODS)}; got {list(methods)}"
        )
    if len(set(methods)) != len(methods):
        raise ValueError(f"methods repeat: {list(methods)}")
    n_heldout = D // HELDOUT_DIVISOR
    if n_heldout < 1:
        raise ValueError(f"D must be >= {HELDOUT_DIVISOR} to hold out D // 5 documents, got {D}")
    out = None if out_dir is None else Path(out_dir)
    if out is not None:
        # before the simulation and the fits: a bad directory fails at once
        out.mkdir(parents=True, exist_ok=True)
    fit_seed = (int(seed) + 1) % 2**32
    eval_seed = (int(seed) + 3) % 2**32
    sizes = {"n_words": V, "n_topics": K, "doc_length": doc_length, "alpha": alpha, "beta": beta}
    sim = simulate_lda(n_docs=D, seed=seed, **sizes)
    test = simulate_lda(
        n_docs=n_heldout, seed=(int(seed) + 2) % 2**32, phi=sim.phi, **sizes
    ).data.corpus
    results, fits = [], {}
    for i, method in enumerate(methods, start=1):
        options = _method_options(
            method, iter_warmup, iter_sampling, thin, draws, show=progress is not None
        )
        if progress is not None:
            progress(f"[{i}/{len(methods)}] {method}: fitting ...")
        if method in ("cavi", "svi"):
            _warm_up(method)
        started = time.perf_counter()
        try:
            idata = bayeswe.fit(
                "lda",
                sim.data,
                method=method,
                seed=fit_seed,
                chains=chains if method in _MULTI_CHAIN else None,
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
        elapsed = time.perf_counter() - started
        wall = float(idata.attrs.get("wall_time", elapsed))
        results.append(_evaluate(method, idata, sim, test, wall, level, eval_seed))
        fits[method] = idata
        if out is not None:
            write_netcdf_atomic(idata, out / f"{method}.nc")
        if progress is not None:
            r = results[-1]
            progress(
                f"[{i}/{len(methods)}] {method}: done in {time.perf_counter() - started:.1f} s "
                f"(fit {r.wall_s:.1f} s), Hellinger {r.hellinger_mean:.4f}"
            )
    settings = {
        "D": D,
        "K": K,
        "V": V,
        "doc_length": doc_length,
        "alpha": alpha,
        "beta": beta,
        "seed": seed,
        "n_tokens": int(sim.data.corpus.n_tokens),
        "D_heldout": n_heldout,
        "heldout_tokens": int(test.n_tokens),
        "chains": chains,
        "iter_warmup": iter_warmup,
        "iter_sampling": iter_sampling,
        "thin": thin,
        "draws": draws,
        "level": level,
    }
    extra: dict[str, Any] = {}
    if out is not None:
        aligned = {m: align_chains(idata, sim.phi) for m, idata in fits.items()}
        figure = _topics_figure(aligned, sim, level, eval_seed, out / "topics.png")
        extra["files"] = sorted([f"{m}.nc" for m in fits] + [figure.name])
    return LDAComparison(settings=settings, results=tuple(results), extra=extra)


def _flat_phi(idata: az.InferenceData) -> np.ndarray:
    """``(S, K, V)`` draws of ``phi``, chains pooled."""
    phi = idata.posterior["phi"].transpose("chain", "draw", "topic", "word").values
    return phi.reshape(-1, *phi.shape[2:])


def _interval_draws(method: str, aligned: az.InferenceData, data: LDAData, seed: int) -> np.ndarray:
    """The draws whose quantiles give ``phi``'s credible intervals (see :func:`cgs_phi_draws`)."""
    if method == "cgs":
        phi = cgs_phi_draws(aligned, data, seed)
        return phi.reshape(-1, *phi.shape[2:])
    return _flat_phi(aligned)


def _evaluate(
    method: str,
    idata: az.InferenceData,
    sim: SimulatedLDA,
    test: BagOfWords,
    wall: float,
    level: float,
    seed: int,
) -> MethodResult:
    aligned = align_chains(idata, sim.phi)
    phi = _flat_phi(aligned)
    distance = np.diag(topic_distances(sim.phi, phi.mean(axis=0)))
    coverage = math.nan
    if phi.shape[0] > 1:
        coverage = interval_coverage(
            _interval_draws(method, aligned, sim.data, seed), sim.phi, level
        )
    heldout = heldout_log_predictive(idata, test, sim.data.alpha_vector(), seed=seed)
    elbo = math.nan
    if "optimization_trace" in idata.groups():
        elbo = float(idata["optimization_trace"]["elbo"].values[-1])
    return MethodResult(
        method=method,
        wall_s=wall,
        draws=int(phi.shape[0]),
        hellinger_mean=float(distance.mean()),
        hellinger_max=float(distance.max()),
        coverage90=coverage,
        heldout_log_predictive=heldout.per_token,
        elbo=elbo,
    )


#: Top words of true topic 0 shown in the interval panel of the figure.
FIGURE_TOP_WORDS = 10


def _topics_figure(
    fits: Mapping[str, az.InferenceData], sim: SimulatedLDA, level: float, seed: int, path: Path
) -> Path:
    """Per-topic Hellinger distance, and the intervals of topic 0's top words, per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    K = sim.phi.shape[0]
    top = np.argsort(-sim.phi[0], kind="stable")[:FIGURE_TOP_WORDS]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    width = 0.8 / max(len(fits), 1)
    tail = (1.0 - level) / 2.0
    for j, (method, idata) in enumerate(fits.items()):
        color, shift = f"C{j}", (j - (len(fits) - 1) / 2) * width
        phi = _flat_phi(idata)
        distance = np.diag(topic_distances(sim.phi, phi.mean(axis=0)))
        left.bar(np.arange(K) + shift, distance, width=width, color=color, label=method)
        draws = _interval_draws(method, idata, sim.data, seed)[:, 0, top]
        mean = phi[:, 0, top].mean(axis=0)
        if draws.shape[0] > 1:
            lower, upper = np.quantile(draws, [tail, 1.0 - tail], axis=0)
            yerr = np.vstack([mean - lower, upper - mean]).clip(min=0)
        else:
            yerr = None
        right.errorbar(np.arange(top.size) + shift, mean, yerr=yerr, fmt="o", ms=3,
                       color=color, label=method)  # fmt: skip
    right.scatter(np.arange(top.size), sim.phi[0, top], marker="_", s=200, color="k",
                  label="truth", zorder=3)  # fmt: skip
    left.set_xticks(np.arange(K))
    left.set_xlabel("true topic")
    left.set_ylabel("Hellinger distance to the truth")
    left.set_title("posterior-mean topics after alignment")
    right.set_xticks(np.arange(top.size), [f"w{w}" for w in top], rotation=45)
    right.set_ylabel("phi[0, w]")
    right.set_title(f"topic 0: {level:.0%} intervals of its top words")
    right.legend(fontsize="small")
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
    """Check the options of ``bayeswe compare lda`` before anything runs; the methods.

    Raises ``ValueError`` naming the option: ``--D`` >= 5 (``D // 5`` documents are held
    out), ``2 <= --K < --V``, ``--doc-length`` >= 2 (document completion scores half of
    each held-out document from the other half), ``--alpha`` and ``--beta`` positive
    numbers in the range :class:`~bayeswe.lda.LDAData` accepts, ``--seed`` in
    [0, 2**32 - 1], ``--chains``, ``--iter-sampling``, ``--thin`` and ``--draws`` >= 1,
    ``--iter-warmup`` >= 0, ``--thin`` <= ``--iter-sampling``, the methods (see
    :func:`parse_methods`), and ``--out`` (a directory that exists and is writable, or
    can be created; nothing is created here).
    """
    from bayeswe.atomic import check_output_dir

    methods = parse_methods(args.methods)
    for option, value, low, why in (
        ("--D", args.D, HELDOUT_DIVISOR, f" (D // {HELDOUT_DIVISOR} documents are held out)"),
        ("--K", args.K, 2, ""),
        ("--V", args.V, 3, ""),
        ("--doc-length", args.doc_length, 2, " (held-out documents are split in halves)"),
        ("--chains", args.chains, 1, ""),
        ("--iter-warmup", args.iter_warmup, 0, ""),
        ("--iter-sampling", args.iter_sampling, 1, ""),
        ("--thin", args.thin, 1, ""),
        ("--draws", args.draws, 1, ""),
    ):
        if value < low:
            raise ValueError(f"{option} must be >= {low}{why}, got {value}")
    if args.K >= args.V:
        raise ValueError(f"--K must be below --V (topics over V words), got {args.K} >= {args.V}")
    if args.thin > args.iter_sampling:
        raise ValueError(
            f"--thin must be <= --iter-sampling (cgs would save no sweep), "
            f"got {args.thin} > {args.iter_sampling}"
        )
    if not 0 <= args.seed <= 2**32 - 1:
        raise ValueError(f"--seed must be in [0, {2**32 - 1}], got {args.seed}")
    for option, value in (("--alpha", args.alpha), ("--beta", args.beta)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{option} must be a number > 0, got {value}")
        if (problem := magnitude_problem(option, value)) is not None:
            raise ValueError(problem)
    if getattr(args, "out", None) is not None:
        check_output_dir(args.out, "--out")
    return methods


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe compare lda`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(
            prog="bayeswe compare lda",
            description="fit one simulated LDA corpus with known topics by several methods",
        )
    add = parser.add_argument
    add("--D", type=int, default=500, help="documents (default 500; D // 5 more are held out)")
    add("--K", type=int, default=8, help="topics (default 8)")
    add("--V", type=int, default=200, help="vocabulary size (default 200)")
    add("--doc-length", type=int, default=100, help="tokens per document (default 100)")
    add("--alpha", type=float, default=0.1, help="Dirichlet parameter of theta (default 0.1)")
    add("--beta", type=float, default=0.05, help="Dirichlet parameter of phi (default 0.05)")
    add("--seed", type=int, default=20261121)
    add(
        "--methods",
        type=_methods_option,
        default=",".join(DEFAULT_METHODS),
        help=f"comma-separated subset of {','.join(METHODS)} (default: %(default)s; "
        "nuts only for small corpora)",
    )
    add("--chains", type=int, default=2, help="chains of cgs and nuts (default 2)")
    add("--iter-warmup", type=int, default=500,
        help="burn-in sweeps of cgs, warm-up iterations of nuts (default 500)")  # fmt: skip
    add("--iter-sampling", type=int, default=1000,
        help="sweeps of cgs, iterations of nuts after warm-up (default 1000)")  # fmt: skip
    add("--thin", type=int, default=10, help="cgs saves every THIN-th sweep (default 10)")
    add("--draws", type=int, default=1000,
        help="draws of cavi, svi and Stan's approximations (default 1000)")  # fmt: skip
    add("--out", type=Path, default=None, help="save <method>.nc and topics.png here")
    add("--quiet", action="store_true", help="no progress messages on stderr")
    add("--json", action="store_true", help="print JSON")
    return parser


def main(argv: Sequence[str] | None = None, *, args: argparse.Namespace | None = None) -> int:
    """Run ``bayeswe compare lda``; prints the table (or JSON) and returns 0.

    The options are checked (:func:`check_args`, ``ValueError``) before anything runs.
    When a method failed, the table (or JSON) is printed first and then
    :class:`~bayeswe.errors.MethodFailedError` is raised (the CLI exits 1).
    """
    if args is None:
        args = build_parser().parse_args(argv)
    methods = check_args(args)
    result = compare_methods(
        args.D,
        args.K,
        args.V,
        args.doc_length,
        seed=args.seed,
        methods=methods,
        alpha=args.alpha,
        beta=args.beta,
        chains=args.chains,
        iter_warmup=args.iter_warmup,
        iter_sampling=args.iter_sampling,
        thin=args.thin,
        draws=args.draws,
        out_dir=getattr(args, "out", None),
        progress=None if getattr(args, "quiet", False) else _stderr_progress,
    )
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        _raise_if_failed(result.results)
        return 0
    s = result.settings
    print(
        f"LDA on simulated data: D={s['D']}, K={s['K']}, V={s['V']}, {s['doc_length']} tokens "
        f"per document, alpha {s['alpha']:g}, beta {s['beta']:g}, seed {s['seed']}; "
        f"{s['D_heldout']} held-out documents\n"
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
