"""models/dp_mixture.stan, dp_multinomial.stan and hdp_lda.stan under every Stan method,
on tiny data.

Each fit checks the names, dims and shapes every method shares, that the weights sum to
one and that ``leftover`` is the last weight. The statistical checks of NUTS are in
test_dp_recovery.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import bayeswe
from bayeswe.dp import (
    HDPLDAData,
    initial_values,
    simulate_dp_mixture,
    simulate_dp_multinomial,
    simulate_hdp_lda,
)

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

METHODS = ["nuts", "advi", "map", "laplace", "pathfinder"]
SMALL = {
    "nuts": {"chains": 2, "iter_warmup": 150, "iter_sampling": 100, "show_progress": False},
    "advi": {"require_converged": False},
    # without the Jacobian the mode of Beta(1, alpha) sticks is at alpha -> 0, v -> 1
    # (the header of dp_mixture.stan): the MAP of the unconstrained density is used
    "map": {"jacobian": True},
    "laplace": {"draws": 200},
    "pathfinder": {"draws": 200},
}


def _options(method: str, inits=None) -> dict:
    options = dict(SMALL[method])
    if inits is not None:
        options["inits"] = inits if method == "nuts" else inits[0]
    return options


@pytest.fixture(scope="module")
def dp_sim():
    return simulate_dp_mixture(n_points=40, weights=(0.6, 0.4), truncation=4, seed=11)


@pytest.fixture(scope="module")
def hdp_data() -> HDPLDAData:
    sim = simulate_hdp_lda(
        n_docs=6, doc_length=12, n_words=8, beta=(0.6, 0.4), alpha0=2.0, eta=0.5,
        truncation=3, seed=5,
    )  # fmt: skip
    return sim.data


@pytest.mark.parametrize("method", METHODS)
def test_dp_mixture_runs_under_every_method(dp_sim, method):
    data = dp_sim.data
    inits = initial_values(data, seed=2, chains=2)
    idata = bayeswe.fit("dp_mixture", data, method=method, seed=3, **_options(method, inits))
    post = idata.posterior
    T, P, N = data.truncation, data.dim, data.n_points
    assert post["mu"].shape[2:] == (T, P) and post["mu"].dims[2:] == ("component", "dim")
    assert post["L_Sigma"].dims[2:] == ("component", "dim", "dim2")
    assert post["v"].shape[2:] == (T - 1,) and post["v"].dims[2] == "stick"
    np.testing.assert_allclose(post["w"].sum("component"), 1.0, atol=1e-6)
    np.testing.assert_allclose(post["leftover"], post["w"].isel(component=-1), atol=1e-8)
    assert (post["occupancy"].sum("component") == N).all()
    assert ((post["n_occupied"] >= 1) & (post["n_occupied"] <= T)).all()
    assert idata.log_likelihood["log_lik"].dims[2:] == ("point",)
    assert idata.observed_data["y"].dims == ("point", "dim")
    assert idata.attrs["method"] == method


@pytest.mark.parametrize("method", METHODS)
def test_dp_multinomial_runs_under_every_method(method):
    """ADVI's draws can put a component's weight at 0: the indicators' draw must take
    log weights of -inf (it once rejected them, failing the whole fit)."""
    data = simulate_dp_multinomial(n_points=20, n_words=6, doc_length=8, seed=1).data
    idata = bayeswe.fit("dp_multinomial", data, method=method, seed=1, **_options(method))
    post = idata.posterior
    T, V, N = data.truncation, data.n_words, data.n_points
    assert post["phi"].shape[2:] == (T, V) and post["phi"].dims[2:] == ("component", "category")
    # CmdStan writes 6 significant digits: T rounded weights sum to 1 within T * 5e-7
    np.testing.assert_allclose(post["w"].sum("component"), 1.0, atol=T * 5e-7)
    np.testing.assert_allclose(post["phi"].sum("category"), 1.0, atol=V * 5e-7)
    assert (post["occupancy"].sum("component") == N).all()
    assert ((post["n_occupied"] >= 1) & (post["n_occupied"] <= T)).all()
    assert idata.attrs["method"] == method


@pytest.mark.parametrize("method", METHODS)
def test_hdp_lda_runs_under_every_method(hdp_data, method):
    idata = bayeswe.fit("hdp_lda", hdp_data, method=method, seed=3, **_options(method))
    post = idata.posterior
    D, V, T = hdp_data.n_docs, hdp_data.n_words, hdp_data.truncation
    assert post["theta"].dims[2:] == ("doc", "topic") and post["theta"].shape[2:] == (D, T)
    assert post["phi"].dims[2:] == ("topic", "word") and post["phi"].shape[2:] == (T, V)
    assert list(post["word"].values) == list(hdp_data.corpus.vocabulary.words)
    np.testing.assert_allclose(post["beta"].sum("topic"), 1.0, atol=1e-6)
    np.testing.assert_allclose(post["theta"].sum("topic"), 1.0, atol=1e-6)
    np.testing.assert_allclose(post["leftover"], post["beta"].isel(topic=-1), atol=1e-8)
    tokens = int(hdp_data.corpus.counts.sum())
    assert (post["topic_tokens"].sum("topic") == tokens).all()
    assert idata.attrs["method"] == method


def test_truncation_one_is_a_single_gaussian_and_a_unigram_model():
    data = simulate_dp_mixture(n_points=15, weights=(1.0,), truncation=1, seed=1).data
    idata = bayeswe.fit("dp_mixture", data, method="map", seed=1)
    assert float(idata.posterior["leftover"].squeeze()) == 1.0
    hdp = simulate_hdp_lda(n_docs=3, doc_length=5, n_words=4, beta=(1.0,), truncation=1, seed=1)
    idata = bayeswe.fit("hdp_lda", hdp.data, method="map", seed=1)
    assert float(idata.posterior["leftover"].squeeze()) == 1.0
