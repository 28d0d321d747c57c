"""Typed errors of :mod:`bayeswe.evaluation`."""

from __future__ import annotations

from bayeswe.errors import BayesweError

__all__ = [
    "BenchmarkFormatError",
    "BenchmarkUnavailableError",
    "EvaluationError",
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


class OutOfVocabularyError(EvaluationError):
    """A word asked about is not in the embedding's vocabulary."""
