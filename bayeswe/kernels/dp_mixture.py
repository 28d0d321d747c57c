"""Kernels of the collapsed Gibbs sampler of a DP mixture of Gaussians (NIW components).

The model is that of ``models/dp_mixture.stan`` without truncation: a partition ``z``
of the ``N`` points from the Chinese restaurant process with concentration ``alpha``
(Gimpel, lecture 15, "Chinese Restaurant Process"), ``alpha ~ Gamma(a, b)`` (shape,
rate), and per cluster ``Sigma ~ IW(nu0, Psi0)``, ``mu | Sigma ~ N(mu0, Sigma /
kappa0)``, integrated out. Three moves, each leaving ``p(z, alpha | y)`` invariant:

* :func:`gibbs_sweep`: Neal (2000), algorithm 3 (eq. 3.7 with the cluster parameters
  integrated out): point ``i`` joins occupied cluster ``k`` with probability
  proportional to ``n_k^{-i} t_k(y_i)`` and a new cluster with ``alpha t_0(y_i)``, where
  ``t_k`` is the cluster's posterior predictive, a multivariate Student t
  (Murphy 2007, "Conjugate Bayesian analysis of the Gaussian distribution", the NIW
  posterior predictive):
  ``t_{nu_n - P + 1}(mu_n, Psi_n (kappa_n + 1) / (kappa_n (nu_n - P + 1)))``.
* :func:`split_merge`: Dahl's sequentially-allocated split-merge (SAMS; Dahl 2003,
  "An improved merge-split sampler for conjugate Dirichlet process mixture models",
  Tech. Rep. 1086, U. Wisconsin), a Metropolis-Hastings move with Jain & Neal's (2004)
  acceptance ratio for a split (prior ratio x likelihood ratio / proposal
  probability; the equation numbers of both papers are not quoted here because they
  could not be checked against the papers): pick two points ``i != j`` at random; if they
  share a cluster, propose a split allocating the cluster's other points one by one,
  in a random order, to ``i``'s or ``j``'s side with probability proportional to
  ``|side| t_side(y)`` (given the points placed before); else propose the merge. The
  acceptance ratio of a split is (its inverse for a merge, with ``q`` the probability
  of allocating the existing two clusters that way)::

      alpha Gamma(n_i) Gamma(n_j) / Gamma(n_i + n_j)     (CRP prior ratio)
      x m(S_i) m(S_j) / m(S_i u S_j)                     (NIW marginal likelihoods)
      / q(split)                                         (merge proposal is certain)

  with ``m`` the NIW marginal likelihood (Murphy 2007, eq. 266).
* :func:`sample_alpha`: Escobar & West (1995), the auxiliary-variable update: with ``K``
  clusters, ``eta | alpha ~ Beta(alpha + 1, N)``, then ``alpha | eta, K`` is the
  mixture ``pi Gamma(a + K, b - log eta) + (1 - pi) Gamma(a + K - 1, b - log eta)``
  with ``pi / (1 - pi) = (a + K - 1) / (N (b - log eta))``.

Bookkeeping: each occupied cluster keeps its size, posterior mean ``mu_n`` and the lower
Cholesky factor of ``Psi_n``. A point joining a cluster changes ``Psi_n`` by the rank-1
update ``kappa / (kappa + 1) (y - mu)(y - mu)'`` (Das, Zaheer & Dyer 2015, eq. 4, in
``mu``'s form) and leaving it by the downdate ``kappa / (kappa - 1) (y - mu)(y - mu)'``
(``kappa``, ``mu`` before the move), so a move costs O(P^2). Cluster slots are reused
through a free stack; the occupied ones are listed in ``active`` (swap-remove), so
a point's move visits the occupied clusters only. The last three slots (``N`` to
``N + 2``) are the split-merge's scratch clusters.

Random numbers: one xoshiro256+ state per chain (:func:`bayeswe.kernels.lda_cgs.next_double`);
points visited in index order, so a move is a deterministic function of its inputs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bayeswe.kernels.lda_cgs import next_double

__all__ = [
    "Clusters",
    "Prior",
    "add_point",
    "build_clusters",
    "chol_rank1",
    "cluster_log_marginal",
    "gamma_draw",
    "gibbs_sweep",
    "log_joint",
    "log_predictive",
    "make_prior",
    "new_clusters",
    "predictive_log_density",
    "remove_point",
    "sample_alpha",
    "split_merge",
]

_LOG_PI = math.log(math.pi)


class Prior(NamedTuple):
    """The NIW prior, the gamma prior of alpha, and the empty cluster's t constants."""

    mu0: np.ndarray  #: (P,)
    L0: np.ndarray  #: (P, P) lower Cholesky factor of Psi0
    kappa0: float
    nu0: float
    logdet0: float  #: log|Psi0|
    alpha_shape: float
    alpha_rate: float


class Clusters(NamedTuple):
    """Per-slot statistics (``N + 3`` slots) and the list of occupied slots."""

    n: np.ndarray  #: int64 (S,): points in the slot
    mu: np.ndarray  #: (S, P): posterior mean mu_n
    L: np.ndarray  #: (S, P, P): lower Cholesky factor of Psi_n
    logdet: np.ndarray  #: (S,): log|Psi_n|
    active: np.ndarray  #: int64 (S,): the occupied slots, first ``counts[0]`` valid
    pos: np.ndarray  #: int64 (S,): position of a slot in ``active`` (-1: not occupied)
    free: np.ndarray  #: int64 (S,): stack of free slots, first ``counts[1]`` valid
    counts: np.ndarray  #: int64 (2,): occupied clusters, free slots
    work: np.ndarray  #: (4, P) scratch vectors


def make_prior(
    mu0: np.ndarray, Psi0: np.ndarray, kappa0: float, nu0: float, a: float, b: float
) -> Prior:
    """The :class:`Prior` of the data's hyperparameters (Cholesky factor computed here)."""
    L0 = np.linalg.cholesky(np.asarray(Psi0, dtype=np.float64))
    logdet0 = 2.0 * float(np.log(np.diag(L0)).sum())
    mu = np.ascontiguousarray(mu0, dtype=np.float64)
    return Prior(mu, np.ascontiguousarray(L0), float(kappa0), float(nu0), logdet0, a, b)


def new_clusters(N: int, P: int) -> Clusters:
    """Empty slots for ``N`` points (all free, the scratch slots excluded)."""
    S = N + 3
    free = np.arange(N - 1, -1, -1, dtype=np.int64)  # slot 0 popped first
    free = np.concatenate([free, np.zeros(3, dtype=np.int64)])
    return Clusters(
        n=np.zeros(S, dtype=np.int64),
        mu=np.zeros((S, P)),
        L=np.zeros((S, P, P)),
        logdet=np.zeros(S),
        active=np.zeros(S, dtype=np.int64),
        pos=np.full(S, -1, dtype=np.int64),
        free=free,
        counts=np.array([0, N], dtype=np.int64),
        work=np.zeros((4, P)),
    )


# --------------------------------------------------------------------------- random numbers


@njit(cache=True)
def _normal(rng: np.ndarray) -> float:
    # Box-Muller, one of the pair used (1 - u in (0, 1] keeps the log finite)
    u1 = 1.0 - next_double(rng)
    u2 = next_double(rng)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@njit(cache=True)
def gamma_draw(shape: float, rng: np.ndarray) -> float:
    """A ``Gamma(shape, 1)`` draw: Marsaglia & Tsang (2000), boosted for ``shape < 1``."""
    boost = 1.0
    if shape < 1.0:
        boost = (1.0 - next_double(rng)) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = _normal(rng)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = 1.0 - next_double(rng)
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v * boost


@njit(cache=True)
def sample_alpha(alpha: float, K: int, N: int, a: float, b: float, rng: np.ndarray) -> float:
    """One Escobar & West (1995) auxiliary-variable update of ``alpha`` (module docstring)."""
    x = gamma_draw(alpha + 1.0, rng)
    y = gamma_draw(float(N), rng)
    eta = x / (x + y)  # Beta(alpha + 1, N)
    rate = b - math.log(eta)
    odds = (a + K - 1.0) / (N * rate)
    shape = a + K if next_double(rng) * (1.0 + odds) < odds else a + K - 1.0
    return gamma_draw(shape, rng) / rate


# --------------------------------------------------------------------------- linear algebra


@njit(cache=True)
def chol_rank1(L: np.ndarray, x: np.ndarray, sign: float) -> bool:
    """``L L' + sign x x'`` factored in place (lower ``L``, O(P^2)); ``x`` is overwritten.

    The classic column sweep (Stewart 1998, section 4.3). Returns False if a downdate
    would leave the matrix not positive definite (``L`` then partly updated).
    """
    P = L.shape[0]
    for k in range(P):
        lkk = L[k, k]
        r2 = lkk * lkk + sign * x[k] * x[k]
        if not r2 > 0.0:
            return False
        r = math.sqrt(r2)
        c = r / lkk
        s = x[k] / lkk
        L[k, k] = r
        for i in range(k + 1, P):
            lik = (L[i, k] + sign * s * x[i]) / c
            L[i, k] = lik
            x[i] = c * x[i] - s * lik
    return True


@njit(cache=True, inline="always")
def _forward_sqnorm(L: np.ndarray, y: np.ndarray, mu: np.ndarray, w: np.ndarray) -> float:
    # |L^{-1}(y - mu)|^2 by forward substitution
    P = L.shape[0]
    q = 0.0
    for i in range(P):
        s = y[i] - mu[i]
        for j in range(i):
            s -= L[i, j] * w[j]
        s /= L[i, i]
        w[i] = s
        q += s * s
    return q


@njit(cache=True, inline="always")
def _log_t(P: int, kappa: float, nu: float, logdet: float, q: float) -> float:
    # Murphy (2007), NIW posterior predictive: df = nu - P + 1, scale Psi (kappa + 1) /
    # (kappa df); the Mahalanobis distance under that scale over df is q kappa / (kappa + 1)
    return (
        math.lgamma(0.5 * (nu + 1.0))
        - math.lgamma(0.5 * (nu - P + 1.0))
        - 0.5 * P * (_LOG_PI + math.log((kappa + 1.0) / kappa))
        - 0.5 * logdet
        - 0.5 * (nu + 1.0) * math.log1p(q * kappa / (kappa + 1.0))
    )


@njit(cache=True)
def log_predictive(prior: Prior, cl: Clusters, k: int, y: np.ndarray) -> float:
    """``log t_k(y)``: the posterior predictive of slot ``k`` (the prior's if empty)."""
    w = cl.work[3]
    P = y.shape[0]
    n = cl.n[k]
    if n == 0:
        q = _forward_sqnorm(prior.L0, y, prior.mu0, w)
        return _log_t(P, prior.kappa0, prior.nu0, prior.logdet0, q)
    q = _forward_sqnorm(cl.L[k], y, cl.mu[k], w)
    return _log_t(P, prior.kappa0 + n, prior.nu0 + n, cl.logdet[k], q)


@njit(cache=True)
def _logdet(L: np.ndarray) -> float:
    s = 0.0
    for i in range(L.shape[0]):
        s += math.log(L[i, i])
    return 2.0 * s


@njit(cache=True)
def _reset(prior: Prior, cl: Clusters, k: int) -> None:
    cl.n[k] = 0
    cl.mu[k, :] = prior.mu0
    cl.L[k, :, :] = prior.L0
    cl.logdet[k] = prior.logdet0


@njit(cache=True)
def add_point(prior: Prior, cl: Clusters, k: int, y: np.ndarray) -> None:
    """Point ``y`` joins slot ``k``: ``Psi += kappa/(kappa+1) (y-mu)(y-mu)'`` (rank-1)."""
    if cl.n[k] == 0:
        _reset(prior, cl, k)
    kappa = prior.kappa0 + cl.n[k]
    x = cl.work[0]
    f = math.sqrt(kappa / (kappa + 1.0))
    for i in range(y.shape[0]):
        x[i] = f * (y[i] - cl.mu[k, i])
    chol_rank1(cl.L[k], x, 1.0)
    for i in range(y.shape[0]):
        cl.mu[k, i] += (y[i] - cl.mu[k, i]) / (kappa + 1.0)
    cl.n[k] += 1
    cl.logdet[k] = _logdet(cl.L[k])


@njit(cache=True)
def remove_point(prior: Prior, cl: Clusters, k: int, y: np.ndarray) -> bool:
    """Point ``y`` leaves slot ``k`` (rank-1 downdate); False if the downdate failed."""
    n = cl.n[k]
    if n == 1:
        _reset(prior, cl, k)  # exactly the prior: no rounding left behind
        return True
    kappa = prior.kappa0 + n
    x = cl.work[0]
    f = math.sqrt(kappa / (kappa - 1.0))
    for i in range(y.shape[0]):
        x[i] = f * (y[i] - cl.mu[k, i])
    ok = chol_rank1(cl.L[k], x, -1.0)
    for i in range(y.shape[0]):
        cl.mu[k, i] = (kappa * cl.mu[k, i] - y[i]) / (kappa - 1.0)
    cl.n[k] = n - 1
    cl.logdet[k] = _logdet(cl.L[k])
    return ok


# --------------------------------------------------------------------------- slots


@njit(cache=True)
def _open_slot(prior: Prior, cl: Clusters) -> int:
    cl.counts[1] -= 1
    k = cl.free[cl.counts[1]]
    _reset(prior, cl, k)
    cl.pos[k] = cl.counts[0]
    cl.active[cl.counts[0]] = k
    cl.counts[0] += 1
    return k


@njit(cache=True)
def _close_slot(cl: Clusters, k: int) -> None:
    last = cl.active[cl.counts[0] - 1]
    p = cl.pos[k]
    cl.active[p] = last
    cl.pos[last] = p
    cl.pos[k] = -1
    cl.counts[0] -= 1
    cl.free[cl.counts[1]] = k
    cl.counts[1] += 1


@njit(cache=True)
def build_clusters(prior: Prior, cl: Clusters, y: np.ndarray, z: np.ndarray) -> bool:
    """Fill empty ``cl`` from labels ``z`` (any non-negative ints); ``z`` becomes slot ids.

    Points are added in index order, so the result is a function of the partition and
    its labels only. Returns False if a label is negative.
    """
    N = y.shape[0]
    slot_of = np.full(N + 1, -1, dtype=np.int64)
    for i in range(N):
        lab = z[i]
        if lab < 0 or lab > N:
            return False
        if slot_of[lab] < 0:
            slot_of[lab] = _open_slot(prior, cl)
        k = slot_of[lab]
        add_point(prior, cl, k, y[i])
        z[i] = k
    return True


# --------------------------------------------------------------------------- moves


@njit(cache=True)
def _draw_log(logp: np.ndarray, m: int, u: float) -> int:
    top = logp[0]
    for c in range(1, m):
        top = max(top, logp[c])
    total = 0.0
    for c in range(m):
        logp[c] = math.exp(logp[c] - top)
        total += logp[c]
    target = u * total
    acc = 0.0
    for c in range(m - 1):
        acc += logp[c]
        if target < acc:
            return c
    return m - 1


@njit(cache=True, nogil=True)
def gibbs_sweep(
    prior: Prior, cl: Clusters, y: np.ndarray, z: np.ndarray, alpha: float, rng: np.ndarray
) -> bool:
    """One pass of Neal's algorithm 3 over the points in index order (in place).

    Returns False if a rank-1 downdate failed (a numerically singular cluster).
    """
    N = y.shape[0]
    logp = np.empty(N + 1)
    log_alpha = math.log(alpha)
    ok = True
    for i in range(N):
        k = z[i]
        ok &= remove_point(prior, cl, k, y[i])
        if cl.n[k] == 0:
            _close_slot(cl, k)
        K = cl.counts[0]
        for c in range(K):
            s = cl.active[c]
            logp[c] = math.log(cl.n[s]) + log_predictive(prior, cl, s, y[i])
        # the new cluster: an empty slot's predictive is the prior's
        q = _forward_sqnorm(prior.L0, y[i], prior.mu0, cl.work[3])
        logp[K] = log_alpha + _log_t(y.shape[1], prior.kappa0, prior.nu0, prior.logdet0, q)
        c = _draw_log(logp, K + 1, next_double(rng))
        k = _open_slot(prior, cl) if c == K else cl.active[c]
        add_point(prior, cl, k, y[i])
        z[i] = k
    return ok


@njit(cache=True)
def _mvlgamma(x: float, P: int) -> float:
    s = 0.25 * P * (P - 1) * _LOG_PI
    for j in range(P):
        s += math.lgamma(x - 0.5 * j)
    return s


@njit(cache=True)
def cluster_log_marginal(prior: Prior, n: int, logdet: float, P: int) -> float:
    """``log m(S)`` of a cluster of ``n`` points whose ``log|Psi_n|`` is ``logdet``.

    Murphy (2007), eq. 266; 0 for an empty cluster.
    """
    if n == 0:
        return 0.0
    kn = prior.kappa0 + n
    nn = prior.nu0 + n
    return (
        -0.5 * n * P * _LOG_PI
        + _mvlgamma(0.5 * nn, P)
        - _mvlgamma(0.5 * prior.nu0, P)
        + 0.5 * prior.nu0 * prior.logdet0
        - 0.5 * nn * logdet
        + 0.5 * P * (math.log(prior.kappa0) - math.log(kn))
    )


@njit(cache=True)
def log_joint(prior: Prior, cl: Clusters, N: int, alpha: float) -> float:
    """``log p(y, z, alpha)``: gamma prior, CRP (exchangeable partition), NIW marginals."""
    P = cl.mu.shape[1]
    K = cl.counts[0]
    a, b = prior.alpha_shape, prior.alpha_rate
    out = a * math.log(b) - math.lgamma(a) + (a - 1.0) * math.log(alpha) - b * alpha
    out += K * math.log(alpha) + math.lgamma(alpha) - math.lgamma(alpha + N)
    for c in range(K):
        k = cl.active[c]
        out += math.lgamma(cl.n[k]) + cluster_log_marginal(prior, cl.n[k], cl.logdet[k], P)
    return out


@njit(cache=True)
def _copy_slot(cl: Clusters, src: int, dst: int) -> None:
    cl.n[dst] = cl.n[src]
    cl.mu[dst, :] = cl.mu[src]
    cl.L[dst, :, :] = cl.L[src]
    cl.logdet[dst] = cl.logdet[src]


@njit(cache=True)
def _allocate(
    prior: Prior,
    cl: Clusters,
    y: np.ndarray,
    members: np.ndarray,
    m: int,
    side: np.ndarray,
    forced: bool,
    rng: np.ndarray,
) -> float:
    """Dahl's sequential allocation of ``members[:m]`` to scratch slots ``N`` and ``N + 1``.

    The slots hold the two anchors already. Each member goes to side ``s`` with
    probability proportional to ``n_s t_s(y)``; ``forced``: to ``side[r]`` (the
    probability of the existing split is computed), else drawn and written to ``side``.
    Returns the log probability of the allocation.
    """
    N = y.shape[0]
    logq = 0.0
    for r in range(m):
        p = members[r]
        la = math.log(cl.n[N]) + log_predictive(prior, cl, N, y[p])
        lb = math.log(cl.n[N + 1]) + log_predictive(prior, cl, N + 1, y[p])
        top = max(la, lb)
        lse = top + math.log(math.exp(la - top) + math.exp(lb - top))
        if not forced:
            side[r] = 0 if next_double(rng) < math.exp(la - lse) else 1
        logq += (la if side[r] == 0 else lb) - lse
        add_point(prior, cl, N + side[r], y[p])
    return logq


@njit(cache=True, nogil=True)
def split_merge(
    prior: Prior,
    cl: Clusters,
    y: np.ndarray,
    z: np.ndarray,
    alpha: float,
    rng: np.ndarray,
    members: np.ndarray,
    side: np.ndarray,
) -> int:
    """One SAMS split-merge proposal (module docstring); returns 1 split, -1 merge, 0 none.

    ``members`` and ``side`` are int64 scratch arrays of length ``N``.
    """
    N, P = y.shape
    if N < 2:
        return 0
    i = int(next_double(rng) * N)
    j = int(next_double(rng) * (N - 1))
    j += j >= i
    ci, cj = z[i], z[j]
    m = 0
    for p in range(N):  # the other points of the two clusters, in a random order
        if (z[p] == ci or z[p] == cj) and p != i and p != j:
            r = int(next_double(rng) * (m + 1))  # inside-out Fisher-Yates shuffle
            members[m] = members[r]
            side[m] = side[r]
            members[r] = p
            side[r] = 0 if z[p] == ci else 1
            m += 1
    for s in range(N, N + 3):
        _reset(prior, cl, s)
    add_point(prior, cl, N, y[i])
    add_point(prior, cl, N + 1, y[j])
    logq = _allocate(prior, cl, y, members, m, side, ci != cj, rng)
    na, nb = cl.n[N], cl.n[N + 1]
    # the merged cluster: the existing one (split) or built in scratch slot N + 2 (merge)
    if ci == cj:
        merged_logdet = cl.logdet[ci]
    else:
        add_point(prior, cl, N + 2, y[i])
        add_point(prior, cl, N + 2, y[j])
        for r in range(m):
            add_point(prior, cl, N + 2, y[members[r]])
        merged_logdet = cl.logdet[N + 2]
    log_split = (
        math.log(alpha)
        + math.lgamma(na)
        + math.lgamma(nb)
        - math.lgamma(na + nb)
        + cluster_log_marginal(prior, na, cl.logdet[N], P)
        + cluster_log_marginal(prior, nb, cl.logdet[N + 1], P)
        - cluster_log_marginal(prior, na + nb, merged_logdet, P)
    )
    u = 1.0 - next_double(rng)
    if ci == cj:
        if math.log(u) >= log_split - logq:
            return 0
        k = _open_slot(prior, cl)
        _copy_slot(cl, N, ci)
        _copy_slot(cl, N + 1, k)
        z[j] = k
        for r in range(m):
            if side[r] == 1:
                z[members[r]] = k
        return 1
    if math.log(u) >= logq - log_split:
        return 0
    _copy_slot(cl, N + 2, ci)
    _reset(prior, cl, cj)
    _close_slot(cl, cj)
    z[j] = ci
    for r in range(m):
        z[members[r]] = ci
    return -1


@njit(cache=True, nogil=True)
def predictive_log_density(
    prior: Prior, cl: Clusters, N: int, alpha: float, x: np.ndarray, out: np.ndarray
) -> None:
    """``log p(x_m | z, y, alpha)`` of each row of ``x`` into ``out`` (label-free).

    ``sum_k n_k / (N + alpha) t_k(x) + alpha / (N + alpha) t_0(x)``: the density of a new
    point given the partition, Rao-Blackwellised over the cluster parameters and the
    new point's cluster.
    """
    K = cl.counts[0]
    logp = np.empty(K + 1)
    P = x.shape[1]
    norm = math.log(N + alpha)
    for r in range(x.shape[0]):
        for c in range(K):
            k = cl.active[c]
            logp[c] = math.log(cl.n[k]) + log_predictive(prior, cl, k, x[r])
        q = _forward_sqnorm(prior.L0, x[r], prior.mu0, cl.work[3])
        logp[K] = math.log(alpha) + _log_t(P, prior.kappa0, prior.nu0, prior.logdet0, q)
        top = logp[0]
        for c in range(1, K + 1):
            top = max(top, logp[c])
        s = 0.0
        for c in range(K + 1):
            s += math.exp(logp[c] - top)
        out[r] = top + math.log(s) - norm
