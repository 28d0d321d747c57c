"""Simulated data (section 4.1, eqs. (16)-(18))."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from bayeswe.sgns import SGNSDataError, simulate_sgns
from bayeswe.sgns.simulate import word_probabilities


def test_same_seed_same_data_and_sizes() -> None:
    a = simulate_sgns(30, 3, 4000, seed=5)
    b = simulate_sgns(30, 3, 4000, seed=5)
    c = simulate_sgns(30, 3, 4000, seed=6)
    assert a.data == b.data and np.array_equal(a.rho, b.rho)
    assert a.data != c.data
    assert a.data.total == 4000 and a.rho.shape == a.alpha.shape == (30, 3)


def test_embedding_scale_is_eps_over_sqrt_k() -> None:
    # Var of each entry eps^2/K; with 2*V*K = 8000 entries the sample variance has
    # relative sd sqrt(2/8000) = 1.6 %.
    sim = simulate_sgns(400, 10, 10, seed=2, epsilon=2.0)
    entries = np.concatenate([sim.rho.ravel(), sim.alpha.ravel()])
    assert entries.var() == pytest.approx(4.0 / 10, rel=4 * np.sqrt(2 / entries.size))


def test_labels_follow_the_true_probabilities() -> None:
    sim = simulate_sgns(20, 2, 200_000, seed=9)
    d = sim.data
    p = expit(np.sum(sim.rho[d.target] * sim.alpha[d.context], axis=1))
    expected = float(np.sum(d.n * p))
    sd = float(np.sqrt(np.sum(d.n * p * (1 - p))))
    assert abs(d.n_pos.sum() - expected) < 4 * sd
    # Per-pair z-scores of the positive counts are standard normal-ish.
    z = (d.n_pos - d.n * p) / np.sqrt(d.n * p * (1 - p))
    assert abs(z.mean()) < 4 / np.sqrt(d.P) and abs(z.std() - 1) < 0.15


def test_zipf_marginals() -> None:
    V, N = 50, 300_000
    sim = simulate_sgns(V, 2, N, seed=4, distribution="zipf")
    p = word_probabilities(V, "zipf")
    ranks = np.arange(1, V + 1)
    np.testing.assert_allclose(p, (1 / (ranks + 2.7)) / np.sum(1 / (ranks + 2.7)))
    freq = np.bincount(sim.data.target, weights=sim.data.n, minlength=V)
    sd = np.sqrt(N * p * (1 - p))
    assert np.all(np.abs(freq - N * p) < 5 * sd)


def test_bad_arguments() -> None:
    with pytest.raises(SGNSDataError, match="V must be"):
        simulate_sgns(0, 2, 10, seed=1)
    with pytest.raises(SGNSDataError, match="distribution"):
        simulate_sgns(5, 2, 10, seed=1, distribution="pareto")
    with pytest.raises(SGNSDataError, match="epsilon"):
        simulate_sgns(5, 2, 10, seed=1, epsilon=0.0)
