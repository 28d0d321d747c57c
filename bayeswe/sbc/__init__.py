"""Simulation-based calibration (SBC) of every sampler of bayeswe.

``bayeswe sbc SAMPLER`` (or :func:`run_sbc`) simulates parameters and data from a
small model's prior, runs the sampler, ranks the true value of each statistic among
its draws, and tests the ranks for uniformity (Talts et al. 2018). The cases are in
:mod:`bayeswe.sbc.cases`; the test and its power in :mod:`bayeswe.sbc.core`.
"""

from bayeswe.sbc.cases import CASES, SBCCase, case_names, replicate
from bayeswe.sbc.core import UniformityTest, power, rank_of, uniformity_test
from bayeswe.sbc.run import SBCResult, run_sbc, write_sbc

__all__ = [
    "CASES",
    "SBCCase",
    "SBCResult",
    "UniformityTest",
    "case_names",
    "power",
    "rank_of",
    "replicate",
    "run_sbc",
    "uniformity_test",
    "write_sbc",
]
