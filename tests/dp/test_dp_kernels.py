"""The DP-mixture kernels: bookkeeping, the Student-t predictive, and exactness.

The strongest check is the last one: for five points the posterior over all 52 set
partitions is computed exactly (CRP prior times NIW marginal likelihoods), and each
move of the sampler, alone or combined, must visit the partitions with those
frequencies within Monte Carlo error (batch-means standard errors).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln, multigammaln

from bayeswe.kernels import dp_mixture as kern
from bayeswe.samplers.lda_cgs import chain_stream

MU0 = np.array([0.5, -0.2])
PSI0 = np.array([[0.8, 0.2], [0.2, 0.5]])
KAPPA0, NU0 = 0.3, 3.5


def _prior(a: float = 2.0, b: float = 1.5, P: int = 2) -> kern.Prior:
    return kern.make_prior(MU0[:P], PSI0[:P, :P], KAPPA0, NU0, a, b)


def _points(N: int, seed: int, P: int = 2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = np.array([[-2.0, 0.0], [2.0, 1.0], [0.0, 3.0]])[:, :P]
    return centres[rng.integers(3, size=N)] + rng.normal(0.0, 0.7, size=(N, P))


def _posterior_niw(x: np.ndarray) -> tuple[float, float, np.ndarray, np.ndarray]:
    """``kappa_n, nu_n, mu_n, Psi_n`` of points ``x`` (Murphy 2007, eqs. 251-254)."""
    n, P = x.shape
    mean = x.mean(axis=0)
    c = x - mean
    kn, nn = KAPPA0 + n, NU0 + n
    mu_n = (KAPPA0 * MU0[:P] + n * mean) / kn
    d = mean - MU0[:P]
    psi_n = PSI0[:P, :P] + c.T @ c + (KAPPA0 * n / kn) * np.outer(d, d)
    return kn, nn, mu_n, psi_n


def _log_marginal(x: np.ndarray) -> float:
    """Murphy (2007) eq. 266, from scratch."""
    n, P = x.shape
    if n == 0:
        return 0.0
    kn, nn, _, psi_n = _posterior_niw(x)
    psi0 = PSI0[:P, :P]
    return float(
        -0.5 * n * P * np.log(np.pi) + multigammaln(0.5 * nn, P) - multigammaln(0.5 * NU0, P)
        + 0.5 * NU0 * np.linalg.slogdet(psi0)[1] - 0.5 * nn * np.linalg.slogdet(psi_n)[1]
        + 0.5 * P * (np.log(KAPPA0) - np.log(kn))
    )  # fmt: skip


def _check_bookkeeping(prior: kern.Prior, cl: kern.Clusters, y: np.ndarray, z: np.ndarray):
    N = y.shape[0]
    K = int(cl.counts[0])
    active = np.sort(cl.active[:K])
    assert np.array_equal(active, np.unique(z))
    assert (cl.pos[cl.active[:K]] == np.arange(K)).all()
    free = cl.free[: cl.counts[1]]
    assert K + free.size == N and not set(free) & set(active)
    assert (cl.pos[free] == -1).all()
    for k in active:
        x = y[z == k]
        kn, nn, mu_n, psi_n = _posterior_niw(x)
        assert cl.n[k] == x.shape[0]
        np.testing.assert_allclose(cl.mu[k], mu_n, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(cl.L[k] @ cl.L[k].T, psi_n, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(cl.L[k], np.linalg.cholesky(psi_n), rtol=1e-8, atol=1e-9)
        assert np.triu(cl.L[k], 1).max(initial=0) == 0.0
        assert cl.logdet[k] == pytest.approx(np.linalg.slogdet(psi_n)[1], rel=1e-10)


def test_statistics_and_factors_equal_a_recomputation_after_many_moves() -> None:
    N = 60
    y = _points(N, seed=1)
    prior = _prior()
    cl = kern.new_clusters(N, 2)
    z = np.zeros(N, dtype=np.int64)
    kern.build_clusters(prior, cl, y, z)
    _check_bookkeeping(prior, cl, y, z)
    rng = chain_stream(11, 0)
    members, side = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
    alpha, moves = 1.0, {1: 0, -1: 0}
    for _ in range(300):
        assert kern.gibbs_sweep(prior, cl, y, z, alpha, rng)
        for _ in range(3):
            r = kern.split_merge(prior, cl, y, z, alpha, rng, members, side)
            moves[r] = moves.get(r, 0) + 1
        alpha = kern.sample_alpha(alpha, int(cl.counts[0]), N, 2.0, 1.5, rng)
    assert moves[1] > 0 and moves[-1] > 0  # both kinds of move were accepted
    _check_bookkeeping(prior, cl, y, z)
    # the log joint from the kept statistics equals the one from scratch
    labels = np.unique(z)
    direct = (
        stats.gamma(2.0, scale=1 / 1.5).logpdf(alpha)
        + labels.size * np.log(alpha) + gammaln(alpha) - gammaln(alpha + N)
        + sum(gammaln((z == k).sum()) + _log_marginal(y[z == k]) for k in labels)
    )  # fmt: skip
    assert kern.log_joint(prior, cl, N, alpha) == pytest.approx(direct, rel=1e-11)


def test_predictive_is_the_student_t_and_the_ratio_of_marginals() -> None:
    y = _points(9, seed=2)
    prior = _prior()
    cl = kern.new_clusters(9, 2)
    z = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1], dtype=np.int64)
    kern.build_clusters(prior, cl, y, z)
    x = np.array([0.3, 1.7])
    for k, members in ((z[0], y[:8]), (z[8], y[8:])):
        kn, nn, mu_n, psi_n = _posterior_niw(members)
        df = nn - 2 + 1
        t = stats.multivariate_t(loc=mu_n, shape=psi_n * (kn + 1) / (kn * df), df=df)
        got = kern.log_predictive(prior, cl, k, x)
        assert got == pytest.approx(t.logpdf(x), rel=1e-12)
        ratio = _log_marginal(np.vstack([members, x])) - _log_marginal(members)
        assert got == pytest.approx(ratio, rel=1e-10)
    # an empty slot predicts with the prior: m({x})
    empty = int(cl.free[cl.counts[1] - 1])
    assert kern.log_predictive(prior, cl, empty, x) == pytest.approx(
        _log_marginal(x[None]), rel=1e-12
    )


def test_cluster_marginal_is_murphys_eq_266() -> None:
    y = _points(7, seed=3)
    prior = _prior()
    cl = kern.new_clusters(7, 2)
    z = np.zeros(7, dtype=np.int64)
    kern.build_clusters(prior, cl, y, z)
    got = kern.cluster_log_marginal(prior, 7, cl.logdet[z[0]], 2)
    assert got == pytest.approx(_log_marginal(y), rel=1e-12)


def test_rank1_update_and_downdate_round_trip() -> None:
    rng = np.random.default_rng(4)
    A = rng.normal(size=(4, 4))
    A = A @ A.T + 4 * np.eye(4)
    L = np.linalg.cholesky(A)
    v = rng.normal(size=4)
    assert kern.chol_rank1(L, v.copy(), 1.0)
    np.testing.assert_allclose(L @ L.T, A + np.outer(v, v), rtol=1e-12)
    assert kern.chol_rank1(L, v.copy(), -1.0)
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=1e-12, atol=1e-13)
    assert not kern.chol_rank1(L, 10 * v, -1.0)  # not positive definite: refused


def test_gamma_draws_have_the_gamma_moments() -> None:
    rng = chain_stream(5, 0)
    for shape in (0.3, 1.0, 4.5):
        x = np.array([kern.gamma_draw(shape, rng) for _ in range(40000)])
        assert abs(x.mean() - shape) < 4.5 * math.sqrt(shape / x.size)
        assert stats.kstest(x, stats.gamma(shape).cdf).pvalue > 1e-3


# --------------------------------------------------------------- exact enumeration


def _set_partitions(n: int) -> list[tuple[int, ...]]:
    """Every partition of ``range(n)`` as a restricted-growth string."""
    out = [(0,)]
    for _ in range(1, n):
        out = [p + (k,) for p in out for k in range(max(p) + 2)]
    return out


def _canonical(z: np.ndarray) -> tuple[int, ...]:
    seen: dict[int, int] = {}
    return tuple(seen.setdefault(int(k), len(seen)) for k in z)


def _log_partition_weight(y: np.ndarray, part: tuple[int, ...]) -> tuple[int, float]:
    """``K`` and ``sum_k [log Gamma(n_k) + log m(S_k)]`` of a partition."""
    lab = np.array(part)
    K = lab.max() + 1
    return K, sum(gammaln((lab == k).sum()) + _log_marginal(y[lab == k]) for k in range(K))


def _alpha_grid(N: int, a: float, b: float, points: int):
    """A grid on log alpha, alpha on it, and the part of ``log p(z, alpha)`` that does not
    depend on the partition ``z`` (add ``K log alpha``): the trapezoid rule's nodes."""
    la = np.linspace(-14, 8, points)
    al = np.exp(la)
    # log Gamma(alpha; a, b) + log alpha (Jacobian) + log [Gamma(alpha)/Gamma(alpha+N)]
    return la, al, a * la - b * al + gammaln(al) - gammaln(al + N)


def _exact_posterior(y: np.ndarray, alpha: float | None, a: float, b: float):
    """Posterior over partitions at fixed ``alpha`` or with ``alpha ~ Gamma(a, b)``
    integrated out (trapezoid rule on log alpha); also ``E[alpha | y]``."""
    parts = _set_partitions(y.shape[0])
    N = y.shape[0]
    K, w = np.array([_log_partition_weight(y, p) for p in parts]).T
    if alpha is not None:
        logp = w + K * np.log(alpha)
        p = np.exp(logp - logp.max())
        return parts, p / p.sum(), alpha
    la, al, base = _alpha_grid(N, a, b, 20001)
    joint = base[None, :] + K[:, None] * la[None, :] + w[:, None]
    top = joint.max()
    dens = np.exp(joint - top)
    mass = np.trapezoid(dens, la, axis=1)
    e_alpha = np.trapezoid((dens * al[None]).sum(axis=0), la) / mass.sum()
    return parts, mass / mass.sum(), e_alpha


def _run(y, prior, *, gibbs: bool, sm: int, alpha: float, resample: bool, sweeps: int, seed):
    N = y.shape[0]
    cl = kern.new_clusters(N, y.shape[1])
    z = np.zeros(N, dtype=np.int64)
    kern.build_clusters(prior, cl, y, z)
    rng = chain_stream(seed, 0)
    members, side = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
    zs = np.empty((sweeps, N), dtype=np.int64)
    alphas = np.empty(sweeps)
    for t in range(sweeps):
        if gibbs:
            kern.gibbs_sweep(prior, cl, y, z, alpha, rng)
        for _ in range(sm):
            kern.split_merge(prior, cl, y, z, alpha, rng, members, side)
        if resample:
            alpha = kern.sample_alpha(
                alpha, int(cl.counts[0]), N, prior.alpha_shape, prior.alpha_rate, rng
            )
        zs[t] = z
        alphas[t] = alpha
    _check_bookkeeping(prior, cl, y, z)
    return zs, alphas


def _batch_se(x: np.ndarray, batches: int = 50) -> np.ndarray:
    """Batch-means standard errors of the means of the columns of ``x``."""
    m = x[: x.shape[0] // batches * batches].reshape(batches, -1, *x.shape[1:]).mean(axis=1)
    return m.std(axis=0, ddof=1) / np.sqrt(batches)


@pytest.mark.parametrize(
    ("gibbs", "sm", "resample"),
    [(True, 0, False), (False, 2, False), (True, 1, True)],
    ids=["gibbs-only", "split-merge-only", "all-moves-alpha-resampled"],
)
def test_partition_frequencies_match_the_enumerated_posterior(gibbs, sm, resample) -> None:
    N, a, b, alpha = 5, 2.0, 1.5, 0.8
    y = _points(N, seed=6)
    y[:, 0] *= 0.5  # points close enough that many partitions have mass
    prior = _prior(a, b)
    parts, exact, e_alpha = _exact_posterior(y, None if resample else alpha, a, b)
    index = {p: i for i, p in enumerate(parts)}
    zs, alphas = _run(y, prior, gibbs=gibbs, sm=sm, alpha=alpha, resample=resample,
                      sweeps=100_000, seed=21)  # fmt: skip
    hit = np.zeros((zs.shape[0], len(parts)))
    hit[np.arange(zs.shape[0]), [index[_canonical(z)] for z in zs]] = 1.0
    freq = hit.mean(axis=0)
    se = _batch_se(hit)
    z_scores = (freq - exact) / np.maximum(se, 1e-4)
    # 52 partitions: |z| < 4.5 for all of them fails a correct sampler with prob ~ 4e-4
    assert np.abs(z_scores).max() < 4.5, (np.abs(z_scores).max(), parts[np.abs(z_scores).argmax()])
    assert 0.5 * np.abs(freq - exact).sum() < 0.02
    if resample:
        se_alpha = _batch_se(alphas[:, None])[0]
        assert abs(alphas.mean() - e_alpha) < 4.0 * se_alpha


def _exact_predictive(y: np.ndarray, held: np.ndarray, a: float, b: float) -> np.ndarray:
    """``log p(x_m | y)`` of each held-out point, exactly: the partitions of ``y``
    enumerated, ``alpha ~ Gamma(a, b)`` integrated by the trapezoid rule on log alpha,
    and the new point's density given a partition the CRP's
    ``(sum_k n_k m(S_k + x) / m(S_k) + alpha m(x)) / (N + alpha)``."""
    N = y.shape[0]
    la, al, base = _alpha_grid(N, a, b, 8001)
    num, den = np.zeros(len(held)), 0.0
    for part in _set_partitions(N):
        lab = np.array(part)
        K, w = _log_partition_weight(y, part)
        joint = np.exp(base + K * la + w)
        den += np.trapezoid(joint, la)
        for m, x in enumerate(held):
            seated = sum(
                (lab == k).sum()
                * math.exp(_log_marginal(np.vstack([y[lab == k], x])) - _log_marginal(y[lab == k]))
                for k in range(K)
            )
            new = math.exp(_log_marginal(x[None]))
            num[m] += np.trapezoid(joint * (seated + al * new) / (N + al), la)
    return np.log(num / den)


@pytest.mark.slow
def test_held_out_predictive_matches_the_enumerated_posterior() -> None:
    """bayeswe.fit's collapsed sampler (alpha resampled, split-merge on) against the exact
    posterior predictive of 7 points: each held-out point within 4 Monte Carlo standard
    errors. NUTS is held to the collapsed sampler on the same data in
    tests/samplers/test_dp_mixture.py."""
    import bayeswe
    from bayeswe.dp import DPMixtureData, log_pointwise_predictive

    rng = np.random.default_rng(3)
    y = np.vstack([rng.normal([-2, 0], 0.5, (3, 2)), rng.normal([2, 1], 0.5, (3, 2)), [[0, 3]]])
    held = np.array([[-2.0, 0.3], [2.3, 1.0], [0.3, 3.0], [0.0, 0.0]])
    a, b = 2.0, 1.5
    exact = _exact_predictive(y, held, a, b)
    data = DPMixtureData(y, truncation=20, alpha_shape=a, alpha_rate=b, mu0=MU0,
                         kappa0=KAPPA0, nu0=NU0, Psi0=PSI0)  # fmt: skip
    fit = bayeswe.fit("dp_mixture", data, method="cgs", seed=1, chains=4, iter_warmup=500,
                      iter_sampling=20_000, heldout=held)  # fmt: skip
    lp, se = log_pointwise_predictive(fit.posterior["heldout_log_density"].values)
    assert (np.abs(lp - exact) < 4 * se).all(), (lp - exact) / se
