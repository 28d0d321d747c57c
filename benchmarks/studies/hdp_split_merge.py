"""Do HDP-LDA's split-merge moves help? Acceptance and mixing with and without them.

Arms: ``split_merge=0``, ``split_merge=P`` and, for each ``t`` of ``--scans``,
``split_merge=P`` with ``split_merge_scans=t`` (restricted Gibbs launches), run one
after another in one process (same seeds, starts, warm-up and kept sweeps;
``resample_concentrations=True``), in two settings:

* ``sim``: the nonparametrics guide's example corpus (``simulate_hdp_lda(n_docs=200,
  doc_length=50, n_words=100, seed=1)``), four chains, two started with 1 topic and two
  with 50, for each of ``--seeds`` seeds. Reported per setting: the moves accepted per
  proposal, R-hat and bulk ESS of ``n_topics`` and ``lp`` over the four chains (ArviZ),
  and bulk ESS per second of sweep time (moves included).
* ``nyt`` (``--nyt``): one chain each from 1 and from 300 topics on the training
  documents of ``bayeswe bench hdp-chains`` (NYT, ``eta`` 0.01) for each arm with
  moves, ``--nyt-sweeps`` sweeps: how many are accepted, and the seconds they add per
  sweep.

Run from the repository root; writes ``benchmarks/studies/hdp_split_merge.json``::

    python benchmarks/studies/hdp_split_merge.py --nyt --scans 2
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from bayeswe.bench import harness

SIM = {"n_docs": 200, "doc_length": 50, "n_words": 100, "seed": 1}


def _arms(args: argparse.Namespace) -> list[tuple[str, int, int]]:
    """(key, proposals per sweep, launch scans) of each arm."""
    arms = [("split_merge_0", 0, 0), (f"split_merge_{args.proposals}", args.proposals, 0)]
    return arms + [
        (f"split_merge_{args.proposals}_scans_{t}", args.proposals, t) for t in args.scans
    ]


def _sim(args: argparse.Namespace) -> dict[str, Any]:
    import arviz as az

    from bayeswe.dp import simulate_hdp_lda
    from bayeswe.samplers import hdp_lda

    data = simulate_hdp_lda(**SIM).data
    hdp_lda._warm_up_compiler()
    out: dict[str, Any] = {}
    for key, moves, scans in _arms(args):
        rows = []
        for seed in range(1, args.seeds + 1):
            parts, sweep_s, accepted = {"n_topics": [], "lp": []}, 0.0, 0
            for i, k0 in enumerate((1, 50)):
                idata = hdp_lda.sample_hdp_lda(
                    data, seed=1000 * seed + i, chains=2, iter_warmup=args.warmup,
                    iter_sampling=args.draws, thin=1, initial_topics=k0,
                    resample_concentrations=True, keep_topics=False, split_merge=moves,
                    split_merge_scans=scans, parallel_chains=1,
                )  # fmt: skip
                parts["n_topics"].append(idata.posterior["n_topics"].values)
                parts["lp"].append(idata.sample_stats["lp"].values)
                sweep_s += float(idata.attrs["sweep_time"])
                accepted += idata.attrs["splits_accepted"] + idata.attrs["merges_accepted"]
            ds = az.convert_to_dataset(
                {k: np.concatenate(v).astype(float) for k, v in parts.items()}
            )
            rhat, ess = az.rhat(ds), az.ess(ds, method="bulk")
            proposals = 4 * (args.warmup + args.draws) * moves
            rows.append({
                "seed": seed,
                "sweep_s": sweep_s,
                "accepted_per_proposal": accepted / proposals if proposals else None,
                "rhat": {k: float(rhat[k]) for k in parts},
                "ess_bulk": {k: float(ess[k]) for k in parts},
                "ess_per_s": {k: float(ess[k]) / sweep_s for k in parts},
            })  # fmt: skip
            harness.progress({"sim": {"split_merge": moves, "scans": scans, **rows[-1]}})
        out[key] = rows
    return out


def _nyt(args: argparse.Namespace) -> dict[str, Any]:
    from bayeswe.bench.hdp import prepare
    from bayeswe.bench.hdp_chains import ETA
    from bayeswe.datasets import load_nyt
    from bayeswe.dp import HDPLDAData
    from bayeswe.samplers import hdp_lda as hdp

    train = prepare(load_nyt(), 1).train
    data = HDPLDAData(train, truncation=1, gamma=1.0, alpha0=1.0, eta=ETA)
    problem = hdp.HDPProblem.from_data(data, hdp.HDPArgs(resample_concentrations=True))
    hdp._warm_up_compiler()
    chains = []
    arms = [(t, k0) for _, moves, t in _arms(args) if moves for k0 in (1, 300)]
    for scans, k0 in arms:
        chain = 0 if k0 == 1 else 1
        state = hdp.init_state(problem, 1, chain, k0)
        sweep_s = moves_s = 0.0
        accepted = [0, 0]
        n_topics = []
        for _ in range(args.nyt_sweeps):
            t0 = time.perf_counter()
            hdp.step(problem, state)
            t1 = time.perf_counter()
            s, m = hdp.split_merge_moves(problem, state, args.proposals, scans=scans)
            moves_s += time.perf_counter() - t1
            sweep_s += t1 - t0
            accepted[0] += s
            accepted[1] += m
            n_topics.append(state.n_topics)
        chains.append({
            "initial_topics": k0,
            "scans": scans,
            "proposals": args.nyt_sweeps * args.proposals,
            "splits_accepted": accepted[0],
            "merges_accepted": accepted[1],
            "n_topics_every_50": n_topics[49::50],
            "token_sweep_s_per_sweep": sweep_s / args.nyt_sweeps,
            "moves_s_per_sweep": moves_s / args.nyt_sweeps,
        })  # fmt: skip
        harness.progress({"nyt": chains[-1]})
    return {"train_tokens": problem.n_tokens, "eta": ETA, "chains": chains}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proposals", type=int, default=10, help="split-merge per sweep")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--scans", type=int, nargs="*", default=[],
                        help="restricted Gibbs scans of the launch, one arm each")  # fmt: skip
    parser.add_argument("--nyt", action="store_true")
    parser.add_argument("--nyt-sweeps", type=int, default=300)
    parser.add_argument("--out", default="benchmarks/studies/hdp_split_merge.json")
    args = parser.parse_args()
    facts = harness.start_run()
    result: dict[str, Any] = {"study": "hdp_split_merge", "settings": vars(args)}
    result["sim"] = _sim(args)
    if args.nyt:
        result["nyt"] = _nyt(args)
    result["run"] = harness.finish_run(facts)
    harness.write_json_atomic(args.out, result)


if __name__ == "__main__":
    main()
