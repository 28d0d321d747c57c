"""Latent Dirichlet allocation: data, samplers, alignment and evaluation."""

from bayeswe.lda import models  # registers the "lda" and "lda_users_guide" Stan models
from bayeswe.lda.data import LDAData, LDADataError

__all__ = ["LDAData", "LDADataError", "models"]
