"""The SGNS Stan programs, run through the real toolchain (nothing about Stan is mocked).

* log density and gradient of both programs equal a NumPy transcription of
  eq. (5) + eq. (6) exactly (both code paths: dense product and gathered rows);
* bad data raise typed errors, from bayeswe before Stan runs and from Stan itself;
* NUTS on a three-parameter identified model agrees with quadrature (z-test);
* the identification workflow gives converged chains (R-hat) where the unidentified
  model cannot.
"""

from __future__ import annotations

import json
from typing import Any

import arviz as az
import numpy as np
import pytest
from scipy.special import expit

import bayeswe
from bayeswe.errors import StanDataError
from bayeswe.sgns import (
    SGNS,
    SGNS_IDENTIFIED,
    Anchors,
    IdentificationError,
    SGNSData,
    find_anchors,
    fit_sgns,
    simulate_sgns,
)
from bayeswe.stan.toolchain import compile_model

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def _log_density(rho, alpha, data: SGNSData, lam: float, free_rows=None) -> tuple[float, Any]:
    """Eq. (5) plus the N(0, lam) prior without constants, and its gradient."""
    x = np.sum(rho[data.target] * alpha[data.context], axis=1)
    free = slice(None) if free_rows is None else free_rows
    lp = float(data.n_pos @ x - data.n @ np.logaddexp(0, x))
    lp -= 0.5 * (np.sum(rho**2) + np.sum(alpha[free] ** 2)) / lam**2
    resid = data.n_pos - data.n * expit(x)
    g_rho = -rho / lam**2
    g_alpha = np.zeros_like(alpha)
    g_alpha[free] = -alpha[free] / lam**2
    np.add.at(g_rho, data.target, resid[:, None] * alpha[data.context])
    np.add.at(g_alpha, data.context, resid[:, None] * rho[data.target])
    return lp, (g_rho, g_alpha)


def _stan_log_prob(model, params: dict, data: dict) -> tuple[float, np.ndarray]:
    stan_data = {k: v for k, v in data.items() if k != "vocabulary"}
    frame = model.log_prob(params, stan_data, jacobian=False, sig_figs=16)
    grads = frame.filter(like="g_").to_numpy()[0]
    return float(frame["lp__"].iloc[0]), grads


def _stan_order(matrix: np.ndarray) -> np.ndarray:
    """Stan orders matrix elements column-major in its outputs."""
    return matrix.ravel(order="F")


@pytest.mark.parametrize("grainsize", [0, 7], ids=["vectorized", "reduce_sum"])
@pytest.mark.parametrize(("V", "N"), [(6, 3000), (40, 300)], ids=["dense", "sparse"])
def test_sgns_log_density_and_gradient_are_exact(V: int, N: int, grainsize: int) -> None:
    sim = simulate_sgns(V, 2, N, seed=V)
    data = sim.data
    # dense path when V^2 <= 2 P, gathered rows otherwise: both must give the same numbers
    assert (V * V <= 2 * data.P) == (V == 6)
    rng = np.random.default_rng(1)
    rho, alpha = rng.normal(size=(V, 2)), rng.normal(size=(V, 2))
    model = compile_model(SGNS.stan_file)
    lp, grads = _stan_log_prob(
        model,
        {"rho": rho.tolist(), "alpha": alpha.tolist()},
        data.stan_data(2, prior_sd=0.7, grainsize=grainsize),
    )
    expected, (g_rho, g_alpha) = _log_density(rho, alpha, data, 0.7)
    assert lp == pytest.approx(expected, rel=1e-12, abs=1e-9)
    np.testing.assert_allclose(
        grads, np.concatenate([_stan_order(g_rho), _stan_order(g_alpha)]), rtol=1e-9, atol=1e-9
    )


@pytest.mark.parametrize(
    ("V", "N", "mode"),
    [(6, 3000, 2), (10, 100, 1), (40, 300, 0)],
    ids=["all-cells", "dense-gather", "sparse"],
)
@pytest.mark.parametrize("grainsize", [0, 7], ids=["vectorized", "reduce_sum"])
def test_identified_log_density_and_gradient_are_exact(
    V: int, N: int, mode: int, grainsize: int
) -> None:
    sim = simulate_sgns(V, 2, N, seed=V + 1)
    data = sim.data
    # the three code paths of sgns_identified.stan's transformed data (dense_mode)
    expected_mode = 2 if data.P >= 0.9 * V * V else (1 if V * V <= 2 * data.P else 0)
    assert expected_mode == mode
    index = np.array([V - 1, 1])
    M = np.array([[0.9, -0.2], [0.1, 1.3]])
    free = np.setdiff1d(np.arange(V), index)
    rng = np.random.default_rng(2)
    rho, alpha_free = rng.normal(size=(V, 2)), rng.normal(size=(V - 2, 2))
    alpha = np.zeros((V, 2))
    alpha[index], alpha[free] = M, alpha_free
    model = compile_model(SGNS_IDENTIFIED.stan_file)
    stan_data = data.stan_data(
        2, prior_sd=1.3, fixed_index=index, fixed_alpha=M, grainsize=grainsize
    )
    lp, grads = _stan_log_prob(
        model, {"rho": rho.tolist(), "alpha_free": alpha_free.tolist()}, stan_data
    )
    expected, (g_rho, g_alpha) = _log_density(rho, alpha, data, 1.3, free_rows=free)
    assert lp == pytest.approx(expected, rel=1e-12, abs=1e-9)
    np.testing.assert_allclose(
        grads,
        np.concatenate([_stan_order(g_rho), _stan_order(g_alpha[free])]),
        rtol=1e-9,
        atol=1e-9,
    )


def test_map_fit_has_named_dims_and_vocabulary_coords() -> None:
    sim = simulate_sgns(8, 2, 2000, seed=3)
    idata = bayeswe.fit("sgns", sim.data.stan_data(2), method="map", seed=1)
    rho = idata.posterior["rho"]
    assert rho.dims == ("chain", "draw", "word", "dim")
    assert list(rho["word"].values) == list(sim.data.vocabulary)
    assert set(idata.observed_data.data_vars) == {"n", "n_pos"}
    assert idata.observed_data["n"].dims == ("pair",)

    anchors = Anchors(np.array([2, 5]), np.eye(2), ("w2", "w5"))
    fit = fit_sgns(sim.data, 2, method="map", anchors=anchors, seed=1)
    post = fit.posterior
    assert post["alpha_free"].dims == ("chain", "draw", "free_word", "dim")
    assert list(post["free_word"].values) == [
        w for w in sim.data.vocabulary if w not in anchors.words
    ]
    np.testing.assert_array_equal(post["alpha"].sel(word=["w2", "w5"]).values[0, 0], np.eye(2))
    np.testing.assert_array_equal(
        post["alpha"].sel(word=post["free_word"].values).values, post["alpha_free"].values
    )
    assert fit.attrs["fixed_words"] == "w2,w5"


def _raw(data: SGNSData, **changes: Any) -> dict[str, Any]:
    d = data.stan_data(2, fixed_index=[0, 1], fixed_alpha=np.eye(2))
    d.update(changes)
    return d


def test_stan_rejects_bad_data_with_typed_errors() -> None:
    data = simulate_sgns(5, 2, 500, seed=1).data
    n_pos = np.array(data.n_pos)
    n_pos[3] = data.n[3] + 1
    with pytest.raises(StanDataError, match="n_pos"):
        bayeswe.fit("sgns", _raw(data, n_pos=n_pos), method="map", seed=1)
    with pytest.raises(StanDataError, match="twice"):
        bayeswe.fit("sgns_identified", _raw(data, fixed_index=[2, 2]), method="map", seed=1)
    with pytest.raises(StanDataError, match="singular"):
        bayeswe.fit(
            "sgns_identified", _raw(data, fixed_alpha=np.ones((2, 2))), method="map", seed=1
        )
    target = np.array(data.stan_data(2)["target_word"])
    target[0] = 6
    with pytest.raises(StanDataError):
        bayeswe.fit("sgns", _raw(data, target_word=target), method="map", seed=1)
    with pytest.raises(StanDataError, match="missing"):
        bayeswe.fit("sgns", {"V": 5}, method="map", seed=1)
    with pytest.raises(IdentificationError, match="singular"):
        fit_sgns(data, 2, method="map", anchors=Anchors(np.array([0, 1]), np.ones((2, 2))))


def _quadrature_means(data: SGNSData, lam: float, fixed: float) -> np.ndarray:
    """Posterior means of (rho_0, rho_1, alpha_0) for V=2, K=1, alpha_1 = fixed, on a grid."""
    g = np.linspace(-5, 5, 161)
    r0, r1, a0 = np.meshgrid(g, g, g, indexing="ij")
    rho, alpha = (r0, r1), (a0, np.full_like(a0, fixed))
    lp = -0.5 * (r0**2 + r1**2 + a0**2) / lam**2
    for w, v, n, k in zip(data.target, data.context, data.n, data.n_pos, strict=True):
        x = rho[w] * alpha[v]
        lp += k * x - n * np.logaddexp(0, x)
    weight = np.exp(lp - lp.max())
    weight /= weight.sum()
    return np.array([np.sum(weight * t) for t in (r0, r1, a0)])


def test_nuts_matches_quadrature_on_tiny_identified_model() -> None:
    data = SGNSData(("a", "b"), [0, 0, 1, 1], [0, 1, 0, 1], [20, 20, 20, 20], [15, 4, 9, 12])
    lam, fixed = 1.5, 0.8
    truth = _quadrature_means(data, lam, fixed)
    anchors = Anchors(np.array([1]), np.array([[fixed]]), ("b",))
    idata = fit_sgns(
        data,
        1,
        method="nuts",
        anchors=anchors,
        prior_sd=lam,
        seed=42,
        chains=4,
        iter_warmup=1000,
        iter_sampling=1000,
    )
    post = idata.posterior
    draws = {
        "rho0": post["rho"].sel(word="a", dim=0),
        "rho1": post["rho"].sel(word="b", dim=0),
        "alpha0": post["alpha"].sel(word="a", dim=0),
    }
    for (name, values), expected in zip(draws.items(), truth, strict=True):
        mcse = float(az.mcse(values.to_dataset(name="x"), method="mean")["x"])
        z = (float(values.mean()) - expected) / mcse
        # |z| < 4: a false alarm has probability about 6e-5 per quantity
        assert abs(z) < 4, f"{name}: mean {float(values.mean()):.4f}, quadrature {expected:.4f}"
    assert int(idata.sample_stats["diverging"].sum()) == 0


def test_identification_workflow_converges() -> None:
    sim = simulate_sgns(20, 2, 5000, seed=1)
    anchors, mode = find_anchors(sim.data, 2, seed=3)  # default rule: pivoted QR
    assert anchors.condition_number < 10
    np.testing.assert_array_equal(
        anchors.fixed_alpha, mode.posterior["alpha"].values[0, 0][anchors.fixed_index]
    )
    idata = fit_sgns(sim.data, 2, anchors=anchors, method="nuts", seed=3, chains=4)
    rhat = az.rhat(idata, var_names=["rho", "alpha_free"])
    worst = max(float(rhat[v].max()) for v in ("rho", "alpha_free"))
    assert worst < 1.02
    # The unidentified model's chains disagree (the posterior is a GL(K)/O(K) orbit).
    free = fit_sgns(
        sim.data,
        2,
        identified=False,
        method="nuts",
        seed=3,
        chains=4,
        iter_warmup=300,
        iter_sampling=300,
    )
    assert float(az.rhat(free, var_names=["rho"])["rho"].max()) > 1.1


def test_map_initialization_is_seeded_and_recorded() -> None:
    sim = simulate_sgns(10, 2, 2000, seed=4)
    kwargs = {"method": "nuts", "seed": 9, "chains": 2, "iter_warmup": 50, "iter_sampling": 20}
    for identification in ("anchors", "posthoc"):
        a = fit_sgns(sim.data, 2, identification=identification, **kwargs)
        b = fit_sgns(sim.data, 2, identification=identification, **kwargs)
        assert a.attrs["init"] == "map" and a.attrs["identification"] == identification
        np.testing.assert_array_equal(a.posterior["rho"].values, b.posterior["rho"].values)
        c = fit_sgns(sim.data, 2, identification=identification, init="random", **kwargs)
        assert c.attrs["init"] == "random"
    assert fit_sgns(sim.data, 2, identification="anchors", **kwargs).attrs["fixed_words"]
    with pytest.raises(ValueError, match="init must be"):
        fit_sgns(sim.data, 2, method="map", init="prior")
    with pytest.raises(ValueError, match="anchors apply only"):
        fit_sgns(
            sim.data, 2, method="map", identified=False, anchors=Anchors(np.arange(2), np.eye(2))
        )


def test_simulation_based_calibration_of_cooccurrence_probabilities() -> None:
    """SBC (Talts et al. 2018) for models/sgns.stan with data from simulate_sgns.

    simulate_sgns draws rho, alpha ~ N(0, eps^2/K), which is the prior of sgns.stan with
    lambda = eps/sqrt(K), so the rank of the true P(w ∧ v) among L posterior draws is
    uniform on 0..L. P(w ∧ v) is invariant under the model's symmetries, so its posterior
    is well defined although rho and alpha are not identified. 100 replications, ranks
    among 100 thinned draws, 10 bins: chi-square with 9 df, 27.9 is its 99.9 % quantile.
    """
    import logging

    logging.getLogger("cmdstanpy").setLevel(logging.ERROR)
    replications, thin, cells = 100, 6, [(0, 0), (1, 2), (3, 3)]
    ranks = np.zeros((replications, len(cells)), dtype=np.int64)
    for r in range(replications):
        sim = simulate_sgns(4, 2, 300, seed=1000 + r)
        idata = bayeswe.fit(
            "sgns",
            sim.data.stan_data(2, prior_sd=np.sqrt(0.5)),
            method="nuts",
            seed=r,
            chains=1,
            iter_warmup=500,
            iter_sampling=100 * thin,
        )
        rho = idata.posterior["rho"].values[0, ::thin]
        alpha = idata.posterior["alpha"].values[0, ::thin]
        draws = expit(rho @ np.swapaxes(alpha, -1, -2))
        truth = sim.probability
        ranks[r] = [np.sum(draws[:, w, v] < truth[w, v]) for w, v in cells]
    bins = np.arange(101) * 10 // 101  # bin of each possible rank 0..100
    expected = replications * np.bincount(bins, minlength=10) / 101
    for j, cell in enumerate(cells):
        observed = np.bincount(bins[ranks[:, j]], minlength=10)
        chi2 = float(np.sum((observed - expected) ** 2 / expected))
        assert chi2 < 27.9, f"cell {cell}: rank histogram {observed.tolist()}, chi2 {chi2:.1f}"


def test_reduce_sum_threads_run_nuts() -> None:
    """grainsize > 0 with threads_per_chain > 1: the threaded likelihood samples."""
    sim = simulate_sgns(12, 2, 4000, seed=5)
    index = np.array([0, 1])
    stan_data = sim.data.stan_data(
        2, prior_sd=1.0, fixed_index=index, fixed_alpha=sim.alpha[index], grainsize=16
    )
    idata = bayeswe.fit(
        SGNS_IDENTIFIED,
        stan_data,
        method="nuts",
        chains=1,
        threads_per_chain=2,
        iter_warmup=200,
        iter_sampling=200,
        seed=3,
    )
    rho = idata.posterior["rho"]
    assert rho.shape == (1, 200, 12, 2)
    assert np.isfinite(rho.values).all()
    assert json.loads(idata.attrs["options"])["threads_per_chain"] == 2
