"""Pólya-Gamma blocked Gibbs for identified SGNS: kernels, PG draws, determinism, checkpoints.

Tiers (STYLE.md §6): kernels against NumPy twins; PG draw moments against the
analytic mean and variance (z-tests with the Monte Carlo standard error);
same-seed reproducibility across Numba thread counts (subprocesses); checkpoint
and resume giving the uninterrupted chain bit for bit; argument validation. The
comparison with Stan's NUTS is in ``test_pg_gibbs_nuts.py``, SBC in
``test_pg_gibbs_sbc.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bayeswe
from bayeswe.kernels import pg_gibbs as kern
from bayeswe.kernels.pg_table import TABLE_MAX_ABS_Z
from bayeswe.samplers import pg_gibbs as pg
from bayeswe.samplers.pg_gibbs import SGNSGibbsProblem, init_state, polya_gamma, sample_pg_gibbs

# ----------------------------------------------------------------------------- kernels


def test_cholesky_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(size=(7, 7))
    spd = a @ a.T + 0.1 * np.eye(7)
    work = spd.copy()
    assert kern.cholesky_lower(work)
    np.testing.assert_allclose(np.tril(work), np.linalg.cholesky(spd), rtol=1e-12, atol=1e-12)
    assert not kern.cholesky_lower(-np.eye(3))


@pytest.mark.parametrize("K", [1, 3, 4, 8, 13])
def test_precision_accumulation_matches_numpy(K: int) -> None:
    """The register-blocked SYRK: 4 x 4 blocks, diagonal blocks, leftover rows, partial chunk."""
    rng = np.random.default_rng(K)
    cov = rng.normal(size=(30, K))
    n_pairs = 2 * kern.CHUNK + 7
    other = rng.integers(0, 30, size=n_pairs + 5).astype(np.int32)
    omega = rng.gamma(2.0, size=n_pairs + 5)
    kappa = rng.normal(size=n_pairs + 5)
    prec = np.full((K, K), 0.5)  # added to, not overwritten
    b = np.full(K, -1.0)
    kern.accumulate_precision(
        prec, b, cov, other, omega, kappa, 5, n_pairs + 5, np.empty((K, kern.CHUNK))
    )
    x = cov[other[5:]]
    expected = 0.5 + x.T @ (omega[5:, None] * x)
    np.testing.assert_allclose(np.tril(prec), np.tril(expected), rtol=1e-12, atol=1e-12)
    assert np.all(np.triu(prec, 1) == np.triu(np.full((K, K), 0.5), 1))  # upper untouched
    np.testing.assert_allclose(b, -1.0 + x.T @ kappa[5:], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("relax", [0.0, -0.6])
def test_block_update_matches_numpy_twin(relax: float) -> None:
    """beta = P^-1 b + L'^-1 eps with P = X' Omega X + lambda^-2 I, b = X' kappa (Alg. 1).

    Overrelaxed (``relax = a != 0``): ``m + a (beta - m) + sqrt(1 - a^2) L'^-1 eps``.
    """
    rng = np.random.default_rng(1)
    K, R = 4, 5
    cov = rng.normal(size=(9, K))
    counts = np.array([3, 0, 6, 1, 4])  # row 1 has no pairs: a prior draw
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    other = rng.integers(0, 9, size=ptr[-1]).astype(np.int32)
    kappa = rng.normal(size=ptr[-1])
    omega = rng.gamma(2.0, size=ptr[-1])
    eps = rng.normal(size=(R, K))
    rows = np.array([4, 0, 2, 1, 3], dtype=np.int64)
    beta = rng.normal(size=(R, K))
    lam2 = 0.7**-2
    expected = beta.copy()
    for i in range(R):
        x = cov[other[ptr[i] : ptr[i + 1]]]
        w = omega[ptr[i] : ptr[i + 1]]
        prec = x.T @ (w[:, None] * x) + lam2 * np.eye(K)
        chol = np.linalg.cholesky(prec)
        mean = np.linalg.solve(prec, x.T @ kappa[ptr[i] : ptr[i + 1]])
        noise = np.linalg.solve(chol.T, eps[i])
        current = beta[rows[i]]
        expected[rows[i]] = mean + relax * (current - mean) + np.sqrt(1 - relax**2) * noise
    failed = kern.block_update(beta, cov, rows, ptr, other, kappa, omega, eps, lam2, relax)
    assert failed == 0
    np.testing.assert_allclose(beta, expected, rtol=1e-10, atol=1e-12)
    eta = kern.block_linear_predictor(beta, cov, rows, ptr, other)
    np.testing.assert_allclose(
        eta, np.repeat(beta[rows], counts, axis=0).dot(cov.T)[np.arange(ptr[-1]), other]
    )


def test_log_joint_is_stans_lp(small_data: dict[str, Any]) -> None:
    """Eq. (5) plus the prior of the free rows without constants, as ``lp__`` of the Stan model."""
    problem = SGNSGibbsProblem.from_stan_data(small_data)
    rng = np.random.default_rng(2)
    rho = rng.normal(size=(problem.V, problem.K))
    alpha = problem.full_alpha(rng.normal(size=(len(problem.free_index), problem.K)))
    t = np.asarray(small_data["target_word"]) - 1
    c = np.asarray(small_data["context_word"]) - 1
    x = np.sum(rho[t] * alpha[c], axis=1)
    n, n_pos = np.asarray(small_data["n"]), np.asarray(small_data["n_pos"])
    expected = n_pos @ x - n @ np.logaddexp(0, x)
    expected -= 0.5 * (np.sum(rho**2) + np.sum(alpha[problem.free_index] ** 2))
    assert problem.log_joint(rho, alpha) == pytest.approx(expected, rel=1e-12)


def test_conditional_of_one_word_matches_quadrature() -> None:
    """Many PG/Gaussian steps for one vector with fixed covariates give the exact conditional.

    The conditional of ``rho_w`` given ``alpha`` is a 2-d logistic regression posterior,
    computed on a grid. 10,000 steps of a well-mixing chain: the posterior sd of the
    mean is below sd / sqrt(ESS >~ 3,000), so 4 sd/sqrt(1,500) is a conservative bound.
    """
    x = np.array([[1.0, 0.3], [-0.5, 1.2], [0.8, -0.9]])
    n = np.array([10.0, 4.0, 7.0])
    n_pos = np.array([8.0, 1.0, 3.0])
    rng = np.random.default_rng(3)
    beta = np.zeros((1, 2))
    rows, ptr, other = np.array([0]), np.array([0, 3]), np.arange(3, dtype=np.int32)
    draws = np.empty((10_000, 2))
    for s in range(len(draws)):
        eta = kern.block_linear_predictor(beta, x, rows, ptr, other)
        omega = polya_gamma(n, eta, rng)
        kern.block_update(
            beta, x, rows, ptr, other, n_pos - n / 2, omega, rng.normal(size=(1, 2)), 1.0
        )
        draws[s] = beta[0]
    g = np.linspace(-5, 5, 801)
    b1, b2 = np.meshgrid(g, g, indexing="ij")
    eta = b1[..., None] * x[:, 0] + b2[..., None] * x[:, 1]
    logp = (n_pos * eta - n * np.logaddexp(0, eta)).sum(-1) - 0.5 * (b1**2 + b2**2)
    p = np.exp(logp - logp.max())
    p /= p.sum()
    mean = np.array([(p * b1).sum(), (p * b2).sum()])
    sd = np.sqrt(np.array([(p * b1**2).sum(), (p * b2**2).sum()]) - mean**2)
    np.testing.assert_array_less(np.abs(draws.mean(0) - mean), 4 * sd / np.sqrt(1_500))
    np.testing.assert_allclose(draws.std(0), sd, rtol=0.06)


# ----------------------------------------------------------------------------- PG draws


@pytest.mark.parametrize("method", ["auto", "devroye", "saddle", "table"])
@pytest.mark.parametrize(
    ("h", "z"), [(1.0, 0.0), (1.0, 2.0), (5.0, -1.5), (37.0, 0.7), (300.0, 3.0), (2.0, 25.0)]
)
def test_polya_gamma_moments(h: float, z: float, method: str) -> None:
    """E[omega] = h/(2z) tanh(z/2) and Var = h/(4z^3) (sinh z - z) / cosh^2(z/2) (Polson et al.).

    Each exact sampler the Gibbs sampler may pick, and the per-draw choice itself (the
    table sampler at any integer h, within its |z| < 2.5).
    polyagamma's saddle-point sampler is used only from h = 24 on: at h = 1 its mean
    is off by 20-37 standard errors (its test cases below h = 24 are skipped).
    z-test of the sample mean with its standard error (sd / sqrt(N), independent
    draws) at |z| < 4.5 (two-sided 7e-6 per case); the variance within 4.5 of its
    standard error computed from the sample fourth central moment.
    """
    if method == "saddle" and h < kern.SADDLE_MIN_H:
        pytest.skip("polyagamma's saddle-point sampler is not exact for small h")
    if method == "table" and abs(z) >= TABLE_MAX_ABS_Z:
        pytest.skip("the table sampler is for |z| < 2.5")
    N = 100_000 if method != "devroye" or h < 100 else 20_000  # Devroye costs O(h)
    rng = np.random.default_rng(int(h * 100 + z * 10) % 2**32)
    out = np.empty(N)
    w = polya_gamma(np.full(N, h), np.full(N, z), rng, out=out, method=method)
    assert w is out
    if z == 0:
        mean, var = h / 4, h / 24
    else:
        mean = h / (2 * z) * np.tanh(z / 2)
        var = h / (4 * z**3) * (np.sinh(z) - z) / np.cosh(z / 2) ** 2
    assert abs(w.mean() - mean) < 4.5 * w.std() / np.sqrt(N)
    m4 = np.mean((w - w.mean()) ** 4)
    assert abs(w.var() - var) < 4.5 * np.sqrt((m4 - w.var() ** 2) / N)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("h", "z"),
    [(1.0, 200.0), (7.0, -400.0), (23.0, 2000.0), (24.0, 30.0), (100.0, -45.0), (3000.0, 500.0)],
)
def test_polya_gamma_moments_at_large_z(h: float, z: float) -> None:
    """The per-draw choice where polyagamma 2.0.2's Devroye (|z| >= 180) and saddle-point
    (|z| >= 28) samplers return means 64-3200 and 2.75 times too large: the tests of
    :func:`test_polya_gamma_moments` with the large-|z| moments in their stable form
    (Var = h/(4z^3) (2 tanh(z/2) - z / cosh^2(z/2))).
    """
    N = 100_000
    rng = np.random.default_rng(int(h * 7 + abs(z)) % 2**32)
    w = polya_gamma(np.full(N, h), np.full(N, z), rng)
    a = abs(z)
    mean = h / (2 * a) * np.tanh(a / 2)
    var = h / (4 * a**3) * (2 * np.tanh(a / 2) - a / np.cosh(min(a / 2, 350.0)) ** 2)
    assert abs(w.mean() - mean) < 4.5 * w.std() / np.sqrt(N)
    m4 = np.mean((w - w.mean()) ** 4)
    assert abs(w.var() - var) < 4.5 * np.sqrt((m4 - w.var() ** 2) / N)


def test_pg_method_choice() -> None:
    """Below h = 24 the table sampler up to |z| = 2.5 and Devroye's method beyond, the
    saddle-point sampler from 24 on, each inside the |z| where it is correct, the
    alternate sampler beyond, the gamma series from h = 65536 on; bad requests refused."""
    h = np.array([1, 23, 7, 5, 23, 24, 300, 24.5, 1, 23, 24, 300])
    z = np.array([0, -2.49, 2.5, -149, 3, 0, -19.9, 5, 150, -1e4, 20, -25])
    T, D, S, A = kern.PG_TABLE, kern.PG_DEVROYE, kern.PG_SADDLE, kern.PG_ALTERNATE
    expected = [T, T, D, D, D, S, S, S, A, A, A, A]
    assert list(pg.pg_methods(h, z)) == expected
    assert [kern.pg_method(a, b) for a, b in zip(h, z, strict=True)] == expected
    # from h = 65536 on the bounded-time gamma series, whatever z (but the point mass)
    h = np.array([65535, 65536, 2**31 - 1, 2**31 - 1, 2**31 - 1, 65536])
    z = np.array([0, 0, 1.5, -25, 1e4, 1e40])
    expected = [S, kern.PG_SERIES, kern.PG_SERIES, kern.PG_SERIES, kern.PG_SERIES]
    expected.append(kern.PG_POINT_MASS)
    assert list(pg.pg_methods(h, z)) == expected
    assert [kern.pg_method(a, b) for a, b in zip(h, z, strict=True)] == expected
    # beyond |z| = 1e32 the draw is the mean h / (2|z|) to double precision (relative sd
    # 1/sqrt(h|z|) < 1e-16); polyagamma's samplers would not return from |z| ~ 1e60
    huge = np.array([1e32, -1e60, 1e300])
    assert set(pg.pg_methods(np.full(3, 5.0), huge)) == {kern.PG_POINT_MASS}
    for native in (True, False) if kern.HAVE_NATIVE_PG else (False,):
        w = polya_gamma(np.full(3, 5.0), huge, np.random.default_rng(0), native=native)
        np.testing.assert_array_equal(w, 5.0 / (2 * np.abs(huge)))
    z = np.zeros(2)
    with pytest.raises(ValueError, match="method"):
        polya_gamma(np.ones(2), z, np.random.default_rng(0), method="alternate")
    with pytest.raises(ValueError, match="integer"):
        polya_gamma(np.array([2.5, 30.0]), z, np.random.default_rng(0))
    for method in ("devroye", "table"):
        with pytest.raises(ValueError, match="integer"):
            polya_gamma(np.array([2.0, 30.5]), z, np.random.default_rng(0), method=method)
    with pytest.raises(ValueError, match=r"\|z\| < 2.5"):
        polya_gamma(np.ones(2), np.array([0.0, -2.5]), np.random.default_rng(0), method="table")


def test_polya_gamma_same_stream_same_draws() -> None:
    h, z = np.full(1000, 3.0), np.linspace(-4, 4, 1000)
    a = polya_gamma(h, z, np.random.default_rng(5))
    b = polya_gamma(h, z, np.random.default_rng(5))
    assert np.array_equal(a, b)
    assert polya_gamma(h[:0], z[:0], np.random.default_rng(5)).shape == (0,)


@pytest.mark.skipif(not kern.HAVE_NATIVE_PG, reason="polyagamma's C symbol is not available")
def test_native_pg_matches_the_python_api() -> None:
    """The guard of the C call from Numba: same draws as polyagamma's Python API, same moments.

    Shapes 1..400 cover every sampler of the per-draw choice (the Numba choice
    and its NumPy twin ``pg_methods`` must agree for the draws to be equal).
    """
    rng = np.random.default_rng(0)
    h = rng.integers(1, 400, size=20_000).astype(float)
    h[:10_000] = rng.integers(1, 24, size=10_000)
    z = rng.normal(0, 3, size=h.size)
    z[:50] = rng.choice([-1, 1], size=50) * rng.uniform(20, 500, size=50)
    assert set(pg.pg_methods(h, z)) == {
        kern.PG_TABLE,
        kern.PG_DEVROYE,
        kern.PG_SADDLE,
        kern.PG_ALTERNATE,
    }
    native = polya_gamma(h, z, np.random.default_rng(9), native=True)
    python = polya_gamma(h, z, np.random.default_rng(9), native=False)
    assert np.array_equal(np.sort(native), np.sort(python))
    np.testing.assert_array_equal(native, python)
    # moments: sum of standardized deviations is N(0, 1) under the analytic mean/var
    a = np.abs(z)
    mean = h / (2 * a) * np.tanh(a / 2)
    var = h / (4 * a**3) * (2 * np.tanh(a / 2) - a / np.cosh(a / 2) ** 2)
    for draws in (native, python):
        assert abs(np.sum((draws - mean) / np.sqrt(var)) / np.sqrt(h.size)) < 4.5


def test_large_shapes_are_exact_not_normal_approximations() -> None:
    """PG(200, z) equals the sum of 200 independent PG(1, z): compare third central moments.

    polyagamma's default hybrid draws such shapes from a normal approximation (third
    moment 0, against about 2.4 here); with these sizes it misses by about 6 standard
    errors (checked when this test was written), the exact samplers agree within 4.5.
    """
    N, h, z = 40_000, 200, 1.0
    rng = np.random.default_rng(4)
    direct = polya_gamma(np.full(N, float(h)), np.full(N, z), rng)
    summed = polya_gamma(np.ones(N * h), np.full(N * h, z), rng).reshape(N, h).sum(1)

    def third(x: np.ndarray) -> tuple[float, float]:
        c = x - x.mean()
        return float(np.mean(c**3)), float(np.sqrt((np.mean(c**6) - np.mean(c**3) ** 2) / N))

    (m_d, se_d), (m_s, se_s) = third(direct), third(summed)
    assert m_s > 4.5 * se_s  # the target is clearly skewed
    assert abs(m_d - m_s) < 4.5 * np.hypot(se_d, se_s)


def test_native_and_python_steps_give_the_same_chain(small_data: dict[str, Any]) -> None:
    problem = SGNSGibbsProblem.from_stan_data(small_data)
    a = b = init_state(problem, seed=3, chain=1)
    for _ in range(3):
        a, _ = pg.step(problem, a, inner_steps=2, native=kern.HAVE_NATIVE_PG)
        b, _ = pg.step(problem, b, inner_steps=2, native=False)
    assert np.array_equal(a.rho, b.rho) and np.array_equal(a.alpha, b.alpha)


# ----------------------------------------------------------------------------- sampler


def test_output_has_the_stan_names_dims_and_coords(small_data: dict[str, Any]) -> None:
    idata = bayeswe.fit(
        "sgns_identified",
        small_data,
        method="pg-gibbs",
        seed=4,
        chains=2,
        iter_warmup=5,
        iter_sampling=9,
        thin=2,
    )
    post = idata.posterior
    assert set(post.data_vars) == {"rho", "alpha", "alpha_free"}
    assert post["rho"].dims == post["alpha"].dims == ("chain", "draw", "word", "dim")
    assert post["alpha_free"].dims == ("chain", "draw", "free_word", "dim")
    assert post["rho"].shape == (2, 5, 8, 2)
    assert list(post["word"].values) == list(small_data["vocabulary"])
    fixed = np.asarray(small_data["fixed_index"]) - 1
    assert np.array_equal(
        post["alpha"].values[:, :, fixed], np.broadcast_to(small_data["fixed_alpha"], (2, 5, 2, 2))
    )
    free = [w for i, w in enumerate(small_data["vocabulary"]) if i not in set(fixed)]
    assert list(post["free_word"].values) == free
    assert idata.sample_stats["lp"].shape == (2, 5)
    for key, value in {
        "method": "pg-gibbs",
        "iter_sampling": 9,
        "iter_warmup": 5,
        "thin": 2,
        "seed": 4,
        "init": "map",  # the default start (chains from the prior can strand in other modes)
    }.items():
        assert idata.attrs[key] == value
    assert idata.attrs["threads_per_chain"] >= 1 and idata.attrs["wall_time"] > 0
    assert json.loads(idata.attrs["options"])["thin"] == 2
    # lp is the log joint of the stored draw
    problem = SGNSGibbsProblem.from_stan_data(small_data)
    r, a = post["rho"].values[1, 3], post["alpha"].values[1, 3]
    assert idata.sample_stats["lp"].values[1, 3] == pytest.approx(problem.log_joint(r, a))


def test_same_seed_same_draws_other_seed_other_draws(small_data: dict[str, Any]) -> None:
    opts = {"iter_warmup": 3, "iter_sampling": 10, "chains": 2}
    a = sample_pg_gibbs(small_data, seed=7, **opts)
    b = sample_pg_gibbs(small_data, seed=7, **opts)
    c = sample_pg_gibbs(small_data, seed=8, **opts)
    assert np.array_equal(a.posterior["rho"].values, b.posterior["rho"].values)
    assert not np.array_equal(a.posterior["rho"].values, c.posterior["rho"].values)
    # chains have their own streams
    assert not np.array_equal(a.posterior["rho"].values[0], a.posterior["rho"].values[1])


_DETERMINISM_SCRIPT = """
import hashlib, sys
import numpy as np
import numba
from bayeswe.samplers import pg_gibbs as pg
pg.GROUP_COST, pg.GROUP_MIN_SPLIT = 40, 0  # many stream groups: threads share them
from bayeswe.sgns import simulate_sgns
sim = simulate_sgns(30, 3, 20000, seed=12)
fixed = np.arange(27, 30)
data = sim.data.stan_data(3, prior_sd=1.0, fixed_index=fixed, fixed_alpha=sim.alpha[fixed])
idata = pg.sample_pg_gibbs(data, seed=99, chains=2, iter_warmup=3, iter_sampling=6, inner_steps=2)
h = hashlib.sha256()
for name in ("rho", "alpha"):
    h.update(np.ascontiguousarray(idata.posterior[name].values).tobytes())
h.update(np.ascontiguousarray(idata.sample_stats["lp"].values).tobytes())
print(numba.get_num_threads(), idata.attrs["threads_per_chain"], h.hexdigest())
"""


def test_same_seed_same_draws_for_any_thread_count() -> None:
    """The draws are a function of the seed alone: NUMBA_NUM_THREADS=1 and 2 agree bit for bit."""
    results = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads}
        out = subprocess.run(
            [sys.executable, "-c", _DETERMINISM_SCRIPT],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
        n_threads, used, digest = out.stdout.split()
        assert n_threads == threads and used == threads
        results.append(digest)
    assert results[0] == results[1]


def test_words_without_data_are_drawn_from_the_prior(make_data: Any) -> None:
    """A word with no pairs as target has conditional = prior N(0, lambda^2), independent draws."""
    data = make_data(6, 2, 2000, seed=5, prior_sd=0.5)
    keep = np.asarray(data["target_word"]) != 1  # word 0 never a target
    for key in ("target_word", "context_word", "n", "n_pos"):
        data[key] = np.asarray(data[key])[keep]
    data["P"] = int(keep.sum())
    idata = sample_pg_gibbs(data, seed=3, chains=1, iter_warmup=0, iter_sampling=4000)
    x = idata.posterior["rho"].values[0, :, 0, :]
    assert np.all(np.abs(x.mean(0)) < 4.5 * 0.5 / np.sqrt(len(x)))
    np.testing.assert_allclose(x.std(0), 0.5, rtol=4.5 / np.sqrt(2 * len(x)))


def test_initial_values_as_for_stan(small_data: dict[str, Any]) -> None:
    """``inits`` takes Stan's ``rho``/``alpha_free`` (what ``fit_sgns(init="map")`` passes)."""
    problem = SGNSGibbsProblem.from_stan_data(small_data)
    rng = np.random.default_rng(0)
    rho = rng.normal(size=(8, 2))
    free = rng.normal(size=(6, 2))
    opts = {"seed": 5, "chains": 2, "iter_warmup": 0, "iter_sampling": 3}
    a = sample_pg_gibbs(small_data, inits={"rho": rho, "alpha_free": free}, **opts)
    b = sample_pg_gibbs(small_data, init={"rho": rho, "alpha": problem.full_alpha(free)}, **opts)
    assert np.array_equal(a.posterior["rho"].values, b.posterior["rho"].values)
    per_chain = [{"rho": rho, "alpha_free": free}] * 2
    c = sample_pg_gibbs(small_data, inits=per_chain, **opts)
    assert np.array_equal(a.posterior["alpha"].values, c.posterior["alpha"].values)
    with pytest.raises(ValueError, match="not both"):
        sample_pg_gibbs(small_data, init="map", inits={"rho": rho, "alpha_free": free}, **opts)
    with pytest.raises(ValueError, match="3 chains|2 mappings"):
        sample_pg_gibbs(small_data, inits=per_chain, **{**opts, "chains": 3})


# ----------------------------------------------------------------------------- checkpoints


def _digest(idata: Any) -> str:
    h = hashlib.sha256()
    for name in ("rho", "alpha", "alpha_free"):
        h.update(np.ascontiguousarray(idata.posterior[name].values).tobytes())
    h.update(np.ascontiguousarray(idata.sample_stats["lp"].values).tobytes())
    return h.hexdigest()


class _Stop(Exception):
    pass


def test_resumed_run_equals_uninterrupted_run(small_data: dict[str, Any], tmp_path: Path) -> None:
    opts = {"iter_warmup": 6, "iter_sampling": 15, "thin": 2, "inner_steps": 2, "chains": 2}
    reference = sample_pg_gibbs(small_data, seed=11, **opts)
    path = tmp_path / "run.ckpt"

    def interrupt(done: int) -> None:
        if done == 13:
            raise _Stop

    with pytest.raises(_Stop):
        sample_pg_gibbs(
            small_data, seed=11, checkpoint=path, checkpoint_every=5, callback=interrupt, **opts
        )
    assert path.exists()
    # no temporary file left; the draws are in a memory-mapped file beside the state,
    # and the (released) lock file stays
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".run.ckpt.lock",
        "run.ckpt",
        "run.ckpt.draws.npy",
    ]
    # the checkpoint holds each chain's state and the warm-up trace, not the draws:
    # those fill a memory-mapped file of one row per kept draw (2 chains x 8 kept x
    # (8 x 2 rho + 8 x 2 alpha + lp))
    with np.load(path) as f:
        assert set(f.files) == {
            "meta", "warmup_lp", "chain0.rho", "chain0.alpha", "chain1.rho", "chain1.alpha"
        }  # fmt: skip
    assert np.load(tmp_path / "run.ckpt.draws.npy", mmap_mode="r").shape == (2, 8, 33)
    resumed = sample_pg_gibbs(small_data, seed=11, checkpoint=path, checkpoint_every=5, **opts)
    assert resumed.attrs["resumed"] == 1
    assert _digest(resumed) == _digest(reference)
    # a finished checkpoint returns the same result again without sampling
    again = sample_pg_gibbs(small_data, seed=11, checkpoint=path, **opts)
    assert _digest(again) == _digest(reference)


def test_state_step_resume_equals_continuous(small_data: dict[str, Any]) -> None:
    """The low-level API: the state is everything the chain needs."""
    problem = SGNSGibbsProblem.from_stan_data(small_data)
    s = init_state(problem, seed=5, chain=0)
    for _ in range(4):
        s, _info = pg.step(problem, s)
    copy = pg.GibbsState(
        s.rho.copy(), s.alpha.copy(), s.sweep, json.loads(json.dumps(s.rng_states))
    )
    a, b = s, copy
    for _ in range(3):
        a, info_a = pg.step(problem, a)
        b, info_b = pg.step(problem, b)
    assert np.array_equal(a.rho, b.rho) and np.array_equal(a.alpha, b.alpha)
    assert info_a.lp == info_b.lp and info_a.failed == 0 and a.sweep == 7


def test_checkpoint_of_another_run_is_refused(small_data: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "run.ckpt"
    opts = {"chains": 1, "iter_warmup": 1, "iter_sampling": 2, "checkpoint": path}
    sample_pg_gibbs(small_data, seed=1, **opts)
    with pytest.raises(ValueError, match="another run"):
        sample_pg_gibbs(small_data, seed=2, **opts)
    with pytest.raises(ValueError, match="another run.*overrelax"):
        sample_pg_gibbs(small_data, seed=1, overrelax=-0.5, **opts)
    (tmp_path / "run.ckpt.draws.npy").unlink()
    with pytest.raises(ValueError, match="lost its draws file"):
        sample_pg_gibbs(small_data, seed=1, **opts)


def test_a_checkpoint_of_an_earlier_layout_is_refused_by_name(
    small_data: dict[str, Any], tmp_path: Path
) -> None:
    """Checkpoints written before the common driver hold another layout: refused, named."""
    import json

    from bayeswe.samplers.checkpoint import write_npz_atomic

    path = tmp_path / "run.ckpt"
    opts = {"chains": 1, "iter_warmup": 2, "iter_sampling": 6, "checkpoint": path}
    sample_pg_gibbs(small_data, seed=3, **opts)
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files if k != "meta"}
        meta = json.loads(str(f["meta"]))
    write_npz_atomic(path, arrays, {**meta, "version": 3})
    with pytest.raises(ValueError, match="layout version 3; this bayeswe reads version 4"):
        sample_pg_gibbs(small_data, seed=3, **opts)


# ----------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    "options",
    [
        {"iter_sampling": 0},
        {"thin": 1.5},
        {"inner_steps": 0},
        {"init": "random"},
        {"iter_samples": 10},
        {"callback": 3},
        {"inits": 0.5},
        {"omega": "per-pair"},
        {"overrelax": -1.0},
        {"overrelax": 1.0},
        {"overrelax": float("nan")},
        {"overrelax": "-0.5"},
    ],
)
def test_bad_options_raise_before_running(small_data: dict[str, Any], options: dict) -> None:
    with pytest.raises(ValueError):
        bayeswe.fit("sgns_identified", small_data, method="pg-gibbs", seed=1, **options)


def test_deprecated_names_of_the_run_lengths(small_data: dict[str, Any]) -> None:
    """burn_in/sweeps/threads of earlier releases are iter_warmup/iter_sampling/
    threads_per_chain, with a DeprecationWarning naming the new option."""
    kw = dict(method="pg-gibbs", seed=2, init="prior", thin=2)
    a = bayeswe.fit("sgns_identified", small_data, iter_warmup=3, iter_sampling=6, **kw)
    with pytest.warns(DeprecationWarning) as caught:
        b = bayeswe.fit("sgns_identified", small_data, burn_in=3, sweeps=6, threads=1, **kw)
    renamed = [str(w.message) for w in caught if str(w.message).startswith("option '")]
    assert sorted(m.split("'")[5] for m in renamed) == [
        "iter_sampling", "iter_warmup", "threads_per_chain",
    ]  # fmt: skip
    np.testing.assert_array_equal(a.posterior["rho"].values, b.posterior["rho"].values)
    assert b.posterior.sizes["draw"] == 3
    with pytest.raises(ValueError, match="not both"):
        bayeswe.fit("sgns_identified", small_data, sweeps=6, iter_sampling=6, **kw)


def test_pg_gibbs_is_for_the_sgns_models_only(small_data: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="sgns_identified, sgns"):
        bayeswe.fit("lda", small_data, method="pg-gibbs", seed=1)
    with pytest.raises(ValueError, match="gauge_moves applies to the unidentified"):
        bayeswe.fit("sgns_identified", small_data, method="pg-gibbs", seed=1, gauge_moves=True)
    with pytest.raises(ValueError, match="seed"):
        bayeswe.fit("sgns_identified", small_data, method="pg-gibbs", seed=-1)
