"""Shared kernels of the Gaussian LDA samplers (Das, Zaheer & Dyer 2015).

What every sampler builds on: the random stream, the Cholesky factor and its rank-1
update/downdate, the forward-substitution quadratic form, the posterior-predictive t
density of eq. (1) (with and without the token being resampled), the topic moves of
eq. (4), the topic state from scratch (eq. 2/3, :func:`init_topics`,
:func:`resync_topics`), the categorical draw from log weights and the collapsed log
joint. Used by :mod:`.cgs` (``method="cgs"``), :mod:`.alias` (``"alias-mh"``),
:mod:`.precision` (its moves wrap :func:`topic_move`), :mod:`.naive` and
:mod:`.heldout`; the driver (:mod:`bayeswe.samplers.gaussian_lda`) calls
:func:`init_topics`, :func:`resync_topics`, :func:`topic_logdets` and :func:`log_joint`
directly.

Notation (paper section 3-4): ``D`` is the embedding dimension (the paper's
``M``), ``K`` topics, tokens ``i`` with document ``doc[i]``, word type ``word[i]``
and topic ``z[i]``; ``x = emb[word[i]]``. Per topic ``k`` the state holds the
posterior Normal-inverse-Wishart parameters of eq. (2) given the tokens assigned
to ``k``:

* ``kappa_k = kappa + N_k``, ``nu_k = nu + N_k``, ``mu_k`` (``mu[k]``),
* the Cholesky factor of the scaled scatter matrix
  ``Psi_k = Psi + C_k + kappa N_k / kappa_k (vbar_k - mu0)(vbar_k - mu0)'`` (eq. 2/3),
  stored as the upper factor ``R[k] = L_k'`` (``Psi_k = R_k' R_k``, row-major, so the
  update and the forward substitution run along contiguous rows) with its
  reciprocal diagonal ``invd[k]``,
* cached constants of the posterior predictive multivariate t of eq. (1),
  ``t_{nu_k - D + 1}(x | mu_k, (kappa_k + 1) / (kappa_k (nu_k - D + 1)) Psi_k)``:
  ``tconst[k]`` (everything but the quadratic form), ``tscale[k]`` (the factor
  turning ``|L_k^{-1}(x - mu_k)|^2`` into the Mahalanobis distance over the dof)
  and ``texp[k] = (dof + D) / 2``.

A token joining topic ``k`` changes ``Psi_k`` by the rank-1 update of eq. (4),
``Psi_k += kappa_k / (kappa_k + 1) (x - mu_k)(x - mu_k)'`` (old ``kappa_k``,
``mu_k``); leaving it, by the downdate ``Psi_k -= kappa_k / (kappa_k - 1) (x -
mu_k)(x - mu_k)'`` (current ``kappa_k``, ``mu_k``). Both are applied to ``R[k]``
in O(D^2) (Stewart 1998, the paper's reference for section 4.1); ``log|Psi_k|``
is ``2 sum log L_ii`` and the t density needs one forward substitution.

Random numbers: every sweep kernel draws from a per-chain splitmix64 stream
whose 64-bit state is the one-element ``uint64`` array ``rng`` (advanced in
place). The kernels are therefore deterministic functions of their inputs
(state and ``rng``), serial, and independent of the Numba thread count; the
driver gives each chain its own stream seeded from ``SeedSequence(seed)``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bayeswe.kernels.glda.structs import Corpus, Prior, Topics, TopicSums

__all__ = [
    "chol_factor",
    "chol_rank1",
    "init_topics",
    "log_joint",
    "log_t",
    "move_copies",
    "niw_log_marginal",
    "rand_uniform",
    "resync_topics",
    "topic_move",
]

_LOG_PI = math.log(math.pi)


# --------------------------------------------------------------------------- random numbers


@njit(cache=True, inline="always")
def _next_u64(rng: np.ndarray) -> np.uint64:
    # splitmix64 (Steele, Lea & Flood 2014): 64-bit state, passes BigCrush.
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def rand_uniform(rng: np.ndarray) -> float:
    """A uniform draw in ``[0, 1)`` with 53 random bits; advances ``rng``."""
    return float(_next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# --------------------------------------------------------------------------- linear algebra


@njit(cache=True)
def chol_factor(A: np.ndarray, L: np.ndarray) -> bool:
    """Lower Cholesky factor of symmetric ``A`` written into ``L``; False if not PD."""
    n = A.shape[0]
    for j in range(n):
        s = A[j, j]
        for p in range(j):
            s -= L[j, p] * L[j, p]
        if not s > 0.0:
            return False
        ljj = math.sqrt(s)
        L[j, j] = ljj
        for i in range(j + 1, n):
            s = A[i, j]
            for p in range(j):
                s -= L[i, p] * L[j, p]
            L[i, j] = s / ljj
        for i in range(j):
            L[i, j] = 0.0
    return True


@njit(cache=True)
def chol_rank1(
    R: np.ndarray, invd: np.ndarray, v: np.ndarray, scale: float, sign: float, work: np.ndarray
) -> float:
    """``R' R += sign * scale * v v'`` in place, O(D^2) (``sign`` is +1 or -1, ``scale`` > 0).

    ``R`` is the *upper* Cholesky factor (``L'``), stored row-major so that the
    column sweep of the classic algorithm (Stewart 1998, section 4.3) runs along
    contiguous rows; ``invd`` must hold ``1 / diag(R)`` and is kept up to date.
    ``work`` (length >= D) receives ``sqrt(scale) * v`` and is overwritten; ``v`` is
    not. A downdate must leave the matrix positive definite, which eq. (4) guarantees.

    Returns ``prod_k R_new[k, k] / R_old[k, k]``, so that the log-determinant can be
    updated with one log: ``log|Psi_new| = log|Psi_old| + 2 log(returned value)``.
    """
    n = R.shape[0]
    r = math.sqrt(scale)
    ratio = 1.0
    for i in range(n):
        work[i] = r * v[i]
    for k in range(n):
        rkk = R[k, k]
        inv_old = invd[k]
        xk = work[k]
        rr = math.sqrt(rkk * rkk + sign * xk * xk)
        inv_new = 1.0 / rr  # the one division per column
        c = rr * inv_old
        s = xk * inv_old
        R[k, k] = rr
        invd[k] = inv_new
        ratio *= c
        ic = rkk * inv_new
        ss = sign * s
        row = R[k]
        for i in range(k + 1, n):
            rki = (row[i] + ss * work[i]) * ic
            row[i] = rki
            work[i] = c * work[i] - s * rki
    return ratio


@njit(cache=True, inline="always")
def _forward_sqnorm(
    R: np.ndarray, invd: np.ndarray, x: np.ndarray, mu: np.ndarray, y: np.ndarray
) -> float:
    # |R'^{-1}(x - mu)|^2 by column-oriented forward substitution: each step is an
    # axpy along a contiguous row of R (vectorizes, no reduction), and the
    # reciprocal diagonal keeps divisions off the dependency chain.
    n = R.shape[0]
    for i in range(n):
        y[i] = x[i] - mu[i]
    q = 0.0
    for j in range(n):
        yj = y[j] * invd[j]
        q += yj * yj
        row = R[j]
        for i in range(j + 1, n):
            y[i] -= yj * row[i]
    return q


@njit(cache=True, inline="always")
def _logdet(L: np.ndarray) -> float:
    s = 0.0
    for i in range(L.shape[0]):
        s += math.log(L[i, i])
    return 2.0 * s


# --------------------------------------------------------------------------- topic state


@njit(cache=True)
def _refresh_consts(
    k: int,
    D: int,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    logdet: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
) -> None:
    # Eq. (1)/(2): dof = nu_k - D + 1, scale matrix S = c * Psi_k with
    # c = (kappa_k + 1) / (kappa_k * dof); log|S| = D log c + log|Psi_k|.
    dof = nu_k[k] - D + 1.0
    c = (kappa_k[k] + 1.0) / (kappa_k[k] * dof)
    logdet_s = D * math.log(c) + logdet[k]
    tconst[k] = (
        math.lgamma(0.5 * (dof + D))
        - math.lgamma(0.5 * dof)
        - 0.5 * D * (math.log(dof) + _LOG_PI)
        - 0.5 * logdet_s
    )
    tscale[k] = 1.0 / (c * dof)
    texp[k] = 0.5 * (dof + D)


@njit(cache=True, inline="always")
def log_t(
    k: int,
    x: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    y: np.ndarray,
) -> float:
    """Log posterior-predictive density of eq. (1) of ``x`` under topic ``k`` (one solve)."""
    q = _forward_sqnorm(R[k], invd[k], x, mu[k], y)
    return tconst[k] - texp[k] * math.log1p(q * tscale[k])


@njit(cache=True, inline="always")
def _log_t_without(
    k: int, q: float, D: int, kappa_k: np.ndarray, nu_k: np.ndarray, logdet: np.ndarray
) -> float:
    # Eq. (1) for a token x that is *in* topic k, under topic k *without* it (one copy
    # of x removed, see _log_t_without_copies). The sampler can then leave a token in
    # place when it keeps its topic.
    return _log_t_without_copies(k, q, D, kappa_k, nu_k, logdet, 1.0)


@njit(cache=True, inline="always")
def _log_t_without_copies(
    k: int, q: float, D: int, kappa_k: np.ndarray, nu_k: np.ndarray, logdet: np.ndarray,
    m: float,
) -> float:  # fmt: skip
    # Eq. (1) of x under topic k with m copies of x (m of its tokens) removed from it,
    # from q = (x - mu_k)' Psi_k^{-1} (x - mu_k) with the current factor. Adding m
    # copies of x to a topic is one rank-1 update (eq. 4 with zero scatter among the
    # copies), so removing them is the downdate Psi_k - c b b' with b = x - mu_k,
    # c = m kappa_k / (kappa_k - m). By the matrix determinant lemma
    # log|Psi'| = log|Psi_k| + log(1 - c q), and with x - mu' = f b,
    # f = kappa_k / (kappa_k - m), the quadratic form is f^2 q / (1 - c q)
    # (Sherman-Morrison). m = 1 is one token removed.
    kap = kappa_k[k]
    f = kap / (kap - m)
    c = m * f
    r = 1.0 - c * q
    kap1 = kap - m
    dof = nu_k[k] - m - D + 1.0
    cs = (kap1 + 1.0) / (kap1 * dof)
    quad = f * f * q / r
    return (
        math.lgamma(0.5 * (dof + D))
        - math.lgamma(0.5 * dof)
        - 0.5 * D * (math.log(dof) + _LOG_PI)
        - 0.5 * (D * math.log(cs) + logdet[k] + math.log(r))
        - 0.5 * (dof + D) * math.log1p(quad / (cs * dof))
    )


@njit(cache=True)
def topic_move(
    k: int,
    x: np.ndarray,
    sign: float,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    work: np.ndarray,
) -> None:
    """Add (``sign=+1``) or remove (``-1``) one token with vector ``x`` to/from topic ``k``.

    Eq. (4): :func:`move_copies` with one copy (the same floating-point operations as
    a single-token update). ``work`` needs ``2 * D`` floats.
    """
    move_copies(k, x, 1, sign, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)


@njit(cache=True)
def move_copies(
    k: int,
    x: np.ndarray,
    m: int,
    sign: float,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    work: np.ndarray,
) -> None:
    """Add (``sign=+1``) or remove (``-1``) ``m`` copies of ``x`` to/from topic ``k``: eq.
    (4) with ``m`` tokens of one vector, one rank-1 change of the factor with weight
    ``kappa_k m / (kappa_k + sign m)``. ``work`` needs ``2 * D`` floats."""
    D = x.shape[0]
    kap = kappa_k[k]
    diff = work[D : 2 * D]
    for i in range(D):
        diff[i] = x[i] - mu[k, i]
    ratio = chol_rank1(R[k], invd[k], diff, m * kap / (kap + sign * m), sign, work[:D])
    for i in range(D):
        mu[k, i] = (kap * mu[k, i] + sign * m * x[i]) / (kap + sign * m)
    kappa_k[k] = kap + sign * m
    nu_k[k] += sign * m
    logdet[k] += 2.0 * math.log(ratio)
    _refresh_consts(k, D, kappa_k, nu_k, logdet, tconst, tscale, texp)


@njit(cache=True)
def _psi_from_sums(
    n: int,
    sums: np.ndarray,
    scatter: np.ndarray,
    mu0: np.ndarray,
    kappa0: float,
    Psi0: np.ndarray,
    mu: np.ndarray,
    psi: np.ndarray,
) -> None:
    """One topic's ``mu_k`` and ``Psi_k`` (eq. 2/3) from its token count ``n``, vector
    sum and the lower triangle of ``sum x x'`` (``scatter``), into ``mu`` and ``psi``
    (symmetric); ``psi`` may be ``scatter`` itself, as only its lower triangle is read
    before being written."""
    D = mu0.shape[0]
    kap = kappa0 + n
    for a in range(D):
        mu[a] = (kappa0 * mu0[a] + sums[a]) / kap
    for a in range(D):
        for b in range(a + 1):
            v = Psi0[a, b] + scatter[a, b] + kappa0 * mu0[a] * mu0[b] - kap * mu[a] * mu[b]
            psi[a, b] = v
            psi[b, a] = v


@njit(cache=True)
def init_topics(
    corpus: Corpus, z: np.ndarray, prior: Prior, topics: Topics, sums: TopicSums
) -> bool:
    """Topic parameters of eq. (2)/(3) from scratch (fresh Cholesky per topic) into
    ``topics``.

    ``Psi_k = Psi + sum_{i in k} x_i x_i' + kappa mu0 mu0' - kappa_k mu_k mu_k'`` (eq. 3).
    ``sums`` receives the token counts and vector sums of the topics; its ``scatter``
    is a buffer that ends holding the lower triangle of each ``Psi_k``, not of
    ``sum x x'``. Returns False if some ``Psi_k`` is not positive definite.
    """
    tok_word, emb = corpus.tok_word, corpus.emb
    mu0, kappa0, nu0, Psi0 = prior
    mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp = topics
    counts_k, vsums, scatter = sums
    K, D = mu.shape
    counts_k[:] = 0
    vsums[:] = 0.0
    scatter[:] = 0.0
    for i in range(z.shape[0]):
        k = z[i]
        x = emb[tok_word[i]]
        counts_k[k] += 1
        for a in range(D):
            vsums[k, a] += x[a]
            for b in range(a + 1):
                scatter[k, a, b] += x[a] * x[b]
    ok = True
    low = np.zeros((D, D))
    for k in range(K):
        kappa_k[k] = kappa0 + counts_k[k]
        nu_k[k] = nu0 + counts_k[k]
        S = scatter[k]
        _psi_from_sums(counts_k[k], vsums[k], S, mu0, kappa0, Psi0, mu[k], S)
        if not chol_factor(S, low):
            ok = False
        logdet[k] = _logdet(low)
        for a in range(D):
            invd[k, a] = 1.0 / low[a, a]
            for b in range(D):
                R[k, a, b] = low[b, a]
        _refresh_consts(k, D, kappa_k, nu_k, logdet, tconst, tscale, texp)
    return ok


@njit(cache=True)
def resync_topics(
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    R: np.ndarray,
    logdet: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
) -> None:
    """Recompute every ``log|Psi_k|`` from the factor's diagonal and the t constants.

    :func:`topic_move` updates ``logdet`` by one log of a product per move; the
    driver calls this once per sweep so rounding cannot accumulate over sweeps.
    """
    D = R.shape[1]
    for k in range(R.shape[0]):
        logdet[k] = _logdet(R[k])
        _refresh_consts(k, D, kappa_k, nu_k, logdet, tconst, tscale, texp)


# --------------------------------------------------------------------------- categorical draw


@njit(cache=True, inline="always")
def _sample_log(logw: np.ndarray, n: int, u: float) -> int:
    # Categorical draw from unnormalised log weights logw[:n] (overwritten).
    m = logw[0]
    for k in range(1, n):
        if logw[k] > m:
            m = logw[k]
    total = 0.0
    for k in range(n):
        e = math.exp(logw[k] - m)
        logw[k] = e
        total += e
    target = u * total
    acc = 0.0
    for k in range(n):
        acc += logw[k]
        if target < acc:
            return k
    return n - 1


# --------------------------------------------------------------------------- log joint


@njit(cache=True)
def topic_logdets(
    z: np.ndarray,
    word_order: np.ndarray,
    word_start: np.ndarray,
    emb: np.ndarray,
    mu0: np.ndarray,
    kappa0: float,
    Psi0: np.ndarray,
    counts_k: np.ndarray,
    logdet_k: np.ndarray,
) -> bool:
    """``N_k`` and ``log|Psi_k|`` of every topic (eq. 3) from ``z`` alone, into
    ``counts_k`` and ``logdet_k``; False if some ``Psi_k`` is not positive definite.

    The factors a chain carries are kept by rank-one updates, so their rounding depends
    on the path to a state: a state visited twice gets two log joints that differ in
    the last digits. Here the sums run in a fixed order (word types in turn, each
    word's topics in the order its tokens first meet them), so equal ``z`` give equal
    bits, and a chain's repeated states give exactly tied ``lp`` values, which
    rank-based diagnostics (bulk ESS, split-R-hat) need. Each word adds its
    vector once per topic, scaled by its count there: ``O(V + N + nnz D^2 + K D^3)``.
    """
    K = counts_k.shape[0]
    D = emb.shape[1]
    V = word_start.shape[0] - 1
    sums = np.zeros((K, D))
    scatter = np.zeros((K, D, D))  # lower triangles of sum x x'
    per_topic = np.zeros(K, dtype=np.int64)
    touched = np.empty(K, dtype=np.int64)
    counts_k[:] = 0
    for w in range(V):
        n_touched = 0
        for p in range(word_start[w], word_start[w + 1]):
            k = z[word_order[p]]
            if per_topic[k] == 0:
                touched[n_touched] = k
                n_touched += 1
            per_topic[k] += 1
        x = emb[w]
        for j in range(n_touched):
            k = touched[j]
            c = per_topic[k]
            per_topic[k] = 0
            counts_k[k] += c
            for a in range(D):
                cx = c * x[a]
                sums[k, a] += cx
                for b in range(a + 1):
                    scatter[k, a, b] += cx * x[b]
    mu = np.empty(D)
    psi = np.empty((D, D))
    low = np.zeros((D, D))
    ok = True
    for k in range(K):
        _psi_from_sums(counts_k[k], sums[k], scatter[k], mu0, kappa0, Psi0, mu, psi)
        if chol_factor(psi, low):
            logdet_k[k] = _logdet(low)
        else:
            logdet_k[k] = np.nan
            ok = False
    return ok


@njit(cache=True)
def log_joint(
    n_dk: np.ndarray,
    alpha: np.ndarray,
    counts_k: np.ndarray,
    logdet_k: np.ndarray,
    kappa0: float,
    nu0: float,
    logdet_psi0: float,
    D: int,
) -> float:
    """``log p(z, v)`` with theta, mu and Sigma integrated out, from the topics' token
    counts and ``log|Psi_k|`` (``logdet_k``, e.g. from :func:`topic_logdets`).

    Dirichlet-multinomial per document plus, per topic, the Normal-inverse-Wishart
    marginal likelihood (Murphy 2012, eq. 4.213 / the paper's ref.):
    ``-N_k D/2 log pi + log Gamma_D(nu_k/2) - log Gamma_D(nu/2) + nu/2 log|Psi|
    - nu_k/2 log|Psi_k| + D/2 (log kappa - log kappa_k)``.
    """
    n_docs, K = n_dk.shape
    sa = 0.0
    for k in range(K):
        sa += alpha[k]
    out = 0.0
    for d in range(n_docs):
        nd = 0
        for k in range(K):
            c = n_dk[d, k]
            nd += c
            if c > 0:
                out += math.lgamma(c + alpha[k]) - math.lgamma(alpha[k])
        out += math.lgamma(sa) - math.lgamma(nd + sa)
    for k in range(K):
        out += niw_log_marginal(counts_k[k], logdet_k[k], kappa0, nu0, logdet_psi0, D)
    return out


@njit(cache=True, inline="always")
def niw_log_marginal(
    n: int, logdet_n: float, kappa0: float, nu0: float, logdet_psi0: float, D: int
) -> float:
    """The Normal-inverse-Wishart marginal likelihood of ``n`` vectors whose posterior
    scale matrix has ``log|Psi_n| = logdet_n`` (Murphy 2012, eq. 4.213)."""
    nun, kapn = nu0 + n, kappa0 + n
    out = -0.5 * n * D * _LOG_PI
    for j in range(D):
        out += math.lgamma(0.5 * (nun - j)) - math.lgamma(0.5 * (nu0 - j))
    out += 0.5 * nu0 * logdet_psi0 - 0.5 * nun * logdet_n
    return out + 0.5 * D * (math.log(kappa0) - math.log(kapn))
