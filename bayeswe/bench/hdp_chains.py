"""``bayeswe bench hdp-chains``: can HDP-LDA's chains on NYT be diagnosed, ours and tomotopy's?

**Question.** Four chains, two started with one topic and two with 300, must agree on
the number of live topics (R-hat at most 1.01) and reach a bulk ESS of at least 400 on
every label-free scalar, within 30 minutes on the 2-core machine. The same four starts
(tomotopy's ``initial_k`` 2 and 300; it takes no fewer than 2) are run on tomotopy's
``HDPModel`` and reported beside ours.

**Data and model.** The training documents of ``bayeswe bench hdp``'s NYT split
(:func:`bayeswe.bench.hdp.prepare`, ``--split-seed`` 1: 90 % of the documents, their
words), ``eta`` 0.01, the concentrations ``alpha0`` and ``gamma`` starting at 1 (or
``--alpha0``, ``--gamma``) and resampled: ours every sweep under Gamma(1, 1) priors
(``resample_concentrations``), tomotopy's every 10 iterations (its default
``optim_interval``, its own priors). ``--fixed-concentrations`` holds both at their
starting values on both sides (tomotopy's ``optim_interval = 0``); the scalars
diagnosed are then the three that move. ``--split-merge P`` gives our sweeps ``P``
split-merge proposals each (``split_merge``; tomotopy has no such moves).

**Ours.** :func:`bayeswe.samplers.hdp_lda.sample_hdp_lda`, ``method="cgs"``, run twice
with two chains in parallel (``initial_topics`` 1, then 300; seeds ``--seed`` and
``--seed + 1``), ``--warmup`` sweeps discarded and ``--draws`` kept (every one). The
label-free scalars: ``lp`` (the collapsed log joint), ``n_topics``, ``n_tables``,
``alpha0`` and ``gamma``. **tomotopy**: four models (``TermWeight.ONE``, ``workers=1``,
seeds ``--seed`` to ``--seed + 3``), two at a time in processes, the same warm-up and kept
iterations unless ``--peer-warmup`` and ``--peer-draws`` say otherwise (its iterations
cost more than our sweeps); its label-free scalars after each kept iteration (trained
one at a time): ``ll_per_word``, ``live_k``, ``num_tables``, ``alpha`` and ``gamma``.
R-hat and bulk ESS are ArviZ's (rank-normalized) over the four chains.

**Equal footing.** Both sides get the same documents, ``eta``, starting concentrations
and numbers of topics at the start (but tomotopy's smallest, 2), and the same warm-up and
kept iterations unless ``--peer-warmup``/``--peer-draws`` give tomotopy fewer, which the
file records. Both use the two cores, two chains at a time. Our ``wall_s`` is the
samplers' own wall time (compilation excluded by a warm-up run, data preparation
excluded); tomotopy's is its four models' wall time, document loading included. The
diagnostics are computed the same way on both sides' label-free scalars; the bars are
about our side, and tomotopy's verdict against them is reported beside.

**Summary keys.** ``rhat_n_topics``, ``ess_bulk_min`` (the least over the five scalars),
``wall_s`` (our four chains, compilation excluded), ``diagnosable`` (R-hat of the number
of topics at most 1.01, ``ess_bulk_min`` at least 400 and ``wall_s`` at most 1800), and
the same with the prefix ``tomotopy_`` (``tomotopy_wall_s``: its four models' wall
time, two at a time in processes); ``live_topics`` (mean over the kept draws, per
side), and per side every scalar's R-hat, bulk ESS, mean by chain
(``mean_by_chain``) and kept draws per chain. ``--quick``:
a simulated corpus (100 documents of 30 tokens, V = 200), starts 1 and 20 topics
(tomotopy 2 and 20), 20 + 20 iterations (tomotopy's as ``--peer-warmup``/``--peer-draws``
say, if given).
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe.bench import harness

__all__ = ["Prior", "build_parser", "check_args", "main", "run"]

ETA = 0.01
#: The bars of the question: R-hat of the number of topics, least bulk ESS, seconds.
RHAT_MAX, ESS_MIN, BUDGET_S = 1.01, 400, 1800.0
OURS = ("lp", "n_topics", "n_tables", "alpha0", "gamma")
TOMOTOPY = ("ll_per_word", "live_k", "num_tables", "alpha", "gamma")
#: Each side's names for the concentrations, left out of the diagnostics when they are fixed.
CONCENTRATIONS = frozenset({"alpha0", "alpha", "gamma"})


@dataclass(frozen=True)
class Prior:
    """The concentrations' starting values and whether they are held fixed."""

    alpha0: float = 1.0
    gamma: float = 1.0
    fixed: bool = False

    def scalars(self, names: Sequence[str]) -> tuple[str, ...]:
        """The scalars diagnosed: all, or those that move when the concentrations are fixed."""
        return tuple(n for n in names if not (self.fixed and n in CONCENTRATIONS))

    def record(self) -> dict[str, Any]:
        return {"alpha0": self.alpha0, "gamma": self.gamma,
                "concentrations": "fixed" if self.fixed else "resampled"}  # fmt: skip


def _diagnostics(draws: dict[str, np.ndarray], topics: str, wall_s: float) -> dict[str, Any]:
    """R-hat and bulk ESS of each ``(chain, draw)`` array, and the verdict."""
    import arviz as az

    ds = az.convert_to_dataset({k: np.asarray(v, dtype=np.float64) for k, v in draws.items()})
    rhat = {k: float(v) for k, v in az.rhat(ds).data_vars.items()}
    ess = {k: float(v) for k, v in az.ess(ds, method="bulk").data_vars.items()}
    ess_min = min(ess.values())
    return {
        "rhat": rhat,
        "ess_bulk": ess,
        "rhat_n_topics": rhat[topics],
        "ess_bulk_min": ess_min,
        "wall_s": wall_s,
        "draws_per_chain": int(np.shape(draws[topics])[1]),
        "live_topics": float(np.mean(draws[topics])),
        "live_topics_by_chain": np.asarray(draws[topics]).mean(axis=1).round(1).tolist(),
        # which start's region sits higher: the log joint of each chain, beside its topics
        "mean_by_chain": {
            k: np.asarray(v, dtype=np.float64).mean(axis=1).tolist() for k, v in draws.items()
        },
        "diagnosable": bool(rhat[topics] <= RHAT_MAX and ess_min >= ESS_MIN and wall_s <= BUDGET_S),
    }


def _ours(
    train: Any, starts: Sequence[int], warmup: int, draws: int, seed: int, prior: Prior,
    split_merge: int,
) -> dict:  # fmt: skip
    from bayeswe.dp import HDPLDAData
    from bayeswe.samplers import hdp_lda

    data = HDPLDAData(train, truncation=1, gamma=prior.gamma, alpha0=prior.alpha0, eta=ETA)
    hdp_lda._warm_up_compiler()
    names = prior.scalars(OURS)
    out: dict[str, list[np.ndarray]] = {k: [] for k in names}
    accepted = 0
    wall = 0.0
    for i, k in enumerate(sorted(set(starts))):
        n = starts.count(k)
        idata = hdp_lda.sample_hdp_lda(
            data, chains=n, seed=seed + i, iter_warmup=warmup, iter_sampling=draws, thin=1,
            initial_topics=k, resample_concentrations=not prior.fixed, keep_topics=False,
            parallel_chains=n, split_merge=split_merge,
        )  # fmt: skip
        wall += float(idata.attrs["wall_time"])
        accepted += int(idata.attrs.get("splits_accepted", 0))
        accepted += int(idata.attrs.get("merges_accepted", 0))
        for name in names:
            group = idata.sample_stats if name == "lp" else idata.posterior
            out[name].append(group[name].values)
        harness.progress({"ours": f"{n} chains from {k} topics", "wall_s": round(wall, 1)})
    result = _diagnostics({k: np.concatenate(v) for k, v in out.items()}, "n_topics", wall)
    result["split_merge"] = split_merge
    if split_merge:
        result["split_merge_accepted"] = accepted
    harness.progress({"ours": result})  # on stderr before the peer's long run starts
    return result


def _tomotopy_chain(
    train: Any, k: int, seed: int, warmup: int, draws: int, prior: Prior
) -> np.ndarray:
    """(draws, 5): tomotopy's label-free scalars after each kept iteration."""
    import tomotopy as tp

    model = tp.HDPModel(tw=tp.TermWeight.ONE, initial_k=k, alpha=prior.alpha0, eta=ETA,
                        gamma=prior.gamma, seed=seed)  # fmt: skip
    if prior.fixed:
        model.optim_interval = 0  # tomotopy's switch for fixed alpha and gamma
    words = train.vocabulary.words
    _, word = train.tokens()
    for ids in np.split(word, np.cumsum(train.doc_lengths)[:-1]):
        model.add_doc([words[w] for w in ids])
    model.train(warmup, workers=1)
    out = np.empty((draws, len(TOMOTOPY)))
    for t in range(draws):
        model.train(1, workers=1)
        out[t] = [float(getattr(model, name)) for name in TOMOTOPY]
    return out


def _tomotopy(
    train: Any, starts: Sequence[int], warmup: int, draws: int, seed: int, prior: Prior
) -> dict:
    seeds = [seed + c for c in range(len(starts))]
    t0 = time.perf_counter()
    # processes: tomotopy's train holds the GIL, so threads would run one model at a time
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        n = len(starts)
        chains = list(pool.map(_tomotopy_chain, [train] * n, starts, seeds, [warmup] * n,
                               [draws] * n, [prior] * n))  # fmt: skip
    wall = time.perf_counter() - t0
    stacked = np.stack(chains)  # (chain, draw, scalar)
    draws_by_name = {name: stacked[:, :, TOMOTOPY.index(name)] for name in prior.scalars(TOMOTOPY)}
    result = _diagnostics(draws_by_name, "live_k", wall)
    result["seeds"] = seeds
    return result


def run(
    *, quick: bool = False, warmup: int = 500, draws: int = 1000, seed: int = 1,
    split_seed: int = 1, peer_warmup: int | None = None, peer_draws: int | None = None,
    prior: Prior | None = None, split_merge: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """Run the benchmark and return the JSON-ready result (see the module docstring)."""
    from bayeswe.bench.hdp import prepare

    prior = Prior() if prior is None else prior

    if quick:
        from bayeswe.dp import simulate_hdp_lda

        train = simulate_hdp_lda(n_docs=100, doc_length=30, n_words=200, seed=seed).data.corpus
        ours_starts, peer_starts, warmup, draws = [1, 1, 20, 20], [2, 2, 20, 20], 20, 20
        corpus = "simulated"
    else:
        from bayeswe.datasets import load_nyt

        train = prepare(load_nyt(download=True), split_seed).train
        ours_starts, peer_starts, corpus = [1, 1, 300, 300], [2, 2, 300, 300], "nyt"
    ours = _ours(train, ours_starts, warmup, draws, seed, prior, split_merge)
    peer_warmup = warmup if peer_warmup is None else peer_warmup
    peer_draws = draws if peer_draws is None else peer_draws
    peer = _tomotopy(train, peer_starts, peer_warmup, peer_draws, seed, prior)
    harness.progress({"tomotopy_wall_s": round(peer["wall_s"], 1)})
    summary: dict[str, Any] = {"corpus": corpus, **prior.record(), "split_merge": split_merge}
    for key in ("rhat_n_topics", "ess_bulk_min", "wall_s", "diagnosable"):
        summary[key] = ours[key]
        summary[f"tomotopy_{key}"] = peer[key]
    summary["live_topics"] = {"bayeswe": ours["live_topics"], "tomotopy": peer["live_topics"]}
    return {
        "summary": summary, "quick": quick, "seed": seed, "split_seed": split_seed,
        "warmup": warmup, "draws": draws, "peer_warmup": peer_warmup,
        "peer_draws": peer_draws, "eta": ETA, **prior.record(), "split_merge": split_merge,
        "train_docs": train.n_docs,
        "train_tokens": train.n_tokens, "starts": {"bayeswe": ours_starts,
        "tomotopy": peer_starts}, "bars": {"rhat_max": RHAT_MAX, "ess_min": ESS_MIN,
        "budget_s": BUDGET_S}, "bayeswe": ours, "tomotopy": peer,
    }  # fmt: skip


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench hdp-chains`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench hdp-chains", description=__doc__)
    harness.add_common_options(parser, quick="simulated corpus, 20 + 20 iterations (smoke)")
    parser.add_argument("--warmup", type=int, default=500, help="sweeps discarded (500)")
    parser.add_argument("--draws", type=int, default=1000, help="sweeps kept (1000)")
    parser.add_argument("--peer-warmup", type=int, default=None,
                        help="tomotopy's iterations discarded (default: --warmup)")  # fmt: skip
    parser.add_argument("--peer-draws", type=int, default=None,
                        help="tomotopy's iterations kept (default: --draws)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1, help="first seed (1)")
    parser.add_argument("--split-seed", type=int, default=1, help="held-out split seed (1)")
    parser.add_argument("--alpha0", type=float, default=1.0,
                        help="the document-level concentration at the start (1)")  # fmt: skip
    parser.add_argument("--gamma", type=float, default=1.0,
                        help="the top-level concentration at the start (1)")  # fmt: skip
    parser.add_argument("--fixed-concentrations", action="store_true",
                        help="hold alpha0 and gamma fixed on both sides "
                        "(default: resampled)")  # fmt: skip
    parser.add_argument("--split-merge", type=int, default=0,
                        help="our split-merge proposals per sweep (0)")  # fmt: skip
    return parser


def check_args(args: argparse.Namespace) -> None:
    """``ValueError`` (the CLI's exit 2, before anything runs) for fewer than 4 kept
    iterations on either side: R-hat splits each chain in halves of at least 2. (The
    CLI's own checks refuse concentrations that are not positive and negative counts.)"""
    for name in ("draws", "peer_draws"):
        value = getattr(args, name)
        if value is not None and value < 4:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 4, got {value}")


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object."""
    if args is None:
        args = build_parser().parse_args(argv)
    check_args(args)
    return harness.run_cli(
        "hdp-chains",
        args,
        lambda: run(
            quick=args.quick,
            warmup=args.warmup,
            draws=args.draws,
            seed=args.seed,
            split_seed=args.split_seed,
            peer_warmup=args.peer_warmup,
            peer_draws=args.peer_draws,
            prior=Prior(args.alpha0, args.gamma, args.fixed_concentrations),
            split_merge=args.split_merge,
        ),  # fmt: skip
        argv=argv,
        peers=("tomotopy",),
    )
