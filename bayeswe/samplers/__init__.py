"""Samplers written against flat arrays, all of one shape.

Each sampler module holds a problem object built from the model's data object, a
state, ``init_state(problem, seed, ...)``, a ``step(problem, state, ...)`` that
advances one chain by one sweep, and a ``sample_*`` driver that runs several chains
and returns :class:`arviz.InferenceData` with the names, dims and coords of the
model's Stan fits:

* :mod:`~.pg_gibbs`: ``sgns_identified`` with method ``pg-gibbs``, driver
  :func:`sample_pg_gibbs`;
* :mod:`~.lda_cgs`: ``lda`` with method ``cgs``, driver :func:`sample_cgs`;
* :mod:`~.gaussian_lda`: ``gaussian_lda`` with methods ``cgs`` and ``alias-mh``, driver
  :func:`sample_gaussian_lda`;
* :mod:`~.lda_vi`: ``lda`` with method ``cavi`` (an optimiser, not a sampler: draws
  from its variational ``q``), driver :func:`sample_cavi`.

The hot loops live in :mod:`bayeswe.kernels`; the modules here validate arguments,
own the random streams and label the output.
"""

from bayeswe.samplers.gaussian_lda import GLDAProblem, sample_gaussian_lda
from bayeswe.samplers.lda_cgs import CGSProblem, sample_cgs
from bayeswe.samplers.lda_vi import CAVIArgs, sample_cavi
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
    "CAVIArgs",
    "CGSProblem",
    "GLDAProblem",
    "GibbsInfo",
    "GibbsState",
    "PGGibbsArgs",
    "SGNSGibbsProblem",
    "init_state",
    "sample_cavi",
    "sample_cgs",
    "sample_gaussian_lda",
    "sample_pg_gibbs",
    "step",
]
