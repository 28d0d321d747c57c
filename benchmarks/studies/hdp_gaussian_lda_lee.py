"""Infinite Gaussian LDA on the Lee corpus (or mini 20 Newsgroups) with GloVe 6B 50d
vectors: a small study.

What it measures, and writes to a JSON results file (default
``benchmarks/studies/hdp_gaussian_lda_lee.json``; ``--corpus newsgroups``: the 200
posts of gensim's ``mini_newsgroup``, ``benchmarks/studies/hdp_gaussian_lda_newsgroups.json``):

* the posterior number of topics of infinite Gaussian LDA (``hdp_gaussian_lda``,
  direct-assignment collapsed Gibbs, ``alpha0 = gamma = 1``, or with ``--resample`` both
  resampled under Gamma(1, 1); ``--split-merge P``: with ``P`` split-merge proposals
  per sweep, and the moves accepted since the last record), chains started from 1 and
  from 50 topics (``--starts``); the topics' Normal-inverse-Wishart prior has
  ``E[Sigma_k]`` = the training tokens' covariance, with ``nu = D + 2`` degrees of
  freedom or ``--nu``;
* the held-out log density of word vectors by document completion: every 10th token of
  each document is held out, and each is scored by
  ``log sum_k theta_dk t_k(v)`` with ``theta_dk`` the posterior mean of the document's
  proportions given its training tokens' topics (for the HDP the new topic's share
  ``alpha0 beta_u / (n_d + alpha0)`` with the prior predictive), per held-out token,
  averaged over kept sweeps;
* the same for finite Gaussian LDA (``method="cgs"``) at K = the HDP's posterior median
  number of topics, with ``alpha = alpha0 / K`` (the HDP's posterior mean ``alpha0``);
* NPMI coherence of each model's topics' 10 top words on the corpus (document
  co-occurrence; :func:`bayeswe.lda.evaluation.coherence`), for the HDP's and finite
  Gaussian LDA's last sweep (top words by posterior-predictive density) and for word LDA
  (``lda``, collapsed Gibbs) at the same K on the same training tokens.

Run from the repository root (needs ``bayeswe data fetch lee`` or ``newsgroups`` and the
GloVe package)::

    python benchmarks/studies/hdp_gaussian_lda_lee.py --warmup 150 --sampling 100
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import time
from pathlib import Path

import numpy as np

import bayeswe
from bayeswe.corpus import ENGLISH_STOPWORDS, BagOfWords, build_vocabulary
from bayeswe.datasets import load_lee, load_newsgroups
from bayeswe.glda import GaussianLDAData, HDPGaussianLDAData, load_glove, restrict_to_glove
from bayeswe.kernels import hdp_glda as hdp_kern
from bayeswe.kernels.glda.common import resync_topics
from bayeswe.kernels.glda.heldout import completion_log_density
from bayeswe.lda import LDAData
from bayeswe.lda.evaluation import coherence
from bayeswe.samplers import gaussian_lda as glda
from bayeswe.samplers import hdp_gaussian_lda as igl

HELD_EVERY = 10  # every 10th token of each document is held out
TOP_N = 10


def _split(corpus: BagOfWords) -> tuple[BagOfWords, np.ndarray, np.ndarray]:
    """Training corpus (every token but each document's every 10th) and held-out tokens."""
    doc, word = corpus.tokens()
    train_docs: list[list[int]] = [[] for _ in range(corpus.n_docs)]
    held_doc, held_word = [], []
    position = np.zeros(corpus.n_docs, dtype=np.int64)
    for d, w in zip(doc, word, strict=True):
        if position[d] % HELD_EVERY == HELD_EVERY - 1:
            held_doc.append(d)
            held_word.append(w)
        else:
            train_docs[d].append(int(w))
        position[d] += 1
    train = BagOfWords.from_token_ids(train_docs, corpus.vocabulary)
    return train, np.array(held_doc, dtype=np.int32), np.array(held_word, dtype=np.int32)


def _hdp_completion(problem, state, held_doc, held_word) -> float:
    """Mean held-out log density per token: live topics plus the new topic's share."""
    live = np.flatnonzero(state.assign.n_k > 0)
    t = state.topics
    prior = problem.prior_topic

    def cat(a, p):
        return np.ascontiguousarray(np.concatenate([a[live], p[:1]]))

    n_dk = np.zeros((problem.n_docs, live.size + 1), dtype=np.int32)
    n_dk[:, : live.size] = state.assign.n_dk[:, live]
    alpha = state.alpha0 * np.append(state.weights.beta[live], state.weights.rest[0])
    total = completion_log_density(
        held_doc, held_word, problem.corpus.emb, n_dk, alpha, cat(t.mu, prior.mu),
        cat(t.R, prior.R), cat(t.invd, prior.invd), cat(t.tconst, prior.tconst),
        cat(t.tscale, prior.tscale), cat(t.texp, prior.texp),
    )  # fmt: skip
    return total / held_doc.size


def _top_by_density(emb: np.ndarray, topics, slots: np.ndarray) -> np.ndarray:
    """(K, V) per-topic distributions over words, ordered as the posterior-predictive
    densities of the words' vectors (a softmax of them: only the order matters)."""
    dens = np.empty((slots.size, emb.shape[0]))
    hdp_kern.word_log_density(emb, topics, slots.astype(np.int64), dens)
    dens -= dens.max(axis=1, keepdims=True)
    p = np.exp(dens)
    return p / p.sum(axis=1, keepdims=True)


def _words(phi: np.ndarray, vocab, n: int = TOP_N) -> list[list[str]]:
    return [[vocab.words[w] for w in np.argsort(-row, kind="stable")[:n]] for row in phi]


def run_hdp(data, args, held_doc, held_word, starts) -> dict:
    problem = igl.HDPGLDAProblem.from_data(
        data, igl.HDPGLDAArgs(resample_concentrations=args.resample)
    )
    chains = []
    for chain, k0 in enumerate(starts):
        state = igl.init_state(problem, args.seed, chain, initial_topics=k0)
        trace = {"n_topics": [], "alpha0": [], "gamma": [], "lp": [], "heldout": [], "sweep": []}
        t0 = time.process_time()
        trace["splits"], trace["merges"] = [], []
        for t in range(args.warmup + args.sampling):
            igl.step(problem, state, args.split_merge)
            if t % args.every == args.every - 1 or t == args.warmup + args.sampling - 1:
                trace["sweep"].append(t + 1)
                trace["n_topics"].append(state.n_topics)
                trace["splits"].append(state.moves[0])
                trace["merges"].append(state.moves[1])
                trace["alpha0"].append(state.alpha0)
                trace["gamma"].append(state.gamma)
                trace["lp"].append(igl.log_joint(problem, state))
                trace["heldout"].append(_hdp_completion(problem, state, held_doc, held_word))
                print(f"hdp chain {chain} sweep {t + 1}: K={state.n_topics} "
                      f"splits={state.moves[0]} merges={state.moves[1]} "
                      f"alpha0={state.alpha0:.2f} gamma={state.gamma:.2f} "
                      f"heldout={trace['heldout'][-1]:.3f}", flush=True)  # fmt: skip
                state.moves = (0, 0)  # moves accepted per recorded stretch
        trace["cpu_s"] = time.process_time() - t0
        live = np.flatnonzero(state.assign.n_k > 0)
        live = live[np.argsort(-state.assign.n_k[live], kind="stable")]
        phi = _top_by_density(problem.corpus.emb, state.topics, live)
        trace["topic_tokens"] = state.assign.n_k[live].tolist()
        trace["top_words"] = _words(phi, data.corpus.vocabulary)
        trace["phi"] = phi
        chains.append(trace)
    return {"problem": problem, "chains": chains}


def run_glda(data, args, held_doc, held_word) -> dict:
    problem = glda.GLDAProblem.from_data(data)
    state = glda.init_state(problem, seed=args.seed, chain=0, method="cgs")
    trace = {"heldout": [], "lp": [], "sweep": []}
    t0 = time.process_time()
    for t in range(args.warmup + args.sampling):
        glda.step(problem, state, method="cgs")
        if t % args.every == args.every - 1 or t == args.warmup + args.sampling - 1:
            resync_topics(state.kappa_k, state.nu_k, state.R, state.logdet, state.tconst,
                          state.tscale, state.texp)  # fmt: skip
            total = completion_log_density(
                held_doc, held_word, problem.emb, state.n_dk, problem.alpha, state.mu,
                state.R, state.invd, state.tconst, state.tscale, state.texp,
            )  # fmt: skip
            trace["sweep"].append(t + 1)
            trace["heldout"].append(total / held_doc.size)
            trace["lp"].append(glda.lp(problem, state))
            print(f"glda sweep {t + 1}: heldout={trace['heldout'][-1]:.3f}", flush=True)
    trace["cpu_s"] = time.process_time() - t0
    K = problem.alpha.size
    topics = glda._topics(state)
    phi = _top_by_density(problem.emb, topics, np.arange(K))
    counts = np.bincount(state.z, minlength=K)
    order = np.argsort(-counts, kind="stable")
    trace["topic_tokens"] = counts[order].tolist()
    trace["top_words"] = _words(phi[order], data.corpus.vocabulary)
    trace["phi"] = phi
    return trace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", type=int, default=150)
    parser.add_argument("--sampling", type=int, default=100)
    parser.add_argument("--every", type=int, default=10, help="record every n-th sweep")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--starts", default="1,50", help="initial topics of each HDP chain")
    parser.add_argument("--resample", action="store_true", help="resample alpha0 and gamma")
    parser.add_argument("--split-merge", type=int, default=0,
                        help="split-merge proposals per HDP sweep")  # fmt: skip
    parser.add_argument("--corpus", choices=("lee", "newsgroups"), default="lee")
    parser.add_argument(
        "--nu",
        type=float,
        default=None,
        help="topics' prior degrees of freedom (default D + 2); "
        "Psi = (nu - D - 1) x the token covariance",
    )
    parser.add_argument("--out", help="default benchmarks/studies/hdp_gaussian_lda_CORPUS.json")
    args = parser.parse_args()
    starts = [int(s) for s in args.starts.split(",")]
    # the code that runs is the checkout at the start
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=False).stdout.strip()  # fmt: skip
    except OSError:
        commit = ""

    out = args.out or f"benchmarks/studies/hdp_gaussian_lda_{args.corpus}.json"
    texts = load_lee() if args.corpus == "lee" else load_newsgroups()
    vocab = build_vocabulary(
        texts.documents, min_count=2, exclude=ENGLISH_STOPWORDS | {"said", "says"}
    )
    corpus = restrict_to_glove(texts.bag_of_words(vocab))
    vectors = load_glove(corpus.vocabulary)
    train, held_doc, held_word = _split(corpus)
    tokens = vectors[train.tokens()[1]]
    D = vectors.shape[1]
    # the Gaussian LDA example's prior: E[Sigma_k] = Psi / (nu - D - 1) = the token
    # covariance; a larger nu holds the topics' covariances nearer to it (broader topics)
    nu = D + 2.0 if args.nu is None else args.nu
    if nu <= D + 1:
        parser.error(f"--nu must exceed D + 1 = {D + 1}")
    prior = {"nu": nu, "Psi": (nu - D - 1) * np.cov(tokens.T)}
    print(f"{corpus}; training tokens {train.n_tokens}, held out {held_doc.size}", flush=True)

    data = HDPGaussianLDAData(train, vectors, gamma=1.0, alpha0=1.0, **prior)
    hdp = run_hdp(data, args, held_doc, held_word, starts)
    kept = [(np.array(c["sweep"]) > args.warmup) for c in hdp["chains"]]
    K_draws = np.concatenate(
        [np.array(c["n_topics"])[m] for c, m in zip(hdp["chains"], kept, strict=True)]
    )
    alpha0 = float(
        np.concatenate(
            [np.array(c["alpha0"])[m] for c, m in zip(hdp["chains"], kept, strict=True)]
        ).mean()
    )
    K = int(round(float(np.median(K_draws))))
    print(f"posterior K: median {K}, alpha0 mean {alpha0:.2f}", flush=True)

    gdata = GaussianLDAData(train, vectors, n_topics=K, alpha=alpha0 / K, **prior)
    g = run_glda(gdata, args, held_doc, held_word)

    lda = bayeswe.fit(
        "lda", LDAData(train, n_topics=K, alpha=alpha0 / K, beta=0.01), method="cgs",
        seed=args.seed, chains=1, iter_warmup=args.warmup, iter_sampling=args.sampling,
        thin=args.sampling,
    )  # fmt: skip
    lda_phi = lda.posterior["phi"].values[0, -1]

    def npmi(phi: np.ndarray) -> dict:
        c = coherence(phi, corpus, top_n=TOP_N, measure="npmi")
        return {"mean": float(np.nanmean(c)), "per_topic": [float(x) for x in c]}

    def kept_mean(trace: dict, key: str) -> float:
        m = np.array(trace["sweep"]) > args.warmup
        return float(np.mean(np.array(trace[key])[m]))

    results = {
        "study": f"infinite Gaussian LDA on {texts.name} with GloVe 6B 50d",
        "command": "python benchmarks/studies/hdp_gaussian_lda_lee.py "
        + ("" if args.corpus == "lee" else "--corpus newsgroups ")
        + f"--warmup {args.warmup} --sampling {args.sampling} --every {args.every} "
        f"--seed {args.seed} --starts {args.starts}" + (" --resample" if args.resample else "")
        + (f" --split-merge {args.split_merge}" if args.split_merge else "")
        + (f" --nu {args.nu:g}" if args.nu is not None else ""),
        "commit": commit,
        "machine": {"cpu": platform.processor() or platform.machine(), "note": "shared 2-core"},
        "corpus": {"name": args.corpus, "docs": corpus.n_docs, "words": corpus.n_words,
                   "tokens": corpus.n_tokens, "training_tokens": train.n_tokens,
                   "heldout_tokens": int(held_doc.size)},
        "prior": {"nu": prior["nu"], "Psi": "(nu - D - 1) x token covariance", "kappa": data.kappa,
                  "mu0": "mean training token vector", "alpha0": 1.0, "gamma": 1.0,
                  "resampled_under_gamma_1_1": args.resample,
                  "split_merge_per_sweep": args.split_merge},
        "hdp": {
            "chains": [
                {k: v for k, v in c.items() if k != "phi"} | {
                    "initial_topics": s, "npmi": npmi(c["phi"]),
                    "heldout_mean_kept": kept_mean(c, "heldout"),
                }
                for c, s in zip(hdp["chains"], starts, strict=True)
            ],
            "n_topics_median": K,
            "n_topics_kept": K_draws.tolist(),
            "alpha0_mean_kept": alpha0,
        },
        "gaussian_lda": {k: v for k, v in g.items() if k != "phi"} | {
            "K": K, "alpha": alpha0 / K, "npmi": npmi(g["phi"]),
            "heldout_mean_kept": kept_mean(g, "heldout"),
        },
        "lda": {"K": K, "alpha": alpha0 / K, "beta": 0.01, "npmi": npmi(lda_phi),
                "top_words": _words(lda_phi, corpus.vocabulary)},
    }  # fmt: skip
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    for name, r in (
        ("hdp", results["hdp"]["chains"][0]),
        ("gaussian_lda", results["gaussian_lda"]),
    ):
        print(f"{name}: heldout {r['heldout_mean_kept']:.3f} npmi {r['npmi']['mean']:.3f}")
    print(f"lda: npmi {results['lda']['npmi']['mean']:.3f}")


if __name__ == "__main__":
    main()
