"""The DP mixture by collapsed Gibbs with split-merge moves (docs/nonparametrics.md)."""

import arviz as az
import numpy as np

import bayeswe
from bayeswe.dp import simulate_dp_mixture

sim = simulate_dp_mixture(n_points=300, weights=(0.5, 0.3, 0.2), truncation=8, seed=7)
held = np.array([[0.0, 0.0], sim.means[0]])  # two points not in the data
idata = bayeswe.fit(
    "dp_mixture", sim.data, method="cgs", seed=1, chains=4, iter_warmup=300,
    iter_sampling=500, heldout=held,
)  # fmt: skip

K = idata.posterior["n_clusters"].values.ravel()
counts = np.bincount(K)
print("true cluster sizes:", np.bincount(sim.labels).tolist())
print("P(n_clusters = k):", {k: round(float(c / K.size), 3) for k, c in enumerate(counts) if c})
alpha = idata.posterior["alpha"]
print(f"alpha: mean {float(alpha.mean()):.2f} sd {float(alpha.std()):.2f}")
summary = az.summary(idata, var_names=["n_clusters", "alpha", "heldout_lpd"], kind="diagnostics")
print("bulk ESS:", summary["ess_bulk"].round(-2).astype(int).to_dict())
print("R-hat below 1.01:", bool((summary["r_hat"] < 1.01).all()))
weights = idata.cluster_summaries["weights"].mean(("chain", "draw")).values
print("mean weights, largest cluster first:", np.round(weights[:3], 3).tolist())
