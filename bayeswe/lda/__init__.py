"""Latent Dirichlet allocation: data, samplers, alignment and evaluation."""

from bayeswe.lda.data import LDAData, LDADataError

__all__ = ["LDAData", "LDADataError"]
