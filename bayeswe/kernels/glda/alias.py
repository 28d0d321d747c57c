"""Alias-table Metropolis-Hastings sweep of Gaussian LDA (``method="alias-mh"``, section 4.2).

:func:`sweep_alias` proposes from a mixture of the document term and a per-word table
of the stale "language model" term ``alpha_k t~(v_w | k)`` (``_build_alias``: a Vose
alias table, or cumulative sums in the scan by word), with fresh densities for the
topics that hold the word's other tokens, and corrects with an independence MH step
against the exact conditional of eq. (1); the helpers below evaluate fresh densities
(by forward substitution with the factors, or from the precision cache of
:mod:`.precision` when ``precision=True``), the proposal weight, and move the token
once its steps are done.
"""

from __future__ import annotations

import math

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
from bayeswe.kernels.glda.structs import DensityCache, PrecisionCache, Topics
from bayeswe.kernels.topic_lists import fill_topic_lists, list_add, list_remove

__all__ = [
    "sweep_alias",
]


@njit(cache=True)
def _build_alias(
    w: int,
    Q: np.ndarray,
    alpha: np.ndarray,
    stale_logw: np.ndarray,
    stale_logq: np.ndarray,
    stale_t: np.ndarray,
    alias_prob: np.ndarray,
    alias_idx: np.ndarray,
    scaled: np.ndarray,
    small: np.ndarray,
    large: np.ndarray,
    word_in_topic: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    logdet: np.ndarray,
    D: int,
    lt_now: np.ndarray,
    log_alpha: np.ndarray,
    cumulative: bool,
) -> None:
    # Vose (1991) alias table of the "language model" term alpha_k t(v_w | k)
    # (section 4.2), with the current (soon stale) topic parameters, from the
    # Mahalanobis distances Q[k] of v_w (O(K D^2) for the caller), O(K) here;
    # lt_now[k] is the caller's log t(v_w | k) from the same Q[k] (no second log1p).
    # Each density is of topic k *without word w's own tokens* (word_in_topic[k] of
    # them, all with the vector v_w: one rank-1 downdate, _log_t_without_copies). The
    # table then serves every token of w with a proposal that does not depend on that
    # token's own topic; with the tokens left in, a token at topic s would see s's
    # density raised by its own vector, and the MH ratio, which uses the one table for
    # both directions, would be that of no valid proposal (a bias that grows with K,
    # tests/glda/test_glda_alias_stale_bias.py).
    K = alpha.shape[0]
    row = stale_logw[w]
    m = -np.inf
    for k in range(K):
        if word_in_topic[k] > 0.0:
            lt = _log_t_without_copies(k, Q[k], D, kappa_k, nu_k, logdet, word_in_topic[k])
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
    stale_logq[w] = m + math.log(total)
    # t~(v_w | k) / sum_k' alpha_k' t~(v_w | k'): the stale density in linear scale,
    # relative to the table's mass, for the document term (no exp per token)
    lin = stale_t[w]
    for k in range(K):
        lin[k] = scaled[k] / (total * alpha[k])
    prob = alias_prob[w]
    if cumulative:
        # the scan by word draws from a table only for its word's few tokens, right after
        # building it: a cumulative table (one pass, O(log K) draws by bisection) is
        # cheaper there than Vose's (several passes, O(1) draws)
        acc = 0.0
        for k in range(K):
            acc += scaled[k]
            prob[k] = acc / total
        prob[K - 1] = 1.0
        return
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
    idx = alias_idx[w]
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


@njit(cache=True, nogil=True)
def sweep_alias(
    tok_doc: np.ndarray,
    tok_word: np.ndarray,
    z: np.ndarray,
    emb: np.ndarray,
    alpha: np.ndarray,
    n_dk: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    stale_logw: np.ndarray,
    stale_logq: np.ndarray,
    stale_t: np.ndarray,
    alias_prob: np.ndarray,
    alias_idx: np.ndarray,
    uses: np.ndarray,
    rebuild_every: int,
    mh_steps: int,
    fresh_doc: bool,
    broken: int,
    rng: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
    start: int,
    stop: int,
    stats: np.ndarray,
    precision: bool,
    P: np.ndarray,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    moves: np.ndarray,
    W: np.ndarray,
    xx: np.ndarray,
    n_wk: np.ndarray,
    tcache: DensityCache,
    order: np.ndarray,
    cumulative: bool,
    doc_top: np.ndarray,
    doc_pos: np.ndarray,
    doc_len: np.ndarray,
    blocks: bool,
    word_start: np.ndarray,
    kappa0: float,
    lg_nu: np.ndarray,
    block_stats: np.ndarray,
    broken_blocks: int,
    word_lists: bool,
    fill_word_lists: bool,
    word_top: np.ndarray,
    word_pos: np.ndarray,
    word_len: np.ndarray,
) -> None:
    """Alias-table Metropolis-Hastings pass (section 4.2, with a correct MH step).

    Target for token ``i``: ``p(k) ∝ (n_dk + alpha_k) t(x | k)`` with fresh topic
    parameters and the token's own contribution removed (eq. 1); the token stays in
    its topic ``s`` during the MH steps (topic ``s`` without it is evaluated by
    ``_log_t_without``) and moves, one downdate and one update, only if accepted
    elsewhere. Proposal: for the topics ``C`` that hold other tokens of the token's
    word ``w`` (``n_wk[w, k]`` without token ``i``), ``q(k) ∝ (n_dk + alpha_k) t(x | k)``,
    the target's own weight; for the others the mixture

        q(k) ∝ n_dk t'(x | k) + alpha_k t~(x | k)

    where ``t~`` is the density of word ``w``'s alias table (drawn in O(1), restricted
    to topics outside ``C`` by rejection) and ``t'`` is the fresh ``t``
    (``fresh_doc=True``, the paper's "document term computed exactly", one solve per
    topic present in the document) or the table's ``t~`` (``fresh_doc=False``, no
    solve). The table's densities are of the topics *without word w's tokens*, so
    ``q`` does not depend on the token's own topic, and ``mh_steps`` independence-MH
    steps starting at ``s`` accept ``t`` with probability
    ``min(1, p(t) q(s) / (p(s) q(t)))``; on rejection the token keeps its topic.

    Why ``C`` takes fresh densities: all tokens of ``w`` share the vector ``x``, so a
    topic holding many of them has a far higher density at ``x`` than the same topic
    without them (by hundreds of nats in 50 dimensions). With the table's density
    there, ``p / q`` of that topic is huge and an independence sampler at such a state
    leaves it with probability about ``q / p``: on the Lee corpus with GloVe 50d the
    chain barely moved from its start. ``C`` is small (the topics a word's tokens are
    in), and each of its topics costs one density per token.

    Word ``w``'s table is rebuilt (O(K D^2)) on its first use and after every
    ``rebuild_every`` uses (Li et al. 2014): with ``rebuild_every ~ K`` the rebuild
    costs O(D^2) per token amortized, the price of one MH step.

    For a fixed table each MH step leaves the collapsed posterior invariant. A table
    rebuilt from a past state is still correlated with the current one, which makes the
    chain adaptive and not exactly invariant (as in AliasLDA/LightLDA); the tests in
    tests/glda/test_glda_alias_stale_bias.py measure the bias of the corpus-order scan.
    It shrinks with smaller ``rebuild_every`` and vanishes for frozen tables.

    Tokens are visited as ``order[start:stop]`` lists them. In corpus order (the
    paper's scan, ``scan="document"`` of the sampler) a table serves tokens of other
    documents, visited after other words' tokens have moved. In word order
    (``order = word_tok``, with ``uses`` reset to -1 and ``rebuild_every`` huge before
    each sweep) each word's table is built just before its first token and serves only
    the word's own tokens in a row: the table is then a function of the other words'
    topics, which do not change while it is in use, so every MH step has a fixed
    proposal given the rest of the state and the sweep leaves the posterior exactly
    invariant (``scan="word"``, the sampler's default). There the table's density of a
    topic outside ``C`` is also its current density, so ``q = p``: each token gets an
    exact Gibbs draw, and every MH step accepts.

    ``broken`` exists only to test that the stationarity test detects a wrong
    sampler: 1 = always accept (the token takes the last proposal, as in the
    reference Java code), 2 = log-densities in place of densities in the ratio.

    ``stats[0] += proposals``, ``stats[1] += accepted`` (a proposal equal to the
    current topic counts as accepted), ``stats[2] += table rebuilds``.
    ``work`` needs ``3 * D + 7 * K`` floats, ``iwork`` ``7 * K`` int64, ``doc_top`` and
    ``doc_pos`` ``(n_docs, K)`` and ``doc_len`` ``(n_docs,)`` int32 (filled here: each
    document's topics with tokens, so the document term costs O(topics in the document),
    not O(K); see :mod:`bayeswe.kernels.topic_lists`). ``n_wk[w, k]``
    counts word ``w``'s tokens in topic ``k`` on entry and is kept in step. ``tcache``
    (a :class:`.structs.DensityCache`) holds densities of the topics at the current
    word's vector and their keys (see ``_token_log_t``); on entry ``keys`` rows 0 and 2
    must be -1 and row 4 zero.

    ``cumulative``: tables are stored as cumulative sums and drawn from by bisection
    instead of Vose's alias method (the sampler sets it for ``scan="word"``, where each
    table serves only its word's tokens of one sweep, so building it costs more than
    drawing from it); ``alias_prob[w]`` then holds the cumulative sums and ``alias_idx``
    is not touched.

    ``precision``: the Mahalanobis distances come from the precision cache (``P`` ...
    ``xx`` as in :func:`.cgs.sweep_cgs_precision`, kept in step by
    :func:`.precision.topic_move_precision`) instead of forward substitutions with the factors;
    with ``precision=False`` the cache arrays are not touched (may be empty).

    ``blocks`` (the scan by word only: ``order`` is the tokens grouped by word, word
    ``w``'s at ``order[word_start[w]:word_start[w + 1]]``): before a word's first token,
    one word-type block move of :mod:`.blocks` (the same move as
    :func:`.blocks.sweep_type_blocks`, on the state of that moment), from the distances
    of ``v_w`` to every topic that the word's table is then built from, so the move costs
    O(K) beyond them. ``block_stats`` accumulates as that function's ``stats``;
    ``broken_blocks`` is its ``broken``.

    ``word_lists`` (the paper's scan): the set C comes from per-word lists of the topics
    that hold the word's tokens (``word_top``, ``word_pos``, ``word_len``: (V, K), (V, K)
    and (V,) int32, as in :mod:`bayeswe.kernels.topic_lists`, filled from ``n_wk`` when
    ``fill_word_lists`` and kept in step with every move), so a token costs O(the
    word's topics) there. Without them the word's row of ``n_wk`` is read over all K
    topics whenever the word changes, which in corpus order is almost every token. The
    scan by word reads the row once per word and sweep, next to its table build, and
    passes ``word_lists=False`` (the arrays may then be empty).
    """
    K = alpha.shape[0]
    D = emb.shape[1]
    y = work[2 * D : 3 * D]
    fresh_lt = work[3 * D : 3 * D + K]
    doc_w = work[3 * D + K : 3 * D + 2 * K]
    scaled = work[3 * D + 2 * K : 3 * D + 3 * K]
    doc_topics = iwork[:K]
    small = iwork[K : 2 * K]
    large = iwork[:K]  # used only while building, when doc_topics is not live
    # fresh_lt[k] is valid for this token iff stamp[k] == i
    stamp = iwork[4 * K : 5 * K]
    Qall = work[3 * D + 3 * K : 3 * D + 4 * K]
    log_alpha = work[3 * D + 4 * K : 3 * D + 5 * K]
    word_in_topic = work[3 * D + 5 * K : 3 * D + 6 * K]
    copy_w = work[3 * D + 6 * K : 3 * D + 7 * K]
    # copy_mark[k] == i: topic k holds other tokens of token i's word (the set C)
    copy_mark = iwork[5 * K : 6 * K]
    copy_topics = iwork[2 * K : 3 * K]
    # the topics that hold tokens of word w_owner (a superset of C: entries whose count
    # fell to zero stay), so the set C costs O(its size) per token while the word repeats
    w_top = iwork[3 * K : 4 * K]
    w_mark = iwork[6 * K : 7 * K]  # w_mark[k] == w_owner: k is in w_top
    tdens, tkeys = tcache
    w_len = 0
    w_owner = -1
    for k in range(K):
        stamp[k] = -1
        copy_mark[k] = -1
        w_mark[k] = -1
        log_alpha[k] = math.log(alpha[k])
    fill_topic_lists(n_dk, doc_top, doc_pos, doc_len)
    # log(n) for the counts of the fresh document term (n <= the longest document)
    longest = 0
    if fresh_doc:
        for dd in range(n_dk.shape[0]):
            longest = max(longest, n_dk[dd].sum())
    log_count = np.empty(longest + 1)
    for n in range(longest + 1):
        log_count[n] = math.log(n) if n > 0 else -math.inf
    if word_lists and fill_word_lists:
        fill_topic_lists(n_wk, word_top, word_pos, word_len)
    # broken = -1: the general code below with a correct MH step (tests compare it with
    # the fast path, which serves fresh_doc=False)
    fast = not fresh_doc and broken == 0
    xx_owner = -1  # the word whose vector's outer product xx holds (precision only)
    q_word = -1  # Qall holds v_{q_word}'s distances to the current topics
    block_w = -1
    # block-move scratch (empty without blocks: numba types every path)
    nk = K if blocks else 0
    nd_blocks = n_dk.shape[0] if blocks else 0
    cand = np.empty(nk, dtype=np.int64)
    block_logq = np.empty(nk)
    doc_count = np.zeros(nd_blocks, dtype=np.int64)
    block_docs = np.empty(nd_blocks, dtype=np.int64)
    block_work = np.empty(2 * D)
    for pos in range(start, stop):
        i = order[pos]
        d = tok_doc[i]
        w = tok_word[i]
        x = emb[w]
        if blocks and w != block_w:
            block_w = w
            if precision and xx_owner != w:
                _outer_packed(x, xx)
                xx_owner = w
            _block_move_word(
                w, x, word_start[w], word_start[w + 1], order, z, tok_doc, n_dk, n_wk, alpha,
                mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, precision, P, Pp,
                Pmu, muPmu, moves, W, xx, Qall, y, kappa0, lg_nu, cand, block_logq, doc_count,
                block_docs, doc_top, doc_pos, doc_len, tkeys, rng, block_stats, broken_blocks,
                block_work,
            )  # fmt: skip
            q_word = w
        s = z[i]
        n_dk[d, s] -= 1
        if n_dk[d, s] == 0:
            list_remove(d, s, doc_top, doc_pos, doc_len)
        rebuild = uses[w] < 0 or uses[w] >= rebuild_every
        if precision and (rebuild or not fast):
            if xx_owner != w:
                _outer_packed(x, xx)  # else built when first needed
                xx_owner = w
        if rebuild or not fast:
            # the token stays in topic s; its fresh density under s without it comes
            # from its Mahalanobis distance under the current topic s (_log_t_without)
            fresh_lt[s] = _token_log_t(s, s, w, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd,
                                       kappa_k, nu_k, logdet, tconst, tscale, texp, y,
                                       tdens, tkeys)  # fmt: skip
            stamp[s] = i
        if rebuild:
            if q_word != w:  # else the block move left them, current
                _all_topic_quads(x, precision, Pp, Pmu, muPmu, xx, mu, R, invd, y, Qall)
            q_word = -1
            for k in range(K):
                word_in_topic[k] = n_wk[w, k]
                # the distances give every topic's current density at v_w (and, where the
                # word has tokens, without one of them): kept for this word's tokens
                # until the topic changes
                tdens[0, k] = tconst[k] - texp[k] * math.log1p(Qall[k] * tscale[k])
                tkeys[0, k] = w
                tkeys[1, k] = tkeys[4, k]
                if n_wk[w, k] > 0:
                    tdens[1, k] = _log_t_without(k, Qall[k], D, kappa_k, nu_k, logdet)
                    tkeys[2, k] = w
                    tkeys[3, k] = tkeys[4, k]
            _build_alias(
                w, Qall, alpha, stale_logw, stale_logq, stale_t,
                alias_prob, alias_idx, scaled, small, large, word_in_topic, kappa_k, nu_k,
                logdet, D, tdens[0], log_alpha, cumulative,
            )  # fmt: skip
            uses[w] = 0
            stats[2] += 1
        uses[w] += 1
        row = stale_logw[w]
        lin = stale_t[w]
        # The proposal, relative to the table's mass (log scale: stale_logq[w]):
        #   q(k) ∝ (n_dk + alpha_k) t(v | k)          for k in C,
        #   q(k) ∝ n_dk t'(v | k) + alpha_k t~(v | k)  otherwise,
        # C the topics that hold other tokens of word w (the table's t~ is of each topic
        # without them). Under the target a token is drawn to its word's other copies,
        # so for those topics the proposal takes the fresh density: with t~ there the
        # ratio p / q of a topic holding many copies is huge in many dimensions, and an
        # independence sampler leaves such a state only with probability ~ q / p. C and
        # these densities leave token i out, so q still does not depend on its topic.
        logq = stale_logq[w]
        if not word_lists and w_owner != w:
            for j in range(w_len):
                w_mark[w_top[j]] = -1
            w_len = 0
            for k in range(K):
                if n_wk[w, k] > 0:
                    w_top[w_len] = k
                    w_len += 1
                    w_mark[k] = w
            w_owner = w
        nc = 0
        a_copy = 0.0  # alias mass of the topics in C, in units of the table's mass
        m_ref = 0.0  # reference for the weights: the table's mass or a larger one
        for j in range(word_len[w] if word_lists else w_len):
            k = word_top[w, j] if word_lists else w_top[j]
            c = n_wk[w, k] - (1 if k == s else 0)
            if c > 0:
                if precision and xx_owner != w:
                    _outer_packed(x, xx)
                    xx_owner = w
                if stamp[k] != i:
                    # _token_log_t written out: every token reaches this, and the inlined
                    # call would rebind its twenty array arguments with atomic
                    # reference-count pairs, which cost more than the density (measured)
                    ver = tkeys[4, k]
                    if k == s and tkeys[2, k] == w and tkeys[3, k] == ver:
                        lt = tdens[1, k]
                    elif k != s and tkeys[0, k] == w and tkeys[1, k] == ver:
                        lt = tdens[0, k]
                    else:
                        if precision:
                            q = _one_topic_quad(k, x, Pp, Pmu, muPmu, xx)
                        else:
                            q = _forward_sqnorm(R[k], invd[k], x, mu[k], y)
                        if k == s:
                            lt = _log_t_without(k, q, D, kappa_k, nu_k, logdet)
                            tdens[1, k] = lt
                            tkeys[2, k] = w
                            tkeys[3, k] = ver
                        else:
                            lt = tconst[k] - texp[k] * math.log1p(q * tscale[k])
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
        if word_lists and nc > 1:
            # a word's list is in the order of past moves, and a resumed run refills it
            # in topic order: C is put in topic order so that the draws depend on the
            # state alone (insertion sort: C holds the few topics of one word's tokens)
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
        # document term of the topics outside C
        nd = 0
        if fresh_doc:
            for j in range(doc_len[d]):
                k = doc_top[d, j]
                if copy_mark[k] != i:
                    doc_topics[nd] = k
                    nd += 1
            m_ref = _doc_log_weights(nd, doc_topics, d, i, x, n_dk, precision, Pp, Pmu, muPmu,
                                     xx, mu, R, invd, tconst, tscale, texp, y, stamp,
                                     fresh_lt, doc_w, log_count, logq, m_ref)  # fmt: skip
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
        total = p_copy + p_doc + p_alias
        cur = s
        if not fast:
            lp_cur = math.log(n_dk[d, s] + alpha[s]) + fresh_lt[s]
            lq_cur = _log_q(s, d, n_dk, fresh_doc, copy_mark[s] == i, fresh_lt, row, lin,
                            alpha, logq)  # fmt: skip
        for _ in range(mh_steps):
            u = rand_uniform(rng) * total
            if u < p_copy:
                t = copy_topics[nc - 1]
                acc = 0.0
                for j in range(nc):
                    acc += copy_w[j]
                    if u < acc:
                        t = copy_topics[j]
                        break
            elif u < p_copy + p_doc:
                u -= p_copy
                t = doc_topics[nd - 1]
                acc = 0.0
                for j in range(nd):
                    acc += doc_w[j]
                    if u < acc:
                        t = doc_topics[j]
                        break
            else:
                # the table restricted to topics outside C, by rejection (exact); after
                # 64 rejections, by a linear scan of the same weights
                t = -1
                for _try in range(64):
                    if cumulative:
                        t = _bisect(alias_prob[w], rand_uniform(rng))
                    else:
                        col = int(rand_uniform(rng) * K)
                        if col >= K:
                            col = K - 1
                        t = col if rand_uniform(rng) < alias_prob[w, col] else alias_idx[w, col]
                    if copy_mark[t] != i:
                        break
                    t = -1
                if t < 0:
                    u = rand_uniform(rng) * (1.0 - a_copy)
                    acc = 0.0
                    for k in range(K):
                        if copy_mark[k] != i:
                            t = k
                            acc += alpha[k] * lin[k]
                            if u < acc:
                                break
            stats[0] += 1
            if t == cur:
                stats[1] += 1
                continue
            if precision and xx_owner != w:
                _outer_packed(x, xx)
                xx_owner = w
            if stamp[s] != i:
                fresh_lt[s] = _token_log_t(s, s, w, x, precision, Pp, Pmu, muPmu, xx, mu, R,
                                           invd, kappa_k, nu_k, logdet, tconst, tscale, texp, y,
                                           tdens, tkeys)  # fmt: skip
                stamp[s] = i
            if stamp[t] != i:
                fresh_lt[t] = _token_log_t(t, s, w, x, precision, Pp, Pmu, muPmu, xx, mu, R,
                                           invd, kappa_k, nu_k, logdet, tconst, tscale, texp, y,
                                           tdens, tkeys)  # fmt: skip
                stamp[t] = i
            if fast:
                # q(k) ∝ (n_dk + alpha_k) g(k), g the fresh density in C and the table's
                # elsewhere, so the count factors cancel in p(t) q(c) / (p(c) q(t))
                log_ratio = 0.0
                if copy_mark[t] != i:
                    log_ratio += fresh_lt[t] - (row[t] - log_alpha[t])
                if copy_mark[cur] != i:
                    log_ratio -= fresh_lt[cur] - (row[cur] - log_alpha[cur])
                if math.log(rand_uniform(rng)) < log_ratio:
                    cur = t
                    stats[1] += 1
                continue
            lp_t = math.log(n_dk[d, t] + alpha[t]) + fresh_lt[t]
            lq_t = _log_q(t, d, n_dk, fresh_doc, copy_mark[t] == i, fresh_lt, row, lin, alpha,
                          logq)  # fmt: skip
            ua = rand_uniform(rng)
            if broken == 1:
                accept = True
            elif broken == 2:
                # log-densities used as if they were densities (the Java bug)
                accept = ua * lp_cur * math.exp(lq_t) < lp_t * math.exp(lq_cur)
            else:
                accept = math.log(ua) < (lp_t - lp_cur) + (lq_cur - lq_t)
            if accept:
                cur = t
                lp_cur = lp_t
                lq_cur = lq_t
                stats[1] += 1
        if cur == s:
            # most tokens keep their topic: only the count returns. _finish_token is not
            # entered then, because numba's inlining rebinds each of its array arguments
            # with an atomic reference-count pair, which cost more than the rest of such a
            # token (measured)
            n_dk[d, s] += 1
        else:
            _finish_token(i, d, s, cur, w, x, z, n_dk, n_wk, tkeys, precision, mu, R, invd,
                          logdet, kappa_k, nu_k, tconst, tscale, texp, P, Pp, Pmu, muPmu, moves,
                          W, work)  # fmt: skip
        if n_dk[d, cur] == 1:
            list_add(d, cur, doc_top, doc_pos, doc_len)
        if word_lists:
            if cur != s:
                if n_wk[w, s] == 0:
                    list_remove(w, s, word_top, word_pos, word_len)
                if n_wk[w, cur] == 1:
                    list_add(w, cur, word_top, word_pos, word_len)
        elif w_mark[cur] != w:
            w_top[w_len] = cur
            w_len += 1
            w_mark[cur] = w


@njit(cache=True)
def _block_move_word(
    w: int,
    x: np.ndarray,
    lo: int,
    hi: int,
    order: np.ndarray,
    z: np.ndarray,
    tok_doc: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    alpha: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    precision: bool,
    P: np.ndarray,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    moves: np.ndarray,
    W: np.ndarray,
    xx: np.ndarray,
    Qall: np.ndarray,
    y: np.ndarray,
    kappa0: float,
    lg_nu: np.ndarray,
    cand: np.ndarray,
    logq: np.ndarray,
    doc_count: np.ndarray,
    docs: np.ndarray,
    doc_top: np.ndarray,
    doc_pos: np.ndarray,
    doc_len: np.ndarray,
    tkeys: np.ndarray,
    rng: np.ndarray,
    stats: np.ndarray,
    broken: int,
    work: np.ndarray,
) -> None:
    # One block move of word w (tokens order[lo:hi], none yet visited in this sweep),
    # as in blocks.sweep_type_blocks; leaves Qall = v_w's distances to every topic after
    # it, for the word's table. xx must hold v_w's outer product (precision only).
    D = x.shape[0]
    _all_topic_quads(x, precision, Pp, Pmu, muPmu, xx, mu, R, invd, y, Qall)
    n_w = hi - lo
    if n_w < 2:
        return
    stats[0] += 1
    k = z[order[lo + int(rand_uniform(rng) * n_w)]]
    m = n_wk[w, k]
    n_cand = block_candidates(
        k, m, Qall, n_wk[w], kappa_k, nu_k, logdet, kappa0, D, lg_nu, cand, logq, broken
    )
    if n_cand < 2:
        return
    j, n_docs = block_accepts(k, lo, hi, order, z, tok_doc, n_dk, alpha, cand, logq, n_cand,
                              doc_count, docs, rng, broken)  # fmt: skip
    if j >= 0:
        for b in range(n_docs):
            d = docs[b]
            c = doc_count[d]
            n_dk[d, k] -= c
            if n_dk[d, k] == 0:
                list_remove(d, k, doc_top, doc_pos, doc_len)
            if n_dk[d, j] == 0:
                list_add(d, j, doc_top, doc_pos, doc_len)
            n_dk[d, j] += c
        relabel_group(
            k,
            j,
            m,
            x,
            lo,
            hi,
            order,
            z,
            Topics(mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp),
            work,
        )
        n_wk[w, k] -= m
        n_wk[w, j] += m
        tkeys[4, k] += 1  # both topics changed: their cached densities are void
        tkeys[4, j] += 1
        for side in range(2):
            t = k if side == 0 else j
            if precision:
                # m copies at once: the cache is recomputed from the factor (O(D^3))
                moves[t] = 0
                precision_from_factor(t, R, mu, P, Pp, Pmu, muPmu, W)
            Qall[t] = _topic_quad(t, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd, y)
        stats[1] += 1
        stats[2] += m
    for b in range(n_docs):
        doc_count[docs[b]] = 0


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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
    precision: bool,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    logdet: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    P: np.ndarray,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    moves: np.ndarray,
    W: np.ndarray,
    work: np.ndarray,
) -> None:
    # token i (in topic s, counted out of n_dk[d]) ends in topic cur: move it if needed
    n_dk[d, cur] += 1
    if cur != s:
        n_wk[w, s] -= 1
        n_wk[w, cur] += 1
        tkeys[4, s] += 1  # both topics changed: their cached densities are void
        tkeys[4, cur] += 1
    if cur != s and precision:
        topics = Topics(mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp)
        cache = PrecisionCache(P, Pp, Pmu, muPmu, moves, W, W[0])
        topic_move_precision(s, x, -1.0, topics, cache, work)
        topic_move_precision(cur, x, 1.0, topics, cache, work)
        z[i] = cur
    elif cur != s:
        topic_move(s, x, -1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
        topic_move(cur, x, 1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
        z[i] = cur


@njit(cache=True, inline="always")
def _topic_quad(
    k: int,
    x: np.ndarray,
    precision: bool,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    xx: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    y: np.ndarray,
) -> float:
    # x's Mahalanobis distance to topic k: from the precision cache (xx must hold x's
    # outer product) or by forward substitution with the Cholesky factor
    if precision:
        return _one_topic_quad(k, x, Pp, Pmu, muPmu, xx)
    return _forward_sqnorm(R[k], invd[k], x, mu[k], y)


@njit(cache=True, inline="always")
def _all_topic_quads(
    x: np.ndarray,
    precision: bool,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    xx: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    y: np.ndarray,
    Qall: np.ndarray,
) -> None:
    # _topic_quad for every topic into Qall; the precision form also fills xx
    if precision:
        all_topics_quad(x, Pp, Pmu, muPmu, xx, Qall)
    else:
        for k in range(Qall.shape[0]):
            Qall[k] = _forward_sqnorm(R[k], invd[k], x, mu[k], y)


@njit(cache=True, inline="always")
def _fresh_log_t_without(
    s: int,
    x: np.ndarray,
    precision: bool,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    xx: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    logdet: np.ndarray,
    y: np.ndarray,
) -> float:
    # eq. (1) under topic s without the token x that it holds; xx as in _fresh_log_t
    q = _topic_quad(s, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd, y)
    return _log_t_without(s, q, x.shape[0], kappa_k, nu_k, logdet)


@njit(cache=True, inline="always")
def _token_log_t(
    k: int,
    s: int,
    w: int,
    x: np.ndarray,
    precision: bool,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    xx: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    logdet: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    y: np.ndarray,
    tdens: np.ndarray,
    tkeys: np.ndarray,
) -> float:
    # eq. (1) under topic k for a token of word w (vector x) that sits in topic s (left
    # out of it). A topic's density at v_w, and its density without one token of w, are
    # the same for all of w's tokens until the topic changes: tdens keeps them per
    # topic (row 0 with the token, row 1 without), keyed in tkeys by the word (rows 0,
    # 2) and the topic's version (rows 1, 3; row 4 the current one, bumped by every
    # move), so
    # the scan by word computes each once per word and topic state. xx must hold x's
    # outer product (precision only). sweep_alias writes this body out for the set C:
    # keep the two in step (tests/glda/test_glda_alias_densities.py compares every
    # density either gives with eq. (1) from scratch).
    ver = tkeys[4, k]
    if k == s:
        if tkeys[2, k] == w and tkeys[3, k] == ver:
            return tdens[1, k]
        v = _fresh_log_t_without(s, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd, kappa_k,
                                 nu_k, logdet, y)  # fmt: skip
        tdens[1, k] = v
        tkeys[2, k] = w
        tkeys[3, k] = ver
        return v
    if tkeys[0, k] == w and tkeys[1, k] == ver:
        return tdens[0, k]
    v = _fresh_log_t(k, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd, tconst, tscale, texp, y)
    tdens[0, k] = v
    tkeys[0, k] = w
    tkeys[1, k] = ver
    return v


@njit(cache=True, inline="always")
def _fresh_log_t(
    k: int,
    x: np.ndarray,
    precision: bool,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    xx: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    y: np.ndarray,
) -> float:
    # eq. (1) under topic k with the current parameters; xx must hold x's outer product
    q = _topic_quad(k, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd, y)
    return tconst[k] - texp[k] * math.log1p(q * tscale[k])


@njit(cache=True, inline="always")
def _doc_log_weights(
    nd: int,
    doc_topics: np.ndarray,
    d: int,
    i: int,
    x: np.ndarray,
    n_dk: np.ndarray,
    precision: bool,
    Pp: np.ndarray,
    Pmu: np.ndarray,
    muPmu: np.ndarray,
    xx: np.ndarray,
    mu: np.ndarray,
    R: np.ndarray,
    invd: np.ndarray,
    tconst: np.ndarray,
    tscale: np.ndarray,
    texp: np.ndarray,
    y: np.ndarray,
    stamp: np.ndarray,
    fresh_lt: np.ndarray,
    doc_w: np.ndarray,
    log_count: np.ndarray,
    logq: float,
    m_ref: float,
) -> float:
    # The fresh document term of token i: doc_w[j] = log(n_dk t(x | k)) - logq for the
    # topics k = doc_topics[:nd] (outside C), and the largest of them and m_ref. Each
    # density is computed here directly, not through _token_log_t's per-topic cache: in
    # corpus order the word changes at almost every token, so that cache seldom holds
    # one. Skipping it and taking log counts from a table (measured together) made these
    # sweeps about a third cheaper at K = 100 in 10 dimensions. The token's own topic s has
    # its density without the token stamped already (stamp[s] == i), as _token_log_t
    # gives it; every other topic's is _fresh_log_t, as there.
    for j in range(nd):
        k = doc_topics[j]
        if stamp[k] != i:
            fresh_lt[k] = _fresh_log_t(k, x, precision, Pp, Pmu, muPmu, xx, mu, R, invd,
                                       tconst, tscale, texp, y)  # fmt: skip
            stamp[k] = i
        v = log_count[n_dk[d, k]] + fresh_lt[k] - logq
        doc_w[j] = v
        if v > m_ref:
            m_ref = v
    return m_ref


@njit(cache=True, inline="always")
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
    # log of the unnormalised proposal weight of topic k (see sweep_alias), minus logq:
    # (n_dk + alpha_k) t(x|k) in C, n_dk t'(x|k) + alpha_k t~(x|k) elsewhere
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
