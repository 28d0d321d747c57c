"""Simulation-based calibration (Talts et al. 2018) of PG Gibbs on a tiny identified SGNS.

V=6, K=2, prior sd ``lambda`` 0.5 or 2 (not 1, where sd, variance and precision are
the same number and a scaling bug would pass), context vectors of words 4 and 5
fixed at a known matrix; every one of the 36 (target, context) pairs observed
``n = 4`` times, so the prior shapes the posterior as much as the data do. Each PG
schedule (``omega``) is checked at one of the two scales, so each scale and each
schedule is covered: a prior-scaling bug sits in the Gaussian block updates, which both
schedules share, and a schedule bug in the PG draws, at any scale.
Each of R=200 replications draws ``rho`` and the free ``alpha`` rows from the
prior (eq. (6)), labels from eq. (5), runs one Gibbs chain and records the rank of
each true parameter (12 ``rho`` and 8 ``alpha`` entries) among L=99 thinned
draws. Under a correct sampler each rank is uniform on 0..99.

The chain starts at the true value and discards 150 sweeps. Any start is valid
once the chain has forgotten it (a chain that had not would put the truth's rank near
the middle too often and fail the test, not pass it wrongly); the true value avoids
the rare local modes a prior start can fall into (see ``test_pg_gibbs_nuts.py``), which
would test the mixing between modes, not the correctness of the transition kernel.

Test: for each parameter a chi-square test of the rank histogram in 10 bins
(9 degrees of freedom), Bonferroni over the 20 parameters at family level 0.1 %
(each p > 5e-5), plus the pooled histograms of the 2,400 ``rho`` ranks and of the
1,600 free ``alpha`` ranks, each at level 0.1 %.

Power: with the ``alpha`` block's prior precision wrong by a factor ``lambda`` (the
prior sd used as the variance, a bug invisible at ``lambda = 1``), the pooled
``alpha`` histogram fails at both scales: p = 2e-38 at ``lambda = 0.5`` (a hump:
the posterior too wide) and 1e-25 at ``lambda = 2`` (a U: too narrow), per-sweep
schedule, these seeds.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayeswe.samplers import pg_gibbs as pg
from bayeswe.sbc import cases as sbc_cases

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

V, K = sbc_cases.SGNS_V, sbc_cases.SGNS_K
REPS, L, THIN, WARMUP, BINS = 200, 99, 5, 150, 10


def _replication(rng: np.random.Generator, seed: int, lam: float, omega: str) -> np.ndarray:
    # the prior draw and the draws' layout of the `bayeswe sbc pg-gibbs-*` cases, at any lam
    rho, alpha, data = sbc_cases._sgns_draw(rng, lam)
    idata = pg.sample_pg_gibbs(
        data, seed=seed, chains=1, iter_warmup=WARMUP, iter_sampling=L * THIN, thin=THIN,
        init={"rho": rho, "alpha": alpha}, threads_per_chain=1, omega=omega,
    )  # fmt: skip
    truth = np.concatenate([rho.ravel(), alpha[sbc_cases.SGNS_FREE].ravel()])
    return np.sum(sbc_cases._sgns_draws(idata) < truth, axis=0)


@pytest.mark.parametrize(("lam", "omega"), [(0.5, "per-sweep"), (2.0, "per-block")])
def test_sbc_ranks_are_uniform(lam: float, omega: str) -> None:
    rng = np.random.default_rng(20261121)
    ranks = np.array([_replication(rng, seed, lam, omega) for seed in range(REPS)])  # (REPS, 20)
    edges = np.linspace(0, L + 1, BINS + 1)
    expected = REPS / BINS
    p_values = []
    for j in range(ranks.shape[1]):
        counts, _ = np.histogram(ranks[:, j], bins=edges)
        p_values.append(stats.chisquare(counts, np.full(BINS, expected)).pvalue)
    p_values = np.array(p_values)
    assert p_values.min() > 1e-3 / ranks.shape[1], p_values.round(4)
    n_rho = V * K
    for block, block_ranks in (("rho", ranks[:, :n_rho]), ("alpha", ranks[:, n_rho:])):
        pooled, _ = np.histogram(block_ranks.ravel(), bins=edges)
        assert stats.chisquare(pooled).pvalue > 1e-3, (block, pooled)
