"""Word-type block moves (``type_moves``): exact invariance, broken moves fail, bookkeeping.

The problem: 3 documents x 4 tokens of V = 4 word types (each type has 3 tokens, in 2
or 3 documents), K = 2, D = 2, so the 2^12 assignments are enumerated and the exact
posterior means of ``lp`` (log p(z, v)) and ``S`` (token pairs sharing a topic) are
known. A run passes when both z-scores ``(mean - exact) / MCSE`` (batch means, 100
batches) are below 4 in absolute value.

Power (40,000 sweeps, three block passes per sweep): a block move that accepts every
proposal (drops the documents' Dirichlet-multinomial terms) is 0.30 posterior sd off in
``lp`` and 0.51 sd in ``S`` (z = -40 and -254), and one that may merge a group into a
topic already holding the word's other tokens (a move with no reverse) 0.58 and 0.49 sd
off (z = 139 and 36); the correct moves give |z| < 1 with both samplers.
:func:`test_power_is_stated` asserts that the smallest bias detected with probability
0.8, ``(4 + 0.84) MCSE``, is below 0.05 posterior sd (0.033 and 0.048 measured).
"""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pytest
from numba import njit

import bayeswe
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.glda import GaussianLDAData
from bayeswe.kernels.glda import blocks
from bayeswe.kernels.glda.common import _forward_sqnorm, rand_uniform
from bayeswe.kernels.glda.structs import Corpus, Topics, WordGroups
from bayeswe.samplers.gaussian_lda import (
    GLDAProblem,
    _corpus,
    _topics,
    _word_groups,
    init_state,
    lp,
    step,
)

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

SWEEPS = 40_000


def _data() -> GaussianLDAData:
    rng = np.random.default_rng(3)
    vectors = np.array([[-1.0, 0.0], [1.0, 0.0], [-0.6, 0.5], [0.8, 0.4]])
    vectors += 0.3 * rng.normal(size=vectors.shape)
    docs = [[0, 0, 1, 2], [1, 3, 3, 2], [0, 2, 3, 1]]
    vocab = Vocabulary(tuple(f"w{i}" for i in range(4)))
    return GaussianLDAData(
        BagOfWords.from_token_ids(docs, vocab), vectors, n_topics=2, alpha=0.5,
        mu0=np.zeros(2), kappa=0.1, nu=4.0, Psi=np.eye(2),
    )  # fmt: skip


@pytest.fixture(scope="module")
def repeated() -> GaussianLDAData:
    """40 documents of 10 tokens from 12 word types in 3 clusters, fitted with K = 16."""
    rng = np.random.default_rng(5)
    vectors = np.repeat([[-1.0, 0.0], [1.0, 0.0], [0.0, 1.2]], 4, axis=0)
    vectors += 0.4 * rng.normal(size=vectors.shape)
    docs = rng.integers(0, 12, size=(40, 10)).tolist()
    vocab = Vocabulary(tuple(f"w{i}" for i in range(12)))
    return GaussianLDAData(
        BagOfWords.from_token_ids(docs, vocab), vectors, n_topics=16, alpha=0.5,
        mu0=np.zeros(2), kappa=0.1, nu=4.0, Psi=np.eye(2),
    )  # fmt: skip


@pytest.fixture(scope="module")
def exact():
    problem = GLDAProblem.from_data(_data())
    iu = np.triu_indices(problem.n_tokens, 1)
    lps, ss = [], []
    for zz in itertools.product(range(problem.K), repeat=problem.n_tokens):
        z = np.array(zz, dtype=np.int32)
        lps.append(lp(problem, init_state(problem, seed=0, z=z)))
        ss.append((z[:, None] == z[None, :])[iu].sum())
    lps, ss = np.array(lps), np.array(ss, dtype=float)
    w = np.exp(lps - lps.max())
    w /= w.sum()
    means = np.array([w @ lps, w @ ss])
    sds = np.sqrt(np.array([w @ (lps - means[0]) ** 2, w @ (ss - means[1]) ** 2]))
    return problem, iu, means, sds


ALWAYS_ACCEPT, MERGE = 1, 2


@njit(cache=True)
def _wrong_block_pass(
    fault: int,
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    topics: Topics,
    words: WordGroups,
    word_topic: np.ndarray,
    rng: np.ndarray,
    doc_count: np.ndarray,
    stats: np.ndarray,
) -> None:
    """:func:`blocks.sweep_type_blocks` with one deliberate fault: ``ALWAYS_ACCEPT``
    skips the MH test (drops the documents' terms ``h``); ``MERGE`` also proposes the
    topics that hold the word's other tokens (a move that merges two groups has no
    reverse move)."""
    tok_doc, _, emb, alpha = corpus
    mu, R, invd = topics[:3]
    order, start = words.order, words.start
    K, D = alpha.shape[0], emb.shape[1]
    in_topic, none = np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64)
    cand, logq, Q = np.empty(K, dtype=np.int64), np.empty(K), np.empty(K)
    docs, y, work = np.empty(doc_count.shape[0], dtype=np.int64), np.empty(D), np.empty(2 * D)
    for w in range(start.shape[0] - 1):
        lo, hi = start[w], start[w + 1]
        if hi - lo < 2:
            continue
        stats[0] += 1
        x = emb[w]
        k = z[order[lo + int(rand_uniform(rng) * (hi - lo))]]
        for a in range(lo, hi):
            in_topic[z[order[a]]] += 1
        m = in_topic[k]
        for j in range(K):
            Q[j] = _forward_sqnorm(R[j], invd[j], x, mu[j], y)
        n_cand = blocks.block_candidates(
            k, m, Q, none if fault == MERGE else in_topic, topics.kappa_k, topics.nu_k,
            topics.logdet, words.kappa0, D, words.lg_nu, cand, logq,
        )  # fmt: skip
        in_topic[:] = 0
        if n_cand < 2:
            continue
        if fault == ALWAYS_ACCEPT:
            j = blocks.block_draw(cand, logq, n_cand, rand_uniform(rng))
            n_docs = (
                0 if j == k else blocks.group_docs(k, lo, hi, order, z, tok_doc, doc_count, docs)
            )
            j = -1 if j == k else j
        else:
            j, n_docs = blocks.block_accepts(k, lo, hi, order, z, tok_doc, n_dk, alpha, cand, logq,
                                             n_cand, doc_count, docs, rng)  # fmt: skip
        if j >= 0:
            for b in range(n_docs):
                n_dk[docs[b], k] -= doc_count[docs[b]]
                n_dk[docs[b], j] += doc_count[docs[b]]
            blocks.relabel_group(k, j, m, x, lo, hi, order, z, topics, work)
            if word_topic.shape[0] > 0:
                word_topic[w, k] -= m
                word_topic[w, j] += m
            stats[1] += 1
        for b in range(n_docs):
            doc_count[docs[b]] = 0


def _step(problem: GLDAProblem, state, method: str, type_moves: int, fault: int, **options):
    """:func:`step` with ``type_moves`` block passes, correct (``fault=0``) or wrong
    (:func:`_wrong_block_pass`, run after a sweep without block moves)."""
    if not fault:
        return step(problem, state, method=method, type_moves=type_moves, **options)
    _, info = step(problem, state, method=method, **options)
    stats = np.zeros(3, dtype=np.int64)
    word_topic = state.word_topic if method == "alias-mh" else np.zeros((0, 0), dtype=np.int64)
    for _ in range(type_moves):
        _wrong_block_pass(fault, _corpus(problem), state.z, state.n_dk, _topics(state),
                          _word_groups(problem, problem.nu_lgamma), word_topic, state.rng,
                          np.zeros(problem.n_docs, dtype=np.int64), stats)  # fmt: skip
    state.word_lists_sweep = -1  # the block pass moves tokens, not the word lists
    return state, dataclasses.replace(
        info, lp=lp(problem, state), type_moves_accepted=int(stats[1])
    )


def _run(
    exact, method: str, type_moves: int, fault: int = 0, **options
) -> tuple[np.ndarray, np.ndarray, int]:
    """z-scores and biases (in posterior sd) of (lp, S); block moves accepted."""
    problem, iu, means, sds = exact
    state = init_state(problem, seed=1, method=method)
    draws = np.empty((SWEEPS, 2))
    accepted = 0
    for t in range(SWEEPS):
        _, info = _step(problem, state, method, type_moves, fault, **options)
        draws[t] = info.lp, (state.z[:, None] == state.z[None, :])[iu].sum()
        accepted += info.type_moves_accepted
    mcse = draws.reshape(100, -1, 2).mean(axis=1).std(axis=0, ddof=1) / 10.0
    z = (draws.mean(axis=0) - means) / mcse
    return z, mcse / sds, accepted


@pytest.mark.parametrize(
    ("method", "options"),
    [("cgs", {}), ("alias-mh", {}), ("alias-mh", {"density": "solve"}),
     ("alias-mh", {"scan": "document"})],
    ids=["cgs", "alias-word-scan-fused", "alias-word-scan-fused-solve", "alias-document-scan"],
)  # fmt: skip
def test_block_moves_leave_the_posterior_invariant(exact, method: str, options: dict) -> None:
    z, mcse_sd, accepted = _run(exact, method, type_moves=3, **options)
    print(f"{method} {options}: z(lp, S) = {z.round(2)}, {accepted} block moves accepted")
    assert accepted > 1000  # the moves happen
    assert np.abs(z).max() < 4, z


@pytest.mark.parametrize("method", ["cgs", "alias-mh"])
@pytest.mark.parametrize(
    "fault", [ALWAYS_ACCEPT, MERGE], ids=["always-accept", "merge-into-own-topic"]
)
def test_broken_block_moves_fail(exact, fault: int, method: str) -> None:
    z, _, _ = _run(exact, method, type_moves=3, fault=fault)
    print(f"{method} fault={fault}: z(lp, S) = {z.round(2)}")
    assert np.abs(z).max() > 4, z


def test_power_is_stated(exact) -> None:
    _, mcse_sd, _ = _run(exact, "cgs", type_moves=3)
    detectable = (4 + 0.84) * mcse_sd
    print(f"smallest bias detected with probability 0.8: {detectable.round(4)} posterior sd")
    assert detectable.max() < 0.05, detectable


@pytest.mark.parametrize("method", ["cgs", "alias-mh"])
def test_moves_keep_the_state_consistent(repeated, method: str) -> None:
    """After block moves the counts, topic factors and alias-MH's word-topic counts are
    those of the assignments, recomputed from scratch; only groups move (a word's
    tokens in one topic leave it together)."""
    problem = GLDAProblem.from_data(repeated)
    state = init_state(problem, seed=4, method=method, init="kmeans")
    accepted = 0
    for _ in range(20):
        _, info = step(problem, state, method=method, type_moves=2)
        accepted += info.type_moves_accepted
        assert info.type_moves_tried == 2 * int((np.bincount(problem.tok_word) >= 2).sum())
    assert step(problem, state, method=method)[1].type_moves_tried == 0  # off by default
    print(f"{method}: {accepted} block moves accepted")
    assert accepted > 0
    fresh = init_state(problem, seed=0, z=state.z.copy())
    np.testing.assert_array_equal(state.n_dk, fresh.n_dk)
    np.testing.assert_allclose(state.psi(), fresh.psi(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(state.mu, fresh.mu, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(state.kappa_k, fresh.kappa_k)
    np.testing.assert_allclose(state.nu_k, fresh.nu_k)
    assert lp(problem, state) == pytest.approx(lp(problem, fresh), abs=1e-6)
    if method == "alias-mh":
        V, K = problem.emb.shape[0], problem.K
        counts = np.bincount(problem.tok_word * K + state.z, minlength=V * K).reshape(V, K)
        np.testing.assert_array_equal(state.word_topic, counts)


def test_a_group_moves_whole(exact) -> None:
    """A block move relabels every token of the word in the picked topic and nothing
    else: per word type, the partition of its tokens by topic is kept up to labels."""
    problem = exact[0]
    z = np.zeros(problem.n_tokens, dtype=np.int32)  # every word in topic 0
    state = init_state(problem, seed=2, method="cgs", z=z)
    moved = 0
    for _ in range(200):
        before = state.z.copy()
        stats = np.zeros(3, dtype=np.int64)
        moved += blocks.sweep_type_blocks(
            _corpus(problem),
            state.z,
            state.n_dk,
            _topics(state),
            _word_groups(problem, problem.nu_lgamma),
            np.zeros((0, 0), np.int64),
            state.rng,
            np.zeros(problem.n_docs, np.int64),
            stats,
        )
        for w in range(problem.emb.shape[0]):
            toks = problem.tok_word == w
            # from a single group per word, a word's tokens stay in one topic
            assert len(np.unique(state.z[toks])) == 1
            assert len(np.unique(before[toks])) == 1
    assert moved > 0


def test_tables() -> None:
    from scipy import special

    table = blocks.nu_lgamma_table(4.5, 3, 6)
    n = 5
    assert table[n] == pytest.approx(sum(special.gammaln((4.5 + n - i) / 2) for i in range(3)))
    order = np.array([1, 3, 0, 2], dtype=np.int32)
    word = np.array([1, 0, 2, 0], dtype=np.int32)
    np.testing.assert_array_equal(blocks.word_starts(order, word, 4), [0, 2, 3, 4, 4])
    with pytest.raises(ValueError, match="does not group"):
        blocks.word_starts(np.arange(4, dtype=np.int32), word, 4)


def test_fit_option_attrs_and_resume(tiny, tmp_path) -> None:
    from bayeswe.corpus import BagOfWords

    data = _data()
    assert isinstance(data.corpus, BagOfWords)
    kw = dict(method="cgs", seed=3, chains=1, iter_sampling=6, iter_warmup=2, type_moves=2)
    whole = bayeswe.fit("gaussian_lda", data, **kw)
    assert whole.posterior.attrs["type_moves"] == 2
    assert len(json.loads(whole.posterior.attrs["type_moves_accepted"])) == 1
    path = tmp_path / "blocks.npz"

    def stop(done: int) -> None:
        if done == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bayeswe.fit("gaussian_lda", data, checkpoint=path, checkpoint_every=1, callback=stop, **kw)
    resumed = bayeswe.fit("gaussian_lda", data, checkpoint=path, **kw)
    np.testing.assert_array_equal(whole.posterior["mu"].values, resumed.posterior["mu"].values)
    assert (
        resumed.posterior.attrs["type_moves_accepted"]
        == whole.posterior.attrs["type_moves_accepted"]
    )
    with pytest.raises(ValueError, match="written for another run"):
        bayeswe.fit("gaussian_lda", data, checkpoint=path, **{**kw, "type_moves": 0})
    with pytest.raises(ValueError, match="type_moves"):
        bayeswe.fit("gaussian_lda", tiny, method="cgs", type_moves=-1)
