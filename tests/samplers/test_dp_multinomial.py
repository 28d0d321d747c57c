"""The DP mixture of multinomials' collapsed Gibbs sampler: data, output, recovery, and
the held-out predictive against the enumerated posterior.

The driver's promises are in test_contract.py; the kernels' exactness in
tests/dp/test_dp_multinomial_kernels.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import gammaln

import bayeswe
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.dp import (
    DPDataError,
    DPMultinomialData,
    log_pointwise_predictive,
    simulate_dp_multinomial,
)
from bayeswe.samplers import dp_multinomial as dpm


@pytest.fixture(scope="module")
def sim():
    return simulate_dp_multinomial(
        n_points=60, weights=(0.5, 0.3, 0.2), n_words=12, doc_length=15, truncation=5, seed=3
    )


def test_data_accept_a_bag_of_words_or_a_count_matrix() -> None:
    m = np.array([[2, 0, 1], [0, 3, 0]])
    a = DPMultinomialData(m, truncation=3, beta=[0.5, 1.0, 2.0])
    vocab = Vocabulary(("x", "y", "z"))
    b = DPMultinomialData(BagOfWords.from_dense(m, vocab), truncation=3, beta=0.2)
    assert a.n_points == b.n_points == 2 and a.n_words == b.n_words == 3
    assert np.array_equal(a.counts.to_dense(), m) and np.array_equal(b.counts.to_dense(), m)
    assert b.beta.tolist() == [0.2, 0.2, 0.2] and not b.beta.flags.writeable
    stan = a.to_stan()
    assert stan["E"] == 3 and stan["point"].tolist() == [1, 1, 2]
    assert stan["word"].tolist() == [1, 3, 2] and stan["count"].tolist() == [2, 1, 3]
    assert b.coords() == {"category": ["x", "y", "z"]}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"counts": [[1, -1, 0]]}, "non-negative"),
        ({"counts": [[1.5, 0, 0]]}, "counts"),
        ({"counts": [[1, 0, 0], [0, 0, 0]]}, "point 1 has none"),
        ({"counts": [[1], [2]]}, "at least 2 categories"),
        ({"counts": [1, 2, 3]}, "an \\(N, V\\) array"),
        ({"beta": [1.0, 1.0]}, "beta must be a number or 3 numbers"),
        ({"beta": [1.0, 0.0, 1.0]}, "beta must be positive"),
        ({"beta": -1.0}, "beta must be positive"),
        ({"truncation": 0}, "truncation must be >= 1"),
        ({"alpha_rate": float("nan")}, "alpha_rate"),
    ],
)
def test_bad_data_raise_a_dp_data_error(kwargs, message) -> None:
    args = {"counts": [[1, 0, 2], [0, 1, 1]], "truncation": 2, **kwargs}
    with pytest.raises(DPDataError, match=message):
        DPMultinomialData(**args)


def test_output_holds_label_free_scalars_and_a_display_group(sim) -> None:
    held = sim.data.counts.to_dense()[:2] + 1
    idata = bayeswe.fit(
        "dp_mixture", sim.data, method="cgs", seed=2, chains=2, iter_warmup=30,
        iter_sampling=40, heldout=held,
    )  # fmt: skip
    post = idata.posterior
    assert set(post.data_vars) == {"n_clusters", "alpha", "heldout_log_density", "heldout_lpd"}
    assert post["n_clusters"].dtype == np.int64
    assert post["heldout_log_density"].dims == ("chain", "draw", "heldout")
    np.testing.assert_allclose(
        post["heldout_lpd"].values, post["heldout_log_density"].values.sum(axis=-1)
    )
    assert idata.sample_stats["lp"].shape == (2, 40)
    assert idata.warmup_sample_stats["lp"].shape == (2, 30)
    summ = idata.cluster_summaries
    assert summ["probabilities"].dims == ("chain", "draw", "cluster", "category")
    assert summ.sizes["category"] == 12
    K = post["n_clusters"].values
    w, p = summ["weights"].values, summ["probabilities"].values
    for c in range(2):
        for d in range(40):
            k = min(K[c, d], summ.sizes["cluster"])
            assert (np.diff(w[c, d, :k]) <= 0).all() and np.isnan(w[c, d, k:]).all()
            np.testing.assert_allclose(p[c, d, :k].sum(axis=-1), 1.0, rtol=1e-12)
            if K[c, d] <= summ.sizes["cluster"]:
                alpha = post["alpha"].values[c, d]
                total = w[c, d, :k].sum() + alpha / (60 + alpha)
                assert total == pytest.approx(1.0, abs=1e-12)
    assert idata.attrs["components"] == "multinomial" and idata.attrs["model"] == "dp_mixture"
    assert int(idata.observed_data["count"].sum()) == 60 * 15
    assert idata.constant_data["beta"].dims == ("category",)


def test_chains_from_one_cluster_and_from_singletons_find_the_three_clusters(sim) -> None:
    assert sim.n_clusters == 3
    for init in ("one", "singletons"):
        idata = dpm.sample_dp_multinomial(
            sim.data, seed=5, chains=2, iter_warmup=50, iter_sampling=100, init=init
        )
        K = idata.posterior["n_clusters"].values.ravel()
        assert np.mean(K == 3) > 0.9


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"burnin": 3}, "does not take option"),
        ({"heldout": np.zeros((2, 5))}, "heldout must be"),
        ({"heldout": [[1, -1] + [0] * 10]}, "heldout must be"),
        ({"init": [{"alpha": 1.0}]}, "init lists 1 starts for 2 chains"),
        ({"split_merge": -1}, "split_merge"),
    ],
)
def test_bad_options_raise_before_anything_runs(sim, options, message) -> None:
    with pytest.raises(ValueError, match=message):
        dpm.sample_dp_multinomial(sim.data, seed=1, chains=2, **options)
    with pytest.raises(DPDataError, match="DPMultinomialData"):
        dpm.sample_dp_multinomial(np.eye(3), seed=1)


def test_a_checkpoint_state_that_contradicts_its_partition_is_refused(sim) -> None:
    problem = dpm.DPMultinomialProblem.from_data(sim.data)
    sampler = dpm.DPMultinomialSampler(problem, seed=1, init="singletons", split_merge=3)
    state = sampler.init(0)
    dpm.step(problem, state, 3)
    arrays, record = sampler.dump(state)
    back = sampler.load(arrays, record)
    assert np.array_equal(back.z, state.z) and back.alpha == state.alpha
    bad = dict(arrays, words=arrays["words"].copy())
    bad["words"][int(state.z[0]), 0] += 1
    with pytest.raises(ValueError, match="counts do not follow"):
        sampler.load(bad, record)


# ------------------------------------------- held-out predictive vs the enumeration

X5 = np.array([[2, 1, 0, 0], [1, 1, 1, 0], [0, 1, 2, 1], [0, 0, 1, 2], [1, 0, 0, 1]])
BETA5 = np.array([0.4, 0.7, 0.3, 0.9])
NEW = np.array([[3, 0, 0, 0], [0, 0, 1, 1]])


def _lm(x: np.ndarray) -> float:
    c = x.sum(axis=0)
    b = BETA5
    return float(
        gammaln(b.sum()) - gammaln(b.sum() + c.sum()) + (gammaln(b + c) - gammaln(b)).sum()
    )


def _exact_predictive(a: float, b: float) -> tuple[float, np.ndarray]:
    """``E[K | x]`` and ``p(x_new | x)`` of each new point, by enumerating the 52
    partitions of five points and integrating alpha on a grid of log alpha."""
    parts = [(0,)]
    for _ in range(4):
        parts = [p + (k,) for p in parts for k in range(max(p) + 2)]
    la = np.linspace(-14, 8, 20001)
    al = np.exp(la)
    base = a * la - b * al + gammaln(al) - gammaln(al + 5)
    mass_total, k_total = 0.0, 0.0
    pred = np.zeros(len(NEW))
    for part in parts:
        lab = np.array(part)
        K = lab.max() + 1
        groups = [X5[lab == k] for k in range(K)]
        w = sum(gammaln(g.shape[0]) + _lm(g) for g in groups)
        dens = np.exp(base + K * la + w)
        mass = np.trapezoid(dens, la)
        mass_total += mass
        k_total += K * mass
        for r, x in enumerate(NEW):
            inside = sum(g.shape[0] * np.exp(_lm(np.vstack([g, x])) - _lm(g)) for g in groups)
            given_alpha = (inside + al * np.exp(_lm(x[None]))) / (5 + al)
            pred[r] += np.trapezoid(dens * given_alpha, la)
    return k_total / mass_total, pred / mass_total


def test_held_out_density_and_cluster_count_match_the_enumerated_posterior() -> None:
    data = DPMultinomialData(X5, truncation=5, alpha_shape=2.0, alpha_rate=1.5, beta=BETA5)
    idata = bayeswe.fit(
        "dp_mixture", data, method="cgs", seed=4, chains=2, iter_warmup=100,
        iter_sampling=5000, heldout=NEW,
    )  # fmt: skip
    e_k, pred = _exact_predictive(2.0, 1.5)
    lp, se = log_pointwise_predictive(idata.posterior["heldout_log_density"].values)
    assert (np.abs(lp - np.log(pred)) < 4 * se).all(), (lp, np.log(pred), se)
    import arviz as az

    K = idata.posterior["n_clusters"].astype(float)
    mcse = float(az.mcse(az.convert_to_dataset({"K": K.values})).K)
    assert abs(float(K.mean()) - e_k) < 4 * mcse


def test_simulation_is_a_function_of_the_seed_and_checks_its_arguments() -> None:
    a = simulate_dp_multinomial(n_points=30, n_words=6, doc_length=5, seed=9)
    b = simulate_dp_multinomial(n_points=30, n_words=6, doc_length=5, seed=9)
    c = simulate_dp_multinomial(n_points=30, n_words=6, doc_length=5, seed=10)
    assert np.array_equal(a.data.counts.to_dense(), b.data.counts.to_dense())
    assert np.array_equal(a.labels, b.labels)
    assert not np.array_equal(a.data.counts.to_dense(), c.data.counts.to_dense())
    assert (a.data.counts.doc_lengths == 5).all() and a.probabilities.shape == (3, 6)
    np.testing.assert_allclose(a.probabilities.sum(axis=1), 1.0)
    with pytest.raises(DPDataError, match="concentration"):
        simulate_dp_multinomial(n_points=3, concentration=0.0, seed=1)
    with pytest.raises(DPDataError, match="n_words"):
        simulate_dp_multinomial(n_points=3, n_words=1, seed=1)


def test_held_out_counts_as_an_array_or_a_bag_of_words_are_the_same_points(sim) -> None:
    dense = sim.data.counts.to_dense()[:4]
    bow = BagOfWords.from_dense(dense, sim.data.counts.vocabulary)
    a = dpm.DPMultinomialProblem.from_data(sim.data, heldout=dense)
    b = dpm.DPMultinomialProblem.from_data(sim.data, heldout=bow)
    for x, y in zip(a.heldout, b.heldout, strict=True):
        assert np.array_equal(x, y)
    assert a.heldout.length.tolist() == [15] * 4
    small = BagOfWords.from_dense(dense[:, :3], Vocabulary(("a", "b", "c")))
    with pytest.raises(ValueError, match="heldout must have 12 categories"):
        dpm.DPMultinomialProblem.from_data(sim.data, heldout=small)


def test_the_data_object_names_the_models_it_is_for(sim) -> None:
    with pytest.raises(DPDataError, match="'dp_multinomial' \\(Stan methods\\) or 'dp_mixture'"):
        bayeswe.fit("dp_mixture", sim.data, method="nuts", seed=1)
