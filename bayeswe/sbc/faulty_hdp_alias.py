"""A deliberately wrong alias sweep of HDP-LDA, for power checks only.

:func:`step` is :func:`bayeswe.samplers.hdp_lda.step_alias` whose word term is drawn
from the stale alias table as if it were current: the touched topics ``M`` are not
corrected (no rejection, no excess part) and the table's total stands for the word
term's mass. The table is built once per word and sweep, at the word's first token
before that token is removed, so it counts every token of the word where it was: each
token sees itself and its neighbours at their old topics. The SBC
power check (``hdp-lda-alias-stale`` in :data:`bayeswe.sbc.cases.BROKEN`) and the
enumeration test must reject it. The token loop is the production one of
:func:`bayeswe.kernels.hdp_alias.sweep_by_word` with that draw swapped.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bayeswe.kernels.hdp_alias import (
    alias_draw,
    build_table,
    doc_decrement,
    doc_increment,
    fill_doc_lists,
    touch,
    word_term,
)
from bayeswe.kernels.hdp_lda import beta_draw
from bayeswe.kernels.hdp_structs import AliasTable, Counts, DocLists, Topics, WordLists, WordOrder
from bayeswe.kernels.lda_cgs import next_double
from bayeswe.kernels.topic_lists import list_add, list_remove
from bayeswe.samplers import hdp_lda as hdp

__all__ = ["step"]


@njit(cache=True, nogil=True)
def _sweep_stale(
    order: WordOrder, counts: Counts, lists: WordLists, docs: DocLists, topics: Topics,
    table: AliasTable, alpha0: float, gamma: float, eta: float, rebuild_every: int,
    rng: np.ndarray, start: int,
) -> int:  # fmt: skip
    word_ptr, token, tdoc = order.word_ptr, order.token, order.doc
    z, n_dk, n_wk, n_k = counts.z, counts.n_dk, counts.n_wk, counts.n_k
    beta, free = topics.beta, topics.free
    beta_u, n_free = topics.rest[0], topics.n_free[0]
    C, V = n_k.size, n_wk.shape[0]
    veta = V * eta
    inv = np.empty(C)
    for k in range(C):
        inv[k] = 1.0 / (n_k[k] + veta)
    rcum = np.empty(C)
    N = token.size
    stop = N
    first = 0
    while first < V and word_ptr[first + 1] <= start:
        first += 1
    for w in range(first, V):
        uses = -1
        for p in range(max(start, word_ptr[w]), word_ptr[w + 1]):
            if n_free == 0:
                stop = p
                break
            i = token[p]
            d, k = tdoc[i], z[i]
            if uses < 0:  # built with the token still counted where it is
                build_table(table, w, n_wk, inv, beta, alpha0, eta)
                uses = 0
            n_dk[d, k] -= 1
            n_wk[w, k] -= 1
            n_k[k] -= 1
            inv[k] = 1.0 / (n_k[k] + veta)
            if n_k[k] == 0:
                beta_u += beta[k]
                beta[k] = 0.0
                free[n_free] = k
                n_free += 1
            doc_decrement(docs, d, k)
            if n_wk[w, k] == 0:
                list_remove(w, k, lists.topic, lists.pos, lists.length)
            touch(table, k, word_term(k, w, n_wk, inv, beta, alpha0, eta))
            uses += 1
            r = 0.0
            m = docs.length[d]
            for j in range(m):
                t = docs.topic[d, j]
                r += docs.count[d, j] * (n_wk[w, t] + eta) * inv[t]
                rcum[j] = r
            new = alpha0 * beta_u / V
            u = next_double(rng) * (r + new + table.sums[0])
            if u < r:
                j = 0
                while j < m - 1 and rcum[j] <= u:
                    j += 1
                k = docs.topic[d, j]
            elif u < r + new:
                k = -1
            else:
                while True:  # THE FAULT: the stale table taken as the current word term
                    k = alias_draw(table.prob, table.alias, rng)
                    if beta[k] > 0.0:  # never a free slot
                        break
            if k < 0:
                n_free -= 1
                k = free[n_free]
                b = beta_draw(1.0, gamma, rng)
                beta[k] = b * beta_u
                beta_u *= 1.0 - b
            z[i] = k
            n_dk[d, k] += 1
            n_wk[w, k] += 1
            n_k[k] += 1
            inv[k] = 1.0 / (n_k[k] + veta)
            doc_increment(docs, d, k)
            if n_wk[w, k] == 1:
                list_add(w, k, lists.topic, lists.pos, lists.length)
            touch(table, k, word_term(k, w, n_wk, inv, beta, alpha0, eta))
        if stop < N:
            break
    topics.rest[0] = beta_u
    topics.n_free[0] = n_free
    return stop


def step(problem: hdp.HDPProblem, state: hdp.HDPState) -> hdp.HDPState:
    """:func:`bayeswe.samplers.hdp_lda.step_alias` with the uncorrected stale table."""
    from bayeswe.kernels import hdp_alias

    position, N = 0, problem.n_tokens
    while True:
        C, D = state.capacity, problem.n_docs
        docs = DocLists(
            np.zeros((D, C), np.int32), np.zeros((D, C), np.int32), np.zeros(D, np.int32),
            np.zeros((D, C), np.int32),
        )  # fmt: skip
        fill_doc_lists(state.counts.n_dk, docs)
        position = _sweep_stale(
            problem.word_order, state.counts, state.lists, docs, state.topics,
            hdp_alias.new_table(C), state.alpha0, state.gamma, problem.eta, 0,
            state.rng_state, position,
        )  # fmt: skip
        if position >= N:
            break
        hdp._grow(state)
    return hdp._update_weights(problem, state)
