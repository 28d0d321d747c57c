"""``bayeswe bench gaussian-lda-stan``: cost of ``models/gaussian_lda.stan`` vs a per-token program.

**Compared.** bayeswe's ``gaussian_lda.stan`` (U x K triangular solves per evaluation
for U used word types, one log-sum-exp per (document, word type), a hand-derived
inverse-Wishart density of the Cholesky factors) against :data:`PER_TOKEN_PROGRAM`,
the program one writes from the generative story (a loop over tokens, T x K solves,
Stan's built-in ``inv_wishart_cholesky_lpdf``), compiled by the same toolchain. Then a
short adaptive NUTS fit of ``gaussian_lda`` says what a fit of that size costs.

**Data.** :func:`synthetic_corpus`: word type ``w`` belongs to topic ``w % K``, topic
centres N(0, 3^2 I), word embeddings centre + N(0, I), ``theta_d ~ Dirichlet(0.5)``;
default 20 documents x 50 tokens, 60 word types, K = 3, dimension 5 (``--quick``: 5 x
20 tokens, 12 types, K = 2, dimension 2, one repeat, NUTS 50 + 20 iterations).

**Equal footing.** Same data and priors, same start (uniform theta, means at random
word types, Sigma = I), where both log densities are compared (this also checks the
hand-derived factor density against Stan's built-in one). Gradient timing as in
``bayeswe bench sgns-stan``: NUTS without adaptation (fixed step size 0.01, maximum
tree depth 5, same seed, one chain, no warm-up), Stan's sampling time over the
leapfrog steps (:func:`bayeswe.bench.harness.time_per_gradient`; compilation,
start-up and I/O out for both); the programs run back to back in each repeat. The
NUTS fit's wall time (:func:`bayeswe.bench.harness.timed`) includes its warm-up.

**Summary keys.**

* ``grad_speedup_vs_per_token`` - the per-token program's time per gradient over
  ours (medians over repeats; above 1: ours is faster);
* ``grad_speedup_per_repeat`` - that ratio for each repeat;
* ``grad_time_us_gaussian_lda``, ``grad_time_us_per_token`` - median microseconds per
  gradient;
* ``lp_abs_diff_at_start`` - absolute difference of the two log densities at the start
  (zero up to rounding); ``lp_at_start`` - ours there;
* ``nuts_wall_s`` - wall seconds of the NUTS fit as seen from Python (warm-up, sampling,
  start-up and reading the output); ``nuts_stan_wall_s`` - the fit's own ``wall_time``;
* ``nuts_min_ess_bulk_mu`` - least bulk ESS over the entries of ``mu`` (topics aligned
  across chains by :func:`align_topics`); ``nuts_max_rhat_mu`` - largest R-hat of ``mu``;
* ``nuts_divergences`` - divergent transitions; ``nuts_mean_leapfrog_steps`` - mean
  leapfrog steps per iteration.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness
from bayeswe.bench.harness import compile_program_text, json_ready, log_prob_at
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.glda.data import GaussianLDAData
from bayeswe.glda.models import GAUSSIAN_LDA, fit_gaussian_lda

__all__ = [
    "PER_TOKEN_PROGRAM",
    "align_topics",
    "per_token_data",
    "run_benchmark",
    "synthetic_corpus",
]

#: The per-token peer program (not part of bayeswe's models; written out here).
PER_TOKEN_PROGRAM = """
data {
  int<lower=1> D;
  int<lower=2> K;
  int<lower=1> P;
  int<lower=0> T;                       // tokens
  array[T] int<lower=1, upper=D> doc;   // document of each token
  array[T] vector[P] v;                 // embedding of each token
  vector<lower=0>[K] alpha;
  vector[P] mu0;
  real<lower=0> kappa;
  real<lower=P - 1> nu;
  cov_matrix[P] Psi;
}
transformed data {
  matrix[P, P] L_Psi = cholesky_decompose(Psi);
}
parameters {
  array[D] simplex[K] theta;
  array[K] vector[P] mu;
  array[K] cholesky_factor_cov[P] L_Sigma;
}
model {
  for (k in 1:K) {
    target += inv_wishart_cholesky_lpdf(L_Sigma[k] | nu, L_Psi);
    target += multi_normal_cholesky_lpdf(mu[k] | mu0, L_Sigma[k] / sqrt(kappa));
  }
  for (d in 1:D) {
    target += dirichlet_lpdf(theta[d] | alpha);
  }
  for (t in 1:T) {
    vector[K] lp;
    for (k in 1:K) {
      lp[k] = log(theta[doc[t], k]) + multi_normal_cholesky_lpdf(v[t] | mu[k], L_Sigma[k]);
    }
    target += log_sum_exp(lp);
  }
}
"""


def synthetic_corpus(
    *,
    n_docs: int,
    doc_length: int,
    n_words: int,
    n_topics: int,
    dim: int,
    seed: int,
    separation: float = 3.0,
    alpha: float = 0.5,
) -> GaussianLDAData:
    """A corpus with repeated word types: word ``w`` belongs to topic ``w % K``.

    Topic centres are ``N(0, separation^2 I)``; each word type's embedding is its
    centre plus ``N(0, I)``; documents draw ``theta_d ~ Dirichlet(alpha)``, a topic
    per token and a word uniformly among that topic's types. Priors: ``alpha``,
    ``mu0 = 0``, ``kappa = 0.1``, ``nu = dim + 2``, ``Psi = I``.
    """
    rng = np.random.default_rng(seed)
    K = n_topics
    centres = rng.normal(0.0, separation, size=(K, dim))
    emb = centres[np.arange(n_words) % K] + rng.normal(size=(n_words, dim))
    docs = []
    for _ in range(n_docs):
        z = rng.choice(K, size=doc_length, p=rng.dirichlet(np.full(K, alpha)))
        n_k = n_words // K + (np.arange(K) < n_words % K)
        docs.append(z + K * rng.integers(0, n_k[z]))
    vocab = Vocabulary(tuple(f"w{i}" for i in range(n_words)))
    return GaussianLDAData(
        BagOfWords.from_token_ids(docs, vocab),
        emb,
        K,
        alpha=alpha,
        mu0=np.zeros(dim),
        kappa=0.1,
        nu=dim + 2.0,
        Psi=np.eye(dim),
    )


def per_token_data(data: GaussianLDAData) -> dict[str, Any]:
    """The data of :data:`PER_TOKEN_PROGRAM`: one row per token."""
    doc, word = data.corpus.tokens()
    return {
        "D": data.n_docs,
        "K": data.n_topics,
        "P": data.dim,
        "T": int(doc.size),
        "doc": (doc + 1).tolist(),
        "v": data.embeddings[word].tolist(),
        "alpha": data.alpha.tolist(),
        "mu0": data.mu0.tolist(),
        "kappa": data.kappa,
        "nu": data.nu,
        "Psi": data.Psi.tolist(),
    }


def align_topics(mu: np.ndarray) -> Any:
    """Relabel the topics of every chain to match chain 0 (Hungarian on the chain means of mu).

    Parameters
    ----------
    mu
        Draws ``(chain, draw, topic, dim)``.

    Returns
    -------
    xarray.Dataset
        ``mu`` relabelled, for ArviZ's ESS and R-hat.
    """
    from scipy.optimize import linear_sum_assignment

    mu = np.array(mu)
    ref = mu[0].mean(axis=0)
    for c in range(1, mu.shape[0]):
        cost = ((mu[c].mean(axis=0)[:, None, :] - ref[None]) ** 2).sum(-1)
        rows, cols = linear_sum_assignment(cost)
        mu[c][:, cols] = mu[c][:, rows]
    import arviz as az

    return az.convert_to_dataset({"mu": mu})


def _start(data: GaussianLDAData, seed: int) -> dict[str, Any]:
    """A common starting point: uniform theta, means at random word types, Sigma = I."""
    rng = np.random.default_rng(seed)
    K, P = data.n_topics, data.dim
    words = rng.choice(data.n_words, size=K, replace=False)
    return {
        "theta": np.full((data.n_docs, K), 1.0 / K).tolist(),
        "mu": data.embeddings[words].tolist(),
        "L_Sigma": np.broadcast_to(np.eye(P), (K, P, P)).tolist(),
    }


def run_benchmark(
    *,
    n_docs: int = 20,
    doc_length: int = 50,
    n_words: int = 60,
    n_topics: int = 3,
    dim: int = 5,
    seed: int = 20261121,
    repeats: int = 3,
    iters: int = 20,
    step_size: float = 0.01,
    max_treedepth: int = 5,
    nuts_warmup: int = 300,
    nuts_draws: int = 300,
    nuts_chains: int = 2,
) -> dict[str, Any]:
    """Time gradients of both programs, then one adaptive NUTS fit of ``gaussian_lda``.

    Returns
    -------
    dict
        ``summary``: ``grad_speedup_vs_per_token`` (median over repeats of the
        per-token program's time per gradient over ours), both times in
        microseconds, ``lp_abs_diff_at_start``, and the NUTS fit's
        ``nuts_wall_s``, ``nuts_min_ess_bulk_mu``, ``nuts_max_rhat_mu``,
        ``nuts_divergences`` (all the keys of the module docstring); ``settings`` and the
        per-repeat ``runs``.
    """
    import arviz as az

    from bayeswe.stan.toolchain import compile_model

    data = synthetic_corpus(
        n_docs=n_docs,
        doc_length=doc_length,
        n_words=n_words,
        n_topics=n_topics,
        dim=dim,
        seed=seed,
    )
    ours_data = GAUSSIAN_LDA.validate(data.to_stan())
    ours_data = json_ready(ours_data)
    theirs_data = per_token_data(data)
    init = _start(data, seed)
    theirs = compile_program_text(PER_TOKEN_PROGRAM, "gaussian_lda_per_token.stan")
    ours = compile_model(GAUSSIAN_LDA.stan_file)
    lp_ours = log_prob_at(ours, init, ours_data)
    lp_theirs = log_prob_at(theirs, init, theirs_data)

    runs = harness.gradient_timings(
        (("ours", ours, ours_data, init), ("per_token", theirs, theirs_data, init)),
        repeats=repeats, seed=seed, iters=iters, step=step_size, depth=max_treedepth,
    )  # fmt: skip
    ours_us = statistics.median(e["ours_grad_us"] for e in runs)
    theirs_us = statistics.median(e["per_token_grad_us"] for e in runs)

    fit = harness.timed(
        fit_gaussian_lda,
        data,
        method="nuts",
        seed=seed,
        chains=nuts_chains,
        iter_warmup=nuts_warmup,
        iter_sampling=nuts_draws,
    )
    idata, nuts_wall = fit.value, fit.wall_s
    mu = align_topics(idata.posterior["mu"].values)
    return {
        "summary": {
            "grad_speedup_vs_per_token": theirs_us / ours_us,
            "grad_speedup_per_repeat": [e["per_token_grad_us"] / e["ours_grad_us"] for e in runs],
            "grad_time_us_gaussian_lda": ours_us,
            "grad_time_us_per_token": theirs_us,
            "lp_abs_diff_at_start": abs(lp_ours - lp_theirs),
            "lp_at_start": lp_ours,
            "nuts_wall_s": nuts_wall,
            "nuts_stan_wall_s": float(idata.attrs["wall_time"]),
            "nuts_min_ess_bulk_mu": float(az.ess(mu, method="bulk")["mu"].min()),
            "nuts_max_rhat_mu": float(az.rhat(mu)["mu"].max()),
            "nuts_divergences": int(idata.sample_stats["diverging"].sum()),
            "nuts_mean_leapfrog_steps": float(idata.sample_stats["n_steps"].mean()),
        },
        "settings": {
            "n_docs": n_docs,
            "doc_length": doc_length,
            "tokens": data.corpus.n_tokens,
            "n_words": n_words,
            "unique_doc_word_pairs": int(data.corpus.word_ids.size),
            "n_topics": n_topics,
            "dim": dim,
            "free_parameters": n_docs * (n_topics - 1) + n_topics * dim * (dim + 3) // 2,
            "seed": seed,
            "repeats": repeats,
            "iter_sampling": iters,
            "step_size": step_size,
            "max_treedepth": max_treedepth,
            "nuts": {
                "chains": nuts_chains,
                "iter_warmup": nuts_warmup,
                "iter_sampling": nuts_draws,
            },
            "timing": "median over repeats of Stan's sampling time / leapfrog steps",
        },
        "runs": runs,
    }


#: Settings of ``--quick`` (a smoke test: seconds, not a measurement).
QUICK = {
    "n_docs": 5,
    "doc_length": 20,
    "n_words": 12,
    "n_topics": 2,
    "dim": 2,
    "repeats": 1,
    "iters": 5,
    "nuts_warmup": 50,
    "nuts_draws": 20,
    "nuts_chains": 2,
}


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Command-line options of ``bayeswe bench gaussian-lda-stan`` (added to ``parser``)."""
    p = parser or argparse.ArgumentParser(
        prog="bayeswe bench gaussian-lda-stan", description=__doc__
    )
    p.add_argument("--docs", type=int, default=20, help="documents (default 20)")
    p.add_argument("--doc-length", type=int, default=50, help="tokens per document (50)")
    p.add_argument("--words", type=int, default=60, help="word types (default 60)")
    p.add_argument("--topics", type=int, default=3, help="topics K (default 3)")
    p.add_argument("--dim", type=int, default=5, help="embedding dimension P (default 5)")
    p.add_argument("--seed", type=int, default=20261121)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--nuts-warmup", type=int, default=300)
    p.add_argument("--nuts-draws", type=int, default=300)
    harness.add_common_options(p, quick="tiny smoke run (seconds)", text_report=True)
    return p


def _report(result: Mapping[str, Any]) -> str:
    s = result["summary"]
    return (
        f"gaussian_lda.stan: {s['grad_time_us_gaussian_lda']:.1f} us/gradient; "
        f"per-token program: {s['grad_time_us_per_token']:.1f} us/gradient; "
        f"speed-up {s['grad_speedup_vs_per_token']:.2f}x "
        f"(|lp difference| at start {s['lp_abs_diff_at_start']:.2e}); "
        f"NUTS {s['nuts_wall_s']:.1f} s, min bulk ESS(mu) {s['nuts_min_ess_bulk_mu']:.0f}"
    )


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark; print one JSON object (``--json``) or a one-line report."""
    if args is None:
        args = build_parser().parse_args(argv)
    if args.quick:
        settings: dict[str, Any] = dict(QUICK, seed=args.seed)
    else:
        settings = {
            "n_docs": args.docs,
            "doc_length": args.doc_length,
            "n_words": args.words,
            "n_topics": args.topics,
            "dim": args.dim,
            "seed": args.seed,
            "repeats": args.repeats,
            "nuts_warmup": args.nuts_warmup,
            "nuts_draws": args.nuts_draws,
        }

    def body() -> dict[str, Any]:
        result = run_benchmark(**settings)
        result["settings"]["quick"] = bool(args.quick)
        return result

    return harness.run_cli("gaussian-lda-stan", args, body, argv=argv, report=_report)
