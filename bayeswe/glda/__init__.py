"""Gaussian LDA (Das, Zaheer & Dyer 2015): data, collapsed samplers, held-out inference."""

from bayeswe.glda.data import (
    GaussianLDAData,
    GaussianLDADataError,
    glove_words,
    load_glove,
    restrict_corpus,
    restrict_to_glove,
)

__all__ = [
    "GaussianLDAData",
    "GaussianLDADataError",
    "glove_words",
    "load_glove",
    "restrict_corpus",
    "restrict_to_glove",
]
