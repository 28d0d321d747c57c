"""Gauges of the unidentified SGNS posterior (:mod:`bayeswe.sgns.gauge`) and the gauge move.

A gauge is a function of ``Theta = rho @ alpha.T`` alone: the same for every member
``(rho A^-T, alpha A)`` of an orbit, and it keeps ``Theta``. The gauge move of the
unidentified PG-Gibbs sampler must keep ``Theta`` exactly and leave the posterior
invariant: with no data the posterior is the prior, so prior draws pushed through the
move must still be prior draws.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayeswe.samplers.pg_gibbs import _cosh_exponential, gauge_move
from bayeswe.sgns import IdentificationError
from bayeswe.sgns.gauge import anchor_condition, anchor_gauge, gauge_draws, svd_gauge


def _orbit_member(rho, alpha, rng):
    a = rng.normal(size=(rho.shape[-1],) * 2) + 2 * np.eye(rho.shape[-1])
    return rho @ np.linalg.inv(a).T, alpha @ a


def test_svd_gauge_keeps_theta_and_is_balanced() -> None:
    rng = np.random.default_rng(1)
    rho, alpha = rng.normal(size=(3, 12, 4)), rng.normal(size=(3, 12, 4))
    r, a = svd_gauge(rho, alpha)
    np.testing.assert_allclose(r @ np.swapaxes(a, -1, -2), rho @ np.swapaxes(alpha, -1, -2),
                               atol=1e-12)  # fmt: skip
    gram_r = np.swapaxes(r, -1, -2) @ r
    gram_a = np.swapaxes(a, -1, -2) @ a
    np.testing.assert_allclose(gram_r, gram_a, atol=1e-12)
    diag = np.diagonal(gram_r, axis1=-2, axis2=-1)
    np.testing.assert_allclose(gram_r, diag[..., None] * np.eye(4), atol=1e-12)
    assert np.all(np.diff(diag, axis=-1) <= 0)  # decreasing singular values
    assert np.all(r.sum(axis=-2) >= 0)  # the sign convention


@pytest.mark.parametrize("gauge", ["svd", "anchors"])
def test_a_gauge_is_the_same_for_every_member_of_an_orbit(gauge: str) -> None:
    rng = np.random.default_rng(2)
    rho, alpha = rng.normal(size=(20, 3)), rng.normal(size=(20, 3))
    other = _orbit_member(rho, alpha, rng)
    index = [17, 18, 19]
    first = gauge_draws(rho, alpha, gauge, fixed_index=index)
    second = gauge_draws(*other, gauge, fixed_index=index)
    for x, y in zip(first, second, strict=True):
        np.testing.assert_allclose(x, y, atol=1e-9)


def test_anchor_gauge_puts_the_identity_on_the_anchors() -> None:
    rng = np.random.default_rng(3)
    rho, alpha = rng.normal(size=(10, 3)), rng.normal(size=(10, 3))
    r, a = anchor_gauge(rho, alpha, [0, 4, 7])
    np.testing.assert_allclose(a[[0, 4, 7]], np.eye(3))
    # rho_w becomes the logits of w with the anchor words
    np.testing.assert_allclose(r, rho @ alpha[[0, 4, 7]].T, atol=1e-12)
    assert anchor_condition(alpha, [0, 4, 7]) == pytest.approx(np.linalg.cond(alpha[[0, 4, 7]]))


def test_gauges_refuse_bad_input() -> None:
    rho = np.ones((5, 2))
    with pytest.raises(IdentificationError, match="same shape"):
        svd_gauge(rho, np.ones((5, 3)))
    with pytest.raises(IdentificationError, match="NaN"):
        svd_gauge(np.full((5, 2), np.nan), rho)
    with pytest.raises(IdentificationError, match="singular"):
        anchor_gauge(rho, np.ones((5, 2)), [0, 1])
    with pytest.raises(IdentificationError, match="fixed_index"):
        gauge_draws(rho, rho, "anchors")
    with pytest.raises(ValueError, match="gauge must be one of"):
        gauge_draws(rho, rho, "polar")


@pytest.mark.parametrize("w", [0.3, 1.0, 8.0, 150.0])
def test_cosh_exponential_draws_have_the_target_law(w: float) -> None:
    """``exp(y)`` is a generalized inverse Gaussian with ``p = 0``: scipy's
    ``geninvgauss(0, w)``. Kolmogorov-Smirnov on 20,000 draws at level 1e-3 (a draw
    from ``N(0, 1/w)``, the envelope, fails at ``w = 0.3`` and ``w = 1``)."""
    y = _cosh_exponential(np.full(20_000, w), np.random.default_rng(4))
    assert stats.kstest(np.exp(y), stats.geninvgauss(0.0, w).cdf).pvalue > 1e-3


def test_gauge_move_keeps_theta_and_the_prior() -> None:
    """Prior draws stay prior draws (no data: the posterior is the prior).

    For ``V = 8``, ``K = 3``, ``lambda = 0.7``, 4,000 independent prior draws each take
    five moves. Under the prior, a column's squared norm over ``lambda^2`` is
    chi-square with ``V`` degrees of freedom, for ``rho`` and ``alpha`` alike: tested
    by Kolmogorov-Smirnov at level 1e-3 on the pooled columns. The move without the
    Haar measure's ``1/c`` (``u`` drawn with density ``exp(-w cosh y) e^y``) shifts the
    norms and fails this test.
    """
    V, K, lam, reps = 8, 3, 0.7, 4000
    rng = np.random.default_rng(5)
    rho = rng.normal(0, lam, size=(reps, V, K))
    alpha = rng.normal(0, lam, size=(reps, V, K))
    theta = rho @ np.swapaxes(alpha, -1, -2)
    moved_r, moved_a = np.empty_like(rho), np.empty_like(alpha)
    for i in range(reps):
        r, a = rho[i], alpha[i]
        for _ in range(5):
            r, a = gauge_move(r, a, lam, rng)
        moved_r[i], moved_a[i] = r, a
    np.testing.assert_allclose(moved_r @ np.swapaxes(moved_a, -1, -2), theta, atol=1e-10)
    law = stats.chi2(V).cdf
    for m in (moved_r, moved_a):
        norms = (m**2).sum(axis=1).ravel() / lam**2
        assert stats.kstest(norms, law).pvalue > 1e-3


def test_gauge_move_is_reproducible() -> None:
    rng = np.random.default_rng(6)
    rho, alpha = rng.normal(size=(9, 2)), rng.normal(size=(9, 2))
    one = gauge_move(rho, alpha, 1.0, np.random.default_rng(7))
    two = gauge_move(rho, alpha, 1.0, np.random.default_rng(7))
    for x, y in zip(one, two, strict=True):
        np.testing.assert_array_equal(x, y)
