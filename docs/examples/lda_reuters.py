# LDA by collapsed Gibbs on the Reuters corpus (395 articles): topics, label switching,
# coherence and held-out log predictive. Needs `bayeswe data fetch reuters`.
import arviz as az
import numpy as np

import bayeswe
from bayeswe.datasets import load_reuters
from bayeswe.lda import LDAData
from bayeswe.lda.align import align_chains, topic_distances
from bayeswe.lda.evaluation import coherence, heldout_log_predictive, top_words

corpus = load_reuters()
train, test = corpus.subset(range(355)), corpus.subset(range(355, 395))
data = LDAData(train, n_topics=20, alpha=0.1, beta=0.01)
idata = bayeswe.fit(
    "lda", data, method="cgs", seed=1, chains=2, iter_warmup=300, iter_sampling=200, thin=10
)  # SparseLDA kernel
print(dict(idata.posterior["phi"].sizes))

aligned = align_chains(idata)  # match chain 1's topics to chain 0's
# R-hat of the 50 most frequent words' probabilities: ArviZ computes one element at a
# time, and all 20 x 4258 of them take minutes.
frequent = np.argsort(-corpus.vocabulary.counts, kind="stable")[:50]
for name, fit in [("raw", idata), ("aligned", aligned)]:
    rhat = az.rhat(fit.posterior[["phi"]].isel(word=frequent))["phi"].values
    print(f"median R-hat of phi (50 most frequent words), {name}: {np.median(rhat):.2f}")
phi = aligned.posterior["phi"].mean("draw").values  # (chain, topic, word)
d = np.diag(topic_distances(phi[0], phi[1]))
print(f"Hellinger distance between matched topics: {d.min():.2f} to {d.max():.2f}")

print(top_words(aligned, corpus.vocabulary, top_n=7).head(8).to_string())
print("NPMI coherence, mean over topics:", round(float(coherence(aligned, train).mean()), 3))
score = heldout_log_predictive(aligned, test, 0.1, seed=1)
print(
    f"held-out log predictive per token: {score.per_token:.3f} "
    f"({score.n_tokens} tokens of {score.n_docs} documents)"
)
