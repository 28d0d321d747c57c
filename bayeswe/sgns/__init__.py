"""Probabilistic skip-gram with negative sampling (SGNS) with honest uncertainty.

Yrjänäinen, Boström, Magnusson and Jonasson, "Posterior Sampling of Probabilistic
Word Embeddings": the aggregated SGNS likelihood (eq. (5)) with a Gaussian prior,
identified by fixing ``K`` context vectors (section 2), simulated data (section
4.1) and rotation-invariant metrics (eqs. (11)-(12)).

Importing this package registers the Stan models ``"sgns"`` and ``"sgns_identified"``
with :func:`bayeswe.fit`.
"""

from bayeswe.sgns.data import SGNSData, default_vocabulary
from bayeswe.sgns.errors import IdentificationError, SGNSDataError
from bayeswe.sgns.fitting import default_identification, find_anchors, fit_sgns
from bayeswe.sgns.gauge import svd_gauge, to_gauge
from bayeswe.sgns.identify import (
    Anchors,
    check_anchors,
    check_anchors_in_data,
    choose_anchor_words,
    identify_draws,
    identify_transform,
    word_counts,
)
from bayeswe.sgns.metrics import (
    cooccurrence_probability,
    cosine_similarity,
    draws_of,
    interval_coverage,
    log_likelihood,
    mean_log_likelihood,
    mean_log_predictive,
    posterior_cosine_similarity,
    rmse_co,
)
from bayeswe.sgns.models import SGNS, SGNS_IDENTIFIED
from bayeswe.sgns.simulate import SimulatedSGNS, simulate_sgns

__all__ = [
    "SGNS",
    "SGNS_IDENTIFIED",
    "Anchors",
    "IdentificationError",
    "SGNSData",
    "SGNSDataError",
    "SimulatedSGNS",
    "check_anchors",
    "check_anchors_in_data",
    "choose_anchor_words",
    "cooccurrence_probability",
    "cosine_similarity",
    "default_vocabulary",
    "draws_of",
    "find_anchors",
    "default_identification",
    "fit_sgns",
    "svd_gauge",
    "to_gauge",
    "identify_draws",
    "identify_transform",
    "interval_coverage",
    "log_likelihood",
    "mean_log_likelihood",
    "mean_log_predictive",
    "posterior_cosine_similarity",
    "rmse_co",
    "simulate_sgns",
    "word_counts",
]
