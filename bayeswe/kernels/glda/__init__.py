"""Numba kernels of the collapsed Gibbs samplers of Gaussian LDA (Das, Zaheer & Dyer 2015).

One module per sampler, on shared pieces:

* :mod:`.common`: the random stream, the Cholesky factor and its rank-1
  update/downdate, the posterior-predictive t density of eq. (1), the topic moves of
  eq. (4), the topic state from scratch, the categorical draw and the log joint (all
  samplers); its docstring sets out the notation and the maths;
* :mod:`.precision`: the precision cache, densities as dot products (``density=
  "precision"``, the default, of ``cgs`` and ``alias-mh``);
* :mod:`.cgs`: the exact collapsed Gibbs sweeps (``method="cgs"``);
* :mod:`.alias`: the alias-table Metropolis-Hastings sweeps (``method="alias-mh"``),
  by word and in corpus order;
* :mod:`.naive`: the O(D^3)-per-density baseline (benchmark and tests);
* :mod:`.heldout`: Gibbs over held-out documents with the topics fixed, and the
  document-completion log density of held-out tokens under one state.

Callers use the package namespace (``from bayeswe.kernels import glda as kern``;
``kern.sweep_cgs(...)``), which re-exports the kernels below.

No kernel allocates per token: work vectors are passed in (the ``cgs`` sweeps take
``work`` of ``3 * D + 2 * K`` floats; :mod:`.alias`'s sweeps ``3 * D + 7 * K``
floats and ``iwork`` of ``7 * K`` int64, as :func:`bayeswe.samplers.gaussian_lda.step`
allocates them).

The on-disk cache of these kernels is keyed by the source of the whole kernels package
(:mod:`bayeswe.kernels.cache`): editing :mod:`.common` or :mod:`.precision` recompiles the
sweeps of the other modules that inline or call them. With ``NUMBA_CACHE_DIR`` set,
Numba's own cache decides instead, and it checks only each function's own file.
"""

from __future__ import annotations

from bayeswe.kernels.glda.alias import sweep_alias_document, sweep_alias_word
from bayeswe.kernels.glda.cgs import sweep_cgs, sweep_cgs_precision, topic_minor
from bayeswe.kernels.glda.common import (
    _forward_sqnorm,  # noqa: F401 (private, for tests/glda/test_glda_kernels.py)
    _log_t_without,  # noqa: F401 (private, for tests/glda/test_glda_kernels.py)
    _log_t_without_copies,  # noqa: F401 (private, for tests/glda/test_glda_kernels.py)
    chol_factor,
    chol_rank1,
    init_topics,
    log_joint,
    log_t,
    rand_uniform,
    resync_topics,
    topic_logdets,
    topic_move,
)
from bayeswe.kernels.glda.heldout import completion_log_density, sweep_fixed
from bayeswe.kernels.glda.naive import sweep_naive
from bayeswe.kernels.glda.precision import (
    PRECISION_REFRESH,
    _one_topic_quad,  # noqa: F401 (private, for tests/glda/test_glda_kernels.py)
    all_topics_quad,
    precision_from_factor,
    topic_move_precision,
)

__all__ = [
    "PRECISION_REFRESH",
    "all_topics_quad",
    "chol_factor",
    "chol_rank1",
    "completion_log_density",
    "init_topics",
    "log_joint",
    "log_t",
    "precision_from_factor",
    "rand_uniform",
    "resync_topics",
    "sweep_alias_document",
    "sweep_alias_word",
    "sweep_cgs",
    "sweep_cgs_precision",
    "sweep_fixed",
    "sweep_naive",
    "topic_logdets",
    "topic_minor",
    "topic_move",
    "topic_move_precision",
]
