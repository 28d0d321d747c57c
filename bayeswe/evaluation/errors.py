"""Typed errors of :mod:`bayeswe.evaluation`."""

from __future__ import annotations

import warnings

from bayeswe.errors import BayesweError

__all__ = [
    "BenchmarkFormatError",
    "BenchmarkUnavailableError",
    "EvaluationError",
    "LowCoverageWarning",
    "OutOfVocabularyError",
    "UnknownBenchmarkError",
]


class EvaluationError(BayesweError, ValueError):
    """Bad input to an evaluation function (shapes, vocabulary, vectors, options)."""


class UnknownBenchmarkError(EvaluationError):
    """A benchmark name that bayeswe does not know (the message lists the known ones)."""


class BenchmarkUnavailableError(BayesweError, ImportError):
    """A known benchmark whose optional source package is not installed.

    The message names the ``pip install`` command that provides it; bayeswe never
    downloads benchmark files from the internet.
    """


class BenchmarkFormatError(EvaluationError):
    """A benchmark file or table that cannot be parsed (the message names file and line)."""


class LowCoverageWarning(UserWarning):
    """Fewer than half of a benchmark's pairs or questions are in the vocabulary.

    The score is then computed on a minority of the benchmark (often its most frequent
    words) and is not comparable with published numbers on the whole benchmark.
    """


def warn_low_coverage(n_covered: int, n_total: int, what: str, name: str) -> None:
    """Warn (:class:`LowCoverageWarning`) when ``n_covered < n_total / 2``."""
    if 2 * n_covered < n_total:
        warnings.warn(
            f"only {n_covered} of the {n_total} {what} of {name!r} ({n_covered / n_total:.0%}) "
            "are covered by the vocabulary; the score describes that part only",
            LowCoverageWarning,
            stacklevel=4,
        )


class OutOfVocabularyError(EvaluationError):
    """A word asked about is not in the embedding's vocabulary."""
