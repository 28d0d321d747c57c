"""Kernels of the direct-assignment collapsed Gibbs sampler for HDP-LDA.

Teh, Jordan, Beal and Blei (2006), "Hierarchical Dirichlet processes", JASA 101,
section 5.3 ("posterior sampling by direct assignment"). The state is the topic of
every token ``z`` and the top-level weights ``beta = (beta_1, ..., beta_K, beta_u)`` of
the ``K`` represented topics and of all the others together (``beta_u``); the topics
``phi_k ~ Dirichlet(eta)`` over ``V`` words are integrated out, so a word's likelihood
under topic ``k`` is ``f_k(w) = (n_wk + eta) / (n_k + V eta)`` and ``1 / V`` under a new
topic. One sweep is

1. every token in turn (eq. 37 of the paper, with the counts excluding the token)::

       p(z_i = k | z_-i, beta) ∝ (n_dk + alpha0 beta_k) f_k(w_i)   k represented
       p(z_i = new | z_-i, beta) ∝ alpha0 beta_u / V                               (1)

   A topic whose last token leaves is no longer represented: its weight joins
   ``beta_u``. A new topic takes ``beta_new = b beta_u`` and leaves ``(1 - b) beta_u``,
   ``b ~ Beta(1, gamma)`` (the stick-breaking step of section 5.3).
   :func:`sweep` samples (1) with SparseLDA's buckets (Yao, Mimno and McCallum 2009,
   as :mod:`bayeswe.kernels.lda_cgs` with ``alpha_k = alpha0 beta_k``) plus the new
   topic's mass: word bucket ``q`` over the topics of word ``w``, document bucket ``r``
   over the topics of document ``d``, smoothing bucket ``s`` over all topics;
2. the table counts (eq. 40): ``m_dk`` is the number of tables of a Chinese restaurant
   with concentration ``alpha0 beta_k`` after ``n_dk`` customers, a sum of independent
   ``Bernoulli(alpha0 beta_k / (alpha0 beta_k + i))``, ``i = 0 .. n_dk - 1``
   (Antoniak 1974), :func:`sample_tables`;
3. optionally ``alpha0`` (Teh et al., appendix A) and ``gamma`` (Escobar and West 1995,
   section 6) by their auxiliary-variable schemes under Gamma priors,
   :func:`resample_alpha0`, :func:`resample_gamma`;
4. ``beta | m ~ Dirichlet(m_.1, ..., m_.K, gamma)`` (eq. 36), :func:`sample_beta`.

Topics live in slots ``0 .. C - 1`` of capacity ``C``; a slot is free when it holds no
token (``beta = 0`` then). Free slots form a stack ``free[:n_free]`` so that a new
topic takes the slot last freed. :func:`sweep` stops before a token when no slot is
free and returns that token's index: the caller grows the arrays and calls it again.

Random numbers: the chain's xoshiro256+ stream (:func:`bayeswe.kernels.lda_cgs.next_double`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bayeswe.kernels.hdp_structs import Corpus, Counts, Topics, WordLists
from bayeswe.kernels.lda_cgs import next_double
from bayeswe.kernels.topic_lists import fill_topic_lists, list_add, list_remove

__all__ = [
    "beta_draw",
    "gamma_draw",
    "log_joint",
    "resample_alpha0",
    "resample_gamma",
    "sample_beta",
    "sample_tables",
    "sweep",
]


@njit(cache=True, inline="always")
def _walk(u: float, C: int, alpha0: float, eta: float, beta: np.ndarray, inv: np.ndarray) -> int:
    """The slot where ``u`` falls in the smoothing bucket ``alpha0 beta_k eta / (n_k + V eta)``;
    -1 when rounding leaves ``u`` past the end."""
    acc = 0.0
    for t in range(C):
        acc += alpha0 * beta[t] * eta * inv[t]
        if u < acc:
            return t
    return -1


@njit(cache=True, nogil=True)
def sweep(
    corpus: Corpus,
    counts: Counts,
    lists: WordLists,
    topics: Topics,
    alpha0: float,
    gamma: float,
    eta: float,
    rng: np.ndarray,
    start: int,
) -> int:
    """Draw (1) for tokens ``start ..`` in order; returns ``N`` or the token where no slot
    was free (nothing of that token changed)."""
    tok_ptr, word = corpus.tok_ptr, corpus.word
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    wl_topic, wl_pos, wl_len = lists.topic, lists.pos, lists.length
    beta, free = topics.beta, topics.free
    beta_u, n_free = topics.rest[0], topics.n_free[0]
    C, V, D = n_k.size, n_wk.shape[0], tok_ptr.size - 1
    veta = V * eta
    inv, coef, qcum = np.empty(C), np.empty(C), np.empty(C)
    dl_topic, dl_pos = np.empty((1, C), dtype=np.int32), np.empty((1, C), dtype=np.int32)
    dl_len = np.zeros(1, dtype=np.int64)
    s = 0.0  # smoothing bucket of the represented topics
    for k in range(C):
        inv[k] = 1.0 / (n_k[k] + veta)
        s += alpha0 * beta[k] * eta * inv[k]
    first = 0
    while first < D and tok_ptr[first + 1] <= start:
        first += 1
    stop = word.size
    for d in range(first, D):
        fill_topic_lists(n_dk[d : d + 1], dl_topic, dl_pos, dl_len)
        r = 0.0
        for k in range(C):
            r += n_dk[d, k] * eta * inv[k]
            coef[k] = (alpha0 * beta[k] + n_dk[d, k]) * inv[k]
        for i in range(max(start, tok_ptr[d]), tok_ptr[d + 1]):
            if n_free == 0:  # a new topic could not be placed: let the caller grow
                stop = i
                break
            w, k = word[i], z[i]
            # ---- remove token i
            s -= alpha0 * beta[k] * eta * inv[k]
            r -= n_dk[d, k] * eta * inv[k]
            n_dk[d, k] -= 1
            n_wk[w, k] -= 1
            n_k[k] -= 1
            inv[k] = 1.0 / (n_k[k] + veta)
            r += n_dk[d, k] * eta * inv[k]
            if n_k[k] == 0:  # no longer represented: its weight joins beta_u
                beta_u += beta[k]
                beta[k] = 0.0
                free[n_free] = k
                n_free += 1
            else:
                s += alpha0 * beta[k] * eta * inv[k]
            coef[k] = (alpha0 * beta[k] + n_dk[d, k]) * inv[k]
            if n_dk[d, k] == 0:
                list_remove(0, k, dl_topic, dl_pos, dl_len)
            if n_wk[w, k] == 0:
                list_remove(w, k, wl_topic, wl_pos, wl_len)
            # ---- draw from (1): buckets q (word), r (document), new topic, s (smoothing)
            q = 0.0
            m = wl_len[w]
            for j in range(m):
                q += coef[wl_topic[w, j]] * n_wk[w, wl_topic[w, j]]
                qcum[j] = q
            new = alpha0 * beta_u / V
            u = next_double(rng) * (q + r + new + s)
            k = -1
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
                    acc += n_dk[d, dl_topic[0, j]] * eta * inv[dl_topic[0, j]]
                    if u < acc:
                        k = dl_topic[0, j]
                        break
            elif u >= q + r + new:
                k = _walk(u - q - r - new, C, alpha0, eta, beta, inv)
            if k < 0:  # a new topic: b ~ Beta(1, gamma) breaks beta_u
                n_free -= 1
                k = free[n_free]
                b = beta_draw(1.0, gamma, rng)
                beta[k] = b * beta_u
                beta_u *= 1.0 - b
                s += alpha0 * beta[k] * eta * inv[k]
            # ---- add token i with topic k
            z[i] = k
            s -= alpha0 * beta[k] * eta * inv[k]
            r -= n_dk[d, k] * eta * inv[k]
            n_dk[d, k] += 1
            n_wk[w, k] += 1
            n_k[k] += 1
            inv[k] = 1.0 / (n_k[k] + veta)
            s += alpha0 * beta[k] * eta * inv[k]
            r += n_dk[d, k] * eta * inv[k]
            coef[k] = (alpha0 * beta[k] + n_dk[d, k]) * inv[k]
            if n_dk[d, k] == 1:
                list_add(0, k, dl_topic, dl_pos, dl_len)
            if n_wk[w, k] == 1:
                list_add(w, k, wl_topic, wl_pos, wl_len)
        if stop < word.size:
            break
    topics.rest[0] = beta_u
    topics.n_free[0] = n_free
    return stop


@njit(cache=True, inline="always")
def _normal(rng: np.ndarray) -> float:
    """A standard normal by Box and Muller (one of the pair)."""
    u = 1.0 - next_double(rng)  # in (0, 1]
    return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * next_double(rng))


@njit(cache=True, nogil=True)
def gamma_draw(shape: float, rng: np.ndarray) -> float:
    """``Gamma(shape, 1)`` by Marsaglia and Tsang (2000); ``shape < 1`` by their boost
    ``Gamma(shape + 1) U^(1 / shape)``."""
    boost = 1.0
    if shape < 1.0:
        boost = (1.0 - next_double(rng)) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = _normal(rng)
        v = (1.0 + c * x) ** 3
        if v <= 0.0:
            continue
        u = 1.0 - next_double(rng)
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v * boost


@njit(cache=True, nogil=True)
def beta_draw(a: float, b: float, rng: np.ndarray) -> float:
    """``Beta(a, b)``; ``Beta(1, b)`` by inversion, ``1 - U^(1 / b)``."""
    if a == 1.0:
        return 1.0 - (1.0 - next_double(rng)) ** (1.0 / b)
    x = gamma_draw(a, rng)
    return x / (x + gamma_draw(b, rng))


@njit(cache=True, nogil=True)
def sample_tables(
    n_dk: np.ndarray, beta: np.ndarray, alpha0: float, rng: np.ndarray, m_k: np.ndarray
) -> int:
    """Table counts by eq. (40): ``m_dk = sum_i Bernoulli(a / (a + i))``, ``a = alpha0 beta_k``,
    ``i < n_dk``; their sums over documents go to ``m_k``. Returns ``m_..``."""
    D, C = n_dk.shape
    m_k[:] = 0
    for d in range(D):
        for k in range(C):
            n = n_dk[d, k]
            if n > 0:
                a = alpha0 * beta[k]
                m = 1  # the first customer always opens a table
                for i in range(1, n):
                    if next_double(rng) * (a + i) < a:
                        m += 1
                m_k[k] += m
    return int(m_k.sum())


@njit(cache=True, nogil=True)
def sample_beta(m_k: np.ndarray, topics: Topics, gamma: float, rng: np.ndarray) -> None:
    """``(beta_k, beta_u) ~ Dirichlet(m_.k, gamma)`` over the represented slots (eq. 36)."""
    beta = topics.beta
    total = gamma_draw(gamma, rng)
    rest = total
    for k in range(beta.size):
        beta[k] = gamma_draw(float(m_k[k]), rng) if m_k[k] > 0 else 0.0
        total += beta[k]
    for k in range(beta.size):
        beta[k] /= total
    topics.rest[0] = rest / total


@njit(cache=True, nogil=True)
def resample_alpha0(
    alpha0: float, n_d: np.ndarray, n_tables: int, shape: float, rate: float, rng: np.ndarray
) -> float:
    """``alpha0 | m, n`` under ``Gamma(shape, rate)`` (Teh et al. 2006, appendix A): with
    ``w_d ~ Beta(alpha0 + 1, n_d)`` and ``s_d ~ Bernoulli(n_d / (n_d + alpha0))``,
    ``alpha0 ~ Gamma(shape + m_.. - sum s_d, rate - sum log w_d)``."""
    log_w, s = 0.0, 0
    for d in range(n_d.size):
        log_w += math.log(beta_draw(alpha0 + 1.0, float(n_d[d]), rng))
        if next_double(rng) * (n_d[d] + alpha0) < n_d[d]:
            s += 1
    return gamma_draw(shape + n_tables - s, rng) / (rate - log_w)


@njit(cache=True, nogil=True)
def resample_gamma(
    gamma: float, n_topics: int, n_tables: int, shape: float, rate: float, rng: np.ndarray
) -> float:
    """``gamma | K, m_..`` under ``Gamma(shape, rate)`` (Escobar and West 1995, section 6):
    ``x ~ Beta(gamma + 1, m_..)``, then ``Gamma(shape + K - j, rate - log x)`` with
    ``j = 0`` with odds ``(shape + K - 1) / (m_.. (rate - log x))`` against ``j = 1``."""
    x = beta_draw(gamma + 1.0, float(n_tables), rng)
    rate_x = rate - math.log(x)
    odds = (shape + n_topics - 1.0) / (n_tables * rate_x)
    j = 0 if next_double(rng) * (1.0 + odds) < odds else 1
    return gamma_draw(shape + n_topics - j, rng) / rate_x


@njit(cache=True, nogil=True)
def log_joint(counts: Counts, beta: np.ndarray, alpha0: float, eta: float) -> float:
    """``log p(w | z, eta) + log p(z | alpha0 beta)``: the collapsed LDA joint (Griffiths and
    Steyvers 2004, eqs. 2-3) with document prior ``alpha0 beta`` over the represented
    topics (their mass and ``alpha0 beta_u`` sum to ``alpha0``); free slots add nothing."""
    n_dk, n_wk, n_k = counts.n_dk, counts.n_wk, counts.n_k
    D, C = n_dk.shape
    V = n_wk.shape[0]
    lg_eta = math.lgamma(eta)
    total = 0.0
    for k in range(C):
        if n_k[k] > 0:
            total += math.lgamma(V * eta) - math.lgamma(n_k[k] + V * eta)
    for w in range(V):
        for k in range(C):
            if n_wk[w, k] > 0:
                total += math.lgamma(n_wk[w, k] + eta) - lg_eta
    for d in range(D):
        n_d = 0
        for k in range(C):
            c = n_dk[d, k]
            if c > 0:
                n_d += c
                a = alpha0 * beta[k]
                total += math.lgamma(c + a) - math.lgamma(a)
        total += math.lgamma(alpha0) - math.lgamma(n_d + alpha0)
    return total
