"""The table sampler of PG(1, z) (``bayeswe.kernels.pg_table``): its density, its table, its draws.

The draws are checked against exact bin probabilities of ``PG(1, z)``, computed by
quadrature of the density ``cosh(z / 2) exp(-z^2 w / 2) f(w)``, with a chi-square test;
the moments of ``PG(h, z)`` sums are checked in ``test_pg_gibbs.py`` (method "table").
A table whose envelope is not a bound fails the same test (the test's power).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from bayeswe.kernels import pg_table as pt

# Bins for the goodness-of-fit test: fine where PG(1, z) has its mass, one open bin above.
EDGES = np.r_[0.0, np.linspace(0.02, 1.0, 50), 1.5, np.inf]
DRAWS = 400_000


def _pg1_density(w: float, z: float) -> float:
    return math.cosh(z / 2) * math.exp(-z * z * w / 2) * pt.density_pg1(w)


def _bin_probabilities(z: float) -> np.ndarray:
    return np.array(
        [
            integrate.quad(_pg1_density, a, b, args=(z,), epsabs=1e-13, limit=200)[0]
            for a, b in zip(EDGES[:-1], EDGES[1:], strict=True)
        ]
    )


def _draws(sampler: pt.PGTableSampler, z: float, seed: int) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64(seed))
    address = rng.bit_generator.ctypes.bit_generator.value
    out = np.empty(DRAWS)
    sampler.fill(address, np.ones(DRAWS), np.full(DRAWS, z), out)
    return out


def _gof_pvalue(draws: np.ndarray, z: float) -> float:
    expected = DRAWS * _bin_probabilities(z)
    observed = np.histogram(draws, EDGES)[0]
    return float(stats.chisquare(observed, expected).pvalue)


def test_density_is_pg1_density() -> None:
    """Total mass 1, mean 1/4 and variance 1/24 (the moments of PG(1, 0))."""
    f = pt.density_pg1
    mass = integrate.quad(f, 0, np.inf, limit=200, epsabs=1e-13)[0]
    mean = integrate.quad(lambda w: w * f(w), 0, np.inf, limit=200, epsabs=1e-13)[0]
    second = integrate.quad(lambda w: w * w * f(w), 0, np.inf, limit=200, epsabs=1e-13)[0]
    assert mass == pytest.approx(1.0, abs=1e-10)
    assert mean == pytest.approx(0.25, abs=1e-10)
    assert second - mean**2 == pytest.approx(1 / 24, abs=1e-10)
    # the two series meet where the density switches between them (4 w = 0.64)
    assert f(0.16 - 1e-12) == pytest.approx(f(0.16 + 1e-12), rel=1e-9)
    assert f(0.0) == 0.0 and f(-1.0) == 0.0


@pytest.mark.parametrize("table", [pt.DEFAULT_TABLE, pt.build_table(16, 0.3)])
def test_table_bounds_the_density(table: pt.PGTable) -> None:
    """On a fine grid the density rises to one mode and falls, and lies within each bin's
    [lower, upper]; the alias table gives each bin and the tail its share of the envelope."""
    n_bins = table.lower.size
    grid = np.linspace(0.0, table.x_right, 64 * n_bins + 1)
    f = np.array([pt.density_pg1(w) for w in grid])
    steps, turn = np.diff(f), int(np.argmax(f))
    assert np.all(steps[:turn] >= 0) and np.all(steps[turn:] <= 0)
    bin_of = np.minimum((grid / table.width).astype(int), n_bins - 1)
    assert np.all(f >= table.lower[bin_of] - 1e-15)
    assert np.all(f <= table.upper[bin_of])
    # Walker's table: bucket j keeps prob[j] of its 1/n, the rest goes to alias[j]
    n = table.prob.size
    share = table.prob / n
    np.add.at(share, table.alias, (1.0 - table.prob) / n)
    tail = 4 / math.pi * math.exp(-(math.pi**2) * table.x_right / 2)
    weights = np.append(table.width * table.upper, tail)
    np.testing.assert_allclose(share, weights / weights.sum(), rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("z", [0.0, 1.0, -2.4])
def test_draws_follow_pg1(z: float) -> None:
    """Chi-square test of 4e5 PG(1, z) draws over 51 bins (p > 1e-4), with the default
    table and with a 16-bin table on [0, 0.3] whose tail proposal makes 87 % of the draws
    (so both branches of the sampler are tested)."""
    small = pt.make_sampler(pt.build_table(16, 0.3))
    for k, sampler in enumerate((pt.DEFAULT_SAMPLER, small)):
        draws = _draws(sampler, z, seed=100 + k)
        assert np.all(draws > 0)
        assert _gof_pvalue(draws, z) > 1e-4, (k, z)


def test_a_table_that_is_not_a_bound_fails_the_test() -> None:
    """Power: an envelope 10 % short of the density's peak (the bins near the mode capped)
    biases the draws, and the chi-square test above rejects them."""
    table = pt.DEFAULT_TABLE
    capped = np.minimum(table.upper, 0.9 * table.upper.max())
    prob, alias = pt.proposal_alias(capped, table.width, table.x_right)
    wrong = table._replace(
        upper=capped, lower=np.minimum(table.lower, capped), prob=prob, alias=alias
    )
    draws = _draws(pt.make_sampler(wrong), 0.0, seed=7)
    assert _gof_pvalue(draws, 0.0) < 1e-6


def test_same_stream_same_draws() -> None:
    a = _draws(pt.DEFAULT_SAMPLER, 0.5, seed=3)[:1000]
    b = _draws(pt.DEFAULT_SAMPLER, 0.5, seed=3)[:1000]
    np.testing.assert_array_equal(a, b)


def test_build_table_refuses_bad_sizes() -> None:
    with pytest.raises(ValueError, match="n_bins"):
        pt.build_table(1, 2.5)
    with pytest.raises(ValueError, match="x_right"):
        pt.build_table(64, 0.1)
