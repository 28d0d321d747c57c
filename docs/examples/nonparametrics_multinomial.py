"""A DP mixture of multinomials by collapsed Gibbs (docs/nonparametrics.md)."""

import arviz as az
import numpy as np

import bayeswe
from bayeswe.dp import DPMultinomialData, simulate_dp_multinomial

# 200 "documents" of 40 tokens over 50 words, from four clusters (a mixture of unigrams)
sim = simulate_dp_multinomial(
    n_points=200, weights=(0.4, 0.3, 0.2, 0.1), n_words=50, doc_length=40, seed=3
)
counts = sim.data.counts.to_dense()
data = DPMultinomialData(counts[:190], truncation=8, beta=0.1)  # the last ten held out
idata = bayeswe.fit(
    "dp_mixture", data, method="cgs", seed=1, chains=4, iter_warmup=200,
    iter_sampling=500, heldout=counts[190:],
)  # fmt: skip

K = idata.posterior["n_clusters"].values.ravel()
print("true cluster sizes:", np.bincount(sim.labels[:190]).tolist())
print(
    "P(n_clusters = k):",
    {k: round(float(c / K.size), 3) for k, c in enumerate(np.bincount(K)) if c},
)
summary = az.summary(idata, var_names=["alpha", "heldout_lpd"], kind="diagnostics")
print("bulk ESS:", summary["ess_bulk"].round(-2).astype(int).to_dict())
print("R-hat below 1.01:", bool((summary["r_hat"] < 1.01).all()))
print(f"held-out log predictive (10 documents): {float(idata.posterior['heldout_lpd'].mean()):.1f}")
probs = idata.cluster_summaries["probabilities"].isel(chain=0, draw=-1, cluster=0)
top = probs.sortby(probs, ascending=False)["category"].values[:5]
print("largest cluster's top words (last draw):", top.tolist())
print("true top words of cluster 0:", [f"w{v}" for v in np.argsort(-sim.probabilities[0])[:5]])
