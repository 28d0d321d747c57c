"""Identification decides whether 90 % intervals hold 90 %: post hoc against MAP anchors.

On the thin data of Table 1's ``K = 10, V = 100, N = 1,000`` datasets (about ten
observations per unique pair), fixing the ``K`` anchor context vectors at the MAP
(``identification="anchors"``, the paper's method) and sampling the rest conditions on
a noisy estimate: the committed grid measured 80.4 % coverage of the true
``P(w ∧ v)`` there (10 datasets), against 89.4 % with the anchors at their true
vectors. Sampling the unidentified model and fixing the gauge after sampling
(``"posthoc"``) keeps the posterior of ``P(w ∧ v)``.

Thresholds: a dataset's coverage is a mean over 10,000 correlated pairs; over the
grid's datasets it varies by about one point (sd) around its expectation. Post hoc
must hold at least 86 % on average over two datasets (more than three sds below 90);
the anchored fit is expected near 80 % and must stay below 85 %, so the test fails
if ``posthoc`` is replaced by the anchored method.
"""

from __future__ import annotations

import numpy as np

from bayeswe.reproduce.yrjanainen_table1 import simulated_dataset
from bayeswe.sgns.fitting import fit_sgns
from bayeswe.sgns.metrics import draws_of, interval_coverage


def _coverage(identification: str, dataset: int) -> float:
    sim, anchors, _, sd = simulated_dataset(10, 100, 1000, dataset)
    extra = {"anchors": anchors} if identification == "anchors" else {}
    idata = fit_sgns(sim.data, 10, method="pg-gibbs", identification=identification,
                     prior_sd=sd, seed=3, chains=1, iter_warmup=500, iter_sampling=1000,
                     **extra)  # fmt: skip
    rho, alpha = draws_of(idata)
    return float(interval_coverage(rho, alpha, sim.probability, level=0.9).mean())


def test_posthoc_holds_coverage_where_map_anchors_do_not() -> None:
    posthoc = np.mean([_coverage("posthoc", d) for d in (0, 1)])
    anchored = np.mean([_coverage("anchors", d) for d in (0, 1)])
    assert posthoc >= 0.86, posthoc
    assert anchored < 0.85, anchored
