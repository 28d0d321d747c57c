"""The array groups the HDP-LDA kernels take (:mod:`bayeswe.kernels.hdp_lda`).

Named tuples of typed arrays, as :mod:`bayeswe.kernels.glda.structs`: the kernels read
their fields into locals before the token loop. ``C`` is the capacity (topic slots),
which the sampler grows by doubling.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Corpus", "Counts", "Topics", "WordLists"]


class Corpus(NamedTuple):
    """The tokens, sorted by document (never written by a kernel)."""

    tok_ptr: np.ndarray  #: int64 (D + 1,): token range of each document
    word: np.ndarray  #: int32 (N,): word of each token


class Counts(NamedTuple):
    """The topic of every token and the counts it implies."""

    z: np.ndarray  #: int32 (N,): topic slot of each token
    n_dk: np.ndarray  #: int32 (D, C)
    n_wk: np.ndarray  #: int32 (V, C)
    n_k: np.ndarray  #: int64 (C,)


class WordLists(NamedTuple):
    """Per word, the slots with ``n_wk > 0`` (:mod:`bayeswe.kernels.topic_lists` layout)."""

    topic: np.ndarray  #: int32 (V, C)
    pos: np.ndarray  #: int32 (V, C)
    length: np.ndarray  #: int32 (V,)


class Topics(NamedTuple):
    """Top-level weights and the free slots."""

    beta: np.ndarray  #: float64 (C,): weight of each represented slot, 0 for a free one
    rest: np.ndarray  #: float64 (1,): beta_u, the weight of all unrepresented topics
    free: np.ndarray  #: int32 (C,): free slots, a stack ``free[:n_free[0]]``
    n_free: np.ndarray  #: int64 (1,)
