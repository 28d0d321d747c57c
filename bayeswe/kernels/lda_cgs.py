"""Kernels of the collapsed Gibbs sampler for LDA (Griffiths and Steyvers, 2004).

With ``theta`` and ``phi`` integrated out, the topic of token ``i`` (document
``d``, word ``w``) given all other assignments has the conditional of the 004 seed
(Gimpel, lecture 15, "Collapsed Gibbs Sampling for LDA"), with an asymmetric
document prior ``alpha_k``::

    p(z_i = k | z_-i, w) ∝ (n_dk + alpha_k) (n_wk + beta) / (n_k + V beta)      (1)

where the counts exclude token ``i``. Two exact samplers of (1):

* :func:`sweep_dense` computes all ``K`` terms of (1) per token (O(K)).
* :func:`sweep_sparse` uses SparseLDA's bucket decomposition (Yao, Mimno and
  McCallum, KDD 2009, eq. 2)::

      (1) = alpha_k beta / (n_k + V beta)            s: smoothing bucket
          + n_dk beta / (n_k + V beta)               r: document bucket, n_dk > 0
          + (alpha_k + n_dk) n_wk / (n_k + V beta)   q: word bucket, n_wk > 0

  ``s`` and ``r`` are kept up to date in O(1) per token, ``q`` is summed over the
  topics present in word ``w`` only, so the cost per token is O(K_w + K_d) for the
  rare r/s draws and O(K_w) otherwise, not O(K).

Layout (all C-contiguous): tokens sorted by document, ``tok_ptr`` (int64,
``D + 1``) delimiting each document's tokens; ``word`` and ``z`` int32 per token;
``n_dk`` int32 ``(D, K)``; ``n_wk`` int32 ``(V, K)`` (a word's topic counts are one
row: the token loop reads them together); ``n_k`` int64 ``(K,)``; ``alpha``
float64 ``(K,)``. The sparse sampler also keeps, per word, the list of its topics
with a non-zero count: ``wl_topic[w, :wl_len[w]]`` (``(V, K)``, unordered) and
``wl_pos[w, k]`` the position of topic ``k`` in it or -1 (``(V, K)``); both int16
when ``K < 2**15`` (less memory traffic), else int32.

Random numbers come from a xoshiro256+ generator whose 4-word state (uint64) is an
argument, one per chain (Blackman and Vigna, 2018); tokens are visited in a fixed
order, so a sweep is a deterministic function of its inputs whatever the number of
threads that run other chains.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bayeswe.kernels.topic_lists import fill_topic_lists, list_add, list_remove

__all__ = [
    "build_word_lists",
    "counts_from_assignments",
    "fold_in",
    "init_assignments",
    "init_sequential",
    "log_joint",
    "next_double",
    "sweep_dense",
    "sweep_sparse",
]

_TO_DOUBLE = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, inline="always")
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def next_double(state: np.ndarray) -> float:
    """Next uniform in [0, 1) from a xoshiro256+ state (uint64[4]), updated in place."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = s0 + s3
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return float(result >> np.uint64(11)) * _TO_DOUBLE


@njit(cache=True, nogil=True)
def init_assignments(z: np.ndarray, n_topics: int, state: np.ndarray) -> None:
    """Fill ``z`` with topics drawn uniformly from ``0..K-1``."""
    for i in range(z.size):
        k = int(next_double(state) * n_topics)
        z[i] = min(k, n_topics - 1)


@njit(cache=True, nogil=True)
def init_sequential(
    tok_ptr: np.ndarray,
    word: np.ndarray,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    n_k: np.ndarray,
    alpha: np.ndarray,
    beta: float,
    state: np.ndarray,
) -> None:
    """Assign tokens one at a time from (1) given the tokens assigned before them.

    Starts from zero counts and adds every token with a topic drawn from the
    collapsed conditional of the counts so far (one O(K) pass). The start is
    far sparser than uniform assignments, so the first sparse sweeps are cheap.
    """
    K = n_k.size
    vbeta = n_wk.shape[0] * beta
    n_dk[:] = 0
    n_wk[:] = 0
    n_k[:] = 0
    cum = np.empty(K)
    for d in range(tok_ptr.size - 1):
        for i in range(tok_ptr[d], tok_ptr[d + 1]):
            w = word[i]
            total = 0.0
            for j in range(K):
                total += (n_dk[d, j] + alpha[j]) * (n_wk[w, j] + beta) / (n_k[j] + vbeta)
                cum[j] = total
            u = next_double(state) * total
            k = 0
            while k < K - 1 and cum[k] <= u:
                k += 1
            z[i] = k
            n_dk[d, k] += 1
            n_wk[w, k] += 1
            n_k[k] += 1


@njit(cache=True, nogil=True)
def counts_from_assignments(
    tok_ptr: np.ndarray,
    word: np.ndarray,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    n_k: np.ndarray,
) -> None:
    """Set ``n_dk``, ``n_wk``, ``n_k`` to the counts of the assignments ``z``."""
    n_dk[:] = 0
    n_wk[:] = 0
    n_k[:] = 0
    for d in range(tok_ptr.size - 1):
        for i in range(tok_ptr[d], tok_ptr[d + 1]):
            k = z[i]
            n_dk[d, k] += 1
            n_wk[word[i], k] += 1
            n_k[k] += 1


@njit(cache=True, nogil=True)
def build_word_lists(n_wk: np.ndarray, wl_topic: np.ndarray, wl_pos: np.ndarray) -> np.ndarray:
    """Lists of the topics with ``n_wk > 0`` per word; returns their lengths (int32 ``(V,)``)."""
    wl_len = np.zeros(n_wk.shape[0], dtype=np.int32)
    fill_topic_lists(n_wk, wl_topic, wl_pos, wl_len)
    return wl_len


@njit(cache=True, nogil=True)
def sweep_dense(
    tok_ptr: np.ndarray,
    word: np.ndarray,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    n_k: np.ndarray,
    alpha: np.ndarray,
    beta: float,
    state: np.ndarray,
) -> None:
    """One systematic-scan sweep of (1) over all tokens, O(K) per token."""
    K = n_k.size
    vbeta = n_wk.shape[0] * beta
    inv = np.empty(K)
    for k in range(K):
        inv[k] = 1.0 / (n_k[k] + vbeta)
    cum = np.empty(K)
    for d in range(tok_ptr.size - 1):
        for i in range(tok_ptr[d], tok_ptr[d + 1]):
            w = word[i]
            k = z[i]
            n_dk[d, k] -= 1
            n_wk[w, k] -= 1
            n_k[k] -= 1
            inv[k] = 1.0 / (n_k[k] + vbeta)
            total = 0.0
            for j in range(K):
                total += (n_dk[d, j] + alpha[j]) * (n_wk[w, j] + beta) * inv[j]
                cum[j] = total
            u = next_double(state) * total
            k = 0
            while k < K - 1 and cum[k] <= u:
                k += 1
            z[i] = k
            n_dk[d, k] += 1
            n_wk[w, k] += 1
            n_k[k] += 1
            inv[k] = 1.0 / (n_k[k] + vbeta)


@njit(cache=True, nogil=True)
def sweep_sparse(
    tok_ptr: np.ndarray,
    word: np.ndarray,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    n_k: np.ndarray,
    alpha: np.ndarray,
    beta: float,
    state: np.ndarray,
    wl_topic: np.ndarray,
    wl_pos: np.ndarray,
    wl_len: np.ndarray,
) -> None:
    """One sweep of (1) with SparseLDA's s/r/q buckets; same target as :func:`sweep_dense`.

    ``s`` is recomputed at the start of the sweep and ``r`` at the start of each
    document, so rounding drift of their O(1) updates cannot accumulate.
    """
    K = n_k.size
    vbeta = n_wk.shape[0] * beta
    coef = np.empty(K)  # (alpha_k + n_dk) / (n_k + V beta) for the current document
    inv = np.empty(K)
    qcum = np.empty(K)
    # Topics with n_dk > 0 in the current document: one row of the topic_lists layout.
    dl_topic = np.empty((1, K), dtype=np.int32)
    dl_pos = np.empty((1, K), dtype=np.int32)
    dl_len = np.zeros(1, dtype=np.int64)
    s = 0.0
    for k in range(K):
        inv[k] = 1.0 / (n_k[k] + vbeta)
        s += alpha[k] * beta * inv[k]
    for d in range(tok_ptr.size - 1):
        fill_topic_lists(n_dk[d : d + 1], dl_topic, dl_pos, dl_len)
        r = 0.0
        for k in range(K):
            c = n_dk[d, k]
            r += c * beta * inv[k]
            coef[k] = (alpha[k] + c) * inv[k]
        for i in range(tok_ptr[d], tok_ptr[d + 1]):
            w = word[i]
            k = z[i]
            # ---- remove token i from the counts and the buckets
            s -= alpha[k] * beta * inv[k]
            r -= n_dk[d, k] * beta * inv[k]
            n_dk[d, k] -= 1
            n_wk[w, k] -= 1
            n_k[k] -= 1
            inv[k] = 1.0 / (n_k[k] + vbeta)
            s += alpha[k] * beta * inv[k]
            r += n_dk[d, k] * beta * inv[k]
            coef[k] = (alpha[k] + n_dk[d, k]) * inv[k]
            if n_dk[d, k] == 0:
                list_remove(0, k, dl_topic, dl_pos, dl_len)
            if n_wk[w, k] == 0:
                list_remove(w, k, wl_topic, wl_pos, wl_len)
            # ---- word bucket q over the topics of word w
            q = 0.0
            m = wl_len[w]
            for j in range(m):
                t = wl_topic[w, j]
                q += coef[t] * n_wk[w, t]
                qcum[j] = q
            u = next_double(state) * (s + r + q)
            if u < q:
                j = 0
                while j < m - 1 and qcum[j] <= u:
                    j += 1
                k = wl_topic[w, j]
            elif dl_len[0] > 0 and u < q + r:
                u -= q
                acc = 0.0
                k = dl_topic[0, dl_len[0] - 1]
                for j in range(dl_len[0]):
                    t = dl_topic[0, j]
                    acc += n_dk[d, t] * beta * inv[t]
                    if u < acc:
                        k = t
                        break
            else:
                u -= q + r
                acc = 0.0
                k = K - 1
                for t in range(K):
                    acc += alpha[t] * beta * inv[t]
                    if u < acc:
                        k = t
                        break
            # ---- add token i with topic k
            z[i] = k
            s -= alpha[k] * beta * inv[k]
            r -= n_dk[d, k] * beta * inv[k]
            n_dk[d, k] += 1
            n_wk[w, k] += 1
            n_k[k] += 1
            inv[k] = 1.0 / (n_k[k] + vbeta)
            s += alpha[k] * beta * inv[k]
            r += n_dk[d, k] * beta * inv[k]
            coef[k] = (alpha[k] + n_dk[d, k]) * inv[k]
            if n_dk[d, k] == 1:
                list_add(0, k, dl_topic, dl_pos, dl_len)
            if n_wk[w, k] == 1:
                list_add(w, k, wl_topic, wl_pos, wl_len)


@njit(cache=True, nogil=True)
def log_joint(
    n_dk: np.ndarray, n_wk: np.ndarray, n_k: np.ndarray, alpha: np.ndarray, beta: float
) -> float:
    """Collapsed log joint ``log p(w, z | alpha, beta)`` (Griffiths and Steyvers, eqs. 2-3).

    ``sum_k [lgamma(V b) - V lgamma(b) + sum_w lgamma(n_wk + b) - lgamma(n_k + V b)]
    + sum_d [lgamma(A) - sum_k lgamma(a_k) + sum_k lgamma(n_dk + a_k) - lgamma(N_d + A)]``
    with ``A = sum_k a_k``. Zero counts contribute ``lgamma(b)`` or ``lgamma(a_k)``
    and cancel the normalizers, so only non-zero counts are visited with ``lgamma``.
    """
    D, K = n_dk.shape
    V = n_wk.shape[0]
    vbeta = V * beta
    lg_beta = math.lgamma(beta)
    total = K * math.lgamma(vbeta)
    for k in range(K):
        total -= math.lgamma(n_k[k] + vbeta)
    for w in range(V):
        for k in range(K):
            c = n_wk[w, k]
            if c > 0:
                total += math.lgamma(c + beta) - lg_beta
    a_sum = 0.0
    lg_alpha = np.empty(K)
    for k in range(K):
        a_sum += alpha[k]
        lg_alpha[k] = math.lgamma(alpha[k])
    lg_a_sum = math.lgamma(a_sum)
    for d in range(D):
        n_d = 0
        for k in range(K):
            c = n_dk[d, k]
            if c > 0:
                n_d += c
                total += math.lgamma(c + alpha[k]) - lg_alpha[k]
        total += lg_a_sum - math.lgamma(n_d + a_sum)
    return total


@njit(cache=True, nogil=True)
def fold_in(
    tok_ptr: np.ndarray,
    word: np.ndarray,
    phi_wk: np.ndarray,
    alpha: np.ndarray,
    iter_warmup: int,
    iter_sampling: int,
    state: np.ndarray,
) -> np.ndarray:
    """Posterior mean of each document's ``theta_d`` given fixed topics, by Gibbs.

    With ``phi`` fixed, ``theta_d`` integrated out, the topic of token ``i`` has
    conditional ``p(z_i = k) ∝ (n_dk + alpha_k) phi_{k, w_i}`` (counts without
    ``i``). Runs ``iter_warmup + iter_sampling`` sweeps from uniformly random topics
    and averages ``(n_dk + alpha_k) / (N_d + sum(alpha))`` over the last
    ``iter_sampling``.

    Parameters
    ----------
    tok_ptr, word
        Documents' token ranges (int64 ``(D + 1,)``) and word ids (int32).
    phi_wk
        Topics as a ``(V, K)`` float64 array (transpose of ``phi``).
    alpha
        ``(K,)`` Dirichlet parameter of ``theta``.
    iter_warmup, iter_sampling
        Sweeps not averaged, then sweeps averaged (``iter_sampling >= 1``).
    state
        xoshiro256+ state (uint64 ``(4,)``), updated in place.

    Returns
    -------
    numpy.ndarray
        ``(D, K)`` float64 estimate of ``E[theta_d | observed tokens, phi]``.
    """
    D = tok_ptr.size - 1
    K = alpha.size
    a_sum = alpha.sum()
    out = np.zeros((D, K))
    n_k = np.empty(K)
    cum = np.empty(K)
    for d in range(D):
        start = tok_ptr[d]
        stop = tok_ptr[d + 1]
        z = np.empty(stop - start, dtype=np.int32)
        n_k[:] = 0.0
        for i in range(start, stop):
            k = min(int(next_double(state) * K), K - 1)
            z[i - start] = k
            n_k[k] += 1.0
        kept = 0
        for s in range(iter_warmup + iter_sampling):
            for i in range(start, stop):
                w = word[i]
                n_k[z[i - start]] -= 1.0
                total = 0.0
                for k in range(K):
                    total += (n_k[k] + alpha[k]) * phi_wk[w, k]
                    cum[k] = total
                u = next_double(state) * total
                k = 0
                while k < K - 1 and cum[k] <= u:
                    k += 1
                z[i - start] = k
                n_k[k] += 1.0
            if s >= iter_warmup:
                kept += 1
                for k in range(K):
                    out[d, k] += n_k[k]
        n_d = stop - start
        for k in range(K):
            out[d, k] = (out[d, k] / kept + alpha[k]) / (n_d + a_sum)
    return out
