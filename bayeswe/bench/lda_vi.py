"""``bayeswe bench lda-vi``: LDA by CAVI and SVI against gensim and scikit-learn.

**Compared.** Side by side in one process, same corpus, same K, alpha = 0.1 and
beta (eta) = 0.01, one thread each (BLAS/OpenMP pools limited to 1 with
``threadpoolctl``):

* ``bayeswe-cavi``: :func:`bayeswe.samplers.lda_vi.cavi`, one iteration (E-step over
  every document, M-step) per call, its default start (200 collapsed-Gibbs sweeps)
  timed as part of the run;
* ``bayeswe-svi``: :func:`bayeswe.samplers.lda_vi.svi`, one pass per call, mini-batches
  of 256 documents, ``tau0 = 1``, ``kappa = 0.7`` (the rate and each document's
  ``gamma`` continue across calls), the same start;
* ``sklearn-batch``: ``LatentDirichletAllocation(learning_method="batch")``; it
  cannot resume, so ``max_iter`` is calibrated to the budget from timed fits of one and
  three iterations (the cost per iteration floored at a sixth of the three-iteration
  fit, so that timing noise can only lengthen its run, at most twofold, in its favour)
  and the fit of that many iterations is timed whole;
* ``sklearn-online``: the same with ``learning_method="online"``, one ``partial_fit``
  over the corpus per call (``batch_size`` 128, its default);
* ``gensim``: ``gensim.models.LdaModel`` (online VB), one ``update(passes=1)`` per
  call (``chunksize`` 2000), model construction timed.

**Data.** A corpus drawn from LDA (1000 documents x 200 tokens, V = 5000, 50 true
topics), K = 50; 10 % of the documents held out (the split of ``bayeswe bench lda``).
``--quick``: 200 x 50 tokens, V = 500, K = 10, 0.3 s per tool.

**Equal footing.** Every tool trains until a common wall-time budget (``--budget``,
default 10 s) is spent (at least one call), starting from its own default start
(random for the peers; ours includes its Gibbs start in the time). Speed is token
visits per second: training tokens x passes over the corpus / training seconds. After
training, each tool's topic-word matrix (normalised ``lambda``, ``get_topics()``,
``components_``) is scored by the same estimator,
:func:`bayeswe.lda.evaluation.heldout_log_predictive` (document completion, plug-in
topics, same alpha, split and seed).

**Summary keys.** ``cavi_speed_ratio_vs_sklearn_batch`` (token visits/s of
bayeswe-cavi over sklearn-batch's), ``svi_speed_ratio_vs_gensim``,
``svi_speed_ratio_vs_sklearn_online``, ``svi_heldout_minus_gensim`` and
``cavi_heldout_minus_sklearn_batch`` (nats per held-out token; positive: ours
predicts better), ``heldout_<tool>`` per tool.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness
from bayeswe.bench.lda import _run_gensim, _split
from bayeswe.corpus import BagOfWords
from bayeswe.lda.data import LDAData
from bayeswe.lda.evaluation import heldout_log_predictive
from bayeswe.lda.simulate import simulate_lda

__all__ = ["TOOLS", "build_parser", "main", "run"]

ALPHA = 0.1
BETA = 0.01
TOOLS = ("bayeswe-cavi", "bayeswe-svi", "sklearn-batch", "sklearn-online", "gensim")

# Each runner trains for about `budget` seconds: (passes, training seconds, phi (K, V)).
Runner = Callable[[BagOfWords, int, float, int], tuple[int, float, np.ndarray]]


def _ours(method: str) -> Runner:
    def run(train: BagOfWords, K: int, budget: float, seed: int):
        from bayeswe.samplers import lda_vi

        data = LDAData(train, n_topics=K, alpha=ALPHA, beta=BETA)
        rng = np.random.default_rng(seed)

        def start() -> dict[str, Any]:
            sweeps = lda_vi.CAVIArgs().init_sweeps  # the default start
            return {"lam": lda_vi.cgs_lambda(data, seed, sweeps), "gamma": None, "t": 0}

        made = harness.timed(start)
        state = made.value
        cavi_args = lda_vi.CAVIArgs(iter=1)
        svi_args = lda_vi.SVIArgs(iter=1, elbo_every_pass=False)

        def one_pass() -> None:
            if method == "cavi":
                result = lda_vi.cavi(data, cavi_args, state["lam"], state["gamma"])
                state["lam"], state["gamma"] = result.lam, result.gamma
            else:
                if state["gamma"] is None:  # kept across passes, updated in place
                    state["gamma"] = data.alpha_vector()[None, :] + (train.doc_lengths[:, None] / K)
                state["lam"], _, state["t"] = lda_vi.svi(
                    data, svi_args, state["lam"], rng, t_start=state["t"], gamma=state["gamma"]
                )

        passes = harness.run_for(one_pass, budget - made.wall_s)
        lam = state["lam"]
        return passes.calls, made.wall_s + passes.seconds, lam / lam.sum(axis=1, keepdims=True)

    return run


def _sklearn_matrix(train: BagOfWords) -> Any:
    import scipy.sparse as sp

    return sp.csr_matrix(
        (train.counts.astype(np.float64), train.word_ids, train.doc_ptr),
        shape=(train.n_docs, train.n_words),
    )


def _sklearn_batch(train: BagOfWords, K: int, budget: float, seed: int):
    from sklearn.decomposition import LatentDirichletAllocation

    X = _sklearn_matrix(train)

    def fit(n: int) -> Any:
        model = LatentDirichletAllocation(
            n_components=K, doc_topic_prior=ALPHA, topic_word_prior=BETA,
            learning_method="batch", max_iter=n, evaluate_every=-1, n_jobs=1, random_state=seed,
        )  # fmt: skip
        return model.fit(X)

    # per-iteration cost and fixed cost from fits of 1 and 3 iterations; the floor (a
    # sixth of the 3-iteration fit) keeps a near-zero difference on a loaded machine
    # from asking for millions of iterations
    one, three = harness.timed(fit, 1).wall_s, harness.timed(fit, 3).wall_s
    per = max((three - one) / 2, three / 6)
    n = max(1, int((budget - max(one - per, 0.0)) / per))
    made = harness.timed(fit, n)
    comp = np.asarray(made.value.components_, dtype=np.float64)
    return n, made.wall_s, comp / comp.sum(axis=1, keepdims=True)


def _sklearn_online(train: BagOfWords, K: int, budget: float, seed: int):
    from sklearn.decomposition import LatentDirichletAllocation

    X = _sklearn_matrix(train)
    model = LatentDirichletAllocation(
        n_components=K, doc_topic_prior=ALPHA, topic_word_prior=BETA, learning_method="online",
        total_samples=train.n_docs, n_jobs=1, random_state=seed,
    )  # fmt: skip
    passes = harness.run_for(lambda: model.partial_fit(X), budget)
    comp = np.asarray(model.components_, dtype=np.float64)
    return passes.calls, passes.seconds, comp / comp.sum(axis=1, keepdims=True)


RUNNERS: dict[str, Runner] = {
    "bayeswe-cavi": _ours("cavi"),
    "bayeswe-svi": _ours("svi"),
    "sklearn-batch": _sklearn_batch,
    "sklearn-online": _sklearn_online,
    "gensim": _run_gensim,
}
_MODULES = {"sklearn-batch": "sklearn", "sklearn-online": "sklearn", "gensim": "gensim"}


def _warm_up() -> None:
    """Numba compilation on a tiny corpus, out of every budget."""
    from bayeswe.samplers import lda_vi

    sim = simulate_lda(n_docs=5, doc_length=10, n_words=20, n_topics=2, seed=0)
    lda_vi.cavi(sim.data, lda_vi.CAVIArgs(iter=1), lda_vi.cgs_lambda(sim.data, 0, 1))


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b <= 0 else a / b


def run(*, quick: bool = False, budget: float | None = None, seed: int = 1) -> dict[str, Any]:
    """Train every tool for the same budget and score it (see the module docstring)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - comes with the bench extra
        threadpool_limits = None
    logging.getLogger("gensim").setLevel(logging.ERROR)
    if quick:
        sim = simulate_lda(n_docs=200, doc_length=50, n_words=500, n_topics=10, alpha=ALPHA,
                           beta=BETA, seed=seed)  # fmt: skip
        K, budget = 10, 0.3 if budget is None else budget
    else:
        sim = simulate_lda(n_docs=1000, doc_length=200, n_words=5000, n_topics=50, alpha=ALPHA,
                           beta=BETA, seed=seed)  # fmt: skip
        K, budget = 50, 10.0 if budget is None else budget
    train, test = _split(sim.data.corpus, seed)
    _warm_up()
    rows = []
    limits = threadpool_limits(1) if threadpool_limits else contextlib.nullcontext()
    with limits:
        for tool in TOOLS:
            module = _MODULES.get(tool)
            if module is not None and importlib.util.find_spec(module) is None:
                rows.append({"tool": tool, "skipped": "not installed"})
                continue
            passes, seconds, phi = RUNNERS[tool](train, K, budget, seed)
            held = heldout_log_predictive(
                phi, test, ALPHA, seed=seed, iter_warmup=10, iter_sampling=30
            )
            rows.append({
                "tool": tool, "K": K, "passes": passes, "train_seconds": seconds,
                "train_tokens": int(train.n_tokens),
                "token_visits_per_s": train.n_tokens * passes / seconds,
                "heldout_log_pred_per_token": held.per_token,
            })  # fmt: skip
            harness.progress(rows[-1])
    by = {r["tool"]: r for r in rows if "skipped" not in r}

    def rate(tool: str) -> float | None:
        return by[tool]["token_visits_per_s"] if tool in by else None

    def held(tool: str) -> float | None:
        return by[tool]["heldout_log_pred_per_token"] if tool in by else None

    def diff(a: str, b: str) -> float | None:
        return None if held(a) is None or held(b) is None else held(a) - held(b)

    summary: dict[str, Any] = {
        "cavi_speed_ratio_vs_sklearn_batch": _ratio(rate("bayeswe-cavi"), rate("sklearn-batch")),
        "svi_speed_ratio_vs_gensim": _ratio(rate("bayeswe-svi"), rate("gensim")),
        "svi_speed_ratio_vs_sklearn_online": _ratio(rate("bayeswe-svi"), rate("sklearn-online")),
        "svi_heldout_minus_gensim": diff("bayeswe-svi", "gensim"),
        "cavi_heldout_minus_sklearn_batch": diff("bayeswe-cavi", "sklearn-batch"),
        **{f"heldout_{t}": held(t) for t in TOOLS},
    }
    return {
        "summary": summary,
        "settings": {
            "corpus": "synthetic LDA" + (" (quick)" if quick else ""),
            "K": K,
            "alpha": ALPHA,
            "beta": BETA,
            "budget_s": budget,
            "seed": seed,
            "train_docs": int(train.n_docs),
            "test_docs": int(test.n_docs),
            "threads": 1,
            "clock": "wall time of each tool's training calls",
        },  # fmt: skip
        "results": rows,
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench lda-vi`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench lda-vi", description=__doc__)
    harness.add_common_options(parser, quick="small corpus, K = 10, 0.3 s per tool")
    parser.add_argument("--budget", type=float, default=None, help="seconds per tool (10)")
    parser.add_argument("--seed", type=int, default=1)
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    if args.budget is not None and not args.budget > 0:
        raise SystemExit("--budget must be > 0")
    return harness.run_cli(
        "lda-vi",
        args,
        lambda: run(quick=args.quick, budget=args.budget, seed=args.seed),
        argv=argv,
        peers=("gensim", "scikit-learn", "threadpoolctl"),
    )
