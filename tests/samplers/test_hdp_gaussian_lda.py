"""Infinite Gaussian LDA's direct-assignment sampler: bookkeeping, the exact posterior of a
tiny corpus, a wrong sampler caught, output, reproducibility and errors."""

from __future__ import annotations

import json
import math

import arviz as az
import numpy as np
import pytest
from scipy.special import multigammaln

import bayeswe
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.dp.crf import partition_posterior
from bayeswe.glda import GaussianLDADataError, HDPGaussianLDAData
from bayeswe.glda.simulate import simulate_gaussian_lda
from bayeswe.kernels import hdp_glda as kern
from bayeswe.kernels import hdp_lda as hdp_kern
from bayeswe.samplers import hdp_gaussian_lda as igl
from bayeswe.samplers.hdp_lda import metropolis_log_ratio

PSI = np.array([[0.6, 0.1], [0.1, 0.4]])
KAPPA, NU = 0.5, 4.0


def _data(n_docs: int = 12, doc_length: int = 15, seed: int = 1, **kw) -> HDPGaussianLDAData:
    glda = simulate_gaussian_lda(
        n_docs=n_docs, doc_length=doc_length, n_topics=3, dim=2, seed=seed
    )[0]
    return HDPGaussianLDAData(glda.corpus, glda.embeddings, **kw)


# ----------------------------------------------------------------- bookkeeping


def test_factors_kept_by_rank_one_moves_equal_fresh_factors_and_counts_stay_exact() -> None:
    """Within a sweep the topics move by rank-1 up/downdates; at its end they must equal
    the factors computed from scratch, empty slots must be the prior, and the capacity
    must grow when new topics need slots."""
    problem = igl.HDPGLDAProblem.from_data(_data(alpha0=20.0, gamma=20.0))
    state = igl.init_state(problem, seed=2, chain=0, initial_topics=1)
    grown = False
    for _ in range(15):
        position = 0
        while True:
            position = kern.sweep(
                problem.corpus, state.assign, state.topics, problem.prior_topic,
                state.weights, state.alpha0, state.gamma, state.rng_state, position,
            )  # fmt: skip
            if position >= problem.n_tokens:
                break
            igl._grow(problem, state)
            grown = True
        moved = [np.array(a) for a in state.topics]
        igl._refresh_topics(problem, state)
        for name, a, b in zip(state.topics._fields, moved, state.topics, strict=True):
            assert np.allclose(a, b, rtol=1e-9, atol=1e-9), name
        m = hdp_kern.sample_tables(
            state.assign.n_dk, state.weights.beta, state.alpha0, state.rng_state, state.m_k
        )
        state.n_tables = m
        hdp_kern.sample_beta(state.m_k, state.weights, state.gamma, state.rng_state)
        igl.check_state(problem, state)
        live = state.weights.beta[state.assign.n_k > 0].sum()
        assert math.isclose(live + state.weights.rest[0], 1.0, rel_tol=1e-12)
    assert grown and state.capacity > igl.MIN_CAPACITY
    empty = np.flatnonzero(state.assign.n_k == 0)
    assert np.array_equal(state.topics.R[empty], np.repeat(problem.prior_topic.R, empty.size, 0))


# ----------------------------------------------------------------- exact tiny case


def _log_marginal_niw(x: np.ndarray, mu0: np.ndarray) -> float:
    """``log p(x_1..x_n)`` under ``N(mu, Sigma)``, ``(mu, Sigma) ~ NIW(mu0, KAPPA, NU, PSI)``
    (Murphy 2007, eq. 266), in plain NumPy."""
    n, D = x.shape
    mean = x.mean(axis=0)
    centred = x - mean
    kn, nn = KAPPA + n, NU + n
    dev = mean - mu0
    psi_n = PSI + centred.T @ centred + (KAPPA * n / kn) * np.outer(dev, dev)
    return float(
        -0.5 * n * D * np.log(np.pi)
        + multigammaln(0.5 * nn, D) - multigammaln(0.5 * NU, D)
        + 0.5 * NU * np.linalg.slogdet(PSI)[1] - 0.5 * nn * np.linalg.slogdet(psi_n)[1]
        + 0.5 * D * (np.log(KAPPA) - np.log(kn))
    )  # fmt: skip


LENGTHS, ALPHA0, GAMMA = [4, 3], 1.3, 0.7
VECTORS = np.array(
    [[0.1, 0.3], [0.3, 0.1], [-1.2, 0.8], [1.5, -0.2], [-1.0, 1.1], [0.2, 0.2], [1.7, 0.1]]
)


def _tiny_problem() -> igl.HDPGLDAProblem:
    N = VECTORS.shape[0]
    vocab = Vocabulary(tuple(f"w{i}" for i in range(N)), np.ones(N, dtype=np.int64))
    docs = [list(range(LENGTHS[0])), list(range(LENGTHS[0], N))]
    data = HDPGaussianLDAData(
        BagOfWords.from_token_ids(docs, vocab), VECTORS, gamma=GAMMA, alpha0=ALPHA0,
        mu0=np.zeros(2), kappa=KAPPA, nu=NU, Psi=PSI,
    )  # fmt: skip
    return igl.HDPGLDAProblem.from_data(data)


def _exact_mean_topics() -> float:
    """E[K | v] over all 877 partitions of the 7 tokens: the Chinese restaurant
    franchise's probability of the partition times each block's NIW marginal."""
    p_k = partition_posterior(
        LENGTHS,
        lambda blocks: sum(_log_marginal_niw(VECTORS[b], np.zeros(2)) for b in blocks),
        alpha0=ALPHA0,
        gamma=GAMMA,
    )
    return float(p_k @ np.arange(p_k.size))


def _mean_topics(step, sweeps: int = 6000, warmup: int = 300) -> tuple[float, float]:
    problem = _tiny_problem()
    draws = []
    for chain in range(4):
        state = igl.init_state(problem, seed=3, chain=chain, initial_topics=1)
        for t in range(warmup + sweeps):
            step(problem, state)
            if t >= warmup:
                draws.append(state.n_topics)
    draws = np.array(draws, dtype=float).reshape(4, -1)
    return float(draws.mean()), float(np.asarray(az.mcse(draws)).squeeze())


def _one_table_step(problem: igl.HDPGLDAProblem, state: igl.HDPGLDAState):
    """A deliberately wrong sweep: one table per (document, topic) instead of the table
    counts' conditional (HDP eq. 40); everything else as :func:`igl.step`."""
    position = 0
    while position < problem.n_tokens:
        position = kern.sweep(
            problem.corpus, state.assign, state.topics, problem.prior_topic, state.weights,
            state.alpha0, state.gamma, state.rng_state, position,
        )  # fmt: skip
        if position < problem.n_tokens:
            igl._grow(problem, state)
    igl._refresh_topics(problem, state)
    state.m_k[:] = (state.assign.n_dk > 0).sum(axis=0)
    hdp_kern.sample_beta(state.m_k, state.weights, state.gamma, state.rng_state)
    state.sweeps_done += 1
    return state


def test_the_number_of_topics_matches_the_enumerated_posterior() -> None:
    exact = _exact_mean_topics()
    mean, mcse = _mean_topics(igl.step)
    assert abs(mean - exact) < 4 * mcse, (mean, exact, mcse)


def test_a_sampler_with_one_table_per_document_and_topic_misses_the_enumeration() -> None:
    exact = _exact_mean_topics()
    mean, mcse = _mean_topics(_one_table_step)
    assert abs(mean - exact) > 8 * mcse, (mean, exact, mcse)


def _split_merge_only(
    problem: igl.HDPGLDAProblem, state: igl.HDPGLDAState, log_ratio=None, scans: int = 0
):
    """A sweep without token moves: tables, ``beta``, then 3 split-merge proposals, each
    accepted by ``log_ratio(kind, delta, log_q, log_anchor)`` if given (``log_anchor``:
    the anchors' part of ``log_q``)."""
    rng = state.rng_state
    hdp_kern.sample_tables(state.assign.n_dk, state.weights.beta, state.alpha0, rng, state.m_k)
    hdp_kern.sample_beta(state.m_k, state.weights, state.gamma, rng)
    rule = None
    if log_ratio is not None:

        def rule(kind: int, delta: float, log_q: float) -> float:
            return log_ratio(kind, delta, log_q, float(state.split_scratch.floats[2]))

    igl.split_merge_moves(problem, state, 3, log_ratio=rule, scans=scans)
    return state


@pytest.mark.parametrize("scans", [0, 2], ids=["sequential-allocation", "two-restricted-scans"])
def test_split_merge_moves_alone_reach_the_enumerated_posterior(scans: int) -> None:
    exact = _exact_mean_topics()
    mean, mcse = _mean_topics(lambda p, s: _split_merge_only(p, s, scans=scans), sweeps=3000)
    assert abs(mean - exact) < 4 * mcse, (mean, exact, mcse)


@pytest.mark.parametrize(
    "wrong",
    [
        # the allocation's probability left out (z = -21 at 1,500 sweeps)
        lambda kind, delta, log_q, anchor: metropolis_log_ratio(kind, delta, anchor),
        # the factor gamma (0.7 here) for the new topic left out (z = +12 at 1,500 sweeps)
        lambda kind, delta, log_q, anchor: (
            (delta - log_q - math.log(GAMMA)) * (1 if kind == 1 else -1)
        ),
        # the anchors' law taken as if it did not depend on the state: a third of the
        # second anchors come from the first's topic (z = +13 at 1,500 sweeps)
        lambda kind, delta, log_q, anchor: metropolis_log_ratio(kind, delta, log_q - anchor),
    ],
    ids=["no-allocation-probability", "no-gamma", "no-anchor-probability"],
)
def test_a_wrong_split_merge_ratio_misses_the_enumeration(wrong) -> None:
    exact = _exact_mean_topics()
    mean, mcse = _mean_topics(lambda p, s: _split_merge_only(p, s, wrong), sweeps=1500)
    assert abs(mean - exact) > 8 * mcse, (mean, exact, mcse)


def test_a_launch_ratio_without_the_final_scan_misses_the_enumeration() -> None:
    """With restricted scans, the final scan's probability must enter the ratio (z = -21
    at 1,500 sweeps without it)."""
    exact = _exact_mean_topics()
    mean, mcse = _mean_topics(
        lambda p, s: _split_merge_only(
            p, s, lambda kind, delta, log_q, anchor: metropolis_log_ratio(kind, delta, anchor),
            scans=2,
        ),
        sweeps=1500,
    )  # fmt: skip
    assert abs(mean - exact) > 8 * mcse, (mean, exact, mcse)


@pytest.mark.parametrize("scans", [0, 3])
def test_split_merge_moves_keep_factors_counts_and_slots_exact(scans: int) -> None:
    problem = igl.HDPGLDAProblem.from_data(_data(alpha0=5.0, gamma=5.0))
    state = igl.init_state(problem, seed=2, chain=0, initial_topics=1)
    splits = merges = 0
    for _ in range(30):
        state.moves = (0, 0)
        igl.step(problem, state, split_merge=10, split_merge_scans=scans)
        igl.check_state(problem, state)  # counts, weights, free slots
        kept = [np.array(a) for a in state.topics]
        igl._refresh_topics(problem, state)
        for name, a, b in zip(state.topics._fields, kept, state.topics, strict=True):
            assert np.allclose(a, b, rtol=1e-9, atol=1e-9), name
        assert state.n_tables == state.m_k.sum()
        splits, merges = splits + state.moves[0], merges + state.moves[1]
    assert splits > 0 and merges > 0
    idata = bayeswe.fit(
        "hdp_gaussian_lda", _data(), method="cgs", seed=1, chains=1, iter_warmup=3,
        iter_sampling=5, split_merge=5, split_merge_scans=scans, keep_topics=False,
    )  # fmt: skip
    assert idata.attrs["split_merge"] == 5 and "splits_accepted" in idata.attrs
    assert idata.attrs["split_merge_scans"] == scans


def test_the_log_joint_is_the_enumerations_numerator() -> None:
    """``lp`` of a state is log p(z | alpha0 beta) plus the NIW marginals of its blocks."""
    problem = _tiny_problem()
    state = igl.init_state(problem, seed=1, chain=0, initial_topics=1)
    for _ in range(5):
        igl.step(problem, state)
    z = state.assign.z
    niw = sum(_log_marginal_niw(VECTORS[z == k], np.zeros(2)) for k in np.unique(z))
    beta = state.weights.beta
    doc = np.repeat([0, 1], LENGTHS)
    expected = niw
    for d in range(2):
        ks, n = np.unique(z[doc == d], return_counts=True)
        a = ALPHA0 * beta[ks]
        expected += sum(math.lgamma(c + x) - math.lgamma(x) for c, x in zip(n, a, strict=True))
        expected += math.lgamma(ALPHA0) - math.lgamma(ALPHA0 + LENGTHS[d])
    assert math.isclose(igl.log_joint(problem, state), expected, rel_tol=1e-10)


# ----------------------------------------------------------------- the user function


def test_the_output_holds_label_free_scalars_and_a_padded_topics_group() -> None:
    data = _data(truncation=4)
    idata = bayeswe.fit(
        "hdp_gaussian_lda", data, method="cgs", seed=1, chains=2, iter_warmup=5,
        iter_sampling=10, thin=2,
    )  # fmt: skip
    post = idata.posterior
    assert set(post.data_vars) == {"n_topics", "n_tables", "alpha0", "gamma", "beta_u"}
    assert post["n_topics"].dims == ("chain", "draw") and post.sizes["draw"] == 5
    assert post["n_topics"].dtype == np.int64 and (post["n_topics"] >= 1).all()
    assert (post["alpha0"] == 1.0).all() and (post["gamma"] == 1.0).all()
    assert idata.sample_stats["lp"].shape == (2, 5)
    assert idata.warmup_sample_stats["lp"].shape == (2, 5)
    assert idata.attrs["model"] == "hdp_gaussian_lda" and idata.attrs["method"] == "cgs"
    topics = idata.topics
    assert topics["mu"].dims == ("chain", "draw", "topic", "dim")
    assert topics["top_words"].dims == ("chain", "draw", "topic", "rank")
    assert topics.sizes["topic"] == min(idata.attrs["max_topics"], 4)
    tokens = topics["topic_tokens"].values
    assert (np.diff(tokens, axis=-1) <= 0).all()  # largest first
    live = tokens > 0
    assert np.isfinite(topics["mu"].values[live]).all()
    assert np.isnan(topics["mu"].values[~live]).all()
    assert (topics["top_words"].values[~live] == -1).all()
    assert (topics["top_words"].values[live] >= 0).all()
    assert list(idata.constant_data["embeddings"].dims) == ["word", "dim"]


def test_the_same_seed_gives_the_same_draws_and_concentrations_move_when_resampled() -> None:
    run = {"seed": 5, "chains": 1, "iter_warmup": 3, "iter_sampling": 8, "thin": 1,
           "resample_concentrations": True, "keep_topics": False}  # fmt: skip
    a = igl.sample_hdp_gaussian_lda(_data(), **run)
    b = igl.sample_hdp_gaussian_lda(_data(), **run)
    for name in ("n_topics", "alpha0", "gamma", "beta_u"):
        assert np.array_equal(a.posterior[name].values, b.posterior[name].values)
    assert np.array_equal(a.sample_stats["lp"].values, b.sample_stats["lp"].values)
    assert np.unique(a.posterior["alpha0"]).size == 8
    assert "topics" not in a.groups()


class _Stop(Exception):
    pass


def test_a_run_resumed_after_the_capacity_grew_equals_the_uninterrupted_run(tmp_path) -> None:
    data = _data(n_docs=10, doc_length=12, alpha0=30.0, gamma=30.0)
    run = {"seed": 4, "chains": 1, "iter_warmup": 2, "iter_sampling": 4, "thin": 1}
    straight = igl.sample_hdp_gaussian_lda(data, **run)
    assert straight.attrs["max_topics"] > igl.MIN_CAPACITY  # the capacity doubled
    path = tmp_path / "run.ckpt"

    def stop(done: int) -> None:
        if done == 4:
            raise _Stop

    with pytest.raises(_Stop):
        igl.sample_hdp_gaussian_lda(data, **run, checkpoint=path, checkpoint_every=2,
                                    callback=stop)  # fmt: skip
    resumed = igl.sample_hdp_gaussian_lda(data, **run, checkpoint=path, checkpoint_every=2)
    assert resumed.attrs["resumed"]
    for group in ("posterior", "sample_stats", "topics"):
        for name, value in straight[group].data_vars.items():
            assert np.array_equal(value.values, resumed[group][name].values, equal_nan=True), name


def test_a_gaussian_lda_data_is_accepted_with_its_prior_and_concentration() -> None:
    glda = simulate_gaussian_lda(n_docs=4, doc_length=6, n_topics=2, dim=2, seed=1)[0]
    hdp = igl.as_hdp_glda_data(glda)
    assert hdp.alpha0 == pytest.approx(float(np.sum(glda.alpha)))
    assert hdp.truncation == glda.n_topics and np.array_equal(hdp.Psi, glda.Psi)
    idata = igl.sample_hdp_gaussian_lda(glda, seed=1, chains=1, iter_warmup=1, iter_sampling=2)
    assert idata.posterior.sizes["draw"] == 2


def _bow() -> BagOfWords:
    return BagOfWords.from_token_ids([[0, 1], [1, 2]], Vocabulary(("a", "b", "c")))


@pytest.mark.parametrize(
    ("emb", "options", "match"),
    [
        (np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]]), {}, "NaN"),
        (np.ones((2, 2)), {}, "dimension mismatch"),
        (np.ones((3, 2)), {"gamma": 0.0}, "gamma"),
        (np.ones((3, 2)), {"alpha0": -1.0}, "alpha0"),
        (np.ones((3, 2)), {"truncation": 0}, "truncation"),
        (np.ones((3, 2)), {"Psi": -np.eye(2)}, "positive definite"),
    ],
)
def test_bad_data_raise_a_typed_error(emb, options, match) -> None:
    with pytest.raises(GaussianLDADataError, match=match):
        HDPGaussianLDAData(_bow(), emb, **options)


def test_empty_documents_and_foreign_data_are_refused() -> None:
    empty = BagOfWords.from_token_ids([[0, 1], []], Vocabulary(("a", "b")))
    with pytest.raises(GaussianLDADataError, match="non-empty"):
        HDPGaussianLDAData(empty, np.ones((2, 2)))
    with pytest.raises(GaussianLDADataError, match="HDPGaussianLDAData"):
        igl.sample_hdp_gaussian_lda({"D": 1}, seed=1)


@pytest.mark.parametrize(
    "options",
    [{"initial_topics": 0}, {"gamma_prior": (1.0, -1.0)}, {"keep_topics": "yes"}, {"tau": 1},
     {"initial_topics": [1, 2]}],
)  # fmt: skip
def test_bad_options_fail_before_anything_runs(options) -> None:
    data = HDPGaussianLDAData(_bow(), np.eye(3)[:, :2] + 0.1)
    with pytest.raises(ValueError):
        igl.sample_hdp_gaussian_lda(data, seed=1, chains=1, iter_sampling=2, **options)


def test_per_chain_starts_give_each_chain_the_draws_of_its_single_start_run() -> None:
    data = HDPGaussianLDAData(_bow(), np.eye(3)[:, :2] + 0.1)
    run = {"seed": 5, "chains": 2, "iter_warmup": 3, "iter_sampling": 5, "thin": 1}
    mixed = igl.sample_hdp_gaussian_lda(data, initial_topics=[3, 1], **run)
    assert json.loads(mixed.attrs["initial_topics"]) == [3, 1]  # attrs hold JSON
    for k, chain in ((3, 0), (1, 1)):
        single = igl.sample_hdp_gaussian_lda(data, initial_topics=k, **run)
        for name, value in single.posterior.data_vars.items():
            got = mixed.posterior[name].isel(chain=chain).values
            assert np.array_equal(value.isel(chain=chain).values, got), name
