"""Collapsed Gibbs sampler for LDA: exactness, recovery, reproducibility, errors."""

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import arviz as az
import numpy as np
import pytest
from scipy.special import logsumexp

import bayeswe
from bayeswe.corpus import BagOfWords, CorpusError, Vocabulary
from bayeswe.errors import CheckpointError
from bayeswe.kernels import lda_cgs as kern
from bayeswe.lda import LDAData, LDADataError
from bayeswe.lda.align import align_chains, topic_distances
from bayeswe.lda.simulate import simulate_lda
from bayeswe.samplers.checkpoint import write_npz_atomic
from bayeswe.samplers.driver import Schedule
from bayeswe.samplers.lda_cgs import (
    DENSE_FALLBACK,
    CGSProblem,
    CGSSampler,
    init_state,
    log_joint,
    point_estimates,
    step,
)

# ----------------------------------------------------------------- exact target

# A corpus small enough to enumerate all K^N = 3^9 assignments.
_TINY_DOCS = [[0, 0, 1], [1, 2, 3], [3, 3, 0]]
_TINY_ALPHA = np.array([0.3, 0.8, 1.5])  # asymmetric on purpose
_TINY_BETA = 0.5


def _tiny_data() -> LDAData:
    vocab = Vocabulary(tuple("abcd"))
    return LDAData(
        BagOfWords.from_token_ids(_TINY_DOCS, vocab),
        n_topics=3,
        alpha=_TINY_ALPHA,
        beta=_TINY_BETA,
    )


def _pairs(n):
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


@pytest.fixture(scope="module")
def exact_tiny():
    """Exact posterior expectations of lp and of the co-assignment indicators."""
    problem = CGSProblem.from_data(_tiny_data())
    N, K = problem.n_tokens, problem.n_topics
    n_dk = np.zeros((problem.n_docs, K), np.int32)
    n_wk = np.zeros((problem.n_words, K), np.int32)
    n_k = np.zeros(K, np.int64)
    zs = np.array(list(itertools.product(range(K), repeat=N)), dtype=np.int32)
    lps = np.empty(len(zs))
    for s, z in enumerate(zs):
        kern.counts_from_assignments(problem.tok_ptr, problem.word, z, n_dk, n_wk, n_k)
        lps[s] = kern.log_joint(n_dk, n_wk, n_k, problem.alpha, problem.beta)
    w = np.exp(lps - logsumexp(lps))
    pairs = _pairs(N)
    same = np.stack([zs[:, i] == zs[:, j] for i, j in pairs], axis=1)
    return {"lp": float(w @ lps), "same": w @ same, "pairs": pairs}


def _run_kernel_chains(algorithm, seed, chains=4, sweeps=15000):
    problem = CGSProblem.from_data(_tiny_data())
    pairs = _pairs(problem.n_tokens)
    lp = np.empty((chains, sweeps))
    same = np.empty((chains, sweeps, len(pairs)))
    ii = np.array([p[0] for p in pairs])
    jj = np.array([p[1] for p in pairs])
    for c in range(chains):
        state = init_state(problem, seed, c, algorithm)
        # dense_fallback=None: the sparse kernel itself on every sweep (K = 3 would
        # otherwise fall back to dense sweeps)
        for _ in range(50):
            step(problem, state, algorithm, dense_fallback=None)
        for s in range(sweeps):
            step(problem, state, algorithm, dense_fallback=None)
            lp[c, s] = log_joint(problem, state)
            same[c, s] = state.z[ii] == state.z[jj]
    return lp, same


def _z(draws, exact):
    """(mean - exact) / MCSE for a (chain, draw) array."""
    mcse = float(az.mcse(az.convert_to_dataset(draws[None] if draws.ndim == 1 else draws)).x)
    return (draws.mean() - exact) / mcse


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["sparse", "dense"])
def test_sampler_matches_exact_posterior_of_tiny_corpus(algorithm, exact_tiny):
    # 9 tokens, K = 3: the exact posterior over all 3^9 assignments is enumerated.
    # Each z-score (mean - exact) / MCSE is ~N(0, 1) if the sampler is exact;
    # 37 statistics, |z| < 4.0 keeps the family-wise false-alarm rate < 0.3 %.
    lp, same = _run_kernel_chains(algorithm, seed=20261121)
    z_scores = [_z(lp, exact_tiny["lp"])]
    for p in range(same.shape[2]):
        z_scores.append(_z(same[:, :, p].astype(float), exact_tiny["same"][p]))
    assert np.max(np.abs(z_scores)) < 4.0, np.round(z_scores, 2)


@pytest.mark.slow
def test_sparse_and_dense_stationary_distributions_agree(exact_tiny):
    # Two-sample version: the difference of means over its combined MCSE.
    lp_s, same_s = _run_kernel_chains("sparse", seed=7)
    lp_d, same_d = _run_kernel_chains("dense", seed=8)

    def mcse(x):
        return float(az.mcse(az.convert_to_dataset(x)).x)

    stats = [(lp_s, lp_d)] + [
        (same_s[:, :, p].astype(float), same_d[:, :, p].astype(float))
        for p in range(same_s.shape[2])
    ]
    z_scores = [(a.mean() - b.mean()) / np.hypot(mcse(a), mcse(b)) for a, b in stats]
    assert np.max(np.abs(z_scores)) < 4.0, np.round(z_scores, 2)


def test_log_joint_matches_dirichlet_multinomial_formula():
    data = _tiny_data()
    problem = CGSProblem.from_data(data)
    state = init_state(problem, 3, 0, "dense")
    from scipy.special import gammaln

    a, b, V = problem.alpha, problem.beta, problem.n_words
    expected = 0.0
    for k in range(3):
        nw = state.n_wk[:, k]
        expected += gammaln(V * b) - V * gammaln(b) + gammaln(nw + b).sum()
        expected -= gammaln(nw.sum() + V * b)
    for d in range(problem.n_docs):
        nd = state.n_dk[d]
        expected += gammaln(a.sum()) - gammaln(a).sum() + gammaln(nd + a).sum()
        expected -= gammaln(nd.sum() + a.sum())
    assert log_joint(problem, state) == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------------- recovery


@pytest.fixture(scope="module")
def simulated():
    return simulate_lda(
        n_docs=200, doc_length=100, n_words=60, n_topics=4, alpha=0.2, beta=0.05, seed=11
    )


def test_recovers_known_topics_after_alignment(simulated):
    # 20,000 tokens, 4 topics over 60 words: each topic is estimated from ~5,000
    # tokens, so Hellinger distances of the posterior mean to the truth are ~0.05
    # (sampling error of the data); 0.12 is the stated tolerance.
    idata = bayeswe.fit(
        "lda",
        simulated.data,
        method="cgs",
        seed=5,
        chains=2,
        iter_sampling=100,
        iter_warmup=150,
        thin=10,
    )
    aligned = align_chains(idata, simulated.phi)
    for c in range(2):
        phi_hat = aligned.posterior.phi.sel(chain=c).mean("draw").values
        dist = np.diag(topic_distances(simulated.phi, phi_hat))
        assert dist.max() < 0.12, dist
    theta_hat = aligned.posterior.theta.mean(("chain", "draw")).values
    assert np.abs(theta_hat - simulated.theta).mean() < 0.05


def test_fit_returns_named_dims_stats_and_attrs(simulated):
    idata = bayeswe.fit(
        "lda",
        simulated.data,
        method="cgs",
        seed=1,
        chains=2,
        iter_sampling=17,
        iter_warmup=5,
        thin=4,
        keep_assignments=True,
    )
    post = idata.posterior
    assert post.phi.dims == ("chain", "draw", "topic", "word")
    assert post.theta.dims == ("chain", "draw", "doc", "topic")
    assert post.phi.shape == (2, 5, 4, 60) and post.theta.shape == (2, 5, 200, 4)
    assert list(post.word.values[:2]) == ["w0", "w1"]
    np.testing.assert_allclose(post.phi.sum("word"), 1.0)
    np.testing.assert_allclose(post.theta.sum("topic"), 1.0)
    assert idata.sample_stats.lp.shape == (2, 5)
    assert idata.warmup_sample_stats.lp.shape == (2, 5)
    for key in ("method", "algorithm", "seed", "iter_sampling", "iter_warmup", "thin", "wall_time"):
        assert key in idata.attrs
    assert idata.attrs["method"] == "cgs" and idata.attrs["algorithm"] == "sparse"
    assert idata.attrs["tokens_per_s"] > 0
    # the kept assignments reproduce the last draw's counts
    z = idata.constant_data.z.values
    doc = idata.constant_data.token_doc.values
    n_dk = np.zeros((200, 4))
    np.add.at(n_dk, (doc, z[1]), 1)
    theta_last = (n_dk + 0.2) / (n_dk.sum(1, keepdims=True) + 0.8)
    np.testing.assert_allclose(post.theta.values[1, -1], theta_last)


# ----------------------------------------------------------------- reproducibility


def test_same_seed_same_draws_whatever_the_threads(simulated):
    kwargs = dict(method="cgs", seed=42, chains=3, iter_sampling=8, iter_warmup=4, thin=2)
    a = bayeswe.fit("lda", simulated.data, parallel_chains=1, **kwargs)
    b = bayeswe.fit("lda", simulated.data, parallel_chains=3, **kwargs)
    np.testing.assert_array_equal(a.posterior.phi.values, b.posterior.phi.values)
    np.testing.assert_array_equal(a.sample_stats.lp.values, b.sample_stats.lp.values)
    c = bayeswe.fit("lda", simulated.data, **{**kwargs, "seed": 43})
    assert not np.array_equal(a.posterior.phi.values, c.posterior.phi.values)
    # chains differ from each other
    assert not np.array_equal(a.posterior.phi.values[0], a.posterior.phi.values[1])


def test_deprecated_names_of_the_run_lengths_warn_and_agree(simulated):
    """burn_in/sweeps/threads/progress of earlier releases are iter_warmup/iter_sampling/
    parallel_chains/show_progress, with a DeprecationWarning naming the new option."""
    with pytest.warns(DeprecationWarning) as caught:
        a = bayeswe.fit(
            "lda", simulated.data, method="cgs", seed=3, sweeps=6, burn_in=2, thin=2, threads=1
        )
    renamed = [str(w.message) for w in caught if str(w.message).startswith("option '")]
    assert sorted(m.split("'")[5] for m in renamed) == [
        "iter_sampling", "iter_warmup", "parallel_chains",
    ]  # fmt: skip
    b = bayeswe.fit(
        "lda", simulated.data, method="cgs", seed=3, iter_sampling=6, iter_warmup=2, thin=2
    )
    np.testing.assert_array_equal(a.posterior.phi.values, b.posterior.phi.values)
    assert b.posterior.sizes["draw"] == 3
    assert a.attrs["parallel_chains"] == 1


def test_kept_draws_are_rounded_up_as_cmdstanpy_does(simulated):
    """iter_sampling=31, thin=3 keeps ceil(31 / 3) = 11 draws: sweeps 0, 3, ..., 30."""
    idata = bayeswe.fit(
        "lda", simulated.data, method="cgs", seed=3, chains=1, iter_warmup=0, iter_sampling=31,
        thin=3, keep_assignments=True,
    )  # fmt: skip
    assert idata.posterior.sizes["draw"] == 11
    # the last kept draw is the last sweep (30 = 10 x 3), so it matches the final assignments
    n_dk = np.zeros((200, 4))
    np.add.at(n_dk, (idata.constant_data.token_doc.values, idata.constant_data.z.values[0]), 1)
    theta_last = (n_dk + 0.2) / (n_dk.sum(1, keepdims=True) + 0.8)
    np.testing.assert_allclose(idata.posterior.theta.values[0, -1], theta_last)


# ----------------------------------------------------------------- errors


def test_bad_inputs_raise_clear_errors(simulated):
    vocab = Vocabulary(("a", "b"))
    with pytest.raises(LDADataError, match="empty"):
        LDAData(BagOfWords.from_token_ids([[0], []], vocab), n_topics=2)
    with pytest.raises(CorpusError, match="out of range"):
        BagOfWords.from_token_ids([[0, 5]], vocab)
    with pytest.raises(LDADataError, match="n_topics must be >= 2"):
        LDAData(BagOfWords.from_token_ids([[0, 1]], vocab), n_topics=1)
    with pytest.raises(LDADataError, match="alpha"):
        LDAData(BagOfWords.from_token_ids([[0, 1]], vocab), n_topics=2, alpha=-1.0)
    with pytest.raises(LDADataError, match="beta"):
        LDAData(BagOfWords.from_token_ids([[0, 1]], vocab), n_topics=2, beta=-0.01)
    with pytest.raises(LDADataError, match="LDAData"):
        bayeswe.fit("lda", simulated.data.to_stan(), method="cgs", seed=1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"iter_sampling": 0}, "iter_sampling must be >= 1"),
        ({"iter_warmup": -1}, "iter_warmup must be >= 0"),
        ({"thin": 0}, "thin must be >= 1"),
        ({"algorithm": "alias"}, "algorithm must be one of"),
        ({"keep_assignments": "yes"}, "keep_assignments"),
        ({"iter_samples": 10}, "does not take option"),
        ({"iter_sampling": 10, "sweeps": 10}, "not both"),
        ({"parallel_chains": 0}, "parallel_chains must be >= 1"),
        ({"threads_per_chain": 0}, "threads_per_chain must be >= 1"),
        ({"checkpoint_every": 0}, "checkpoint_every must be >= 1"),
        ({"callback": 3}, "callback must be callable"),
        ({"chains": 0}, "chains"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_options_raise_before_running(simulated, options, message):
    kwargs = {"seed": 1, **options}
    with pytest.raises(ValueError, match=message):
        bayeswe.fit("lda", simulated.data, method="cgs", **kwargs)


def test_cgs_is_only_for_lda(simulated):
    with pytest.raises(ValueError, match="for model"):
        bayeswe.fit("sgns", simulated.data, method="cgs", seed=1)


def test_sequential_init_and_dense_algorithm_through_fit(simulated):
    kwargs = dict(method="cgs", seed=3, chains=1, iter_sampling=4, iter_warmup=2, thin=2)
    a = bayeswe.fit("lda", simulated.data, algorithm="dense", **kwargs)  # uniform start
    b = bayeswe.fit("lda", simulated.data, algorithm="dense", **kwargs)
    c = bayeswe.fit("lda", simulated.data, init="sequential", **kwargs)
    np.testing.assert_array_equal(a.posterior.phi.values, b.posterior.phi.values)
    assert a.attrs["init"] == "uniform" and c.attrs["init"] == "sequential"
    assert a.attrs["algorithm"] == "dense"
    # uniform assignments start far from a mode: the first burn-in lp is much lower
    assert a.warmup_sample_stats.lp.values[0, 0] < c.warmup_sample_stats.lp.values[0, 0]
    with pytest.raises(ValueError, match="init must be one of"):
        bayeswe.fit("lda", simulated.data, init="random", **kwargs)


def test_dense_fallback_keeps_word_lists_consistent(simulated):
    problem = CGSProblem.from_data(simulated.data)
    state = init_state(problem, 1, 0, "sparse")  # uniform start: every word in ~all topics
    ratio = float(problem.word_freq @ state.wl_len) / problem.n_tokens / problem.n_topics
    assert ratio > 0.4  # so the next sweep is a dense one
    for _ in range(3):
        step(problem, state, "sparse")
        np.testing.assert_array_equal(state.wl_len, (state.n_wk > 0).sum(axis=1))
        for w in range(problem.n_words):
            listed = np.sort(state.wl_topic[w, : state.wl_len[w]])
            np.testing.assert_array_equal(listed, np.flatnonzero(state.n_wk[w]))
            assert (state.wl_pos[w, listed] >= 0).all()


# ----------------------------------------------------------------- protocol, checkpoints


@pytest.fixture(scope="module")
def sparse_topics():
    """K = 20 topics over 100 words, sparse enough that the sparse kernel itself runs
    (not its dense fallback) after a few sweeps, so the order of the word lists matters."""
    return simulate_lda(
        n_docs=60, doc_length=40, n_words=100, n_topics=20, alpha=0.1, beta=0.01, seed=4
    ).data


def _sampler(data, algorithm="sparse", init="uniform"):
    return CGSSampler(
        CGSProblem.from_data(data), seed=9, algorithm=algorithm, init=init,
        schedule=Schedule(2, 10, 3),
    )  # fmt: skip


def test_sampler_step_reports_lp_and_estimates_only_where_the_driver_keeps_them(sparse_topics):
    """Warm-up sweeps 1-2 report lp; kept sweeps 3, 6, 9, 12 also phi and theta; the others
    neither. The state is the chain's, updated in place."""
    sampler = _sampler(sparse_topics)
    state = sampler.init(0)
    reported = []
    for _ in range(12):
        new, info = sampler.step(state)
        assert new is state and info.sweep_ns > 0
        reported.append((info.lp is not None, info.phi is not None))
        if info.phi is not None:
            phi, theta = point_estimates(sampler.problem, state)
            np.testing.assert_array_equal(info.phi, phi)
            np.testing.assert_array_equal(info.theta, theta)
            assert info.lp == log_joint(sampler.problem, state)
            assert sampler.record(state, info) == {"phi": info.phi, "theta": info.theta,
                                                   "lp": info.lp}  # fmt: skip
    kept = {3, 6, 9, 12}
    assert reported == [(t <= 2 or t in kept, t in kept) for t in range(1, 13)]


@pytest.mark.parametrize(("algorithm", "init"), [("sparse", "uniform"), ("dense", "sequential")])
def test_dump_and_load_continue_the_chain_exactly(sparse_topics, algorithm, init):
    sampler = _sampler(sparse_topics, algorithm, init)
    straight = sampler.init(1)
    for _ in range(12):
        sampler.step(straight)
    state = sampler.init(1)
    for _ in range(5):
        sampler.step(state)
    arrays, record = sampler.dump(state)
    # through the checkpoint's JSON and npz round trip
    loaded = sampler.load(
        {k: np.array(v) for k, v in arrays.items()}, json.loads(json.dumps(record))
    )
    assert loaded.sweeps_done == 5 and (loaded.wl_topic is None) == (algorithm == "dense")
    for _ in range(7):
        sampler.step(loaded)
    for name in ("z", "n_dk", "n_wk", "n_k", "rng_state"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(straight, name), name)


def test_the_word_lists_order_is_part_of_the_state(sparse_topics):
    """Lists rebuilt in topic order (the same sets) send the next sparse sweeps elsewhere:
    that is why dump keeps them as they are."""
    sampler = _sampler(sparse_topics)
    problem = sampler.problem
    state = sampler.init(0)
    for _ in range(30):
        sampler.step(state)
    assert float(problem.word_freq @ state.wl_len) / problem.n_tokens < DENSE_FALLBACK * 20
    arrays, record = sampler.dump(state)
    kept = sampler.load({k: v.copy() for k, v in arrays.items()}, record)
    rebuilt = sampler.load({k: v.copy() for k, v in arrays.items()}, record)
    rebuilt.wl_len = kern.build_word_lists(rebuilt.n_wk, rebuilt.wl_topic, rebuilt.wl_pos)
    assert not np.array_equal(rebuilt.wl_topic, kept.wl_topic)
    for _ in range(3):
        sampler.step(kept)
        sampler.step(rebuilt)
        sampler.step(state)
    np.testing.assert_array_equal(kept.z, state.z)
    assert not np.array_equal(rebuilt.z, state.z)


def _tamper_counts(arrays):
    arrays["n_wk"][0, 0] += 1


def _tamper_lists(arrays):
    w = int(np.argmax(arrays["wl_len"]))
    arrays["wl_topic"][w, [0, 1]] = arrays["wl_topic"][w, [1, 0]]  # wl_pos not updated


def _tamper_stream(arrays):
    arrays["rng_state"][:] = 0


def _tamper_dtype(arrays):
    arrays["z"] = arrays["z"].astype(np.int64)


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (_tamper_counts, "counts n_wk do not follow"),
        (_tamper_lists, "word-topic lists do not match"),
        (_tamper_stream, "all-zero random stream"),
        (_tamper_dtype, "state array z is int64"),
    ],
)
def test_load_refuses_an_inconsistent_state(sparse_topics, tamper, message):
    sampler = _sampler(sparse_topics)
    state = sampler.init(0)
    for _ in range(8):
        sampler.step(state)
    arrays, record = sampler.dump(state)
    arrays = {k: v.copy() for k, v in arrays.items()}
    tamper(arrays)
    with pytest.raises(ValueError, match=message):
        sampler.load(arrays, record)


RUN = dict(method="cgs", seed=7, chains=2, iter_warmup=6, iter_sampling=17, thin=3,
           keep_assignments=True)  # fmt: skip


def _everything(idata):
    return {
        "phi": idata.posterior.phi.values, "theta": idata.posterior.theta.values,
        "lp": idata.sample_stats.lp.values, "warmup_lp": idata.warmup_sample_stats.lp.values,
        "z": idata.constant_data.z.values,
    }  # fmt: skip


def _assert_same(a, b):
    a, b = _everything(a), _everything(b)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


class _Stop(Exception):
    pass


def _stop_at(sweep):
    def callback(done):
        if done == sweep:
            raise _Stop

    return callback


@pytest.mark.parametrize(("algorithm", "init"), [("sparse", "uniform"), ("sparse", "sequential"),
                                                 ("dense", "uniform")])  # fmt: skip
@pytest.mark.parametrize("stop", [7, 16])  # last checkpoint in warm-up (5), kept sweeps (15)
def test_a_run_stopped_and_resumed_equals_the_uninterrupted_run(
    sparse_topics, tmp_path, algorithm, init, stop
):
    kw = {**RUN, "algorithm": algorithm, "init": init}
    straight = bayeswe.fit("lda", sparse_topics, **kw)
    path = tmp_path / "cgs.ckpt"
    with pytest.raises(_Stop):
        bayeswe.fit("lda", sparse_topics, checkpoint=path, checkpoint_every=5,
                    callback=_stop_at(stop), **kw)  # fmt: skip
    resumed = bayeswe.fit("lda", sparse_topics, checkpoint=path, checkpoint_every=5,
                          parallel_chains=1, **kw)  # fmt: skip
    assert resumed.attrs["resumed"] and not straight.attrs["resumed"]
    _assert_same(resumed, straight)
    # a finished run is returned again from its checkpoint
    again = bayeswe.fit("lda", sparse_topics, checkpoint=path, checkpoint_every=5, **kw)
    _assert_same(again, straight)


def test_a_checkpoint_of_another_run_is_refused(sparse_topics, simulated, tmp_path):
    path = tmp_path / "cgs.ckpt"
    with pytest.raises(_Stop):
        bayeswe.fit("lda", sparse_topics, checkpoint=path, checkpoint_every=5,
                    callback=_stop_at(12), **RUN)  # fmt: skip
    for other in ({"seed": 8}, {"algorithm": "dense"}, {"init": "sequential"}, {"thin": 2},
                  {"chains": 3}):  # fmt: skip
        with pytest.raises(CheckpointError, match="written for another run"):
            bayeswe.fit("lda", sparse_topics, checkpoint=path, **{**RUN, **other})
    with pytest.raises(CheckpointError, match="written for another run"):
        bayeswe.fit("lda", simulated.data, checkpoint=path, **RUN)  # other data
    # the state inside the checkpoint is checked too
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files if k != "meta"}
        meta = json.loads(str(f["meta"]))
    arrays["chain1.z"][0] = (arrays["chain1.z"][0] + 1) % 20
    write_npz_atomic(path, arrays, meta)
    with pytest.raises(CheckpointError, match="counts n_dk do not follow"):
        bayeswe.fit("lda", sparse_topics, checkpoint=path, **RUN)


_SIGNAL_CHILD = """
import signal
from pathlib import Path
import bayeswe
from bayeswe.lda.simulate import simulate_lda

data = simulate_lda(n_docs=60, doc_length=40, n_words=100, n_topics=20, alpha=0.1, beta=0.01,
                    seed=4).data
signal.signal(signal.SIGINT, signal.default_int_handler)

def stop(done):
    if done == 14:
        signal.raise_signal(signal.{signal})

bayeswe.fit("lda", data, checkpoint=Path({path!r}), checkpoint_every=5, callback=stop,
            **{run!r})
print("not stopped")
"""


@pytest.mark.parametrize(("sig", "returncode"), [("SIGINT", -2), ("SIGKILL", -9)])
def test_a_run_stopped_by_a_signal_resumes_to_the_uninterrupted_draws(
    sparse_topics, tmp_path, sig, returncode
):
    """Ctrl-C or kill -9 at sweep 14 of a process: the checkpoint of sweep 10 resumes to the
    uninterrupted run's draws, bit for bit."""
    path = tmp_path / "cgs.ckpt"
    code = _SIGNAL_CHILD.format(path=str(path), signal=sig, run=RUN)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == returncode, done.stderr[-2000:]
    assert "not stopped" not in done.stdout
    if sig == "SIGINT":
        assert "lda-cgs: interrupted; checkpoint" in done.stderr and "holds sweep 10" in done.stderr
    resumed = bayeswe.fit("lda", sparse_topics, checkpoint=path, **RUN)
    assert resumed.attrs["resumed"]
    _assert_same(resumed, bayeswe.fit("lda", sparse_topics, **RUN))


def test_threads_per_chain_is_accepted_and_changes_nothing(simulated):
    kw = dict(method="cgs", seed=2, chains=2, iter_warmup=2, iter_sampling=4, thin=2)
    a = bayeswe.fit("lda", simulated.data, threads_per_chain=2, **kw)
    b = bayeswe.fit("lda", simulated.data, **kw)
    np.testing.assert_array_equal(a.posterior.phi.values, b.posterior.phi.values)
    assert a.attrs["threads_per_chain"] == 1


def test_the_data_groups_are_the_stan_programs(simulated):
    """As NUTS on ``lda`` returns them: the (doc, word, count) pairs and the priors."""
    idata = bayeswe.fit("lda", simulated.data, method="cgs", seed=2, chains=1, iter_warmup=0,
                        iter_sampling=2)  # fmt: skip
    stan = simulated.data.to_stan()
    np.testing.assert_array_equal(idata.observed_data["count"].values, stan["count"])
    assert idata.observed_data["count"].dims == ("pair",)
    for name in ("D", "V", "K", "N", "doc", "word", "alpha", "beta"):
        np.testing.assert_array_equal(idata.constant_data[name].values, stan[name])
    assert "z" not in idata.constant_data and "warmup_sample_stats" not in idata.groups()


def test_parallel_chains_run_blocks_between_checkpoints_and_give_the_same_draws(
    sparse_topics, tmp_path
):
    """Without a callback, parallel chains synchronise only at checkpoints (and every
    20 sweeps): the draws and the checkpointed sweep are those of one chain at a time."""
    kw = {**RUN, "iter_sampling": 40}
    one = bayeswe.fit("lda", sparse_topics, parallel_chains=1, **kw)
    path = tmp_path / "cgs.ckpt"
    two = bayeswe.fit("lda", sparse_topics, parallel_chains=2, checkpoint=path,
                      checkpoint_every=7, **kw)  # fmt: skip
    _assert_same(one, two)
    with np.load(path) as f:
        assert json.loads(str(f["meta"]))["sweep"] == 46
