"""Every density an alias-MH token uses is eq. (1), computed from scratch.

The alias sweeps compute the densities of the set C (the topics holding a word's other
tokens) in ``_set_c``, a copy of ``_token_log_t``'s body, and the document term through
``_doc_log_weights``; both scans share these helpers, so the corpus-order kernel visiting
one token at a time tests them. Both read and fill the per-topic cache ``tcache``: a
topic's density at the word's vector (row 0) and without one of the word's tokens
(row 3). A slip in any of them (the wrong row, the density with the token where it
should be without, a stale cache entry) changes the target, which the stationarity
tests detect only statistically. Here each token is visited alone with no MH step, so
nothing moves, and every density the kernel stamped for the token (``fresh_lt`` and
``stamp`` in its ``work``) is compared with scipy's multivariate t of eq. (1) from the
topic's tokens, to 1e-9.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import stats

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.glda.simulate import simulate_gaussian_lda
from bayeswe.kernels import glda as kern
from bayeswe.kernels.glda.structs import (
    AliasOptions,
    AliasTables,
    Corpus,
    Densities,
    TopicLists,
)
from bayeswe.kernels.topic_lists import fill_topic_lists
from bayeswe.samplers.gaussian_lda import (
    GLDAProblem,
    _density_cache,
    _no_precision_cache,
    _precision_cache,
    _topics,
    _word_topic_counts,
    init_state,
    step,
)

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

N_TYPES = 40


@pytest.fixture(scope="module")
def problem() -> GLDAProblem:
    # 600 tokens of 40 word types (about 15 each, spread over the topics), so most
    # tokens have a set C and its topics include and exclude the token's own
    data, _ = simulate_gaussian_lda(n_docs=20, doc_length=30, n_topics=5, dim=6, seed=11)
    rng = np.random.default_rng(5)
    docs = [rng.integers(0, N_TYPES, size=30) for _ in range(20)]
    vocab = Vocabulary(tuple(f"w{i}" for i in range(N_TYPES)))
    data = dataclasses.replace(
        data,
        corpus=BagOfWords.from_token_ids(docs, vocab),
        embeddings=data.embeddings[:N_TYPES],
    )
    return GLDAProblem.from_data(data)


def _exact_log_t(
    problem: GLDAProblem, z: np.ndarray, k: int, x: np.ndarray, leave_out: int
) -> float:
    """Eq. (1): the NIW posterior predictive of topic k's tokens (without ``leave_out``) at x."""
    members = np.flatnonzero(z == k)
    members = members[members != leave_out]
    X = problem.emb[problem.tok_word[members]]
    n, D = X.shape
    kap, nu = problem.kappa0 + n, problem.nu0 + n
    mu, psi = problem.mu0.copy(), problem.Psi0.copy()
    if n:
        xbar = X.mean(axis=0)
        dv = xbar - problem.mu0
        mu = (problem.kappa0 * problem.mu0 + n * xbar) / kap
        psi += (X - xbar).T @ (X - xbar) + problem.kappa0 * n / kap * np.outer(dv, dv)
    dof = nu - D + 1
    return float(
        stats.multivariate_t(loc=mu, shape=psi * (kap + 1) / (kap * dof), df=dof).logpdf(x)
    )


@pytest.mark.parametrize("tables", ["built", "first use"])
@pytest.mark.parametrize("fresh_doc", [False, True])
@pytest.mark.parametrize("density", ["precision", "solve"])
def test_every_density_a_token_uses_is_eq_1(
    problem: GLDAProblem, density: str, fresh_doc: bool, tables: str
) -> None:
    K, D, N = problem.K, problem.D, problem.n_tokens
    state = init_state(problem, seed=4, method="alias-mh")
    # one sweep of the paper's scan builds every word's table (as Vose tables)
    step(problem, state, method="alias-mh", scan="document")
    for _ in range(2):
        step(problem, state, method="cgs")  # and moves the topics away from the tables
    never = np.iinfo(np.int64).max
    if tables == "first use":
        # each word's table is rebuilt at its first token below, from the distances
        # that also fill tcache (the rebuild's branch); "built": C's own branch
        state.uses[:] = -1
    else:
        state.uses[:] = 0
    precision = density == "precision"
    cache = _precision_cache(state) if precision else _no_precision_cache()
    word_topic = _word_topic_counts(problem, state)
    V = problem.emb.shape[0]
    word_lists = TopicLists(np.empty((V, K), np.int32), np.empty((V, K), np.int32),
                            np.empty(V, np.int32))  # fmt: skip
    doc_lists = TopicLists(
        np.empty((problem.n_docs, K), np.int32),
        np.empty((problem.n_docs, K), np.int32),
        np.empty(problem.n_docs, np.int32),
    )
    work = np.empty(3 * D + 7 * K)
    fresh_lt = work[3 * D : 3 * D + K]
    iwork = np.empty(7 * K, dtype=np.int64)
    stamp = iwork[4 * K : 5 * K]
    tcache = _density_cache(K)
    order = problem.word_order  # a word's tokens in a row: its later tokens read tcache
    checked = {}  # (k is the token's topic, read from tcache) -> densities compared
    stale = 0  # densities whose cache entry was for word w but an older topic state
    corpus = Corpus(problem.tok_doc, problem.tok_word, problem.emb, problem.alpha)
    alias_tables = AliasTables(state.stale_logw, state.stale_logq, state.stale_t,
                               state.alias_prob, state.alias_idx, state.uses)  # fmt: skip

    def visit(pos: int, mh_steps: int) -> None:
        # the corpus-order kernel on the one token order[pos]
        fill_topic_lists(word_topic, *word_lists)
        kern.sweep_alias_document(
            corpus, state.z, state.n_dk, word_topic,
            Densities(_topics(state), cache, precision), alias_tables, tcache, doc_lists,
            word_lists, order[pos : pos + 1], AliasOptions(mh_steps, fresh_doc, never),
            state.rng, work, iwork, np.zeros(3, np.int64),
        )  # fmt: skip

    moves = 0
    for pos in range(N):
        i = int(order[pos])
        z0, n_dk0 = state.z.copy(), state.n_dk.copy()
        w, s = int(problem.tok_word[i]), int(z0[i])
        # which cached densities hold for word w now (dens row 0: at v_w; row 1: without one
        # of w's tokens), and which are for w but an older state of their topic, before
        # the kernel reads or writes them
        keys = tcache.keys
        ver = keys[4].copy()
        cached = {
            False: (keys[0] == w) & (keys[1] == ver),
            True: (keys[2] == w) & (keys[3] == ver),
        }
        outdated = {
            False: (keys[0] == w) & (keys[1] != ver),
            True: (keys[2] == w) & (keys[3] != ver),
        }
        visit(pos, 0)
        x = problem.emb[w]
        for k in np.flatnonzero(stamp == i):
            own = bool(k == s)
            expected = _exact_log_t(problem, z0, int(k), x, leave_out=i if own else -1)
            assert abs(fresh_lt[k] - expected) < 1e-9, (i, int(k), s, fresh_lt[k], expected)
            key = (own, bool(cached[own][k]))
            checked[key] = checked.get(key, 0) + 1
            stale += int(outdated[own][k])
        # with no MH step the token kept its topic and the counts are back
        np.testing.assert_array_equal(state.z, z0)
        np.testing.assert_array_equal(state.n_dk, n_dk0)
        if pos % 3 == 0:
            # then a visit with MH steps, which may move the token: the topics it leaves
            # and joins change, and their cached densities must not be read again
            visit(pos, 8)
            moves += int(state.z[i] != s)
    # each branch was compared: the token's own topic and the others, computed here and
    # read from the cache (the token's own topic comes from _token_log_t under the fresh
    # document term and at a table's rebuild, and from the set C's copy of it otherwise)
    assert set(checked) == {(False, False), (False, True), (True, False), (True, True)}, checked
    assert min(checked.values()) >= 20, checked
    assert stale >= 20 and moves >= 20, (stale, moves)
