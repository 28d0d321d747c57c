"""Samplers written against flat arrays: a small state, a ``step`` and a multi-chain driver.

The hot loops live in :mod:`bayeswe.kernels`; each sampler here validates its
arguments, owns its random streams and returns :class:`arviz.InferenceData`
through :func:`bayeswe.inference_data.to_inference_data`.
"""

from bayeswe.samplers.pg_gibbs import (
    GibbsInfo,
    GibbsState,
    PGGibbsArgs,
    SGNSGibbsProblem,
    init_state,
    sample_pg_gibbs,
    step,
)

__all__ = [
    "GibbsInfo",
    "GibbsState",
    "PGGibbsArgs",
    "SGNSGibbsProblem",
    "init_state",
    "sample_pg_gibbs",
    "step",
]
