"""``bayeswe bench lda``: our collapsed Gibbs sampler against the usual LDA tools.

**Compared.** Side by side in one process, on the same corpus, one thread for every
tool (BLAS/OpenMP pools limited to 1 with ``threadpoolctl``; tomotopy ``workers=1``):

* ``bayeswe-sparse`` / ``bayeswe-dense``: :mod:`bayeswe.samplers.lda_cgs` (one chain);
* ``tomotopy``: ``tomotopy.LDAModel`` (collapsed Gibbs; hyperparameter
  optimization off, ``optim_interval=0``, so that every tool fits the same model);
* ``lda``: the ``lda`` package (collapsed Gibbs, Cython);
* ``gensim``: ``gensim.models.LdaModel`` (online variational Bayes, one pass per update);
* ``sklearn``: ``LatentDirichletAllocation`` (online variational Bayes, ``partial_fit``
  over the corpus once per update).

**Data.** A synthetic corpus drawn from LDA (1000 documents x 200 tokens, V = 5000,
50 true topics, alpha = 0.1, beta = 0.01), fitted with K = 50 and K = 200, and the
NYT bag of words (:func:`bayeswe.datasets.load_nyt`, K = 50 and 200; ``--no-nyt``
skips it). 10 % of the documents are held out. ``--quick``: 200 documents x 50
tokens, V = 500, K = 10 and 40, 0.3 s per tool, no NYT.

**Equal footing.** Same training split, same alpha and beta, same seed. Every tool
trains until a common wall-time budget (``--budget``, default 10 s; twice that on
NYT, which is ~6x larger) is spent, at least one iteration each. Numba compilation
is done beforehand on a tiny corpus, out of every budget. Initialization is left out
of every Gibbs sampler's speed: bayeswe's (token arrays, uniform topics, counts) and
tomotopy's (``add_doc`` + ``train(0)``) are timed separately (``init_seconds``,
counted against the budget); the ``lda`` package cannot resume a fit, so its sweeps
are timed as the difference between a fit of ``n`` iterations and a fit of one
(``refresh=n``, so its log likelihood is computed at the start and the end only, and
both cancel), ``n`` calibrated to the budget. The three resumable Gibbs samplers take
turns, ``--chunk`` sweeps per call each (default 10; ``--quick`` 2), so that they
share the machine's load (paired timing on a busy machine) and tomotopy's per-call
overhead of ``train(n)`` is spread over as many sweeps as ours; the others run one
after the other. Speed is tokens per second for the Gibbs samplers (token updates:
tokens x sweeps / sweep seconds) and token visits per second for the variational
methods (training tokens x passes / seconds, model construction included). After
training, each tool's final topic-word matrix is scored with the same estimator,
:func:`bayeswe.lda.evaluation.heldout_log_predictive` (document completion, plug-in
``phi``, same ``alpha``, same split and seed), so the held-out figures compare models
after equal wall time.

**Summary keys.**

* ``tokens_per_s_ratio_vs_tomotopy_k50``, ``tokens_per_s_ratio_vs_tomotopy_k200`` -
  tokens per second of ``bayeswe-sparse`` over tomotopy's on the synthetic corpus at
  K = 50 and 200 (``--quick``: K = 10 and 40); ``None`` if either did not run;
* ``tokens_per_s_ratio_vs_tomotopy_nyt_k50``, ``tokens_per_s_ratio_vs_tomotopy_nyt_k200``
  - the same on NYT (``None`` without NYT);
* ``stan_grad_speedup_vs_users_guide`` - :func:`bayeswe.bench.lda_stan.stan_grad_speedup`
  on its default corpus (``--quick``: its quick size); ``None`` with ``--no-stan``.
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
from bayeswe.corpus import BagOfWords
from bayeswe.lda.data import LDAData
from bayeswe.lda.evaluation import heldout_log_predictive
from bayeswe.lda.simulate import simulate_lda
from bayeswe.samplers.lda_cgs import CGSProblem, init_state, point_estimates, step

__all__ = ["build_parser", "main", "run"]

ALPHA = 0.1
BETA = 0.01
PEERS = ("tomotopy", "lda", "gensim", "sklearn")


def _split(bow: BagOfWords, seed: int, test_fraction: float = 0.1) -> tuple[BagOfWords, BagOfWords]:
    rng = np.random.default_rng(seed)
    order = rng.permutation(bow.n_docs)
    n_test = max(1, int(round(test_fraction * bow.n_docs)))
    return bow.subset(np.sort(order[n_test:])), bow.subset(np.sort(order[:n_test]))


# --------------------------------------------------------------------------- runners
# Each runner trains for about `budget` seconds and returns
# (iterations, training seconds, phi (K, V) as float64).


class _OursTrainer:
    """bayeswe's collapsed Gibbs, one chain; ``advance`` is one sweep."""

    def __init__(self, algorithm: str) -> None:
        self.algorithm = algorithm

    def start(self, train: BagOfWords, K: int, seed: int) -> None:
        self.problem = CGSProblem.from_data(LDAData(train, n_topics=K, alpha=ALPHA, beta=BETA))
        self.state = init_state(self.problem, seed, 0, self.algorithm)

    def advance(self, sweeps: int) -> None:
        for _ in range(sweeps):
            step(self.problem, self.state, self.algorithm)

    def phi(self) -> np.ndarray:
        return point_estimates(self.problem, self.state)[0]


class _TomotopyTrainer:
    """``tomotopy.LDAModel`` with fixed hyperparameters; ``advance(n)`` is ``train(n)``."""

    def start(self, train: BagOfWords, K: int, seed: int) -> None:
        import tomotopy as tp

        self.model = tp.LDAModel(k=K, alpha=ALPHA, eta=BETA, seed=seed)
        self.model.optim_interval = 0  # keep alpha, eta fixed: same model as ours
        for doc in _doc_words(train):
            self.model.add_doc(doc)
        self.model.train(0, workers=1)  # builds the initial state
        self.train = train

    def advance(self, sweeps: int) -> None:
        self.model.train(sweeps, workers=1)

    def phi(self) -> np.ndarray:
        train, K = self.train, self.model.k
        index = {w: i for i, w in enumerate(train.vocabulary.words)}
        cols = np.array([index[w] for w in self.model.used_vocabs])
        phi = np.full((K, train.n_words), 1e-12)  # words absent from the training split
        for k in range(K):
            phi[k, cols] += self.model.get_topic_word_dist(k)
        return phi / phi.sum(axis=1, keepdims=True)


def _warm_up_numba() -> None:
    tiny = simulate_lda(n_docs=3, doc_length=5, n_words=4, n_topics=2, seed=0)
    warm = CGSProblem.from_data(tiny.data)
    for algorithm in ("sparse", "dense"):
        step(warm, init_state(warm, 0, 0, algorithm), algorithm)


def _run_interleaved(
    trainers: dict[str, Any], train: BagOfWords, K: int, budget: float, seed: int, chunk: int
) -> dict[str, tuple[int, float, np.ndarray, float]]:
    """Advance the Gibbs samplers in turns until each has used ``budget`` seconds.

    Taking turns (``chunk`` sweeps per call each) exposes all of them to the same load
    on a shared machine, so their speed ratios are paired measurements. Every sampler
    advances by the same number of sweeps per call, so a per-call overhead is charged
    to all alike and spread over ``chunk`` sweeps.
    """
    init = dict.fromkeys(trainers, 0.0)
    sweeping = dict.fromkeys(trainers, 0.0)
    iters = dict.fromkeys(trainers, 0)
    for name, tr in trainers.items():
        # initialization counts against the budget
        init[name] = harness.timed(tr.start, train, K, seed).wall_s

    def wants_more(n: str) -> bool:  # at least one sweep each, so every rate is defined
        return iters[n] == 0 or init[n] + sweeping[n] < budget

    while any(wants_more(n) for n in trainers):
        for name, tr in trainers.items():
            if not wants_more(name):
                continue
            sweeping[name] += harness.timed(tr.advance, chunk).wall_s
            iters[name] += chunk
    return {n: (iters[n], sweeping[n], trainers[n].phi(), init[n]) for n in trainers}


def _doc_words(train: BagOfWords) -> list[list[str]]:
    words = np.asarray(train.vocabulary.words, dtype=object)
    out = []
    for d in range(train.n_docs):
        a, b = train.doc_ptr[d], train.doc_ptr[d + 1]
        out.append(list(words[np.repeat(train.word_ids[a:b], train.counts[a:b])]))
    return out


def _run_lda_package(train: BagOfWords, K: int, budget: float, seed: int):
    import lda
    import scipy.sparse as sp

    logging.getLogger("lda").setLevel(logging.ERROR)
    X = sp.csr_matrix(
        (train.counts.astype(np.int64), train.word_ids, train.doc_ptr),
        shape=(train.n_docs, train.n_words),
    )

    # The lda package cannot resume a fit and computes the log likelihood every
    # ``refresh`` iterations; with refresh = n_iter it does so only at the start and the
    # end. Its initialization (and those two evaluations) are removed by timing a fit
    # of n iterations and one of 1: sweeps take (t_n - t_1) / (n - 1).
    def fit(n_iter: int) -> Any:
        model = lda.LDA(
            n_topics=K, n_iter=n_iter, alpha=ALPHA, eta=BETA, random_state=seed, refresh=n_iter
        )
        model.fit(X)
        return model

    times = [harness.timed(fit, n).wall_s for n in (1, 5)]
    # floor at a tenth of the 5-iteration fit: on a loaded machine the difference can
    # come out near zero and would ask for millions of iterations
    per_iter = max((times[1] - times[0]) / 4, times[1] / 10)
    n_iter = max(2, int(budget / per_iter))
    one = harness.timed(fit, 1).wall_s
    made = harness.timed(fit, n_iter)
    sweeps_s = max(made.wall_s - one, 1e-9)
    init_s = max(one - sweeps_s / (n_iter - 1), 0.0)
    return n_iter - 1, sweeps_s, np.asarray(made.value.topic_word_, dtype=np.float64), init_s


def _run_gensim(train: BagOfWords, K: int, budget: float, seed: int):
    from gensim.models import LdaModel

    logging.getLogger("gensim").setLevel(logging.ERROR)
    corpus = []
    for d in range(train.n_docs):
        a, b = train.doc_ptr[d], train.doc_ptr[d + 1]
        corpus.append(
            list(zip(train.word_ids[a:b].tolist(), train.counts[a:b].tolist(), strict=True))
        )
    id2word = dict(enumerate(train.vocabulary.words))
    # building the model counts against the budget
    made = harness.timed(
        LdaModel,
        num_topics=K, id2word=id2word, alpha=ALPHA, eta=BETA, random_state=seed, chunksize=2000,
    )  # fmt: skip
    model = made.value
    passes = harness.run_for(lambda: model.update(corpus, passes=1), budget - made.wall_s)
    elapsed = made.wall_s + passes.seconds
    return passes.calls, elapsed, np.asarray(model.get_topics(), dtype=np.float64)


def _run_sklearn(train: BagOfWords, K: int, budget: float, seed: int):
    import scipy.sparse as sp
    from sklearn.decomposition import LatentDirichletAllocation

    X = sp.csr_matrix(
        (train.counts.astype(np.float64), train.word_ids, train.doc_ptr),
        shape=(train.n_docs, train.n_words),
    )
    model = LatentDirichletAllocation(
        n_components=K,
        doc_topic_prior=ALPHA,
        topic_word_prior=BETA,
        learning_method="online",
        total_samples=train.n_docs,
        n_jobs=1,
        random_state=seed,
    )
    passes = harness.run_for(lambda: model.partial_fit(X), budget)
    comp = np.asarray(model.components_, dtype=np.float64)
    return passes.calls, passes.seconds, comp / comp.sum(axis=1, keepdims=True)


#: Gibbs samplers run in turns (paired timing); the others one after the other.
GIBBS_TRAINERS: dict[str, Callable[[], Any]] = {
    "bayeswe-sparse": lambda: _OursTrainer("sparse"),
    "bayeswe-dense": lambda: _OursTrainer("dense"),
    "tomotopy": _TomotopyTrainer,
}
RUNNERS: dict[str, Callable[..., tuple[int, float, np.ndarray]]] = {
    "gensim": _run_gensim,
    "sklearn": _run_sklearn,
}
TOOLS: tuple[str, ...] = (*GIBBS_TRAINERS, "lda", *RUNNERS)
_VARIATIONAL = ("gensim", "sklearn")


def _available(tool: str) -> bool:
    module = {"tomotopy": "tomotopy", "lda": "lda", "gensim": "gensim", "sklearn": "sklearn"}
    return tool not in module or importlib.util.find_spec(module[tool]) is not None


def run_setting(
    name: str,
    bow: BagOfWords,
    K: int,
    *,
    budget: float,
    seed: int,
    tools: Sequence[str],
    say: Callable[[str], None],
    chunk: int = 10,
) -> list[dict[str, Any]]:
    """Train every tool on the same split of ``bow`` for ``budget`` seconds; score it."""
    train, test = _split(bow, seed)
    rows = []
    results: dict[str, tuple[int, float, np.ndarray, float]] = {}
    gibbs = {t: GIBBS_TRAINERS[t]() for t in tools if t in GIBBS_TRAINERS and _available(t)}
    if gibbs:
        _warm_up_numba()
        results.update(_run_interleaved(gibbs, train, K, budget, seed, chunk))
    for tool in tools:
        if tool == "lda" and _available(tool):
            results[tool] = _run_lda_package(train, K, budget, seed)
        elif tool in RUNNERS and _available(tool):
            results[tool] = (*RUNNERS[tool](train, K, budget, seed), 0.0)
    for tool in tools:
        if tool not in results:
            rows.append({"corpus": name, "K": K, "tool": tool, "skipped": "not installed"})
            continue
        iterations, elapsed, phi, init_seconds = results[tool]
        held = heldout_log_predictive(phi, test, ALPHA, seed=seed, iter_warmup=10, iter_sampling=30)
        rate = train.n_tokens * iterations / elapsed if elapsed > 0 else float("nan")
        row = {
            "corpus": name,
            "K": K,
            "tool": tool,
            "iterations": iterations,
            "train_seconds": round(elapsed, 3),
            "init_seconds": round(init_seconds, 3),
            "train_tokens": train.n_tokens,
            "rate_kind": "token_visits_per_s" if tool in _VARIATIONAL else "tokens_per_s",
            "rate": rate,
            "heldout_log_pred_per_token": held.per_token,
        }
        say(
            f"{name} K={K} {tool}: {iterations} it in {elapsed:.1f}s, "
            f"{rate / 1e6:.2f} M/s, held-out {held.per_token:.4f}"
        )
        rows.append(row)
    return rows


def _stan_speedup(quick: bool, seed: int) -> tuple[float | None, Any]:
    """The Stan engineer's gradient benchmark (``bayeswe.bench.lda_stan``), if present."""
    if importlib.util.find_spec("bayeswe.bench.lda_stan") is None:
        return None, "bayeswe.bench.lda_stan not present on this branch"
    from bayeswe.bench import lda_stan as stan_bench

    if quick:
        result = stan_bench.run_benchmark(**stan_bench.QUICK_SIZE, seed=seed, repeats=1)
    else:
        result = stan_bench.run_benchmark(seed=seed)
    value = result.get("summary", {}).get("stan_grad_speedup_vs_users_guide")
    return (float(value) if isinstance(value, (int, float)) else None), result


def run(
    *,
    quick: bool = False,
    budget: float | None = None,
    seed: int = 1,
    nyt: bool = True,
    stan: bool = True,
    tools: Sequence[str] = TOOLS,
    say: Callable[[str], None] | None = None,
    chunk: int | None = None,
) -> dict[str, Any]:
    """Run the benchmark and return the JSON-ready result (see the module docstring)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # comes with the bench extra (scikit-learn); BLAS left as is
        threadpool_limits = None

    say = say or harness.progress
    if quick:
        sim = simulate_lda(
            n_docs=200, doc_length=50, n_words=500, n_topics=10, alpha=ALPHA, beta=BETA, seed=seed
        )
        settings = [("synthetic", sim.data.corpus, k) for k in (10, 40)]
        budget = 0.3 if budget is None else budget
        chunk = 2 if chunk is None else chunk
    else:
        sim = simulate_lda(
            n_docs=1000,
            doc_length=200,
            n_words=5000,
            n_topics=50,
            alpha=ALPHA,
            beta=BETA,
            seed=seed,
        )
        settings = [("synthetic", sim.data.corpus, k) for k in (50, 200)]
        budget = 10.0 if budget is None else budget
        chunk = 10 if chunk is None else chunk
    nyt_note = None
    if nyt and not quick:
        try:
            from bayeswe.datasets import load_nyt

            nyt_bow = load_nyt(download=True)
            settings += [("nyt", nyt_bow, k) for k in (50, 200)]
        except Exception as err:  # noqa: BLE001 - the benchmark reports and goes on
            nyt_note = f"NYT not available: {err}"
            say(nyt_note)
    rows: list[dict[str, Any]] = []
    with threadpool_limits(limits=1) if threadpool_limits else contextlib.nullcontext():
        for name, bow, K in settings:
            # NYT is ~6x the synthetic corpus: give every tool proportionally more time
            b = budget * (2.0 if name == "nyt" else 1.0)
            rows += run_setting(
                name, bow, K, budget=b, seed=seed, tools=tools, say=say, chunk=chunk
            )

    def rate(corpus: str, K: int, tool: str) -> float | None:
        for r in rows:
            if r["corpus"] == corpus and r["K"] == K and r["tool"] == tool and "rate" in r:
                return float(r["rate"])
        return None

    def ratio(corpus: str, K: int) -> float | None:
        ours, peer = rate(corpus, K, "bayeswe-sparse"), rate(corpus, K, "tomotopy")
        return None if ours is None or not peer else ours / peer

    k_lo, k_hi = (10, 40) if quick else (50, 200)
    stan_value, stan_detail = (None, "skipped") if not stan else _stan_speedup(quick, seed)
    summary = {
        "tokens_per_s_ratio_vs_tomotopy_k50": ratio("synthetic", k_lo),
        "tokens_per_s_ratio_vs_tomotopy_k200": ratio("synthetic", k_hi),
        "tokens_per_s_ratio_vs_tomotopy_nyt_k50": ratio("nyt", 50),
        "tokens_per_s_ratio_vs_tomotopy_nyt_k200": ratio("nyt", 200),
        "stan_grad_speedup_vs_users_guide": stan_value,
    }
    return {
        "summary": summary,
        "quick": quick,
        "budget_seconds": budget,
        "sweeps_per_call": chunk,
        "seed": seed,
        "alpha": ALPHA,
        "beta": BETA,
        "nyt_note": nyt_note,
        "results": rows,
        "stan": stan_detail if isinstance(stan_detail, (dict, str)) else repr(stan_detail),
    }


#: The peers' distribution names (their versions go into the run facts).
PEER_DISTRIBUTIONS = ("tomotopy", "lda", "gensim", "scikit-learn", "threadpoolctl")


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench lda`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench lda", description=__doc__)
    harness.add_common_options(parser, quick="tiny corpus, short budget (smoke)")
    parser.add_argument("--budget", type=float, default=None, help="seconds per tool and setting")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--chunk",
        type=int,
        default=None,
        help="sweeps per call for every Gibbs sampler (default 10; --quick: 2)",
    )
    parser.add_argument("--no-nyt", action="store_true", help="synthetic corpus only")
    parser.add_argument("--no-stan", action="store_true", help="skip the Stan gradient timing")
    parser.add_argument(
        "--tools", default=",".join(TOOLS), help=f"comma-separated subset of {','.join(TOOLS)}"
    )
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object."""
    if args is None:
        args = build_parser().parse_args(argv)
    tools = [t for t in args.tools.split(",") if t]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        raise SystemExit(f"unknown tool(s) {', '.join(unknown)}; known: {', '.join(TOOLS)}")
    return harness.run_cli(
        "lda",
        args,
        lambda: run(
            quick=args.quick,
            budget=args.budget,
            seed=args.seed,
            nyt=not args.no_nyt,
            stan=not args.no_stan,
            tools=tools,
            chunk=args.chunk,
        ),
        argv=argv,
        peers=PEER_DISTRIBUTIONS,
    )
