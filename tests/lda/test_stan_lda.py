"""LDA in Stan: models/lda.stan against the User's Guide program and the collapsed Gibbs sampler."""

import contextlib
import io
import json

import arviz as az
import numpy as np
import pytest

import bayeswe
from bayeswe.bench.lda_stan import log_density_gap, main, raw_from_simplex
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.errors import StanDataError
from bayeswe.lda import LDAData, LDADataError
from bayeswe.lda.align import align_chains
from bayeswe.lda.models import LDA, LDA_USERS_GUIDE, stan_data, users_guide_data
from bayeswe.stan.toolchain import compile_model

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def _json_ready(d):
    return {
        k: (v.tolist() if isinstance(v, np.ndarray) else v)
        for k, v in d.items()
        if not k.startswith("__")
    }


def _small_data(alpha=0.3) -> LDAData:
    docs = [[0, 0, 1, 4], [1, 2, 3, 3, 3], [3, 4, 0], [2, 2, 2, 1, 0, 4]]
    vocab = Vocabulary(tuple("abcde"))
    return LDAData(
        BagOfWords.from_token_ids(docs, vocab, doc_ids=["d1", "d2", "d3", "d4"]),
        n_topics=3,
        alpha=alpha,
        beta=0.7,
    )


# ------------------------------------------------------------- log density


@pytest.mark.parametrize("alpha", [0.3, np.array([0.2, 1.0, 2.5])], ids=["symmetric", "asym"])
def test_same_log_density_as_users_guide(alpha):
    """At random points both programs differ by exactly the softmax Jacobian.

    lda.stan (aggregated pairs) minus the User's Guide program (tokens, ``~
    dirichlet``, no Jacobian) must be ``sum(log theta) + sum(log phi)`` at every
    point; compared at several points this also checks that differences of the
    log density between points agree.
    """
    data = _small_data(alpha)
    ours, ug = compile_model(LDA.stan_file), compile_model(LDA_USERS_GUIDE.stan_file)
    agg, tok = _json_ready(stan_data(data)), _json_ready(users_guide_data(data))
    rng = np.random.default_rng(5)
    lps = []
    for _ in range(3):
        theta = rng.dirichlet(np.full(3, 0.8), size=data.n_docs)
        phi = rng.dirichlet(np.full(data.n_words, 0.8), size=3)
        raw = {"theta_raw": raw_from_simplex(theta), "phi_raw": raw_from_simplex(phi)}
        lp_ours = ours.log_prob(_json_ready(raw), agg, jacobian=False, sig_figs=16)["lp__"][0]
        lp_ug = ug.log_prob(
            {"theta": theta.tolist(), "phi": phi.tolist()}, tok, jacobian=False, sig_figs=16
        )["lp__"][0]
        lps.append((lp_ours, lp_ug))
        np.testing.assert_allclose(lp_ours - lp_ug, log_density_gap(theta, phi), atol=1e-8)
    # the points are different enough for the check to mean something
    assert np.ptp([u for _, u in lps]) > 1.0


def test_shifting_raw_parameters_only_moves_the_sum_term():
    """softmax ignores x -> x + c; lda.stan's density then changes by the N(0, n) term only."""
    data = _small_data()
    ours = compile_model(LDA.stan_file)
    agg = _json_ready(stan_data(data))
    rng = np.random.default_rng(2)
    theta_raw = raw_from_simplex(rng.dirichlet(np.ones(3), size=data.n_docs))
    phi_raw = raw_from_simplex(rng.dirichlet(np.ones(data.n_words), size=3))
    c_theta, c_phi = rng.normal(size=(data.n_docs, 1)), rng.normal(size=(3, 1))

    def lp(t, p):
        params = _json_ready({"theta_raw": t, "phi_raw": p})
        return ours.log_prob(params, agg, jacobian=False, sig_figs=16)["lp__"][0]

    expected = -0.5 * (3 * (c_theta**2).sum() + data.n_words * (c_phi**2).sum())
    shifted = lp(theta_raw + c_theta, phi_raw + c_phi)
    np.testing.assert_allclose(shifted - lp(theta_raw, phi_raw), expected, atol=1e-8)


# ------------------------------------------------------------- fit methods


@pytest.mark.parametrize(
    "method, options",
    [
        ("map", {}),
        ("advi", {"draws": 50, "require_converged": False}),
        ("nuts", {"chains": 2, "iter_warmup": 150, "iter_sampling": 50}),
    ],
)
def test_fit_returns_theta_and_phi_with_dims_and_coords(method, options):
    data = _small_data()
    idata = bayeswe.fit("lda", data, method=method, seed=3, **options)
    post = idata.posterior
    assert post["theta"].dims == ("chain", "draw", "doc", "topic")
    assert post["phi"].dims == ("chain", "draw", "topic", "word")
    assert list(post["doc"].values) == ["d1", "d2", "d3", "d4"]
    assert list(post["word"].values) == list("abcde")
    assert list(post["topic"].values) == [0, 1, 2]
    # Stan's CSV holds 6 significant figures
    np.testing.assert_allclose(post["theta"].sum("topic"), 1.0, atol=1e-5)
    np.testing.assert_allclose(post["phi"].sum("word"), 1.0, atol=1e-5)
    assert idata.attrs["method"] == method
    assert idata.attrs["model"] == "lda"
    # the counts are the observed data, per distinct (document, word) pair
    assert int(idata.observed_data["count"].sum()) == data.corpus.n_tokens


def test_same_seed_same_nuts_draws():
    data = _small_data()
    opts = {"chains": 2, "iter_warmup": 50, "iter_sampling": 20}
    a = bayeswe.fit("lda", data, method="nuts", seed=9, **opts).posterior["phi"].values
    b = bayeswe.fit("lda", data, method="nuts", seed=9, **opts).posterior["phi"].values
    c = bayeswe.fit("lda", data, method="nuts", seed=10, **opts).posterior["phi"].values
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_users_guide_model_fits_from_ldadata():
    data = _small_data()
    # alpha < 1: the mode of the simplex density is on the boundary; jacobian=True
    # takes the mode on the unconstrained scale, which exists
    idata = bayeswe.fit("lda_users_guide", data, method="map", seed=1, jacobian=True)
    assert idata.posterior["phi"].dims == ("chain", "draw", "topic", "word")
    assert idata.observed_data["word"].size == data.corpus.n_tokens


# ------------------------------------------------------------- NUTS vs collapsed Gibbs


def _separated_corpus() -> tuple[LDAData, np.ndarray]:
    """K=2, topic 0 on words 0-2 and topic 1 on words 3-5 (a little overlap)."""
    phi = np.array(
        [[0.35, 0.3, 0.25, 0.04, 0.03, 0.03], [0.03, 0.03, 0.04, 0.25, 0.3, 0.35]],
    )
    rng = np.random.default_rng(11)
    docs = []
    for d in range(10):
        theta = np.array([0.85, 0.15]) if d % 2 == 0 else np.array([0.2, 0.8])
        z = rng.choice(2, size=15, p=theta)
        docs.append([int(rng.choice(6, p=phi[k])) for k in z])
    vocab = Vocabulary(tuple(f"w{i}" for i in range(6)))
    data = LDAData(BagOfWords.from_token_ids(docs, vocab), n_topics=2, alpha=1.0, beta=0.5)
    return data, phi


def test_nuts_agrees_with_collapsed_gibbs_on_tiny_corpus():
    """Posterior means of phi (aligned to the true topics) agree within 4.5 combined MCSEs.

    Both chains of each method are aligned to the true topics (Hungarian
    matching), so label switching between chains does not matter; with two
    well-separated topics the posterior has no other modes. The CGS draws are
    E[phi | z] at saved sweeps, whose mean is the same posterior mean.
    """
    data, true_phi = _separated_corpus()
    nuts = bayeswe.fit(
        "lda", data, method="nuts", seed=7, chains=2, iter_warmup=400, iter_sampling=1000
    )
    cgs = bayeswe.fit(
        "lda", data, method="cgs", seed=7, chains=2, iter_warmup=200, iter_sampling=4000, thin=4
    )
    means, mcses = [], []
    for idata in (nuts, cgs):
        aligned = align_chains(idata, reference=true_phi)
        phi = aligned.posterior["phi"]
        means.append(phi.mean(("chain", "draw")).values)
        mcses.append(az.mcse(aligned, var_names=["phi"])["phi"].values)
    diff = np.abs(means[0] - means[1])
    tol = 4.5 * np.sqrt(mcses[0] ** 2 + mcses[1] ** 2)
    assert (diff <= tol).all(), f"max |diff| / tol = {(diff / tol).max():.2f}"
    # the tolerance is much finer than the posterior's own spread (the test can fail)
    sd = nuts.posterior["phi"].std(("chain", "draw")).values
    assert (tol < 0.3 * sd).all()
    # and both recover the separated topics
    assert np.abs(means[0] - true_phi).max() < 0.15


# ------------------------------------------------------------- bad data


def test_missing_field_raises_stan_data_error():
    d = _json_ready(stan_data(_small_data()))
    del d["count"]
    with pytest.raises(StanDataError, match="count"):
        bayeswe.fit("lda", d, method="map", seed=1)


def test_word_id_out_of_range_raises_stan_data_error():
    d = _json_ready(stan_data(_small_data()))
    d["word"][0] = d["V"] + 1
    with pytest.raises(StanDataError, match="word"):
        bayeswe.fit("lda", d, method="map", seed=1)


def test_pairs_not_grouped_by_document_raise_stan_data_error():
    d = _json_ready(stan_data(_small_data()))
    d["doc"] = d["doc"][::-1]
    with pytest.raises(StanDataError, match="non-decreasing"):
        bayeswe.fit("lda", d, method="map", seed=1)


def test_ldadata_errors():
    vocab = Vocabulary(tuple("ab"))
    with pytest.raises(LDADataError, match="n_topics"):
        LDAData(BagOfWords.from_token_ids([[0, 1]], vocab), n_topics=1)
    with pytest.raises(LDADataError, match="non-empty"):
        LDAData(BagOfWords.from_token_ids([[0, 1], []], vocab), n_topics=2)
    with pytest.raises(LDADataError, match="sgns"):
        bayeswe.fit("sgns", _small_data(), method="map", seed=1)


# ------------------------------------------------------------- benchmark


def test_quick_benchmark_prints_json_with_summary():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--quick", "--json"]) == 0
    result = json.loads(out.getvalue())
    summary = result["summary"]
    assert summary["stan_grad_speedup_vs_users_guide"] > 0
    assert abs(summary["lp_gap_error"]) < 1e-6
    assert {"grad_time_us_lda", "grad_time_us_users_guide"} <= set(summary)
    assert result["sizes"]["n_pairs"] <= result["sizes"]["n_tokens"]
