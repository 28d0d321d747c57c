"""Dirichlet-process models: DP mixtures of Gaussians and of multinomials, HDP-LDA.

Importing this package registers the Stan programs ``dp_mixture``, ``dp_multinomial`` and
``hdp_lda`` with
:func:`bayeswe.fit`.
"""

from bayeswe.dp import models  # registers "dp_mixture", "dp_multinomial" and "hdp_lda"
from bayeswe.dp.data import DPDataError, DPMixtureData, DPMultinomialData, HDPLDAData
from bayeswe.dp.inits import initial_values
from bayeswe.dp.predictive import log_pointwise_predictive, mixture_log_density
from bayeswe.dp.simulate import (
    SimulatedDPMixture,
    SimulatedDPMultinomial,
    SimulatedHDPLDA,
    simulate_dp_mixture,
    simulate_dp_multinomial,
    simulate_hdp_lda,
)
from bayeswe.dp.stick import StickMoments, stick_posterior_moments

__all__ = [
    "DPDataError",
    "DPMixtureData",
    "DPMultinomialData",
    "HDPLDAData",
    "SimulatedDPMixture",
    "SimulatedDPMultinomial",
    "SimulatedHDPLDA",
    "StickMoments",
    "initial_values",
    "log_pointwise_predictive",
    "mixture_log_density",
    "models",
    "simulate_dp_mixture",
    "simulate_dp_multinomial",
    "simulate_hdp_lda",
    "stick_posterior_moments",
]
