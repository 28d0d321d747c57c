"""Alias-table kernels for HDP-LDA: the word term of the conditional from a stale alias table.

The conditional of a token's topic in the direct-assignment sampler
(:mod:`bayeswe.kernels.hdp_lda`, eq. 1 there) splits as in Li, Ahmed, Ravi and Smola
(2014, "Reducing the sampling complexity of topic models", KDD, section 3.3, AliasHDP)::

    p(z_i = k) ∝ n_dk f_k(w)                     document term, sparse: k in document d
               + alpha0 beta_k f_k(w)            word term, dense: a per-word alias table
    p(z_i = new) ∝ alpha0 beta_u / V             new topic                              (2)

with ``f_k(w) = (n_wk + eta) / (n_k + V eta)``, every count without token ``i``.

Why the scan is by word. Li et al. build a word's table from the counts of one moment
and reuse it for later tokens of the word, correcting by Metropolis-Hastings. A table
so built depends on the past topics of the tokens it later serves, so their proposal
depends on past states and the chain is adaptive, not exactly invariant (the Gaussian
LDA sampler's ``scan="document"`` measures this bias). Here a sweep visits the tokens
word by word instead (:class:`~bayeswe.kernels.hdp_structs.WordOrder`). While word
``w``'s tokens are visited, only they move, so the word term of a topic ``k`` can differ
from the table's ``t_k`` only for topics ``k`` whose count ``n_wk``, total ``n_k`` or
weight ``beta_k`` changed since the build: at most the two topics of each move, plus
topics born or removed. The kernel keeps that set ``M`` of touched topics with their
current word terms ``c_k`` and draws the word term exactly as a two-part mixture:

* ``min(c_k, t_k)``, mass ``T - sum_M (t_k - c_k)+``: draw ``k`` from the table and,
  for ``k`` in ``M``, keep it with probability ``min(1, c_k / t_k)``, else draw again
  (rejection sampling: the table is a fixed proposal for the whole loop);
* ``(c_k - t_k)+`` over ``M``: a walk over ``M``.

Every draw is therefore a draw from the exact conditional (2) whatever the table's age:
births, removals and the changing ``beta_u`` are in ``M`` or in the new-topic term,
computed afresh. The table is rebuilt at each word's first token in a sweep, after
``rebuild_every`` of its tokens (0: as many as there are topics, Li et al.'s
amortization of the ``O(C)`` build), and when the
touched topics have taken half its mass (the rejection loop would slow down). A
rebuild changes the cost of a draw, never its distribution. The document term is
summed over the document's topics (:class:`~bayeswe.kernels.hdp_structs.DocLists`).

Per token: ``O(K_d)`` for the document term plus ``O(1)`` expected for the word term
(and ``O(|M|)`` when the draw falls in the excess part); per word and sweep, one
``O(C)`` table. :func:`bayeswe.kernels.hdp_lda.sweep` spends ``O(K_w)`` per token on the
word's topics and ``O(C)`` per document.

Random numbers: the chain's xoshiro256+ stream (:func:`bayeswe.kernels.lda_cgs.next_double`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bayeswe.kernels.hdp_lda import beta_draw
from bayeswe.kernels.hdp_structs import AliasTable, Counts, DocLists, Topics, WordLists, WordOrder
from bayeswe.kernels.lda_cgs import next_double
from bayeswe.kernels.topic_lists import fill_topic_lists, list_add, list_remove

__all__ = ["alias_draw", "build_alias", "fill_doc_lists", "new_table", "sweep_by_word"]

# Slots of AliasTable.sums: the table's total T, the deficit sum_M (t - c)+ and the
# excess sum_M (c - t)+.
_TOTAL, _DEFICIT, _EXCESS = 0, 1, 2


def new_table(capacity: int) -> AliasTable:
    """An empty table of ``capacity`` slots."""
    C = int(capacity)
    return AliasTable(
        weight=np.zeros(C),
        prob=np.zeros(C),
        alias=np.zeros(C, dtype=np.int32),
        current=np.zeros(C),
        touched=np.zeros(C, dtype=np.bool_),
        members=np.zeros(C, dtype=np.int32),
        sums=np.zeros(3),
        n_members=np.zeros(1, dtype=np.int64),
        work=np.zeros(2 * C, dtype=np.int32),
    )


@njit(cache=True, nogil=True)
def fill_doc_lists(n_dk: np.ndarray, docs: DocLists) -> None:
    """Set ``docs`` to the topic lists of ``n_dk`` and their counts."""
    fill_topic_lists(n_dk, docs.topic, docs.pos, docs.length)
    for d in range(n_dk.shape[0]):
        for j in range(docs.length[d]):
            docs.count[d, j] = n_dk[d, docs.topic[d, j]]


@njit(cache=True, inline="always")
def doc_decrement(docs: DocLists, d: int, k: int) -> None:
    """One token of document ``d`` left topic ``k`` (``n_dk`` before the move >= 1)."""
    j = docs.pos[d, k]
    c = docs.count[d, j] - 1
    if c > 0:
        docs.count[d, j] = c
    else:
        docs.count[d, j] = docs.count[d, docs.length[d] - 1]
        list_remove(d, k, docs.topic, docs.pos, docs.length)


@njit(cache=True, inline="always")
def doc_increment(docs: DocLists, d: int, k: int) -> None:
    """One token of document ``d`` joined topic ``k``."""
    j = docs.pos[d, k]
    if j >= 0:
        docs.count[d, j] += 1
    else:
        docs.count[d, docs.length[d]] = 1
        list_add(d, k, docs.topic, docs.pos, docs.length)


@njit(cache=True, nogil=True)
def build_alias(weight: np.ndarray, prob: np.ndarray, alias: np.ndarray, work: np.ndarray) -> float:
    """Vose's alias table of the non-negative ``weight`` (Walker 1977; Vose 1991):
    ``prob[j]`` keeps slot ``j``, else ``alias[j]``. Returns the total weight."""
    C = weight.size
    total = 0.0
    for k in range(C):
        total += weight[k]
    if total <= 0.0:  # nothing to draw: the caller's mass for the table is 0
        prob[:] = 0.0
        for k in range(C):
            alias[k] = k
        return 0.0
    small, large = work[:C], work[C:]
    n_small, n_large = 0, 0
    for k in range(C):
        prob[k] = weight[k] * C / total
        alias[k] = k
        if prob[k] < 1.0:
            small[n_small] = k
            n_small += 1
        else:
            large[n_large] = k
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        s = small[n_small]
        g = large[n_large - 1]
        alias[s] = g
        prob[g] = (prob[g] + prob[s]) - 1.0
        if prob[g] < 1.0:
            n_large -= 1
            small[n_small] = g
            n_small += 1
    for j in range(n_large):
        prob[large[j]] = 1.0
    for j in range(n_small):  # rounding leftovers: keep themselves
        prob[small[j]] = 1.0
    return total


@njit(cache=True, inline="always")
def alias_draw(prob: np.ndarray, alias: np.ndarray, rng: np.ndarray) -> int:
    """A slot from the alias table, with one uniform."""
    x = next_double(rng) * prob.size
    j = int(x)
    if j >= prob.size:
        j = prob.size - 1
    return j if x - j < prob[j] else alias[j]


@njit(cache=True, inline="always")
def word_term(k: int, w: int, n_wk: np.ndarray, inv: np.ndarray, beta: np.ndarray, a0: float,
              eta: float) -> float:  # fmt: skip
    """``alpha0 beta_k f_k(w)`` of (2), 0 for a free slot (``beta_k = 0``)."""
    return a0 * beta[k] * (n_wk[w, k] + eta) * inv[k]


@njit(cache=True, nogil=True)
def build_table(
    table: AliasTable, w: int, n_wk: np.ndarray, inv: np.ndarray, beta: np.ndarray,
    alpha0: float, eta: float,
) -> None:  # fmt: skip
    """Rebuild ``table`` for word ``w`` from the current counts; no topic touched."""
    weight = table.weight
    for k in range(weight.size):
        weight[k] = word_term(k, w, n_wk, inv, beta, alpha0, eta)
    table.sums[_TOTAL] = build_alias(weight, table.prob, table.alias, table.work)
    for j in range(table.n_members[0]):
        table.touched[table.members[j]] = False
    table.n_members[0] = 0
    table.sums[_DEFICIT] = 0.0
    table.sums[_EXCESS] = 0.0


@njit(cache=True, inline="always")
def touch(table: AliasTable, k: int, c: float) -> None:
    """Topic ``k``'s word term is now ``c``: keep ``M``, the deficit and the excess."""
    t = table.weight[k]
    if table.touched[k]:
        old = table.current[k]
    else:
        old = t
        table.touched[k] = True
        table.members[table.n_members[0]] = k
        table.n_members[0] += 1
    table.sums[_DEFICIT] += max(t - c, 0.0) - max(t - old, 0.0)
    table.sums[_EXCESS] += max(c - t, 0.0) - max(old - t, 0.0)
    table.current[k] = c


@njit(cache=True, nogil=True)
def draw_word_term(table: AliasTable, rng: np.ndarray) -> int:
    """An exact draw from the current word term ``c`` (the two-part mixture above)."""
    kept = max(table.sums[_TOTAL] - table.sums[_DEFICIT], 0.0)
    excess = max(table.sums[_EXCESS], 0.0)
    weight, current, touched = table.weight, table.current, table.touched
    if next_double(rng) * (kept + excess) < kept:
        while True:  # rejection from the fixed table: accepted mass min(c, t)
            k = alias_draw(table.prob, table.alias, rng)
            t = weight[k]
            if t <= 0.0:
                continue
            if not touched[k] or current[k] >= t or next_double(rng) * t < current[k]:
                return k
    u = next_double(rng) * excess
    acc = 0.0
    last = -1
    for j in range(table.n_members[0]):
        k = table.members[j]
        extra = current[k] - weight[k]
        if extra > 0.0:
            acc += extra
            last = k
            if u < acc:
                return k
    return last


@njit(cache=True, nogil=True)
def sweep_by_word(
    order: WordOrder,
    counts: Counts,
    lists: WordLists,
    docs: DocLists,
    topics: Topics,
    table: AliasTable,
    alpha0: float,
    gamma: float,
    eta: float,
    rebuild_every: int,
    rng: np.ndarray,
    start: int,
) -> int:
    """Draw (2) for the tokens at places ``start ..`` of the word order; returns ``N``, or
    the place where no slot was free (nothing of that token changed)."""
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
        uses = -1  # build at the word's first token
        for p in range(max(start, word_ptr[w]), word_ptr[w + 1]):
            if n_free == 0:
                stop = p
                break
            i = token[p]
            d, k = tdoc[i], z[i]
            # ---- remove token i
            n_dk[d, k] -= 1
            n_wk[w, k] -= 1
            n_k[k] -= 1
            inv[k] = 1.0 / (n_k[k] + veta)
            if n_k[k] == 0:  # no longer represented: its weight joins beta_u
                beta_u += beta[k]
                beta[k] = 0.0
                free[n_free] = k
                n_free += 1
            doc_decrement(docs, d, k)
            if n_wk[w, k] == 0:
                list_remove(w, k, lists.topic, lists.pos, lists.length)
            if uses >= 0:
                touch(table, k, word_term(k, w, n_wk, inv, beta, alpha0, eta))
            limit = rebuild_every if rebuild_every > 0 else C - n_free + 1
            # rebuilt also when the deficit passes half the table: the rejection loop of
            # draw_word_term then accepts with probability >= 1/2
            if uses < 0 or uses >= limit or 2.0 * table.sums[_DEFICIT] > table.sums[_TOTAL]:
                build_table(table, w, n_wk, inv, beta, alpha0, eta)
                uses = 0
            uses += 1
            # ---- draw from (2): document term, new topic, word term
            r = 0.0
            m = docs.length[d]
            for j in range(m):
                t = docs.topic[d, j]
                r += docs.count[d, j] * (n_wk[w, t] + eta) * inv[t]
                rcum[j] = r
            new = alpha0 * beta_u / V
            word = max(table.sums[_TOTAL] - table.sums[_DEFICIT], 0.0)
            word += max(table.sums[_EXCESS], 0.0)
            u = next_double(rng) * (r + new + word)
            if u < r:
                j = 0
                while j < m - 1 and rcum[j] <= u:
                    j += 1
                k = docs.topic[d, j]
            elif u < r + new:
                k = -1
            else:
                k = draw_word_term(table, rng)
            if k < 0:  # a new topic: b ~ Beta(1, gamma) breaks beta_u
                n_free -= 1
                k = free[n_free]
                b = beta_draw(1.0, gamma, rng)
                beta[k] = b * beta_u
                beta_u *= 1.0 - b
            # ---- add token i with topic k
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
