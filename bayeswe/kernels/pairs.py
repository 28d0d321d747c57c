"""Kernels of SGNS pair extraction: window keys, run-length counts, sorted merges.

A (target, context) pair of word ids ``(w, v)`` is encoded as the int64 key
``w * V + v``, so sorting keys sorts pairs by ``(target, context)`` — the order
:class:`bayeswe.sgns.SGNSData` stores them in. Counting is sort-based: each chunk
of keys is sorted (NumPy), run-length encoded here, and merged into the running
sorted, unique key/count arrays; memory is bounded by the chunk size plus the
number of unique pairs, never by the number of observations.

All kernels are serial and deterministic (no random numbers).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["merge_counts", "merge_pos_neg", "run_length", "window_pair_keys"]


@njit(cache=True)
def window_pair_keys(
    tokens: np.ndarray,
    doc_ptr: np.ndarray,
    first_doc: int,
    c_lo: int,
    c_hi: int,
    window: int,
    V: int,
    out: np.ndarray,
) -> int:
    """Write the keys of the positive pairs of centres ``c_lo..c_hi-1`` into ``out``.

    The context of the token at ``i`` is every token at ``j != i`` with
    ``|i - j| <= window`` in the same document (eq. (4) of Yrjänäinen et al.);
    windows never cross document boundaries. ``first_doc`` is the document that
    contains ``c_lo``. Returns the number of keys written (``out`` must hold
    ``2 * window * (c_hi - c_lo)`` or, if ``window`` exceeds every document,
    the exact count).
    """
    k = 0
    d = first_doc
    for i in range(c_lo, c_hi):
        while doc_ptr[d + 1] <= i:
            d += 1
        lo = max(doc_ptr[d], i - window)
        hi = min(doc_ptr[d + 1], i + window + 1)
        base = np.int64(tokens[i]) * V
        for j in range(lo, hi):
            if j != i:
                out[k] = base + tokens[j]
                k += 1
    return k


@njit(cache=True)
def run_length(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique keys of a sorted array and how often each occurs (int64 both)."""
    n = sorted_keys.shape[0]
    keys = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    m = -1
    for i in range(n):
        if m >= 0 and sorted_keys[i] == keys[m]:
            counts[m] += 1
        else:
            m += 1
            keys[m] = sorted_keys[i]
            counts[m] = 1
    return keys[: m + 1].copy(), counts[: m + 1].copy()


@njit(cache=True)
def merge_counts(
    k1: np.ndarray, c1: np.ndarray, k2: np.ndarray, c2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Merge two sorted unique key arrays, adding the counts of keys in both."""
    n1, n2 = k1.shape[0], k2.shape[0]
    keys = np.empty(n1 + n2, dtype=np.int64)
    counts = np.empty(n1 + n2, dtype=np.int64)
    i = j = m = 0
    while i < n1 or j < n2:
        if j >= n2 or (i < n1 and k1[i] < k2[j]):
            keys[m] = k1[i]
            counts[m] = c1[i]
            i += 1
        elif i >= n1 or k2[j] < k1[i]:
            keys[m] = k2[j]
            counts[m] = c2[j]
            j += 1
        else:
            keys[m] = k1[i]
            counts[m] = c1[i] + c2[j]
            i += 1
            j += 1
        m += 1
    return keys[:m].copy(), counts[:m].copy()


@njit(cache=True)
def merge_pos_neg(
    kp: np.ndarray, cp: np.ndarray, kn: np.ndarray, cn: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Union of positive and negative key counts: ``(keys, n, n_pos)`` with ``n = pos + neg``."""
    n1, n2 = kp.shape[0], kn.shape[0]
    keys = np.empty(n1 + n2, dtype=np.int64)
    total = np.empty(n1 + n2, dtype=np.int64)
    pos = np.empty(n1 + n2, dtype=np.int64)
    i = j = m = 0
    while i < n1 or j < n2:
        if j >= n2 or (i < n1 and kp[i] < kn[j]):
            keys[m] = kp[i]
            total[m] = cp[i]
            pos[m] = cp[i]
            i += 1
        elif i >= n1 or kn[j] < kp[i]:
            keys[m] = kn[j]
            total[m] = cn[j]
            pos[m] = 0
            j += 1
        else:
            keys[m] = kp[i]
            total[m] = cp[i] + cn[j]
            pos[m] = cp[i]
            i += 1
            j += 1
        m += 1
    return keys[:m].copy(), total[:m].copy(), pos[:m].copy()
