"""Held-out documents with unseen words (section 5.2) and top words (Table 1)."""

from __future__ import annotations

import numpy as np
import pytest

import bayeswe
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.glda import GaussianLDAData, GaussianLDADataError
from bayeswe.glda.inference import infer_theta, top_words

K, D, PER_TOPIC = 3, 5, 15


@pytest.fixture(scope="module")
def trained():
    rng = np.random.default_rng(0)
    centers = rng.normal(0, 3.0, size=(K, D))
    topic_of_word = np.repeat(np.arange(K), PER_TOPIC)
    vectors = centers[topic_of_word] + 0.5 * rng.normal(size=(K * PER_TOPIC, D))
    words = tuple(f"t{k}_{j}" for k in range(K) for j in range(PER_TOPIC))
    docs = []
    for _ in range(45):
        theta = rng.dirichlet(np.full(K, 0.2))
        z = rng.choice(K, size=30, p=theta)
        docs.append(z * PER_TOPIC + rng.integers(0, PER_TOPIC, size=30))
    corpus = BagOfWords.from_token_ids(docs, Vocabulary(words))
    data = GaussianLDAData(corpus, vectors, n_topics=K, alpha=0.2, Psi=0.25 * np.eye(D) * 1.0)
    idata = bayeswe.fit(
        "gaussian_lda", data, method="cgs", seed=2, chains=1, iter_sampling=5, iter_warmup=25
    )
    # align learned topics to the true centres
    mu = idata.posterior["mu"].values[0, -1]
    learned_of_true = np.argmin(np.linalg.norm(centers[:, None] - mu[None], axis=-1), axis=1)
    assert len(set(learned_of_true)) == K
    return idata, vectors, words, topic_of_word, learned_of_true, rng


def test_oov_synonyms_get_the_right_topic(trained) -> None:
    """Unseen 'synonyms' (a training word's vector + small noise) of topic k give theta_k > 0.8."""
    idata, vectors, _, topic_of_word, learned_of_true, rng = trained
    syn_words, syn_vectors, syn_topic = [], [], []
    for i in range(0, vectors.shape[0], 3):
        syn_words.append(f"syn{i}")
        syn_vectors.append(vectors[i] + 0.1 * rng.normal(size=D))
        syn_topic.append(topic_of_word[i])
    syn_topic = np.array(syn_topic)
    docs, doc_topic = [], []
    for k in range(K):
        ids = np.flatnonzero(syn_topic == k)
        for _ in range(3):
            docs.append(rng.choice(ids, size=12))
            doc_topic.append(k)
    new = BagOfWords.from_token_ids(docs, Vocabulary(tuple(syn_words)))
    theta = infer_theta(idata, new, np.array(syn_vectors), seed=1, iter_sampling=30, iter_warmup=10)
    assert theta.dims == ("doc", "topic") and theta.shape == (len(docs), K)
    for d, k in enumerate(doc_topic):
        assert theta.values[d, learned_of_true[k]] > 0.8, theta.values[d]
    again = infer_theta(idata, new, np.array(syn_vectors), seed=1, iter_sampling=30, iter_warmup=10)
    np.testing.assert_array_equal(theta.values, again.values)


def test_top_words_come_from_the_topic(trained) -> None:
    idata, vectors, words, topic_of_word, learned_of_true, _ = trained
    table = top_words(idata, words, vectors, n=5)
    assert table.shape == (K, 5)
    for k in range(K):
        top = table.loc[learned_of_true[k]].tolist()
        assert all(w.startswith(f"t{k}_") for w in top), top


def test_inference_input_errors(trained) -> None:
    idata, vectors, words, *_ = trained
    new = BagOfWords.from_token_ids([[0, 1]], Vocabulary(("a", "b")))
    with pytest.raises(GaussianLDADataError, match="dimension mismatch"):
        infer_theta(idata, new, np.zeros((2, D + 1)), seed=0)
    with pytest.raises(GaussianLDADataError, match="dimension mismatch: 3 embedding rows"):
        infer_theta(idata, new, np.zeros((3, D)), seed=0)
    with pytest.raises(GaussianLDADataError, match="NaN"):
        infer_theta(idata, new, np.full((2, D), np.nan), seed=0)


@pytest.mark.parametrize("chunk_floats", [1 << 22, 20])
def test_niw_predictive_log_density_is_scipys_multivariate_t(monkeypatch, chunk_floats) -> None:
    """Each column is scipy's multivariate t with eq. (1)'s dof, location and scale,
    with all topics in one batch and one topic at a time."""
    from scipy.stats import multivariate_t

    from bayeswe.glda import inference
    from bayeswe.glda.inference import niw_predictive_log_density

    monkeypatch.setattr(inference, "_CHUNK_FLOATS", chunk_floats)

    rng = np.random.default_rng(3)
    k_topics, dims, rows = 4, 3, 6
    mean = rng.normal(size=(k_topics, dims))
    a = rng.normal(size=(k_topics, dims, dims))
    psi = a @ np.swapaxes(a, 1, 2) + np.eye(dims)
    counts = np.array([0.0, 1.0, 7.0, 40.0])
    kappa, nu = 0.5 + counts, dims + 2.0 + counts
    x = rng.normal(size=(rows, dims))
    got = niw_predictive_log_density(x, mean, psi, kappa, nu)
    assert got.shape == (rows, k_topics)
    for k in range(k_topics):
        dof = nu[k] - dims + 1.0
        shape = (kappa[k] + 1.0) / (kappa[k] * dof) * psi[k]
        want = multivariate_t(mean[k], shape, df=dof).logpdf(x)
        np.testing.assert_allclose(got[:, k], want, rtol=0, atol=1e-10)


def test_niw_predictive_log_density_names_bad_input() -> None:
    from bayeswe.glda.inference import niw_predictive_log_density

    mean, psi = np.zeros((2, 3)), np.stack([np.eye(3)] * 2)
    kappa, nu = np.ones(2), np.full(2, 5.0)
    x = np.zeros((4, 3))
    assert niw_predictive_log_density(x, mean, psi, kappa, nu).shape == (4, 2)
    with pytest.raises(ValueError, match="do not fit"):
        niw_predictive_log_density(np.zeros((4, 2)), mean, psi, kappa, nu)
    with pytest.raises(ValueError, match="do not fit"):
        niw_predictive_log_density(x, mean, psi[:1], kappa, nu)
    with pytest.raises(ValueError, match="nu_k > D - 1"):
        niw_predictive_log_density(x, mean, psi, kappa, np.array([5.0, 2.0]))
    with pytest.raises(ValueError, match="kappa_k must be > 0"):
        niw_predictive_log_density(x, mean, psi, np.array([1.0, 0.0]), nu)
    bad = psi.copy()
    bad[1, 0, 0] = -1.0
    with pytest.raises(ValueError, match="Psi of topic 1 is not positive definite"):
        niw_predictive_log_density(x, mean, bad, kappa, nu)


def test_infer_theta_earlier_names_warn_and_agree(trained) -> None:
    """``sweeps``/``burn_in`` are ``iter_sampling``/``iter_warmup``, with a DeprecationWarning."""
    idata, vectors, words, *_ = trained
    new = BagOfWords.from_token_ids([[0, 1, 2], [3, 4]], Vocabulary(tuple(words[:5])))
    with pytest.warns(DeprecationWarning) as caught:
        old = infer_theta(idata, new, vectors[:5], seed=1, sweeps=12, burn_in=3)
    assert sorted(str(w.message).split("'")[5] for w in caught) == ["iter_sampling", "iter_warmup"]
    now = infer_theta(idata, new, vectors[:5], seed=1, iter_sampling=12, iter_warmup=3)
    np.testing.assert_array_equal(old.values, now.values)
