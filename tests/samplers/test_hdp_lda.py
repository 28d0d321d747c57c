"""HDP-LDA direct-assignment sampler: bookkeeping, Geweke's joint test, output, errors."""

from __future__ import annotations

import functools
import json
import math

import arviz as az
import hdp_geweke as geweke  # noqa: I001 (tests/samplers helper)
import numpy as np
import pytest
from scipy import stats

import bayeswe
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.dp import HDPLDAData, simulate_hdp_lda
from bayeswe.dp.crf import crf_draw, log_p_words, topic_count_posterior, words_given_topics
from bayeswe.errors import CheckpointError
from bayeswe.kernels import hdp_lda as kern
from bayeswe.kernels import hdp_split_merge as sm
from bayeswe.lda import LDAData
from bayeswe.samplers import hdp_lda as hdp
from bayeswe.samplers.driver import Schedule
from bayeswe.samplers.lda_cgs import chain_stream


def _problem(seed: int = 1, **sim) -> hdp.HDPProblem:
    opts = {"n_docs": 30, "doc_length": 25, "n_words": 20, "seed": seed} | sim
    return hdp.HDPProblem.from_data(simulate_hdp_lda(**opts).data)


# ----------------------------------------------------------------- bookkeeping


def test_counts_lists_weights_and_free_slots_stay_exact_over_many_sweeps() -> None:
    problem = _problem(gamma=5.0, alpha0=5.0)
    state = hdp.init_state(problem, seed=2, chain=0, initial_topics=3)
    seen = set()
    for _ in range(60):
        hdp.step(problem, state)
        hdp.check_state(problem, state)  # counts and word lists recomputed from z
        n_k, m_k = state.counts.n_k, state.m_k
        docs_with = (state.counts.n_dk > 0).sum(axis=0)
        assert (m_k >= docs_with).all() and (m_k <= n_k).all()  # 1 <= m_dk <= n_dk
        assert state.n_tables == m_k.sum()
        assert state.n_topics == (n_k > 0).sum()
        assert state.topics.beta.sum() + state.topics.rest[0] == pytest.approx(1.0)
        seen.add(state.n_topics)
    assert len(seen) > 1  # topics were created and removed


def test_the_capacity_doubles_when_new_topics_need_slots() -> None:
    problem = _problem(n_docs=40, n_words=60, gamma=1.0)
    problem = hdp.HDPProblem(**{**problem.__dict__, "gamma": 50.0, "alpha0": 50.0})
    state = hdp.init_state(problem, seed=3, chain=0, initial_topics=1)
    assert state.capacity == hdp.MIN_CAPACITY
    for _ in range(5):
        hdp.step(problem, state)
    assert state.n_topics > hdp.MIN_CAPACITY and state.capacity >= 2 * hdp.MIN_CAPACITY
    hdp.check_state(problem, state)


def test_a_state_from_many_initial_topics_loses_the_unneeded_ones() -> None:
    problem = _problem()
    state = hdp.init_state(problem, seed=4, chain=0, initial_topics=100)
    assert state.n_topics > 80
    for _ in range(100):
        hdp.step(problem, state)
    assert state.n_topics < 20
    hdp.check_state(problem, state)


def test_dump_and_load_give_back_the_state_and_refuse_an_inconsistent_one() -> None:
    problem = _problem()
    sampler = hdp.HDPSampler(problem, seed=5, schedule=Schedule(2, 2))
    state = sampler.init(0)
    for _ in range(3):
        state, _ = sampler.step(state)
    arrays, record = sampler.dump(state)
    back = sampler.load(arrays, record)
    assert back.alpha0 == state.alpha0 and back.n_tables == state.n_tables
    sampler.step(back)
    sampler.step(state)
    assert np.array_equal(back.counts.z, state.counts.z)
    bad = dict(arrays, n_k=arrays["n_k"] + 1)
    with pytest.raises(ValueError, match="n_k"):
        sampler.load(bad, record)
    bad = dict(arrays, beta=np.where(arrays["n_k"] > 0, arrays["beta"], 0.5))
    with pytest.raises(ValueError, match="weights"):
        sampler.load(bad, record)


# ----------------------------------------------------------------- Geweke's test


def test_the_crf_draws_and_the_word_urn_are_the_prior() -> None:
    """Checks of the marginal-conditional simulator itself: E[tables] in a document of n
    tokens is sum_i alpha0 / (alpha0 + i); the words of one topic are exchangeable."""
    rng = np.random.default_rng(1)
    m = np.array([crf_draw(np.array([6]), 1.5, 1e9, rng).n_tables for _ in range(20000)])
    expected = sum(1.5 / (1.5 + i) for i in range(6))
    assert abs(m.mean() - expected) / (m.std() / np.sqrt(m.size)) < 4
    words = np.array([words_given_topics(np.zeros(3, np.int32), 4, 0.5, rng) for _ in range(20000)])
    assert abs((words[:, 0] == words[:, 2]).mean() - (words[:, 0] == words[:, 1]).mean()) < 0.02
    assert log_p_words(np.array([0, 0]), np.array([1, 1]), 2, 1.0) == pytest.approx(np.log(1 / 3))


def test_geweke_joint_distribution_test_passes_with_fixed_concentrations() -> None:
    design = geweke.Design()
    mc = geweke.marginal_conditional(design, 8000, seed=1)
    sc = geweke.successive_conditional(design, 8000, seed=2)
    scores = geweke.z_scores(mc, sc)
    assert set(scores) == {"n_topics", "n_tables", "beta_u", "sum_n_k_squared", "log_p_w_given_z"}
    assert all(abs(z) < 4 for z in scores.values()), scores


@pytest.mark.slow
def test_geweke_joint_distribution_test_passes_with_resampled_concentrations() -> None:
    design = geweke.Design(resample=True)
    mc = geweke.marginal_conditional(design, 20000, seed=3)
    sc = geweke.successive_conditional(design, 20000, seed=4)
    scores = geweke.z_scores(mc, sc)
    assert {"alpha0", "gamma"} <= set(scores)
    assert all(abs(z) < 4 for z in scores.values()), scores


@pytest.mark.slow
@pytest.mark.parametrize("resample", [False, True])
def test_geweke_test_fails_a_sampler_with_one_table_per_document_and_topic(resample) -> None:
    """Power: the "minimal path" shortcut for the table counts is caught."""
    design = geweke.Design(resample=resample)
    mc = geweke.marginal_conditional(design, 8000, seed=5)
    sc = geweke.successive_conditional(design, 8000, seed=6, sampler=geweke.minimal_path_step)
    scores = geweke.z_scores(mc, sc)
    assert max(abs(z) for z in scores.values()) > 8, scores


# ----------------------------------------------------------------- exact tiny case


def test_the_enumerated_posterior_of_two_tokens_is_the_closed_form() -> None:
    """Two tokens of one word in one document: the second shares the first's topic by its
    table (1 / (1 + alpha0)) or by a new table serving the same topic
    (alpha0 / (1 + alpha0) / (1 + gamma)); the words' likelihood is
    ``(eta + 1) / (V eta + 1) / V`` for one topic and ``1 / V^2`` for two."""
    V, eta, alpha0, gamma = 3, 0.5, 1.3, 0.7
    prior_one = 1 / (1 + alpha0) + alpha0 / (1 + alpha0) / (1 + gamma)
    one = prior_one * (eta + 1) / (V * eta + 1) / V
    two = (1 - prior_one) / V**2
    p_k = topic_count_posterior([2], [1, 1], V, eta=eta, alpha0=alpha0, gamma=gamma)
    np.testing.assert_allclose(p_k, [0.0, one / (one + two), two / (one + two)], rtol=1e-12)


@pytest.mark.parametrize(
    ("lengths", "words", "match"),
    [
        ([3], [0, 1], "do not add up"),
        ([10], list(range(3)) * 3 + [0], "1 to 9 tokens"),
        ([2], [0, 3], "word ids"),
    ],
)
def test_the_enumeration_refuses_what_it_cannot_count(lengths, words, match) -> None:
    with pytest.raises(ValueError, match=match):
        topic_count_posterior(lengths, words, 3, eta=0.5, alpha0=1.0, gamma=1.0)
    with pytest.raises(ValueError, match="gamma must be positive"):
        topic_count_posterior([1], [0], 3, eta=0.5, alpha0=1.0, gamma=0.0)


@functools.cache
def _enumerated() -> tuple[hdp.HDPProblem, float]:
    """2 documents of 4 and 3 tokens: the problem and its exact E[number of topics] over
    all 877 partitions of the tokens."""
    lengths, words, V, eta, alpha0, gamma = (
        [4, 3],
        np.array([0, 0, 1, 2, 2, 2, 1]),
        3,
        0.5,
        1.3,
        0.7,
    )
    p_k = topic_count_posterior(lengths, words, V, eta=eta, alpha0=alpha0, gamma=gamma)
    problem = geweke.problem(
        geweke.Design(doc_lengths=tuple(lengths), n_words=V, eta=eta, alpha0=alpha0, gamma=gamma),
        words,
    )
    return problem, float(p_k @ np.arange(p_k.size))


def _enumeration_z(sweep) -> tuple[float, float, float]:
    """(mean, exact, z) of the number of topics over 4 chains x 10,000 sweeps of ``sweep``."""
    problem, exact = _enumerated()
    draws = []
    for chain in range(4):
        state = hdp.init_state(problem, seed=3, chain=chain, initial_topics=1)
        for t in range(10500):
            sweep(problem, state)
            if t >= 500:
                draws.append(state.n_topics)
    draws = np.array(draws, dtype=float).reshape(4, -1)
    mcse = float(np.asarray(az.mcse(draws)).squeeze())
    return float(draws.mean()), exact, (draws.mean() - exact) / mcse


SWEEPS = {
    "cgs": hdp.step,
    "alias-mh": hdp.step_alias,
    # a table rebuilt at every token: no token ever sees a stale entry
    "alias-mh rebuilt every token": functools.partial(hdp.step_alias, rebuild_every=1),
}


@pytest.mark.parametrize("method", list(SWEEPS))
def test_the_number_of_topics_matches_the_enumerated_posterior(method: str) -> None:
    mean, exact, z = _enumeration_z(SWEEPS[method])
    assert abs(z) < 4, (mean, exact, z)


def _split_merge_only(
    problem: hdp.HDPProblem, state: hdp.HDPState, log_ratio=None, scans: int = 0
) -> None:
    """A sweep without token moves: tables, ``beta``, then 3 split-merge proposals, each
    accepted by ``log_ratio(kind, delta, log_q, log_anchor)`` if given (``log_anchor``:
    the anchors' part of ``log_q``)."""
    rng = state.rng_state
    kern.sample_tables(state.counts.n_dk, state.topics.beta, state.alpha0, rng, state.m_k)
    kern.sample_beta(state.m_k, state.topics, state.gamma, rng)
    rule = None
    if log_ratio is not None:

        def rule(kind: int, delta: float, log_q: float) -> float:
            return log_ratio(kind, delta, log_q, float(state.split_scratch.floats[2]))

    hdp.split_merge_moves(problem, state, 3, log_ratio=rule, scans=scans)


@pytest.mark.parametrize("scans", [0, 2], ids=["sequential-allocation", "two-restricted-scans"])
def test_split_merge_moves_alone_reach_the_enumerated_posterior(scans: int) -> None:
    """The moves without any token sweep (they reach every partition: a table can hold
    one token) leave the exact posterior invariant, with or without restricted Gibbs
    scans in the launch."""
    mean, exact, z = _enumeration_z(functools.partial(_split_merge_only, scans=scans))
    assert abs(z) < 4, (mean, exact, z)


def test_the_anchors_follow_the_law_the_ratio_uses() -> None:
    """Ordered anchor pairs drawn by the kernel against ``q(i, j | z)`` from the
    probabilities the ratio uses, on tokens whose words and topics cover every branch
    (a word and a topic with one token fall back to the uniform draw)."""
    word = np.array([0, 0, 0, 1, 1, 2, 3], dtype=np.int32)
    z = np.array([0, 0, 1, 1, 1, 2, 0], dtype=np.int32)
    n_k = np.bincount(z).astype(np.int64)
    n_w = np.bincount(word)
    by_word = np.argsort(word, kind="stable").astype(np.int32)
    word_ptr = np.concatenate([[0], np.cumsum(n_w)]).astype(np.int64)
    N, draws = word.size, 140_000
    rng = chain_stream(11, 0)
    counts = np.zeros((N, N))
    for _ in range(draws):
        i, j = sm.anchors(word_ptr, by_word, word, z, n_k, rng)
        counts[i, j] += 1
    expected = np.zeros((N, N))
    for i in range(N):
        for j in range(N):
            if i != j:
                n_topic = n_k[z[i]] if z[j] == z[i] else (1 if n_k[z[i]] == 1 else 0)
                log_p = sm._anchor_log_prob(N, n_w[word[i]], word[j] == word[i], n_topic)
                expected[i, j] = draws * math.exp(log_p) / N
    assert math.isclose(expected.sum(), draws, rel_tol=1e-12)
    off = ~np.eye(N, dtype=bool)
    chi2 = float((((counts - expected) ** 2)[off] / expected[off]).sum())
    assert counts[~off].sum() == 0
    assert stats.chi2.sf(chi2, off.sum() - 1) > 1e-3, chi2


@pytest.mark.parametrize(
    "wrong",
    [
        # the allocation's probability left out of the ratio (measured z = -82)
        lambda kind, delta, log_q, anchor: hdp.metropolis_log_ratio(kind, delta, anchor),
        # the top-level restaurant's factor gamma (0.7 here) for the new topic left out
        # (measured z = +41)
        lambda kind, delta, log_q, anchor: (
            (delta - log_q - math.log(0.7)) * (1 if kind == 1 else -1)
        ),
        # the anchors' law taken as if it did not depend on the state: a third of the
        # second anchors come from the first's topic (measured z = +56)
        lambda kind, delta, log_q, anchor: hdp.metropolis_log_ratio(kind, delta, log_q - anchor),
    ],
    ids=["no-allocation-probability", "no-gamma", "no-anchor-probability"],
)
def test_a_wrong_split_merge_ratio_misses_the_enumerated_posterior(wrong) -> None:
    mean, exact, z = _enumeration_z(functools.partial(_split_merge_only, log_ratio=wrong))
    assert abs(z) > 6, (mean, exact, z)


def test_a_launch_ratio_without_the_final_scan_misses_the_enumerated_posterior() -> None:
    """With restricted scans, the final scan's probability must enter the ratio (measured
    z = -73 without it)."""
    no_q = functools.partial(
        _split_merge_only,
        log_ratio=lambda kind, delta, log_q, anchor: hdp.metropolis_log_ratio(kind, delta, anchor),
        scans=2,
    )  # fmt: skip
    mean, exact, z = _enumeration_z(no_q)
    assert abs(z) > 6, (mean, exact, z)


@pytest.mark.parametrize("scans", [0, 3])
def test_split_merge_moves_keep_counts_lists_tables_and_slots_exact(scans: int) -> None:
    problem = _problem(gamma=5.0, alpha0=5.0)
    state = hdp.init_state(problem, seed=2, chain=0, initial_topics=1)
    splits = merges = 0
    for _ in range(40):
        state.moves = (0, 0)
        hdp.step(problem, state, split_merge=10, split_merge_scans=scans)
        hdp.check_state(problem, state)
        docs_with = (state.counts.n_dk > 0).sum(axis=0)
        assert (state.m_k >= docs_with).all() and (state.m_k <= state.counts.n_k).all()
        assert state.n_tables == state.m_k.sum()
        assert state.topics.beta.sum() + state.topics.rest[0] == pytest.approx(1.0)
        splits, merges = splits + state.moves[0], merges + state.moves[1]
    assert splits > 0 and merges > 0


def test_an_alias_table_taken_as_current_misses_the_enumerated_posterior() -> None:
    """Power: the stale table uncorrected (:mod:`bayeswe.sbc.faulty_hdp_alias`) is caught
    (it measured z = -11 with these seeds)."""
    from bayeswe.sbc import faulty_hdp_alias

    mean, exact, z = _enumeration_z(faulty_hdp_alias.step)
    assert abs(z) > 6, (mean, exact, z)


# ----------------------------------------------------------------- the user function


def _tiny() -> HDPLDAData:
    return simulate_hdp_lda(n_docs=10, doc_length=12, n_words=8, truncation=6, seed=2).data


def test_the_output_holds_label_free_scalars_and_a_topics_group() -> None:
    idata = hdp.sample_hdp_lda(_tiny(), seed=1, chains=2, iter_warmup=10, iter_sampling=20, thin=2)
    post = idata.posterior
    assert set(post.data_vars) == {"n_topics", "n_tables", "alpha0", "gamma", "beta_u"}
    assert post["n_topics"].dims == ("chain", "draw") and post.sizes["draw"] == 10
    assert post["n_topics"].dtype == np.int64 and (post["n_topics"] >= 1).all()
    assert (post["alpha0"] == 1.0).all()  # fixed, as the Stan twin
    assert idata.sample_stats["lp"].shape == (2, 10)
    assert idata.warmup_sample_stats["lp"].shape == (2, 10)
    topics = idata.topics
    shown = idata.attrs["max_topics"]
    assert shown == int(post["n_topics"].max())
    assert topics["phi"].dims == ("chain", "draw", "topic", "word")
    assert topics.sizes["topic"] == min(shown, 6) and topics.sizes["word"] == 8
    tokens = topics["topic_tokens"].values
    assert (tokens.sum(axis=-1) == 120).all() or shown > 6  # every token, largest first
    assert (np.diff(tokens, axis=-1) <= 0).all()
    phi = topics["phi"].values
    live = tokens > 0
    assert np.allclose(phi[live].sum(axis=-1), 1.0) and np.isnan(phi[~live]).all()
    assert list(topics["word"].values) == [f"w{v}" for v in range(8)]


def test_split_merge_runs_through_fit_and_reports_its_moves() -> None:
    run = {"seed": 3, "chains": 2, "iter_warmup": 5, "iter_sampling": 10, "thin": 1}
    idata = bayeswe.fit("hdp_lda", _tiny(), method="cgs", split_merge=4, **run)
    assert idata.attrs["split_merge"] == 4
    assert idata.attrs["splits_accepted"] > 0 and idata.attrs["merges_accepted"] > 0
    plain = bayeswe.fit("hdp_lda", _tiny(), method="alias-mh", **run)
    assert plain.attrs["split_merge"] == 0 and plain.attrs["splits_accepted"] == 0


@pytest.mark.parametrize("method", ["cgs", "alias-mh"])
def test_split_merge_scans_reach_the_moves_through_fit(method: str) -> None:
    run = {"seed": 3, "chains": 2, "iter_warmup": 5, "iter_sampling": 10, "thin": 1}
    launch = bayeswe.fit("hdp_lda", _tiny(), method=method, split_merge=4, **run)
    scanned = bayeswe.fit(
        "hdp_lda", _tiny(), method=method, split_merge=4, split_merge_scans=2, **run
    )
    assert launch.attrs["split_merge_scans"] == 0 and scanned.attrs["split_merge_scans"] == 2
    assert scanned.attrs["splits_accepted"] > 0 and scanned.attrs["merges_accepted"] > 0
    # the same seeds: the scans' extra draws change the chains
    assert not np.array_equal(scanned.sample_stats["lp"].values, launch.sample_stats["lp"].values)


def test_resampled_concentrations_move_and_fit_runs_the_sampler() -> None:
    idata = bayeswe.fit(
        "hdp_lda", _tiny(), method="cgs", seed=3, chains=1, iter_warmup=5, iter_sampling=20,
        thin=1, resample_concentrations=True, alpha0_prior=(2.0, 1.0), keep_topics=False,
    )  # fmt: skip
    assert idata.attrs["method"] == "cgs" and idata.attrs["model"] == "hdp_lda"
    assert np.unique(idata.posterior["alpha0"]).size == 20
    assert np.unique(idata.posterior["gamma"]).size == 20
    assert "topics" not in idata.groups()


def test_an_lda_corpus_is_accepted() -> None:
    bow = BagOfWords.from_token_ids([[0, 1, 1], [2, 2, 0]], Vocabulary(("a", "b", "c")))
    for data in (LDAData(bow, n_topics=3), bow):
        idata = hdp.sample_hdp_lda(data, seed=1, chains=1, iter_warmup=2, iter_sampling=3, thin=1)
        assert idata.posterior.sizes["draw"] == 3


@pytest.mark.parametrize("method", ["cgs", "alias-mh"])
def test_per_chain_starts_give_each_chain_the_draws_of_its_single_start_run(method) -> None:
    run = {"seed": 6, "chains": 3, "iter_warmup": 4, "iter_sampling": 6, "thin": 1}
    mixed = hdp.sample_hdp_lda(_tiny(), method=method, initial_topics=[1, 5, 1], **run)
    assert json.loads(mixed.attrs["initial_topics"]) == [1, 5, 1]  # attrs hold JSON
    singles = {}
    for k, chains in ((1, [0, 2]), (5, [1])):
        single = singles[k] = hdp.sample_hdp_lda(_tiny(), method=method, initial_topics=k, **run)
        assert single.attrs["initial_topics"] == k
        for group in ("posterior", "sample_stats", "warmup_sample_stats"):
            for name, value in single[group].data_vars.items():
                got = mixed[group][name].isel(chain=chains).values
                assert np.array_equal(value.isel(chain=chains).values, got), name
        # each run pads its topics group to the most topics any of its chains held
        n = min(single.topics.sizes["topic"], mixed.topics.sizes["topic"])
        for name in single.topics.data_vars:
            ours, theirs = (fit.topics[name].isel(chain=chains) for fit in (mixed, single))
            head = [x.isel(topic=slice(0, n)).values for x in (ours, theirs)]
            assert np.array_equal(*head, equal_nan=True), name
            for pad in (x.isel(topic=slice(n, None)).values for x in (ours, theirs)):
                assert np.all((pad == 0) | np.isnan(pad)), name
    # and chain 1 is not what it would be from one topic
    first = mixed.warmup_sample_stats["lp"].isel(chain=1, draw=0).item()
    assert first != singles[1].warmup_sample_stats["lp"].isel(chain=1, draw=0).item()


@pytest.mark.parametrize(
    ("options", "other"),
    [
        ({"initial_topics": (2, 7)}, {"initial_topics": (2, 8)}),
        ({"split_merge": 3, "split_merge_scans": 2}, {"split_merge": 3, "split_merge_scans": 1}),
    ],
    ids=["per-chain-starts", "split-merge-scans"],
)
def test_a_run_resumes_from_a_checkpoint_and_refuses_other_settings(
    tmp_path, options, other
) -> None:
    run = {"seed": 4, "chains": 2, "iter_warmup": 3, "iter_sampling": 6, "thin": 1}
    straight = hdp.sample_hdp_lda(_tiny(), **run, **options)
    path = tmp_path / "run.ckpt"

    def stop(done: int) -> None:
        if done == 5:
            raise _Stop

    with pytest.raises(_Stop):
        hdp.sample_hdp_lda(
            _tiny(), **run, **options, checkpoint=path, checkpoint_every=2, callback=stop
        )
    with pytest.raises(CheckpointError):  # other starts or scans: refused
        hdp.sample_hdp_lda(_tiny(), **run, **other, checkpoint=path)
    resumed = hdp.sample_hdp_lda(_tiny(), **run, **options, checkpoint=path, checkpoint_every=2)
    assert resumed.attrs["resumed"]
    for name, value in straight.posterior.data_vars.items():
        assert np.array_equal(value.values, resumed.posterior[name].values), name


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"initial_topics": 0}, ">= 1"),
        ({"initial_topics": [1, 0]}, ">= 1"),
        ({"initial_topics": [1, 2, 3]}, "3 entries for 2 chains"),
        ({"initial_topics": []}, "at least one"),
        ({"initial_topics": "12"}, "one integer per chain"),
        ({"initial_topics": [1, 2.5]}, "integer"),
        ({"alpha0_prior": (1.0, -1.0)}, "alpha0_prior"),
        ({"keep_topics": "yes"}, "keep_topics"),
        ({"tau": 1}, "tau"),
        ({"split_merge": -1}, "split_merge"),
        ({"split_merge": 2, "split_merge_scans": -1}, "split_merge_scans"),
        ({"split_merge_scans": 2}, "needs split_merge > 0"),
    ],
)
def test_bad_options_fail_before_anything_runs(options, match) -> None:
    with pytest.raises(ValueError, match=match):
        hdp.sample_hdp_lda(_tiny(), seed=1, chains=2, iter_sampling=2, **options)


def test_bad_data_fail() -> None:
    with pytest.raises(bayeswe.dp.DPDataError):
        hdp.sample_hdp_lda({"D": 1}, seed=1)


class _Stop(Exception):
    pass


@pytest.mark.parametrize("method", ["cgs", "alias-mh"])
def test_a_run_resumed_after_the_capacity_grew_equals_the_uninterrupted_run(
    method: str, tmp_path
) -> None:
    data = simulate_hdp_lda(
        n_docs=30, doc_length=20, n_words=60, truncation=40, alpha0=30.0, gamma=30.0, seed=5
    ).data
    run = {"seed": 4, "chains": 2, "iter_warmup": 3, "iter_sampling": 6, "thin": 1}
    run["method"] = method
    straight = hdp.sample_hdp_lda(data, **run)
    assert straight.attrs["max_topics"] > hdp.MIN_CAPACITY  # the capacity doubled
    path = tmp_path / "run.ckpt"

    def stop(done: int) -> None:
        if done == 7:
            raise _Stop

    with pytest.raises(_Stop):
        hdp.sample_hdp_lda(data, **run, checkpoint=path, checkpoint_every=2, callback=stop)
    resumed = hdp.sample_hdp_lda(data, **run, checkpoint=path, checkpoint_every=2)
    assert resumed.attrs["resumed"]
    for group in ("posterior", "sample_stats", "warmup_sample_stats", "topics"):
        for name, value in straight[group].data_vars.items():
            assert np.array_equal(value.values, resumed[group][name].values, equal_nan=True), name


# ----------------------------------------------------------------- alias-mh


def test_alias_sweeps_keep_counts_lists_and_weights_exact_through_births_and_growth() -> None:
    problem = _problem(n_docs=40, n_words=60)
    problem = hdp.HDPProblem(**{**problem.__dict__, "gamma": 50.0, "alpha0": 50.0})
    state = hdp.init_state(problem, seed=3, chain=0, initial_topics=1)
    seen = set()
    for every in (None, 1, 3, None, None, 2):
        hdp.step_alias(problem, state, every)
        hdp.check_state(problem, state)  # counts and word lists recomputed from z
        docs = state.doc_lists
        for d in range(problem.n_docs):
            topics = docs.topic[d, : docs.length[d]]
            assert sorted(topics) == list(np.flatnonzero(state.counts.n_dk[d] > 0))
            assert np.array_equal(docs.count[d, : docs.length[d]], state.counts.n_dk[d, topics])
        assert state.topics.beta.sum() + state.topics.rest[0] == pytest.approx(1.0)
        seen.add(state.n_topics)
    assert state.capacity > hdp.MIN_CAPACITY and len(seen) > 1


def test_an_alias_table_draws_its_weights() -> None:
    from bayeswe.kernels import hdp_alias

    weight = np.array([0.0, 3.0, 0.5, 0.0, 1.5, 5.0])
    table = hdp_alias.new_table(weight.size)
    total = hdp_alias.build_alias(weight, table.prob, table.alias, table.work)
    assert total == 10.0
    implied = table.prob.copy()
    for j, (p, a) in enumerate(zip(table.prob, table.alias, strict=True)):
        if a != j:
            implied[a] += 1.0 - p
    np.testing.assert_allclose(implied / weight.size, weight / total, atol=1e-15)


def test_the_corrected_word_term_is_the_current_one() -> None:
    """After topics moved (deficit on one, excess on another, one removed), draws from
    the stale table follow the current word terms: z-tests on 200,000 draws."""
    from bayeswe.kernels import hdp_alias
    from bayeswe.samplers.lda_cgs import chain_stream

    t = np.array([2.0, 0.0, 1.0, 4.0, 0.5])
    table = hdp_alias.new_table(t.size)
    table.weight[:] = t
    table.sums[0] = hdp_alias.build_alias(table.weight, table.prob, table.alias, table.work)
    current = t.copy()
    for k, c in ((0, 0.7), (2, 2.5), (3, 0.0), (1, 0.3), (2, 1.8)):
        hdp_alias.touch(table, k, c)
        current[k] = c
    assert table.sums[1] == pytest.approx(1.3 + 4.0) and table.sums[2] == pytest.approx(0.8 + 0.3)
    rng = chain_stream(11, 0)
    n = 200_000
    draws = np.array([hdp_alias.draw_word_term(table, rng) for _ in range(n)])
    p = current / current.sum()
    freq = np.bincount(draws, minlength=t.size) / n
    z = (freq - p) / np.sqrt(np.maximum(p * (1 - p), 1e-12) / n)
    assert freq[3] == 0 and np.all(np.abs(z) < 4.5), (freq, p)


def test_geweke_joint_distribution_test_passes_for_alias_sweeps() -> None:
    design = geweke.Design()
    mc = geweke.marginal_conditional(design, 5000, seed=1)
    sc = geweke.successive_conditional(design, 5000, seed=7, sampler=hdp.step_alias)
    scores = geweke.z_scores(mc, sc)
    assert all(abs(z) < 4 for z in scores.values()), scores


def test_fit_runs_alias_mh_and_checks_its_options() -> None:
    run = {"seed": 3, "chains": 1, "iter_warmup": 5, "iter_sampling": 10, "thin": 1}
    idata = bayeswe.fit("hdp_lda", _tiny(), method="alias-mh", rebuild_every=4, **run)
    assert idata.attrs["method"] == "alias-mh" and idata.posterior.sizes["draw"] == 10
    again = bayeswe.fit("hdp_lda", _tiny(), method="alias-mh", rebuild_every=4, **run)
    assert np.array_equal(idata.posterior["n_tables"], again.posterior["n_tables"])
    with pytest.raises(ValueError, match="rebuild_every"):
        bayeswe.fit("hdp_lda", _tiny(), method="alias-mh", rebuild_every=0, **run)
    with pytest.raises(ValueError, match="rebuild_every"):
        bayeswe.fit("hdp_lda", _tiny(), method="cgs", rebuild_every=4, **run)
