"""Benchmarks: ``bayeswe bench NAME``, one module per benchmark.

Each module defines ``build_parser(parser)`` (adds its options) and
``main(argv=None, args=None)`` (runs it and prints one JSON object whose ``summary``
holds the headline figures and whose ``run`` holds the facts of the run: command,
commit, versions, machine, load). Timing, subprocesses, those facts, the common
options (``--json``, ``--output PATH``, ``--quick``) and the output are
:mod:`bayeswe.bench.harness`'s, shared by every module. Each module's docstring says
what it compares, on which data, how the sides are put on an equal footing, and what
each summary key means. Model packages hold no benchmark code.
"""

from __future__ import annotations

#: ``bayeswe bench NAME``: the module that defines the benchmark and its help line.
BENCHMARKS: dict[str, tuple[str, str]] = {
    "sgns-stan": (
        "bayeswe.bench.sgns_stan",
        "gradient time of sgns_identified.stan vs the paper's Listing 2",
    ),
    "lda": (
        "bayeswe.bench.lda",
        "LDA collapsed Gibbs vs tomotopy, lda, gensim, scikit-learn (tokens/s)",
    ),
    "hdp": (
        "bayeswe.bench.hdp",
        "HDP-LDA collapsed Gibbs vs tomotopy HDPModel and gensim HdpModel (tokens/s, held-out)",
    ),
    "hdp-chains": (
        "bayeswe.bench.hdp_chains",
        "HDP-LDA on NYT: do chains from 1 and 300 topics agree (R-hat, ESS), ours and tomotopy's",
    ),
    "pg-gibbs": (
        "bayeswe.bench.pg_gibbs",
        "PG blocked Gibbs vs NUTS (Table 3 grid), Congress-scale sweep time",
    ),
    "pg-gibbs-profile": (
        "bayeswe.bench.pg_gibbs_profile",
        "where a PG-Gibbs sweep's time goes (PG draws, Gaussian updates, log joint)",
    ),
    "corpus-pairs": (
        "bayeswe.bench.corpus_pairs",
        "SGNS pair extraction: time and peak memory at 10^7 tokens",
    ),
    "evaluation": (
        "bayeswe.bench.evaluation",
        "analogy / Spearman / posterior evaluation on GloVe vs gensim",
    ),
    "lda-stan": (
        "bayeswe.bench.lda_stan",
        "gradient time of lda.stan vs the Stan User's Guide LDA",
    ),
    "gaussian-lda": (
        "bayeswe.bench.gaussian_lda",
        "Gaussian LDA: naive vs Cholesky-update vs alias-MH sweep time",
    ),
    "gaussian-lda-stan": (
        "bayeswe.bench.gaussian_lda_stan",
        "gradient cost of gaussian_lda.stan vs a per-token program, and a NUTS fit",
    ),
    "gaussian-lda-equal-time": (
        "bayeswe.bench.gaussian_lda_equal_time",
        "Gaussian LDA: log joint of cgs vs alias-MH after equal CPU time, same start",
    ),
    "gaussian-lda-mixing": (
        "bayeswe.bench.gaussian_lda_mixing",
        "Gaussian LDA alias-MH vs cgs: ESS of the log joint per CPU-second, time to plateau",
    ),
    "gaussian-lda-alias-kernel": (
        "bayeswe.bench.gaussian_lda_alias_kernel",
        "Gaussian LDA alias-MH: total variation of a token's MH move from a Gibbs draw",
    ),
    "lda-vi": (
        "bayeswe.bench.lda_vi",
        "LDA CAVI and SVI vs gensim and scikit-learn: token visits/s, held-out log predictive",
    ),
    "sgns-approx": (
        "bayeswe.bench.sgns_approx",
        "SGNS: 90 %% interval coverage and width of approximations vs PG-Gibbs",
    ),
    "sgns-identification": (
        "bayeswe.bench.sgns_identification",
        "SGNS post hoc gauge vs MAP anchors: PG-Gibbs cost per effective draw, coverage",
    ),
    "dp-mixture": (
        "bayeswe.bench.dp_mixture",
        "DP mixture collapsed Gibbs + split-merge vs NUTS on dp_mixture.stan (ESS/s)",
    ),
    "laplace-sparse": (
        "bayeswe.bench.laplace_sparse",
        "sparse Laplace for SGNS: time and peak memory of the MAP, Hessian, factor and draws",
    ),
}

__all__ = ["BENCHMARKS"]
