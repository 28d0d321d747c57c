"""Gaussian LDA (Das, Zaheer & Dyer 2015): data, collapsed samplers, held-out inference."""

from bayeswe.glda.data import (
    GaussianLDAData,
    GaussianLDADataError,
    glove_words,
    load_glove,
    restrict_corpus,
    restrict_to_glove,
)
from bayeswe.glda.models import GAUSSIAN_LDA  # registers the "gaussian_lda" Stan model

__all__ = [
    "GAUSSIAN_LDA",
    "GaussianLDAData",
    "GaussianLDADataError",
    "glove_words",
    "load_glove",
    "restrict_corpus",
    "restrict_to_glove",
]
