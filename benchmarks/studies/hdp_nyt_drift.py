"""Which way does HDP-LDA's number of topics drift on NYT, from where?

``bayeswe bench hdp-chains`` starts NYT chains from 1 and from 300 topics and finds that
they do not meet within 30 minutes. This study asks where between them the posterior's
number of topics lies, by starting chains elsewhere and watching the direction of drift.

One run of :func:`bayeswe.samplers.hdp_lda.sample_hdp_lda` (``cgs``) with one chain per
start (``--starts``, default 150 and 600; ``initial_topics`` per chain), on the training
documents of ``bench hdp-chains`` (NYT, split seed 1, ``eta`` 0.01), with ``alpha0`` and
``gamma`` fixed (default 5 and 0.3, the benchmark's fixed-concentration values), no
warm-up, ``--sweeps`` sweeps and a draw every ``--every`` sweeps. Recorded per chain:
the number of live topics and the log joint per training token (``lp`` / tokens) at
each draw, and the sweep time.

Run from the repository root; writes ``benchmarks/studies/hdp_nyt_drift.json``::

    python benchmarks/studies/hdp_nyt_drift.py
"""

from __future__ import annotations

import argparse
from typing import Any

from bayeswe.bench import harness


def run(args: argparse.Namespace) -> dict[str, Any]:
    from bayeswe.bench.hdp import prepare
    from bayeswe.bench.hdp_chains import ETA
    from bayeswe.datasets import load_nyt
    from bayeswe.dp import HDPLDAData
    from bayeswe.samplers import hdp_lda

    train = prepare(load_nyt(), 1).train
    data = HDPLDAData(train, truncation=1, gamma=args.gamma, alpha0=args.alpha0, eta=ETA)
    starts = list(args.starts)
    idata = hdp_lda.sample_hdp_lda(
        data, seed=args.seed, chains=len(starts), iter_warmup=0, iter_sampling=args.sweeps,
        thin=args.every, initial_topics=starts, keep_topics=False,
        parallel_chains=min(2, len(starts)),
    )  # fmt: skip
    n_topics = idata.posterior["n_topics"].values
    lp = idata.sample_stats["lp"].values / train.n_tokens
    chains = [
        {
            "initial_topics": k,
            "n_topics": n_topics[c].astype(int).tolist(),
            "lp_per_token": lp[c].tolist(),
        }
        for c, k in enumerate(starts)
    ]
    return {
        "corpus": "nyt", "train_docs": train.n_docs, "train_tokens": train.n_tokens,
        "eta": ETA, "alpha0": args.alpha0, "gamma": args.gamma, "seed": args.seed,
        "sweeps": args.sweeps, "every": args.every, "chains": chains,
        "sweep_time_s": float(idata.attrs["sweep_time"]),
        "wall_time_s": float(idata.attrs["wall_time"]),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, nargs="+", default=[150, 600])
    parser.add_argument("--sweeps", type=int, default=2000)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--alpha0", type=float, default=5.0)
    parser.add_argument("--gamma", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="benchmarks/studies/hdp_nyt_drift.json")
    args = parser.parse_args()
    facts = harness.start_run()
    result: dict[str, Any] = {"study": "hdp_nyt_drift", "settings": vars(args), **run(args)}
    result["run"] = harness.finish_run(facts)
    harness.write_json_atomic(args.out, result)


if __name__ == "__main__":
    main()
