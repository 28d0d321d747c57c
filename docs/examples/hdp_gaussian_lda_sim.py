"""Infinite Gaussian LDA on simulated word vectors (docs/nonparametrics.md)."""

import arviz as az
import numpy as np

import bayeswe
from bayeswe.glda import HDPGaussianLDAData
from bayeswe.glda.simulate import simulate_gaussian_lda

# 50 documents x 40 tokens from 4 Gaussian topics in 3 dimensions
glda, truth = simulate_gaussian_lda(n_docs=50, doc_length=40, n_topics=4, dim=3, seed=1)
data = HDPGaussianLDAData.from_glda(glda, gamma=1.0, alpha0=1.0)
idata = bayeswe.fit(
    "hdp_gaussian_lda",
    data,
    method="cgs",
    seed=1,
    chains=4,
    iter_warmup=200,
    iter_sampling=400,
    thin=2,
    show_progress=False,
)
k = idata.posterior["n_topics"].values.ravel()
print("P(n_topics = k):", {int(v): round(float(np.mean(k == v)), 3) for v in np.unique(k)})
print(az.summary(idata, var_names=["n_topics", "n_tables"], kind="diagnostics").round(2))
