"""Word-type block moves of Gaussian LDA: a word's tokens in one topic move together.

Every token of a word type ``w`` has the same vector ``v_w``, so a topic holding some of
``w``'s tokens has a far higher density at ``v_w`` than any other topic, and a
single-token sampler (``cgs`` or ``alias-mh``) rarely moves one of them out: the chain
climbs in rare steps. :func:`sweep_type_blocks` adds, once per word type, a
Metropolis-Hastings move of the whole group ``G`` of ``w``'s tokens that sit in one
topic, to a topic holding none of ``w``'s tokens. It leaves the collapsed posterior
``p(z | v)`` exactly invariant, so it can follow a sweep of either sampler.

The move, for a word type ``w`` with ``n_w >= 2`` tokens:

1. pick one of ``w``'s tokens uniformly; ``k`` is its topic and ``G`` the ``m`` tokens
   of ``w`` in ``k``;
2. the candidates are ``C = {k}`` plus every topic holding no token of ``w``; from any
   state the move can reach (``G`` relabelled to some ``j`` in ``C``) the same ``G`` is
   picked with the same probability ``m / n_w`` and the candidate set is the same ``C``,
   so the move is a Metropolis-Hastings step on ``C`` with the rest of ``z`` fixed;
3. the proposal ``q(j)`` is proportional to ``exp(g_j)``, where ``g_j`` is the
   Normal-inverse-Wishart log marginal likelihood gained by adding the ``m`` copies of
   ``v_w`` to topic ``j`` *with ``G`` removed* (Murphy 2012, eq. 4.213, as in
   :func:`bayeswe.kernels.glda.log_joint`). It depends on ``z`` without ``G`` only, so
   it is the same for both directions of the move: an independence proposal on ``C``;
4. the target on ``C`` is ``exp(g_j + h_j)``, ``h_j`` the documents' Dirichlet-multinomial
   terms of ``G`` at ``j``, so the acceptance probability is ``min(1, exp(h_j - h_k))``:
   only the documents holding tokens of ``G`` enter, one ``lgamma`` pair per document and
   topic.

Adding ``m`` copies of ``v`` to a topic is one rank-1 update of its scatter matrix (the
copies have no scatter among themselves): ``Psi' = Psi + c (v - mu)(v - mu)'`` with
``c = kappa m / (kappa + m)``, and by the matrix determinant lemma
``log|Psi'| = log|Psi| + log(1 + c q)``, ``q = (v - mu)' Psi^{-1} (v - mu)``: one forward
substitution per candidate, O(|C| D^2) per move, about ``1 / n_w`` of what a sweep
spends on ``w``'s tokens in ``cgs``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy import special

from bayeswe.kernels.glda.common import (
    _forward_sqnorm,
    move_copies,
    rand_uniform,
)
from bayeswe.kernels.glda.structs import Corpus, Topics, WordGroups

__all__ = [
    "block_accepts",
    "block_candidates",
    "block_draw",
    "doc_log_ratio",
    "group_docs",
    "move_copies",
    "nu_lgamma_table",
    "relabel_group",
    "sweep_type_blocks",
    "word_starts",
]


def word_starts(word_order: np.ndarray, tok_word: np.ndarray, n_types: int) -> np.ndarray:
    """``start`` (``n_types + 1``, int64): word ``w``'s tokens are
    ``word_order[start[w]:start[w + 1]]`` (``word_order`` sorts the tokens by word)."""
    counts = np.bincount(tok_word, minlength=n_types)
    start = np.zeros(n_types + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    if not np.array_equal(tok_word[word_order], np.repeat(np.arange(n_types), counts)):
        raise ValueError("word_order does not group the tokens by word type")
    return start


def nu_lgamma_table(nu0: float, D: int, n_max: int) -> np.ndarray:
    """``L[n] = sum_{i < D} lgamma((nu0 + n - i) / 2)`` for ``n = 0 .. n_max``: the
    ``log Gamma_D(nu_k / 2)`` of a topic of ``n`` tokens, less its ``pi`` term (which
    cancels in every ratio)."""
    n = np.arange(n_max + 1, dtype=np.float64)
    out = np.zeros(n_max + 1)
    for i in range(D):
        out += special.gammaln(0.5 * (nu0 + n - i))
    return out


@njit(cache=True)
def block_candidates(
    k: int,
    m: int,
    Q: np.ndarray,
    in_topic: np.ndarray,
    kappa_k: np.ndarray,
    nu_k: np.ndarray,
    logdet: np.ndarray,
    kappa0: float,
    D: int,
    lg_nu: np.ndarray,
    cand: np.ndarray,
    logq: np.ndarray,
) -> int:
    """The candidate topics of a group of ``m`` copies of ``v`` in topic ``k`` and the
    proposal's log weights ``g_j`` (module docstring); returns how many (``-1``: topic
    ``k`` without the group is not positive definite, by rounding only: no move).

    ``Q[j]`` is ``(v - mu_j)' Psi_j^{-1} (v - mu_j)`` with the current state (read for
    ``k`` and every topic with ``in_topic[j] == 0``); ``in_topic[j]`` counts the word's
    tokens in topic ``j``. The ``-m D/2 log pi`` that every candidate shares is left out.
    """
    K = kappa_k.shape[0]
    n_cand = 0
    for j in range(K):
        kap = kappa_k[j]
        n = int(round(kap - kappa0))
        if j == k:
            # topic k without G: the downdate of eq. (4) by m copies (log|Psi_k^-| by the
            # matrix determinant lemma); g_k is the gain of adding them back
            r = 1.0 - m * kap / (kap - m) * Q[k]
            if r <= 0.0:
                return -1
            logdet_minus = logdet[k] + math.log(r)
            g = 0.5 * D * (math.log(kap - m) - math.log(kap)) + lg_nu[n] - lg_nu[n - m]
            g += 0.5 * (nu_k[k] - m) * logdet_minus - 0.5 * nu_k[k] * logdet[k]
        elif in_topic[j] == 0:
            logdet_plus = logdet[j] + math.log1p(kap * m / (kap + m) * Q[j])
            g = 0.5 * D * (math.log(kap) - math.log(kap + m)) + lg_nu[n + m] - lg_nu[n]
            g += 0.5 * nu_k[j] * logdet[j] - 0.5 * (nu_k[j] + m) * logdet_plus
        else:
            continue
        cand[n_cand] = j
        logq[n_cand] = g
        n_cand += 1
    return n_cand


@njit(cache=True)
def block_draw(cand: np.ndarray, logq: np.ndarray, n_cand: int, u: float) -> int:
    """A candidate drawn with probability proportional to ``exp(logq)`` (``u`` uniform)."""
    top = logq[0]
    for c in range(1, n_cand):
        top = max(top, logq[c])
    total = 0.0
    for c in range(n_cand):
        total += math.exp(logq[c] - top)
    u *= total
    acc = 0.0
    for c in range(n_cand):
        acc += math.exp(logq[c] - top)
        if u < acc:
            return cand[c]
    return cand[n_cand - 1]


@njit(cache=True)
def group_docs(
    k: int,
    lo: int,
    hi: int,
    word_order: np.ndarray,
    z: np.ndarray,
    tok_doc: np.ndarray,
    doc_count: np.ndarray,
    docs: np.ndarray,
) -> int:
    """The documents of the word's tokens ``word_order[lo:hi]`` in topic ``k`` into
    ``docs`` (returns how many) and each one's count into ``doc_count``."""
    n_docs = 0
    for a in range(lo, hi):
        t = word_order[a]
        if z[t] == k:
            d = tok_doc[t]
            if doc_count[d] == 0:
                docs[n_docs] = d
                n_docs += 1
            doc_count[d] += 1
    return n_docs


@njit(cache=True)
def doc_log_ratio(
    k: int, j: int, docs: np.ndarray, n_docs: int, doc_count: np.ndarray, n_dk: np.ndarray,
    alpha: np.ndarray,
) -> float:  # fmt: skip
    """``h_j - h_k``: the documents' Dirichlet-multinomial terms of the group at ``j``
    over at ``k`` (one ``lgamma`` pair per document and topic)."""
    out = 0.0
    for b in range(n_docs):
        d = docs[b]
        c = doc_count[d]
        out += (
            math.lgamma(n_dk[d, j] + alpha[j] + c)
            - math.lgamma(n_dk[d, j] + alpha[j])
            - math.lgamma(n_dk[d, k] + alpha[k])
            + math.lgamma(n_dk[d, k] - c + alpha[k])
        )
    return out


@njit(cache=True)
def block_accepts(
    k: int,
    lo: int,
    hi: int,
    word_order: np.ndarray,
    z: np.ndarray,
    tok_doc: np.ndarray,
    n_dk: np.ndarray,
    alpha: np.ndarray,
    cand: np.ndarray,
    logq: np.ndarray,
    n_cand: int,
    doc_count: np.ndarray,
    docs: np.ndarray,
    rng: np.ndarray,
) -> tuple[int, int]:
    """Draw the group's topic ``j`` from the candidates and run the MH test; returns
    ``(j, n_docs)`` with ``j = -1`` if the group stays. The group's documents are in
    ``docs[:n_docs]`` with their counts in ``doc_count`` (which the caller zeroes)."""
    j = block_draw(cand, logq, n_cand, rand_uniform(rng))
    if j == k:
        return -1, 0
    n_docs = group_docs(k, lo, hi, word_order, z, tok_doc, doc_count, docs)
    log_ratio = doc_log_ratio(k, j, docs, n_docs, doc_count, n_dk, alpha)
    if log_ratio >= 0.0 or rand_uniform(rng) < math.exp(log_ratio):
        return j, n_docs
    return -1, n_docs


@njit(cache=True)
def relabel_group(
    k: int,
    j: int,
    m: int,
    x: np.ndarray,
    lo: int,
    hi: int,
    word_order: np.ndarray,
    z: np.ndarray,
    topics: Topics,
    work: np.ndarray,
) -> None:
    """The word's ``m`` tokens in topic ``k`` (of ``word_order[lo:hi]``) move to ``j``:
    their topics, and both topics' state (the caller updates the counts)."""
    for a in range(lo, hi):
        t = word_order[a]
        if z[t] == k:
            z[t] = j
    mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp = topics
    move_copies(k, x, m, -1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)
    move_copies(j, x, m, 1.0, mu, R, invd, logdet, kappa_k, nu_k, tconst, tscale, texp, work)


@njit(cache=True)
def sweep_type_blocks(
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    topics: Topics,
    words: WordGroups,
    word_topic: np.ndarray,
    rng: np.ndarray,
    doc_count: np.ndarray,
    stats: np.ndarray,
) -> int:
    """One block move per word type with at least two tokens (see the module docstring).

    Updates ``z``, ``n_dk``, ``topics`` and, when it is ``(V, K)``, ``word_topic`` in
    place. ``doc_count`` (int64, ``n_docs``) must be zero and is left zero. ``stats``
    (int64, 3) accumulates moves tried, moves that changed the state, and tokens moved.
    Returns the number of tokens moved.
    """
    tok_doc, _, emb, alpha = corpus
    mu, R, invd, logdet, kappa_k, nu_k = topics[:6]
    word_order, word_start, kappa0, lg_nu = words
    K = alpha.shape[0]
    D = emb.shape[1]
    V = word_start.shape[0] - 1
    keep_wt = word_topic.shape[0] == V and word_topic.shape[1] == K
    in_topic = np.zeros(K, dtype=np.int64)
    cand = np.empty(K, dtype=np.int64)
    logq = np.empty(K)
    Q = np.empty(K)
    docs = np.empty(doc_count.shape[0], dtype=np.int64)
    y = np.empty(D)
    work = np.empty(2 * D)
    moved_total = 0
    for w in range(V):
        lo, hi = word_start[w], word_start[w + 1]
        n_w = hi - lo
        if n_w < 2:
            continue
        stats[0] += 1
        x = emb[w]
        k = z[word_order[lo + int(rand_uniform(rng) * n_w)]]
        for a in range(lo, hi):
            in_topic[z[word_order[a]]] += 1
        m = in_topic[k]
        for j in range(K):
            if j == k or in_topic[j] == 0:
                Q[j] = _forward_sqnorm(R[j], invd[j], x, mu[j], y)
        n_cand = block_candidates(
            k, m, Q, in_topic, kappa_k, nu_k, logdet, kappa0, D, lg_nu, cand, logq
        )
        for a in range(lo, hi):
            in_topic[z[word_order[a]]] = 0
        if n_cand < 2:
            continue
        j, n_docs = block_accepts(k, lo, hi, word_order, z, tok_doc, n_dk, alpha, cand, logq,
                                  n_cand, doc_count, docs, rng)  # fmt: skip
        if j >= 0:
            for b in range(n_docs):
                d = docs[b]
                n_dk[d, k] -= doc_count[d]
                n_dk[d, j] += doc_count[d]
            relabel_group(k, j, m, x, lo, hi, word_order, z, topics, work)
            if keep_wt:
                word_topic[w, k] -= m
                word_topic[w, j] += m
            stats[1] += 1
            stats[2] += m
            moved_total += m
        for b in range(n_docs):
            doc_count[docs[b]] = 0
    return moved_total
