"""bayeswe: Bayesian word embeddings with Stan and friends."""

import warnings

# ArviZ 0.23 announces its coming refactor once a day on import, a multi-line notice
# about ArviZ, not about the user's run. bayeswe pins ArviZ < 0.24, so the notice is
# filtered here, before any bayeswe module imports ArviZ; other warnings pass.
warnings.filterwarnings(
    "ignore", message=r"\s*ArviZ is undergoing a major refactor", category=FutureWarning
)

# Importing the model packages registers their Stan models with bayeswe.fit.
import bayeswe.dp  # noqa: E402, F401
import bayeswe.glda  # noqa: E402, F401
import bayeswe.lda  # noqa: E402, F401
from bayeswe._version import __version__  # noqa: E402
from bayeswe.fit import fit  # noqa: E402
from bayeswe.sgns import SGNSData, fit_sgns, simulate_sgns  # noqa: E402

__all__ = ["SGNSData", "__version__", "fit", "fit_sgns", "simulate_sgns"]
