"""A DP mixture and HDP-LDA fitted by NUTS on simulated data (docs/nonparametrics.md)."""

import numpy as np

import bayeswe
from bayeswe.dp import initial_values, simulate_dp_mixture, simulate_hdp_lda

# Three Gaussian clusters in 2-d, truncation T = 8
sim = simulate_dp_mixture(n_points=150, weights=(0.5, 0.3, 0.2), truncation=8, seed=3)
idata = bayeswe.fit(
    "dp_mixture",
    sim.data,
    method="nuts",
    seed=1,
    chains=2,
    iter_warmup=500,
    iter_sampling=500,
    inits=initial_values(sim.data, seed=1, chains=2),
    # NUTS takes trees of maximal depth here until the first metric update (after the
    # first warm-up phase, 75 iterations by default, and a 25-iteration window); the
    # k-means starts need no long first phase.
    adapt_init_phase=15,
    show_progress=False,
)
post = idata.posterior
n_occ = post["n_occupied"].values.astype(int).ravel()
print("true cluster sizes:", np.bincount(sim.labels).tolist())
print(
    "P(n_occupied = k):", {int(k): round(float(np.mean(n_occ == k)), 3) for k in np.unique(n_occ)}
)
print("largest leftover stick mass:", f"{float(post['leftover'].max()):.1e}")
print("posterior mean weights:", np.round(post["w"].mean(("chain", "draw")).values, 3).tolist())
print(
    "alpha: mean", round(float(post["alpha"].mean()), 2), "sd", round(float(post["alpha"].std()), 2)
)

# HDP-LDA: 20 documents drawn from 3 topics, truncation T = 5
hdp = simulate_hdp_lda(
    n_docs=20,
    doc_length=50,
    n_words=25,
    beta=(0.5, 0.3, 0.2),
    alpha0=2.0,
    eta=0.2,
    truncation=5,
    seed=2,
)
idata = bayeswe.fit(
    "hdp_lda",
    hdp.data,
    method="nuts",
    seed=1,
    chains=2,
    iter_warmup=100,
    iter_sampling=100,
    show_progress=False,
)
tokens = idata.posterior["topic_tokens"].values
live = (tokens / tokens.sum(-1, keepdims=True) >= 0.05).sum(-1).ravel()
print("true tokens per topic:", hdp.topic_tokens.tolist())
print("P(3 topics above 5 % of tokens):", round(float(np.mean(live == 3)), 3))
print("tokens per topic, chain 0:", np.round(tokens[0].mean(0)).astype(int).tolist())
print(
    "largest leftover per chain:",
    np.round(idata.posterior["leftover"].max("draw").values, 3).tolist(),
)
print(
    "max tree depth reached in",
    f"{float((idata.sample_stats['tree_depth'] == 10).mean()):.0%}",
    "of HDP-LDA iterations",
)
