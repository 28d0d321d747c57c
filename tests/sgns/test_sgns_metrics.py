"""Rotation-invariant metrics (eqs. (5), (11), (12)) and interval coverage."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from bayeswe.sgns import (
    SGNSData,
    SGNSDataError,
    cooccurrence_probability,
    cosine_similarity,
    interval_coverage,
    log_likelihood,
    mean_log_likelihood,
    mean_log_predictive,
    rmse_co,
)


@pytest.fixture
def embedding() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    return rng.normal(size=(8, 3)), rng.normal(size=(8, 3))


def test_cooccurrence_probability_entries(embedding) -> None:
    rho, alpha = embedding
    P = cooccurrence_probability(rho, alpha)
    assert P.shape == (8, 8)
    assert P[2, 5] == pytest.approx(expit(rho[2] @ alpha[5]), rel=1e-14)


def test_rmse_co_zero_on_gl_orbit_and_positive_off_it(embedding) -> None:
    rho, alpha = embedding
    A = np.random.default_rng(1).normal(size=(3, 3))
    assert rmse_co(rho @ np.linalg.inv(A).T, alpha @ A, rho, alpha) == pytest.approx(0, abs=1e-12)
    other = rho + 0.1
    expected = np.sqrt(
        np.mean(
            (cooccurrence_probability(other, alpha) - cooccurrence_probability(rho, alpha)) ** 2
        )
    )
    assert rmse_co(other, alpha, rho, alpha) == pytest.approx(expected, rel=1e-12)
    batch = rmse_co(np.stack([rho, other]), np.stack([alpha, alpha]), rho, alpha)
    np.testing.assert_allclose(batch, [0.0, expected], atol=1e-12)


def test_interval_coverage_matches_numpy_quantiles() -> None:
    rng = np.random.default_rng(4)
    rho = rng.normal(size=(2, 201, 6, 2))
    alpha = rng.normal(size=(2, 201, 6, 2))
    truth = rng.uniform(size=(6, 6))
    p = cooccurrence_probability(rho, alpha).reshape(-1, 6, 6)
    lo = np.quantile(p, 0.05, axis=0, method="inverted_cdf")
    hi = np.quantile(p, 0.95, axis=0, method="inverted_cdf")
    expected = (truth >= lo) & (truth <= hi)
    got = interval_coverage(rho, alpha, truth, level=0.9, chunk=37)
    np.testing.assert_array_equal(got, expected)
    assert 0 < got.mean() < 1


def test_interval_coverage_is_nominal_for_draws_from_the_truth() -> None:
    # Truth drawn from the same distribution as the draws: coverage ~ Binomial(36, 0.9)/36
    # per replicate; over 50 replicates the mean has sd sqrt(.09/1800) = 0.0071.
    rng = np.random.default_rng(8)
    cov = []
    for _ in range(50):
        rho = rng.normal(size=(401, 6, 2))
        alpha = rng.normal(size=(401, 6, 2))
        cov.append(
            interval_coverage(rho[1:], alpha[1:], cooccurrence_probability(rho[0], alpha[0]))
        )
    assert abs(np.mean(cov) - 0.9) < 4 * 0.0071 + 1 / 400


def test_cosine_similarity() -> None:
    assert cosine_similarity([1.0, 0.0], [0.0, 2.0]) == pytest.approx(0.0)
    assert cosine_similarity([1.0, 1.0], [2.0, 2.0]) == pytest.approx(1.0)
    np.testing.assert_allclose(cosine_similarity(np.eye(2), [[1.0, 0.0]]), [1.0, 0.0])


def test_log_likelihood_is_eq5(embedding) -> None:
    rho, alpha = embedding
    data = SGNSData(8, [0, 3, 7], [1, 3, 2], [4, 1, 6], [1, 1, 0])
    expected = 0.0
    for w, v, n, k in zip(data.target, data.context, data.n, data.n_pos, strict=True):
        s = expit(rho[w] @ alpha[v])
        expected += k * np.log(s) + (n - k) * np.log1p(-s)
    assert log_likelihood(rho, alpha, data) == pytest.approx(expected, rel=1e-12)
    assert mean_log_likelihood(rho, alpha, data) == pytest.approx(expected / 11, rel=1e-12)
    both = log_likelihood(np.stack([rho, rho]), np.stack([alpha, alpha]), data)
    np.testing.assert_allclose(both, [expected, expected], rtol=1e-12)


def test_mean_log_predictive_averages_probabilities_over_draws(embedding) -> None:
    rho, alpha = embedding
    data = SGNSData(8, [0, 3, 7], [1, 3, 2], [4, 1, 6], [1, 1, 0])
    rng = np.random.default_rng(5)
    rho_draws = rho + rng.normal(size=(3, 8, 3))
    alpha_draws = alpha + rng.normal(size=(3, 8, 3))
    expected = 0.0
    for w, v, n, k in zip(data.target, data.context, data.n, data.n_pos, strict=True):
        s = np.mean([expit(r[w] @ a[v]) for r, a in zip(rho_draws, alpha_draws, strict=True)])
        expected += k * np.log(s) + (n - k) * np.log1p(-s)
    got = mean_log_predictive(rho_draws, alpha_draws, data)
    assert got == pytest.approx(expected / 11, rel=1e-12)
    # one draw: the log likelihood of that draw
    assert mean_log_predictive(rho[None], alpha[None], data) == pytest.approx(
        mean_log_likelihood(rho, alpha, data), rel=1e-12
    )
    # invariant under a GL(K) map of every draw (a different one per draw)
    maps = rng.normal(size=(3, 3, 3)) + 3 * np.eye(3)
    moved_rho = np.einsum("svk,skj->svj", rho_draws, maps)
    moved_alpha = np.einsum("svk,sjk->svj", alpha_draws, np.linalg.inv(maps))
    assert mean_log_predictive(moved_rho, moved_alpha, data) == pytest.approx(got, rel=1e-10)
    # Jensen: at least the draws' average log likelihood
    each = log_likelihood(rho_draws, alpha_draws, data) / data.total
    assert got > each.mean()


def test_mean_log_predictive_rejects_bad_draws(embedding) -> None:
    rho, alpha = embedding
    data = SGNSData(8, [0, 3], [1, 3], [4, 1], [1, 1])
    with pytest.raises(SGNSDataError, match="shape \\(S, V, K\\)"):
        mean_log_predictive(rho, alpha, data)
    with pytest.raises(SGNSDataError, match="V=7, data have V=8"):
        mean_log_predictive(rho[None, :7], alpha[None, :7], data)
    bad = rho[None].copy()
    bad[0, 2, 1] = np.nan
    with pytest.raises(SGNSDataError, match="NaN"):
        mean_log_predictive(bad, alpha[None], data)
