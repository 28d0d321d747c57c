"""Where tomotopy's ``HDPModel`` chains sit on Reuters, against ours: a small study.

With the repeated documents kept (``bayeswe bench hdp --keep-repeats``), tomotopy's
held-out score is ahead of ours on Reuters in the ``k300`` setting, although tomotopy's
sampler misses the HDP posterior where it can be enumerated (``hdp_exactness.py``).
This study runs both samplers side by side on that Reuters split, in the benchmark's
settings (same ``alpha0``, ``gamma``, ``eta``, start and seed; tomotopy
``TermWeight.ONE``, one worker, concentrations fixed) and records, at iterations 100,
200, 500 and 1,000 of one chain per seed:

* live topics, and the mean number of distinct topics per training document;
* the word term of the collapsed log joint, ``log p(w | z)`` (exact, the same function
  of the topic counts for both; tomotopy's per-document topics are read from
  ``doc.topics``), per training token;
* the held-out score of that single state under the benchmark's one evaluator
  (:func:`bayeswe.bench.hdp.score`).

At the last record the held-out score is also split by document: the held-out
documents with a near duplicate among the training documents (cosine similarity of word
counts at least ``NEAR_DUPLICATE``) and the rest. The corpus's own count of documents
with a near duplicate, and with an identical twin, is recorded beside it.

Ours is also run at ``k300`` with ``alpha0`` 1 and 2 (``gamma`` 10, the same start),
sparser documents by the prior rather than by the sampler.

Run from the repository root (needs ``bayeswe data fetch reuters`` and the ``bench``
extra)::

    python benchmarks/studies/hdp_document_sparsity.py
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy.special import gammaln

from bayeswe.bench import harness
from bayeswe.bench import hdp as bench
from bayeswe.corpus import BagOfWords
from bayeswe.datasets import load_reuters
from bayeswe.samplers import hdp_lda as hdp

RECORD_AT = (100, 200, 500, 1000)
NEAR_DUPLICATE = 0.9


def nearest_training_cosine(split: bench.Split) -> np.ndarray:
    """Per held-out document (both halves), the largest cosine similarity of its word
    counts to a training document's."""

    def unit_rows(x: np.ndarray) -> np.ndarray:
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    test = unit_rows(split.observed.to_dense() + split.heldout.to_dense())
    return (test @ unit_rows(split.train.to_dense()).T).max(axis=1)


def documents_with_a_near_duplicate(bow: BagOfWords) -> dict:
    """How many of the corpus's documents have another document whose word counts have
    cosine similarity at least ``NEAR_DUPLICATE`` to theirs, and how many an identical one."""
    x = bow.to_dense()
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    cosine = unit @ unit.T
    np.fill_diagonal(cosine, 0.0)
    _, row_of, copies = np.unique(x, axis=0, return_inverse=True, return_counts=True)
    return {
        "documents": bow.n_docs,
        "with_a_near_duplicate": int((cosine.max(axis=1) >= NEAR_DUPLICATE).sum()),
        "with_an_identical_twin": int((copies[row_of] > 1).sum()),
    }


def subset(split: bench.Split, docs: np.ndarray) -> bench.Split:
    """The same training documents, and only the held-out documents ``docs``."""
    return bench.Split(split.train, split.observed.subset(docs), split.heldout.subset(docs))


def word_term(n_wk: np.ndarray, eta: float) -> float:
    """``log p(w | z)`` of topic-word counts ``n_wk`` (``V x K``; empty topics ignored)
    under symmetric Dirichlet(``eta``) topics."""
    n_wk = n_wk[:, n_wk.sum(axis=0) > 0].astype(np.float64)
    V = n_wk.shape[0]
    n_k = n_wk.sum(axis=0)
    return float(
        (gammaln(V * eta) - gammaln(n_k + V * eta)).sum()
        + (gammaln(n_wk + eta) - gammaln(eta)).sum()
    )


def tomotopy_counts(side: bench._Tomotopy, n_docs: int) -> tuple[np.ndarray, np.ndarray]:
    """tomotopy's document-topic and word-topic counts on our vocabulary."""
    m = side.model
    n_dk = np.zeros((n_docs, m.k), dtype=np.int64)
    n_wk = np.zeros((side.V, m.k), dtype=np.int64)
    for d, doc in enumerate(m.docs):
        words = side.to_ours[np.asarray(doc.words, dtype=np.int64)]
        topics = np.asarray(doc.topics, dtype=np.int64)
        np.add.at(n_dk[d], topics, 1)
        np.add.at(n_wk, (words, topics), 1)
    return n_dk, n_wk


def record(side: object, split: bench.Split, seed: int, iteration: int) -> dict:
    if isinstance(side, bench._Tomotopy):
        n_dk, n_wk = tomotopy_counts(side, split.train.n_docs)
    else:
        n_dk, n_wk = side.state.counts.n_dk, side.state.counts.n_wk
    tokens = split.train.n_tokens
    assert int(n_dk.sum()) == tokens  # both tools hold every training token
    return {
        "iteration": iteration,
        "live_topics": side.live(),
        "topics_per_document": float((n_dk > 0).sum(axis=1).mean()),
        "tables": side.tables(),
        "word_term_per_token": word_term(n_wk, bench.ETA) / tokens,
        "heldout": bench.score([side.topics()], split, seed),
    }


def chain(split: bench.Split, near: np.ndarray, make, seed: int) -> dict:
    side = make()
    rows, done, seconds = [], 0, 0.0
    for stop in RECORD_AT:
        t0 = time.perf_counter()
        side.advance(stop - done)
        seconds += time.perf_counter() - t0
        done = stop
        rows.append(record(side, split, seed, stop))
    topics = [side.topics()]
    by_document = {
        "heldout_near_duplicates": bench.score(topics, subset(split, np.flatnonzero(near)), seed),
        "heldout_rest": bench.score(topics, subset(split, np.flatnonzero(~near)), seed),
    }
    return {"seed": seed, "seconds": seconds, "records": rows, "last": by_document}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--out", default="benchmarks/studies/hdp_document_sparsity.json")
    args = parser.parse_args()
    facts = harness.start_run()
    reuters = load_reuters(download=True)
    split = bench.prepare(reuters, 1)
    hdp._warm_up_compiler()
    cosine = nearest_training_cosine(split)
    near = cosine >= NEAR_DUPLICATE
    arms = []
    settings = {s.name: s for s in bench.FULL_SETTINGS}
    plan = [
        ("bayeswe", settings["k50to100"]),
        ("tomotopy", settings["k50to100"]),
        ("bayeswe", settings["k300"]),
        ("tomotopy", settings["k300"]),
    ]
    k300 = settings["k300"]
    plan += [("bayeswe", bench.Setting(f"k300, alpha0 {a}", a, k300.gamma,
                                       k300.initial_topics, ())) for a in (1.0, 2.0)]  # fmt: skip
    for tool, s in plan:
        runs = []
        for seed in range(1, args.seeds + 1):
            if tool == "tomotopy":
                make = lambda s=s, seed=seed: bench._Tomotopy(split.train, s, seed)  # noqa: E731
            else:
                make = lambda s=s, seed=seed: bench._Ours(split.train, s, seed, "cgs")  # noqa: E731
            runs.append(chain(split, near, make, seed))
            last = runs[-1]["records"][-1]
            print(f"{tool} {s.name} seed {seed}: {json.dumps(last)}", flush=True)
        arms.append({"tool": tool, "setting": s.name, "alpha0": s.alpha0, "gamma": s.gamma,
                     "initial_topics": s.initial_topics, "chains": runs})  # fmt: skip
    out = {
        "study": "where tomotopy's HDPModel chains sit on Reuters, against ours",
        "corpus": {
            "name": "reuters",
            "train_documents": split.train.n_docs,
            "train_tokens": split.train.n_tokens,
            "words": split.train.n_words,
        },  # fmt: skip
        "eta": bench.ETA,
        "near_duplicate": {
            "threshold": NEAR_DUPLICATE,
            "corpus": documents_with_a_near_duplicate(reuters),
            "documents": int(near.sum()),
            "tokens": int(split.heldout.doc_lengths[near].sum()),
            "rest_documents": int((~near).sum()),
            "rest_tokens": int(split.heldout.doc_lengths[~near].sum()),
            "nearest_training_cosine": cosine,
        },
        "arms": arms,
        "run": harness.finish_run(facts, peers=("tomotopy",)),
    }
    harness.write_json_atomic(args.out, out)


if __name__ == "__main__":
    main()
