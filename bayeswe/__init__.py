"""bayeswe: Bayesian word embeddings with Stan and friends."""

import bayeswe.glda  # noqa: F401  (registers Gaussian LDA)
import bayeswe.lda  # registers LDA models  # noqa: F401
from bayeswe.fit import fit

# Importing the SGNS package registers the "sgns" and "sgns_identified" models.
from bayeswe.sgns import SGNSData, fit_sgns, simulate_sgns

__version__ = "0.1.0"

__all__ = ["SGNSData", "__version__", "fit", "fit_sgns", "simulate_sgns"]
