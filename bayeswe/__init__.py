"""bayeswe: Bayesian word embeddings with Stan and friends."""

from bayeswe.fit import fit

__version__ = "0.1.0"

__all__ = ["__version__", "fit"]
