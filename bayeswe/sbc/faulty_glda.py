"""Deliberately wrong alias-MH samplers of Gaussian LDA, for power checks only.

SBC (:mod:`bayeswe.sbc.cases`, the ``glda-alias-mh-*`` entries of ``BROKEN``) and the
stationarity tests must show that they detect a wrong MH step, so they need samplers
that are wrong in a known way. :func:`step` is one alias-MH sweep of
:func:`bayeswe.samplers.gaussian_lda.step` (same options, no block moves) whose MH step
is replaced according to ``mh``:

* ``"always-accept"``: the token takes every proposal (the bug of the reference Java
  implementation of Das et al. 2015);
* ``"log-densities"``: the acceptance test uses log-densities as if they were densities,
  ``u p_s q_t < p_t q_s`` with ``p``, ``q`` the log weights;
* ``"full-ratio"``: correct, but always the general MH step with the full ratio
  ``p(t) q(s) / (p(s) q(t))``, also where the production kernel takes its shortcut for
  ``fresh_doc=False`` (the tests compare the two).

The sweeps below are the production token loops of :mod:`bayeswe.kernels.glda.alias`
with the MH step swapped: they call the same per-token pieces (the proposal before the
MH steps, the bookkeeping after them), so only the acceptance differs. Every variant
computes the fresh density of a token's own topic up front, as the general MH step
reads it before its first proposal.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from bayeswe.kernels import glda as kern
from bayeswe.kernels.glda.alias import (
    Proposal,
    Scratch,
    _fresh_pair,
    _log_q,
    _mh_general,
    _propose,
    _scratch,
    document_token_done,
    document_token_proposal,
    word_table,
    word_token_done,
    word_token_proposal,
)
from bayeswe.kernels.glda.common import rand_uniform
from bayeswe.kernels.glda.structs import (
    AliasOptions,
    AliasTables,
    Corpus,
    Densities,
    DensityCache,
    TopicLists,
    WordGroups,
)
from bayeswe.kernels.topic_lists import fill_topic_lists
from bayeswe.samplers import gaussian_lda as glda

__all__ = ["MH_VARIANTS", "step"]

FULL_RATIO, ALWAYS_ACCEPT, LOG_DENSITIES = 0, 1, 2
#: ``step``'s ``mh`` -> the kernels' code
MH_VARIANTS = {"full-ratio": FULL_RATIO, "always-accept": ALWAYS_ACCEPT,
               "log-densities": LOG_DENSITIES}  # fmt: skip


@njit(cache=True, _nrt=False, inline="always")
def _mh(
    variant: int,
    i: int,
    s: int,
    corpus: Corpus,
    prop: Proposal,
    n_dk: np.ndarray,
    tables: AliasTables,
    tcache: DensityCache,
    dens: Densities,
    options: AliasOptions,
    cumulative: bool,
    rng: np.ndarray,
    stats: np.ndarray,
    sc: Scratch,
) -> int:
    # alias._mh_general (FULL_RATIO) or a copy of it with the wrong acceptance test
    d, w, alpha = corpus.tok_doc[i], corpus.tok_word[i], corpus.alpha
    x = corpus.emb[w]
    if variant == FULL_RATIO:
        return _mh_general(i, s, d, w, x, prop, n_dk, alpha, tables, tcache, dens, options,
                           cumulative, rng, stats, sc)  # fmt: skip
    row, lin, logq = tables.logw[w], tables.lin[w], tables.logq[w]
    fresh_lt, copy_mark, fresh_doc = sc.fresh_lt, sc.copy_mark, options.fresh_doc
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
        u = rand_uniform(rng)
        if variant == ALWAYS_ACCEPT or u * lp_cur * math.exp(lq_t) < lp_t * math.exp(lq_cur):
            cur = t
            lp_cur = lp_t
            lq_cur = lq_t
            stats[1] += 1
    return cur


@njit(cache=True, nogil=True, _nrt=False)
def _document_scan(
    variant: int,
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
    rng: np.ndarray,
    stats: np.ndarray,
    sc: Scratch,
    work: np.ndarray,
) -> None:
    # alias._document_scan in corpus order with the MH step of `variant`
    for i in range(z.shape[0]):
        s = z[i]
        prop = document_token_proposal(i, True, corpus, z, n_dk, n_wk, dens, tables, tcache,
                                       doc_lists, word_lists, options, stats, sc)  # fmt: skip
        cur = _mh(variant, i, s, corpus, prop, n_dk, tables, tcache, dens, options, False, rng,
                  stats, sc)  # fmt: skip
        document_token_done(i, s, cur, corpus, z, n_dk, n_wk, dens, tcache, doc_lists,
                            word_lists, work)  # fmt: skip


@njit(cache=True, nogil=True, _nrt=False)
def _word_scan(
    variant: int,
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
    rng: np.ndarray,
    stats: np.ndarray,
    sc: Scratch,
    work: np.ndarray,
) -> None:
    # alias._word_scan without block moves, with the MH step of `variant`
    start = words.start
    for w in range(start.shape[0] - 1):
        if start[w] == start[w + 1]:
            continue
        w_len = word_table(w, False, corpus, z, n_dk, n_wk, dens, tables, tcache, doc_lists,
                           words, rng, stats, stats, sc)  # fmt: skip
        for pos in range(start[w], start[w + 1]):
            i = words.order[pos]
            s = z[i]
            prop = word_token_proposal(i, True, w_len, corpus, z, n_dk, n_wk, dens, tables,
                                       tcache, doc_lists, options, sc)  # fmt: skip
            cur = _mh(variant, i, s, corpus, prop, n_dk, tables, tcache, dens, options, True,
                      rng, stats, sc)  # fmt: skip
            w_len = word_token_done(i, s, cur, w_len, corpus, z, n_dk, n_wk, dens, tcache,
                                    doc_lists, sc, work)  # fmt: skip
        tables.uses[w] = start[w + 1] - start[w]


@njit(cache=True, nogil=True)
def _sweep(
    variant: int,
    word_order: bool,
    corpus: Corpus,
    z: np.ndarray,
    n_dk: np.ndarray,
    n_wk: np.ndarray,
    sweep_args: tuple,
    rng: np.ndarray,
    work: np.ndarray,
    iwork: np.ndarray,
    stats: np.ndarray,
) -> None:
    # sweep_alias_word / sweep_alias_document with the MH step of `variant`
    dens, tables, tcache, doc_lists, word_lists, words, options = sweep_args
    fill_topic_lists(n_dk, doc_lists.top, doc_lists.pos, doc_lists.length)
    sc = _scratch(work, iwork, n_dk, corpus.alpha, options.fresh_doc, False)
    if word_order:
        _word_scan(variant, corpus, z, n_dk, n_wk, dens, tables, tcache, doc_lists, words,
                   options, rng, stats, sc, work)  # fmt: skip
    else:
        _document_scan(variant, corpus, z, n_dk, n_wk, dens, tables, tcache, doc_lists,
                       word_lists, options, rng, stats, sc, work)  # fmt: skip


def step(
    problem: glda.GLDAProblem, state: glda.GLDAState, *, mh: str, **options: Any
) -> tuple[glda.GLDAState, glda.StepInfo]:
    """One alias-MH sweep with the MH step ``mh`` (module docstring).

    ``options``: ``mh_steps``, ``rebuild_every``, ``max_table_age``, ``fresh_doc``,
    ``density`` and ``scan`` as in :func:`bayeswe.samplers.gaussian_lda.step`, with its
    defaults; ``state`` is updated in place as there.
    """
    variant = MH_VARIANTS[mh]
    glda._check_alias_tables(problem, state)
    kern.resync_topics(state.kappa_k, state.nu_k, state.R, state.logdet, state.tconst,
                       state.tscale, state.texp)  # fmt: skip
    settings: dict[str, Any] = {
        "mh_steps": 2, "rebuild_every": None, "max_table_age": None, "fresh_doc": False,
        "density": "precision", "scan": "word", **options,
    }  # fmt: skip
    sweep = glda.prepare_alias_sweep(
        problem, state, blocks=False, block_stats=np.zeros(3, dtype=np.int64), **settings
    )
    z_before = state.z.copy()
    args = (sweep.dens, sweep.tables, sweep.tcache, sweep.doc_lists, sweep.word_lists,
            sweep.words, sweep.options)  # fmt: skip
    _sweep(variant, sweep.scan == "word", sweep.corpus, state.z, state.n_dk, state.word_topic,
           args, state.rng, sweep.work, sweep.iwork, sweep.stats)  # fmt: skip
    acc, changed, rebuilds = glda.finish_alias_sweep(state, sweep, z_before)
    state.sweep += 1
    return state, glda.StepInfo(glda.lp(problem, state), acc, changed, rebuilds)
