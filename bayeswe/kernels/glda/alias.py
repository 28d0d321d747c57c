"""Alias-table Metropolis-Hastings sweeps of Gaussian LDA (``method="alias-mh"``, section 4.2).

Two kernels, one per visiting order, built from the same per-token helpers:
:func:`sweep_alias_word` (``scan="word"``, the sampler's default) and
:func:`sweep_alias_document` (``scan="document"``, the paper's corpus order).

Target for token ``i`` of word ``w`` (vector ``x``) in document ``d``:
``p(k) ∝ (n_dk + alpha_k) t(x | k)`` with fresh topic parameters and the token's own
contribution removed (eq. 1); the token stays in its topic ``s`` during the MH steps
(topic ``s`` without it is evaluated by ``_log_t_without``) and moves, one downdate and
one update, only if accepted elsewhere. Proposal: for the topics ``C`` that hold other
tokens of ``w`` (``n_wk[w, k]`` without token ``i``, :func:`_set_c`),
``q(k) ∝ (n_dk + alpha_k) t(x | k)``, the target's own weight; for the others the mixture

    q(k) ∝ n_dk t'(x | k) + alpha_k t~(x | k)

where ``t~`` is the density of word ``w``'s table (:func:`_build_alias`: a Vose alias
table drawn in O(1), or cumulative sums drawn by bisection in the scan by word;
restricted to topics outside ``C`` by rejection) and ``t'`` is the fresh ``t``
(``fresh_doc=True``, the paper's "document term computed exactly", one density per
topic present in the document) or the table's ``t~`` (``fresh_doc=False``, no density).
The table's densities are of the topics *without word w's tokens*, so ``q`` does not
depend on the token's own topic, and ``mh_steps`` independence-MH steps starting at
``s`` accept ``t`` with probability ``min(1, p(t) q(s) / (p(s) q(t)))``
(:func:`_mh_table_doc` for ``fresh_doc=False``, where the count factors cancel;
:func:`_mh_general` otherwise); on rejection the token keeps its topic.

Why ``C`` takes fresh densities: all tokens of ``w`` share the vector ``x``, so a topic
holding many of them has a far higher density at ``x`` than the same topic without them
(by hundreds of nats in 50 dimensions). With the table's density there, ``p / q`` of
that topic is huge and an independence sampler at such a state leaves it with
probability about ``q / p``: on the Lee corpus with GloVe 50d the chain barely moved
from its start. ``C`` is small (the topics a word's tokens are in), and each of its
topics costs one density per token.

Tables and exactness. In corpus order a word's table is rebuilt (O(K D^2)) on its first
use and after every ``rebuild_every`` uses (Li et al. 2014; ``rebuild_every ~ K`` costs
O(D^2) per token amortized, the price of one MH step) and serves tokens of other
documents, visited after other words' tokens have moved. For a fixed table each MH step
leaves the collapsed posterior invariant; a table rebuilt from a past state is still
correlated with the current one, which makes the chain adaptive and not exactly
invariant (as in AliasLDA/LightLDA); tests/glda/test_glda_alias_stale_bias.py measures
the bias, which shrinks with smaller ``rebuild_every`` and vanishes for frozen tables.
In word order each word's table is built just before its first token and serves only
the word's own tokens in a row: the table is then a function of the other words'
topics, which do not change while it is in use, so every MH step has a fixed proposal
given the rest of the state and the sweep leaves the posterior exactly invariant. There
the table's density of a topic outside ``C`` is also its current density, so ``q = p``:
each token gets an exact Gibbs draw, and every MH step accepts.

Densities come from forward substitutions with the factors, or from the precision
cache of :mod:`.precision` (``precision=True``: kept in step by
:func:`.precision.topic_move_precision`); :class:`Densities` says which. A topic's
density at ``v_w``, and without one of ``w``'s tokens, is cached per topic in a
:class:`.structs.DensityCache` (:func:`_token_log_t`).

Each loop runs a token in three pieces: the proposal (:func:`document_token_proposal`
or :func:`word_token_proposal`, after :func:`word_table` at each word of the scan by
word), the MH steps, and the bookkeeping (:func:`document_token_done`,
:func:`word_token_done`). :mod:`bayeswe.sbc.faulty_glda` composes the same pieces with
deliberately wrong MH steps, for the power checks of SBC and the stationarity tests.

Work arrays: ``work`` needs ``3 * D + 7 * K`` floats and ``iwork`` ``7 * K`` int64
(:func:`_scratch` gives their parts names); ``stats[0] += proposals``, ``stats[1] +=
accepted`` (a proposal equal to the current topic counts as accepted), ``stats[2] +=
table rebuilds``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bayeswe.kernels.glda.blocks import block_accepts, block_candidates, relabel_group
from bayeswe.kernels.glda.common import (
    _forward_sqnorm,
    _log_t_without,
    _log_t_without_copies,
    rand_uniform,
    topic_move,
)
from bayeswe.kernels.glda.precision import (
    _one_topic_quad,
    _outer_packed,
    all_topics_quad,
    precision_from_factor,
    topic_move_precision,
)
from bayeswe.kernels.glda.structs import (
    AliasOptions,
    AliasTables,
    Corpus,
    Densities,
    DensityCache,
    PrecisionCache,
    TopicLists,
    Topics,
    WordGroups,
)
from bayeswe.kernels.topic_lists import fill_topic_lists, list_add, list_remove

#: Per-token helpers are compiled without reference counting (they allocate nothing):
#: numba counts every array a function binds or reads from a named tuple with an
#: atomic increment and decrement, which in the scan by word cost more than the
#: token's own arithmetic (measured: half the speed at K = 20 with counting).
_token_helper = njit(cache=True, _nrt=False, inline="always")

__all__ = [
    "sweep_alias_document",
    "sweep_alias_word",
]


class Scratch(NamedTuple):
    """Named parts of ``work`` and ``iwork`` (:func:`_scratch`), valid for one token."""

    y: np.ndarray  #: (D,) forward-substitution scratch
    fresh_lt: np.ndarray  #: (K,) fresh log t(x | k) of the token, valid iff stamp[k] == i
    doc_w: np.ndarray  #: (K,) document-term weights of doc_topics
    scaled: np.ndarray  #: (K,) table-build scratch
    Qall: np.ndarray  #: (K,) x's Mahalanobis distance to every topic
    log_alpha: np.ndarray  #: (K,)
    word_in_topic: np.ndarray  #: (K,) n_wk[w] at the table's build
    copy_w: np.ndarray  #: (K,) weights of the topics in C
    doc_topics: np.ndarray  #: (K,) int64: the document's topics outside C
    small: np.ndarray  #: (K,) int64 table-build scratch
    large: np.ndarray  #: (K,) int64 table-build scratch (shares doc_topics' memory)
    stamp: np.ndarray  #: (K,) int64: see fresh_lt
    copy_mark: np.ndarray  #: (K,) int64: copy_mark[k] == i iff k is in C of token i
    copy_topics: np.ndarray  #: (K,) int64: the topics of C
    w_top: np.ndarray  #: (K,) int64: the topics holding the current word (scan by word)
    w_mark: np.ndarray  #: (K,) int64: w_mark[k] == w iff k is in w_top
    xx_owner: np.ndarray  #: (1,) int64: the word whose outer product cache.xx holds
    log_count: np.ndarray  #: log(n) for the counts of the fresh document term
    cand: np.ndarray  #: (K,) int64: block-move candidate topics (empty without blocks)
    block_logq: np.ndarray  #: (K,) their proposal log weights
    doc_count: np.ndarray  #: (n_docs,) int64, zero between block moves
    block_docs: np.ndarray  #: (n_docs,) int64
    block_work: np.ndarray  #: (2 D,)


@njit(cache=True)
def _log_counts(n_dk: np.ndarray, fresh_doc: bool) -> np.ndarray:
    # log(n) for the counts of the fresh document term (n <= the longest document)
    longest = 0
    if fresh_doc:
        for dd in range(n_dk.shape[0]):
            longest = max(longest, n_dk[dd].sum())
    log_count = np.empty(longest + 1)
    for n in range(longest + 1):
        log_count[n] = math.log(n) if n > 0 else -math.inf
    return log_count


@njit(cache=True)
def _scratch(
    work: np.ndarray, iwork: np.ndarray, n_dk: np.ndarray, alpha: np.ndarray, fresh_doc: bool,
    blocks: bool,
) -> Scratch:  # fmt: skip
    # the per-sweep work arrays (block-move ones empty without blocks: numba types every
    # path), and log(alpha) and the log counts filled
    K = alpha.shape[0]
    D = (work.shape[0] - 7 * K) // 3
    f = 3 * D
    nk = K if blocks else 0
    nd = n_dk.shape[0] if blocks else 0
    sc = Scratch(
        work[2 * D : 3 * D],
        work[f : f + K],
        work[f + K : f + 2 * K],
        work[f + 2 * K : f + 3 * K],
        work[f + 3 * K : f + 4 * K],
        work[f + 4 * K : f + 5 * K],
        work[f + 5 * K : f + 6 * K],
        work[f + 6 * K : f + 7 * K],
        iwork[:K],
        iwork[K : 2 * K],
        iwork[:K],  # used only while building, when doc_topics is not live
        iwork[4 * K : 5 * K],
        iwork[5 * K : 6 * K],
        iwork[2 * K : 3 * K],
        iwork[3 * K : 4 * K],
        iwork[6 * K : 7 * K],
        np.full(1, -1, dtype=np.int64),
        _log_counts(n_dk, fresh_doc),
        np.empty(nk, dtype=np.int64),
        np.empty(nk),
        np.zeros(nd, dtype=np.int64),
        np.empty(nd, dtype=np.int64),
        np.empty(2 * D),
    )
    for k in range(K):
        sc.log_alpha[k] = math.log(alpha[k])
    sc.stamp[:] = -1
    sc.copy_mark[:] = -1
    sc.w_mark[:] = -1
    return sc


# ----------------------------------------------------------------------------- densities


@_token_helper
def _ensure_outer(w: int, x: np.ndarray, dens: Densities, owner: np.ndarray) -> None:
    # cache.xx must hold x's outer product before a precision density (built lazily:
    # a token that needs no density costs no O(D^2))
    if dens.precision and owner[0] != w:
        _outer_packed(x, dens.cache.xx)
        owner[0] = w


@_token_helper
def _topic_quad(k: int, x: np.ndarray, dens: Densities, y: np.ndarray) -> float:
    # x's Mahalanobis distance to topic k: from the precision cache (xx must hold x's
    # outer product) or by forward substitution with the Cholesky factor
    if dens.precision:
        c = dens.cache
        return _one_topic_quad(k, x, c.Pp, c.Pmu, c.muPmu, c.xx)
    t = dens.topics
    return _forward_sqnorm(t.R[k], t.invd[k], x, t.mu[k], y)


@_token_helper
def _all_topic_quads(x: np.ndarray, dens: Densities, y: np.ndarray, Qall: np.ndarray) -> None:
    # _topic_quad for every topic into Qall; the precision form also fills xx
    if dens.precision:
        c = dens.cache
        all_topics_quad(x, c.Pp, c.Pmu, c.muPmu, c.xx, Qall)
    else:
        t = dens.topics
        for k in range(Qall.shape[0]):
            Qall[k] = _forward_sqnorm(t.R[k], t.invd[k], x, t.mu[k], y)


@_token_helper
def _fresh_log_t(k: int, x: np.ndarray, dens: Densities, y: np.ndarray) -> float:
    # eq. (1) under topic k with the current parameters; xx must hold x's outer product
    q = _topic_quad(k, x, dens, y)
    t = dens.topics
    return t.tconst[k] - t.texp[k] * math.log1p(q * t.tscale[k])


@_token_helper
def _token_log_t(
    k: int, s: int, w: int, x: np.ndarray, dens: Densities, y: np.ndarray, tcache: DensityCache
) -> float:
    """Eq. (1) under topic ``k`` for a token of word ``w`` (vector ``x``) that sits in
    topic ``s`` (left out of it).

    A topic's density at ``v_w``, and its density without one token of ``w``, are the
    same for all of ``w``'s tokens until the topic changes: ``tcache`` keeps them per
    topic (see :class:`.structs.DensityCache`), so the scan by word computes each once
    per word and topic state. ``cache.xx`` must hold ``x``'s outer product (precision
    only). :func:`_set_c` writes this body out: keep the two in step
    (tests/glda/test_glda_alias_densities.py compares every density either gives with
    eq. (1) from scratch).
    """
    tdens, tkeys = tcache
    ver = tkeys[4, k]
    if k == s:
        if tkeys[2, k] == w and tkeys[3, k] == ver:
            return tdens[1, k]
        t = dens.topics
        v = _log_t_without(s, _topic_quad(s, x, dens, y), x.shape[0], t.kappa_k, t.nu_k, t.logdet)
        tdens[1, k] = v
        tkeys[2, k] = w
        tkeys[3, k] = ver
        return v
    if tkeys[0, k] == w and tkeys[1, k] == ver:
        return tdens[0, k]
    v = _fresh_log_t(k, x, dens, y)
    tdens[0, k] = v
    tkeys[0, k] = w
    tkeys[1, k] = ver
    return v


# ----------------------------------------------------------------------------- tables


@njit(cache=True)
def _build_alias(
    w: int,
    tables: AliasTables,
    lt_now: np.ndarray,
    alpha: np.ndarray,
    topics: Topics,
    sc: Scratch,
    cumulative: bool,
) -> None:
    """Word ``w``'s table of the "language model" term ``alpha_k t(v_w | k)``
    (section 4.2; Vose 1991), with the current (soon stale) topic parameters.

    From the Mahalanobis distances ``sc.Qall`` of ``v_w`` (O(K D^2) for the caller),
    O(K) here; ``lt_now[k]`` is the caller's log t(v_w | k) from the same distances.
    Each density is of topic k *without word w's own tokens* (``sc.word_in_topic[k]``
    of them, all with the vector ``v_w``: one rank-1 downdate,
    ``_log_t_without_copies``). The table then serves every token of ``w`` with a
    proposal that does not depend on that token's own topic; with the tokens left in, a
    token at topic ``s`` would see ``s``'s density raised by its own vector, and the MH
    ratio, which uses the one table for both directions, would be that of no valid
    proposal (a bias that grows with K, tests/glda/test_glda_alias_stale_bias.py).

    ``cumulative``: cumulative sums for bisection (the scan by word draws from a table
    only for its word's few tokens, right after building it: one pass and O(log K)
    draws are cheaper there than Vose's several passes and O(1) draws); else Vose's
    probabilities and aliases.
    """
    K = alpha.shape[0]
    D = topics.mu.shape[1]
    Q, log_alpha, word_in_topic, scaled = sc.Qall, sc.log_alpha, sc.word_in_topic, sc.scaled
    row = tables.logw[w]
    m = -np.inf
    for k in range(K):
        if word_in_topic[k] > 0.0:
            lt = _log_t_without_copies(
                k, Q[k], D, topics.kappa_k, topics.nu_k, topics.logdet, word_in_topic[k]
            )
        else:
            lt = lt_now[k]
        v = log_alpha[k] + lt
        row[k] = v
        if v > m:
            m = v
    total = 0.0
    for k in range(K):
        e = math.exp(row[k] - m)
        scaled[k] = e
        total += e
    tables.logq[w] = m + math.log(total)
    # t~(v_w | k) / sum_k' alpha_k' t~(v_w | k'): the stale density in linear scale,
    # relative to the table's mass, for the document term (no exp per token)
    lin = tables.lin[w]
    for k in range(K):
        lin[k] = scaled[k] / (total * alpha[k])
    prob = tables.prob[w]
    if cumulative:
        acc = 0.0
        for k in range(K):
            acc += scaled[k]
            prob[k] = acc / total
        prob[K - 1] = 1.0
        return
    small, large = sc.small, sc.large
    ns = 0
    nl = 0
    for k in range(K):
        scaled[k] *= K / total
        if scaled[k] < 1.0:
            small[ns] = k
            ns += 1
        else:
            large[nl] = k
            nl += 1
    idx = tables.idx[w]
    while ns > 0 and nl > 0:
        ns -= 1
        s = small[ns]
        g = large[nl - 1]
        prob[s] = scaled[s]
        idx[s] = g
        scaled[g] = (scaled[g] + scaled[s]) - 1.0
        if scaled[g] < 1.0:
            nl -= 1
            small[ns] = g
            ns += 1
    while nl > 0:
        nl -= 1
        prob[large[nl]] = 1.0
        idx[large[nl]] = large[nl]
    while ns > 0:  # only through rounding
        ns -= 1
        prob[small[ns]] = 1.0
        idx[small[ns]] = small[ns]


@njit(cache=True)
def _rebuild(
    w: int,
    x: np.ndarray,
    n_wk: np.ndarray,
    alpha: np.ndarray,
    dens: Densities,
    tables: AliasTables,
    tcache: DensityCache,
    sc: Scratch,
    have_quads: bool,
    cumulative: bool,
) -> None:
    """Rebuild word ``w``'s table from ``x``'s distances to every topic (computed here
    unless ``have_quads``: a block move just left them in ``sc.Qall``)."""
    if not have_quads:
        _all_topic_quads(x, dens, sc.y, sc.Qall)
    t = dens.topics
    tdens, tkeys = tcache
    Qall = sc.Qall
    D = x.shape[0]
    for k in range(alpha.shape[0]):
        sc.word_in_topic[k] = n_wk[w, k]
        # the distances give every topic's current density at v_w (and, where the word
        # has tokens, without one of them): kept for this word's tokens until the topic
        # changes
        tdens[0, k] = t.tconst[k] - t.texp[k] * math.log1p(Qall[k] * t.tscale[k])
        tkeys[0, k] = w
        tkeys[1, k] = tkeys[4, k]
        if n_wk[w, k] > 0:
            tdens[1, k] = _log_t_without(k, Qall[k], D, t.kappa_k, t.nu_k, t.logdet)
            tkeys[2, k] = w
            tkeys[3, k] = tkeys[4, k]
    _build_alias(w, tables, tdens[0], alpha, t, sc, cumulative)
    tables.uses[w] = 0


# ----------------------------------------------------------------------------- one token


@_token_helper
def _set_c(
    i: int,
    s: int,
    d: int,
    w: int,
    x: np.ndarray,
    top: np.ndarray,
    n_top: int,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    alpha: np.ndarray,
    lin: np.ndarray,
    logq: float,
    dens: Densities,
    tcache: DensityCache,
    sc: Scratch,
) -> tuple[int, float, float]:
    """The set C of token ``i`` (the topics of ``top[:n_top]`` that hold other tokens
    of its word) into ``sc.copy_topics`` with log weights ``log((n_dk + alpha_k)
    t(x | k)) - logq`` in ``sc.copy_w``; returns ``(|C|, alias mass of C in units of the
    table's mass, max(0, largest weight))``."""
    tdens, tkeys = tcache
    fresh_lt, stamp, copy_mark = sc.fresh_lt, sc.stamp, sc.copy_mark
    copy_topics, copy_w = sc.copy_topics, sc.copy_w
    nc = 0
    a_copy = 0.0
    m_ref = 0.0  # reference for the weights: the table's mass or a larger one
    for j in range(n_top):
        k = top[j]
        c = n_wk[w, k] - (1 if k == s else 0)
        if c > 0:
            _ensure_outer(w, x, dens, sc.xx_owner)
            if stamp[k] != i:
                # _token_log_t written out: every token reaches this, and the inlined
                # call would rebind its array arguments with atomic reference-count
                # pairs, which cost more than the density (measured)
                ver = tkeys[4, k]
                if k == s and tkeys[2, k] == w and tkeys[3, k] == ver:
                    lt = tdens[1, k]
                elif k != s and tkeys[0, k] == w and tkeys[1, k] == ver:
                    lt = tdens[0, k]
                else:
                    q = _topic_quad(k, x, dens, sc.y)
                    t = dens.topics
                    if k == s:
                        lt = _log_t_without(k, q, x.shape[0], t.kappa_k, t.nu_k, t.logdet)
                        tdens[1, k] = lt
                        tkeys[2, k] = w
                        tkeys[3, k] = ver
                    else:
                        lt = t.tconst[k] - t.texp[k] * math.log1p(q * t.tscale[k])
                        tdens[0, k] = lt
                        tkeys[0, k] = w
                        tkeys[1, k] = ver
                fresh_lt[k] = lt
                stamp[k] = i
            v = math.log(n_dk[d, k] + alpha[k]) + fresh_lt[k] - logq
            copy_mark[k] = i
            copy_topics[nc] = k
            copy_w[nc] = v
            nc += 1
            a_copy += alpha[k] * lin[k]
            if v > m_ref:
                m_ref = v
    return nc, a_copy, m_ref


@_token_helper
def _sort_c(nc: int, alpha: np.ndarray, lin: np.ndarray, sc: Scratch) -> float:
    # a word's list is in the order of past moves, and a resumed run refills it in
    # topic order: C is put in topic order so that the draws depend on the state alone
    # (insertion sort: C holds the few topics of one word's tokens); returns C's alias
    # mass, summed in that order
    copy_topics, copy_w = sc.copy_topics, sc.copy_w
    for a in range(1, nc):
        kt, vt, b = copy_topics[a], copy_w[a], a - 1
        while b >= 0 and copy_topics[b] > kt:
            copy_topics[b + 1] = copy_topics[b]
            copy_w[b + 1] = copy_w[b]
            b -= 1
        copy_topics[b + 1] = kt
        copy_w[b + 1] = vt
    a_copy = 0.0
    for j in range(nc):
        a_copy += alpha[copy_topics[j]] * lin[copy_topics[j]]
    return a_copy


class Proposal(NamedTuple):
    """Token ``i``'s proposal in linear weights relative to ``exp(m_ref)``: C in
    ``sc.copy_w[:nc]``, the document term in ``sc.doc_w[:nd]``, the table's part."""

    nc: int
    nd: int
    p_copy: float
    p_doc: float
    total: float
    a_copy: float  #: alias mass of C, in units of the table's mass


@_token_helper
def _document_term(
    i: int,
    d: int,
    x: np.ndarray,
    nc: int,
    a_copy: float,
    m_ref: float,
    fresh_doc: bool,
    n_dk: np.ndarray,
    doc_lists: TopicLists,
    lin: np.ndarray,
    logq: float,
    log_count: np.ndarray,
    dens: Densities,
    sc: Scratch,
) -> Proposal:
    """The document term of the topics of document ``d`` outside C (fresh densities,
    :func:`_doc_log_weights`, or the table's linear weights) and the proposal's masses."""
    doc_top, _, doc_len = doc_lists
    copy_mark, doc_topics, doc_w, copy_w = sc.copy_mark, sc.doc_topics, sc.doc_w, sc.copy_w
    K = lin.shape[0]
    nd = 0
    if fresh_doc:
        for j in range(doc_len[d]):
            k = doc_top[d, j]
            if copy_mark[k] != i:
                doc_topics[nd] = k
                nd += 1
        m_ref = _doc_log_weights(nd, d, i, x, n_dk, dens, log_count, logq, m_ref, sc)
    scale = math.exp(-m_ref)
    p_copy = 0.0
    for j in range(nc):
        e = math.exp(copy_w[j] - m_ref)
        copy_w[j] = e
        p_copy += e
    p_doc = 0.0
    if fresh_doc:
        for j in range(nd):
            e = math.exp(doc_w[j] - m_ref)
            doc_w[j] = e
            p_doc += e
    else:
        # the table's linear weights: no exp or log per topic
        for j in range(doc_len[d]):
            k = doc_top[d, j]
            if copy_mark[k] != i:
                e = n_dk[d, k] * lin[k] * scale
                doc_topics[nd] = k
                doc_w[nd] = e
                p_doc += e
                nd += 1
    # (no topic outside C: the table's part is empty, whatever rounding left of it)
    p_alias = max(1.0 - a_copy, 0.0) * scale if nc < K else 0.0
    return Proposal(nc, nd, p_copy, p_doc, p_copy + p_doc + p_alias, a_copy)


@_token_helper
def _doc_log_weights(
    nd: int,
    d: int,
    i: int,
    x: np.ndarray,
    n_dk: np.ndarray,
    dens: Densities,
    log_count: np.ndarray,
    logq: float,
    m_ref: float,
    sc: Scratch,
) -> float:
    """The fresh document term of token ``i``: ``doc_w[j] = log(n_dk t(x | k)) - logq``
    for the topics ``k = doc_topics[:nd]`` (outside C); returns the largest of them and
    ``m_ref``.

    Each density is computed here directly, not through :func:`_token_log_t`'s
    per-topic cache: in corpus order the word changes at almost every token, so that
    cache seldom holds one. Skipping it and taking log counts from a table (measured
    together) made these sweeps about a third cheaper at K = 100 in 10 dimensions. The
    token's own topic s has its density without the token stamped already
    (``stamp[s] == i``), as :func:`_token_log_t` gives it; every other topic's is
    :func:`_fresh_log_t`, as there.
    """
    doc_topics, stamp, fresh_lt, doc_w = sc.doc_topics, sc.stamp, sc.fresh_lt, sc.doc_w
    for j in range(nd):
        k = doc_topics[j]
        if stamp[k] != i:
            fresh_lt[k] = _fresh_log_t(k, x, dens, sc.y)
            stamp[k] = i
        v = log_count[n_dk[d, k]] + fresh_lt[k] - logq
        doc_w[j] = v
        if v > m_ref:
            m_ref = v
    return m_ref


@_token_helper
def _bisect(cum: np.ndarray, u: float) -> int:
    # the first k with u < cum[k] (cum increasing, cum[-1] = 1)
    lo = 0
    hi = cum.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if u < cum[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@_token_helper
def _propose(
    i: int,
    w: int,
    prop: Proposal,
    tables: AliasTables,
    alpha: np.ndarray,
    cumulative: bool,
    rng: np.ndarray,
    sc: Scratch,
) -> int:
    """One draw from token ``i``'s proposal."""
    nc, nd, p_copy, p_doc, total, a_copy = prop
    copy_topics, copy_w, doc_topics, doc_w = sc.copy_topics, sc.copy_w, sc.doc_topics, sc.doc_w
    copy_mark = sc.copy_mark
    K = alpha.shape[0]
    u = rand_uniform(rng) * total
    if u < p_copy:
        t = copy_topics[nc - 1]
        acc = 0.0
        for j in range(nc):
            acc += copy_w[j]
            if u < acc:
                return copy_topics[j]
        return t
    if u < p_copy + p_doc:
        u -= p_copy
        t = doc_topics[nd - 1]
        acc = 0.0
        for j in range(nd):
            acc += doc_w[j]
            if u < acc:
                return doc_topics[j]
        return t
    # the table restricted to topics outside C, by rejection (exact); after 64
    # rejections, by a linear scan of the same weights
    for _try in range(64):
        if cumulative:
            t = _bisect(tables.prob[w], rand_uniform(rng))
        else:
            col = int(rand_uniform(rng) * K)
            if col >= K:
                col = K - 1
            t = col if rand_uniform(rng) < tables.prob[w, col] else tables.idx[w, col]
        if copy_mark[t] != i:
            return t
    lin = tables.lin[w]
    u = rand_uniform(rng) * (1.0 - a_copy)
    acc = 0.0
    t = -1
    for k in range(K):
        if copy_mark[k] != i:
            t = k
            acc += alpha[k] * lin[k]
            if u < acc:
                break
    return t


@_token_helper
def _fresh_pair(
    i: int, s: int, t: int, w: int, x: np.ndarray, dens: Densities, tcache: DensityCache,
    sc: Scratch,
) -> None:  # fmt: skip
    # the fresh densities of the token's topic s (without it) and of the proposal t
    _ensure_outer(w, x, dens, sc.xx_owner)
    if sc.stamp[s] != i:
        sc.fresh_lt[s] = _token_log_t(s, s, w, x, dens, sc.y, tcache)
        sc.stamp[s] = i
    if sc.stamp[t] != i:
        sc.fresh_lt[t] = _token_log_t(t, s, w, x, dens, sc.y, tcache)
        sc.stamp[t] = i


@_token_helper
def _mh_table_doc(
    i: int,
    s: int,
    w: int,
    x: np.ndarray,
    prop: Proposal,
    alpha: np.ndarray,
    tables: AliasTables,
    tcache: DensityCache,
    dens: Densities,
    cumulative: bool,
    mh_steps: int,
    rng: np.ndarray,
    stats: np.ndarray,
    sc: Scratch,
) -> int:
    """``mh_steps`` MH steps of token ``i`` (in topic ``s``) with the table's document
    term (``fresh_doc=False``); returns the topic it ends in.

    ``q(k) ∝ (n_dk + alpha_k) g(k)``, ``g`` the fresh density in C and the table's
    elsewhere, so the count factors cancel in ``p(t) q(c) / (p(c) q(t))`` and only
    the densities of the two topics are needed, computed when first proposed.
    """
    row = tables.logw[w]
    log_alpha, fresh_lt, copy_mark = sc.log_alpha, sc.fresh_lt, sc.copy_mark
    cur = s
    for _ in range(mh_steps):
        t = _propose(i, w, prop, tables, alpha, cumulative, rng, sc)
        stats[0] += 1
        if t == cur:
            stats[1] += 1
            continue
        _fresh_pair(i, s, t, w, x, dens, tcache, sc)
        log_ratio = 0.0
        if copy_mark[t] != i:
            log_ratio += fresh_lt[t] - (row[t] - log_alpha[t])
        if copy_mark[cur] != i:
            log_ratio -= fresh_lt[cur] - (row[cur] - log_alpha[cur])
        if math.log(rand_uniform(rng)) < log_ratio:
            cur = t
            stats[1] += 1
    return cur


@_token_helper
def _log_q(
    k: int,
    d: int,
    n_dk: np.ndarray,
    fresh_doc: bool,
    in_copies: bool,
    fresh_lt: np.ndarray,
    row: np.ndarray,
    lin: np.ndarray,
    alpha: np.ndarray,
    logq: float,
) -> float:
    # log of the unnormalised proposal weight of topic k (module docstring), minus
    # logq: (n_dk + alpha_k) t(x|k) in C, n_dk t'(x|k) + alpha_k t~(x|k) elsewhere
    n = n_dk[d, k]
    if in_copies:
        return math.log(n + alpha[k]) + fresh_lt[k] - logq
    stale = row[k] - logq  # log(alpha_k t~ / table mass)
    if n > 0:
        if fresh_doc:
            a = math.log(n) + fresh_lt[k] - logq
        else:
            a = math.log(n * lin[k])
        hi = max(a, stale)
        return hi + math.log(math.exp(a - hi) + math.exp(stale - hi))
    return stale


@_token_helper
def _mh_general(
    i: int,
    s: int,
    d: int,
    w: int,
    x: np.ndarray,
    prop: Proposal,
    n_dk: np.ndarray,
    alpha: np.ndarray,
    tables: AliasTables,
    tcache: DensityCache,
    dens: Densities,
    options: AliasOptions,
    cumulative: bool,
    rng: np.ndarray,
    stats: np.ndarray,
    sc: Scratch,
) -> int:
    """``mh_steps`` MH steps of token ``i`` with the full ratio ``p(t) q(s) / (p(s)
    q(t))`` (any document term); returns the topic it ends in."""
    row, lin, logq = tables.logw[w], tables.lin[w], tables.logq[w]
    fresh_lt, copy_mark = sc.fresh_lt, sc.copy_mark
    fresh_doc = options.fresh_doc
    cur = s
    lp_cur = math.log(n_dk[d, s] + alpha[s]) + fresh_lt[s]
    lq_cur = _log_q(s, d, n_dk, fresh_doc, copy_mark[s] == i, fresh_lt, row, lin, alpha, logq)
    for _ in range(options.mh_steps):
        t = _propose(i, w, prop, tables, alpha, cumulative, rng, sc)
        stats[0] += 1
        if t == cur:
            stats[1] += 1
            continue
        _fresh_pair(i, s, t, w, x, dens, tcache, sc)
        lp_t = math.log(n_dk[d, t] + alpha[t]) + fresh_lt[t]
        lq_t = _log_q(t, d, n_dk, fresh_doc, copy_mark[t] == i, fresh_lt, row, lin, alpha, logq)
        if math.log(rand_uniform(rng)) < (lp_t - lp_cur) + (lq_cur - lq_t):
            cur = t
            lp_cur = lp_t
            lq_cur = lq_t
            stats[1] += 1
    return cur


@_token_helper
def _finish_token(
    i: int,
    d: int,
    s: int,
    cur: int,
    w: int,
    x: np.ndarray,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    tkeys: np.ndarray,
    dens: Densities,
    work: np.ndarray,
) -> None:
    # token i (in topic s, counted out of n_dk[d]) ends in topic cur != s: move it
    n_dk[d, cur] += 1
    n_wk[w, s] -= 1
    n_wk[w, cur] += 1
    tkeys[4, s] += 1  # both topics changed: their cached densities are void
    tkeys[4, cur] += 1
    topics = dens.topics
    if dens.precision:
        c = dens.cache
        # W[0] as the outer-product scratch: xx keeps x's outer product
        cache = PrecisionCache(c.P, c.Pp, c.Pmu, c.muPmu, c.moves, c.W, c.W[0])
        topic_move_precision(s, x, -1.0, topics, cache, work)
        topic_move_precision(cur, x, 1.0, topics, cache, work)
    else:
        mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp = topics
        topic_move(s, x, -1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
        topic_move(cur, x, 1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
    z[i] = cur


# ----------------------------------------------------------------------------- kernels


@njit(cache=True, nogil=True)
def sweep_alias_document(
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    tables: AliasTables,
    tcache: DensityCache,
    doc_lists: TopicLists,
    word_lists: TopicLists,
    order: np.ndarray,
    options: AliasOptions,
    rng: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
    stats: np.ndarray,
) -> None:
    """Alias-MH pass over the tokens ``order`` lists, in that order (the paper's scan,
    ``scan="document"``, visits them in corpus order; see the module docstring).

    Word ``w``'s table is rebuilt at its first use and after every
    ``options.rebuild_every`` uses (``tables.uses[w]`` counts them, -1 = not built).
    ``n_wk[w, k]`` counts word ``w``'s tokens in topic ``k`` on entry and is kept in
    step, as are ``word_lists`` (filled from it by the caller: the set C costs O(the
    word's topics) per token) and ``doc_lists`` (filled here from ``n_dk``: the document
    term costs O(topics in the document)). ``tcache``'s ``keys`` rows 0 and 2 must be -1
    and row 4 zero on entry (:class:`.structs.DensityCache`).
    """
    fill_topic_lists(n_dk, doc_lists.top, doc_lists.pos, doc_lists.length)
    sc = _scratch(work, iwork, n_dk, corpus.alpha, options.fresh_doc, False)
    _document_scan(corpus, z, n_dk, n_wk, dens, tables, tcache, doc_lists, word_lists, order,
                   options, rng, stats, sc, work)  # fmt: skip


@njit(cache=True, nogil=True, _nrt=False)
def _document_scan(
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    tables: AliasTables,
    tcache: DensityCache,
    doc_lists: TopicLists,
    word_lists: TopicLists,
    order: np.ndarray,
    options: AliasOptions,
    rng: np.ndarray,
    stats: np.ndarray,
    sc: Scratch,
    work: np.ndarray,
) -> None:
    # the token loop of sweep_alias_document
    tok_doc, tok_word, emb, alpha = corpus
    fresh_doc = options.fresh_doc
    for pos in range(order.shape[0]):
        i = order[pos]
        d, w, s = tok_doc[i], tok_word[i], z[i]
        x = emb[w]
        prop = document_token_proposal(
            i, fresh_doc, corpus, z, n_dk, n_wk, dens, tables, tcache, doc_lists, word_lists,
            options, stats, sc,
        )  # fmt: skip
        if fresh_doc:
            cur = _mh_general(i, s, d, w, x, prop, n_dk, alpha, tables, tcache, dens, options,
                              False, rng, stats, sc)  # fmt: skip
        else:
            cur = _mh_table_doc(i, s, w, x, prop, alpha, tables, tcache, dens, False,
                                options.mh_steps, rng, stats, sc)  # fmt: skip
        document_token_done(i, s, cur, corpus, z, n_dk, n_wk, dens, tcache, doc_lists,
                            word_lists, work)  # fmt: skip


@_token_helper
def document_token_proposal(
    i: int,
    fresh_s: bool,
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    tables: AliasTables,
    tcache: DensityCache,
    doc_lists: TopicLists,
    word_lists: TopicLists,
    options: AliasOptions,
    stats: np.ndarray,
    sc: Scratch,
) -> Proposal:
    """Token ``i`` of the scan in corpus order, up to its MH steps; returns its proposal.

    Takes the token's count out of ``n_dk`` (and its topic out of the document's list
    when the count falls to zero), rebuilds its word's table when due (``stats[2]``
    counts it), stamps the fresh density of the token's topic without it when
    ``fresh_s`` or at a rebuild (else the MH step computes it when first needed), and
    builds the set C (in topic order) and the document term.
    """
    tok_doc, tok_word, emb, alpha = corpus
    d, w, s = tok_doc[i], tok_word[i], z[i]
    x = emb[w]
    n_dk[d, s] -= 1
    if n_dk[d, s] == 0:
        list_remove(d, s, doc_lists.top, doc_lists.pos, doc_lists.length)
    uses = tables.uses
    rebuild = uses[w] < 0 or uses[w] >= options.rebuild_every
    if rebuild or fresh_s:
        # the token stays in topic s; its fresh density under s without it comes from
        # its Mahalanobis distance under the current topic s (_log_t_without)
        _ensure_outer(w, x, dens, sc.xx_owner)
        sc.fresh_lt[s] = _token_log_t(s, s, w, x, dens, sc.y, tcache)
        sc.stamp[s] = i
    if rebuild:
        _rebuild(w, x, n_wk, alpha, dens, tables, tcache, sc, False, False)
        stats[2] += 1
    uses[w] += 1
    lin, logq = tables.lin[w], tables.logq[w]
    nc, a_copy, m_ref = _set_c(i, s, d, w, x, word_lists.top[w], word_lists.length[w], n_dk,
                               n_wk, alpha, lin, logq, dens, tcache, sc)  # fmt: skip
    if nc > 1:
        a_copy = _sort_c(nc, alpha, lin, sc)
    return _document_term(i, d, x, nc, a_copy, m_ref, options.fresh_doc, n_dk, doc_lists, lin,
                          logq, sc.log_count, dens, sc)  # fmt: skip


@_token_helper
def document_token_done(
    i: int,
    s: int,
    cur: int,
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    tcache: DensityCache,
    doc_lists: TopicLists,
    word_lists: TopicLists,
    work: np.ndarray,
) -> None:
    """Token ``i`` of the scan in corpus order, taken out of topic ``s``, ends in topic
    ``cur``: counts, topics, its document's and its word's topic lists."""
    d, w = corpus.tok_doc[i], corpus.tok_word[i]
    _token_done(i, d, s, cur, w, corpus.emb[w], z, n_dk, n_wk, tcache.keys, dens, doc_lists, work)
    if cur != s:
        if n_wk[w, s] == 0:
            list_remove(w, s, word_lists.top, word_lists.pos, word_lists.length)
        if n_wk[w, cur] == 1:
            list_add(w, cur, word_lists.top, word_lists.pos, word_lists.length)


@_token_helper
def _token_done(
    i: int,
    d: int,
    s: int,
    cur: int,
    w: int,
    x: np.ndarray,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    tkeys: np.ndarray,
    dens: Densities,
    doc_lists: TopicLists,
    work: np.ndarray,
) -> None:
    # the token's count returns to n_dk[d, cur] (and the token moves if cur != s)
    if cur == s:
        # most tokens keep their topic: only the count returns. _finish_token is not
        # entered then, because numba's inlining rebinds each of its array arguments
        # with an atomic reference-count pair, which cost more than the rest of such a
        # token (measured)
        n_dk[d, s] += 1
    else:
        _finish_token(i, d, s, cur, w, x, z, n_dk, n_wk, tkeys, dens, work)
    if n_dk[d, cur] == 1:
        list_add(d, cur, doc_lists.top, doc_lists.pos, doc_lists.length)


@njit(cache=True, nogil=True)
def sweep_alias_word(
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    tables: AliasTables,
    tcache: DensityCache,
    doc_lists: TopicLists,
    words: WordGroups,
    options: AliasOptions,
    blocks: bool,
    rng: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
    stats: np.ndarray,
    block_stats: np.ndarray,
) -> None:
    """Alias-MH pass word by word (``scan="word"``, exact; see the module docstring).

    Word ``w``'s tokens ``words.order[words.start[w]:words.start[w + 1]]`` are visited
    in a row, and its table (cumulative sums, ``tables.prob[w]``; ``tables.idx`` is not
    touched) is built just before the first of them; ``options.rebuild_every`` is not
    read. ``blocks``: before the table, one word-type block move of :mod:`.blocks` (the
    move of :func:`.blocks.sweep_type_blocks` on the state of that moment) from the
    distances the table is then built from, so the move costs O(K) beyond them;
    ``block_stats`` accumulates as that function's ``stats``. ``n_wk``, ``doc_lists``
    and ``tcache`` as in :func:`sweep_alias_document`; the set C comes from the word's
    row of ``n_wk``, read once per word.
    """
    fill_topic_lists(n_dk, doc_lists.top, doc_lists.pos, doc_lists.length)
    sc = _scratch(work, iwork, n_dk, corpus.alpha, options.fresh_doc, blocks)
    _word_scan(corpus, z, n_dk, n_wk, dens, tables, tcache, doc_lists, words, options, blocks,
               rng, stats, block_stats, sc, work)  # fmt: skip


@njit(cache=True, nogil=True, _nrt=False)
def _word_scan(
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    tables: AliasTables,
    tcache: DensityCache,
    doc_lists: TopicLists,
    words: WordGroups,
    options: AliasOptions,
    blocks: bool,
    rng: np.ndarray,
    stats: np.ndarray,
    block_stats: np.ndarray,
    sc: Scratch,
    work: np.ndarray,
) -> None:
    # the word loop of sweep_alias_word
    tok_doc, _, emb, alpha = corpus
    fresh_doc = options.fresh_doc
    order, start = words.order, words.start
    for w in range(start.shape[0] - 1):
        lo, hi = start[w], start[w + 1]
        if lo == hi:
            continue
        x = emb[w]
        w_len = word_table(w, blocks, corpus, z, n_dk, n_wk, dens, tables, tcache, doc_lists,
                           words, rng, stats, block_stats, sc)  # fmt: skip
        for pos in range(lo, hi):
            i = order[pos]
            d, s = tok_doc[i], z[i]
            prop = word_token_proposal(i, fresh_doc, w_len, corpus, z, n_dk, n_wk, dens, tables,
                                       tcache, doc_lists, options, sc)  # fmt: skip
            if fresh_doc:
                cur = _mh_general(i, s, d, w, x, prop, n_dk, alpha, tables, tcache, dens,
                                  options, True, rng, stats, sc)  # fmt: skip
            else:
                cur = _mh_table_doc(i, s, w, x, prop, alpha, tables, tcache, dens, True,
                                    options.mh_steps, rng, stats, sc)  # fmt: skip
            w_len = word_token_done(i, s, cur, w_len, corpus, z, n_dk, n_wk, dens, tcache,
                                    doc_lists, sc, work)  # fmt: skip
        tables.uses[w] = hi - lo


@_token_helper
def word_table(
    w: int,
    blocks: bool,
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    tables: AliasTables,
    tcache: DensityCache,
    doc_lists: TopicLists,
    words: WordGroups,
    rng: np.ndarray,
    stats: np.ndarray,
    block_stats: np.ndarray,
    sc: Scratch,
) -> int:
    """Word ``w``'s start in the scan by word: its block move (``blocks``), the fresh
    density of its first token's topic without that token, and its table (``stats[2]``
    counts it); lists the topics that hold the word's tokens in ``sc.w_top`` (marked in
    ``sc.w_mark``) and returns how many.

    ``sc.w_top`` is a superset of each token's set C (a topic whose count falls to zero
    stays listed), so C costs O(its size) per token.
    """
    x = corpus.emb[w]
    if blocks:
        _ensure_outer(w, x, dens, sc.xx_owner)
        _block_move_word(w, words.start[w], words.start[w + 1], words, z, corpus, n_dk, n_wk,
                         dens, doc_lists, tcache.keys, rng, block_stats, sc)  # fmt: skip
    i = words.order[words.start[w]]
    s = z[i]
    _ensure_outer(w, x, dens, sc.xx_owner)
    sc.fresh_lt[s] = _token_log_t(s, s, w, x, dens, sc.y, tcache)
    sc.stamp[s] = i
    _rebuild(w, x, n_wk, corpus.alpha, dens, tables, tcache, sc, blocks, True)
    stats[2] += 1
    w_len = 0
    for k in range(n_wk.shape[1]):
        if n_wk[w, k] > 0:
            sc.w_top[w_len] = k
            w_len += 1
            sc.w_mark[k] = w
    return w_len


@_token_helper
def word_token_proposal(
    i: int,
    fresh_s: bool,
    w_len: int,
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    tables: AliasTables,
    tcache: DensityCache,
    doc_lists: TopicLists,
    options: AliasOptions,
    sc: Scratch,
) -> Proposal:
    """Token ``i`` of the scan by word, up to its MH steps; returns its proposal.

    Takes the token's count out of ``n_dk`` (and its topic out of the document's list
    when the count falls to zero), stamps the fresh density of its topic without it when
    ``fresh_s`` (else the MH step computes it when first needed), and builds the set C
    from the word's ``sc.w_top[:w_len]`` and the document term.
    """
    tok_doc, tok_word, emb, alpha = corpus
    d, w, s = tok_doc[i], tok_word[i], z[i]
    x = emb[w]
    n_dk[d, s] -= 1
    if n_dk[d, s] == 0:
        list_remove(d, s, doc_lists.top, doc_lists.pos, doc_lists.length)
    if fresh_s and sc.stamp[s] != i:  # (word_table stamped the word's first token)
        _ensure_outer(w, x, dens, sc.xx_owner)
        sc.fresh_lt[s] = _token_log_t(s, s, w, x, dens, sc.y, tcache)
        sc.stamp[s] = i
    lin, logq = tables.lin[w], tables.logq[w]
    nc, a_copy, m_ref = _set_c(i, s, d, w, x, sc.w_top, w_len, n_dk, n_wk, alpha, lin, logq,
                               dens, tcache, sc)  # fmt: skip
    return _document_term(i, d, x, nc, a_copy, m_ref, options.fresh_doc, n_dk, doc_lists, lin,
                          logq, sc.log_count, dens, sc)  # fmt: skip


@_token_helper
def word_token_done(
    i: int,
    s: int,
    cur: int,
    w_len: int,
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    tcache: DensityCache,
    doc_lists: TopicLists,
    sc: Scratch,
    work: np.ndarray,
) -> int:
    """Token ``i`` of the scan by word, taken out of topic ``s``, ends in topic ``cur``:
    counts, topics, its document's list, and ``cur`` added to the word's topics
    ``sc.w_top``; returns their number."""
    d, w = corpus.tok_doc[i], corpus.tok_word[i]
    _token_done(i, d, s, cur, w, corpus.emb[w], z, n_dk, n_wk, tcache.keys, dens, doc_lists, work)
    if sc.w_mark[cur] != w:
        sc.w_top[w_len] = cur
        w_len += 1
        sc.w_mark[cur] = w
    return w_len


# ----------------------------------------------------------------------------- block moves


@_token_helper
def _block_move_word(
    w: int,
    lo: int,
    hi: int,
    words: WordGroups,
    z: np.ndarray,
    corpus: Corpus,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    dens: Densities,
    doc_lists: TopicLists,
    tkeys: np.ndarray,
    rng: np.ndarray,
    stats: np.ndarray,
    sc: Scratch,
) -> None:
    """One word-type block move of word ``w`` (tokens ``words.order[lo:hi]``, none yet
    visited in this sweep), as in :func:`.blocks.sweep_type_blocks`, inside the alias
    scan by word.

    Leaves ``sc.Qall`` = ``v_w``'s distances to every topic after the move, for the
    word's table; ``cache.xx`` must hold ``v_w``'s outer product (precision only). On
    acceptance updates ``z``, ``n_dk`` with ``doc_lists``, ``n_wk``, the topics (and
    their precision cache, recomputed from the factor) and voids both topics' cached
    densities (``tkeys`` row 4). ``stats`` as :func:`.blocks.sweep_type_blocks`'.
    """
    topics, cache, precision = dens
    x = corpus.emb[w]
    D = x.shape[0]
    Qall = sc.Qall
    _all_topic_quads(x, dens, sc.y, Qall)
    n_w = hi - lo
    if n_w < 2:
        return
    stats[0] += 1
    order = words.order
    cand, logq, doc_count, docs = sc.cand, sc.block_logq, sc.doc_count, sc.block_docs
    k = z[order[lo + int(rand_uniform(rng) * n_w)]]
    m = n_wk[w, k]
    n_cand = block_candidates(k, m, Qall, n_wk[w], topics.kappa_k, topics.nu_k, topics.logdet,
                              words.kappa0, D, words.lg_nu, cand, logq)  # fmt: skip
    if n_cand < 2:
        return
    j, n_docs = block_accepts(k, lo, hi, order, z, corpus.tok_doc, n_dk, corpus.alpha, cand,
                              logq, n_cand, doc_count, docs, rng)  # fmt: skip
    if j >= 0:
        doc_top, doc_pos, doc_len = doc_lists
        for b in range(n_docs):
            d = docs[b]
            c = doc_count[d]
            n_dk[d, k] -= c
            if n_dk[d, k] == 0:
                list_remove(d, k, doc_top, doc_pos, doc_len)
            if n_dk[d, j] == 0:
                list_add(d, j, doc_top, doc_pos, doc_len)
            n_dk[d, j] += c
        relabel_group(k, j, m, x, lo, hi, order, z, topics, sc.block_work)
        n_wk[w, k] -= m
        n_wk[w, j] += m
        tkeys[4, k] += 1  # both topics changed: their cached densities are void
        tkeys[4, j] += 1
        for side in range(2):
            t = k if side == 0 else j
            if precision:
                # m copies at once: the cache is recomputed from the factor (O(D^3))
                cache.moves[t] = 0
                precision_from_factor(t, topics.R, topics.mu, cache.P, cache.Pp, cache.Pmu,
                                      cache.muPmu, cache.W)  # fmt: skip
            Qall[t] = _topic_quad(t, x, dens, sc.y)
        stats[1] += 1
        stats[2] += m
    for b in range(n_docs):
        doc_count[docs[b]] = 0
