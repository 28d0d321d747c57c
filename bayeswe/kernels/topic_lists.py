"""Per-row lists of the topics with a non-zero count, kept in step in O(1) per move.

A sparse sampler visits only the topics a word (or a document) holds. For a count
matrix ``counts`` (rows × K) the list of row ``r`` is ``top[r, :length[r]]``
(unordered) and ``pos[r, k]`` is topic ``k``'s place in it, or -1 when
``counts[r, k] == 0``. Collapsed Gibbs for LDA keeps one list per word
(:mod:`bayeswe.kernels.lda_cgs`), alias-MH for Gaussian LDA one per document
(:mod:`bayeswe.kernels.glda.alias`); both use these helpers. Any integer dtypes
serve (int16 lists halve the memory traffic when ``K < 2**15``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["fill_topic_lists", "list_add", "list_remove"]


@njit(cache=True, nogil=True)
def fill_topic_lists(
    counts: np.ndarray, top: np.ndarray, pos: np.ndarray, length: np.ndarray
) -> None:
    """Set ``top``, ``pos`` and ``length`` to the topic lists of the rows of ``counts``."""
    n_rows, K = counts.shape
    for r in range(n_rows):
        m = 0
        for k in range(K):
            if counts[r, k] > 0:
                top[r, m] = k
                pos[r, k] = m
                m += 1
            else:
                pos[r, k] = -1
        length[r] = m


@njit(cache=True, inline="always")
def list_remove(r: int, k: int, top: np.ndarray, pos: np.ndarray, length: np.ndarray) -> None:
    """Topic ``k``'s count in row ``r`` fell to zero: swap it out of the row's list."""
    j = pos[r, k]
    m = length[r] - 1
    last = top[r, m]
    top[r, j] = last
    pos[r, last] = j
    pos[r, k] = -1
    length[r] = m


@njit(cache=True, inline="always")
def list_add(r: int, k: int, top: np.ndarray, pos: np.ndarray, length: np.ndarray) -> None:
    """Topic ``k`` got its first count in row ``r``: append it to the row's list."""
    m = length[r]
    top[r, m] = k
    pos[r, k] = m
    length[r] = m + 1
