"""The array groups the HDP-LDA kernels take (:mod:`bayeswe.kernels.hdp_lda`).

Named tuples of typed arrays, as :mod:`bayeswe.kernels.glda.structs`: the kernels read
their fields into locals before the token loop. ``C`` is the capacity (topic slots),
which the sampler grows by doubling.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["AliasTable", "Corpus", "Counts", "DocLists", "Topics", "WordLists", "WordOrder"]


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


class WordOrder(NamedTuple):
    """The tokens grouped by word, for the alias kernels' scan by word."""

    word_ptr: np.ndarray  #: int64 (V + 1,): places of each word's tokens in ``token``
    token: np.ndarray  #: int64 (N,): token indices, by word, in corpus order within a word
    doc: np.ndarray  #: int32 (N,): document of each token (by token index)


class DocLists(NamedTuple):
    """Per document, the slots with ``n_dk > 0`` (:mod:`bayeswe.kernels.topic_lists` layout)
    and their counts beside them, so that a document's term reads two short rows."""

    topic: np.ndarray  #: int32 (D, C)
    pos: np.ndarray  #: int32 (D, C)
    length: np.ndarray  #: int32 (D,)
    count: np.ndarray  #: int32 (D, C): ``count[d, j] = n_dk[d, topic[d, j]]``


class AliasTable(NamedTuple):
    """One word's alias table and the topics whose word term moved since it was built."""

    weight: np.ndarray  #: float64 (C,): word term ``t_k`` of each slot at the build
    prob: np.ndarray  #: float64 (C,): Vose's keep probabilities
    alias: np.ndarray  #: int32 (C,): Vose's aliases
    current: np.ndarray  #: float64 (C,): current word term ``c_k`` of a touched slot
    touched: np.ndarray  #: bool (C,): slot in ``M``
    members: np.ndarray  #: int32 (C,): ``M`` as a list, ``members[:n_members[0]]``
    sums: np.ndarray  #: float64 (3,): total ``T``, deficit, excess
    n_members: np.ndarray  #: int64 (1,)
    work: np.ndarray  #: int32 (2 C,): scratch of the build
