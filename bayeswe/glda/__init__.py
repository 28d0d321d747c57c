"""Gaussian LDA (Das, Zaheer & Dyer 2015): data, collapsed samplers, held-out inference."""

from bayeswe.glda.data import (
    GaussianLDAData,
    GaussianLDADataError,
    glove_words,
    load_glove,
    restrict_corpus,
    restrict_to_glove,
)
from bayeswe.glda.hdp_data import HDPGaussianLDAData
from bayeswe.glda.models import GAUSSIAN_LDA, fit_gaussian_lda  # registers "gaussian_lda"

__all__ = [
    "GAUSSIAN_LDA",
    "fit_gaussian_lda",
    "GaussianLDAData",
    "GaussianLDADataError",
    "HDPGaussianLDAData",
    "glove_words",
    "load_glove",
    "restrict_corpus",
    "restrict_to_glove",
]
