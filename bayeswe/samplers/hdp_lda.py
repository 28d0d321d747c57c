"""Collapsed Gibbs sampling for HDP-LDA: ``bayeswe.fit("hdp_lda", data, method="cgs")``
and ``method="alias-mh"``.

The direct-assignment sampler of Teh, Jordan, Beal and Blei (2006, section 5.3), whose
kernels are :mod:`bayeswe.kernels.hdp_lda`: topic indicators with the topics integrated
out, top-level weights ``beta`` over the represented topics and the rest, table counts
by auxiliary variables, topics created and removed as tokens move. The number of topics
is not fixed: the arrays hold a capacity of topic slots that doubles when a new topic
finds none free. ``alpha0`` and ``gamma`` are fixed at the data's values (as in the
Stan twin ``models/hdp_lda.stan``) or, with ``resample_concentrations=True``,
resampled every sweep under Gamma priors.

``method="alias-mh"`` (:func:`step_alias`) draws the same conditional of every token
exactly, with the word term from per-word alias tables corrected for staleness
(:mod:`bayeswe.kernels.hdp_alias`, tokens visited word by word); tables, weights and
concentrations are updated as in :func:`step`.

A chain is an :class:`HDPState` advanced in place by :func:`step` or :func:`step_alias`;
:class:`HDPSampler` puts it on the protocol of :mod:`bayeswe.samplers.driver` and
:func:`sample_hdp_lda` runs it (chains in parallel threads, checkpoint and resume).

What a draw keeps. Topic labels mean nothing across draws or chains (label switching;
topics are born and die), so the diagnosable values are label-free scalars, in
``posterior``: ``n_topics`` (represented topics), ``n_tables`` (``m_..``),
``alpha0``, ``gamma``, ``beta_u`` (the weight of all unrepresented topics), and
``sample_stats.lp``. Topic arrays go to their own group, ``topics``, for display only:
the ``truncation`` largest topics of each draw, largest first, padded (``NaN``, 0) to
the largest number of topics seen.

Random streams: chain ``c`` owns the xoshiro256+ stream
:func:`bayeswe.samplers.lda_cgs.chain_stream` ``(seed, c)``; the draws depend on the
seed and the options only.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from bayeswe._arviz import az
from bayeswe.corpus import BagOfWords
from bayeswe.dp.data import DPDataError, HDPLDAData
from bayeswe.kernels import hdp_alias
from bayeswe.kernels import hdp_lda as kern
from bayeswe.kernels import hdp_split_merge as sm
from bayeswe.kernels.hdp_structs import (
    AliasTable,
    Corpus,
    Counts,
    DocLists,
    Topics,
    WordLists,
    WordOrder,
)
from bayeswe.kernels.lda_cgs import counts_from_assignments, init_assignments, next_double
from bayeswe.kernels.topic_lists import fill_topic_lists
from bayeswe.lda.data import COORDS_KEY, LDAData
from bayeswe.options import build_options, check_bool, check_int
from bayeswe.samplers.driver import check_run_options
from bayeswe.samplers.lda_cgs import chain_stream

__all__ = [
    "HDPAliasArgs",
    "HDPArgs",
    "HDPChains",
    "HDPInfo",
    "HDPProblem",
    "HDPSampler",
    "HDPState",
    "as_hdp_data",
    "check_state",
    "init_state",
    "log_joint",
    "sample_hdp_lda",
    "word_predictive",
    "state_from_assignments",
    "step",
    "step_alias",
    "topic_summary",
]

#: Smallest capacity (topic slots) a chain starts with.
MIN_CAPACITY = 16


def _check_prior(name: str, value: Any) -> None:
    if value is None:
        return
    try:
        shape, rate = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (shape, rate), got {value!r}") from None
    if not (np.isfinite(shape) and np.isfinite(rate) and shape > 0 and rate > 0):
        raise ValueError(f"{name} must be two positive numbers (shape, rate), got {value!r}")


def _check_initial_topics(value: Any) -> None:
    """``initial_topics``: a positive integer, or a non-empty sequence of them."""
    if value is None or isinstance(value, (int, np.integer)):
        check_int("initial_topics", value, minimum=1)
        return
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise ValueError(
            f"initial_topics must be an integer or one integer per chain, got {value!r}"
        )
    if len(value) == 0:
        raise ValueError("initial_topics must name at least one chain's topics, got []")
    for k in value:
        check_int("initial_topics", k, minimum=1)


def initial_topics_by_chain(value: int | Sequence[int], chains: int) -> int | tuple[int, ...]:
    """``value`` as the samplers take it: one integer for every chain, or one per chain
    (``ValueError`` when a sequence's length is not ``chains``)."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    if len(value) != chains:
        raise ValueError(
            f"initial_topics has {len(value)} entries for {chains} chains; give one per "
            "chain or a single number"
        )
    return tuple(int(k) for k in value)


@dataclass(frozen=True, kw_only=True)
class HDPArgs:
    """Options of ``method="cgs"`` for ``hdp_lda``; ``None`` means the default given here.

    Attributes
    ----------
    iter_warmup, iter_sampling, thin
        As cmdstanpy (defaults 500, 1000, 10): ``ceil(iter_sampling / thin)`` draws kept.
    resample_concentrations
        Resample ``alpha0`` and ``gamma`` every sweep (default ``False``: fixed at the
        data's values, as the Stan twin).
    alpha0_prior, gamma_prior
        Gamma priors ``(shape, rate)`` of ``alpha0`` and ``gamma`` when resampled
        (default ``(1, 1)`` each); the data's values are the starting values.
    initial_topics
        Topics of the start: tokens spread uniformly at random over them (default 1);
        one number per chain (e.g. ``[1, 1, 300, 300]``) starts the chains apart, so
        that R-hat on ``n_topics`` tells whether they meet.
    split_merge
        Split-merge proposals per sweep (default 0: token moves only), each on the
        tables of one or two topics (:mod:`bayeswe.kernels.hdp_split_merge`): topics
        are split and merged whole, which single-token moves do only through many
        unlikely steps.
    split_merge_scans
        Restricted Gibbs scans in each split-merge proposal's launch (default 0: the
        split is drawn by sequential allocation alone). With ``t > 0`` the tables are
        allocated, rescanned ``t`` times and then once more to propose, as Jain and Neal
        (2004): better splits are proposed, at ``t + 2`` passes over the topic's tables.
    keep_topics
        Record the topic arrays of every kept draw (group ``topics``; default ``True``).
    parallel_chains, threads_per_chain, checkpoint, checkpoint_every, callback, show_progress
        As :class:`bayeswe.samplers.lda_cgs.CGSArgs` (one thread per chain: the sweep is
        sequential).
    """

    iter_warmup: int | None = None
    iter_sampling: int | None = None
    thin: int | None = None
    resample_concentrations: bool | None = None
    alpha0_prior: tuple[float, float] | None = None
    gamma_prior: tuple[float, float] | None = None
    initial_topics: int | Sequence[int] | None = None
    split_merge: int | None = None
    split_merge_scans: int | None = None
    keep_topics: bool | None = None
    parallel_chains: int | None = None
    threads_per_chain: int | None = None
    checkpoint: str | os.PathLike[str] | None = None
    checkpoint_every: int | None = None
    callback: Callable[[int], None] | None = None
    show_progress: bool | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> HDPArgs:
        """Build and validate (``ValueError`` naming an unknown option or a bad value)."""
        return build_options(cls, "cgs", options)

    def validate(self) -> None:
        check_run_options(self)
        _check_initial_topics(self.initial_topics)
        check_int("split_merge", self.split_merge, minimum=0)
        check_int("split_merge_scans", self.split_merge_scans, minimum=0)
        if self.split_merge_scans and not self.split_merge:
            raise ValueError(
                "split_merge_scans sets the launch of split-merge proposals; it needs "
                f"split_merge > 0, got split_merge={self.split_merge}"
            )
        check_bool("resample_concentrations", self.resample_concentrations)
        check_bool("keep_topics", self.keep_topics)
        _check_prior("alpha0_prior", self.alpha0_prior)
        _check_prior("gamma_prior", self.gamma_prior)

    def get(self, name: str) -> Any:
        """The option's value, or its default."""
        value = getattr(self, name)
        return _DEFAULTS.get(name) if value is None else value


@dataclass(frozen=True, kw_only=True)
class HDPAliasArgs(HDPArgs):
    """Options of ``method="alias-mh"`` for ``hdp_lda``: those of :class:`HDPArgs` and

    Attributes
    ----------
    rebuild_every
        Rebuild a word's alias table after this many of its tokens (default ``None``:
        after as many tokens as the word has topics, Li et al.'s schedule). The table is
        also rebuilt at the word's first token in every sweep. Every draw is exact
        whatever the setting: it trades table builds against rejections.
    """

    rebuild_every: int | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> HDPAliasArgs:
        """Build and validate (``ValueError`` naming an unknown option or a bad value)."""
        return build_options(cls, "alias-mh", options)

    def validate(self) -> None:
        super().validate()
        check_int("rebuild_every", self.rebuild_every, minimum=1)


_DEFAULTS: dict[str, Any] = {
    "iter_warmup": 500,
    "iter_sampling": 1000,
    "thin": 10,
    "resample_concentrations": False,
    "alpha0_prior": (1.0, 1.0),
    "gamma_prior": (1.0, 1.0),
    "initial_topics": 1,
    "split_merge": 0,
    "split_merge_scans": 0,
    "keep_topics": True,
    "checkpoint_every": 100,
}


def as_hdp_data(data: Any) -> HDPLDAData:
    """``data`` as :class:`HDPLDAData`: itself, an LDA's (:meth:`HDPLDAData.from_lda`),
    or a :class:`~bayeswe.corpus.BagOfWords` with the default priors and truncation 20."""
    if isinstance(data, HDPLDAData):
        return data
    if isinstance(data, LDAData):
        return HDPLDAData.from_lda(data)
    if isinstance(data, BagOfWords):
        return HDPLDAData(data, truncation=20)
    raise DPDataError(
        "hdp_lda's sampler takes an HDPLDAData, an LDAData or a BagOfWords, got "
        f"{type(data).__name__}"
    )


@dataclass(frozen=True)
class HDPProblem:
    """Flat token arrays and the fixed settings of one posterior."""

    corpus: Corpus
    doc_len: np.ndarray  #: int64 (D,)
    n_docs: int
    n_words: int
    eta: float
    alpha0: float
    gamma: float
    #: Topics a draw records for display (the data's truncation).
    display: int
    resample: bool
    alpha0_prior: tuple[float, float]
    gamma_prior: tuple[float, float]

    @classmethod
    def from_data(cls, data: HDPLDAData, args: HDPArgs | None = None) -> HDPProblem:
        args = HDPArgs() if args is None else args
        doc, word = data.corpus.tokens()
        tok_ptr = np.zeros(data.n_docs + 1, dtype=np.int64)
        np.cumsum(data.corpus.doc_lengths, out=tok_ptr[1:])
        return cls(
            corpus=Corpus(tok_ptr, np.ascontiguousarray(word, dtype=np.int32)),
            doc_len=np.diff(tok_ptr),
            n_docs=data.n_docs,
            n_words=data.n_words,
            eta=float(data.eta),
            alpha0=float(data.alpha0),
            gamma=float(data.gamma),
            display=int(data.truncation),
            resample=bool(args.get("resample_concentrations")),
            alpha0_prior=tuple(float(v) for v in args.get("alpha0_prior")),
            gamma_prior=tuple(float(v) for v in args.get("gamma_prior")),
        )

    @property
    def n_tokens(self) -> int:
        return int(self.corpus.word.size)

    @cached_property
    def word_order(self) -> WordOrder:
        """The tokens grouped by word (the scan of :func:`step_alias`)."""
        word = self.corpus.word
        token = np.argsort(word, kind="stable").astype(np.int64)
        word_ptr = np.zeros(self.n_words + 1, dtype=np.int64)
        np.cumsum(np.bincount(word, minlength=self.n_words), out=word_ptr[1:])
        doc = np.repeat(np.arange(self.n_docs, dtype=np.int32), np.diff(self.corpus.tok_ptr))
        return WordOrder(word_ptr, token, doc)

    def fingerprint(self) -> str:
        """SHA-256 of the tokens and priors (checked on resume)."""
        h = hashlib.sha256()
        for arr in (self.corpus.tok_ptr, self.corpus.word):
            h.update(np.ascontiguousarray(arr).tobytes())
        h.update(f"{self.n_words},{self.eta!r},{self.alpha0!r},{self.gamma!r}".encode())
        return h.hexdigest()


@dataclass
class HDPState:
    """One chain, updated in place by :func:`step`."""

    counts: Counts
    lists: WordLists
    topics: Topics
    m_k: np.ndarray  #: int64 (C,): tables per topic
    rng_state: np.ndarray  #: uint64 (4,)
    alpha0: float
    gamma: float
    n_tables: int = 0
    sweeps_done: int = 0
    #: Scratch of :func:`step_alias` (document lists, alias table): memory reused by
    #: the sweeps, contents rebuilt by each, never part of the chain's state.
    doc_lists: DocLists | None = None
    table: AliasTable | None = None
    split_scratch: sm.Scratch | None = None
    #: Split-merge moves accepted, (splits, merges), since the counter was last reset.
    moves: tuple[int, int] = (0, 0)

    @property
    def capacity(self) -> int:
        return int(self.counts.n_k.size)

    @property
    def n_topics(self) -> int:
        return self.capacity - int(self.topics.n_free[0])


def _free_stack(n_k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The free-slot stack of the empty slots, the lowest on top (taken first)."""
    C = n_k.size
    empty = np.flatnonzero(n_k == 0)[::-1].astype(np.int32)
    free = np.zeros(C, dtype=np.int32)
    free[: empty.size] = empty
    return free, np.array([empty.size], dtype=np.int64)


def state_from_assignments(
    problem: HDPProblem,
    z: np.ndarray,
    beta: np.ndarray,
    beta_u: float,
    *,
    rng_state: np.ndarray,
    alpha0: float,
    gamma: float,
    capacity: int | None = None,
) -> HDPState:
    """The state of assignments ``z`` and weights ``beta`` (0 on empty slots), ``beta_u``."""
    C = max(MIN_CAPACITY, len(beta), int(z.max(initial=0)) + 1, capacity or 0)
    D, V = problem.n_docs, problem.n_words
    z = np.ascontiguousarray(z, dtype=np.int32)
    n_dk = np.zeros((D, C), dtype=np.int32)
    n_wk = np.zeros((V, C), dtype=np.int32)
    n_k = np.zeros(C, dtype=np.int64)
    counts_from_assignments(problem.corpus.tok_ptr, problem.corpus.word, z, n_dk, n_wk, n_k)
    full = np.zeros(C)
    full[: len(beta)] = beta
    full[n_k == 0] = 0.0
    lists = WordLists(np.zeros((V, C), np.int32), np.zeros((V, C), np.int32), np.zeros(V, np.int32))
    fill_topic_lists(n_wk, lists.topic, lists.pos, lists.length)
    topics = Topics(full, np.array([float(beta_u)]), *_free_stack(n_k))
    return HDPState(
        counts=Counts(z, n_dk, n_wk, n_k),
        lists=lists,
        topics=topics,
        m_k=np.zeros(C, dtype=np.int64),
        rng_state=rng_state,
        alpha0=float(alpha0),
        gamma=float(gamma),
    )


def init_state(problem: HDPProblem, seed: int, chain: int, initial_topics: int) -> HDPState:
    """Tokens uniformly over ``initial_topics`` topics; equal weights for them and ``beta_u``."""
    rng = chain_stream(seed, chain)
    z = np.empty(problem.n_tokens, dtype=np.int32)
    init_assignments(z, initial_topics, rng)
    capacity = MIN_CAPACITY
    while capacity < 2 * initial_topics:
        capacity *= 2
    beta = np.full(initial_topics, 1.0 / (initial_topics + 1))
    return state_from_assignments(
        problem,
        z,
        beta,
        1.0 / (initial_topics + 1),
        rng_state=rng,
        alpha0=problem.alpha0,
        gamma=problem.gamma,
        capacity=capacity,
    )


def _grow(state: HDPState) -> None:
    """Double the capacity; the new slots go on the free stack, the lowest on top."""
    C = state.capacity
    c, lists, t = state.counts, state.lists, state.topics

    def wider(a: np.ndarray) -> np.ndarray:
        out = np.zeros(a.shape[:-1] + (2 * C,), dtype=a.dtype)
        out[..., :C] = a
        return out

    state.counts = Counts(c.z, wider(c.n_dk), wider(c.n_wk), wider(c.n_k))
    state.lists = WordLists(wider(lists.topic), wider(lists.pos), lists.length)
    n_free = int(t.n_free[0])
    free = np.zeros(2 * C, dtype=np.int32)
    free[:C] = np.arange(2 * C - 1, C - 1, -1)
    free[C : C + n_free] = t.free[:n_free]
    state.topics = Topics(wider(t.beta), t.rest, free, np.array([C + n_free], dtype=np.int64))
    state.m_k = wider(state.m_k)
    state.doc_lists, state.table = None, None


def step(
    problem: HDPProblem, state: HDPState, split_merge: int = 0, split_merge_scans: int = 0
) -> HDPState:
    """One sweep (in place): every token, then tables, concentrations and ``beta``, then
    ``split_merge`` split-merge proposals (:func:`split_merge_moves`, ``split_merge_scans``
    restricted Gibbs scans in each launch)."""
    position, N = 0, problem.n_tokens
    while True:
        position = kern.sweep(
            problem.corpus, state.counts, state.lists, state.topics,
            state.alpha0, state.gamma, problem.eta, state.rng_state, position,
        )  # fmt: skip
        if position >= N:
            break
        _grow(state)
    _update_weights(problem, state)
    split_merge_moves(problem, state, split_merge, scans=split_merge_scans)
    return state


def step_alias(
    problem: HDPProblem,
    state: HDPState,
    rebuild_every: int | None = None,
    split_merge: int = 0,
    split_merge_scans: int = 0,
) -> HDPState:
    """One sweep (in place) of ``method="alias-mh"``: every token by
    :func:`bayeswe.kernels.hdp_alias.sweep_by_word` (``rebuild_every`` as
    :class:`HDPAliasArgs`), then tables, concentrations, ``beta`` and split-merge
    proposals as :func:`step`."""
    position, N = 0, problem.n_tokens
    every = 0 if rebuild_every is None else int(rebuild_every)
    while True:
        C = state.capacity
        if state.doc_lists is None or state.doc_lists.topic.shape[1] != C:
            D = problem.n_docs
            state.doc_lists = DocLists(
                np.zeros((D, C), np.int32), np.zeros((D, C), np.int32), np.zeros(D, np.int32),
                np.zeros((D, C), np.int32),
            )  # fmt: skip
        # filled afresh (not kept from the last sweep) so that the order of each list,
        # and with it the draws, follows from the counts alone: a resumed run repeats
        hdp_alias.fill_doc_lists(state.counts.n_dk, state.doc_lists)
        if state.table is None or state.table.weight.size != C:
            state.table = hdp_alias.new_table(C)
        position = hdp_alias.sweep_by_word(
            problem.word_order, state.counts, state.lists, state.doc_lists, state.topics,
            state.table, state.alpha0, state.gamma, problem.eta, every, state.rng_state,
            position,
        )  # fmt: skip
        if position >= N:
            break
        _grow(state)
    _update_weights(problem, state)
    split_merge_moves(problem, state, split_merge, scans=split_merge_scans)
    return state


def split_merge_moves(
    problem: HDPProblem,
    state: HDPState,
    proposals: int,
    log_ratio: Callable[[int, float, float], float] | None = None,
    scans: int = 0,
) -> tuple[int, int]:
    """``proposals`` split-merge Metropolis-Hastings proposals in place
    (:mod:`bayeswe.kernels.hdp_split_merge`, ``scans`` restricted Gibbs scans in each
    launch), each followed by ``beta | m``; returns the splits and merges accepted.
    ``log_ratio(kind, delta, log_q)`` is the log acceptance ratio of a proposal (default
    :func:`metropolis_log_ratio`; another rule serves power checks only)."""
    if proposals <= 0 or problem.n_tokens < 2:
        return 0, 0
    if state.split_scratch is None:
        state.split_scratch = sm.new_scratch(problem.n_tokens, problem.n_words)
    sc, order = state.split_scratch, problem.word_order

    def propose() -> int:
        if state.topics.n_free[0] == 0:  # a split needs a free slot
            _grow(state)
        return sm.propose(
            problem.corpus, order, state.counts, state.topics, state.alpha0, state.gamma,
            problem.eta, state.rng_state, sc, scans,
        )  # fmt: skip

    def settle(kind: int, accept: bool) -> None:
        sm.settle(problem.corpus, order, state.counts, state.lists, state.topics, state.m_k,
                  kind, accept, sc)  # fmt: skip

    return run_split_merge(state, proposals, propose, settle, lambda: state.topics, log_ratio)


def metropolis_log_ratio(kind: int, delta: float, log_q: float) -> float:
    """The log Metropolis-Hastings ratio of a split (``delta - log_q``) or a merge
    (``log_q - delta``), ``delta = log p(split) - log p(merged)`` and ``log_q`` the log
    probability of proposing the split from the merged state over that of proposing the
    merge from the split one (the allocation's and the anchors' parts)."""
    return delta - log_q if kind == sm.SPLIT else log_q - delta


def run_split_merge(
    state: Any,
    proposals: int,
    propose: Callable[[], int],
    settle: Callable[[int, bool], None],
    weights: Callable[[], Topics],
    log_ratio: Callable[[int, float, float], float] | None,
) -> tuple[int, int]:
    """The proposals of an HDP sampler's split-merge moves (``propose``: the kernel's
    proposal; ``settle(kind, accept)``: its application), each accepted by
    ``log_ratio`` (default :func:`metropolis_log_ratio`) and followed by
    ``beta | m ~ Dirichlet(m, gamma)`` (``weights()``: the state's top-level weights,
    asked afresh as growth replaces the arrays); the state's ``n_tables`` and ``moves``
    updated. Returns (splits, merges)."""
    rule = metropolis_log_ratio if log_ratio is None else log_ratio
    rng = state.rng_state
    moves = [0, 0, 0]
    for _ in range(proposals):
        kind = propose()
        sc = state.split_scratch
        accept = False
        if kind != sm.NONE:
            log_r = rule(kind, float(sc.floats[0]), float(sc.floats[1]))
            accept = log_r >= 0.0 or math.log(1.0 - next_double(rng)) < log_r
        settle(kind, accept)
        moves[kind] += accept
        kern.sample_beta(state.m_k, weights(), state.gamma, rng)
    state.n_tables = int(state.m_k.sum())
    state.moves = (state.moves[0] + moves[sm.SPLIT], state.moves[1] + moves[sm.MERGE])
    return moves[sm.SPLIT], moves[sm.MERGE]


def _update_weights(problem: HDPProblem, state: HDPState) -> HDPState:
    """Tables, concentrations and ``beta`` after the tokens (steps 2-4 of the kernels)."""
    rng = state.rng_state
    n_tables = kern.sample_tables(
        state.counts.n_dk, state.topics.beta, state.alpha0, rng, state.m_k
    )
    if problem.resample:
        a, b = problem.alpha0_prior
        state.alpha0 = kern.resample_alpha0(state.alpha0, problem.doc_len, n_tables, a, b, rng)
        a, b = problem.gamma_prior
        state.gamma = kern.resample_gamma(state.gamma, state.n_topics, n_tables, a, b, rng)
    kern.sample_beta(state.m_k, state.topics, state.gamma, rng)
    state.n_tables = n_tables
    state.sweeps_done += 1
    return state


def log_joint(problem: HDPProblem, state: HDPState) -> float:
    """The chain's ``lp`` (:func:`bayeswe.kernels.hdp_lda.log_joint`)."""
    return float(kern.log_joint(state.counts, state.topics.beta, state.alpha0, problem.eta))


def word_predictive(
    problem: HDPProblem, state: HDPState, docs: np.ndarray, words: np.ndarray
) -> np.ndarray:
    """``p(w | d)`` for each pair ``(docs[i], words[i])``: the probability that the next
    token of training document ``d`` is ``w``, given the chain's indicators and ``beta``
    (the Rao-Blackwell estimate, label-free):
    ``sum_k (n_dk + alpha0 beta_k) / (n_d + alpha0) (n_wk + eta) / (n_k + V eta)`` over
    the represented topics, plus ``alpha0 beta_u / (n_d + alpha0) / V`` for the others."""
    counts, beta, alpha0 = state.counts, state.topics.beta, state.alpha0
    V, eta = problem.n_words, problem.eta
    n_d = problem.doc_len[docs].astype(np.float64)
    live = np.flatnonzero(counts.n_k > 0)
    theta = (counts.n_dk[docs][:, live] + alpha0 * beta[live]) / (n_d + alpha0)[:, None]
    phi = (counts.n_wk[words][:, live] + eta) / (counts.n_k[live] + V * eta)
    new_topics = alpha0 * state.topics.rest[0] / (n_d + alpha0) / V
    return (theta * phi).sum(axis=1) + new_topics


def topic_summary(problem: HDPProblem, state: HDPState) -> dict[str, np.ndarray]:
    """The ``display`` largest topics, largest first: ``topic_tokens``, ``beta``, ``phi``.

    Padded with 0 tokens and ``NaN`` weights and word distributions.
    """
    T, V, eta = problem.display, problem.n_words, problem.eta
    n_k = state.counts.n_k
    live = np.flatnonzero(n_k > 0)
    order = live[np.argsort(-n_k[live], kind="stable")][:T]
    tokens = np.zeros(T, dtype=np.int64)
    beta = np.full(T, np.nan)
    phi = np.full((T, V), np.nan)
    n = order.size
    tokens[:n] = n_k[order]
    beta[:n] = state.topics.beta[order]
    phi[:n] = (state.counts.n_wk[:, order].T + eta) / (n_k[order][:, None] + V * eta)
    return {"topic_tokens": tokens, "beta": beta, "phi": phi}


@dataclass(frozen=True)
class HDPInfo:
    """What one sweep reports: the log joint (``None`` when neither warm-up nor kept),
    the display arrays of a kept sweep, nanoseconds spent in :func:`step`, and the
    split-merge moves accepted (splits, merges)."""

    lp: float | None
    topics: dict[str, np.ndarray] | None
    sweep_ns: int
    moves: tuple[int, int] = (0, 0)


_SCALARS = ("n_topics", "n_tables", "alpha0", "gamma", "beta_u")


class HDPChains:
    """What the chains of the HDP samplers (HDP-LDA, infinite Gaussian LDA) share for
    :func:`bayeswe.samplers.driver.run_chains`: the step (the log joint on warm-up and
    kept sweeps, the display arrays on kept ones), the label-free record and the
    concentrations a checkpoint keeps. A subclass gives :meth:`sweep`,
    :meth:`log_joint`, :meth:`topic_summary`, :meth:`leftover` and its state's arrays
    (``dump``'s arrays, ``load``)."""

    def __init__(
        self,
        problem: Any,
        *,
        seed: int,
        schedule: Any,
        initial_topics: int | tuple[int, ...],
        keep_topics: bool,
        topic_layout: dict[str, Any],
    ) -> None:
        """``topic_layout``: the shapes and dtypes of :meth:`topic_summary`'s arrays,
        recorded on kept sweeps when ``keep_topics``; ``initial_topics``: one number for
        every chain or a tuple, one per chain."""
        self.problem = problem
        self.seed = int(seed)
        self.schedule = schedule
        self.initial_topics = (
            int(initial_topics)
            if isinstance(initial_topics, (int, np.integer))
            else tuple(int(k) for k in initial_topics)
        )
        self.keep_topics = bool(keep_topics)
        self.layout: dict[str, Any] = {"lp": ((), np.float64)}
        self.layout |= {name: ((), np.float64) for name in _SCALARS}
        if keep_topics:
            self.layout |= topic_layout

    def topics_at_start(self, chain: int) -> int:
        """The number of topics chain ``chain`` starts from."""
        k = self.initial_topics
        return k if isinstance(k, int) else k[chain]

    def sweep(self, state: Any) -> None:
        """One sweep in place."""
        raise NotImplementedError

    def log_joint(self, state: Any) -> float:
        raise NotImplementedError

    def topic_summary(self, state: Any) -> dict[str, np.ndarray]:
        """The display arrays of the state's largest topics."""
        raise NotImplementedError

    def leftover(self, state: Any) -> float:
        """``beta_u``: the top-level weight of the topics not represented."""
        raise NotImplementedError

    def step(self, state: Any) -> tuple[Any, HDPInfo]:
        t0 = time.perf_counter_ns()
        self.sweep(state)
        ns = time.perf_counter_ns() - t0
        t = state.sweeps_done - 1
        kept = self.schedule.kept_index(t) is not None
        lp = self.log_joint(state) if kept or t < self.schedule.iter_warmup else None
        topics = self.topic_summary(state) if kept and self.keep_topics else None
        return state, HDPInfo(lp, topics, ns, getattr(state, "moves", (0, 0)))

    def record(self, state: Any, info: HDPInfo) -> dict[str, Any]:
        out: dict[str, Any] = {
            "lp": info.lp,
            "n_topics": state.n_topics,
            "n_tables": state.n_tables,
            "alpha0": state.alpha0,
            "gamma": state.gamma,
            "beta_u": self.leftover(state),
        }
        return out | (info.topics or {})

    def lp(self, info: HDPInfo) -> float | None:
        return info.lp

    def tally(self, info: HDPInfo) -> dict[str, int]:
        return {"sweep_ns": info.sweep_ns, "splits": info.moves[0], "merges": info.moves[1]}

    @staticmethod
    def scalars_record(state: Any) -> dict[str, Any]:
        """The checkpoint record of the state's scalars (floats exact, as hex)."""
        return {
            "sweeps_done": int(state.sweeps_done),
            "alpha0": float(state.alpha0).hex(),
            "gamma": float(state.gamma).hex(),
            "n_tables": int(state.n_tables),
        }


class HDPSampler(HDPChains):
    """HDP-LDA chains for :func:`bayeswe.samplers.driver.run_chains`."""

    name = "hdp-lda-cgs"

    def __init__(
        self,
        problem: HDPProblem,
        *,
        seed: int,
        schedule: Any,
        initial_topics: int | tuple[int, ...] = 1,
        keep_topics: bool = True,
        method: str = "cgs",
        rebuild_every: int | None = None,
        split_merge: int = 0,
        split_merge_scans: int = 0,
    ) -> None:
        if method not in ("cgs", "alias-mh"):
            raise ValueError(f"method must be 'cgs' or 'alias-mh', got {method!r}")
        self.method = method
        self.name = f"hdp-lda-{method}"
        self.rebuild_every = rebuild_every
        self.split_merge = int(split_merge)
        self.split_merge_scans = int(split_merge_scans)
        T, V = problem.display, problem.n_words
        topic_layout = {
            "topic_tokens": ((T,), np.int64),
            "beta": ((T,), np.float64),
            "phi": ((T, V), np.float64),
        }
        super().__init__(problem, seed=seed, schedule=schedule, initial_topics=initial_topics,
                         keep_topics=keep_topics, topic_layout=topic_layout)  # fmt: skip

    def init(self, chain: int) -> HDPState:
        return init_state(self.problem, self.seed, chain, self.topics_at_start(chain))

    def sweep(self, state: HDPState) -> None:
        state.moves = (0, 0)
        if self.method == "alias-mh":
            step_alias(self.problem, state, self.rebuild_every, self.split_merge,
                       self.split_merge_scans)  # fmt: skip
        else:
            step(self.problem, state, self.split_merge, self.split_merge_scans)

    def log_joint(self, state: HDPState) -> float:
        return log_joint(self.problem, state)

    def topic_summary(self, state: HDPState) -> dict[str, np.ndarray]:
        return topic_summary(self.problem, state)

    def leftover(self, state: HDPState) -> float:
        return float(state.topics.rest[0])

    def dump(self, state: HDPState) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        c, t = state.counts, state.topics
        arrays = {
            "z": c.z, "n_dk": c.n_dk, "n_wk": c.n_wk, "n_k": c.n_k,
            "wl_topic": state.lists.topic, "wl_pos": state.lists.pos,
            "wl_len": state.lists.length, "beta": t.beta, "rest": t.rest, "free": t.free,
            "n_free": t.n_free, "m_k": state.m_k, "rng_state": state.rng_state,
        }  # fmt: skip
        return arrays, self.scalars_record(state)

    def load(self, arrays: Mapping[str, np.ndarray], record: Mapping[str, Any]) -> HDPState:
        a = {name: np.array(value) for name, value in arrays.items()}
        state = HDPState(
            counts=Counts(a["z"], a["n_dk"], a["n_wk"], a["n_k"]),
            lists=WordLists(a["wl_topic"], a["wl_pos"], a["wl_len"]),
            topics=Topics(a["beta"], a["rest"], a["free"], a["n_free"]),
            m_k=a["m_k"],
            rng_state=a["rng_state"],
            alpha0=float.fromhex(record["alpha0"]),
            gamma=float.fromhex(record["gamma"]),
            n_tables=int(record["n_tables"]),
            sweeps_done=int(record["sweeps_done"]),
        )
        check_state(self.problem, state)
        return state


def check_state(problem: HDPProblem, state: HDPState) -> None:
    """Raise ``ValueError`` unless the state is consistent: dtypes and shapes, counts and
    word lists that follow from ``z``, weights on exactly the represented slots, the free
    stack holding exactly the empty slots."""
    C = state.capacity
    c, t = state.counts, state.topics
    D, V, N = problem.n_docs, problem.n_words, problem.n_tokens
    expected = {
        "z": (c.z, (N,), np.int32), "n_dk": (c.n_dk, (D, C), np.int32),
        "n_wk": (c.n_wk, (V, C), np.int32), "n_k": (c.n_k, (C,), np.int64),
        "wl_topic": (state.lists.topic, (V, C), np.int32),
        "wl_pos": (state.lists.pos, (V, C), np.int32),
        "wl_len": (state.lists.length, (V,), np.int32), "beta": (t.beta, (C,), np.float64),
        "rest": (t.rest, (1,), np.float64), "free": (t.free, (C,), np.int32),
        "n_free": (t.n_free, (1,), np.int64), "m_k": (state.m_k, (C,), np.int64),
        "rng_state": (state.rng_state, (4,), np.uint64),
    }  # fmt: skip
    for name, (value, shape, dtype) in expected.items():
        if value.shape != shape or value.dtype != dtype:
            raise ValueError(f"state array {name} is {value.dtype}{value.shape}; need {shape}")
    if N and not (0 <= c.z.min() and c.z.max() < C):
        raise ValueError("topic assignments out of range")
    ref = state_from_assignments(
        problem, c.z, t.beta, 0.0, rng_state=state.rng_state, alpha0=1.0, gamma=1.0, capacity=C
    )
    for name in ("n_dk", "n_wk", "n_k"):
        if not np.array_equal(getattr(ref.counts, name), getattr(c, name)):
            raise ValueError(f"counts {name} do not follow from the assignments")
    live = c.n_k > 0
    if not np.array_equal(state.lists.length, ref.lists.length) or not all(
        np.array_equal(np.sort(state.lists.topic[w, :n]), ref.lists.topic[w, :n])
        for w, n in enumerate(ref.lists.length)
    ):
        raise ValueError("word-topic lists do not match the counts")
    n_free = int(t.n_free[0])
    if (
        not (t.beta[~live] == 0).all()
        or not (t.beta[live] >= 0).all()
        or not np.array_equal(np.sort(t.free[:n_free]), np.flatnonzero(~live))
        or not (0 <= t.rest[0] <= 1)
        or not state.rng_state.any()
    ):
        raise ValueError("top-level weights, free slots or random stream are inconsistent")


def _warm_up_compiler() -> None:
    """Compile the kernels on a two-token problem so that timings exclude compilation."""
    from bayeswe.corpus import Vocabulary

    bow = BagOfWords.from_token_ids([[0, 1]], Vocabulary(("a", "b")))
    tiny = HDPProblem.from_data(HDPLDAData(bow, truncation=2), HDPArgs())
    state = init_state(tiny, 0, 0, 1)
    step(tiny, state)
    step_alias(tiny, state)
    log_joint(tiny, state)
    kern.resample_alpha0(1.0, tiny.doc_len, 2, 1.0, 1.0, state.rng_state)
    kern.resample_gamma(1.0, 1, 2, 1.0, 1.0, state.rng_state)


def sample_hdp_lda(
    data: HDPLDAData | LDAData | BagOfWords,
    *,
    seed: int | None = None,
    chains: int | None = None,
    method: str = "cgs",
    **options: Any,
) -> az.InferenceData:
    """Sample the HDP-LDA posterior by direct-assignment collapsed Gibbs sampling.

    ``method="cgs"`` draws each token by :func:`step`, ``method="alias-mh"`` by
    :func:`step_alias` (the same exact conditional; cheaper per token with many topics).

    Parameters
    ----------
    data
        An :class:`~bayeswe.dp.HDPLDAData` (its ``truncation`` only sets how many
        topics a draw records for display: the sampler is not truncated), or an
        :class:`~bayeswe.lda.LDAData` or a bag of words (:func:`as_hdp_data`).
    seed
        Seed in ``[0, 2**32 - 1]`` (``None``: a random one, recorded in ``attrs``).
    chains
        Number of chains (default 4).
    method
        ``"cgs"`` (default) or ``"alias-mh"``.
    **options
        See :class:`HDPArgs` (``alias-mh``: :class:`HDPAliasArgs`, which adds
        ``rebuild_every``): ``iter_warmup``, ``iter_sampling``, ``thin``,
        ``resample_concentrations``, ``alpha0_prior``, ``gamma_prior``,
        ``initial_topics``, ``split_merge``, ``split_merge_scans``, ``keep_topics``,
        ``parallel_chains``,
        ``threads_per_chain``,
        ``checkpoint``, ``checkpoint_every``, ``callback``, ``show_progress``.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``n_topics``, ``n_tables``, ``alpha0``, ``gamma``, ``beta_u``
        ``(chain, draw)``, label-free (diagnose these); ``sample_stats.lp``:
        ``log p(w | z) + log p(z | alpha0 beta)``; ``warmup_sample_stats.lp``;
        ``topics`` (with ``keep_topics``): ``topic_tokens``, ``beta`` ``(chain, draw,
        topic)`` and ``phi`` ``(chain, draw, topic, word)``, each draw's largest
        topics first, for display only (labels switch); ``observed_data`` and
        ``constant_data`` as the Stan twin's. ``attrs`` as
        :func:`bayeswe.samplers.lda_cgs.sample_cgs`'s, plus ``max_topics`` (largest
        number of topics seen), ``resample_concentrations``, ``initial_topics`` (a
        number, or a JSON list with one per chain), ``split_merge``,
        ``split_merge_scans`` and the moves accepted, ``splits_accepted`` and
        ``merges_accepted``.

    Raises
    ------
    DPDataError
        Unusable data.
    ValueError
        A bad option or chains, before anything runs.
    CheckpointError
        A checkpoint written for other data or settings, corrupt, or in use.
    """
    from bayeswe.dp.models import HDP_LDA
    from bayeswe.samplers.driver import Schedule
    from bayeswe.stan.fitting import check_seed

    if method not in ("cgs", "alias-mh"):
        raise ValueError(f"hdp_lda's sampler takes method 'cgs' or 'alias-mh', got {method!r}")
    hdp = as_hdp_data(data)
    args = (HDPAliasArgs if method == "alias-mh" else HDPArgs).from_options(options)
    seed = check_seed(seed)
    chains = 4 if chains is None else chains
    check_int("chains", chains, minimum=1)
    chains = int(chains)
    schedule = Schedule(args.get("iter_warmup"), args.get("iter_sampling"), args.get("thin"))
    problem = HDPProblem.from_data(hdp, args)
    _warm_up_compiler()
    sampler = HDPSampler(
        problem,
        seed=seed,
        schedule=schedule,
        initial_topics=initial_topics_by_chain(args.get("initial_topics"), chains),
        keep_topics=args.get("keep_topics"),
        method=method,
        rebuild_every=getattr(args, "rebuild_every", None),
        split_merge=args.get("split_merge"),
        split_merge_scans=args.get("split_merge_scans"),
    )
    extra = {"rebuild_every": sampler.rebuild_every} if method == "alias-mh" else {}
    if sampler.split_merge:  # absent at 0, so that older checkpoints resume
        extra["split_merge"] = sampler.split_merge
    if sampler.split_merge_scans:
        extra["split_merge_scans"] = sampler.split_merge_scans
    run = run_hdp(problem, sampler, args, schedule, chains=chains, seed=seed, settings=extra)
    return hdp_inference_data(
        HDP_LDA, hdp, problem, run, schedule, seed, chains, model="hdp_lda", method=method,
        topic_arrays=("topic_tokens", "beta", "phi"),
        extra_attrs={"split_merge": sampler.split_merge,
                     "split_merge_scans": sampler.split_merge_scans,
                     "initial_topics": sampler.initial_topics},
    )  # fmt: skip


def run_hdp(
    problem: Any,
    sampler: Any,
    args: HDPArgs,
    schedule: Any,
    *,
    chains: int,
    seed: int,
    settings: Mapping[str, Any],
) -> Any:
    """Run an HDP sampler's chains through the driver (:func:`~bayeswe.samplers.driver.
    run_chains`), its checkpoint fingerprinted by the problem, the concentrations' priors,
    the start and display settings and ``settings`` (the method's own)."""
    from bayeswe.samplers.driver import RunOptions, run_chains

    return run_chains(
        sampler,
        chains=chains,
        schedule=schedule,
        seed=seed,
        fingerprint=problem.fingerprint(),
        settings={
            "resample": problem.resample,
            "alpha0_prior": list(problem.alpha0_prior),
            "gamma_prior": list(problem.gamma_prior),
            # one number stays a number, so that checkpoints written before per-chain
            # starts resume
            "initial_topics": (
                sampler.initial_topics
                if isinstance(sampler.initial_topics, int)
                else list(sampler.initial_topics)
            ),
            "keep_topics": sampler.keep_topics,
            "display": problem.display,
            **settings,
        },
        options=RunOptions(
            parallel_chains=args.parallel_chains or min(chains, os.cpu_count() or 1),
            checkpoint=args.checkpoint,
            checkpoint_every=args.get("checkpoint_every"),
            callback=args.callback,
            show_progress=args.show_progress,
        ),
    )


def hdp_inference_data(
    spec: Any, hdp: Any, problem: Any, run: Any, schedule: Any, seed: int, chains: int, *,
    model: str, method: str, topic_arrays: tuple[str, ...],
    extra_attrs: Mapping[str, Any] | None = None,
) -> az.InferenceData:  # fmt: skip
    """An HDP run's InferenceData: the label-free scalars in ``posterior``, ``lp`` in
    ``sample_stats`` (and ``warmup_sample_stats``), and, when the draws recorded them, the
    ``topic_arrays`` of each draw's largest topics in the group ``topics``; ``attrs``
    with ``extra_attrs`` and, for a sampler that tallies them, the split-merge moves
    accepted."""
    from bayeswe.inference_data import to_inference_data

    draws = run.draws
    n_topics = np.asarray(draws["n_topics"])
    max_topics = int(n_topics.max())
    shown = min(max_topics, problem.display)
    sweep_time = float(run.totals["sweep_ns"].sum()) / 1e9
    attrs = {
        "model": model,
        "method": method,
        "seed": seed,
        "chains": chains,
        "iter_warmup": schedule.iter_warmup,
        "iter_sampling": schedule.iter_sampling,
        "thin": schedule.thin,
        "parallel_chains": run.parallel_chains,
        "threads_per_chain": 1,
        "n_tokens": problem.n_tokens,
        "wall_time": run.wall_time,
        "sweep_time": sweep_time,
        "tokens_per_s": problem.n_tokens * schedule.total * chains / sweep_time
        if sweep_time > 0
        else float("nan"),
        "max_topics": max_topics,
        "resample_concentrations": problem.resample,
        "resumed": bool(run.resumed),
    }
    attrs |= extra_attrs or {}
    if "splits" in run.totals:
        attrs["splits_accepted"] = int(run.totals["splits"].sum())
        attrs["merges_accepted"] = int(run.totals["merges"].sum())
    data = {**hdp.to_stan(), COORDS_KEY: {**hdp.coords(), "topic": np.arange(shown)}}
    scalars = {name: np.array(draws[name]) for name in _SCALARS}
    for name in ("n_topics", "n_tables"):
        scalars[name] = scalars[name].astype(np.int64)
    idata = to_inference_data(
        spec,
        scalars,
        data=data,
        sample_stats={"lp": np.array(draws["lp"])},
        warmup_sample_stats={"lp": run.warmup_lp} if schedule.iter_warmup else None,
        attrs=attrs,
        library=None,
    )
    if topic_arrays[-1] in draws:
        topics = {name: np.array(draws[name])[:, :, :shown] for name in topic_arrays}
        display = to_inference_data(spec, topics, data=data, attrs=attrs, library=None)
        idata.add_groups({"topics": display.posterior})
    return idata
