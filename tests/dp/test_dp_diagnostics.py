"""HDP-LDA diagnostics and helpers: label-free summary, relabelling, pruning, to_lda."""

import numpy as np
import pytest

from bayeswe.dp import simulate_hdp_lda
from bayeswe.dp.diagnostics import prune, relabel, summary, to_lda
from bayeswe.samplers.hdp_lda import sample_hdp_lda


@pytest.fixture(scope="module")
def fit():
    sim = simulate_hdp_lda(n_docs=40, doc_length=30, n_words=30, eta=0.05, truncation=8, seed=3)
    idata = sample_hdp_lda(
        sim.data, seed=2, chains=2, iter_warmup=100, iter_sampling=60, thin=3,
        resample_concentrations=True,
    )  # fmt: skip
    return sim, idata


def test_summary_covers_the_label_free_scalars_only(fit) -> None:
    _, idata = fit
    table = summary(idata)
    assert set(table.index) == {"n_topics", "n_tables", "alpha0", "gamma", "beta_u", "lp"}
    assert {"ess_bulk", "r_hat"} <= set(table.columns)


def test_relabelled_topics_line_up_with_the_reference_draw(fit) -> None:
    sim, idata = fit
    out = relabel(idata, reference=(0, -1))
    assert out["phi"].shape == idata.topics["phi"].shape
    # the same tokens per draw, in another order
    assert np.array_equal(
        np.sort(out["topic_tokens"].values, axis=-1),
        np.sort(idata.topics["topic_tokens"].values, axis=-1),
    )
    ref = out["phi"].values[0, -1]
    assert np.array_equal(
        ref[~np.isnan(ref).any(-1)], idata.topics["phi"].values[0, -1][~np.isnan(ref).any(-1)]
    )
    # matching never does worse than the size order, and mostly finds the same topics
    gap = np.abs(out["phi"].values[..., :2, :] - ref[:2]).sum(axis=-1)
    before = np.abs(idata.topics["phi"].values[..., :2, :] - ref[:2]).sum(axis=-1)
    assert np.nanmean(gap) <= np.nanmean(before) and np.nanmedian(gap) < 0.2


def test_prune_drops_topics_never_holding_enough_tokens(fit) -> None:
    _, idata = fit
    pruned = prune(idata.topics, min_tokens=50)
    assert 3 <= pruned.sizes["topic"] < idata.topics.sizes["topic"] or (
        pruned.sizes["topic"] == idata.topics.sizes["topic"]
    )
    assert (pruned["topic_tokens"].max(dim=("chain", "draw")) >= 50).all()


def test_to_lda_gives_the_fixed_k_lda_of_a_draw(fit) -> None:
    sim, idata = fit
    lda, phi = to_lda(idata, sim.data, chain=1, draw=-1)
    K = int(idata.posterior["n_topics"].values[1, -1])
    assert lda.n_topics == K and phi.shape == (K, 30)
    assert np.allclose(phi.sum(axis=1), 1.0)
    alpha0 = float(idata.posterior["alpha0"].values[1, -1])
    assert lda.alpha_vector().sum() < alpha0 and lda.beta == sim.data.eta


def test_document_completion_scores_held_out_words_over_several_draws(fit) -> None:
    from bayeswe.corpus import BagOfWords
    from bayeswe.dp.diagnostics import complete

    sim, idata = fit
    rng = np.random.default_rng(4)
    vocab = sim.data.corpus.vocabulary
    halves = []
    for _ in range(2):  # both halves of 10 new documents from the true model
        docs = []
        for d in range(10):
            topic = rng.choice(sim.phi.shape[0], size=15, p=sim.theta[d])
            docs.append(np.array([rng.choice(30, p=sim.phi[k]) for k in topic]))
        halves.append(docs)
    observed = BagOfWords.from_token_ids(halves[0], vocab)
    heldout = BagOfWords.from_token_ids(halves[1], vocab)
    out = complete(idata, observed, heldout, draws=5, seed=1)
    assert out.theta.shape[:2] == (5, 10) and out.per_draw.shape == (5,)
    assert np.allclose(np.nansum(out.theta, axis=-1), 1.0)
    assert out.log_predictive > -np.log(30) + 0.3  # far better than uniform words
    assert out.log_predictive >= out.per_draw.mean()  # Jensen: averaging draws helps
    with pytest.raises(ValueError, match="same documents"):
        complete(idata, observed, heldout.subset([0, 1]))
