# SGNS on the State of the Union addresses 1946-2021 by Polya-Gamma Gibbs (post hoc gauge).
# Needs the dataset: `make data` or `bayeswe data fetch sotu`.
import bayeswe
from bayeswe.corpus import ENGLISH_STOPWORDS, build_vocabulary, holdout_split
from bayeswe.datasets import load_sotu
from bayeswe.evaluation import posterior_cosine_table, posterior_neighbours, posterior_prob_closer
from bayeswe.sgns import draws_of, mean_log_likelihood, mean_log_predictive

sotu = load_sotu()
recent = sotu.subset(sotu.metadata["year"].to_numpy() >= 1946)
vocab = build_vocabulary(recent.documents, max_size=300, exclude=ENGLISH_STOPWORDS)
data = recent.sgns_data(vocab, window=2, negatives=1, subsample=1e-3, seed=1)
train, test = holdout_split(data, 0.1, seed=2)
print(f"{recent.n_docs} speeches; training data: {train}")

idata = bayeswe.fit_sgns(
    train, K=5, method="pg-gibbs", seed=1, chains=2, iter_warmup=50, iter_sampling=100
)
pairs = [("tax", "economy"), ("jobs", "economy"), ("war", "peace"), ("health", "care")]
print(posterior_cosine_table(idata, None, pairs).round(2).to_string(index=False))
print(posterior_neighbours(idata, None, "economy", k=5).head(6).round(2).to_string(index=False))
closer = posterior_prob_closer(idata, None, "economy", "jobs", "tax")
print(f"P(cos(economy, jobs) > cos(economy, tax) | data) = {closer.probability:.2f}")
rho, alpha = draws_of(idata)  # (draws, word, dim)
print(
    f"held-out log-likelihood per observation, posterior mean: "
    f"{mean_log_likelihood(rho.mean(0), alpha.mean(0), test):.5f}"
)
# The posterior predictive averages each observation's probability over the draws:
# frame-free, and it uses the spread the plug-in of averaged vectors throws away.
print(f"held-out log predictive per observation: {mean_log_predictive(rho, alpha, test):.5f}")
