"""bayeswe's own samplers and approximations, on two protocols and two drivers.

Markov chains (:mod:`~.driver`): a sampler is a state holding everything its chain
needs (random streams included), ``init(chain) -> state`` and ``step(state) -> (state,
info)``; :func:`~.driver.run_chains` runs every one of them the same way (chains,
warm-up / kept / thin as cmdstanpy counts them, parallel chains, Numba threads,
progress, interrupts, checkpoint and resume, timing):

* :mod:`~.pg_gibbs`: ``sgns_identified`` and ``sgns`` with method ``pg-gibbs``
  (:func:`sample_pg_gibbs`);
* :mod:`~.lda_cgs`: ``lda`` with method ``cgs`` (:func:`sample_cgs`);
* :mod:`~.gaussian_lda`: ``gaussian_lda`` with methods ``cgs`` and ``alias-mh``
  (:func:`sample_gaussian_lda`);
* :mod:`~.dp_mixture`: ``dp_mixture`` with method ``cgs`` (:func:`sample_dp_mixture`).

Approximations (:mod:`~.variational`): ``init() -> state``, ``update(state) -> (state,
info)``, a convergence rule on the objective and ``draws`` from ``q``, run by
:func:`~.variational.run_variational` (``iter``, ``tol_rel_obj``, ``draws``; the
objective's trace in the ``optimization_trace`` group, dim ``iteration``):

* :mod:`~.lda_vi`: ``lda`` with methods ``cavi`` and ``svi``;
* :mod:`~.jj_vb`: ``sgns`` with methods ``jj-vb`` and ``jj-svi`` (mean-field VB through
  the Jaakkola-Jordan bound with ARD context vectors).

:mod:`~.laplace_sparse` (``sgns_identified``, method ``laplace-sparse``: a Gaussian at
the mode with the exact Hessian assembled sparse) returns the layout of Stan's
``laplace``; its mode can come from :mod:`~.sgns_map` (L-BFGS-B on a Numba gradient)
where Stan's optimizer does not fit in memory.

Every one returns :class:`arviz.InferenceData` built by
:func:`bayeswe.inference_data.to_inference_data`, with the names, dims and coords of the
model's Stan fits. The hot loops live in :mod:`bayeswe.kernels`.
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
