"""Does NUTS on the HDP-LDA Stan twin agree with the collapsed sampler?

The DP mixture study (``dp_stick_order.py``) found NUTS on the truncated stick-breaking
twin biased: it keeps each cluster in the stick its start gives it, and under a truncated
stick-breaking prior a cluster's expected weight depends on its stick. ``hdp_lda.stan``
has the same top level, ``beta ~ GEM(gamma)`` truncated at ``T``. This study measures
whether its NUTS draws agree with bayeswe's direct-assignment collapsed Gibbs sampler
(``method="cgs"``, the untruncated HDP; its invariance is checked against an enumerated
posterior in ``tests/samplers/test_hdp_lda.py``), and how far each is from the other.

**Data.** The corpus of the nonparametrics page's example: 20 documents of 50 tokens over
25 words from three topics with top-level weights 0.5, 0.3 and 0.2
(``simulate_hdp_lda(..., seed=2)``), fitted with the priors it was drawn from:
``alpha0`` 2, ``gamma`` 1, ``eta`` 0.2, both fixed.

**Label-free quantities**, each a per-draw scalar whose posterior mean both samplers
estimate:

* ``n_occupied``: the number of topics holding a token. The twin draws the indicators
  from their conditional given ``theta`` and ``phi`` (its ``n_occupied``); the collapsed
  sampler has them.
* ``beta_(1)``, ``beta_(2)``, ``beta_(3)``: the three largest top-level weights. The
  collapsed sampler draws ``(beta_1, ..., beta_K, beta_u)`` given the tables (Teh et al.
  2006, eq. 36) and here also splits ``beta_u`` among the unrepresented topics by
  ``GEM(gamma)``, so that a large unused topic can rank as in the twin.
* ``p(w | d)`` for the three most frequent words in documents 0, 1 and 2 and the rarest
  word present in the corpus: the predictive probability that the next token of document
  ``d`` is ``w``. The twin's draw is ``sum_k theta_dk phi_kw``; the collapsed sampler's is
  its conditional expectation given the indicators and ``beta`` (Rao-Blackwell,
  :func:`bayeswe.samplers.hdp_lda.word_predictive`).

Each mean has ArviZ's MCSE (autocorrelation counts); ``z`` is the difference over the root
sum of squared MCSEs. NUTS runs twice: from Stan's random starts, and from the collapsed
chains' last states with their topics in the first sticks by decreasing size
(:func:`_ordered_start`), the start that ``initial_values`` gives the DP mixture. The
twin's ``leftover`` (mass past ``T - 1`` breaks) is reported; the truncation bar is a mean
leftover of at most 1e-3.

``hdp_twin_agreement_softmax_theta.json`` holds the run of the program before ``theta_d``
took its gamma form (``theta_d = softmax(theta_raw[d])`` as in ``lda.stan``, started
from ``theta_raw``); that program is in the commit the file names.

Run from the repository root (about 2 minutes on two cores)::

    python benchmarks/studies/hdp_twin_agreement.py
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np

import bayeswe
from bayeswe.bench import harness
from bayeswe.dp import simulate_hdp_lda
from bayeswe.samplers import hdp_lda as hdp

TOP = 3  # sorted top-level weights compared
GEM_STICKS = 60  # pieces of beta_u drawn by GEM(gamma) (the rest is below 1e-12 of it)


def _arviz(fn: Any, x: np.ndarray) -> float:
    """ArviZ's ``fn`` (ess, mcse, rhat) of ``(chain, draw)`` draws of a scalar."""
    dataset = az.convert_to_dataset({"x": np.asarray(x, dtype=np.float64)})
    return float(fn(dataset)["x"].values)


def _estimate(x: np.ndarray) -> dict[str, float]:
    return {
        "mean": float(x.mean()),
        "mcse": _arviz(az.mcse, x),
        "ess_bulk": _arviz(az.ess, x),
        "rhat": _arviz(az.rhat, x),
    }


def _pairs(data: Any) -> list[tuple[int, int]]:
    """(document, word): the three most frequent words of documents 0-2, and the word
    of the fewest tokens in the corpus in the first document that holds it."""
    doc, word = data.corpus.tokens()
    V = data.n_words
    pairs = []
    for d in range(3):
        counts = np.bincount(word[doc == d], minlength=V)
        pairs += [(d, int(w)) for w in np.argsort(-counts, kind="stable")[:3]]
    totals = np.bincount(word, minlength=V)
    rare = int(np.argmin(np.where(totals > 0, totals, np.iinfo(np.int64).max)))
    pairs.append((int(doc[word == rare][0]), rare))
    return pairs


def collapsed(
    data: Any, pairs: list[tuple[int, int]], *, chains: int, warmup: int, draws: int, seed: int,
    truncation: int,
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:  # fmt: skip
    """``(chains, draws)`` arrays of the label-free quantities under ``method="cgs"``, and
    a start for the twin from each chain's last state (:func:`_ordered_start`)."""
    problem = hdp.HDPProblem.from_data(data)
    docs = np.array([d for d, _ in pairs])
    words = np.array([w for _, w in pairs])
    out = {
        "n_occupied": np.empty((chains, draws)),
        "beta_sorted": np.empty((chains, draws, TOP)),
        "p": np.empty((chains, draws, len(pairs))),
    }
    gem = np.random.default_rng([seed, 1])  # splits beta_u; not the chains' streams
    starts = []
    for c in range(chains):
        state = hdp.init_state(problem, seed=seed, chain=c, initial_topics=1)
        for t in range(warmup + draws):
            hdp.step(problem, state)
            if t < warmup:
                continue
            s = t - warmup
            beta, rest = state.topics.beta, float(state.topics.rest[0])
            live = np.flatnonzero(state.counts.n_k > 0)
            out["p"][c, s] = hdp.word_predictive(problem, state, docs, words)
            out["n_occupied"][c, s] = live.size
            v = gem.beta(1.0, state.gamma, size=GEM_STICKS)
            pieces = rest * v * np.concatenate([[1.0], np.cumprod(1.0 - v)[:-1]])
            weights = np.concatenate([beta[live], pieces])
            out["beta_sorted"][c, s] = -np.sort(-weights)[:TOP]
        starts.append(_ordered_start(problem, state, truncation))
    return out, starts


def _ordered_start(problem: hdp.HDPProblem, state: hdp.HDPState, T: int) -> dict[str, Any]:
    """A start for the twin from a collapsed chain's last state: its topics in the first
    sticks by decreasing size (``v_k = beta_k / (1 - sum_{j<k} beta_j)``, the
    unrepresented mass spread over the other sticks by halves), ``theta_d`` and
    ``phi_k`` at their conditional means given the indicators and ``beta``."""
    counts, V, eta, alpha0 = state.counts, problem.n_words, problem.eta, state.alpha0
    live = np.flatnonzero(counts.n_k > 0)
    order = live[np.argsort(-counts.n_k[live], kind="stable")][: T - 1]
    K = order.size
    beta = np.empty(T)
    beta[:K] = state.topics.beta[order]
    rest = 1.0 - beta[:K].sum()
    beta[K:] = rest * 0.5 ** np.arange(1, T - K + 1)
    beta[-1] += 1.0 - beta.sum()
    v = beta[:-1] / (1.0 - np.concatenate([[0.0], np.cumsum(beta)[:-2]]))
    n_dk = np.zeros((problem.n_docs, T))
    n_dk[:, :K] = counts.n_dk[:, order]
    theta = (n_dk + alpha0 * beta) / (problem.doc_len[:, None] + alpha0)
    n_kw = np.zeros((T, V))
    n_kw[:K] = counts.n_wk[:, order].T
    phi = (n_kw + eta) / (n_kw.sum(axis=1, keepdims=True) + V * eta)
    log_phi = np.log(phi)
    # theta_d = G / sum(G) with G_dk = theta_dk = gamma_dk * uniform_dk^(1 / a_k): the
    # gamma part at its prior mean a_k + 1, the uniform part to match
    a = alpha0 * beta
    return {
        "v": np.clip(v, 1e-6, 1 - 1e-6).tolist(),
        "theta_gamma": np.broadcast_to(a + 1.0, theta.shape).tolist(),
        "theta_uniform": np.clip((theta / (a + 1.0)) ** a, 1e-12, 1 - 1e-12).tolist(),
        "phi_raw": (log_phi - log_phi.mean(axis=1, keepdims=True)).tolist(),
    }


def twin(
    data: Any, pairs: list[tuple[int, int]], *, chains: int, warmup: int, draws: int, seed: int,
    adapt_delta: float, inits: list[dict[str, Any]] | None,
) -> tuple[dict[str, np.ndarray], az.InferenceData]:  # fmt: skip
    """The same quantities under NUTS on ``models/hdp_lda.stan`` (Stan's random starts if
    ``inits`` is None)."""
    idata = bayeswe.fit(
        "hdp_lda", data, method="nuts", seed=seed, chains=chains, iter_warmup=warmup,
        iter_sampling=draws, adapt_delta=adapt_delta, show_progress=False, inits=inits,
    )  # fmt: skip
    post = idata.posterior
    theta, phi = post["theta"].values, post["phi"].values  # (C, S, D, T), (C, S, T, V)
    p = np.stack([(theta[:, :, d, :] * phi[:, :, :, w]).sum(-1) for d, w in pairs], axis=-1)
    beta = post["beta"].values
    return {
        "n_occupied": post["n_occupied"].values.astype(np.float64),
        "beta_sorted": -np.sort(-beta, axis=-1)[..., :TOP],
        "p": p,
    }, idata


def _statistics(draws: dict[str, np.ndarray], pairs: list[tuple[int, int]]) -> dict[str, Any]:
    stats = {"n_occupied": _estimate(draws["n_occupied"])}
    for j in range(TOP):
        stats[f"beta_({j + 1})"] = _estimate(draws["beta_sorted"][..., j])
    for j, (d, w) in enumerate(pairs):
        stats[f"p(w{w} | d{d})"] = _estimate(draws["p"][..., j])
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--truncation", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--gibbs-warmup", type=int, default=2000)
    parser.add_argument("--gibbs-draws", type=int, default=50000)
    parser.add_argument("--nuts-warmup", type=int, default=1000)
    parser.add_argument("--nuts-draws", type=int, default=1000)
    parser.add_argument("--adapt-delta", type=float, default=0.9)
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/studies/hdp_twin_agreement.json")
    )
    args = parser.parse_args()
    facts = harness.start_run()
    sim = simulate_hdp_lda(
        n_docs=20, doc_length=50, n_words=25, beta=(0.5, 0.3, 0.2), alpha0=2.0, eta=0.2,
        gamma=1.0, truncation=args.truncation, seed=2,
    )  # fmt: skip
    pairs = _pairs(sim.data)
    runs: dict[str, Any] = {}
    t0 = time.perf_counter()
    cgs, starts = collapsed(
        sim.data, pairs, chains=args.chains, warmup=args.gibbs_warmup, draws=args.gibbs_draws,
        seed=args.seed, truncation=args.truncation,
    )  # fmt: skip
    runs["collapsed_gibbs"] = {
        "statistics": _statistics(cgs, pairs),
        "wall_s": time.perf_counter() - t0,
    }
    for name, inits in (("nuts", None), ("nuts_ordered_start", starts)):
        t0 = time.perf_counter()
        nuts, idata = twin(
            sim.data, pairs, chains=args.chains, warmup=args.nuts_warmup, draws=args.nuts_draws,
            seed=args.seed, adapt_delta=args.adapt_delta, inits=inits,
        )  # fmt: skip
        post = idata.posterior
        # in which stick each chain keeps the largest topic: the order NUTS cannot change
        largest = post["topic_tokens"].values.argmax(axis=-1)
        runs[name] = {
            "statistics": _statistics(nuts, pairs),
            "wall_s": time.perf_counter() - t0,
            "divergences": int(idata.sample_stats["diverging"].values.sum()),
            "max_depth_share": float((idata.sample_stats["tree_depth"].values >= 10).mean()),
            "leftover_mean": float(post["leftover"].mean()),
            "leftover_max": float(post["leftover"].max()),
            "leftover_mean_by_chain": post["leftover"].mean("draw").values.tolist(),
            "largest_topic_stick_by_chain": [
                np.bincount(c, minlength=args.truncation).tolist() for c in largest
            ],
        }
    ref = runs["collapsed_gibbs"]["statistics"]
    z = {
        name: {
            k: (v["mean"] - ref[k]["mean"]) / float(np.hypot(v["mcse"], ref[k]["mcse"]))
            for k, v in runs[name]["statistics"].items()
        }
        for name in ("nuts", "nuts_ordered_start")
    }
    out = {
        "study": "hdp-twin-agreement",
        "summary": {
            "z_vs_cgs": z,
            "max_abs_z": {name: max(abs(v) for v in zs.values()) for name, zs in z.items()},
            "leftover_mean": {name: runs[name]["leftover_mean"] for name in z},
            "divergences": {name: runs[name]["divergences"] for name in z},
        },
        "settings": vars(args)
        | {"output": str(args.output), "pairs": pairs, "topic_tokens": sim.topic_tokens.tolist()},
        "samplers": runs,
        "run": harness.finish_run(facts),
    }
    harness.write_json_atomic(args.output, out)
    print(json.dumps(out["summary"], indent=1))
    for k in ref:
        row = "  ".join(
            f"{name} {runs[name]['statistics'][k]['mean']:.4f} z {z[name][k]:+.2f}" for name in z
        )
        print(f"{k:>16} cgs {ref[k]['mean']:.4f}±{ref[k]['mcse']:.4f}  {row}")


if __name__ == "__main__":
    main()
