"""Kernels of the collapsed Gibbs samplers of Gaussian LDA (Das, Zaheer & Dyer 2015).

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

Density evaluation. Besides the factor, the samplers keep (by default) a *precision
cache*: ``P_k = Psi_k^{-1}``, its upper triangle packed with doubled off-diagonals, ``P_k
mu_k`` and ``mu_k' P_k mu_k``. Then ``(x - mu_k)' P_k (x - mu_k)`` for all K topics is the
packed outer product of ``x`` dotted with each topic's packed ``P_k`` plus two cheap
terms (:func:`all_topics_quad`): contiguous dot products that vectorize, where a forward
substitution is ``D`` dependent steps. The cache is rebuilt from the factors at the start
of every sweep (so it is a function of the checkpointed state), follows each move by
Sherman-Morrison and is recomputed from the factor after every
:data:`PRECISION_REFRESH` moves of a topic, so its rounding error stays ~1e-10. The
forward-substitution kernels remain (``density="solve"`` in the driver).

No kernel allocates per token: work vectors are passed in (``work`` holds
``3 * D + 6 * K`` floats, ``iwork`` ``2 * K`` ints).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "chol_factor",
    "chol_rank1",
    "init_topics",
    "log_joint",
    "log_t",
    "rand_uniform",
    "sweep_alias",
    "all_topics_quad",
    "precision_from_factor",
    "sweep_cgs",
    "sweep_cgs_precision",
    "sweep_naive",
    "topic_move",
    "topic_move_precision",
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
def _forward_sqnorm_lower(L: np.ndarray, x: np.ndarray, mu: np.ndarray, y: np.ndarray) -> float:
    # |L^{-1}(x - mu)|^2 with a lower factor (row-oriented), for the naive baseline.
    n = L.shape[0]
    q = 0.0
    for i in range(n):
        s = x[i] - mu[i]
        for j in range(i):
            s -= L[i, j] * y[j]
        yi = s / L[i, i]
        y[i] = yi
        q += yi * yi
    return q


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
    # Eq. (1) for a token x that is *in* topic k, under topic k *without* it, from
    # q = (x - mu_k)' Psi_k^{-1} (x - mu_k) with the current factor: removing x is the
    # downdate Psi_k - c b b' (b = x - mu_k, c = kappa_k / (kappa_k - 1), eq. 4), so by
    # the matrix determinant lemma log|Psi'| = log|Psi_k| + log(1 - c q) and, with
    # x - mu' = c b, the quadratic form is c^2 q / (1 - c q) (Sherman-Morrison).
    # The sampler can then leave a token in place when it keeps its topic.
    kap = kappa_k[k]
    c = kap / (kap - 1.0)
    r = 1.0 - c * q
    kap1 = kap - 1.0
    dof = nu_k[k] - 1.0 - D + 1.0
    cs = (kap1 + 1.0) / (kap1 * dof)
    quad = c * c * q / r
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

    Eq. (4): the rank-1 update/downdate of ``R[k]``, then ``mu_k``, ``kappa_k``,
    ``nu_k`` and the t constants. ``work`` needs ``2 * D`` floats.
    """
    D = x.shape[0]
    kap = kappa_k[k]
    m = mu[k]
    diff = work[D : 2 * D]
    for i in range(D):
        diff[i] = x[i] - m[i]
    if sign > 0:
        ratio = chol_rank1(R[k], invd[k], diff, kap / (kap + 1.0), 1.0, work[:D])
        for i in range(D):
            m[i] = (kap * m[i] + x[i]) / (kap + 1.0)
        kappa_k[k] = kap + 1.0
        nu_k[k] += 1.0
    else:
        ratio = chol_rank1(R[k], invd[k], diff, kap / (kap - 1.0), -1.0, work[:D])
        for i in range(D):
            m[i] = (kap * m[i] - x[i]) / (kap - 1.0)
        kappa_k[k] = kap - 1.0
        nu_k[k] -= 1.0
    logdet[k] += 2.0 * math.log(ratio)
    _refresh_consts(k, D, kappa_k, nu_k, logdet, tconst, tscale, texp)


@njit(cache=True)
def init_topics(
    tok_word: np.ndarray,
    z: np.ndarray,
    emb: np.ndarray,
    K: int,
    mu0: np.ndarray,
    kappa0: float,
    nu0: float,
    Psi0: np.ndarray,
    counts_k: np.ndarray,
    sums: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    scatter: np.ndarray,
) -> bool:
    """Topic parameters of eq. (2)/(3) from scratch (fresh Cholesky per topic).

    ``Psi_k = Psi + sum_{i in k} x_i x_i' + kappa mu0 mu0' - kappa_k mu_k mu_k'`` (eq. 3).
    ``scatter`` is a ``(K, D, D)`` buffer that receives ``sum x x'`` per topic and
    ``sums`` ``(K, D)`` the vector sums; ``counts_k`` (K,) the token counts.
    Returns False if some ``Psi_k`` is not positive definite.
    """
    D = emb.shape[1]
    counts_k[:] = 0
    sums[:] = 0.0
    scatter[:] = 0.0
    for i in range(z.shape[0]):
        k = z[i]
        x = emb[tok_word[i]]
        counts_k[k] += 1
        for a in range(D):
            sums[k, a] += x[a]
            for b in range(a + 1):
                scatter[k, a, b] += x[a] * x[b]
    ok = True
    low = np.zeros((D, D))
    for k in range(K):
        kap = kappa0 + counts_k[k]
        kappa_k[k] = kap
        nu_k[k] = nu0 + counts_k[k]
        for a in range(D):
            mu[k, a] = (kappa0 * mu0[a] + sums[k, a]) / kap
        S = scatter[k]
        for a in range(D):
            for b in range(a + 1):
                v = Psi0[a, b] + S[a, b] + kappa0 * mu0[a] * mu0[b] - kap * mu[k, a] * mu[k, b]
                S[a, b] = v
                S[b, a] = v
        if not chol_factor(S, low):
            ok = False
        logdet[k] = _logdet(low)
        for a in range(D):
            invd[k, a] = 1.0 / low[a, a]
            for b in range(D):
                R[k, a, b] = low[b, a]
        _refresh_consts(k, D, kappa_k, nu_k, logdet, tconst, tscale, texp)
    return ok


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


# --------------------------------------------------------------------------- exact collapsed Gibbs


@njit(cache=True, fastmath=True, inline="always")
def _all_topics_sqnorm(
    x: np.ndarray,
    muT: np.ndarray,
    RT: np.ndarray,
    invdT: np.ndarray,
    Y: np.ndarray,
    Q: np.ndarray,
) -> None:
    # Q[k] = |R_k'^{-1}(x - mu_k)|^2 for every topic at once: the forward substitution
    # of :func:`_forward_sqnorm` with the topic index innermost, on topic-minor copies
    # (RT[j, i, k] = R[k, j, i]), so every step is a SIMD loop over topics.
    D, K = muT.shape
    for i in range(D):
        xi = x[i]
        Yi = Y[i]
        m = muT[i]
        for k in range(K):
            Yi[k] = xi - m[k]
    for k in range(K):
        Q[k] = 0.0
    for j in range(D):
        yj = Y[j]
        ij = invdT[j]
        for k in range(K):
            v = yj[k] * ij[k]
            yj[k] = v
            Q[k] += v * v
        Rj = RT[j]
        for i in range(j + 1, D):
            Yi = Y[i]
            Rji = Rj[i]
            for k in range(K):
                Yi[k] -= yj[k] * Rji[k]


@njit(cache=True, inline="always")
def _mirror(k: int, mu: np.ndarray, R: np.ndarray, invd: np.ndarray, muT: np.ndarray,
            RT: np.ndarray, invdT: np.ndarray) -> None:  # fmt: skip
    # copy topic k's parameters into the topic-minor arrays (O(D^2) strided writes)
    D = mu.shape[1]
    for j in range(D):
        muT[j, k] = mu[k, j]
        invdT[j, k] = invd[k, j]
        Rk = R[k, j]
        RTj = RT[j]
        for i in range(j + 1, D):
            RTj[i, k] = Rk[i]


@njit(cache=True)
def topic_minor(
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    muT: np.ndarray,
    RT: np.ndarray,
    invdT: np.ndarray,
) -> None:
    """Fill the topic-minor copies ``muT (D, K)``, ``RT (D, D, K)``, ``invdT (D, K)``."""
    for k in range(mu.shape[0]):
        _mirror(k, mu, R, invd, muT, RT, invdT)


@njit(cache=True, inline="always")
def _draw_topic(
    d: int,
    old: int,
    D: int,
    Q: np.ndarray,
    n_dk: np.ndarray,
    alpha: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    logdet: np.ndarray,
    logw: np.ndarray,
    rng: np.ndarray,
) -> int:
    # Eq. (1): the topic of a token of document d (counted out of n_dk, still held by
    # topic ``old``) from its Mahalanobis distances Q[k]; topic ``old`` without the
    # token comes from the same distance (_log_t_without).
    K = alpha.shape[0]
    for k in range(K):
        logw[k] = (
            math.log(n_dk[d, k] + alpha[k]) + tconst[k] - texp[k] * math.log1p(Q[k] * tscale[k])
        )
    logw[old] = math.log(n_dk[d, old] + alpha[old]) + _log_t_without(
        old, Q[old], D, kappa_k, nu_k, logdet
    )
    return _sample_log(logw, K, rand_uniform(rng))


@njit(cache=True, nogil=True)
def sweep_cgs(
    tok_doc: np.ndarray,
    tok_word: np.ndarray,
    z: np.ndarray,
    emb: np.ndarray,
    alpha: np.ndarray,
    n_dk: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    rng: np.ndarray,
    work: np.ndarray,
    start: int,
    stop: int,
    muT: np.ndarray,
    RT: np.ndarray,
    invdT: np.ndarray,
    Y: np.ndarray,
) -> int:
    """One exact collapsed Gibbs pass (eq. 1) over tokens ``start:stop``; returns #changes.

    Each token draws ``k`` with probability ``(n_dk + alpha_k) t(x | k)`` (counts and
    topic ``z_i`` without the token, eq. 1) from all ``K`` topics (one solve each,
    O(K D^2)); only if ``k`` differs from its topic does it leave it (downdate) and
    join ``k`` (update). The K solves run together on topic-minor copies of the
    factors (``muT``, ``RT``, ``invdT``, filled by :func:`topic_minor` and kept in step
    after each move); ``Y`` is ``(D, K)`` scratch. ``work`` needs ``3 * D + 2 * K`` floats.
    """
    K = alpha.shape[0]
    D = emb.shape[1]
    logw = work[3 * D : 3 * D + K]
    Q = work[3 * D + K : 3 * D + 2 * K]
    changed = 0
    for i in range(start, stop):
        d = tok_doc[i]
        x = emb[tok_word[i]]
        old = z[i]
        n_dk[d, old] -= 1
        # the token stays in its topic while the K densities are evaluated; topic
        # ``old`` without it comes from the same solve (_log_t_without)
        _all_topics_sqnorm(x, muT, RT, invdT, Y, Q)
        new = _draw_topic(d, old, D, Q, n_dk, alpha, tconst, tscale, texp, kappa_k, nu_k,
                          logdet, logw, rng)  # fmt: skip
        n_dk[d, new] += 1
        if new != old:
            topic_move(old, x, -1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
            _mirror(old, mu, R, invd, muT, RT, invdT)
            topic_move(new, x, 1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
            _mirror(new, mu, R, invd, muT, RT, invdT)
            z[i] = new
            changed += 1
    return changed


# --------------------------------------------------------------------------- precision cache

# Moves of a topic between two exact refreshes of its precision from the factor.
PRECISION_REFRESH = 128

# Reassociation (and FMA contraction) let LLVM vectorize the dot products' reductions;
# no flag that assumes finite values, so a NaN or inf would still propagate.
_DOT_FLAGS = {"reassoc", "contract", "nsz", "arcp"}


@njit(cache=True, fastmath=_DOT_FLAGS)
def precision_from_factor(
    k: int,
    R: np.ndarray,
    mu: np.ndarray,
    P: np.ndarray,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    W: np.ndarray,
) -> None:
    """``P_k = Psi_k^{-1} = R_k^{-1} R_k^{-T}`` from the factor, O(D^3), and its packed forms.

    ``W`` is ``(D, D)`` scratch (receives ``R_k^{-1}``, upper triangular). ``Pp[k]``
    holds the upper triangle row by row with the off-diagonal entries doubled, so that
    ``x' P_k x = Pp[k] . xx`` with ``xx[(a, b)] = x_a x_b`` (``a <= b``, same order);
    ``Pmu[k] = P_k mu_k`` and ``muPmu[k] = mu_k' P_k mu_k``.
    """
    Rk = R[k]
    D = Rk.shape[0]
    for j in range(D):
        for i in range(j + 1, D):
            W[i, j] = 0.0
        W[j, j] = 1.0 / Rk[j, j]
        for i in range(j - 1, -1, -1):
            s = 0.0
            for m in range(i + 1, j + 1):
                s += Rk[i, m] * W[m, j]
            W[i, j] = -s / Rk[i, i]
    Pk = P[k]
    for a in range(D):
        for b in range(a, D):
            s = 0.0
            for m in range(b, D):
                s += W[a, m] * W[b, m]
            Pk[a, b] = s
            Pk[b, a] = s
    _precision_derived(k, mu, P, Pp, Pmu, muPmu)


@njit(cache=True, inline="always")
def _precision_derived(
    k: int, mu: np.ndarray, P: np.ndarray, Pp: np.ndarray, Pmu: np.ndarray, muPmu: np.ndarray
) -> None:
    # Pp[k], Pmu[k], muPmu[k] from the full P[k] and mu[k], O(D^2)
    Pk = P[k]
    m_k = mu[k]
    D = Pk.shape[0]
    pk = Pp[k]
    off = 0
    c = 0.0
    for a in range(D):
        row = Pk[a]
        n = D - a
        seg = pk[off : off + n]  # row views vectorize, as in _outer_packed
        tail = row[a:]
        seg[0] = tail[0]
        for b in range(1, n):
            seg[b] = 2.0 * tail[b]
        off += n
        s = 0.0
        for b in range(D):
            s += row[b] * m_k[b]
        Pmu[k, a] = s
        c += m_k[a] * s
    muPmu[k] = c


@njit(cache=True, inline="always")
def _precision_rank1(Pk: np.ndarray, u: np.ndarray, coef: float, g: np.ndarray) -> None:
    # Sherman-Morrison: (Psi + coef u u')^{-1} = P - coef (P u)(P u)' / (1 + coef u' P u)
    D = Pk.shape[0]
    s = 0.0
    for a in range(D):
        row = Pk[a]
        t = 0.0
        for b in range(D):
            t += row[b] * u[b]
        g[a] = t
        s += u[a] * t
    f = coef / (1.0 + coef * s)
    for a in range(D):
        ga = f * g[a]
        row = Pk[a]
        for b in range(D):
            row[b] -= ga * g[b]


@njit(cache=True)
def _outer_packed(x: np.ndarray, xx: np.ndarray) -> None:
    # xx[(a, b)] = x_a x_b for a <= b, rows of the upper triangle in order. Written
    # through row views: with them LLVM vectorizes the short rows (5x faster at D=50
    # than indexing xx with a running offset).
    D = x.shape[0]
    off = 0
    for a in range(D):
        xa = x[a]
        n = D - a
        seg = xx[off : off + n]
        xs = x[a:]
        for b in range(n):
            seg[b] = xa * xs[b]
        off += n


@njit(cache=True, fastmath=_DOT_FLAGS)
def _one_topic_quad(
    k: int, x: np.ndarray, Pp: np.ndarray, Pmu: np.ndarray, muPmu: np.ndarray, xx: np.ndarray
) -> float:
    # (x - mu_k)' P_k (x - mu_k) from the packed outer product xx of x (see all_topics_quad)
    pk = Pp[k]
    s = 0.0
    for t in range(xx.shape[0]):
        s += pk[t] * xx[t]
    pm = Pmu[k]
    s2 = 0.0
    for a in range(x.shape[0]):
        s2 += pm[a] * x[a]
    return s - 2.0 * s2 + muPmu[k]


@njit(cache=True, fastmath=_DOT_FLAGS)
def all_topics_quad(
    x: np.ndarray, Pp: np.ndarray, Pmu: np.ndarray, muPmu: np.ndarray, xx: np.ndarray, Q: np.ndarray
) -> None:
    """``Q[k] = (x - mu_k)' Psi_k^{-1} (x - mu_k)`` for every topic, O(K D^2 / 2).

    Expanded as ``x' P_k x - 2 x' P_k mu_k + mu_k' P_k mu_k``: the packed outer product
    ``xx`` of ``x`` is formed once, and each topic costs one contiguous dot product of
    length ``D (D + 1) / 2`` (SIMD, no dependency chain), where the forward substitution
    of :func:`_forward_sqnorm` is ``D`` dependent steps.
    """
    K = Pp.shape[0]
    D = x.shape[0]
    _outer_packed(x, xx)
    M = xx.shape[0]
    for k in range(K):
        pk = Pp[k]
        s = 0.0
        for t in range(M):
            s += pk[t] * xx[t]
        pm = Pmu[k]
        s2 = 0.0
        for a in range(D):
            s2 += pm[a] * x[a]
        Q[k] = s - 2.0 * s2 + muPmu[k]


@njit(cache=True, fastmath=_DOT_FLAGS)
def topic_move_precision(
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
    P: np.ndarray,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    moves: np.ndarray,
    W: np.ndarray,
    work: np.ndarray,
) -> None:
    """:func:`topic_move` plus the same rank-1 change applied to the precision cache.

    The cache follows the factor by Sherman-Morrison (O(D^2)); every
    :data:`PRECISION_REFRESH` moves of topic ``k`` it is recomputed from the factor
    (:func:`precision_from_factor`), so its rounding error cannot grow with the run.
    ``work`` needs ``3 * D`` floats.
    """
    D = x.shape[0]
    kap = kappa_k[k]
    scale = kap / (kap + sign)
    topic_move(k, x, sign, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
    moves[k] += 1
    if moves[k] >= PRECISION_REFRESH:
        moves[k] = 0
        precision_from_factor(k, R, mu, P, Pp, Pmu, muPmu, W)
        return
    # topic_move leaves u = x - mu_k (the old mean) in work[D:2D]
    _precision_rank1(P[k], work[D : 2 * D], sign * scale, work[2 * D : 3 * D])
    _precision_derived(k, mu, P, Pp, Pmu, muPmu)


@njit(cache=True, nogil=True)
def sweep_cgs_precision(
    tok_doc: np.ndarray,
    tok_word: np.ndarray,
    z: np.ndarray,
    emb: np.ndarray,
    alpha: np.ndarray,
    n_dk: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    rng: np.ndarray,
    work: np.ndarray,
    start: int,
    stop: int,
    P: np.ndarray,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    moves: np.ndarray,
    W: np.ndarray,
    xx: np.ndarray,
) -> int:
    """:func:`sweep_cgs` with the quadratic forms from the precision cache.

    Same conditional (eq. 1) and same moves of the Cholesky factors; only the
    Mahalanobis distances of the K densities come from :func:`all_topics_quad`
    instead of K forward substitutions. The cache (``P (K, D, D)``, ``Pp (K, D(D+1)/2)``,
    ``Pmu (K, D)``, ``muPmu (K,)``, ``moves (K,)``) must be filled by
    :func:`precision_from_factor` before the pass; ``W`` is ``(D, D)`` and ``xx``
    ``D (D + 1) / 2`` scratch; ``work`` needs ``3 * D + 2 * K`` floats.
    """
    K = alpha.shape[0]
    D = emb.shape[1]
    logw = work[3 * D : 3 * D + K]
    Q = work[3 * D + K : 3 * D + 2 * K]
    changed = 0
    for i in range(start, stop):
        d = tok_doc[i]
        x = emb[tok_word[i]]
        old = z[i]
        n_dk[d, old] -= 1
        all_topics_quad(x, Pp, Pmu, muPmu, xx, Q)
        new = _draw_topic(d, old, D, Q, n_dk, alpha, tconst, tscale, texp, kappa_k, nu_k,
                          logdet, logw, rng)  # fmt: skip
        n_dk[d, new] += 1
        if new != old:
            topic_move_precision(old, x, -1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst,
                                 tscale, texp, P, Pp, Pmu, muPmu, moves, W, work)  # fmt: skip
            topic_move_precision(new, x, 1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst,
                                 tscale, texp, P, Pp, Pmu, muPmu, moves, W, work)  # fmt: skip
            z[i] = new
            changed += 1
    return changed


# --------------------------------------------------------------------------- naive baseline


@njit(cache=True, nogil=True)
def sweep_naive(
    tok_doc: np.ndarray,
    tok_word: np.ndarray,
    z: np.ndarray,
    emb: np.ndarray,
    alpha: np.ndarray,
    n_dk: np.ndarray,
    mu0: np.ndarray,
    kappa0: float,
    nu0: float,
    Psi0: np.ndarray,
    counts_k: np.ndarray,
    sums: np.ndarray,
    scatter: np.ndarray,
    rng: np.ndarray,
    A: np.ndarray,
    Lk: np.ndarray,
    work: np.ndarray,
    start: int,
    stop: int,
) -> int:
    """Exact collapsed Gibbs with a fresh O(D^3) Cholesky per (token, topic) evaluation.

    The baseline of section 4 ("direct naive computation ... O(M^3)"): topics keep
    only sufficient statistics (``counts_k``, ``sums``, lower triangle of
    ``scatter = sum x x'``); ``Psi_k`` is formed by eq. (3) and factorized for every
    evaluation. ``A``/``Lk`` are ``(D, D)`` scratch; ``work`` needs ``2 * D + K``.
    Same distribution as :func:`sweep_cgs` (not the same draws: rounding differs).
    """
    K = alpha.shape[0]
    D = emb.shape[1]
    m = work[:D]
    y = work[D : 2 * D]
    logw = work[2 * D : 2 * D + K]
    changed = 0
    for i in range(start, stop):
        d = tok_doc[i]
        x = emb[tok_word[i]]
        old = z[i]
        n_dk[d, old] -= 1
        counts_k[old] -= 1
        for a in range(D):
            sums[old, a] -= x[a]
            for b in range(a + 1):
                scatter[old, a, b] -= x[a] * x[b]
        for k in range(K):
            kap = kappa0 + counts_k[k]
            nuk = nu0 + counts_k[k]
            for a in range(D):
                m[a] = (kappa0 * mu0[a] + sums[k, a]) / kap
            for a in range(D):
                for b in range(a + 1):
                    A[a, b] = (
                        Psi0[a, b] + scatter[k, a, b] + kappa0 * mu0[a] * mu0[b] - kap * m[a] * m[b]
                    )
            chol_factor(A, Lk)
            dof = nuk - D + 1.0
            c = (kap + 1.0) / (kap * dof)
            q = _forward_sqnorm_lower(Lk, x, m, y)
            logw[k] = (
                math.log(n_dk[d, k] + alpha[k])
                + math.lgamma(0.5 * (dof + D))
                - math.lgamma(0.5 * dof)
                - 0.5 * D * (math.log(dof) + _LOG_PI)
                - 0.5 * (D * math.log(c) + _logdet(Lk))
                - 0.5 * (dof + D) * math.log1p(q / (c * dof))
            )
        new = _sample_log(logw, K, rand_uniform(rng))
        counts_k[new] += 1
        for a in range(D):
            sums[new, a] += x[a]
            for b in range(a + 1):
                scatter[new, a, b] += x[a] * x[b]
        n_dk[d, new] += 1
        z[i] = new
        if new != old:
            changed += 1
    return changed


# --------------------------------------------------------------------------- alias tables + MH


@njit(cache=True)
def _build_alias(
    w: int,
    Q: np.ndarray,
    alpha: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    stale_logw: np.ndarray,
    stale_logq: np.ndarray,
    stale_t: np.ndarray,
    alias_prob: np.ndarray,
    alias_idx: np.ndarray,
    scaled: np.ndarray,
    small: np.ndarray,
    large: np.ndarray,
    s: int,
    lt_s: float,
) -> None:
    # Vose (1991) alias table of the "language model" term alpha_k t(v_w | k)
    # (section 4.2), with the current (soon stale) topic parameters, from the
    # Mahalanobis distances Q[k] of v_w (O(K D^2) for the caller), O(K) here.
    # Topic s is the building token's own: its density ``lt_s`` is without the token
    # (with it, the table would favour staying put and the chain would crawl).
    K = alpha.shape[0]
    row = stale_logw[w]
    m = -np.inf
    for k in range(K):
        lt = lt_s if k == s else tconst[k] - texp[k] * math.log1p(Q[k] * tscale[k])
        v = math.log(alpha[k]) + lt
        row[k] = v
        if v > m:
            m = v
    total = 0.0
    for k in range(K):
        e = math.exp(row[k] - m)
        scaled[k] = e
        total += e
    stale_logq[w] = m + math.log(total)
    # t~(v_w | k) / sum_k' alpha_k' t~(v_w | k'): the stale density in linear scale,
    # relative to the table's mass, for the document term (no exp per token)
    lin = stale_t[w]
    for k in range(K):
        lin[k] = scaled[k] / (total * alpha[k])
    ns = 0
    nl = 0
    for k in range(K):
        scaled[k] *= K / total
        if scaled[k] < 1.0:
            small[ns] = k
            ns += 1
        else:
            large[nl] = k
            nl += 1
    prob = alias_prob[w]
    idx = alias_idx[w]
    while ns > 0 and nl > 0:
        ns -= 1
        s = small[ns]
        g = large[nl - 1]
        prob[s] = scaled[s]
        idx[s] = g
        scaled[g] = (scaled[g] + scaled[s]) - 1.0
        if scaled[g] < 1.0:
            nl -= 1
            small[ns] = g
            ns += 1
    while nl > 0:
        nl -= 1
        prob[large[nl]] = 1.0
        idx[large[nl]] = large[nl]
    while ns > 0:  # only through rounding
        ns -= 1
        prob[small[ns]] = 1.0
        idx[small[ns]] = small[ns]


@njit(cache=True, nogil=True)
def sweep_alias(
    tok_doc: np.ndarray,
    tok_word: np.ndarray,
    z: np.ndarray,
    emb: np.ndarray,
    alpha: np.ndarray,
    n_dk: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    stale_logw: np.ndarray,
    stale_logq: np.ndarray,
    stale_t: np.ndarray,
    alias_prob: np.ndarray,
    alias_idx: np.ndarray,
    uses: np.ndarray,
    rebuild_every: int,
    mh_steps: int,
    fresh_doc: bool,
    broken: int,
    rng: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
    start: int,
    stop: int,
    stats: np.ndarray,
    precision: bool,
    P: np.ndarray,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    moves: np.ndarray,
    W: np.ndarray,
    xx: np.ndarray,
) -> None:
    """Alias-table Metropolis-Hastings pass (section 4.2, with a correct MH step).

    Target for token ``i``: ``p(k) ∝ (n_dk + alpha_k) t(x | k)`` with fresh topic
    parameters and the token's own contribution removed (eq. 1); the token stays in
    its topic ``s`` during the MH steps (topic ``s`` without it is evaluated by
    ``_log_t_without``) and moves, one downdate and one update, only if accepted
    elsewhere. Proposal: the mixture

        q(k) ∝ n_dk t'(x | k) + alpha_k t~(x | k)

    where ``t~`` is the stale density of word ``w``'s alias table (drawn in O(1))
    and ``t'`` is the fresh ``t`` (``fresh_doc=True``, the paper's "document term
    computed exactly", one solve per topic present in the document) or the stale
    ``t~`` (``fresh_doc=False``, no solve). ``q`` does not depend on the current
    topic, so ``mh_steps`` independence-MH steps starting at the token's topic
    ``s`` accept ``t`` with probability ``min(1, p(t) q(s) / (p(s) q(t)))``; on
    rejection the token keeps its topic. Each step costs one solve (``t(x | t)``).

    Word ``w``'s table is rebuilt (O(K D^2)) on its first use and after every
    ``rebuild_every`` uses (Li et al. 2014): with ``rebuild_every ~ K`` the rebuild
    costs O(D^2) per token amortized, the price of one MH step.

    For a fixed table each MH step leaves the collapsed posterior invariant. A table
    rebuilt from a past state is correlated with the current one, which makes the
    chain adaptive and not exactly invariant (as in AliasLDA/LightLDA); the bias was
    measurable on a 10-token problem (~0.05 posterior sd, tests/glda/
    test_glda_stationarity.py) and vanishes for frozen tables.

    ``broken`` exists only to test that the stationarity test detects a wrong
    sampler: 1 = always accept (the token takes the last proposal, as in the
    reference Java code), 2 = log-densities in place of densities in the ratio.

    ``stats[0] += proposals``, ``stats[1] += accepted`` (a proposal equal to the
    current topic counts as accepted), ``stats[2] += table rebuilds``.
    ``work`` needs ``3 * D + 6 * K`` floats, ``iwork`` ``2 * K`` ints.

    ``precision``: the Mahalanobis distances come from the precision cache (``P`` ...
    ``xx`` as in :func:`sweep_cgs_precision`, kept in step by
    :func:`topic_move_precision`) instead of forward substitutions with the factors;
    with ``precision=False`` the cache arrays are not touched (may be empty).
    """
    K = alpha.shape[0]
    D = emb.shape[1]
    y = work[2 * D : 3 * D]
    fresh_lt = work[3 * D : 3 * D + K]
    doc_w = work[3 * D + K : 3 * D + 2 * K]
    scaled = work[3 * D + 2 * K : 3 * D + 3 * K]
    doc_topics = iwork[:K]
    small = iwork[K : 2 * K]
    large = iwork[:K]  # used only while building, when doc_topics is not live
    # fresh_lt[k] is valid for this token iff stamp[k] == i; stamp reuses work's tail
    stamp = work[3 * D + 3 * K : 3 * D + 4 * K]
    Qall = work[3 * D + 4 * K : 3 * D + 5 * K]
    log_alpha = work[3 * D + 5 * K : 3 * D + 6 * K]
    for k in range(K):
        stamp[k] = -1.0
        log_alpha[k] = math.log(alpha[k])
    # broken = -1: the general code below with a correct MH step (tests compare it with
    # the fast path, which serves fresh_doc=False)
    fast = not fresh_doc and broken == 0
    xx_owner = -1  # the token whose outer product xx holds (precision only)
    for i in range(start, stop):
        d = tok_doc[i]
        w = tok_word[i]
        x = emb[w]
        s = z[i]
        n_dk[d, s] -= 1
        rebuild = uses[w] < 0 or uses[w] >= rebuild_every
        if precision and (rebuild or not fast):
            _outer_packed(x, xx)  # else built when first needed
            xx_owner = i
        if rebuild or not fast:
            # the token stays in topic s; its fresh density under s without it comes
            # from its Mahalanobis distance under the current topic s (_log_t_without)
            fresh_lt[s] = _fresh_log_t_without(s, x, precision, Pp, Pmu, muPmu, xx, mu, R,
                                               invd, kappa_k, nu_k, logdet, y)  # fmt: skip
            stamp[s] = i
        if rebuild:
            if precision:
                all_topics_quad(x, Pp, Pmu, muPmu, xx, Qall)
            else:
                for k in range(K):
                    Qall[k] = _forward_sqnorm(R[k], invd[k], x, mu[k], y)
            _build_alias(
                w, Qall, alpha, tconst, tscale, texp, stale_logw, stale_logq, stale_t,
                alias_prob, alias_idx, scaled, small, large, s, fresh_lt[s],
            )  # fmt: skip
            uses[w] = 0
            stats[2] += 1
        uses[w] += 1
        row = stale_logw[w]
        if fast:
            # The MH steps with the stale document term (fresh_doc=False). The proposal
            # is then q(k) ∝ (n_dk + alpha_k) t~(v | k), the conditional with stale
            # densities, so in the acceptance ratio p(t) q(c) / (p(c) q(t)) the count
            # factors cancel: it is [t(v | t) / t~(v | t)] / [t(v | c) / t~(v | c)]. The
            # document term uses the table's linear weights (no exp or log per topic),
            # and a fresh density is computed only for a proposal other than the current
            # topic. (Written out here: a call passing this many arrays costs more than
            # the whole step.)
            lin = stale_t[w]
            nd = 0
            p_doc = 0.0
            for k in range(K):
                n = n_dk[d, k]
                if n > 0:
                    e = n * lin[k]
                    doc_topics[nd] = k
                    doc_w[nd] = e
                    p_doc += e
                    nd += 1
            cur = s
            for _ in range(mh_steps):
                u = rand_uniform(rng) * (p_doc + 1.0)  # the alias term's mass is 1 (lin)
                if u < p_doc:
                    acc = 0.0
                    t = doc_topics[nd - 1]
                    for j in range(nd):
                        acc += doc_w[j]
                        if u < acc:
                            t = doc_topics[j]
                            break
                else:
                    col = int(rand_uniform(rng) * K)
                    if col >= K:
                        col = K - 1
                    t = col if rand_uniform(rng) < alias_prob[w, col] else alias_idx[w, col]
                stats[0] += 1
                if t == cur:
                    stats[1] += 1
                    continue
                if precision and xx_owner != i:
                    _outer_packed(x, xx)
                    xx_owner = i
                if stamp[s] != i:
                    fresh_lt[s] = _fresh_log_t_without(
                        s, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd, kappa_k, nu_k, logdet, y
                    )
                    stamp[s] = i
                if stamp[t] != i:
                    fresh_lt[t] = _fresh_log_t(t, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd,
                                               tconst, tscale, texp, y)  # fmt: skip
                    stamp[t] = i
                log_ratio = (fresh_lt[t] - (row[t] - log_alpha[t])) - (
                    fresh_lt[cur] - (row[cur] - log_alpha[cur])
                )
                if math.log(rand_uniform(rng)) < log_ratio:
                    cur = t
                    stats[1] += 1
            _finish_token(i, d, s, cur, x, z, n_dk, precision, mu, R, invd, logdet, kappa_k, nu_k,
                          tconst, tscale, texp, P, Pp, Pmu, muPmu, moves, W, work)  # fmt: skip
            continue
        # sparse document term, relative to a reference m to avoid underflow
        nd = 0
        m = stale_logq[w]
        for k in range(K):
            if n_dk[d, k] > 0:
                if fresh_doc:
                    if k != s:
                        fresh_lt[k] = _fresh_log_t(k, x, precision, Pp, Pmu, muPmu, xx, mu, R,
                                                   invd, tconst, tscale, texp, y)  # fmt: skip
                        stamp[k] = i
                    lt = fresh_lt[k]
                else:
                    lt = row[k] - math.log(alpha[k])
                v = math.log(n_dk[d, k]) + lt
                doc_topics[nd] = k
                doc_w[nd] = v
                if v > m:
                    m = v
                nd += 1
        p_doc = 0.0
        for j in range(nd):
            e = math.exp(doc_w[j] - m)
            doc_w[j] = e
            p_doc += e
        q_stale = math.exp(stale_logq[w] - m)
        # current topic: fresh target and proposal weight
        cur = s
        lp_cur = math.log(n_dk[d, s] + alpha[s]) + fresh_lt[s]
        lq_cur = _log_q(s, d, n_dk, fresh_doc, fresh_lt, row, alpha, m)
        for _ in range(mh_steps):
            u = rand_uniform(rng) * (p_doc + q_stale)
            if u < p_doc:
                acc = 0.0
                t = doc_topics[nd - 1]
                for j in range(nd):
                    acc += doc_w[j]
                    if u < acc:
                        t = doc_topics[j]
                        break
            else:
                col = int(rand_uniform(rng) * K)
                if col >= K:
                    col = K - 1
                t = col if rand_uniform(rng) < alias_prob[w, col] else alias_idx[w, col]
            stats[0] += 1
            if t == cur:
                stats[1] += 1
                continue
            if stamp[t] != i:
                fresh_lt[t] = _fresh_log_t(t, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd,
                                           tconst, tscale, texp, y)  # fmt: skip
                stamp[t] = i
            lp_t = math.log(n_dk[d, t] + alpha[t]) + fresh_lt[t]
            lq_t = _log_q(t, d, n_dk, fresh_doc, fresh_lt, row, alpha, m)
            ua = rand_uniform(rng)
            if broken == 1:
                accept = True
            elif broken == 2:
                # log-densities used as if they were densities (the Java bug)
                accept = ua * lp_cur * math.exp(lq_t) < lp_t * math.exp(lq_cur)
            else:
                accept = math.log(ua) < (lp_t - lp_cur) + (lq_cur - lq_t)
            if accept:
                cur = t
                lp_cur = lp_t
                lq_cur = lq_t
                stats[1] += 1
        _finish_token(i, d, s, cur, x, z, n_dk, precision, mu, R, invd, logdet, kappa_k, nu_k,
                      tconst, tscale, texp, P, Pp, Pmu, muPmu, moves, W, work)  # fmt: skip


@njit(cache=True, inline="always")
def _finish_token(
    i: int,
    d: int,
    s: int,
    cur: int,
    x: np.ndarray,
    z: np.ndarray,
    n_dk: np.ndarray,
    precision: bool,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    P: np.ndarray,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    moves: np.ndarray,
    W: np.ndarray,
    work: np.ndarray,
) -> None:
    # token i (in topic s, counted out of n_dk[d]) ends in topic cur: move it if needed
    n_dk[d, cur] += 1
    if cur != s and precision:
        topic_move_precision(s, x, -1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst,
                             tscale, texp, P, Pp, Pmu, muPmu, moves, W, work)  # fmt: skip
        topic_move_precision(cur, x, 1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst,
                             tscale, texp, P, Pp, Pmu, muPmu, moves, W, work)  # fmt: skip
        z[i] = cur
    elif cur != s:
        topic_move(s, x, -1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
        topic_move(cur, x, 1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
        z[i] = cur


@njit(cache=True, inline="always")
def _fresh_log_t_without(
    s: int,
    x: np.ndarray,
    precision: bool,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    xx: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    logdet: np.ndarray,
    y: np.ndarray,
) -> float:
    # eq. (1) under topic s without the token x that it holds; xx as in _fresh_log_t
    if precision:
        q = _one_topic_quad(s, x, Pp, Pmu, muPmu, xx)
    else:
        q = _forward_sqnorm(R[s], invd[s], x, mu[s], y)
    return _log_t_without(s, q, x.shape[0], kappa_k, nu_k, logdet)


@njit(cache=True, inline="always")
def _fresh_log_t(
    k: int,
    x: np.ndarray,
    precision: bool,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    xx: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    y: np.ndarray,
) -> float:
    # eq. (1) under topic k with the current parameters; xx must hold x's outer product
    if precision:
        q = _one_topic_quad(k, x, Pp, Pmu, muPmu, xx)
    else:
        q = _forward_sqnorm(R[k], invd[k], x, mu[k], y)
    return tconst[k] - texp[k] * math.log1p(q * tscale[k])


@njit(cache=True, inline="always")
def _log_q(
    k: int,
    d: int,
    n_dk: np.ndarray,
    fresh_doc: bool,
    fresh_lt: np.ndarray,
    row: np.ndarray,
    alpha: np.ndarray,
    m: float,
) -> float:
    # log of the unnormalised proposal weight n_dk t'(x|k) + alpha_k t~(x|k), minus m
    stale = math.exp(row[k] - m)
    n = n_dk[d, k]
    if n > 0:
        lt = fresh_lt[k] if fresh_doc else row[k] - math.log(alpha[k])
        return math.log(n * math.exp(lt - m) + stale)
    return math.log(stale)


# --------------------------------------------------------------------------- log joint


@njit(cache=True)
def log_joint(
    n_dk: np.ndarray,
    alpha: np.ndarray,
    counts_k: np.ndarray,
    R: np.ndarray,
    kappa0: float,
    nu0: float,
    logdet_psi0: float,
    D: int,
) -> float:
    """``log p(z, v)`` with theta, mu and Sigma integrated out.

    Dirichlet-multinomial per document plus, per topic, the Normal-inverse-Wishart
    marginal likelihood (Murphy 2012, eq. 4.213 / the paper's ref.):
    ``-N_k D/2 log pi + log Gamma_D(nu_k/2) - log Gamma_D(nu/2) + nu/2 log|Psi|
    - nu_k/2 log|Psi_k| + D/2 (log kappa - log kappa_k)``.
    """
    n_docs, K = n_dk.shape
    sa = 0.0
    lga = 0.0
    for k in range(K):
        sa += alpha[k]
        lga += math.lgamma(alpha[k])
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
        n = counts_k[k]
        nuk = nu0 + n
        kapk = kappa0 + n
        out += -0.5 * n * D * _LOG_PI
        for j in range(D):
            out += math.lgamma(0.5 * (nuk - j)) - math.lgamma(0.5 * (nu0 - j))
        out += 0.5 * nu0 * logdet_psi0 - 0.5 * nuk * _logdet(R[k])
        out += 0.5 * D * (math.log(kappa0) - math.log(kapk))
    return out


# --------------------------------------------------------------------------- fixed topics


@njit(cache=True, nogil=True)
def sweep_fixed(
    tok_doc: np.ndarray,
    tok_word: np.ndarray,
    z: np.ndarray,
    loglik: np.ndarray,
    alpha: np.ndarray,
    n_dk: np.ndarray,
    rng: np.ndarray,
    logw: np.ndarray,
) -> None:
    """Gibbs pass over held-out tokens with the topics fixed (section 5.2, "G-LDA (fix)").

    ``p(z_i = k) ∝ (n_dk + alpha_k) exp(loglik[w_i, k])`` with ``theta_d`` integrated out
    and ``loglik`` the per-(word type, topic) log density of the learned topics.
    """
    K = alpha.shape[0]
    for i in range(z.shape[0]):
        d = tok_doc[i]
        w = tok_word[i]
        n_dk[d, z[i]] -= 1
        for k in range(K):
            logw[k] = math.log(n_dk[d, k] + alpha[k]) + loglik[w, k]
        new = _sample_log(logw, K, rand_uniform(rng))
        n_dk[d, new] += 1
        z[i] = new


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
