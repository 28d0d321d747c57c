"""HDP-LDA with many live topics: ``alias-mh`` against ``cgs`` and tomotopy's ``HDPModel``.

Usage::

    python benchmarks/hdp_alias.py --corpus nyt --conc 5 --initial-topics 400 \
        --iters 60 --chunk 10 --out benchmarks/results/archive/hdp_alias_nyt.json

The three sides (bayeswe's ``step_alias`` and ``step``, one chain each, and
``tomotopy.HDPModel`` with ``workers=1``, ``TermWeight.ONE``, ``optim_interval = 0``)
start from ``--initial-topics`` topics with the same ``alpha0 = gamma = --conc`` and
``eta``, and take turns, ``--chunk`` iterations per call, so they share the machine's
load. Speed is token updates per second (tokens x iterations / seconds, initialization
apart); live topics are recorded after every chunk, so the rates can be read beside
the number of topics each side carried.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from bayeswe.bench import harness
from bayeswe.corpus import BagOfWords
from bayeswe.dp import HDPLDAData
from bayeswe.samplers import hdp_lda as hdp

ETA = 0.01


class Bayeswe:
    def __init__(self, bow: BagOfWords, conc: float, k0: int, seed: int, method: str) -> None:
        data = HDPLDAData(bow, truncation=1, gamma=conc, alpha0=conc, eta=ETA)
        self.problem = hdp.HDPProblem.from_data(data)
        self.state = hdp.init_state(self.problem, seed, 0, k0)
        self.method = method
        if method == "alias-mh":
            _ = self.problem.word_order  # the grouping by word, once, outside the timing

    def advance(self, n: int) -> None:
        sweep = hdp.step_alias if self.method == "alias-mh" else hdp.step
        for _ in range(n):
            sweep(self.problem, self.state)

    def live(self) -> int:
        return self.state.n_topics


class Tomotopy:
    def __init__(self, bow: BagOfWords, conc: float, k0: int, seed: int) -> None:
        import tomotopy as tp

        self.model = tp.HDPModel(
            tw=tp.TermWeight.ONE, initial_k=k0, alpha=conc, eta=ETA, gamma=conc, seed=seed
        )
        self.model.optim_interval = 0
        words = bow.vocabulary.words
        _, word = bow.tokens()
        for ids in np.split(word, np.cumsum(bow.doc_lengths)[:-1]):
            self.model.add_doc([words[w] for w in ids])
        self.model.train(0, workers=1)

    def advance(self, n: int) -> None:
        self.model.train(n, workers=1)

    def live(self) -> int:
        return int(self.model.live_k)


def run(corpus: str, conc: float, k0: int, iters: int, chunk: int, seed: int) -> dict[str, Any]:
    from bayeswe.datasets import load_nyt, load_reuters

    facts = harness.start_run()
    bow = (load_nyt if corpus == "nyt" else load_reuters)(download=True)
    hdp._warm_up_compiler()
    makers = {
        "alias-mh": lambda: Bayeswe(bow, conc, k0, seed, "alias-mh"),
        "cgs": lambda: Bayeswe(bow, conc, k0, seed, "cgs"),
        "tomotopy": lambda: Tomotopy(bow, conc, k0, seed),
    }
    sides: dict[str, dict[str, Any]] = {}
    for name, make in makers.items():
        t0 = time.perf_counter()
        obj = make()
        sides[name] = {"obj": obj, "seconds": 0.0, "init_seconds": time.perf_counter() - t0,
                       "chunks": []}  # fmt: skip
    tokens = int(bow.counts.sum())
    done = 0
    while done < iters:
        n = min(chunk, iters - done)
        for side in sides.values():
            t0 = time.perf_counter()
            side["obj"].advance(n)
            sec = time.perf_counter() - t0
            side["seconds"] += sec
            side["chunks"].append({"iterations": n, "seconds": sec, "live": side["obj"].live()})
        done += n
        print({k: (round(tokens * n / s["chunks"][-1]["seconds"]), s["chunks"][-1]["live"])
               for k, s in sides.items()}, flush=True)  # fmt: skip
    out = {
        name: {
            "tokens_per_s": tokens * iters / side["seconds"],
            "seconds": side["seconds"],
            "init_seconds": side["init_seconds"],
            "live_topics_end": side["chunks"][-1]["live"],
            "chunks": side["chunks"],
        }
        for name, side in sides.items()
    }
    rate = {k: v["tokens_per_s"] for k, v in out.items()}
    return {
        "settings": {
            "corpus": corpus,
            "tokens": tokens,
            "alpha0": conc,
            "gamma": conc,
            "eta": ETA,
            "initial_topics": k0,
            "iterations": iters,
            "chunk": chunk,
            "seed": seed,
        },  # fmt: skip
        "summary": {
            "alias_over_tomotopy": rate["alias-mh"] / rate["tomotopy"],
            "alias_over_cgs": rate["alias-mh"] / rate["cgs"],
            "cgs_over_tomotopy": rate["cgs"] / rate["tomotopy"],
            "live_topics_end": {k: v["live_topics_end"] for k, v in out.items()},
        },
        "sides": out,
        "run": harness.finish_run(facts, peers=("tomotopy",)),
        "note": "one run; a 2-core machine shared with other jobs",
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", choices=("nyt", "reuters"), default="nyt")
    p.add_argument("--conc", type=float, default=5.0, help="alpha0 = gamma")
    p.add_argument("--initial-topics", type=int, default=400)
    p.add_argument("--iters", type=int, default=60)
    p.add_argument("--chunk", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path)
    a = p.parse_args()
    result = run(a.corpus, a.conc, a.initial_topics, a.iters, a.chunk, a.seed)
    print(json.dumps(result["summary"], indent=1))
    if a.out:
        a.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
