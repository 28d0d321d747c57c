"""``bayeswe bench gaussian-lda-alias-kernel``: a token's MH move against its exact conditional."""

from __future__ import annotations

import numpy as np
import pytest
from bench_checks import SUMMARY_KEYS, check_result

from bayeswe.bench.gaussian_lda_alias_kernel import (
    _statistics,
    cavity_shift,
    exact_and_proposal,
    hot_reference,
    mh_step_matrix,
    token_report,
    topic_shifts,
)

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def _simplex(rng: np.random.Generator, K: int) -> np.ndarray:
    v = rng.gamma(0.5, size=K)
    return v / v.sum()


def test_mh_step_matrix_is_stochastic_and_leaves_the_target_invariant() -> None:
    rng = np.random.default_rng(3)
    for K in (2, 7, 40):
        p, q = _simplex(rng, K), _simplex(rng, K)
        P = mh_step_matrix(p, q)
        assert (P >= 0).all()
        np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(p @ P, p, atol=1e-12)
        # detailed balance, which invariance alone would not show
        np.testing.assert_allclose(p[:, None] * P, (p[:, None] * P).T, atol=1e-12)
        # with the target as proposal every step is an exact draw
        np.testing.assert_allclose(mh_step_matrix(p, p), np.tile(p, (K, 1)), atol=1e-12)


def test_token_report_follows_the_chain_from_the_current_topic() -> None:
    rng = np.random.default_rng(5)
    K, s = 6, 2
    p, q = _simplex(rng, K), _simplex(rng, K)
    rise = rng.normal(size=K)
    P = mh_step_matrix(p, q)
    report = token_report(p, q, s, [1, 3, 4000], rise)
    for m in (1, 3):
        dist = np.linalg.matrix_power(P, m)[s]
        tv, leave, lr = report[m]
        assert tv == pytest.approx(0.5 * np.abs(dist - p).sum())
        assert leave == pytest.approx(1.0 - dist[s])
        assert lr == rise[np.argmax(p - dist)]
    # total variation from p never grows along the chain
    assert report[1][0] >= report[3][0] >= report[4000][0]
    # every q > 0: the chain converges to p
    assert report[4000][0] < 1e-9
    # with q = p one step is already an exact draw
    assert token_report(p, p, s, [1], rise)[1][0] == pytest.approx(0.0, abs=1e-12)


def test_exact_conditional_uses_the_samplers_topic_densities() -> None:
    from bayeswe.bench import gaussian_lda_mixing as mixing
    from bayeswe.bench.gaussian_lda import with_topics
    from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, step

    data, _ = mixing._data(20, False, True)
    problem = GLDAProblem.from_data(with_topics(data, 10))
    state = init_state(problem, seed=4, method="alias-mh", init="kmeans")
    for _ in range(3):
        step(problem, state, method="alias-mh", scan="document", rebuild_every="never")
    stats = _statistics(problem, state.z, problem.K)
    assert (stats[0] == state.n_dk.sum(axis=0)).all()
    for i in (0, 17, 301):
        p, q, log_t, log_t_table, copies, (q_all, q_copies) = exact_and_proposal(
            problem, state, i, stats, [np.ones(problem.K, bool), np.zeros(problem.K, bool)]
        )
        # fresh weights on every topic make the proposal the exact conditional; none
        # beyond C leave the kernel's proposal
        np.testing.assert_allclose(q_all, p, rtol=1e-12)
        np.testing.assert_array_equal(q_copies, q)
        x, s = problem.emb[problem.tok_word[i]], state.z[i]
        assert p.sum() == pytest.approx(1.0) and q.sum() == pytest.approx(1.0)
        # the sampler's t density of every topic that does not hold token i
        for k in range(problem.K):
            if k == s:
                continue
            y = np.linalg.solve(state.R[k].T, x - state.mu[k])
            lt = state.tconst[k] - state.texp[k] * np.log1p((y @ y) * state.tscale[k])
            assert log_t[k] == pytest.approx(lt, abs=1e-8)
        # the table's densities are the ones the kernel's MH ratio uses
        w = problem.tok_word[i]
        np.testing.assert_allclose(log_t_table, state.stale_logw[w] - np.log(problem.alpha))


def test_quick_run_reports_the_distances_at_each_step_count(run_bench) -> None:
    out = run_bench("gaussian-lda-alias-kernel", "--quick", "--hot-shifts", "0,1000")
    hot_keys = {
        f"{key}_{tag}"
        for tag in ("hot0", "hot1000")
        for key in (
            "fresh_topics_mean",
            *(f"{k}_m{m}" for m in (2, 16) for k in ("tv_mean", "share_tv_above_0_1")),
        )
    }
    name = "gaussian-lda-alias-kernel"
    summary = check_result(out, name, SUMMARY_KEYS[name] | hot_keys)
    (row,) = out["result"]["checkpoints"]
    assert summary["K"] == 10 and summary["variant"] == "16:F"
    assert summary["hot_shifts"] == [0.0, 1000.0]
    assert summary["sweeps"] == row["sweeps"] >= 1 and 0 < summary["tokens"] <= 200
    assert {k: v for k, v in row.items() if k != "cpu_s"} == {
        k: v for k, v in summary.items() if k not in ("variant", "K", "hot_shifts")
    }
    # threshold 0: every topic that moved since the reference is fresh, and one that
    # did not has the table's density, so the proposal is the exact conditional and one
    # step an exact draw; a threshold no topic reaches leaves the kernel's proposal
    assert summary["fresh_topics_mean_hot0"] > summary["fresh_topics_mean"]
    for m in (2, 16):
        assert summary[f"tv_mean_m{m}_hot0"] < 1e-9
        assert summary[f"tv_mean_m{m}_hot1000"] == summary[f"tv_mean_m{m}"]
        assert summary[f"share_tv_above_0_1_m{m}_hot1000"] == summary[f"share_tv_above_0_1_m{m}"]
    assert summary["fresh_topics_mean_hot1000"] == summary["fresh_topics_mean"]
    # an MH step never moves a distribution further from its stationary p (total
    # variation contracts), so 16 steps are at least as close as 2, token by token
    assert summary["tv_mean_m16"] <= summary["tv_mean_m2"]
    for m in (2, 16):
        assert 0.0 <= summary[f"tv_mean_m{m}"] <= 1.0 and 0.0 <= summary[f"tv_q99_m{m}"] <= 1.0
        assert 0.0 <= summary[f"share_tv_above_0_1_m{m}"] <= 1.0
        assert 0.0 <= summary[f"moved_m{m}"] <= 1.0
    assert 0.0 <= summary["moved_exact"] <= 1.0
    assert 0.0 <= summary["mass_outside_copies"] <= 1.0


def test_the_scan_by_word_is_refused() -> None:
    from bayeswe.bench.gaussian_lda_alias_kernel import kernel_run

    with pytest.raises(ValueError, match="scan by word draws from the exact"):
        kernel_run(10, 1, 20, 10, 0.0, "2:W", [0.1], [2], 10, True)
    with pytest.raises(ValueError, match="fresh_doc=False"):
        kernel_run(10, 1, 20, 10, 0.0, "2:F:D", [0.1], [2], 10, True)


def test_topic_shifts_measure_each_mean_without_the_token() -> None:
    from bayeswe.bench import gaussian_lda_mixing as mixing
    from bayeswe.bench.gaussian_lda import with_topics
    from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state

    data, _ = mixing._data(20, False, True)
    problem = GLDAProblem.from_data(with_topics(data, 10))
    state = init_state(problem, seed=4, method="alias-mh", init="kmeans")
    reference = hot_reference(state, problem.D)
    stats = _statistics(problem, state.z, problem.K)
    i = 17
    s = int(state.z[i])
    # at the reference state no topic has moved
    assert (topic_shifts(problem, stats, reference) < 1e-6).all()
    # ... but the token's own topic without it has, by the distance of topic s's mean
    # from a state that never held the token, in the reference's predictive precision
    shift_s = cavity_shift(problem, stats, reference, i, s)
    z = state.z.copy()
    z[i] = (s + 1) % problem.K
    without = init_state(problem, seed=4, method="alias-mh", z=z)
    delta = without.mu[s] - reference[0][s]
    assert shift_s == pytest.approx(np.sqrt(delta @ reference[1][s] @ delta), rel=1e-9)
    assert shift_s > 0.0
    # and the other topics' distances, as every token sees them, are the current ones
    moved = topic_shifts(problem, _statistics(problem, z, problem.K), reference)
    assert moved[s] == pytest.approx(shift_s, rel=1e-9)
