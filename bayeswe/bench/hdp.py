"""``bayeswe bench hdp``: the HDP-LDA sampler against tomotopy's ``HDPModel`` (tokens/s).

**Compared.** :mod:`bayeswe.samplers.hdp_lda` (one chain, direct assignment) and
``tomotopy.HDPModel`` (collapsed Gibbs in the Chinese restaurant franchise form), both
on one thread (``workers=1``), ``TermWeight.ONE``, the same ``alpha0`` (tomotopy's
``alpha``), ``gamma`` and ``eta``, neither resampling them (tomotopy's
``optim_interval = 0``), the same number of iterations.

**Data.** Reuters and NYT (:func:`bayeswe.datasets.load_reuters`, ``load_nyt``); two
settings each: tomotopy's defaults ``alpha0 = gamma = 0.1`` from 2 topics, and
``alpha0 = gamma = 1`` from 100 topics (many live topics). ``--quick``: a simulated
corpus (200 documents x 50 tokens, V = 500) for 10 iterations.

**Equal footing.** Initialization is timed apart; the two samplers take turns,
``--chunk`` iterations per call (default 10), so they share the machine's load. Speed is
token updates per second (tokens x iterations / seconds); the live topics at the end are
reported beside it.

**Summary keys.** ``tokens_per_s_ratio_vs_tomotopy_hdp``: ours over tomotopy's in the
many-topics setting on NYT (Reuters without NYT, the simulated corpus with
``--quick``), with the live topics of both in ``live_topics``;
``tokens_per_s_ratio_vs_tomotopy_hdp_k300``: the same where both keep 300 or more live
topics, ``None`` when no setting does; ``ratios``: every setting's ratio.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness
from bayeswe.corpus import BagOfWords
from bayeswe.dp import HDPLDAData, simulate_hdp_lda
from bayeswe.samplers import hdp_lda as hdp

__all__ = ["build_parser", "main", "run"]

ETA = 0.01
#: name -> (alpha0 = gamma, initial topics)
SETTINGS = {"defaults": (0.1, 2), "many": (1.0, 100)}


class _Ours:
    def __init__(self, bow: BagOfWords, conc: float, k0: int, seed: int) -> None:
        data = HDPLDAData(bow, truncation=1, gamma=conc, alpha0=conc, eta=ETA)
        self.problem = hdp.HDPProblem.from_data(data)
        self.state = hdp.init_state(self.problem, seed, 0, k0)

    def advance(self, n: int) -> None:
        for _ in range(n):
            hdp.step(self.problem, self.state)

    def live(self) -> int:
        return self.state.n_topics


class _Tomotopy:
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


def _setting(name: str, bow: BagOfWords, conc: float, k0: int, iters: int, chunk: int, seed: int):
    sides = {}
    for tool, cls in (("bayeswe", _Ours), ("tomotopy", _Tomotopy)):
        t0 = time.perf_counter()
        sides[tool] = [cls(bow, conc, k0, seed), 0.0, time.perf_counter() - t0]
    done = 0
    while done < iters:
        n = min(chunk, iters - done)
        for side in sides.values():
            t0 = time.perf_counter()
            side[0].advance(n)
            side[1] += time.perf_counter() - t0
        done += n
    tokens = int(bow.counts.sum())
    return [
        {
            "corpus": name,
            "tool": tool,
            "alpha0": conc,
            "gamma": conc,
            "eta": ETA,
            "initial_topics": k0,
            "iterations": iters,
            "tokens": tokens,
            "seconds": sec,
            "init_seconds": init,
            "rate": tokens * iters / sec,
            "live_topics": obj.live(),
        }  # fmt: skip
        for tool, (obj, sec, init) in sides.items()
    ]


def run(*, quick: bool = False, iters: int | None = None, chunk: int = 10, seed: int = 1):
    """Run the benchmark and return the JSON-ready result (see the module docstring)."""
    say = harness.progress
    hdp._warm_up_compiler()
    if quick:
        sim = simulate_hdp_lda(n_docs=200, doc_length=50, n_words=500, seed=seed)
        corpora = [("simulated", sim.data.corpus)]
        iters = 10 if iters is None else iters
    else:
        from bayeswe.datasets import load_nyt, load_reuters

        corpora = [("reuters", load_reuters(download=True)), ("nyt", load_nyt(download=True))]
        iters = 100 if iters is None else iters
    rows: list[dict[str, Any]] = []
    for name, bow in corpora:
        for setting, (conc, k0) in SETTINGS.items():
            got = _setting(name, bow, conc, k0, iters, min(chunk, iters), seed)
            for r in got:
                r["setting"] = setting
            say({r["tool"]: (round(r["rate"]), r["live_topics"]) for r in got} | {"at": name})
            rows += got

    def ratio(corpus: str, setting: str) -> tuple[float, dict[str, int]]:
        pick = {r["tool"]: r for r in rows if r["corpus"] == corpus and r["setting"] == setting}
        live = {t: r["live_topics"] for t, r in pick.items()}
        return pick["bayeswe"]["rate"] / pick["tomotopy"]["rate"], live

    ratios = {f"{c}_{s}": ratio(c, s)[0] for c, _ in corpora for s in SETTINGS}
    headline, live = ratio(corpora[-1][0], "many")
    big = [
        ratio(c, s)[0] for c, _ in corpora for s in SETTINGS if min(ratio(c, s)[1].values()) >= 300
    ]
    summary = {
        "tokens_per_s_ratio_vs_tomotopy_hdp": headline,
        "tokens_per_s_ratio_vs_tomotopy_hdp_k300": float(np.mean(big)) if big else None,
        "live_topics": live,
        "ratios": ratios,
    }
    return {"summary": summary, "quick": quick, "iterations": iters, "chunk": chunk,
            "seed": seed, "eta": ETA, "results": rows}  # fmt: skip


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench hdp`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench hdp", description=__doc__)
    harness.add_common_options(parser, quick="simulated corpus, 10 iterations (smoke)")
    parser.add_argument("--iterations", type=int, default=None, help="iterations (100)")
    parser.add_argument("--chunk", type=int, default=10, help="iterations per turn (10)")
    parser.add_argument("--seed", type=int, default=1)
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object."""
    if args is None:
        args = build_parser().parse_args(argv)
    return harness.run_cli(
        "hdp",
        args,
        lambda: run(quick=args.quick, iters=args.iterations, chunk=args.chunk, seed=args.seed),
        argv=argv,
        peers=("tomotopy",),
    )
