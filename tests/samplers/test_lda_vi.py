"""LDA by coordinate-ascent VI (``method="cavi"``): exact updates, monotone ELBO, recovery."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import digamma, gammaln

import bayeswe
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.lda import LDAData
from bayeswe.lda.align import align_topics, topic_distances
from bayeswe.lda.simulate import simulate_lda
from bayeswe.samplers.lda_vi import CAVIArgs, SVIArgs, cavi, cgs_lambda, initial_lambda, svi


@pytest.fixture(scope="module")
def tiny() -> LDAData:
    vocab = Vocabulary(tuple(f"w{i}" for i in range(5)))
    docs = [[0, 0, 1, 2], [3, 4, 4, 4, 1], [2, 2, 0], [4, 3, 3, 1, 0, 0]]
    return LDAData(BagOfWords.from_token_ids(docs, vocab), n_topics=3, alpha=0.4, beta=0.3)


def _elog(param: np.ndarray) -> np.ndarray:
    return digamma(param) - digamma(param.sum(axis=-1, keepdims=True))


def _dirichlet_kl_terms(prior: np.ndarray, post: np.ndarray) -> float:
    """E_q[log Dir(p | prior)] - E_q[log Dir(p | post)], summed over rows."""
    e = _elog(post)
    return float(
        np.sum((prior - post) * e)
        + np.sum(gammaln(prior.sum(-1)) - gammaln(prior).sum(-1))
        - np.sum(gammaln(post.sum(-1)) - gammaln(post).sum(-1))
    )


def _numpy_iteration(data: LDAData, lam: np.ndarray, gamma: np.ndarray, local_iter: int):
    """One CAVI iteration transcribed from Blei et al. (2003), eqs. 6-7 and 9."""
    dense = data.corpus.to_dense().astype(float)  # (D, V)
    alpha, beta = data.alpha_vector(), data.beta
    elog_beta = _elog(lam)
    gamma = gamma.copy()
    phis = []
    for d in range(dense.shape[0]):
        words = np.flatnonzero(dense[d])
        for _ in range(local_iter):
            logits = _elog(gamma[d])[None, :] + elog_beta[:, words].T  # (n_d, K)
            phi = np.exp(logits - logits.max(axis=1, keepdims=True))
            phi /= phi.sum(axis=1, keepdims=True)
            gamma[d] = alpha + dense[d, words] @ phi
        phis.append((words, phi))
    sstats = np.zeros_like(lam)
    likelihood = 0.0
    for d, (words, phi) in enumerate(phis):
        n = dense[d, words][:, None]
        sstats[:, words] += (n * phi).T
        likelihood += np.sum(
            n * phi * (_elog(gamma[d])[None, :] + elog_beta[:, words].T - np.log(phi))
        )
    elbo = (
        likelihood
        + _dirichlet_kl_terms(np.broadcast_to(alpha, gamma.shape), gamma)
        + _dirichlet_kl_terms(np.full_like(lam, beta), lam)
    )
    return beta + sstats, gamma, elbo


def test_one_iteration_equals_the_numpy_transcription(tiny: LDAData) -> None:
    lam0 = initial_lambda(tiny, seed=4)
    gamma0 = tiny.alpha_vector()[None, :] + tiny.corpus.doc_lengths[:, None] / tiny.n_topics
    for local_iter in (1, 7):
        # local_tol 0: exactly local_iter rounds per document, as in the transcription
        args = CAVIArgs(iter=1, local_iter=local_iter, local_tol=0.0)
        ours = cavi(tiny, args, lam0, gamma0)
        lam, gamma, elbo = _numpy_iteration(tiny, lam0, gamma0, local_iter)
        np.testing.assert_allclose(ours.gamma, gamma, rtol=1e-12)
        np.testing.assert_allclose(ours.lam, lam, rtol=1e-12)
        assert ours.elbo[0] == pytest.approx(elbo, rel=1e-12)


def test_the_fixed_point_is_a_fixed_point_of_the_transcription(tiny: LDAData) -> None:
    args = CAVIArgs(iter=5000, tol_rel_obj=0.0, local_iter=50, local_tol=1e-13)
    fit = cavi(tiny, args, initial_lambda(tiny, seed=1))
    lam, gamma, _ = _numpy_iteration(tiny, fit.lam, fit.gamma, 50)
    np.testing.assert_allclose(lam, fit.lam, rtol=1e-8)
    np.testing.assert_allclose(gamma, fit.gamma, rtol=1e-8)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_elbo_never_decreases(seed: int) -> None:
    sim = simulate_lda(n_docs=60, doc_length=50, n_words=40, n_topics=5, alpha=0.2, seed=seed)
    fit = cavi(
        sim.data, CAVIArgs(iter=300, tol_rel_obj=0.0, local_iter=3), initial_lambda(sim.data, seed)
    )
    steps = np.diff(fit.elbo)
    # every update is an exact coordinate maximisation: only rounding may go down
    assert steps.min() >= -1e-9 * np.abs(fit.elbo).max(), steps.min()
    assert fit.elbo[-1] > fit.elbo[0]


def test_recovers_simulated_topics_about_as_well_as_cgs() -> None:
    sim = simulate_lda(n_docs=200, doc_length=100, n_words=80, n_topics=5, alpha=0.2, beta=0.05,
                       seed=11)  # fmt: skip
    vi = bayeswe.fit("lda", sim.data, method="cavi", seed=1)
    gibbs = bayeswe.fit(
        "lda", sim.data, method="cgs", seed=1, chains=1, iter_warmup=300, iter_sampling=200
    )

    def error(idata) -> float:
        phi = idata.posterior["phi"].mean(("chain", "draw")).values
        aligned = phi[align_topics(sim.phi, phi)]
        return float(np.mean(np.diag(topic_distances(sim.phi, aligned))))

    err_vi, err_gibbs = error(vi), error(gibbs)
    # both find the topics (Hellinger distance 0 is exact, 1 disjoint); VI within 0.03 of cgs
    assert err_gibbs < 0.15 and err_vi < err_gibbs + 0.03, (err_vi, err_gibbs)
    assert vi.attrs["converged"] == 1


def test_same_names_dims_and_coords_as_cgs_and_seeded(tiny: LDAData) -> None:
    vi = bayeswe.fit("lda", tiny, method="cavi", seed=5, draws=30)
    gibbs = bayeswe.fit("lda", tiny, method="cgs", seed=5, chains=1, iter_sampling=30)
    for name in ("phi", "theta"):
        assert vi.posterior[name].dims == gibbs.posterior[name].dims
        for dim in vi.posterior[name].dims[2:]:
            assert list(vi.posterior[name][dim].values) == list(gibbs.posterior[name][dim].values)
    np.testing.assert_allclose(vi.posterior["phi"].sum("word"), 1.0, rtol=1e-12)
    again = bayeswe.fit("lda", tiny, method="cavi", seed=5, draws=30)
    np.testing.assert_array_equal(vi.posterior["phi"].values, again.posterior["phi"].values)
    other = bayeswe.fit("lda", tiny, method="cavi", seed=6, draws=30)
    assert not np.array_equal(vi.posterior["phi"].values, other.posterior["phi"].values)
    assert vi.optimization_trace["elbo"].dims == ("iteration",)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"chains": 2}, ValueError, "chains must be 1"),
        ({"sweeps": 10}, ValueError, "does not take option"),
        ({"tol_rel_obj": -1.0}, ValueError, "tol_rel_obj"),
        ({"draws": 0}, ValueError, "draws"),
        ({"init": "kmeans"}, ValueError, "init"),
    ],
)
def test_bad_options(tiny: LDAData, kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        bayeswe.fit("lda", tiny, method="cavi", seed=1, **kwargs)


def test_needs_lda_data() -> None:
    with pytest.raises(ValueError, match="LDAData"):
        bayeswe.fit("lda", {"K": 2}, method="cavi", seed=1)


def test_a_random_start_can_stop_at_a_worse_local_optimum() -> None:
    """Why the default start is a short Gibbs run: from near-uniform random topics, batch
    VB converges (monotonically) to optima that merge topics, with a lower ELBO."""
    sim = simulate_lda(n_docs=200, doc_length=100, n_words=80, n_topics=5, alpha=0.2, beta=0.05,
                       seed=11)  # fmt: skip
    args = CAVIArgs(iter=2000, tol_rel_obj=1e-9)
    from_gibbs = cavi(sim.data, args, cgs_lambda(sim.data, 1, 50))
    from_random = [cavi(sim.data, args, initial_lambda(sim.data, s)) for s in (1, 2, 3)]
    assert all(r.elbo[-1] < from_gibbs.elbo[-1] - 100 for r in from_random)


# ----------------------------------------------------------------------------- SVI


def test_svi_with_the_whole_corpus_and_rate_one_is_a_cavi_step(tiny: LDAData) -> None:
    """One mini-batch of all D documents, rho = 1 (kappa = 0): lambda <- beta + sstats,
    with gamma started where CAVI's first iteration starts it."""
    lam0 = initial_lambda(tiny, seed=4)
    step = cavi(tiny, CAVIArgs(iter=1, local_iter=20, local_tol=0.0), lam0)
    args = SVIArgs(batch_size=tiny.corpus.n_docs, iter=1, kappa=0.0, local_iter=20,
                   local_tol=0.0, elbo_every_pass=False)  # fmt: skip
    lam, _, updates = svi(tiny, args, lam0, np.random.default_rng(0))
    assert updates == 1
    np.testing.assert_allclose(lam, step.lam, rtol=1e-13)


def test_svi_update_is_the_convex_combination_of_the_batch_estimate(tiny: LDAData) -> None:
    lam0 = initial_lambda(tiny, seed=2)
    args = SVIArgs(batch_size=2, iter=1, tau0=3.0, kappa=0.6, local_iter=5, local_tol=0.0,
                   elbo_every_pass=False)  # fmt: skip
    lam, _, updates = svi(tiny, args, lam0, np.random.default_rng(7))
    assert updates == 2  # 4 documents in mini-batches of 2
    # replay by hand: same order, each batch's estimate from a CAVI E-step on its documents
    order = np.random.default_rng(7).permutation(4)
    expected = lam0.copy()
    for t, docs in enumerate((order[:2], order[2:])):
        sub = LDAData(tiny.corpus.subset(docs), n_topics=3, alpha=0.4, beta=0.3)
        batch = cavi(sub, CAVIArgs(iter=1, local_iter=5, local_tol=0.0), expected)
        rho = (3.0 + t) ** -0.6
        estimate = 0.3 + (4 / 2) * (batch.lam - 0.3)
        expected = (1 - rho) * expected + rho * estimate
    np.testing.assert_allclose(lam, expected, rtol=1e-12)


def test_svi_recovers_simulated_topics_and_its_elbo_rises() -> None:
    sim = simulate_lda(n_docs=400, doc_length=60, n_words=80, n_topics=5, alpha=0.2, beta=0.05,
                       seed=11)  # fmt: skip
    idata = bayeswe.fit("lda", sim.data, method="svi", seed=1, batch_size=50, iter=8)
    phi = idata.posterior["phi"].mean(("chain", "draw")).values
    err = float(np.mean(np.diag(topic_distances(sim.phi, phi[align_topics(sim.phi, phi)]))))
    assert err < 0.1, err
    elbo = idata.optimization_trace["elbo"].values
    assert elbo.shape == (8,) and elbo[-1] > elbo[0]
    assert idata.posterior["theta"].dims == ("chain", "draw", "doc", "topic")
    assert idata.attrs["updates"] == 8 * 8


def test_svi_keeps_each_documents_gamma_between_visits(tiny: LDAData) -> None:
    """A second pass starts every gamma_d where the first left it (same optimum as a
    fresh start up to the local tolerance, fewer rounds)."""
    lam0 = initial_lambda(tiny, seed=3)
    gamma = tiny.alpha_vector()[None, :] + tiny.corpus.doc_lengths[:, None] / tiny.n_topics
    before = gamma.copy()
    args = SVIArgs(batch_size=2, iter=1, local_iter=200, local_tol=1e-12, elbo_every_pass=False)
    lam, _, t = svi(tiny, args, lam0, np.random.default_rng(1), gamma=gamma)
    assert t == 2 and not np.allclose(gamma, before)  # updated in place
    # the kept gamma are the local optima for the topics each batch saw
    visited = gamma.copy()
    lam2, _, t2 = svi(tiny, args, lam, np.random.default_rng(2), t_start=t, gamma=gamma)
    assert t2 == 4 and np.isfinite(lam2).all() and not np.array_equal(gamma, visited)
