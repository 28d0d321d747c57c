"""bayeswe.dp without Stan: typed errors, simulators, starts and exact stick moments."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import xlogy

import bayeswe
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.dp import (
    DPDataError,
    DPMixtureData,
    HDPLDAData,
    initial_values,
    simulate_dp_mixture,
    simulate_hdp_lda,
    stick_posterior_moments,
)
from bayeswe.dp.models import DP_MIXTURE, HDP_LDA
from bayeswe.errors import StanDataError
from bayeswe.lda import LDAData
from bayeswe.model_spec import available_models


def _bow(docs=((0, 1, 1), (2, 0))) -> BagOfWords:
    return BagOfWords.from_token_ids([list(d) for d in docs], Vocabulary(("a", "b", "c")))


def test_models_are_registered():
    assert {"dp_mixture", "hdp_lda"} <= set(available_models())


# ------------------------------------------------------------------ typed errors


@pytest.mark.parametrize("T", [0, -1, 2.5, True, "3"])
def test_truncation_below_one_or_not_an_int_is_refused(T):
    with pytest.raises(DPDataError, match="truncation"):
        DPMixtureData(np.zeros((3, 2)), truncation=T)
    with pytest.raises(DPDataError, match="truncation"):
        HDPLDAData(_bow(), truncation=T)


@pytest.mark.parametrize(
    ("points", "match"),
    [
        (np.array([[0.0, np.nan], [1.0, 2.0]]), "NaN or infinite values"),
        (np.array([[0.0, 1.0], [np.inf, 2.0]]), "first in point 1"),
        (np.zeros((0, 2)), "at least|a point"),
        (np.zeros((2, 2, 2)), "shape"),
        ([["a", "b"]], "numeric"),
        (np.array([[1e300, 0.0]]), "supported range"),
    ],
)
def test_bad_points_are_refused(points, match):
    with pytest.raises(DPDataError, match=match):
        DPMixtureData(points, truncation=3)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"alpha_shape": 0.0}, "alpha_shape"),
        ({"alpha_rate": np.nan}, "alpha_rate"),
        ({"kappa0": -1.0}, "kappa0"),
        ({"nu0": 0.5}, "nu0"),
        ({"mu0": [0.0]}, "mu0"),
        ({"Psi0": np.eye(3)}, "Psi0"),
        ({"Psi0": np.array([[1.0, 2.0], [2.0, 1.0]])}, "positive definite"),
        ({"Psi0": np.array([[1.0, 0.5], [0.0, 1.0]])}, "symmetric"),
    ],
)
def test_bad_priors_are_refused(kwargs, match):
    with pytest.raises(DPDataError, match=match):
        DPMixtureData(np.random.default_rng(0).normal(size=(5, 2)), truncation=3, **kwargs)


def test_hdp_lda_data_refuses_empty_documents_and_bad_concentrations():
    with pytest.raises(DPDataError, match="non-empty documents"):
        HDPLDAData(_bow(((0, 1), ())), truncation=3)
    with pytest.raises(DPDataError, match="BagOfWords"):
        HDPLDAData([[0, 1]], truncation=3)  # type: ignore[arg-type]
    for name in ("gamma", "alpha0", "eta"):
        with pytest.raises(DPDataError, match=name):
            HDPLDAData(_bow(), truncation=3, **{name: 0.0})
    with pytest.raises(DPDataError, match="hdp_lda"):
        HDPLDAData(_bow(), truncation=3).stan_data_for("lda")


def test_dp_data_error_is_a_value_error():
    assert issubclass(DPDataError, ValueError)


def test_plain_mappings_are_checked_before_stan():
    good = DPMixtureData(np.random.default_rng(0).normal(size=(5, 2)), truncation=3).to_stan()
    assert DP_MIXTURE.validate(good)["T"] == 3
    for change, match in [
        ({"T": 0}, "T must be >= 1"),
        ({"y": np.full((5, 2), np.nan)}, "NaN"),
        ({"nu0": 0.5}, "nu0"),
        ({"kappa0": 0.0}, "kappa0"),
    ]:
        with pytest.raises(StanDataError, match=match):
            DP_MIXTURE.validate({**good, **change})
    hdp = HDPLDAData(_bow(), truncation=2).to_stan()
    assert HDP_LDA.validate(hdp)["N"] == 4
    with pytest.raises(StanDataError, match="T must be >= 1"):
        HDP_LDA.validate({**hdp, "T": 0})
    with pytest.raises(StanDataError, match="gamma"):
        HDP_LDA.validate({**hdp, "gamma": -1.0})


def test_fit_refuses_bad_data_before_compiling():
    data = DPMixtureData(np.zeros((4, 1)), truncation=2).to_stan()
    with pytest.raises(StanDataError, match="T must be >= 1"):
        bayeswe.fit("dp_mixture", {**data, "T": 0}, method="map", seed=1)


# ------------------------------------------------------------------ data and simulators


def test_dp_defaults_and_stan_data():
    y = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 11.0]])
    data = DPMixtureData(y, truncation=5)
    np.testing.assert_allclose(data.mu0, y.mean(axis=0))
    assert data.nu0 == 5.0
    # E[Sigma] = Psi0 / (nu0 - P - 1) is a tenth of the variance per coordinate
    np.testing.assert_allclose(np.diag(data.Psi0) / (data.nu0 - 3), 0.1 * y.var(axis=0))
    stan = data.to_stan()
    assert (stan["N"], stan["P"], stan["T"]) == (3, 2, 5)
    assert DPMixtureData(np.arange(4.0), truncation=1).dim == 1  # 1-d points


def test_hdp_data_from_lda_keeps_corpus_and_priors():
    lda = LDAData(_bow(), n_topics=4, alpha=0.25, beta=0.3)
    hdp = HDPLDAData.from_lda(lda)
    assert (hdp.truncation, hdp.alpha0, hdp.eta) == (4, 1.0, 0.3)
    stan = hdp.to_stan()
    np.testing.assert_array_equal(stan["doc"], lda.to_stan()["doc"])
    np.testing.assert_array_equal(stan["count"], lda.to_stan()["count"])
    assert HDPLDAData.from_lda(lda, truncation=9, alpha0=2.0).truncation == 9
    with pytest.raises(DPDataError, match="LDAData"):
        HDPLDAData.from_lda(_bow())  # type: ignore[arg-type]


def test_simulators_are_reproducible_and_keep_the_truth():
    a = simulate_dp_mixture(n_points=60, seed=4)
    b = simulate_dp_mixture(n_points=60, seed=4)
    np.testing.assert_array_equal(a.data.points, b.data.points)
    assert a.n_clusters == 3 and a.data.truncation == 10
    gaps = np.linalg.norm(a.means[:, None] - a.means[None], axis=-1)[np.triu_indices(3, 1)]
    assert gaps.min() >= 8.0
    h = simulate_hdp_lda(n_docs=6, doc_length=10, n_words=12, seed=1)
    assert h.topic_tokens.sum() == 60 and h.data.corpus.n_docs == 6
    with pytest.raises(DPDataError, match="weights"):
        simulate_dp_mixture(n_points=10, weights=(1.0, -1.0), seed=1)
    with pytest.raises(DPDataError, match="n_points"):
        simulate_dp_mixture(n_points=0, seed=1)


def test_initial_values_order_clusters_by_size():
    sim = simulate_dp_mixture(n_points=120, weights=(0.2, 0.5, 0.3), truncation=6, seed=2)
    starts = initial_values(sim.data, seed=3, chains=2)
    assert len(starts) == 2
    for start in starts:
        assert start["v"].shape == (5,) and start["mu"].shape == (6, 2)
        sizes = np.bincount(sim.labels)
        for slot, k in enumerate(np.argsort(-sizes)):  # biggest true cluster first
            assert np.linalg.norm(start["mu"][slot] - sim.means[k]) < 1.0
        assert np.all(np.diagonal(start["L_Sigma"], axis1=1, axis2=2) > 0)
    assert initial_values(DPMixtureData(np.zeros((3, 1)), truncation=1), seed=0, chains=1)[0][
        "v"
    ].shape == (0,)


# ------------------------------------------------------------------ exact stick moments


def test_stick_moments_match_importance_sampling_from_the_prior():
    """E[w | n] by the grid against prior draws weighted by p(n | w) = prod w_k^n_k."""
    n = np.array([3, 1, 0, 2])
    shape, rate = 2.0, 1.5
    exact = stick_posterior_moments(n, alpha_shape=shape, alpha_rate=rate)
    rng = np.random.default_rng(7)
    S = 400_000
    alpha = rng.gamma(shape, 1.0 / rate, size=S)
    v = rng.beta(1.0, alpha[:, None], size=(S, 3))
    rest = np.cumprod(np.hstack([np.ones((S, 1)), 1 - v]), axis=1)
    w = np.hstack([v, np.ones((S, 1))]) * rest
    lw = xlogy(n, w).sum(axis=1)  # 0 log 0 = 0 for empty components
    iw = np.exp(lw - lw.max())
    iw /= iw.sum()
    ess = 1.0 / (iw**2).sum()
    mc_w = iw @ w
    mc_alpha = iw @ alpha
    sd_w = np.sqrt(iw @ (w - mc_w) ** 2 / ess)
    assert np.all(np.abs(exact.w - mc_w) < 5 * sd_w)
    assert abs(exact.alpha - mc_alpha) < 5 * np.sqrt(iw @ (alpha - mc_alpha) ** 2 / ess)
    assert exact.w.sum() == pytest.approx(1.0, abs=1e-9)
    assert exact.leftover == exact.w[-1]


def test_stick_moments_with_one_component_are_the_prior():
    m = stick_posterior_moments(np.array([5]), alpha_shape=3.0, alpha_rate=2.0)
    assert m.w.tolist() == pytest.approx([1.0])
    assert m.alpha == pytest.approx(1.5, rel=1e-4)
    with pytest.raises(ValueError):
        stick_posterior_moments(np.array([-1, 2]), alpha_shape=1.0, alpha_rate=1.0)
