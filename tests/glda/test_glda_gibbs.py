"""The Gaussian LDA samplers through bayeswe.fit: recovery, seeds, chains, checkpoints, options."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

import bayeswe
from bayeswe.errors import CheckpointError
from bayeswe.glda.simulate import simulate_gaussian_lda
from bayeswe.samplers.gaussian_lda import GLDAProblem


@pytest.fixture(scope="module")
def synthetic():
    return simulate_gaussian_lda(n_docs=60, doc_length=50, n_topics=4, dim=5, seed=11)


@pytest.mark.parametrize("method", ["cgs", "alias-mh"])
def test_recovers_topic_means(synthetic, method: str) -> None:
    """mu_k equals the conjugate posterior mean given the true topics, to a few tokens.

    Each of the 3,000 tokens is its own word type and the topic means are ~4 apart with
    unit-scale covariances, so the posterior puts (nearly) all its mass on the true
    assignment up to a relabelling. ``mu`` in the output is the posterior mean of mu_k
    given the sampled z (eq. 2: ``(kappa0 mu0 + sum of the topic's vectors) /
    (kappa0 + N_k)``), so it is compared with that "oracle" mean given the true z. One
    token in the wrong topic moves a coordinate by about |v - mu_k| / N_k ~ 4 / 750 =
    0.005; the tolerance 0.02 allows about four per topic (every run so far has had none:
    equal to 1e-12). The previous bound, 0.25 from the true mu, passed a sampler that
    misplaced ~50 tokens per topic.
    """
    data, truth = synthetic
    idata = bayeswe.fit("gaussian_lda", data, method=method, seed=5, chains=1,
                        iter_sampling=10, iter_warmup=30)  # fmt: skip
    problem = GLDAProblem.from_data(data)
    vectors = problem.emb[problem.tok_word]
    oracle = np.array(
        [
            (problem.kappa0 * problem.mu0 + vectors[truth.z == k].sum(axis=0))
            / (problem.kappa0 + (truth.z == k).sum())
            for k in range(truth.mu.shape[0])
        ]
    )
    mu = idata.posterior["mu"].values[0].mean(axis=0)
    cost = np.linalg.norm(mu[:, None] - truth.mu[None], axis=-1)
    rows, cols = linear_sum_assignment(cost)
    err = np.abs(mu[rows] - oracle[cols]).max()
    assert err < 0.02, err
    assert idata.posterior["theta"].dims == ("chain", "draw", "doc", "topic")
    assert idata.posterior["Sigma"].dims == ("chain", "draw", "topic", "dim", "dim2")
    assert idata.posterior["mu"].dims == ("chain", "draw", "topic", "dim")
    np.testing.assert_allclose(idata.posterior["theta"].values.sum(axis=-1), 1.0)
    assert idata.posterior["topic_tokens"].values.sum(axis=-1).min() == data.corpus.n_tokens
    assert idata.attrs["method"] == method and idata.attrs["seed"] == 5
    assert idata.warmup_sample_stats["lp"].shape == (1, 30)
    acc = idata.sample_stats["acceptance_rate"].values
    assert ((acc > 0) & (acc <= 1)).all()


@pytest.mark.parametrize("method", ["cgs", "alias-mh"])
def test_same_seed_same_draws_any_threads(tiny, method: str) -> None:
    kw = dict(method=method, chains=3, iter_sampling=6, iter_warmup=4, thin=2)
    a = bayeswe.fit("gaussian_lda", tiny, seed=7, parallel_chains=1, **kw)
    b = bayeswe.fit("gaussian_lda", tiny, seed=7, parallel_chains=3, **kw)
    c = bayeswe.fit("gaussian_lda", tiny, seed=8, parallel_chains=1, **kw)
    for name in ("theta", "mu", "Sigma"):
        np.testing.assert_array_equal(a.posterior[name].values, b.posterior[name].values)
    np.testing.assert_array_equal(a.sample_stats["lp"].values, b.sample_stats["lp"].values)
    assert a.posterior["theta"].shape[:2] == (3, 3)
    assert not np.array_equal(a.sample_stats["lp"].values, c.sample_stats["lp"].values)
    # chains are distinct streams
    lp = a.sample_stats["lp"].values
    assert not np.array_equal(lp[0], lp[1])


@pytest.mark.parametrize("method", ["cgs", "alias-mh"])
def test_checkpoint_resume_equals_uninterrupted(tmp_path, tiny, method: str) -> None:
    kw = dict(method=method, seed=3, chains=2, iter_sampling=8, iter_warmup=3, thin=2,
              checkpoint_every=1)  # fmt: skip
    whole = bayeswe.fit("gaussian_lda", tiny, **kw)
    path = tmp_path / "run.npz"

    def stop(done: int) -> None:
        if done == 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bayeswe.fit("gaussian_lda", tiny, checkpoint=path, callback=stop, **kw)
    assert path.exists() and not list(tmp_path.glob(".*tmp"))
    resumed = bayeswe.fit("gaussian_lda", tiny, checkpoint=path, **kw)
    assert resumed.attrs["resumed"] == 1
    for name in ("theta", "mu", "Sigma", "topic_tokens"):
        np.testing.assert_array_equal(whole.posterior[name].values, resumed.posterior[name].values)
    for name in ("lp", "acceptance_rate"):
        np.testing.assert_array_equal(
            whole.sample_stats[name].values, resumed.sample_stats[name].values
        )
    with pytest.raises(ValueError, match="written for another run"):
        bayeswe.fit("gaussian_lda", tiny, checkpoint=path, **{**kw, "seed": 4})


def test_deprecated_names_of_the_run_lengths_warn_and_agree(tiny) -> None:
    """burn_in/sweeps/threads of earlier releases are iter_warmup/iter_sampling/
    parallel_chains, with a DeprecationWarning naming the new option."""
    kw = dict(method="alias-mh", seed=3, chains=1, thin=2)
    with pytest.warns(DeprecationWarning) as caught:
        a = bayeswe.fit("gaussian_lda", tiny, sweeps=6, burn_in=2, threads=1, **kw)
    renamed = [str(w.message) for w in caught if str(w.message).startswith("option '")]
    assert sorted(m.split("'")[5] for m in renamed) == [
        "iter_sampling", "iter_warmup", "parallel_chains",
    ]  # fmt: skip
    b = bayeswe.fit("gaussian_lda", tiny, iter_sampling=6, iter_warmup=2, **kw)
    np.testing.assert_array_equal(a.posterior["mu"].values, b.posterior["mu"].values)
    assert b.posterior.sizes["draw"] == 3
    assert a.attrs["parallel_chains"] == 1


def test_bad_options(tiny) -> None:
    with pytest.raises(ValueError, match="does not take option"):
        bayeswe.fit("gaussian_lda", tiny, method="cgs", seed=1, iterations=3)
    with pytest.raises(ValueError, match="iter_sampling must be >= 1"):
        bayeswe.fit("gaussian_lda", tiny, method="cgs", seed=1, iter_sampling=0)
    with pytest.raises(ValueError, match="apply to method 'alias-mh' only"):
        bayeswe.fit("gaussian_lda", tiny, method="cgs", seed=1, mh_steps=3)
    with pytest.raises(ValueError, match="max_table_age apply to method 'alias-mh' only"):
        bayeswe.fit("gaussian_lda", tiny, method="cgs", seed=1, max_table_age=3)
    with pytest.raises(ValueError, match="max_table_age must be >= 1"):
        bayeswe.fit("gaussian_lda", tiny, method="alias-mh", seed=1, max_table_age=0)
    with pytest.raises(ValueError, match="scan apply to method 'alias-mh' only"):
        bayeswe.fit("gaussian_lda", tiny, method="cgs", seed=1, scan="word")
    with pytest.raises(ValueError, match="scan must be one of"):
        bayeswe.fit("gaussian_lda", tiny, method="alias-mh", seed=1, scan="topic")
    with pytest.raises(ValueError, match="rebuild_every apply to scan='document' only"):
        bayeswe.fit("gaussian_lda", tiny, method="alias-mh", seed=1, scan="word", rebuild_every=4)
    # the default scan is by word: the corpus-order options must name their scan
    with pytest.raises(ValueError, match="max_table_age apply to scan='document' only"):
        bayeswe.fit("gaussian_lda", tiny, method="alias-mh", seed=1, max_table_age=2)
    with pytest.raises(ValueError, match="rebuild_every must be"):
        bayeswe.fit("gaussian_lda", tiny, method="alias-mh", seed=1, scan="document",
                    rebuild_every="sometimes")  # fmt: skip
    with pytest.raises(ValueError, match="rebuild_every='never' freezes.*max_table_age"):
        bayeswe.fit("gaussian_lda", tiny, method="alias-mh", seed=1, scan="document",
                    rebuild_every="never", max_table_age=2)  # fmt: skip
    with pytest.raises(ValueError, match="chains must be a positive integer"):
        bayeswe.fit("gaussian_lda", tiny, method="cgs", seed=1, chains=0)
    with pytest.raises(ValueError, match="take a bayeswe.glda.GaussianLDAData"):
        bayeswe.fit("gaussian_lda", {"K": 2}, method="cgs", seed=1)
    with pytest.raises(ValueError, match="is for model"):
        bayeswe.fit("sgns", tiny, method="alias-mh", seed=1)


@pytest.mark.parametrize("age", [1, 2, 3])
def test_max_table_age_rebuilds_every_table_once_per_age(synthetic, age: int) -> None:
    """With tables never rebuilt by uses, every word type's table is rebuilt at its
    first use once it is ``age`` sweeps old: exactly types x sweeps / age rebuilds."""
    from bayeswe.samplers.gaussian_lda import init_state, step

    problem = GLDAProblem.from_data(synthetic[0])
    n_types = np.unique(problem.tok_word).size
    state = init_state(problem, seed=4, method="alias-mh")
    kw = {"method": "alias-mh", "scan": "document", "rebuild_every": 10**9, "max_table_age": age}
    assert step(problem, state, **kw)[1].rebuilds == n_types  # first sweep: every table built
    rebuilds = [step(problem, state, **kw)[1].rebuilds for _ in range(6 * age)]
    assert sum(rebuilds) == 6 * n_types
    # every table was built in sweep 1, so all of them come due together
    assert rebuilds == ([0] * (age - 1) + [n_types]) * 6
    # without an age limit those tables are never rebuilt
    state = init_state(problem, seed=4, method="alias-mh")
    kw["max_table_age"] = None
    assert [step(problem, state, **kw)[1].rebuilds for _ in range(4)] == [n_types, 0, 0, 0]


def test_never_rebuilt_tables_are_built_once_and_draw_like_a_huge_rebuild_every(
    synthetic,
) -> None:
    """rebuild_every='never': each table is built at its word's first use and never
    again, the same draws as a use count no word reaches, in step and in fit."""
    from bayeswe.samplers.gaussian_lda import init_state, step

    problem = GLDAProblem.from_data(synthetic[0])
    n_types = np.unique(problem.tok_word).size
    frozen, huge = (init_state(problem, seed=5, method="alias-mh") for _ in range(2))
    kw = {"method": "alias-mh", "scan": "document"}
    rebuilds = [step(problem, frozen, rebuild_every="never", **kw)[1].rebuilds for _ in range(5)]
    assert rebuilds == [n_types, 0, 0, 0, 0]
    for _ in range(5):
        step(problem, huge, rebuild_every=10**9, **kw)
    np.testing.assert_array_equal(frozen.z, huge.z)
    with pytest.raises(ValueError, match="max_table_age would rebuild them"):
        step(problem, frozen, rebuild_every="never", max_table_age=3, **kw)
    for bad in ("always", 0):
        with pytest.raises(ValueError, match="rebuild_every must be an integer >= 1 or 'never'"):
            step(problem, frozen, rebuild_every=bad, **kw)
    fit = bayeswe.fit("gaussian_lda", synthetic[0], method="alias-mh", seed=2, chains=1,
                      iter_sampling=3, iter_warmup=2, scan="document",
                      rebuild_every="never")  # fmt: skip
    assert fit.posterior.attrs["rebuild_every"] == "never"
    assert json.loads(fit.posterior.attrs["alias_rebuilds"]) == [n_types]


def test_word_scan_builds_each_table_once_per_sweep_before_its_tokens(synthetic) -> None:
    """scan='word' (the default): one table per word type per sweep, whatever the
    tables' age."""
    from bayeswe.samplers.gaussian_lda import init_state, step

    problem = GLDAProblem.from_data(synthetic[0])
    n_types = np.unique(problem.tok_word).size
    state = init_state(problem, seed=4, method="alias-mh")
    infos = [step(problem, state, method="alias-mh")[1] for _ in range(4)]
    assert [info.rebuilds for info in infos] == [n_types] * 4
    assert all(0.0 < info.acceptance_rate <= 1.0 for info in infos)
    # the corpus-order scan rebuilds by uses: none while every table is younger than K
    by_doc = init_state(problem, seed=4, method="alias-mh")
    infos = [step(problem, by_doc, method="alias-mh", scan="document")[1] for _ in range(2)]
    assert [info.rebuilds for info in infos] == [n_types, 0]
    by_word = init_state(problem, seed=4, method="alias-mh")
    with pytest.raises(ValueError, match="max_table_age apply to scan='document' only"):
        step(problem, by_word, method="alias-mh", max_table_age=2)


def _interrupt_after(data, path, kw: dict, sweeps: int) -> None:
    """Run ``fit`` with a checkpoint at ``path``, stopped after ``sweeps`` sweeps."""

    def stop(done: int) -> None:
        if done == sweeps:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bayeswe.fit("gaussian_lda", data, checkpoint=path, checkpoint_every=1, callback=stop, **kw)


def test_word_scan_attrs_and_resume(tiny, tmp_path) -> None:
    kw = dict(method="alias-mh", seed=3, chains=1, iter_sampling=6, iter_warmup=2)  # default scan
    whole = bayeswe.fit("gaussian_lda", tiny, **kw)
    assert whole.posterior.attrs["scan"] == "word"
    assert whole.posterior.attrs["rebuild_every"] == "once per sweep"
    path = tmp_path / "word.npz"
    _interrupt_after(tiny, path, kw, sweeps=5)
    resumed = bayeswe.fit("gaussian_lda", tiny, checkpoint=path, **kw)
    np.testing.assert_array_equal(whole.posterior["mu"].values, resumed.posterior["mu"].values)
    with pytest.raises(ValueError, match="written for another run"):
        bayeswe.fit("gaussian_lda", tiny, checkpoint=path, **{**kw, "scan": "document"})


def test_checkpoint_of_the_earlier_layout_is_refused_by_name(tiny, tmp_path) -> None:
    """A checkpoint of the layout before the shared driver (version 3) is refused with
    a message naming its version, not read as a run of the current layout."""
    from bayeswe.samplers.checkpoint import write_npz_atomic
    from bayeswe.samplers.driver import CHECKPOINT_VERSION

    path = tmp_path / "v3.npz"
    write_npz_atomic(path, {"lp": np.zeros(1)}, {"sampler": "gaussian-lda", "version": 3})
    with pytest.raises(CheckpointError, match=f"layout version 3; this bayeswe reads version "
                                              f"{CHECKPOINT_VERSION}"):  # fmt: skip
        bayeswe.fit("gaussian_lda", tiny, method="cgs", seed=3, chains=1, checkpoint=path)


def test_cgs_checkpoint_refused_by_alias_mh(tiny, tmp_path) -> None:
    """The method is part of a run's settings: a cgs chain's state (no alias tables)
    never resumes as alias-mh."""
    kw = dict(seed=3, chains=1, iter_sampling=6, iter_warmup=2)
    path = tmp_path / "cgs.npz"
    _interrupt_after(tiny, path, {**kw, "method": "cgs"}, sweeps=3)
    with pytest.raises(CheckpointError, match="written for another run.*method"):
        bayeswe.fit("gaussian_lda", tiny, method="alias-mh", checkpoint=path, **kw)


@pytest.mark.parametrize("scan", ["word", "document"])
def test_cgs_state_stepped_as_alias_mh_is_a_typed_error(tiny, scan: str) -> None:
    """A state built for cgs holds zero-row alias tables: stepping it with alias-mh
    raises StateMethodError naming the problem, before any kernel reads them, and
    leaves the state as it was."""
    from bayeswe.errors import StateMethodError
    from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, step

    problem = GLDAProblem.from_data(tiny)
    state = init_state(problem, seed=4, method="cgs")
    z, rng = state.z.copy(), state.rng.copy()
    with pytest.raises(StateMethodError, match=r"alias tables of shape \(10, 2\).*'cgs'"):
        step(problem, state, method="alias-mh", scan=scan)
    np.testing.assert_array_equal(state.z, z)
    np.testing.assert_array_equal(state.rng, rng)
    assert state.sweep == 0
    # the same state steps as cgs, and a state built for alias-mh steps as either
    assert step(problem, state, method="cgs")[0] is state
    both = init_state(problem, seed=4, method="alias-mh")
    step(problem, both, method="cgs")
    assert step(problem, both, method="alias-mh", scan=scan)[1].acceptance_rate > 0
