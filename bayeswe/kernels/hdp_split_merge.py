"""Split-merge moves for HDP-LDA's direct-assignment sampler (:mod:`bayeswe.kernels.hdp_lda`).

The direct-assignment state ``(z, m, beta)`` is the Chinese restaurant franchise of Teh,
Jordan, Beal and Blei (2006, section 5.1) with the seating of each document's customers
(tokens) at its tables summarised by the counts ``m_dk``. A move on the dishes (topics)
of whole tables, in the manner of Wang and Blei (2012), is made exact in three parts:

1. **Seat the tokens.** Two anchor tokens ``i`` and ``j`` are drawn: ``i`` uniformly,
   ``j`` with probability 1/3 each uniformly among the other tokens, among the other
   tokens of ``i``'s word (a pair that shares a word makes merges of related topics
   likely) and among the other tokens of ``i``'s topic (so that splits are proposed
   whatever the number of topics: two uniform tokens share one of ``K`` topics about
   once in ``K`` draws); a word or topic without another token falls back to the
   uniform draw. The last branch depends on the state, so the probability of the
   ordered pair ``(i, j)`` under the state a move proposes, over its probability under
   the present state, enters the ratio (:func:`log_anchor_ratio`). For the dishes of
   ``i`` and ``j``, the tokens of each
   document and dish are seated afresh by the Chinese restaurant with concentration
   ``alpha0 beta_k``: the Gibbs draw of the seating given ``z`` and ``beta``, of which
   eq. (40) draws only the number of tables.
2. **Propose** on the tables of those dishes with ``beta`` integrated out. Given the
   seating, the document-level restaurant does not depend on the dishes, so the target
   of the dishes of the tables is the top-level restaurant over tables times the word
   likelihood of each dish (Teh et al. 2006, section 5.1):

       p(dishes | tables) ∝ gamma^K prod_k Gamma(m_.k) prod_k L_k,
       L_k = Gamma(V eta) / Gamma(n_k + V eta) prod_w Gamma(n_wk + eta) / Gamma(eta).

   If ``i`` and ``j`` eat the same dish, its tables are split by sequential allocation
   (Dahl 2003): ``i``'s table starts side A, ``j``'s side B, the others follow in a
   random order, each to a side with probability proportional to the side's tables
   times the predictive of the table's words given the side's words so far. If they eat
   different dishes, the merge of the two is proposed, and the probability that the same
   allocation (same anchors, a fresh random order) rebuilds the present split enters
   the ratio. The Metropolis-Hastings log ratio of a split is
   ``log p(split) - log p(merged) - log q(split)``, that of a merge its negative, where
   ``q(split)`` is the probability of the split given the merged state over that of the
   merge given the split one: the allocation's probability times the anchors' law's
   ratio.
   Anchors sharing a table cannot be split: nothing is proposed (the seating of step 1
   stands).

   **Restricted Gibbs launch** (``scans = t > 0``; Jain and Neal 2004, section 3).
   Sequential allocation draws the first tables' sides on little evidence, so a split of
   a large topic is rarely a good one and its probability ``q`` is small. With ``t``
   scans the tables are allocated sequentially and then rescanned ``t`` times, each
   table given all the others to a side with probability proportional to that side's
   other tables times the predictive of the table's words (the split target's full
   conditional): the *launch*, drawn the same way whatever the present state. The
   proposal is one more such scan from the launch, and ``log q(split)`` is that final
   scan's log probability of the split: the one it draws, for a split; the present one,
   for a merge (the launch is an auxiliary draw and leaves the ratio).
3. **Settle**: ``beta | m ~ Dirichlet(m_.1, ..., m_.K, gamma)`` afresh, by the caller
   (:func:`bayeswe.kernels.hdp_lda.sample_beta`), which completes a block update of the
   dishes and ``beta`` given the seating.

:func:`propose` does steps 1-2 up to the two log terms (``scratch.floats``);
:func:`settle` applies the decision and writes the table counts ``m_k`` of the dishes
it seated, moved or not. Random numbers: the chain's xoshiro256+ stream.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from bayeswe.kernels.hdp_structs import Corpus, Counts, Topics, WordLists, WordOrder
from bayeswe.kernels.lda_cgs import next_double
from bayeswe.kernels.topic_lists import list_add, list_remove

__all__ = [
    "MERGE",
    "NONE",
    "SPLIT",
    "Scratch",
    "allocate",
    "anchors",
    "crp_delta",
    "log_anchor_ratio",
    "new_scratch",
    "propose",
    "seat",
    "seat_anchors",
    "settle",
    "settle_slots",
]

#: What :func:`propose` proposed.
NONE, SPLIT, MERGE = 0, 1, 2

#: ``Scratch.ints`` fields.
N_SEATED, N_TABLES, TABLE_I, TABLE_J, DISH_I, DISH_J, M_A, M_B = range(8)


class Scratch(NamedTuple):
    """Working memory of one proposal (contents meaningful from :func:`propose` to
    :func:`settle` only)."""

    token: np.ndarray  #: int32 (N,): the seated tokens, dish by dish, document by document
    table: np.ndarray  #: int32 (N,): table of each seated token
    size: np.ndarray  #: int32 (N,): tokens at each table
    start: np.ndarray  #: int64 (N + 1,): each table's tokens in ``by_table``
    by_table: np.ndarray  #: int32 (N,): the seated tokens grouped by table
    side: np.ndarray  #: int8 (N,): side of each table (0: A, ``i``'s; 1: B, ``j``'s)
    kept: np.ndarray  #: int8 (N,): a merge's present sides, kept while the launch is drawn
    order: np.ndarray  #: int32 (N,): allocation order of the tables
    count: np.ndarray  #: int32 (2, V): word counts of each side (zero between proposals)
    words: np.ndarray  #: int32 (V,): the distinct words seated
    seen: np.ndarray  #: bool (V,) (False between proposals)
    ints: np.ndarray  #: int64 (8,): see the ``N_SEATED`` .. ``M_B`` indices
    #: float64 (3,): log p(split) - log p(merged); log q(split), the allocation's and the
    #: anchors' parts; the anchors' part alone (:func:`log_anchor_ratio`)
    floats: np.ndarray


def new_scratch(n_tokens: int, n_words: int) -> Scratch:
    N, V = max(int(n_tokens), 1), max(int(n_words), 1)
    return Scratch(
        np.zeros(N, np.int32), np.zeros(N, np.int32), np.zeros(N, np.int32),
        np.zeros(N + 1, np.int64), np.zeros(N, np.int32), np.zeros(N, np.int8),
        np.zeros(N, np.int8), np.zeros(N, np.int32), np.zeros((2, V), np.int32),
        np.zeros(V, np.int32), np.zeros(V, np.bool_), np.zeros(8, np.int64),
        np.zeros(3, np.float64),
    )  # fmt: skip


@njit(cache=True, inline="always")
def _uniform_index(n: int, rng: np.ndarray) -> int:
    return min(int(next_double(rng) * n), n - 1)


#: The second anchor's branch from one uniform draw ``u``: all tokens if ``u`` is below
#: ``ANCHOR_UNIFORM``, the first's word if below ``ANCHOR_WORD``, else the first's topic.
ANCHOR_UNIFORM, ANCHOR_WORD = 1.0 / 3.0, 2.0 / 3.0


@njit(cache=True, nogil=True)
def anchors(
    word_ptr: np.ndarray, by_word: np.ndarray, word: np.ndarray, z: np.ndarray,
    n_k: np.ndarray, rng: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """Tokens ``i`` and ``j != i`` (needs at least 2 tokens), the law of module step 1;
    ``by_word[word_ptr[w]:word_ptr[w + 1]]`` are the tokens of word ``w``, ``z`` and
    ``n_k`` the tokens' topics and the topics' sizes."""
    N = word.size
    i = _uniform_index(N, rng)
    w, k = word[i], z[i]
    lo, hi = word_ptr[w], word_ptr[w + 1]
    u = next_double(rng)
    if u < ANCHOR_UNIFORM or (u < ANCHOR_WORD and hi - lo < 2) or (u >= ANCHOR_WORD and n_k[k] < 2):
        j = _uniform_index(N - 1, rng)
        return i, j + 1 if j >= i else j
    if u < ANCHOR_WORD:
        while True:
            j = by_word[lo + _uniform_index(hi - lo, rng)]
            if j != i:
                return i, j
    while True:  # uniform among the topic's other tokens, by rejection
        j = _uniform_index(N, rng)
        if j != i and z[j] == k:
            return i, j


@njit(cache=True, inline="always")
def _anchor_log_prob(n_tokens: int, n_word: int, same_word: bool, n_topic: int) -> float:
    """log of the second anchor's probability given the first (``j``'s branch sum), for a
    word with ``n_word`` tokens and a first anchor's topic of ``n_topic`` tokens that
    holds ``j`` (``n_topic`` 0: it does not)."""
    uniform = 1.0 / (n_tokens - 1)
    p = ANCHOR_UNIFORM * uniform
    if n_word < 2:
        p += (ANCHOR_WORD - ANCHOR_UNIFORM) * uniform
    elif same_word:
        p += (ANCHOR_WORD - ANCHOR_UNIFORM) / (n_word - 1)
    if n_topic >= 2:
        p += (1.0 - ANCHOR_WORD) / (n_topic - 1)
    elif n_topic == 1:  # the first anchor alone in its topic: the uniform fallback
        p += (1.0 - ANCHOR_WORD) * uniform
    return math.log(p)


@njit(cache=True, inline="always")
def log_anchor_ratio(n_tokens: int, n_word: int, same_word: bool, n_a: int, n_b: int) -> float:
    """``log q(i, j | merged) - log q(i, j | split)`` for anchors ``i`` (side A, ``n_a``
    tokens) and ``j`` (side B, ``n_b``), ``n_word`` the tokens of ``i``'s word."""
    merged = _anchor_log_prob(n_tokens, n_word, same_word, n_a + n_b)
    # split: j is not in i's topic, which uses the uniform fallback only if alone
    split = _anchor_log_prob(n_tokens, n_word, same_word, 1 if n_a == 1 else 0)
    return merged - split


@njit(cache=True, nogil=True)
def seat(
    k: int, side: int, tok_ptr: np.ndarray, z: np.ndarray, n_dk: np.ndarray, a: float,
    rng: np.ndarray, sc: Scratch, n_seated: int, n_tables: int,
) -> tuple[int, int]:  # fmt: skip
    """Seat the tokens of dish ``k`` (Chinese restaurant, concentration ``a``) document
    by document, appending to the scratch; returns the new totals."""
    for d in range(n_dk.shape[0]):
        if n_dk[d, k] == 0:
            continue
        first, c = n_seated, 0
        for t in range(tok_ptr[d], tok_ptr[d + 1]):
            if z[t] != k:
                continue
            u = next_double(rng) * (a + c)
            if c == 0 or u < a:  # a new table
                tab = n_tables
                sc.size[tab] = 0
                sc.side[tab] = side
                n_tables += 1
            else:  # join the table of a uniformly chosen earlier customer
                tab = sc.table[first + min(int(u - a), c - 1)]
            sc.token[n_seated] = t
            sc.table[n_seated] = tab
            sc.size[tab] += 1
            n_seated += 1
            c += 1
    return n_seated, n_tables


@njit(cache=True, inline="always")
def _log_predictive(
    count: np.ndarray, n: int, tab: int, sc: Scratch, word: np.ndarray, eta: float, veta: float
) -> float:
    """log of the Dirichlet-multinomial predictive of table ``tab``'s words given a side's
    word counts ``count`` (left unchanged) and their total ``n``."""
    lp = 0.0
    for g in range(sc.start[tab], sc.start[tab + 1]):
        w = word[sc.by_table[g]]
        lp += math.log((count[w] + eta) / (n + veta))
        count[w] += 1
        n += 1
    for g in range(sc.start[tab], sc.start[tab + 1]):
        count[word[sc.by_table[g]]] -= 1
    return lp


@njit(cache=True, inline="always")
def _add_table(count: np.ndarray, tab: int, sc: Scratch, word: np.ndarray) -> None:
    for g in range(sc.start[tab], sc.start[tab + 1]):
        count[word[sc.by_table[g]]] += 1


@njit(cache=True, inline="always")
def _seat_table(
    tab: int, sign: int, count: np.ndarray, tokens: np.ndarray, tables: np.ndarray,
    sc: Scratch, word: np.ndarray,
) -> None:  # fmt: skip
    """Add (``sign`` 1) or remove (-1) table ``tab`` to or from its side's word counts
    ``count[side]``, tokens and tables."""
    side = sc.side[tab]
    for g in range(sc.start[tab], sc.start[tab + 1]):
        count[side, word[sc.by_table[g]]] += sign
    tokens[side] += sign * sc.size[tab]
    tables[side] += sign


@njit(cache=True, nogil=True)
def seat_anchors(
    i: int, j: int, ki: int, kj: int, a_i: float, a_j: float, tok_ptr: np.ndarray,
    z: np.ndarray, n_dk: np.ndarray, rng: np.ndarray, sc: Scratch,
) -> int:  # fmt: skip
    """Seat the anchors' dishes (``a_i``, ``a_j``: their concentrations ``alpha0 beta``),
    fill ``sc.ints``, and, unless the anchors share a table (then returns 0, with
    ``m_A`` the dish's tables), group the seated tokens by table and draw the order of
    the other tables; returns how many those are."""
    ints = sc.ints
    n_seated, n_tables = seat(ki, 0, tok_ptr, z, n_dk, a_i, rng, sc, 0, 0)
    m_i = n_tables
    if kj != ki:
        n_seated, n_tables = seat(kj, 1, tok_ptr, z, n_dk, a_j, rng, sc, n_seated, n_tables)
    ints[N_SEATED], ints[N_TABLES], ints[DISH_I], ints[DISH_J] = n_seated, n_tables, ki, kj
    ta, tb = -1, -1
    for g in range(n_seated):
        if sc.token[g] == i:
            ta = sc.table[g]
        elif sc.token[g] == j:
            tb = sc.table[g]
    ints[TABLE_I], ints[TABLE_J] = ta, tb
    if ta == tb:  # one table: no split to propose
        ints[M_A], ints[M_B] = m_i, 0
        return 0
    # the seated tokens grouped by table
    sc.start[0] = 0
    for t in range(n_tables):
        sc.start[t + 1] = sc.start[t] + sc.size[t]
    fill = sc.order  # borrowed as the fill pointers, before the order is drawn
    for t in range(n_tables):
        fill[t] = sc.start[t]
    for g in range(n_seated):
        t = sc.table[g]
        sc.by_table[fill[t]] = sc.token[g]
        fill[t] += 1
    # the other tables in a random order (Fisher-Yates)
    n_other = 0
    for t in range(n_tables):
        if t != ta and t != tb:
            sc.order[n_other] = t
            n_other += 1
    for r in range(n_other - 1, 0, -1):
        s = _uniform_index(r + 1, rng)
        sc.order[r], sc.order[s] = sc.order[s], sc.order[r]
    sc.side[ta], sc.side[tb] = 0, 1
    return n_other


@njit(cache=True, inline="always")
def allocate(la: float, lb: float, split: bool, t: int, sc: Scratch, rng: np.ndarray) -> float:
    """Side of table ``t`` from the log weights ``la``, ``lb`` of sides A and B: drawn
    for a split, kept for a merge; returns the log probability of that side."""
    top = max(la, lb)
    norm = top + math.log(math.exp(la - top) + math.exp(lb - top))
    if split:
        sc.side[t] = 0 if next_double(rng) < math.exp(la - norm) else 1
    return (la if sc.side[t] == 0 else lb) - norm


@njit(cache=True, inline="always")
def crp_delta(gamma: float, m_a: int, m_b: int) -> float:
    """The top-level restaurant's part of ``log p(split) - log p(merged)``."""
    return math.log(gamma) + math.lgamma(m_a) + math.lgamma(m_b) - math.lgamma(m_a + m_b)


@njit(cache=True, nogil=True)
def propose(
    corpus: Corpus, order: WordOrder, counts: Counts, topics: Topics,
    alpha0: float, gamma: float, eta: float, rng: np.ndarray, sc: Scratch, scans: int = 0,
) -> int:  # fmt: skip
    """Steps 1-2 of the module: returns :data:`SPLIT`, :data:`MERGE` or :data:`NONE`;
    for a split or a merge, ``sc.floats`` holds ``log p(split) - log p(merged)`` and
    ``log q(split)`` (allocation and anchors). Writes nothing but the scratch and the
    random stream."""
    word, z, beta = corpus.word, counts.z, topics.beta
    V = counts.n_wk.shape[0]
    veta = V * eta
    i, j = anchors(order.word_ptr, order.token, word, counts.z, counts.n_k, rng)
    ki, kj = z[i], z[j]
    n_other = seat_anchors(i, j, ki, kj, alpha0 * beta[ki], alpha0 * beta[kj],
                           corpus.tok_ptr, z, counts.n_dk, rng, sc)  # fmt: skip
    ta, tb = sc.ints[TABLE_I], sc.ints[TABLE_J]
    if ta == tb:
        return NONE
    split = ki == kj
    count = sc.count  # word counts of sides A and B
    _add_table(count[0], ta, sc, word)
    _add_table(count[1], tb, sc, word)
    tokens = np.array([sc.size[ta], sc.size[tb]], dtype=np.int64)
    tables = np.ones(2, dtype=np.int64)
    if scans > 0 and not split:  # a merge keeps its sides while the launch is drawn
        for r in range(n_other):
            t = sc.order[r]
            sc.kept[t] = sc.side[t]
    log_q = 0.0
    # sequential allocation (for a merge without scans, the probability of the present
    # split); with ``scans``, the first pass of the launch, drawn whatever the state
    for r in range(n_other):
        t = sc.order[r]
        la = math.log(tables[0]) + _log_predictive(count[0], tokens[0], t, sc, word, eta, veta)
        lb = math.log(tables[1]) + _log_predictive(count[1], tokens[1], t, sc, word, eta, veta)
        lp = allocate(la, lb, split or scans > 0, t, sc, rng)
        if scans == 0:
            log_q += lp
        _seat_table(t, 1, count, tokens, tables, sc, word)
    # ``scans`` restricted Gibbs scans, then the final one whose probability is q
    for scan in range(scans + 1 if scans > 0 else 0):
        final = scan == scans
        for r in range(n_other):
            t = sc.order[r]
            _seat_table(t, -1, count, tokens, tables, sc, word)
            la = math.log(tables[0]) + _log_predictive(count[0], tokens[0], t, sc, word, eta, veta)
            lb = math.log(tables[1]) + _log_predictive(count[1], tokens[1], t, sc, word, eta, veta)
            if final and not split:
                sc.side[t] = sc.kept[t]
            lp = allocate(la, lb, split or not final, t, sc, rng)
            if final:
                log_q += lp
            _seat_table(t, 1, count, tokens, tables, sc, word)
    count_a, count_b = count[0], count[1]
    n_a, n_b, m_a, m_b = tokens[0], tokens[1], tables[0], tables[1]
    sc.ints[M_A], sc.ints[M_B] = m_a, m_b
    # log p(split) - log p(merged): the top-level restaurant and the word likelihoods
    delta = crp_delta(gamma, m_a, m_b)
    delta += math.lgamma(veta) - math.lgamma(n_a + veta) - math.lgamma(n_b + veta)
    delta += math.lgamma(n_a + n_b + veta)
    n_words = 0
    for g in range(sc.ints[N_SEATED]):
        w = word[sc.token[g]]
        if not sc.seen[w]:
            sc.seen[w] = True
            sc.words[n_words] = w
            n_words += 1
    lg_eta = math.lgamma(eta)
    for r in range(n_words):
        w = sc.words[r]
        ca, cb = count_a[w], count_b[w]
        delta += math.lgamma(ca + eta) + math.lgamma(cb + eta) - math.lgamma(ca + cb + eta)
        delta -= lg_eta
        count_a[w], count_b[w], sc.seen[w] = 0, 0, False
    w = word[i]
    sc.floats[2] = log_anchor_ratio(word.size, order.word_ptr[w + 1] - order.word_ptr[w],
                                    word[j] == w, n_a, n_b)  # fmt: skip
    sc.floats[0], sc.floats[1] = delta, log_q + sc.floats[2]
    return SPLIT if split else MERGE


@njit(cache=True, inline="always")
def _move(t: int, k: int, k2: int, d: int, w: int, counts: Counts, lists: WordLists) -> None:
    """Token ``t`` (document ``d``, word ``w``) from topic ``k`` to ``k2``."""
    n_dk, n_wk, n_k = counts.n_dk, counts.n_wk, counts.n_k
    n_dk[d, k] -= 1
    n_dk[d, k2] += 1
    n_wk[w, k] -= 1
    if n_wk[w, k] == 0:
        list_remove(w, k, lists.topic, lists.pos, lists.length)
    n_wk[w, k2] += 1
    if n_wk[w, k2] == 1:
        list_add(w, k2, lists.topic, lists.pos, lists.length)
    n_k[k] -= 1
    n_k[k2] += 1
    counts.z[t] = k2


@njit(cache=True, nogil=True)
def settle_slots(
    topics: Topics, m_k: np.ndarray, kind: int, accept: bool, sc: Scratch
) -> tuple[int, int]:
    """Everything of :func:`settle` but the tokens: the table counts of the seated
    dishes, and for an accepted move the slots. A split takes the free slot on top of
    the stack (the caller makes sure there is one); a merge keeps ``i``'s slot and frees
    ``j``'s (its weight 0 until the caller redraws ``beta``). Returns the slots the
    tokens of side B's tables move from and to, or ``(-1, -1)``."""
    ints = sc.ints
    ki, kj = ints[DISH_I], ints[DISH_J]
    m_a, m_b = ints[M_A], ints[M_B]
    if not accept or kind == NONE:
        if ki == kj:
            m_k[ki] = m_a + m_b
        else:
            m_k[ki], m_k[kj] = m_a, m_b
        return -1, -1
    if kind == SPLIT:
        n = topics.n_free[0] - 1
        to = topics.free[n]
        topics.n_free[0] = n
        m_k[ki], m_k[to] = m_a, m_b
        return ki, to
    m_k[ki], m_k[kj] = m_a + m_b, 0
    topics.beta[kj] = 0.0
    n = topics.n_free[0]
    topics.free[n] = kj
    topics.n_free[0] = n + 1
    return kj, ki


@njit(cache=True, nogil=True)
def settle(
    corpus: Corpus, order: WordOrder, counts: Counts, lists: WordLists, topics: Topics,
    m_k: np.ndarray, kind: int, accept: bool, sc: Scratch,
) -> None:  # fmt: skip
    """Apply :func:`propose`'s proposal ``kind`` if ``accept`` (:func:`settle_slots`,
    then side B's tokens with their counts and word lists), and write the table counts
    of the seated dishes either way."""
    frm, to = settle_slots(topics, m_k, kind, accept, sc)
    if frm < 0:
        return
    word = corpus.word
    for t in range(sc.ints[N_TABLES]):
        if sc.side[t] == 1:
            for g in range(sc.start[t], sc.start[t + 1]):
                tok = sc.by_table[g]
                _move(tok, frm, to, order.doc[tok], word[tok], counts, lists)
