"""Do the HDP-LDA Gibbs samplers sample the posterior? bayeswe's and tomotopy's, on
corpora small enough to enumerate.

A sampler can be checked exactly where the posterior can be enumerated. This study
does it for tomotopy's ``HDPModel``
(collapsed Gibbs in the Chinese restaurant franchise form, one worker,
``TermWeight.ONE``, concentrations fixed: ``optim_interval = 0``) beside bayeswe's
direct-assignment sampler (``method="cgs"``), on corpora of a few tokens whose exact
posterior of the number of topics :func:`bayeswe.dp.crf.topic_count_posterior`
enumerates. Each sampler runs four chains; the posterior mean number of topics (the
topics holding a token: tomotopy's ``live_k``, our ``n_topics``) after each kept
iteration is compared with the exact one by ``z``, the difference over ArviZ's Monte
Carlo standard error. An exact sampler gives ``|z|`` below about 4.

Run from the repository root (needs the ``bench`` extra; about a minute)::

    python benchmarks/studies/hdp_exactness.py
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np

from bayeswe.bench import harness
from bayeswe.dp.crf import topic_count_posterior
from bayeswe.kernels.hdp_structs import Corpus
from bayeswe.samplers import hdp_lda as hdp
from bayeswe.samplers.hdp_lda import HDPProblem

#: name -> (documents as word ids, vocabulary size, eta, alpha0, gamma)
CORPORA: dict[str, tuple[list[list[int]], int, float, float, float]] = {
    # the enumerated case of tests/samplers/test_hdp_lda.py
    "2 documents, 7 tokens": ([[0, 0, 1, 2], [2, 2, 1]], 3, 0.5, 1.3, 0.7),
    # three short documents, larger concentrations
    "3 documents, 8 tokens": ([[0, 1, 1], [2, 2, 0], [3, 1]], 4, 0.3, 2.0, 1.5),
}


def _problem(docs: list[list[int]], V: int, eta: float, alpha0: float, gamma: float):
    lengths = np.array([len(d) for d in docs], dtype=np.int64)
    tok_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    words = np.array([w for d in docs for w in d], dtype=np.int32)
    return HDPProblem(
        corpus=Corpus(tok_ptr, words), doc_len=lengths, n_docs=len(docs), n_words=V,
        eta=eta, alpha0=alpha0, gamma=gamma, display=1, resample=False,
        alpha0_prior=(1.0, 1.0), gamma_prior=(1.0, 1.0),
    )  # fmt: skip


def ours(docs, V, eta, alpha0, gamma, *, chains: int, warmup: int, draws: int, seed: int):
    """``(chains, draws)`` numbers of topics under bayeswe's ``cgs`` sweep."""
    problem = _problem(docs, V, eta, alpha0, gamma)
    out = np.empty((chains, draws))
    for c in range(chains):
        state = hdp.init_state(problem, seed=seed, chain=c, initial_topics=1)
        for t in range(warmup + draws):
            hdp.step(problem, state)
            if t >= warmup:
                out[c, t - warmup] = state.n_topics
    return out


def tomotopy(docs, V, eta, alpha0, gamma, *, chains: int, warmup: int, draws: int, seed: int):
    """``(chains, draws)`` of tomotopy's ``live_k`` after each kept iteration."""
    import tomotopy as tp

    out = np.empty((chains, draws))
    for c in range(chains):
        model = tp.HDPModel(tw=tp.TermWeight.ONE, initial_k=2, alpha=alpha0, eta=eta,
                            gamma=gamma, seed=seed + c)  # fmt: skip
        model.optim_interval = 0
        for d in docs:
            model.add_doc([f"w{w}" for w in d])
        model.train(warmup, workers=1)
        for t in range(draws):
            model.train(1, workers=1)
            out[c, t] = model.live_k
    return out


def _estimate(x: np.ndarray, exact: float) -> dict[str, float]:
    mcse = float(az.mcse(az.convert_to_dataset({"x": x}))["x"])
    return {"mean": float(x.mean()), "mcse": mcse, "z": (float(x.mean()) - exact) / mcse}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--draws", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/studies/hdp_exactness.json")
    )
    args = parser.parse_args()
    facts = harness.start_run()
    import tomotopy as tp

    cases: dict[str, Any] = {}
    for name, (docs, V, eta, alpha0, gamma) in CORPORA.items():
        words = [w for d in docs for w in d]
        p_k = topic_count_posterior([len(d) for d in docs], words, V, eta=eta, alpha0=alpha0,
                                    gamma=gamma)  # fmt: skip
        exact = float(p_k @ np.arange(p_k.size))
        case: dict[str, Any] = {
            "docs": docs, "n_words": V, "eta": eta, "alpha0": alpha0, "gamma": gamma,
            "exact_mean_topics": exact,
        }  # fmt: skip
        for tool, run in (("bayeswe", ours), ("tomotopy", tomotopy)):
            t0 = time.perf_counter()
            x = run(docs, V, eta, alpha0, gamma, chains=args.chains, warmup=args.warmup,
                    draws=args.draws, seed=args.seed)  # fmt: skip
            case[tool] = _estimate(x, exact) | {"wall_s": time.perf_counter() - t0}
        cases[name] = case
    out = {
        "study": "hdp-exactness",
        "summary": {
            name: {tool: round(c[tool]["z"], 2) for tool in ("bayeswe", "tomotopy")}
            for name, c in cases.items()
        },
        "settings": vars(args) | {"output": str(args.output), "tomotopy": tp.__version__},
        "cases": cases,
        "run": harness.finish_run(facts),
    }
    harness.write_json_atomic(args.output, out)
    print(json.dumps(out["summary"], indent=1))
    for name, c in cases.items():
        print(f"{name}: exact {c['exact_mean_topics']:.4f}", *(
            f"{tool} {c[tool]['mean']:.4f} ± {c[tool]['mcse']:.4f} (z {c[tool]['z']:+.1f})"
            for tool in ("bayeswe", "tomotopy")
        ))  # fmt: skip


if __name__ == "__main__":
    main()
