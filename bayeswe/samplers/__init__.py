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
* :mod:`~.lda_vi`: ``lda`` with methods ``cavi`` and ``svi`` (optimisers, not samplers:
  draws from their variational ``q``), drivers :func:`sample_cavi` and ``sample_svi``;
* :mod:`~.jj_vb`: ``sgns`` with methods ``jj-vb`` and ``jj-svi`` (mean-field VB through
  the Jaakkola-Jordan bound with ARD context vectors; draws from ``q``), drivers
  :func:`sample_jj_vb` and ``sample_jj_svi``;
* :mod:`~.laplace_sparse`: ``sgns_identified`` with method ``laplace-sparse`` (a
  Gaussian at the mode with the exact Hessian assembled sparse), driver
  :func:`sample_laplace_sparse`; its mode can come from :mod:`~.sgns_map`
  (L-BFGS-B on a Numba gradient) where Stan's optimizer does not fit in memory.

The hot loops live in :mod:`bayeswe.kernels`; the modules here validate arguments,
own the random streams and label the output.
"""

from bayeswe.samplers.gaussian_lda import GLDAProblem, sample_gaussian_lda
from bayeswe.samplers.jj_vb import JJSVIArgs, JJVBArgs, sample_jj_svi, sample_jj_vb
from bayeswe.samplers.laplace_sparse import LaplaceSparseArgs, sample_laplace_sparse
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
    "JJSVIArgs",
    "JJVBArgs",
    "LaplaceSparseArgs",
    "PGGibbsArgs",
    "SGNSGibbsProblem",
    "init_state",
    "sample_cavi",
    "sample_cgs",
    "sample_gaussian_lda",
    "sample_jj_svi",
    "sample_jj_vb",
    "sample_laplace_sparse",
    "sample_pg_gibbs",
    "step",
]
