"""models/dp_multinomial.stan under NUTS agrees with the collapsed sampler of the same
model on every label-free quantity (the Stan twin of bayeswe.samplers.dp_multinomial)."""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest
from scipy.special import logsumexp

import bayeswe
from bayeswe.dp import DPMultinomialData, log_pointwise_predictive

X = np.array(
    [[2, 1, 0, 0], [1, 1, 1, 0], [0, 1, 2, 1], [0, 0, 1, 2], [1, 0, 0, 1], [3, 0, 0, 1],
     [0, 2, 2, 0], [0, 0, 0, 4]]
)  # fmt: skip
BETA = np.array([0.4, 0.7, 0.3, 0.9])
NEW = np.array([[3, 0, 0, 0], [0, 0, 1, 1]])


def _z(a: np.ndarray, b: np.ndarray) -> float:
    """Difference of the means of two (chain, draw) arrays in Monte Carlo standard errors."""
    se = [float(az.mcse(az.convert_to_dataset({"x": x.astype(float)})).x) for x in (a, b)]
    return float((a.mean() - b.mean()) / np.hypot(*se))


@pytest.mark.slow
def test_nuts_on_the_stan_twin_agrees_with_collapsed_gibbs() -> None:
    """Within 4 MCSE on E[number of clusters], E[alpha] and each held-out point's log
    posterior predictive density (the token-sequence density on both sides), at a
    truncation T = 16 whose mean leftover stick mass is below 1e-2."""
    data = DPMultinomialData(X, truncation=16, alpha_shape=2.0, alpha_rate=1.5, beta=BETA)
    nuts = bayeswe.fit(
        "dp_multinomial", data, method="nuts", seed=1, chains=4, iter_warmup=300,
        iter_sampling=600, show_progress=False,
    )  # fmt: skip
    cgs = bayeswe.fit(
        "dp_mixture", data, method="cgs", seed=1, chains=4, iter_warmup=200,
        iter_sampling=3000, heldout=NEW,
    )  # fmt: skip
    post = nuts.posterior
    assert float(post["leftover"].mean()) < 1e-2
    assert nuts.log_likelihood["log_lik"].dims[2:] == ("point",)
    assert post["phi"].dims[2:] == ("component", "category")
    assert abs(_z(post["n_occupied"].values, cgs.posterior["n_clusters"].values)) < 4
    assert abs(_z(post["alpha"].values, cgs.posterior["alpha"].values)) < 4
    logphi = np.log(post["phi"].values)  # (chain, draw, T, V)
    ld = logsumexp(
        np.log(post["w"].values)[..., None] + np.einsum("cdkv,mv->cdkm", logphi, NEW), axis=2
    )
    lp_nuts, se_nuts = log_pointwise_predictive(ld)
    lp_cgs, se_cgs = log_pointwise_predictive(cgs.posterior["heldout_log_density"].values)
    assert (np.abs(lp_nuts - lp_cgs) < 4 * np.hypot(se_nuts, se_cgs)).all()
