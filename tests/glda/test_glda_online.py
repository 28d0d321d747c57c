"""The online version of section 5.2 ("G-LDA (b)"): each batch of new documents is
Gibbs-sampled with the topics updated by the batch's own tokens.

The target of a batch is known exactly on a problem small enough to enumerate: with
the training posterior of each topic (eq. 2) as its normal-inverse-Wishart prior,
``p(z) ∝ prod_d DirMult(n_d. | alpha) prod_k p(x_{z = k} | mu_k, kappa_k, Psi_k, nu_k)``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import gammaln, multigammaln

import bayeswe
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.glda import GaussianLDAData, GaussianLDADataError
from bayeswe.glda.inference import _topic_posterior, infer_theta, niw_predictive_log_density

K, D = 2, 2
#: four new word types spread around topic 0's centre: under the fixed topics (topic 0
#: tight, topic 1 broad) they split between the topics; once a batch's tokens may move
#: the topics, most join topic 1 and reshape it (theta_0 0.65 -> 0.17 in document 0)
NEW_VECTORS = np.array([[-1.23, 0.54], [-0.88, -2.34], [-1.33, 1.9], [-1.1, -0.93]])
NEW_DOCS = [[0, 1, 2], [2, 3, 0]]
RUNS, SWEEPS, BURN_IN = 8, 10_000, 50


@pytest.fixture(scope="module")
def fitted():
    """Topic 0 from 12 tight tokens at (-1, 0), topic 1 from 2 at (1, 0)."""
    rng = np.random.default_rng(11)
    vec = np.vstack([np.array([-1.0, 0.0]) + 0.2 * rng.normal(size=(12, D)),
                     np.array([1.0, 0.0]) + 0.2 * rng.normal(size=(2, D))])  # fmt: skip
    corpus = BagOfWords.from_token_ids([range(0, 6), range(6, 12), [12, 13]], Vocabulary(
        tuple(f"w{i}" for i in range(14))))  # fmt: skip
    data = GaussianLDAData(corpus, vec, n_topics=K, alpha=0.5, mu0=np.zeros(D), kappa=0.1,
                           nu=D + 2.0, Psi=0.5 * np.eye(D))  # fmt: skip
    idata = bayeswe.fit("gaussian_lda", data, method="cgs", seed=3, chains=1,
                        iter_sampling=1, iter_warmup=20, init="kmeans")  # fmt: skip
    assert sorted(idata.posterior["topic_tokens"].values[0, -1]) == [2, 12]
    new = BagOfWords.from_token_ids(NEW_DOCS, Vocabulary(("a", "b", "c", "d")))
    return idata, new


def _niw_log_marginal(x: np.ndarray, mu0, kappa0, psi0, nu0) -> float:
    n = x.shape[0]
    if n == 0:
        return 0.0
    xbar = x.mean(axis=0)
    scatter = (x - xbar).T @ (x - xbar)
    kappa, nu = kappa0 + n, nu0 + n
    psi = psi0 + scatter + kappa0 * n / kappa * np.outer(xbar - mu0, xbar - mu0)
    return float(
        -0.5 * n * D * np.log(np.pi) + multigammaln(nu / 2, D) - multigammaln(nu0 / 2, D)
        + 0.5 * nu0 * np.linalg.slogdet(psi0)[1] - 0.5 * nu * np.linalg.slogdet(psi)[1]
        + 0.5 * D * (np.log(kappa0) - np.log(kappa))
    )  # fmt: skip


def _exact_theta(idata, docs: list[list[int]], *, update_topics: bool) -> np.ndarray:
    """E[theta_d] over every assignment of the documents' tokens (one batch)."""
    topics = _topic_posterior(idata, 0, -1)
    alpha = topics["alpha"]
    tokens = [(d, w) for d, doc in enumerate(docs) for w in doc]
    logt = niw_predictive_log_density(NEW_VECTORS, topics["mu"], topics["psi"],
                                      topics["kappa_k"], topics["nu_k"])  # fmt: skip
    weights, thetas = [], []
    for z in itertools.product(range(K), repeat=len(tokens)):
        n_dk = np.zeros((len(docs), K))
        for (d, _), k in zip(tokens, z, strict=True):
            n_dk[d, k] += 1
        logw = sum(
            gammaln(n_dk[d] + alpha).sum() - gammaln(alpha).sum()
            + gammaln(alpha.sum()) - gammaln(n_dk[d].sum() + alpha.sum())
            for d in range(len(docs))
        )  # fmt: skip
        if update_topics:
            for k in range(K):
                x = NEW_VECTORS[[w for (_, w), zk in zip(tokens, z, strict=True) if zk == k]]
                logw += _niw_log_marginal(x, topics["mu"][k], topics["kappa_k"][k],
                                          topics["psi"][k], topics["nu_k"][k])  # fmt: skip
        else:
            logw += sum(logt[w, k] for (_, w), k in zip(tokens, z, strict=True))
        weights.append(logw)
        thetas.append((n_dk + alpha) / (n_dk.sum(axis=1, keepdims=True) + alpha.sum()))
    w = np.exp(np.array(weights) - max(weights))
    return np.tensordot(w / w.sum(), np.array(thetas), axes=1)


def _runs(idata, new, batch_size):
    return np.array([
        infer_theta(idata, new, NEW_VECTORS, seed=100 + r, iter_sampling=SWEEPS,
                    iter_warmup=BURN_IN, batch_size=batch_size).values
        for r in range(RUNS)
    ])  # fmt: skip


def _within(runs: np.ndarray, exact: np.ndarray) -> float:
    """The tolerance, 4.5 Monte Carlo SE (the spread of independent runs), after
    checking the runs' mean is within it of ``exact``."""
    tol = 4.5 * float((runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0])).max())
    np.testing.assert_array_less(np.abs(runs.mean(axis=0) - exact), tol)
    return tol


@pytest.mark.slow
@pytest.mark.parametrize("batch_size", [1, 2])
def test_online_batches_sample_their_exact_posterior(fitted, batch_size) -> None:
    """Batches of 1 and 2 documents against enumeration. Power: the answer of fixed
    topics, which a sampler that never moved them would give, is more than 10
    tolerances away (measured: tolerances 0.011 and 0.024, the fixed answer 15 and 20
    of them away)."""
    idata, new = fitted
    batches = [NEW_DOCS] if batch_size == 2 else [[doc] for doc in NEW_DOCS]
    exact = np.vstack([_exact_theta(idata, b, update_topics=True) for b in batches])
    fixed = np.vstack([_exact_theta(idata, b, update_topics=False) for b in batches])
    tol = _within(_runs(idata, new, batch_size), exact)
    assert np.abs(fixed - exact).max() > 10 * tol


def test_fixed_topics_sample_their_exact_posterior(fitted) -> None:
    idata, new = fitted
    _within(_runs(idata, new, None), _exact_theta(idata, NEW_DOCS, update_topics=False))


def test_batches_do_not_see_each_other(fitted) -> None:
    """A batch's result depends on its own documents only: change the second batch and
    the first one's theta is the same to the bit."""
    idata, _ = fitted
    vocab = Vocabulary(("a", "b", "c", "d"))
    one = BagOfWords.from_token_ids([NEW_DOCS[0], NEW_DOCS[1], [3, 3]], vocab)
    two = BagOfWords.from_token_ids([NEW_DOCS[0], NEW_DOCS[1], [0, 1, 1, 2]], vocab)
    a = infer_theta(idata, one, NEW_VECTORS, seed=5, iter_sampling=30, iter_warmup=5, batch_size=2)
    b = infer_theta(idata, two, NEW_VECTORS, seed=5, iter_sampling=30, iter_warmup=5, batch_size=2)
    np.testing.assert_array_equal(a.values[:2], b.values[:2])
    assert not np.array_equal(a.values[2], b.values[2])
    again = infer_theta(
        idata, one, NEW_VECTORS, seed=5, iter_sampling=30, iter_warmup=5, batch_size=2
    )
    np.testing.assert_array_equal(a.values, again.values)
    assert a.dims == ("doc", "topic") and a.shape == (3, K)


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_batch_size_must_be_a_positive_integer(fitted, bad) -> None:
    idata, new = fitted
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1"):
        infer_theta(idata, new, NEW_VECTORS, seed=0, batch_size=bad)
    with pytest.raises(GaussianLDADataError, match="NaN"):
        infer_theta(idata, new, np.full((4, D), np.nan), seed=0, batch_size=1)
