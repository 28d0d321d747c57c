"""The bounded-time PG draws for large shapes: moments, the stated skewness bound, and
the largest pair counts the data accept, drawn and sampled under a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from bayeswe.kernels import pg_gibbs as kern
from bayeswe.kernels.pg_series import SERIES_TERMS, pg1_moments
from bayeswe.samplers import pg_gibbs as pg
from bayeswe.samplers.pg_gibbs import polya_gamma

#: The largest pair count ``SGNSData`` accepts.
H_MAX = float(2**31 - 1)
ROOT = Path(__file__).resolve().parents[2]


def _series_sums(z: float, terms: int = 4_000_000) -> tuple[np.ndarray, ...]:
    """``1 / d_k`` for the first ``terms`` k, ``d_k = 2 pi^2 (k - 1/2)^2 + z^2 / 2``."""
    k = np.arange(1, terms + 1) - 0.5
    return (1.0 / (2 * np.pi**2 * k**2 + z * z / 2),)


@pytest.mark.parametrize("z", [0.0, 1e-9, 1e-3, 0.0999, 0.1, 0.5, 1.0, -5.0, 20.0, 300.0])
def test_pg1_moments_are_the_series_sums(z: float) -> None:
    """Mean = sum 1/d_k, variance = sum 1/d_k^2 (the cumulants of the gamma series),
    summed directly; the mean's sum gets the integral of its 1/k^2 tail."""
    (inv,) = _series_sums(z)
    mean_sum = inv.sum() + 1.0 / (2 * np.pi**2 * len(inv))
    mean, var = pg1_moments(z)
    assert mean == pytest.approx(mean_sum, rel=1e-11)
    assert var == pytest.approx(np.sum(inv**2), rel=1e-11)


def test_the_stated_skewness_bound_holds() -> None:
    """The docstring's claim: the tail gamma moves the skewness by at most 0.047/sqrt(h)
    over z (and by under 1e-8/sqrt(h) at z = 0); the mean and variance are exact by
    construction."""
    worst = 0.0
    for z in np.concatenate([[0.0], np.logspace(-2, 5, 57)]):
        (inv,) = _series_sums(z)
        tail = inv[SERIES_TERMS:]
        s1, s2, s3 = tail.sum(), np.sum(tail**2), np.sum(tail**3)
        shift = 2 * (s3 - s2**2 / s1) / np.sum(inv**2) ** 1.5
        assert shift >= 0.0
        worst = max(worst, shift)
        if z == 0.0:
            assert shift < 1e-8
    assert 0.04 < worst < 0.047


@pytest.mark.parametrize("h", [kern.SERIES_MIN_H, 1e6, H_MAX])
@pytest.mark.parametrize("z", [0.0, -1.4894, 19.0, 30.0, 1e4])
def test_series_moments(h: float, z: float) -> None:
    """Mean and variance of the draws the sampler takes from h = 65536 on, against PG's:
    z-tests at 4.5 standard errors (two-sided 7e-6 per case), as the exact samplers'."""
    N = 100_000
    rng = np.random.default_rng(int(np.log2(h) * 1000 + abs(z)) % 2**32)
    w = polya_gamma(np.full(N, h), np.full(N, z), rng)
    assert set(pg.pg_methods(np.array([h]), np.array([z]))) == {kern.PG_SERIES}
    mean, var = pg1_moments(z)
    mean, var = h * mean, h * var
    assert abs(w.mean() - mean) < 4.5 * w.std() / np.sqrt(N)
    m4 = np.mean((w - w.mean()) ** 4)
    assert abs(w.var() - var) < 4.5 * np.sqrt((m4 - w.var() ** 2) / N)


@pytest.mark.parametrize("z", [0.0, 3.0])
def test_series_skewness_is_pgs(z: float) -> None:
    """PG(h, z)'s skewness is 2 sum d_k^-3 / (sum d_k^-2)^1.5 / sqrt(h) (the cumulants of
    the series): 0.062 at h = 1000, z = 0, where a normal draw would have 0. The series
    draws (``method="series"``, which the sampler uses from h = 65536 on, where the
    skewness is too small to resolve) have it within 4.5 standard errors
    (``sqrt(6 / N)``, 0.0024 with 1e6 draws)."""
    N, h = 1_000_000, 1000.0
    w = polya_gamma(np.full(N, h), np.full(N, z), np.random.default_rng(11), method="series")
    (inv,) = _series_sums(z)
    target = 2 * np.sum(inv**3) / np.sum(inv**2) ** 1.5 / np.sqrt(h)
    c = w - w.mean()
    skew = np.mean(c**3) / np.mean(c**2) ** 1.5
    se = np.sqrt(6 / N)
    assert target > 10 * se
    assert abs(skew - target) < 4.5 * se


def test_native_and_python_series_draws_agree() -> None:
    h, z = np.full(500, 1e7), np.linspace(-40, 40, 500)
    if not kern.HAVE_NATIVE_PG:
        pytest.skip("polyagamma's C symbol is not available")
    a = polya_gamma(h, z, np.random.default_rng(2), native=True)
    b = polya_gamma(h, z, np.random.default_rng(2), native=False)
    np.testing.assert_array_equal(a, b)


def test_explicit_saddle_is_refused_where_it_may_not_return() -> None:
    with pytest.raises(ValueError, match="saddle"):
        polya_gamma(np.array([H_MAX]), np.zeros(1), np.random.default_rng(0), method="saddle")


_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from bayeswe.samplers.pg_gibbs import polya_gamma, sample_pg_gibbs
    from tests.samplers.conftest import identified_data
    # z where polyagamma 2.0.2's saddle-point sampler does not return at h = 2^31 - 1
    bad = [-1.4894, -19.89, -15.029, -8.467, 2.164, 3.108, 9.775, 11.028, 17.752]
    z = np.concatenate([bad, np.linspace(-40, 40, 2001)])
    h = np.full(z.size, 2.0**31 - 1)
    for native in (True, False):
        w = polya_gamma(h, z, np.random.default_rng(1), native=native)
        assert np.all(np.isfinite(w)) and np.all(w > 0)
    print("draws done", flush=True)
    data = identified_data(8, 2, 3000, seed=3)
    n = np.full(data["P"], 2**31 - 1, dtype=np.int64)
    data = dict(data, n=n, n_pos=n // 3)
    fit = sample_pg_gibbs(
        data, seed=1, chains=1, iter_warmup=10, iter_sampling=10, progress=False
    )
    assert np.all(np.isfinite(fit.posterior["rho"].values))
    print("sweeps done")
    """
)


def test_largest_counts_finish_in_bounded_time() -> None:
    """Pair counts of 2^31 - 1 (the largest ``SGNSData`` accepts), in a child process
    under a timeout: every draw returns, and PG-Gibbs sweeps over such data finish.
    (Most of the time is Numba compiling the kernels; the draws take milliseconds.)"""
    try:
        run = subprocess.run(
            [sys.executable, "-c", _SCRIPT],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])},
        )
    except subprocess.TimeoutExpired:
        pytest.fail("PG draws at the largest pair counts did not finish in 600 s")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["draws", "done", "sweeps", "done"]
