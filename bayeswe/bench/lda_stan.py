"""``bayeswe bench lda-stan``: gradient cost of ``models/lda.stan`` vs the Stan User's Guide LDA.

**Compared.** bayeswe's ``lda.stan`` (distinct (document, word) pairs with counts,
softmax-parameterized simplexes) against ``lda_users_guide.stan`` (the User's Guide
program: one term per token), and a null program (:data:`NULL_PROGRAM`: as many
parameters, trivial density) that measures the sampler's own cost per step.

**Data.** A corpus simulated from LDA (alpha = 0.1, beta = 0.01; default 100
documents x 100 tokens, V = 500, K = 10; ``--quick``: 10 x 20 tokens, V = 30, K = 3,
one repeat of one iteration), or the first ``--docs`` documents of NYT or Reuters
(``--corpus``; vocabulary cut to the words they use).

**Equal footing.** Same posterior, same start: theta and phi drawn from flat
Dirichlets with ``seed``, ``lda.stan`` getting their centred logs; the log densities
there must differ by exactly the Jacobian of ``lda.stan``'s softmax maps
(:func:`log_density_gap`). Each program runs NUTS without adaptation (unit metric,
fixed step size and maximum tree depth, same seed, one chain, no warm-up); the time
per gradient is Stan's sampling time over the leapfrog steps
(:func:`bayeswe.bench.harness.time_per_gradient`: compilation, start-up and I/O out
for all three programs). Within a repeat the programs alternate and which goes first
alternates too, so the machine's load hits them alike.

**Summary keys.**

* ``stan_grad_speedup_vs_users_guide`` - median over repeats of the paired ratio
  User's Guide time per gradient / ``lda.stan``'s (above 1: ours is faster);
* ``grad_speedup_per_repeat`` - that ratio for each repeat;
* ``grad_time_us_lda``, ``grad_time_us_users_guide`` - median microseconds per gradient;
* ``sampler_step_us`` - median microseconds per leapfrog step of the null program (the
  sampler's own cost, included in both times above);
* ``stan_grad_speedup_net_of_sampler`` - median of the paired ratio after subtracting
  ``sampler_step_us`` from both times;
* ``lp_gap_error`` - log-density difference at the start minus the expected Jacobian
  gap (zero up to rounding when the programs agree).

:func:`stan_grad_speedup` is also called by ``bayeswe bench lda``.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness
from bayeswe.bench.harness import compile_program_text, json_ready, log_prob_at
from bayeswe.corpus import BagOfWords
from bayeswe.lda.data import LDAData
from bayeswe.lda.models import COORDS_KEY, LDA, LDA_USERS_GUIDE, stan_data, users_guide_data

__all__ = [
    "DEFAULT_SIZE",
    "QUICK_SIZE",
    "build_parser",
    "log_density_gap",
    "main",
    "raw_from_simplex",
    "real_corpus",
    "run_benchmark",
    "stan_grad_speedup",
]

#: The headline setting: D documents of ``doc_length`` tokens, V words, K topics.
DEFAULT_SIZE: dict[str, int] = {"n_docs": 100, "doc_length": 100, "n_words": 500, "n_topics": 10}
#: A smoke-test setting for ``--quick``.
QUICK_SIZE: dict[str, int] = {"n_docs": 10, "doc_length": 20, "n_words": 30, "n_topics": 3}


def raw_from_simplex(x: np.ndarray) -> np.ndarray:
    """Unconstrained values of ``lda.stan`` for simplexes ``x`` (last axis): centred logs.

    ``softmax(raw_from_simplex(x)) == x`` and each row of the result sums to 0.
    """
    logs = np.log(np.asarray(x, dtype=np.float64))
    return logs - logs.mean(axis=-1, keepdims=True)


def log_density_gap(theta: np.ndarray, phi: np.ndarray) -> float:
    """Expected ``lda.stan`` log density minus the User's Guide one (no Jacobian) at a point.

    At ``theta_raw, phi_raw = raw_from_simplex(theta), raw_from_simplex(phi)``
    (rows summing to 0, so the N(0, n) terms on the sums vanish), ``lda.stan``'s
    density is the posterior density of (theta, phi) times the Jacobian
    ``prod theta * prod phi`` of the softmax maps, and the User's Guide program
    with ``~ dirichlet`` drops only the Dirichlet normalizing constants, which
    ``lda.stan`` never adds: the gap is ``sum(log theta) + sum(log phi)``.
    """
    return float(np.log(theta).sum() + np.log(phi).sum())


#: A program with the same number of unconstrained parameters and a trivial density:
#: its time per leapfrog step is the sampler's own cost per step (momentum and
#: position updates, U-turn checks, output), which both LDA programs pay too.
NULL_PROGRAM = """data {
  int<lower=1> P;  // number of parameters
}
parameters {
  vector[P] x;
}
model {
  x ~ std_normal();
}
"""


def _start(data: LDAData, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(np.ones(data.n_topics), size=data.n_docs)
    phi = rng.dirichlet(np.ones(data.n_words), size=data.n_topics)
    # keep clear of exact zeros (flat Dirichlet draws are almost surely positive)
    return np.maximum(theta, 1e-300), np.maximum(phi, 1e-300)


def _json_ready(d: dict[str, Any]) -> dict[str, Any]:
    return json_ready(d, drop=(COORDS_KEY,))


def stan_grad_speedup(
    corpus: BagOfWords,
    n_topics: int,
    *,
    seed: int,
    repeats: int = 3,
    alpha: float = 0.1,
    beta: float = 0.01,
    iters: int = 4,
    step_size: float = 1e-3,
    max_treedepth: int = 7,
) -> dict[str, Any]:
    """Time per log-density gradient of ``lda.stan`` and of the User's Guide program.

    Parameters
    ----------
    corpus
        The documents (every one non-empty).
    n_topics
        Number of topics K.
    seed
        Seed of the common starting point and of the NUTS runs (repeat ``r`` uses
        ``seed + r`` for both programs).
    repeats
        Timing runs per program; the two programs alternate within a repeat
        (which one goes first alternates too), so load from other processes
        hits both alike.
    alpha, beta
        Symmetric Dirichlet priors.
    iters, step_size, max_treedepth
        NUTS iterations per timing run, fixed step size (unit metric) and
        maximum tree depth: at most ``iters * (2**max_treedepth - 1)`` gradients.

    Returns
    -------
    dict
        ``stan_grad_speedup_vs_users_guide`` (median of the per-repeat ratios of
        the User's Guide time per gradient to ``lda.stan``'s),
        ``grad_speedup_per_repeat``, both median times per gradient in
        microseconds, ``sampler_step_us`` (time per leapfrog step of a program
        with as many parameters and a trivial density: the sampler's own cost,
        included in both times) and ``stan_grad_speedup_net_of_sampler`` (the
        paired ratio after subtracting it), ``lp_gap_error`` (the log-density
        difference at the start minus :func:`log_density_gap`: zero up to
        rounding when the programs agree), sizes (documents, words, topics,
        tokens, distinct pairs), the settings and the per-repeat ``runs``.
    """
    from bayeswe.stan.toolchain import compile_model

    data = LDAData(corpus, n_topics, alpha=alpha, beta=beta)
    agg = _json_ready(stan_data(data))
    tok = _json_ready(users_guide_data(data))
    theta, phi = _start(data, seed)
    ours_init = {"theta_raw": raw_from_simplex(theta), "phi_raw": raw_from_simplex(phi)}
    ug_init = {"theta": theta, "phi": phi}
    ours = compile_model(LDA.stan_file)
    ug = compile_model(LDA_USERS_GUIDE.stan_file)
    null = compile_program_text(NULL_PROGRAM, "lda_bench_null.stan")
    n_params = data.n_docs * n_topics + n_topics * data.n_words
    null_data = {"P": n_params}
    null_init = {"x": np.zeros(n_params)}

    lp_ours = log_prob_at(ours, _json_ready(ours_init), agg)
    lp_ug = log_prob_at(ug, _json_ready(ug_init), tok)
    gap_error = (lp_ours - lp_ug) - log_density_gap(theta, phi)

    programs = (
        ("lda", ours, agg, ours_init),
        ("users_guide", ug, tok, ug_init),
        ("null", null, null_data, null_init),
    )
    runs = harness.gradient_timings(
        programs, repeats=repeats, seed=seed, iters=iters, step=step_size,
        depth=max_treedepth, metric="unit_e", alternate=True,
    )  # fmt: skip
    for entry in runs:
        entry["ratio"] = entry["users_guide_grad_us"] / entry["lda_grad_us"]
        overhead = entry["null_grad_us"]
        entry["ratio_net_of_sampler"] = (entry["users_guide_grad_us"] - overhead) / max(
            entry["lda_grad_us"] - overhead, 1e-9
        )
    return {
        "stan_grad_speedup_vs_users_guide": statistics.median(e["ratio"] for e in runs),
        "grad_speedup_per_repeat": [e["ratio"] for e in runs],
        "grad_time_us_lda": statistics.median(e["lda_grad_us"] for e in runs),
        "grad_time_us_users_guide": statistics.median(e["users_guide_grad_us"] for e in runs),
        "sampler_step_us": statistics.median(e["null_grad_us"] for e in runs),
        "stan_grad_speedup_net_of_sampler": statistics.median(
            e["ratio_net_of_sampler"] for e in runs
        ),
        "lp_gap_error": gap_error,
        "sizes": {
            "n_docs": data.n_docs,
            "n_words": data.n_words,
            "n_topics": n_topics,
            "n_tokens": int(tok["N"]),
            "n_pairs": int(agg["N"]),
        },
        "settings": {
            "alpha": alpha,
            "beta": beta,
            "seed": seed,
            "repeats": repeats,
            "iter_sampling": iters,
            "step_size": step_size,
            "max_treedepth": max_treedepth,
            "metric": "unit_e",
            "timing": (
                "NUTS without adaptation from a common start; Stan's sampling time / "
                "leapfrog steps (one gradient each); median over repeats of the paired ratio"
            ),
        },
        "runs": runs,
    }


def real_corpus(name: str, n_docs: int) -> BagOfWords:
    """The first ``n_docs`` documents of a real corpus, vocabulary cut to the words they use.

    ``name`` is ``"nyt"`` or ``"reuters"`` (:mod:`bayeswe.datasets`; fetch them
    first with ``bayeswe data fetch``).
    """
    from bayeswe.corpus import Vocabulary
    from bayeswe.datasets.loaders import load_nyt, load_reuters

    loaders = {"nyt": load_nyt, "reuters": load_reuters}
    if name not in loaders:
        raise ValueError(f"corpus must be one of simulated, {', '.join(loaders)}; got {name!r}")
    full = loaders[name]()
    if not 1 <= n_docs <= full.n_docs:
        raise ValueError(f"{name} has {full.n_docs} documents; n_docs={n_docs} is out of range")
    bow = full.subset(np.arange(n_docs))
    used = np.unique(bow.word_ids)
    remap = np.full(bow.n_words, -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    vocab = Vocabulary(tuple(bow.vocabulary.words[i] for i in used))
    # remapping keeps word ids increasing within each document (used is sorted)
    return BagOfWords(vocab, bow.doc_ptr, remap[bow.word_ids], bow.counts, doc_ids=bow.doc_ids)


def run_benchmark(
    *,
    corpus: str = "simulated",
    n_docs: int = DEFAULT_SIZE["n_docs"],
    doc_length: int = DEFAULT_SIZE["doc_length"],
    n_words: int = DEFAULT_SIZE["n_words"],
    n_topics: int = DEFAULT_SIZE["n_topics"],
    seed: int = 20261121,
    repeats: int = 3,
    iters: int = 4,
) -> dict[str, Any]:
    """Run :func:`stan_grad_speedup` on a corpus; return a JSON-ready dict.

    ``corpus="simulated"`` draws ``n_docs`` documents of ``doc_length`` tokens over
    ``n_words`` words from LDA with alpha = 0.1, beta = 0.01
    (:func:`bayeswe.lda.simulate.simulate_lda`); ``"nyt"``/``"reuters"`` take the
    first ``n_docs`` documents of that corpus (:func:`real_corpus`; ``doc_length``
    and ``n_words`` are then ignored).
    """
    if corpus == "simulated":
        from bayeswe.lda.simulate import simulate_lda

        bow = simulate_lda(
            n_docs=n_docs,
            doc_length=doc_length,
            n_words=n_words,
            n_topics=n_topics,
            alpha=0.1,
            beta=0.01,
            seed=seed,
        ).data.corpus
    else:
        bow = real_corpus(corpus, n_docs)
    result = stan_grad_speedup(
        bow, n_topics, seed=seed, repeats=repeats, alpha=0.1, beta=0.01, iters=iters
    )
    summary_keys = (
        "stan_grad_speedup_vs_users_guide",
        "grad_speedup_per_repeat",
        "grad_time_us_lda",
        "grad_time_us_users_guide",
        "sampler_step_us",
        "stan_grad_speedup_net_of_sampler",
        "lp_gap_error",
    )
    return {
        "summary": {k: result[k] for k in summary_keys},
        "sizes": {
            **result["sizes"],
            "corpus": corpus,
            "doc_length": doc_length if corpus == "simulated" else None,
        },
        "settings": result["settings"],
        "runs": result["runs"],
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Command-line options of ``bayeswe bench lda-stan`` (added to ``parser`` if given)."""
    p = parser or argparse.ArgumentParser(prog="bayeswe bench lda-stan", description=__doc__)
    d = DEFAULT_SIZE
    p.add_argument(
        "--corpus",
        choices=("simulated", "nyt", "reuters"),
        default="simulated",
        help="simulated LDA corpus (default) or the first --docs documents of a real one",
    )
    p.add_argument("--docs", type=int, default=d["n_docs"], help=f"documents ({d['n_docs']})")
    p.add_argument("--doc-length", type=int, default=d["doc_length"], help="tokens per document")
    p.add_argument("--V", type=int, default=d["n_words"], help=f"vocabulary ({d['n_words']})")
    p.add_argument("--K", type=int, default=d["n_topics"], help=f"topics ({d['n_topics']})")
    p.add_argument("--seed", type=int, default=20261121)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--iters", type=int, default=4, help="NUTS iterations per timing run")
    harness.add_common_options(p, quick="tiny corpus, one repeat (smoke test)", text_report=True)
    return p


def _report(result: Mapping[str, Any]) -> str:
    s = result["summary"]
    return (
        f"lda.stan: {s['grad_time_us_lda']:.1f} us/gradient; User's Guide LDA: "
        f"{s['grad_time_us_users_guide']:.1f} us/gradient; speed-up "
        f"{s['stan_grad_speedup_vs_users_guide']:.2f}x (lp gap error {s['lp_gap_error']:.2e})"
    )


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark; print one JSON object (``--json``) or a one-line report."""
    if args is None:
        args = build_parser().parse_args(argv)
    if args.quick:
        q = QUICK_SIZE
        size = dict(n_docs=q["n_docs"], doc_length=q["doc_length"], n_words=q["n_words"])
        kwargs: dict[str, Any] = dict(**size, n_topics=q["n_topics"], repeats=1, iters=1)
    else:
        kwargs = dict(
            corpus=args.corpus,
            n_docs=args.docs,
            doc_length=args.doc_length,
            n_words=args.V,
            n_topics=args.K,
            repeats=args.repeats,
            iters=args.iters,
        )
    return harness.run_cli(
        "lda-stan",
        args,
        lambda: run_benchmark(**kwargs, seed=args.seed),
        argv=argv,
        report=_report,
    )
