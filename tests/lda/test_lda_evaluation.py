"""Topic alignment, held-out log predictive, coherence and top words."""

import arviz as az
import numpy as np
import pytest

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.lda.align import AlignmentError, align_chains, align_topics, topic_distances
from bayeswe.lda.evaluation import (
    EvaluationError,
    coherence,
    heldout_log_predictive,
    split_documents,
    top_words,
)
from bayeswe.lda.simulate import simulate_lda

# ----------------------------------------------------------------- alignment


def _random_phi(K, V, seed):
    return np.random.default_rng(seed).dirichlet(np.full(V, 0.1), size=K)


@pytest.mark.parametrize("metric", ["hellinger", "jensen-shannon"])
def test_align_topics_recovers_a_permutation(metric):
    phi = _random_phi(6, 40, 0)
    perm = np.array([3, 0, 5, 1, 4, 2])
    noisy = phi[perm] * np.random.default_rng(1).uniform(0.9, 1.1, size=phi.shape)
    found = align_topics(phi, noisy, metric=metric)
    # noisy[found] lines up with phi: found is the inverse permutation
    np.testing.assert_array_equal(perm[found], np.arange(6))
    d = topic_distances(phi, noisy[found], metric)
    assert np.all(np.diag(d) < d.min(axis=1) + 1e-12)


def test_topic_distances_known_values():
    a = np.array([[1.0, 0.0], [0.5, 0.5]])
    h = topic_distances(a, a, "hellinger")
    assert h[0, 0] == 0.0 and h[0, 1] == pytest.approx(np.sqrt(1 - np.sqrt(0.5)))
    js = topic_distances(a, a, "jensen-shannon")
    # JS((1, 0), (1/2, 1/2)) in bits with the mixture M = (3/4, 1/4)
    expected = 0.5 * (np.log2(1 / 0.75)) + 0.5 * (
        0.5 * np.log2(0.5 / 0.75) + 0.5 * np.log2(0.5 / 0.25)
    )
    assert js[0, 1] == pytest.approx(np.sqrt(expected))


def test_align_chains_undoes_known_permutations():
    K, V, D = 4, 30, 5
    rng = np.random.default_rng(3)
    phi = _random_phi(K, V, 2)
    theta = rng.dirichlet(np.ones(K), size=D)
    perms = [np.arange(K), np.array([2, 3, 1, 0]), np.array([1, 0, 3, 2])]
    phis = np.stack([np.stack([phi[p]] * 3) for p in perms])  # (chain, draw, K, V)
    thetas = np.stack([np.stack([theta[:, p]] * 3) for p in perms])
    idata = az.from_dict(
        posterior={"phi": phis, "theta": thetas},
        dims={"phi": ["topic", "word"], "theta": ["doc", "topic"]},
    )
    aligned = align_chains(idata, reference=0)
    for c in range(3):
        np.testing.assert_array_equal(aligned.posterior.phi.values[c, 0], phi)
        np.testing.assert_array_equal(aligned.posterior.theta.values[c, 0], theta)
    assert "topic_permutation" in aligned.posterior.attrs
    # the input is left as it was
    np.testing.assert_array_equal(idata.posterior.phi.values[1, 0], phi[perms[1]])
    with pytest.raises(AlignmentError, match="out of range"):
        align_chains(idata, reference=5)
    with pytest.raises(AlignmentError, match="shape"):
        align_topics(phi, phi[:, :10])


# ----------------------------------------------------------------- held-out


@pytest.fixture(scope="module")
def sim_test():
    train = simulate_lda(
        n_docs=60, doc_length=80, n_words=50, n_topics=4, alpha=0.2, beta=0.05, seed=4
    )
    test = simulate_lda(
        n_docs=40,
        doc_length=80,
        n_words=50,
        n_topics=4,
        alpha=0.2,
        beta=0.05,
        seed=5,
        phi=train.phi,
    )
    return train, test


def test_split_documents_partitions_every_document():
    vocab = Vocabulary(tuple("abcde"))
    bow = BagOfWords.from_token_ids([[0, 1, 1, 2], [3, 4, 4], [0]], vocab)
    obs_ptr, obs_word, ho_ptr, ho_word = split_documents(bow, seed=0)
    assert np.diff(obs_ptr).tolist() == [2, 2, 0]  # round-half-to-even of 1.5 is 2
    assert np.diff(ho_ptr).tolist() == [2, 1, 1]
    for d, doc in enumerate([[0, 1, 1, 2], [3, 4, 4], [0]]):
        got = np.concatenate(
            [obs_word[obs_ptr[d] : obs_ptr[d + 1]], ho_word[ho_ptr[d] : ho_ptr[d + 1]]]
        )
        assert sorted(got.tolist()) == doc


def test_true_parameters_beat_a_uniform_model(sim_test):
    train, test = sim_test
    truth = heldout_log_predictive(train.phi, test.data.corpus, 0.2, seed=1)
    uniform = heldout_log_predictive(np.full((4, 50), 1 / 50), test.data.corpus, 0.2, seed=1)
    assert uniform.per_token == pytest.approx(-np.log(50))
    # with 4 sparse topics over 50 words the per-token gain is large (~1 nat);
    # 0.3 nats is far beyond the Monte Carlo noise of the fold-in.
    assert truth.per_token > uniform.per_token + 0.3
    assert truth.n_tokens == 40 * 40 and truth.n_draws == 1


def test_heldout_accepts_a_fit_and_is_reproducible(sim_test):
    import bayeswe

    train, test = sim_test
    idata = bayeswe.fit(
        "lda", train.data, method="cgs", seed=2, chains=2, iter_sampling=40, iter_warmup=40
    )
    a = heldout_log_predictive(idata, test.data.corpus, 0.2, seed=9, max_draws=4)
    b = heldout_log_predictive(idata, test.data.corpus, 0.2, seed=9, max_draws=4)
    assert a == b and a.n_draws == 4
    uniform = -np.log(50)
    assert a.per_token > uniform + 0.3
    with pytest.raises(EvaluationError, match="V=50"):
        heldout_log_predictive(np.full((4, 7), 1 / 7), test.data.corpus, 0.2, seed=1)
    with pytest.raises(EvaluationError, match="alpha"):
        heldout_log_predictive(train.phi, test.data.corpus, np.ones(3), seed=1)
    with pytest.raises(EvaluationError, match="burn_in"):
        heldout_log_predictive(train.phi, test.data.corpus, 0.2, seed=1, sweeps=5, burn_in=5)


# ----------------------------------------------------------------- coherence, top words


def _coherence_corpus():
    # 4 documents over words a b c d
    vocab = Vocabulary(tuple("abcd"))
    docs = [[0, 1], [0, 1, 2], [0], [3]]
    return vocab, BagOfWords.from_token_ids(docs, vocab)


def test_coherence_known_values():
    vocab, bow = _coherence_corpus()
    # topic 0 ranks a > b > c; topic 1 ranks d > a > ...
    phi = np.array([[0.5, 0.3, 0.2, 0.0], [0.3, 0.0, 0.0, 0.7]])
    # document frequencies: a 3, b 2, c 1, d 1; co-occurrence: ab 2, ac 1, bc 1, ad 0
    umass = coherence(phi, bow, top_n=3, measure="umass")
    expected0 = np.mean([np.log(3 / 3), np.log(2 / 3), np.log(2 / 2)])
    assert umass[0] == pytest.approx(expected0)

    def npmi(p_ab, p_a, p_b):
        return np.log(p_ab / (p_a * p_b)) / -np.log(p_ab)

    n = coherence(phi, bow, top_n=3, measure="npmi")
    # pairs (a, b), (a, c), (b, c)
    expected = np.mean(
        [npmi(2 / 4, 3 / 4, 2 / 4), npmi(1 / 4, 3 / 4, 1 / 4), npmi(1 / 4, 2 / 4, 1 / 4)]
    )
    assert n[0] == pytest.approx(expected)
    # topic 1's top two words d, a never co-occur: NPMI -1
    assert coherence(phi, bow, top_n=2, measure="npmi")[1] == -1.0
    with pytest.raises(EvaluationError, match="measure"):
        coherence(phi, bow, measure="cv")


def test_top_words_table():
    vocab, _ = _coherence_corpus()
    phi = np.array([[0.5, 0.3, 0.2, 0.0], [0.3, 0.0, 0.0, 0.7]])
    table = top_words(phi, vocab, top_n=2)
    assert table.index.name == "topic"
    assert table.loc[0].tolist() == ["a", "b"] and table.loc[1].tolist() == ["d", "a"]


# ------------------------------------------------- identity: words matched by label


def _reordered(bow: BagOfWords, order: np.ndarray) -> BagOfWords:
    """The same documents over the vocabulary ``words[order]`` (ids renumbered)."""
    words = bow.vocabulary.words
    vocab = Vocabulary(tuple(words[i] for i in order))
    new_id = np.argsort(order)
    docs = [
        np.repeat(new_id[bow.word_ids[a:b]], bow.counts[a:b])
        for a, b in zip(bow.doc_ptr[:-1], bow.doc_ptr[1:], strict=True)
    ]
    return BagOfWords.from_token_ids(docs, vocab)


def test_a_reordered_vocabulary_gives_the_same_scores(sim_test):
    """The same test words in another order: matched by label, so the held-out score
    and the coherences are those of the original order (they were silently wrong,
    scored against the wrong words, when only the sizes were compared)."""
    import bayeswe

    train, test = sim_test
    idata = bayeswe.fit("lda", train.data, method="cgs", seed=2, chains=2, sweeps=40, burn_in=40)
    corpus = test.data.corpus
    order = np.random.default_rng(0).permutation(corpus.n_words)
    shuffled = _reordered(corpus, order)
    assert shuffled.vocabulary.words != corpus.vocabulary.words
    a = heldout_log_predictive(idata, corpus, 0.2, seed=9, max_draws=4)
    b = heldout_log_predictive(idata, shuffled, 0.2, seed=9, max_draws=4)
    assert b == a  # re-indexed to the very corpus of the original order
    np.testing.assert_allclose(
        coherence(idata, shuffled, top_n=5), coherence(idata, corpus, top_n=5), atol=1e-12
    )
    # the words a subset of the fit's: re-indexed too; words the fit lacks: named
    sub = BagOfWords.from_token_ids(
        [[0, 1, 1], [2]], Vocabulary(tuple(corpus.vocabulary.words[:3]))
    )
    assert heldout_log_predictive(idata, sub, 0.2, seed=1, max_draws=2).n_tokens > 0
    other = Vocabulary(("zebra", *corpus.vocabulary.words[1:]))
    foreign = BagOfWords.from_token_ids([[0, 1], [2]], other)
    for call in (
        lambda: heldout_log_predictive(idata, foreign, 0.2, seed=1),
        lambda: coherence(idata, foreign),
    ):
        with pytest.raises(EvaluationError, match="1 word\\(s\\) the fit does not: 'zebra'"):
            call()
    with pytest.raises(EvaluationError, match="not the fit's words"):
        top_words(idata, shuffled.vocabulary)


def test_heldout_fold_in_lengths_under_their_earlier_names(sim_test):
    """``burn_in``/``sweeps`` (all sweeps) of earlier releases warn and give the draws of
    ``iter_warmup``/``iter_sampling`` (sweeps after warm-up); the defaults are 10 and 40."""
    train, test = sim_test
    corpus = test.data.corpus
    new = heldout_log_predictive(train.phi, corpus, 0.2, seed=1, iter_warmup=5, iter_sampling=15)
    with pytest.warns(DeprecationWarning, match="'sweeps'.*'iter_sampling'"):
        old = heldout_log_predictive(train.phi, corpus, 0.2, seed=1, sweeps=20, burn_in=5)
    assert old == new
    default = heldout_log_predictive(train.phi, corpus, 0.2, seed=1)
    assert default == heldout_log_predictive(
        train.phi, corpus, 0.2, seed=1, iter_warmup=10, iter_sampling=40
    )
    with pytest.raises(ValueError, match="not both"):
        heldout_log_predictive(train.phi, corpus, 0.2, seed=1, burn_in=5, iter_warmup=5)
    with pytest.raises(ValueError, match="iter_sampling must be >= 1"):
        heldout_log_predictive(train.phi, corpus, 0.2, seed=1, iter_sampling=0)
    with pytest.raises(TypeError, match="unexpected"):
        heldout_log_predictive(train.phi, corpus, 0.2, seed=1, sweep=3)
