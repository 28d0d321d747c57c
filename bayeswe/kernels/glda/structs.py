"""The array groups that the Gaussian LDA kernels take: named tuples of typed arrays.

Arrays that travel together are passed as one Numba-compatible named tuple. Named
tuples cost nothing per sweep once a kernel reads the fields it needs in its token loop
into locals before the loop (the kernels do); reading a field inside the loop costs an
atomic reference-count pair per read, and so do structrefs and jitclasses, which in
addition are not cacheable (jitclass) or need a proxy class per type (structref). See
``tests/glda/test_glda_kernels.py`` for the measured variants.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = [
    "AliasOptions",
    "AliasTables",
    "Corpus",
    "Densities",
    "DensityCache",
    "PrecisionCache",
    "Prior",
    "TopicLists",
    "TopicMinor",
    "TopicSums",
    "Topics",
    "WordGroups",
]


class Corpus(NamedTuple):
    """The tokens and what the sampler conditions on (never written by a kernel)."""

    tok_doc: np.ndarray  #: int32 (N,): document of each token
    tok_word: np.ndarray  #: int32 (N,): word type of each token
    emb: np.ndarray  #: float64 (V, D): vector of each word type
    alpha: np.ndarray  #: float64 (K,): Dirichlet concentration of theta_d


class Prior(NamedTuple):
    """The Normal-inverse-Wishart prior of every topic (eq. 2)."""

    mu0: np.ndarray  #: (D,)
    kappa0: float
    nu0: float
    Psi0: np.ndarray  #: (D, D)


class Topics(NamedTuple):
    """Each topic's posterior NIW parameters (eq. 2) and the constants of its t density
    (eq. 1), kept in step by every move (:func:`.common.topic_move`)."""

    mu: np.ndarray  #: (K, D) posterior means
    R: np.ndarray  #: (K, D, D) upper Cholesky factors of Psi_k (Psi_k = R_k' R_k)
    invd: np.ndarray  #: (K, D) 1 / diag(R_k)
    logdet: np.ndarray  #: (K,) log|Psi_k|
    kappa_k: np.ndarray  #: (K,) kappa0 + n_k
    nu_k: np.ndarray  #: (K,) nu0 + n_k
    tconst: np.ndarray  #: (K,) log t(x | k) = tconst[k] - texp[k] log1p(tscale[k] q)
    tscale: np.ndarray  #: (K,) (q the Mahalanobis distance of x under Psi_k)
    texp: np.ndarray  #: (K,)


class TopicSums(NamedTuple):
    """Each topic's sufficient statistics (the naive baseline's whole topic state)."""

    counts: np.ndarray  #: int64 (K,) tokens per topic
    sums: np.ndarray  #: (K, D) sum of the topic's vectors
    scatter: np.ndarray  #: (K, D, D) sum of x x' over the topic's vectors (lower triangle)


class PrecisionCache(NamedTuple):
    """The precision cache of :mod:`.precision` (``density="precision"``); empty arrays
    of the same types for the kernels run with forward substitutions."""

    P: np.ndarray  #: (K, D, D) Psi_k^{-1}
    Pp: np.ndarray  #: (K, D(D+1)/2) upper triangle packed, off-diagonals doubled
    Pmu: np.ndarray  #: (K, D) P_k mu_k
    muPmu: np.ndarray  #: (K,) mu_k' P_k mu_k
    moves: np.ndarray  #: int64 (K,) moves since the last refresh from the factor
    W: np.ndarray  #: (D, D) scratch
    xx: np.ndarray  #: (D(D+1)/2,) scratch: the packed outer product of a vector


class TopicMinor(NamedTuple):
    """Topic-minor copies of the factors (``density="solve"``, :func:`.cgs.topic_minor`):
    ``RT[j, i, k] = R[k, j, i]``, so the K forward substitutions run as one SIMD loop."""

    muT: np.ndarray  #: (D, K)
    RT: np.ndarray  #: (D, D, K)
    invdT: np.ndarray  #: (D, K)
    Y: np.ndarray  #: (D, K) scratch


class TopicLists(NamedTuple):
    """Each row's topics with a non-zero count (:mod:`bayeswe.kernels.topic_lists`)."""

    top: np.ndarray  #: int32 (rows, K): the topics, first ``length[r]`` valid
    pos: np.ndarray  #: int32 (rows, K): position of each topic in ``top``
    length: np.ndarray  #: int32 (rows,)


class AliasTables(NamedTuple):
    """Alias-MH's per-word proposal tables (``_build_alias``), one row per word type."""

    logw: np.ndarray  #: (V, K) log alpha_k t~(v_w | k), the stale language-model term
    logq: np.ndarray  #: (V,) log of the table's mass
    lin: np.ndarray  #: (V, K) t~(v_w | k) / mass: the stale density in linear scale
    prob: np.ndarray  #: (V, K) Vose probabilities, or cumulative sums (scan by word)
    idx: np.ndarray  #: int32 (V, K) Vose aliases (unused by the scan by word)
    uses: np.ndarray  #: int64 (V,) draws since the last build, -1 = not built


class WordGroups(NamedTuple):
    """The tokens grouped by word type, for the word-type block moves of :mod:`.blocks`
    and the alias scan by word."""

    order: np.ndarray  #: int64 (N,): token indices sorted by word type
    start: np.ndarray  #: int64 (V + 1,): word w's tokens are order[start[w]:start[w + 1]]
    kappa0: float  #: the prior's kappa
    lg_nu: np.ndarray  #: (N + 1,) :func:`.blocks.nu_lgamma_table` (may be empty if unused)


class DensityCache(NamedTuple):
    """Alias-MH's per-topic densities at the current word's vector, with their keys.

    ``dens[0, k]``: log t(v_w | k) of word ``keys[0, k]`` at topic version
    ``keys[1, k]``; ``dens[1, k]``: the same without one of the word's tokens, for word
    ``keys[2, k]`` at version ``keys[3, k]``; ``keys[4, k]``: topic ``k``'s current
    version, bumped by every move of a token into or out of it. An entry is valid when
    its word is the current one and its version the current version.
    """

    dens: np.ndarray  #: float64 (2, K)
    keys: np.ndarray  #: int64 (5, K)


class Densities(NamedTuple):
    """How the kernels evaluate eq. (1): the topics, and their precision cache when
    ``precision`` (else the cache's arrays are not touched and may be empty)."""

    topics: Topics
    cache: PrecisionCache
    precision: bool


class AliasOptions(NamedTuple):
    """The alias-MH settings of a sweep (:class:`.gaussian_lda.GLDAGibbsArgs`)."""

    mh_steps: int  #: MH steps per token
    fresh_doc: bool  #: the document term with fresh densities (else the table's)
    rebuild_every: int  #: corpus order: a table is rebuilt after this many uses
