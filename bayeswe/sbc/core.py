"""Ranks, the uniformity test and its power (Talts et al. 2018, "Validating Bayesian
inference algorithms with simulation-based calibration").

One replication draws parameters from the prior, data given them, and ``L`` posterior
draws from the method under test; the rank of the true value of a statistic among the
draws is uniform on ``0..L`` when the method samples the posterior. The ranks of ``R``
replications are binned and compared with the uniform by a chi-square test per
statistic; the family of statistics is judged by Bonferroni (``min p x m``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

__all__ = ["UniformityTest", "power", "rank_of", "uniformity_test"]


def rank_of(
    truth: NDArray[np.float64], draws: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.int64]:
    """Rank of each ``truth[j]`` among ``draws[:, j]``: ``#(draws < truth)`` plus ties at random.

    Ties (discrete statistics, e.g. counts of tokens sharing a topic) are broken
    uniformly at random, which keeps the rank uniform on ``0..L`` under a correct
    sampler (Talts et al., section 4.1).
    """
    truth = np.asarray(truth, dtype=np.float64)
    draws = np.asarray(draws, dtype=np.float64)
    below = np.sum(draws < truth, axis=0)
    ties = np.sum(draws == truth, axis=0)
    return (below + rng.integers(0, ties + 1)).astype(np.int64)


@dataclass(frozen=True)
class UniformityTest:
    """Chi-square tests of rank histograms: one per statistic and the Bonferroni family."""

    #: p-value of each statistic's chi-square test (``bins - 1`` degrees of freedom).
    p_values: NDArray[np.float64]
    #: ``min(1, m * min p)`` over the ``m`` statistics.
    family_p_value: float
    #: Counts per bin, ``(m, bins)``.
    counts: NDArray[np.int64]
    bins: int


def _bin_edges(n_draws: int, bins: int) -> NDArray[np.float64]:
    if (n_draws + 1) % bins:
        raise ValueError(f"the {n_draws + 1} possible ranks do not split into {bins} equal bins")
    return np.linspace(0, n_draws + 1, bins + 1)


def uniformity_test(ranks: NDArray[np.int64], n_draws: int, bins: int = 10) -> UniformityTest:
    """Test ranks ``(R, m)`` in ``0..n_draws`` for uniformity, statistic by statistic."""
    ranks = np.asarray(ranks)
    if ranks.ndim != 2 or ranks.shape[0] < bins:
        raise ValueError(f"ranks must be (replications >= {bins}, statistics), got {ranks.shape}")
    if ranks.min() < 0 or ranks.max() > n_draws:
        raise ValueError(f"ranks must lie in 0..{n_draws}")
    edges = _bin_edges(n_draws, bins)
    counts = np.stack([np.histogram(ranks[:, j], bins=edges)[0] for j in range(ranks.shape[1])])
    p = np.array([stats.chisquare(c).pvalue for c in counts])
    return UniformityTest(p, float(min(1.0, p.min() * len(p))), counts.astype(np.int64), bins)


def power(
    *,
    replications: int,
    n_draws: int,
    n_statistics: int,
    level: float,
    sd_ratio: float = 1.0,
    shift: float = 0.0,
    bins: int = 10,
    simulations: int = 2000,
    seed: int = 0,
) -> float:
    """Probability that the family test rejects when one statistic's posterior is off.

    The alternative: the method's draws of one statistic come from
    ``N(mu + shift * s, (sd_ratio * s)^2)`` where the posterior is ``N(mu, s^2)`` (a
    posterior too wide for ``sd_ratio > 1``, too narrow below 1, biased for ``shift !=
    0``), the other statistics are right; the family rejects when that statistic's
    p-value is below ``level / n_statistics`` (Bonferroni). Monte Carlo over
    ``simulations`` tests; the rank of the truth among ``n_draws`` independent draws is
    ``Binomial(n_draws, Phi((Z - shift) / sd_ratio))`` with ``Z ~ N(0, 1)``.
    """
    rng = np.random.default_rng(seed)
    edges = _bin_edges(n_draws, bins)
    z = rng.standard_normal((simulations, replications))
    ranks = rng.binomial(n_draws, stats.norm.cdf((z - shift) / sd_ratio))
    counts = np.stack([np.histogram(r, bins=edges)[0] for r in ranks])
    expected = replications / bins
    chi2 = ((counts - expected) ** 2 / expected).sum(axis=1)
    p = stats.chi2.sf(chi2, bins - 1)
    return float(np.mean(p < level / n_statistics))
