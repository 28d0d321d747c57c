"""Evaluating word embeddings, point estimates and posteriors.

* Benchmarks (:mod:`bayeswe.evaluation.testsets`): WS-353, SimLex-999, MEN and ten
  more word-similarity sets, and the Google analogy questions, read from the optional
  packages of the ``eval`` extra (never downloaded); users' own tables too.
* One embedding: :func:`word_similarity` (Spearman correlation with coverage) and
  :func:`analogy_accuracy` (3CosAdd, per section and total).
* Posterior draws: :func:`posterior_spearman` (the posterior distribution of the
  benchmark correlation, with a credible interval), :func:`posterior_analogy_accuracy`,
  :func:`posterior_cosine`, :func:`posterior_cosine_table`, :func:`posterior_neighbours`
  (probability of being among the top-k neighbours) and :func:`posterior_prob_closer`.
"""

from bayeswe.evaluation.analogy import (
    AnalogyResult,
    PosteriorAnalogy,
    analogy_accuracy,
    posterior_analogy_accuracy,
)
from bayeswe.evaluation.errors import (
    BenchmarkFormatError,
    BenchmarkUnavailableError,
    EvaluationError,
    LowCoverageWarning,
    OutOfVocabularyError,
    UnknownBenchmarkError,
)
from bayeswe.evaluation.posterior import (
    CloserResult,
    CosinePosterior,
    posterior_cosine,
    posterior_cosine_table,
    posterior_neighbours,
    posterior_prob_closer,
)
from bayeswe.evaluation.similarity import (
    PosteriorSpearman,
    SimilarityResult,
    posterior_spearman,
    word_similarity,
)
from bayeswe.evaluation.testsets import (
    BENCHMARKS,
    AnalogyBenchmark,
    SimilarityBenchmark,
    benchmark_path,
    list_benchmarks,
    load_analogy,
    load_similarity,
    read_analogy_file,
    read_similarity_table,
)

__all__ = [
    "BENCHMARKS",
    "AnalogyBenchmark",
    "AnalogyResult",
    "BenchmarkFormatError",
    "BenchmarkUnavailableError",
    "CloserResult",
    "CosinePosterior",
    "EvaluationError",
    "LowCoverageWarning",
    "OutOfVocabularyError",
    "PosteriorAnalogy",
    "PosteriorSpearman",
    "SimilarityBenchmark",
    "SimilarityResult",
    "UnknownBenchmarkError",
    "analogy_accuracy",
    "benchmark_path",
    "list_benchmarks",
    "load_analogy",
    "load_similarity",
    "posterior_analogy_accuracy",
    "posterior_cosine",
    "posterior_cosine_table",
    "posterior_neighbours",
    "posterior_prob_closer",
    "posterior_spearman",
    "read_analogy_file",
    "read_similarity_table",
    "word_similarity",
]
