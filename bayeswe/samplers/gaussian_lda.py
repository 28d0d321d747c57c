"""Collapsed Gibbs samplers of Gaussian LDA: exact (``cgs``) and alias-table MH (``alias-mh``).

``bayeswe.fit("gaussian_lda", data, method="cgs" | "alias-mh", seed=, chains=, ...)``
calls :func:`sample_gaussian_lda`. The sampler is a small per-chain
:class:`GLDAState` (topic assignments plus the cached Cholesky factors of eq. (2)-(4))
and :func:`step` (one sweep over all tokens by a Numba kernel of
:mod:`bayeswe.kernels.glda`, updating the chain's state in place and returning it with
a :class:`StepInfo`); :class:`GLDASampler` binds them to a run and
:func:`bayeswe.samplers.driver.run_chains` runs the chains, warm-up, thinning and
checkpoints.

Saved per kept sweep (the collapsed state ``z`` determines the conditional
posterior of the integrated-out parameters; we save its **means**, i.e.
Rao-Blackwellised estimates, not draws from it):

* ``theta (doc, topic)``: ``E[theta_d | z] = (n_dk + alpha_k) / (N_d + sum alpha)``;
* ``mu (topic, dim)``: ``E[mu_k | z] = mu_k`` of eq. (2);
* ``Sigma (topic, dim, dim2)``: ``E[Sigma_k | z] = Psi_k / (nu_k - D - 1)``
  (the inverse-Wishart mean; it exists because ``nu_k = nu + N_k > D + 1`` whenever
  ``nu > D + 1`` or the topic holds enough tokens; otherwise the mode
  ``Psi_k / (nu_k + D + 1)`` is saved and ``attrs["sigma_mode_used"]`` says how often);
* ``topic_tokens (topic)``: ``N_k``, the number of tokens of each topic.

``sample_stats``: ``lp`` = ``log p(z, v)`` (theta, mu, Sigma integrated out) and
``acceptance_rate`` (MH acceptance of the sweep; 1 for exact Gibbs).
``warmup_sample_stats`` holds ``lp`` of every warm-up sweep.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from bayeswe._arviz import az
from bayeswe.errors import StateMethodError
from bayeswe.glda.data import GaussianLDAData, GaussianLDADataError
from bayeswe.kernels import glda as kern
from bayeswe.kernels.glda import blocks as block_kern
from bayeswe.kernels.glda.structs import (
    AliasOptions,
    AliasTables,
    Corpus,
    Densities,
    DensityCache,
    PrecisionCache,
    Prior,
    TopicLists,
    TopicMinor,
    Topics,
    TopicSums,
    WordGroups,
)
from bayeswe.kernels.topic_lists import fill_topic_lists
from bayeswe.options import build_options, check_bool, check_choice, check_int
from bayeswe.progress import resolve as progress_resolve
from bayeswe.samplers.driver import CHECKPOINT_VERSION

__all__ = [
    "CHECKPOINT_VERSION",
    "GLDAGibbsArgs",
    "GLDAProblem",
    "GLDASampler",
    "GLDAState",
    "StepInfo",
    "init_state",
    "lp",
    "sample_gaussian_lda",
    "step",
]

METHODS = ("cgs", "alias-mh")
DENSITIES = ("precision", "solve")
SCANS = ("document", "word")
#: ``rebuild_every`` of the paper's scan that freezes each table after its first build.
NEVER = "never"


# --------------------------------------------------------------------------- problem


@dataclass(frozen=True, eq=False)
class GLDAProblem:
    """Flat arrays of a :class:`GaussianLDAData`: tokens, embeddings, priors."""

    data: GaussianLDAData
    tok_doc: np.ndarray  # int32 (N,), documents in order
    tok_word: np.ndarray  # int32 (N,)
    emb: np.ndarray  # float64 (V, D)
    alpha: np.ndarray  # float64 (K,)
    mu0: np.ndarray
    kappa0: float
    nu0: float
    Psi0: np.ndarray
    logdet_psi0: float

    @classmethod
    def from_data(cls, data: GaussianLDAData) -> GLDAProblem:
        if not isinstance(data, GaussianLDAData):
            raise GaussianLDADataError(
                "Gaussian LDA samplers take a bayeswe.glda.GaussianLDAData, got "
                f"{type(data).__name__}"
            )
        doc, word = data.corpus.tokens()
        return cls(
            data=data,
            tok_doc=np.ascontiguousarray(doc, dtype=np.int32),
            tok_word=np.ascontiguousarray(word, dtype=np.int32),
            emb=np.ascontiguousarray(data.embeddings, dtype=np.float64),
            alpha=np.ascontiguousarray(data.alpha, dtype=np.float64),
            mu0=np.ascontiguousarray(data.mu0, dtype=np.float64),
            kappa0=float(data.kappa),
            nu0=float(data.nu),
            Psi0=np.ascontiguousarray(data.Psi, dtype=np.float64),
            logdet_psi0=float(np.linalg.slogdet(data.Psi)[1]),
        )

    @functools.cached_property
    def word_order(self) -> np.ndarray:
        """Token indices grouped by word type, corpus order within a type: alias-MH's
        visiting order for ``scan="word"``."""
        return np.argsort(self.tok_word, kind="stable").astype(np.int32)

    @functools.cached_property
    def word_start(self) -> np.ndarray:
        """``word_order[word_start[w]:word_start[w + 1]]`` are word ``w``'s tokens."""
        return block_kern.word_starts(self.word_order, self.tok_word, self.emb.shape[0])

    @functools.cached_property
    def nu_lgamma(self) -> np.ndarray:
        """``sum_{i < D} lgamma((nu + n - i) / 2)`` for topics of ``n = 0 .. N`` tokens."""
        return block_kern.nu_lgamma_table(self.nu0, self.D, self.n_tokens)

    @functools.cached_property
    def corpus_order(self) -> np.ndarray:
        """``0 .. N - 1``: alias-MH's visiting order for ``scan="document"``."""
        return np.arange(self.n_tokens, dtype=np.int32)

    @property
    def K(self) -> int:
        return int(self.alpha.shape[0])

    @property
    def D(self) -> int:
        return int(self.emb.shape[1])

    @property
    def n_docs(self) -> int:
        return self.data.n_docs

    @property
    def n_tokens(self) -> int:
        return int(self.tok_doc.shape[0])

    def fingerprint(self) -> str:
        """Hash of everything that defines the posterior (checked on resume)."""
        h = hashlib.sha256()
        for a in (self.tok_doc, self.tok_word, self.emb, self.alpha, self.mu0, self.Psi0):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(repr((self.kappa0, self.nu0)).encode())
        return h.hexdigest()


# --------------------------------------------------------------------------- state / step


@dataclass(eq=False)
class GLDAState:
    """One chain: assignments, counts, topic parameters, alias tables, random stream."""

    z: np.ndarray  # int32 (N,)
    n_dk: np.ndarray  # int32 (n_docs, K)
    mu: np.ndarray  # (K, D) posterior means of eq. (2)
    R: np.ndarray  # (K, D, D) upper Cholesky factors of Psi_k (Psi_k = R_k' R_k)
    invd: np.ndarray  # (K, D) 1 / diag(R_k)
    logdet: np.ndarray  # (K,) log|Psi_k|
    kappa_k: np.ndarray
    nu_k: np.ndarray
    tconst: np.ndarray
    tscale: np.ndarray
    texp: np.ndarray
    rng: np.ndarray  # uint64 (1,) splitmix64 state
    sweep: int = 0
    # alias tables (alias-mh only; empty arrays otherwise)
    stale_logw: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0)))
    stale_logq: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    stale_t: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0)))
    alias_prob: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0)))
    alias_idx: np.ndarray = dataclasses.field(
        default_factory=lambda: np.zeros((0, 0), dtype=np.int32)
    )
    uses: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # alias-mh's word-topic counts n_wk (V, K), derived from z and kept in step by the
    # kernel; trusted only if no other sweep came between (word_topic_sweep == sweep),
    # else rebuilt: rebuilding every sweep cost a third of a sweep at K = 500
    word_topic: np.ndarray | None = None
    word_topic_sweep: int = -1
    # alias-mh's per-document topic lists (top, pos, length): scratch the kernel fills
    # from n_dk at each sweep, held here so a sweep allocates nothing of size n_docs x K
    doc_lists: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    # how the last alias-mh sweep stored its tables: True for the scan by word's
    # cumulative sums, False for the paper's scan's Vose tables, None if unknown (a new
    # state, or one read from a checkpoint, whose scan the resumed run must match)
    tables_cumulative: bool | None = None
    # the paper's scan's per-word topic lists (top, pos, length) of n_wk: kept in step by
    # its sweeps and trusted only if the last sweep was one of them with nothing after it
    # (word_lists_sweep == sweep), else refilled from n_wk
    word_lists: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    word_lists_sweep: int = -1

    ARRAYS = (
        "z", "n_dk", "mu", "R", "invd", "logdet", "kappa_k", "nu_k", "tconst", "tscale", "texp",
        "rng", "stale_logw", "stale_logq", "stale_t", "alias_prob", "alias_idx", "uses",
    )  # fmt: skip

    @property
    def counts_k(self) -> np.ndarray:
        return self.n_dk.sum(axis=0)

    def psi(self) -> np.ndarray:
        """``Psi_k = R_k' R_k`` for every topic, ``(K, D, D)``."""
        return np.swapaxes(self.R, 1, 2) @ self.R


@dataclass(frozen=True)
class StepInfo:
    """What one sweep did."""

    lp: float
    acceptance_rate: float
    changed: int
    rebuilds: int
    #: word-type block moves tried and accepted in the sweep (``type_moves``)
    type_moves_tried: int = 0
    type_moves_accepted: int = 0


def _chain_seeds(seed: int, chain: int) -> tuple[np.random.Generator, np.ndarray]:
    ss = np.random.SeedSequence(seed, spawn_key=(chain,))
    init_ss, kern_ss = ss.spawn(2)
    rng = kern_ss.generate_state(1, dtype=np.uint64).astype(np.uint64)
    return np.random.Generator(np.random.PCG64(init_ss)), rng


def _kmeans_topics(
    problem: GLDAProblem, gen: np.random.Generator, iters: int = 20, restarts: int = 4
) -> np.ndarray:
    """Topic of each token from weighted k-means of the word types.

    k-means++ seeding, ``restarts`` runs, the one of least weighted inertia is kept.
    """
    K = problem.K
    types, counts = np.unique(problem.tok_word, return_counts=True)
    X = problem.emb[types]
    w = counts.astype(np.float64)
    best, best_inertia = None, np.inf
    for _ in range(restarts):
        centers = np.empty((K, X.shape[1]))
        centers[0] = X[gen.choice(len(types), p=w / w.sum())]
        d2 = ((X - centers[0]) ** 2).sum(axis=1)
        for k in range(1, K):
            p = w * d2
            p = w / w.sum() if p.sum() <= 0 else p / p.sum()
            centers[k] = X[gen.choice(len(types), p=p)]
            d2 = np.minimum(d2, ((X - centers[k]) ** 2).sum(axis=1))
        for _ in range(iters):
            dist = (X * X).sum(axis=1)[:, None] - 2.0 * X @ centers.T + (centers**2).sum(axis=1)
            label = dist.argmin(axis=1)
            for k in range(K):
                mask = label == k
                if mask.any():
                    centers[k] = (w[mask, None] * X[mask]).sum(axis=0) / w[mask].sum()
        inertia = float((w * dist[np.arange(len(types)), label]).sum())
        if inertia < best_inertia:
            best, best_inertia = label, inertia
    topic_of_type = np.zeros(problem.emb.shape[0], dtype=np.int32)
    topic_of_type[types] = best
    return topic_of_type[problem.tok_word]


def init_state(
    problem: GLDAProblem,
    *,
    seed: int,
    chain: int = 0,
    method: str = "cgs",
    init: str = "random",
    z: np.ndarray | None = None,
) -> GLDAState:
    """A chain's start: topics by ``init`` (or ``z``), topic factors from scratch.

    ``init="random"``: uniform topics per token; ``"kmeans"``: every token of a word
    type gets the word's cluster from weighted k-means (k-means++ seeding) of the
    word vectors - collapsed Gibbs moves one token at a time and can stay for
    hundreds of sweeps in a mode where one topic covers two clusters, which a
    k-means start mostly avoids. Chain ``c`` draws its start from
    ``PCG64(SeedSequence(seed, (c,)).spawn(2)[0])`` and seeds its sweep stream from the
    second child, so chains are independent and the draws do not depend on how many
    chains run or in which thread.
    """
    K, D, V = problem.K, problem.D, problem.emb.shape[0]
    gen, rng = _chain_seeds(seed, chain)
    if z is None and init == "kmeans":
        z = _kmeans_topics(problem, gen)
    elif z is None:
        z = gen.integers(0, K, size=problem.n_tokens).astype(np.int32)
    else:
        z = np.ascontiguousarray(z, dtype=np.int32)
        if z.shape != (problem.n_tokens,) or z.min() < 0 or z.max() >= K:
            raise ValueError(f"initial z must have shape ({problem.n_tokens},) in [0, {K})")
    n_dk = np.zeros((problem.n_docs, K), dtype=np.int32)
    np.add.at(n_dk, (problem.tok_doc, z), 1)
    topics = Topics(np.zeros((K, D)), np.zeros((K, D, D)), np.zeros((K, D)),
                    *(np.zeros(K) for _ in range(6)))  # fmt: skip
    sums = TopicSums(np.zeros(K, np.int64), np.zeros((K, D)), np.zeros((K, D, D)))
    if not kern.init_topics(_corpus(problem), z, _prior(problem), topics, sums):
        raise GaussianLDADataError("a topic's scatter matrix Psi_k is not positive definite")
    state = GLDAState(z, n_dk, *topics, rng)
    if method == "alias-mh":
        state.stale_logw = np.zeros((V, K))
        state.stale_logq = np.zeros(V)
        state.stale_t = np.zeros((V, K))
        state.alias_prob = np.zeros((V, K))
        state.alias_idx = np.zeros((V, K), dtype=np.int32)
        state.uses = np.full(V, -1, dtype=np.int64)  # -1: table not built yet
    return state


def step(
    problem: GLDAProblem,
    state: GLDAState,
    *,
    method: str = "cgs",
    mh_steps: int = 2,
    rebuild_every: int | Literal["never"] | None = None,
    max_table_age: int | None = None,
    fresh_doc: bool = False,
    density: str = "precision",
    scan: str = "word",
    type_moves: int = 0,
) -> tuple[GLDAState, StepInfo]:
    """One sweep over all tokens: ``state`` (updated in place, owned by the chain) and
    the sweep's :class:`StepInfo`.

    ``density``: how the Mahalanobis distances of eq. (1) are computed, from a
    precision cache rebuilt from the factors at the start of the sweep and kept in step
    with them (``"precision"``, :func:`bayeswe.kernels.glda.sweep_cgs_precision`) or by
    forward substitutions with the factors (``"solve"``,
    :func:`bayeswe.kernels.glda.sweep_cgs`). Same conditional, same factor updates;
    the draws agree until rounding first differs.

    ``mh_steps``, ``rebuild_every``, ``max_table_age``, ``fresh_doc`` and ``scan`` are
    the ``alias-mh`` options of :class:`GLDAGibbsArgs`. ``type_moves`` (both methods):
    this many passes of word-type block moves per sweep, after it
    (:func:`bayeswe.kernels.glda.blocks.sweep_type_blocks`), except that alias-MH's scan
    by word makes the first pass inside the sweep.

    Raises
    ------
    StateMethodError
        ``method="alias-mh"`` on a state that :func:`init_state` built for ``cgs``
        (it holds no alias tables).
    ValueError
        An unknown method, density or scan, or alias-MH options that do not fit.
    """
    if method == "alias-mh":
        _check_alias_tables(problem, state)
    elif method != "cgs":
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    block_stats = np.zeros(3, dtype=np.int64)
    kern.resync_topics(state.kappa_k, state.nu_k, state.R, state.logdet, state.tconst,
                       state.tscale, state.texp)  # fmt: skip
    if method == "cgs":
        changed = _cgs_sweep(problem, state, density)
        acc, rebuilds, fused_blocks = 1.0, 0, False
    else:
        # the scan by word makes its first block pass itself, each word's move just
        # before its table is built from the same distances (O(K) a move, not O(K D^2))
        fused_blocks = bool(type_moves) and scan == "word"
        sweep = prepare_alias_sweep(
            problem, state, mh_steps=mh_steps, rebuild_every=rebuild_every,
            max_table_age=max_table_age, fresh_doc=fresh_doc, density=density, scan=scan,
            blocks=fused_blocks, block_stats=block_stats,
        )  # fmt: skip
        z_before = state.z.copy()
        if scan == "word":
            kern.sweep_alias_word(sweep.corpus, state.z, state.n_dk, state.word_topic, sweep.dens,
                                  sweep.tables, sweep.tcache, sweep.doc_lists, sweep.words,
                                  sweep.options, sweep.blocks, state.rng, sweep.work,
                                  sweep.iwork, sweep.stats, sweep.block_stats)  # fmt: skip
        else:
            kern.sweep_alias_document(sweep.corpus, state.z, state.n_dk, state.word_topic,
                                      sweep.dens, sweep.tables, sweep.tcache, sweep.doc_lists,
                                      sweep.word_lists, problem.corpus_order, sweep.options,
                                      state.rng, sweep.work, sweep.iwork, sweep.stats)  # fmt: skip
        acc, changed, rebuilds = finish_alias_sweep(state, sweep, z_before)
    passes = int(type_moves) - int(fused_blocks)
    if passes > 0:
        changed += _block_passes(problem, state, method, passes, block_stats)
    tried, accepted = int(block_stats[0]), int(block_stats[1])
    state.sweep += 1
    return state, StepInfo(lp(problem, state), acc, int(changed), rebuilds, tried, accepted)


def _cgs_sweep(problem: GLDAProblem, state: GLDAState, density: str) -> int:
    """One exact collapsed Gibbs sweep (``method="cgs"``); returns the tokens moved."""
    K, D, N = problem.K, problem.D, problem.n_tokens
    corpus, topics = _corpus(problem), _topics(state)
    work = np.empty(3 * D + 2 * K)
    if density == "precision":
        cache = _precision_cache(state)
        return int(kern.sweep_cgs_precision(corpus, state.z, state.n_dk, topics, cache,
                                            state.rng, work, 0, N))  # fmt: skip
    if density == "solve":
        minor = TopicMinor(
            np.empty((D, K)), np.zeros((D, D, K)), np.empty((D, K)), np.empty((D, K))
        )
        kern.topic_minor(topics, minor)
        return int(
            kern.sweep_cgs(corpus, state.z, state.n_dk, topics, minor, state.rng, work, 0, N)
        )
    raise ValueError(f"density must be one of {DENSITIES}, got {density!r}")


@dataclass(frozen=True, eq=False)
class AliasSweep:
    """The arguments of one alias-MH sweep's kernel besides the chain's own arrays
    (``z``, ``n_dk``, ``word_topic``, ``rng``): :func:`prepare_alias_sweep` builds them
    over the state's tables and lists, :func:`finish_alias_sweep` reads the outcome."""

    corpus: Corpus
    dens: Densities
    tables: AliasTables
    tcache: DensityCache
    doc_lists: TopicLists
    word_lists: TopicLists  #: scan="document" (empty arrays for the scan by word)
    words: WordGroups  #: scan="word"
    options: AliasOptions
    blocks: bool  #: the scan by word makes the first block pass
    work: np.ndarray
    iwork: np.ndarray
    stats: np.ndarray  #: int64 (3,): proposals, accepted, table rebuilds
    block_stats: np.ndarray
    scan: str


def prepare_alias_sweep(
    problem: GLDAProblem,
    state: GLDAState,
    *,
    mh_steps: int,
    rebuild_every: int | Literal["never"] | None,
    max_table_age: int | None,
    fresh_doc: bool,
    density: str,
    scan: str,
    blocks: bool,
    block_stats: np.ndarray,
) -> AliasSweep:
    """Check the alias-MH options of :func:`step` (``ValueError``) and ready ``state``
    for one sweep: table ages (``uses``), the word-topic counts and topic lists the
    kernel keeps in step, the precision cache; returns the kernel's other arguments.
    ``state`` must hold alias tables (:func:`_check_alias_tables`)."""
    K, D = problem.K, problem.D
    if density not in DENSITIES:
        raise ValueError(f"density must be one of {DENSITIES}, got {density!r}")
    if scan not in SCANS:
        raise ValueError(f"scan must be one of {SCANS}, got {scan!r}")
    if scan == "word" and (rebuild_every is not None or max_table_age is not None):
        raise ValueError(
            "scan='word' (the default) rebuilds every table once per sweep, just before "
            "its word's tokens: rebuild_every and max_table_age apply to "
            "scan='document' only"
        )
    if state.doc_lists is None or state.doc_lists[0].shape != state.n_dk.shape:
        n_docs = state.n_dk.shape[0]
        state.doc_lists = (
            np.empty((n_docs, K), dtype=np.int32),
            np.empty((n_docs, K), dtype=np.int32),
            np.empty(n_docs, dtype=np.int32),
        )
    _check_rebuild_every(rebuild_every, max_table_age)
    every = _rebuild_uses(rebuild_every, K)
    if scan == "word":
        # each table is built at its word's first token of the sweep and serves the
        # word's tokens in a row, never a later sweep (sweep_alias_word: exact)
        state.uses[:] = -1
        every = np.iinfo(np.int64).max
    elif state.tables_cumulative:
        # the tables hold the scan by word's cumulative sums, which the paper's
        # scan would read as Vose tables (and draw from the wrong proposal): build
        # every table afresh at its word's next use
        state.uses[:] = -1
    if max_table_age is not None:
        # a sweep counts as ceil(every / age) uses of every built table, so a table
        # is rebuilt at its first use once it is max_table_age sweeps old, however
        # rarely its word occurs
        built = state.uses >= 0
        state.uses[built] += -(-every // int(max_table_age))
    precision = density == "precision"
    cache = _precision_cache(state) if precision else _no_precision_cache()
    if state.word_topic is None or state.word_topic_sweep != state.sweep:
        state.word_topic = _word_topic_counts(problem, state)
    word_lists = scan == "document"
    if word_lists and (
        state.word_lists is None or state.word_lists[0].shape != state.word_topic.shape
    ):
        V = state.word_topic.shape[0]
        state.word_lists = (
            np.empty((V, K), dtype=np.int32),
            np.empty((V, K), dtype=np.int32),
            np.empty(V, dtype=np.int32),
        )
        state.word_lists_sweep = -1
    if word_lists and state.word_lists_sweep != state.sweep:
        fill_topic_lists(state.word_topic, *state.word_lists)
    no_lists = (np.empty((0, 0), dtype=np.int32),) * 2 + (np.empty(0, dtype=np.int32),)
    return AliasSweep(
        corpus=_corpus(problem),
        dens=Densities(_topics(state), cache, precision),
        tables=AliasTables(
            state.stale_logw,
            state.stale_logq,
            state.stale_t,
            state.alias_prob,
            state.alias_idx,
            state.uses,
        ),
        tcache=_density_cache(K),
        doc_lists=TopicLists(*state.doc_lists),
        word_lists=TopicLists(*(state.word_lists if word_lists else no_lists)),
        words=_word_groups(problem, problem.nu_lgamma if blocks else np.zeros(0)),
        options=AliasOptions(int(mh_steps), bool(fresh_doc), int(every)),
        blocks=bool(blocks),
        work=np.empty(3 * D + 7 * K),
        iwork=np.empty(7 * K, dtype=np.int64),
        stats=np.zeros(3, dtype=np.int64),
        block_stats=block_stats,
        scan=scan,
    )


def finish_alias_sweep(
    state: GLDAState, sweep: AliasSweep, z_before: np.ndarray
) -> tuple[float, int, int]:
    """Record that the kernel kept ``state``'s word-topic counts (and, in corpus order,
    word lists) in step and how it stored the tables; returns the sweep's acceptance
    rate, tokens moved (against ``z_before``) and table rebuilds."""
    state.word_topic_sweep = state.sweep + 1
    state.word_lists_sweep = state.sweep + 1 if sweep.scan == "document" else -1
    state.tables_cumulative = sweep.scan == "word"
    stats = sweep.stats
    acc = float(stats[1]) / max(int(stats[0]), 1)
    return acc, int((z_before != state.z).sum()), int(stats[2])


def _block_passes(
    problem: GLDAProblem, state: GLDAState, method: str, passes: int, block_stats: np.ndarray
) -> int:
    """``passes`` passes of word-type block moves (alias-MH's word-topic counts kept in
    step); returns the tokens moved."""
    state.word_lists_sweep = -1  # the block pass moves tokens, not the word lists
    word_topic = (
        state.word_topic
        if method == "alias-mh" and state.word_topic is not None
        else np.zeros((0, 0), dtype=np.int64)
    )
    doc_count = np.zeros(problem.n_docs, dtype=np.int64)
    words = _word_groups(problem, problem.nu_lgamma)
    corpus, topics = _corpus(problem), _topics(state)
    moved = 0
    for _ in range(passes):
        moved += block_kern.sweep_type_blocks(
            corpus, state.z, state.n_dk, topics, words, word_topic, state.rng, doc_count,
            block_stats,
        )  # fmt: skip
    return moved


def _check_alias_tables(problem: GLDAProblem, state: GLDAState) -> None:
    """``StateMethodError`` unless ``state`` holds alias-MH's per-word tables for
    ``problem``: the kernel indexes them by word type without bounds checks."""
    want = (problem.emb.shape[0], problem.K)
    shapes = {
        name: getattr(state, name).shape
        for name in ("stale_logw", "stale_t", "alias_prob", "alias_idx")
    }
    shapes["stale_logq"] = state.stale_logq.shape + (problem.K,)
    shapes["uses"] = state.uses.shape + (problem.K,)
    wrong = {name: shape for name, shape in shapes.items() if shape != want}
    if wrong:
        raise StateMethodError(
            f"method 'alias-mh' needs a state with alias tables of shape {want} (words, "
            f"topics); this one has {wrong}: it was built by init_state(method='cgs'). "
            "Build it with init_state(..., method='alias-mh')"
        )


def _word_topic_counts(problem: GLDAProblem, state: GLDAState) -> np.ndarray:
    """``n_wk[w, k]``: tokens of word type ``w`` in topic ``k`` (alias-MH's set C)."""
    V, K = problem.emb.shape[0], problem.K
    flat = problem.tok_word.astype(np.int64) * K + state.z
    return np.bincount(flat, minlength=V * K).reshape(V, K)


def _density_cache(K: int) -> DensityCache:
    """Empty ``tcache`` of the alias sweeps (no word, topic versions zero)."""
    keys = np.zeros((5, K), dtype=np.int64)
    keys[0] = keys[2] = -1
    return DensityCache(np.zeros((2, K)), keys)


def _check_rebuild_every(rebuild_every: Any, max_table_age: int | None) -> None:
    """``ValueError`` unless ``rebuild_every`` is None, an integer >= 1 or ``"never"``
    (and ``"never"`` comes without ``max_table_age``): one check for ``step`` and
    :meth:`GLDAGibbsArgs.validate`."""
    if rebuild_every == NEVER:
        if max_table_age is not None:
            raise ValueError(
                "rebuild_every='never' freezes every table after its first build; "
                "max_table_age would rebuild them: pass one or the other"
            )
        return
    if rebuild_every is not None and (
        isinstance(rebuild_every, bool)
        or not isinstance(rebuild_every, (int, np.integer))
        or rebuild_every < 1
    ):
        raise ValueError(f"rebuild_every must be an integer >= 1 or 'never', got {rebuild_every!r}")


def _rebuild_uses(rebuild_every: int | str | None, K: int) -> int:
    """The kernel's uses between rebuilds (checked by :func:`_check_rebuild_every`): K by
    default, never reached for ``"never"``."""
    if rebuild_every is None:
        return K
    if rebuild_every == NEVER:
        # a use count starts at 0 after a build and grows by one per use: never this
        return int(np.iinfo(np.int64).max)
    return int(rebuild_every)


def _precision_cache(state: GLDAState) -> PrecisionCache:
    """The precision cache of :func:`kern.sweep_cgs_precision`, from the factors."""
    K, D = state.mu.shape
    P, Pp = np.empty((K, D, D)), np.empty((K, D * (D + 1) // 2))
    Pmu, muPmu, W = np.empty((K, D)), np.empty(K), np.empty((D, D))
    for k in range(K):
        kern.precision_from_factor(k, state.R, state.mu, P, Pp, Pmu, muPmu, W)
    return PrecisionCache(P, Pp, Pmu, muPmu, np.zeros(K, dtype=np.int64), W,
                          np.empty(D * (D + 1) // 2))  # fmt: skip


def _no_precision_cache() -> PrecisionCache:
    # empty arrays of the cache's types, for kernels called with precision=False
    z1, z2, z3 = np.empty(0), np.empty((0, 0)), np.empty((0, 0, 0))
    return PrecisionCache(z3, z2, z2, z1, np.empty(0, dtype=np.int64), z2, z1)


def _corpus(problem: GLDAProblem) -> Corpus:
    """The kernels' view of the problem's tokens, embeddings and alpha."""
    return Corpus(problem.tok_doc, problem.tok_word, problem.emb, problem.alpha)


def _prior(problem: GLDAProblem) -> Prior:
    """The kernels' view of the problem's NIW prior."""
    return Prior(problem.mu0, problem.kappa0, problem.nu0, problem.Psi0)


def _topics(state: GLDAState) -> Topics:
    """The kernels' view of the state's topic parameters (the same arrays, not copies)."""
    return Topics(state.mu, state.R, state.invd, state.logdet, state.kappa_k, state.nu_k,
                  state.tconst, state.tscale, state.texp)  # fmt: skip


def _word_groups(problem: GLDAProblem, lg_nu: np.ndarray) -> WordGroups:
    """The tokens grouped by word type (block moves and the alias scan by word)."""
    return WordGroups(problem.word_order, problem.word_start, float(problem.kappa0), lg_nu)


def lp(problem: GLDAProblem, state: GLDAState) -> float:
    """``log p(z, v)`` of ``state``'s topic assignments, theta, mu and Sigma integrated out.

    The ``lp`` that :func:`step` reports and ``sample_stats`` holds (see the module
    docstring). It is computed from ``z`` alone
    (:func:`bayeswe.kernels.glda.topic_logdets`), not from the chain's rank-one-updated
    factors, so a state gets the same value, to the bit, however the chain reached it:
    a chain that revisits a few states gets exact ties, as the rank-normalized ESS and
    R-hat assume.
    """
    counts = np.empty(problem.K, dtype=np.int64)
    logdets = np.empty(problem.K)
    if not kern.topic_logdets(
        state.z, problem.word_order, problem.word_start, problem.emb, problem.mu0,
        problem.kappa0, problem.Psi0, counts, logdets,
    ):  # fmt: skip
        # rounding made a factor from scratch fail where the carried one holds
        logdets = np.where(np.isfinite(logdets), logdets, state.logdet)
    return float(
        kern.log_joint(
            state.n_dk,
            problem.alpha,
            counts,
            logdets,
            problem.kappa0,
            problem.nu0,
            problem.logdet_psi0,
            problem.D,
        )  # fmt: skip
    )


def _summaries(problem: GLDAProblem, state: GLDAState) -> tuple[np.ndarray, ...]:
    """theta, mu, Sigma (conditional posterior means given z) and N_k; #mode fallbacks."""
    D = problem.D
    n_d = state.n_dk.sum(axis=1, keepdims=True)
    theta = (state.n_dk + problem.alpha) / (n_d + problem.alpha.sum())
    denom = state.nu_k - D - 1.0
    use_mode = denom <= 0
    denom = np.where(use_mode, state.nu_k + D + 1.0, denom)
    sigma = state.psi() / denom[:, None, None]
    return theta, state.mu.copy(), sigma, state.counts_k.astype(np.int64), int(use_mode.sum())


# --------------------------------------------------------------------------- options


@dataclass(frozen=True, kw_only=True)
class GLDAGibbsArgs:
    """Options of ``method="cgs"`` and ``"alias-mh"``; ``None`` means the default shown.

    Attributes
    ----------
    iter_warmup
        Sweeps discarded first (default 100).
    iter_sampling
        Sweeps after warm-up (default 200); every ``thin``-th is kept, starting with
        the first, so ``ceil(iter_sampling / thin)`` draws per chain, as in cmdstanpy.
    thin
        Keep one sweep in ``thin`` (default 1).
    mh_steps
        ``alias-mh``: MH steps per token (default 2).
    rebuild_every
        ``alias-mh`` with ``scan="document"``: a word's alias table is rebuilt after
        this many uses (default K,
        Li et al. 2014: amortised cost O(D^2) per token, one MH step's worth). Tables
        built from past states make the chain slightly adaptive (see
        :mod:`bayeswe.kernels.glda.alias`). ``"never"`` freezes each table after
        its first build (at the word's first use in the run): every later MH step then
        has a fixed proposal and the chain is exactly invariant, but acceptance falls as
        the topics move away from those of the start (its mixing per CPU-second against
        ``cgs`` is measured on the Gaussian LDA docs page, ``bayeswe bench
        gaussian-lda-mixing --variants 2:F``). Not with ``max_table_age``.
    max_table_age
        ``alias-mh`` with ``scan="document"``: a word's table is also rebuilt at its
        first use once it is this many sweeps old (default None: by uses only). With
        ``rebuild_every = K`` a word with a few tokens per sweep keeps a table for about
        K / tokens sweeps; while the topics still move, its proposals then favour where
        its tokens were long ago. Each sweep counts as
        ``ceil(rebuild_every / max_table_age)`` uses of every built table.
    fresh_doc
        ``alias-mh``: the proposal's document term ``n_dk t(v | k)`` uses fresh topic
        parameters (True, the paper's choice; one solve per topic of the document) or
        the stale ones of the alias table (False, the default: no solve, so the cost per
        token does not grow with the number of topics in the document; the MH step
        still scores with fresh densities). Documents of real corpora hold tens of
        topics, which made the fresh variant no faster than exact ``cgs`` at K = 100
        in ``bayeswe bench gaussian-lda``. With ``scan="word"`` the table is current
        for every topic it is used for, so both give the same proposal (the exact
        conditional) and ``True`` only costs more.
    scan
        ``alias-mh``: the order of a sweep. ``"word"`` (default): tokens grouped by word
        type, each word's table built once per sweep just before its tokens, from the
        other words' topics, which stay fixed while it is in use: every step is a valid
        MH step and the chain leaves the posterior exactly invariant. A sweep costs one
        table (O(K D^2)) per word type, so it saves over ``cgs`` about as many density
        evaluations as a word type has tokens in the corpus. ``"document"`` (the
        paper's, section 4.2): tokens in corpus order, a word's table rebuilt after
        ``rebuild_every`` uses, so a table serves tokens long after it was built; the
        chain is then slightly adaptive and its stationary distribution is off by a
        fraction of a posterior sd in the log joint with many topics (see
        :mod:`bayeswe.kernels.glda.alias` and the Gaussian LDA docs page). It
        is faster per sweep when word types have few tokens each.
        ``rebuild_every`` and ``max_table_age`` apply to ``"document"`` only.
    density
        How the Mahalanobis distances ``(v - mu_k)' Psi_k^{-1} (v - mu_k)`` of eq. (1)
        are computed: ``"precision"`` (default) from ``Psi_k^{-1}``, rebuilt from the
        Cholesky factor at the start of every sweep, kept in step with it by
        Sherman-Morrison when a token moves and rebuilt after every 128 moves of a
        topic; each distance is then one contiguous dot product (SIMD), about 2x
        faster for ``cgs`` at D = 50. ``"solve"``: a forward substitution with the
        factor per distance (the textbook evaluation). Both keep and update the same
        Cholesky factors and evaluate the same conditional; their draws are equal until
        rounding first differs (identical on the test problems).
    type_moves
        Passes of word-type block moves after each sweep (default 0: none), both
        methods. In a pass, each word type with two or more tokens picks one of its
        tokens; that token's topic ``k`` and all the word's other tokens in ``k`` move
        together to a topic holding none of the word's tokens, by a Metropolis-Hastings
        step that leaves the posterior exactly invariant
        (:mod:`bayeswe.kernels.glda.blocks`). All tokens of a word share one vector, so
        a topic holding some of them has a far higher density at that vector than any
        other, and single-token moves rarely take one out; the block move relabels the
        group at once. A pass costs one Mahalanobis distance per topic per word type;
        alias-MH's scan by word makes its first pass inside the sweep, from the
        distances its tables are built from, at O(K) per word beyond them.
    init
        Start of each chain: ``"kmeans"`` (default; tokens of a word type start in the
        word's weighted k-means cluster) or ``"random"`` (uniform topic per token).
    parallel_chains
        Chains run in parallel in this many threads (default ``min(chains, 2)``).
        The draws do not depend on it.
    threads_per_chain
        Numba threads per chain (default: Numba's setting). Accepted for the one
        vocabulary of every method; the Gaussian LDA kernels are serial (a sweep
        visits tokens one after another), so it changes neither the speed nor the
        draws: run chains in parallel instead.
    checkpoint
        File holding the run's state; if it exists the run resumes from it.
    checkpoint_every
        Sweeps between checkpoint writes (default 50; the end is always written).
    callback
        Called as ``callback(sweeps_done)`` after each sweep of all chains.
    show_progress
        Report sweeps done, rate and time left on standard error (see
        :mod:`bayeswe.progress`; default: the process default, off in the library and
        on in the ``bayeswe`` command line). Does not change the draws.
    """

    iter_warmup: int | None = None
    iter_sampling: int | None = None
    thin: int | None = None
    mh_steps: int | None = None
    rebuild_every: int | Literal["never"] | None = None
    max_table_age: int | None = None
    fresh_doc: bool | None = None
    density: str | None = None
    scan: str | None = None
    type_moves: int | None = None
    init: str | None = None
    parallel_chains: int | None = None
    threads_per_chain: int | None = None
    checkpoint: str | os.PathLike[str] | None = None
    checkpoint_every: int | None = None
    callback: Callable[[int], None] | None = None
    show_progress: bool | None = None

    @classmethod
    def from_options(cls, method: str, options: Mapping[str, Any]) -> GLDAGibbsArgs:
        """Build and validate (``ValueError`` for an unknown option or a bad value)."""
        args = build_options(cls, method, options)
        if method == "cgs":
            given = [
                n
                for n in ("mh_steps", "rebuild_every", "max_table_age", "fresh_doc", "scan")
                if options.get(n) is not None
            ]
            if given:
                raise ValueError(f"option(s) {', '.join(given)} apply to method 'alias-mh' only")
        if args.scan in (None, "word"):
            given = [n for n in ("rebuild_every", "max_table_age") if options.get(n) is not None]
            if given:
                raise ValueError(
                    f"option(s) {', '.join(given)} apply to scan='document' only; "
                    "scan='word' (the default) builds every word's table once per sweep, "
                    "just before the word's tokens"
                )
        return args

    def validate(self) -> None:
        for name, minimum in (
            ("iter_sampling", 1),
            ("iter_warmup", 0),
            ("thin", 1),
            ("mh_steps", 1),
            ("max_table_age", 1),
            ("type_moves", 0),
            ("parallel_chains", 1),
            ("threads_per_chain", 1),
            ("checkpoint_every", 1),
        ):
            check_int(name, getattr(self, name), minimum=minimum)
        _check_rebuild_every(self.rebuild_every, self.max_table_age)
        check_bool("fresh_doc", self.fresh_doc)
        check_choice("init", self.init, ("kmeans", "random"))
        check_choice("density", self.density, DENSITIES)
        check_choice("scan", self.scan, SCANS)
        if self.callback is not None and not callable(self.callback):
            raise ValueError("callback must be callable")
        progress_resolve(self.show_progress)

    def settings(self, K: int) -> dict[str, Any]:
        """The options that define the draws (compared on resume)."""
        return {
            "iter_sampling": 200 if self.iter_sampling is None else int(self.iter_sampling),
            "iter_warmup": 100 if self.iter_warmup is None else int(self.iter_warmup),
            "thin": 1 if self.thin is None else int(self.thin),
            "mh_steps": 2 if self.mh_steps is None else int(self.mh_steps),
            # None with scan="word": tables are rebuilt once per sweep, by the scan
            "rebuild_every": (
                None
                if self.scan in (None, "word")
                else K
                if self.rebuild_every is None
                else NEVER
                if self.rebuild_every == NEVER
                else int(self.rebuild_every)
            ),
            "max_table_age": None if self.max_table_age is None else int(self.max_table_age),
            "fresh_doc": False if self.fresh_doc is None else bool(self.fresh_doc),
            "density": "precision" if self.density is None else self.density,
            "scan": "word" if self.scan is None else self.scan,
            "type_moves": 0 if self.type_moves is None else int(self.type_moves),
            "init": "kmeans" if self.init is None else self.init,
        }


# --------------------------------------------------------------------------- driver

#: Settings of ``alias-mh`` only: not part of a ``cgs`` run's settings.
_ALIAS_ONLY = ("mh_steps", "rebuild_every", "max_table_age", "fresh_doc", "scan")


class GLDASampler:
    """Gaussian LDA chains of one method, for :func:`bayeswe.samplers.driver.run_chains`.

    ``init`` starts chain ``c`` at :func:`init_state` (the run's ``init``), ``step`` is
    :func:`step` with the run's settings; a kept sweep records the conditional posterior
    means ``theta``, ``mu``, ``Sigma`` and ``topic_tokens`` (:func:`_summaries`), ``lp``,
    ``acceptance_rate`` and ``sigma_mode`` (topics whose ``Sigma`` is the inverse-Wishart
    mode); every sweep tallies alias-table rebuilds and accepted block moves.
    """

    name = "gaussian-lda"

    def __init__(
        self, problem: GLDAProblem, method: str, settings: Mapping[str, Any], seed: int
    ) -> None:
        self.problem = problem
        self.method = method
        self.seed = int(seed)
        self.init_kind = settings["init"]
        self.step_options = {
            "method": method,
            "density": settings["density"],
            "type_moves": settings["type_moves"],
        }
        if method == "alias-mh":
            self.step_options.update({k: settings[k] for k in _ALIAS_ONLY})
        K, D = problem.K, problem.D
        self.layout = {
            "theta": ((problem.n_docs, K), np.float64),
            "mu": ((K, D), np.float64),
            "Sigma": ((K, D, D), np.float64),
            "topic_tokens": ((K,), np.int64),
            "lp": ((), np.float64),
            "acceptance_rate": ((), np.float64),
            "sigma_mode": ((), np.int64),
        }

    def init(self, chain: int) -> GLDAState:
        return init_state(
            self.problem, seed=self.seed, chain=chain, method=self.method, init=self.init_kind
        )

    def step(self, state: GLDAState) -> tuple[GLDAState, StepInfo]:
        return step(self.problem, state, **self.step_options)

    def record(self, state: GLDAState, info: StepInfo) -> dict[str, Any]:
        theta, mu, sigma, nk, n_mode = _summaries(self.problem, state)
        return {
            "theta": theta,
            "mu": mu,
            "Sigma": sigma,
            "topic_tokens": nk,
            "lp": info.lp,
            "acceptance_rate": info.acceptance_rate,
            "sigma_mode": n_mode,
        }

    def lp(self, info: StepInfo) -> float:
        return info.lp

    def tally(self, info: StepInfo) -> dict[str, int]:
        return {"rebuilds": info.rebuilds, "type_moves_accepted": info.type_moves_accepted}

    def dump(self, state: GLDAState) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        # the kernels' scratch (word_topic, doc_lists, word_lists) is rebuilt on resume
        # from z and n_dk exactly as the uninterrupted chain holds it
        return {name: getattr(state, name) for name in GLDAState.ARRAYS}, {"sweep": state.sweep}

    def load(self, arrays: Mapping[str, NDArray[Any]], record: Mapping[str, Any]) -> GLDAState:
        state = GLDAState(
            **{name: np.array(arrays[name]) for name in GLDAState.ARRAYS},
            sweep=int(record["sweep"]),
        )
        N, K = self.problem.n_tokens, self.problem.K
        if state.z.shape != (N,) or state.n_dk.shape != (self.problem.n_docs, K):
            raise ValueError(f"state of shape z {state.z.shape}, n_dk {state.n_dk.shape}")
        if self.method == "alias-mh":
            try:
                _check_alias_tables(self.problem, state)
            except StateMethodError as exc:
                raise ValueError(str(exc)) from None
        return state


def sample_gaussian_lda(
    data: GaussianLDAData,
    *,
    method: str = "cgs",
    seed: int,
    chains: int | None = None,
    **options: Any,
) -> az.InferenceData:
    """Sample Gaussian LDA by collapsed Gibbs (eq. 1), exact or with alias-table MH.

    Parameters
    ----------
    data
        The corpus, embeddings and priors.
    method
        ``"cgs"`` (exact, O(K D^2) per token with Cholesky updates) or ``"alias-mh"``.
    seed
        Seed in ``[0, 2**32 - 1]``; with the options it determines every draw.
    chains
        Number of chains (default 4).
    **options
        See :class:`GLDAGibbsArgs`.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``theta (doc, topic)``, ``mu (topic, dim)``,
        ``Sigma (topic, dim, dim2)`` (conditional posterior means given ``z``, see the
        module docstring) and ``topic_tokens (topic)``; ``sample_stats``: ``lp``,
        ``acceptance_rate``; ``warmup_sample_stats``: ``lp``. ``attrs``: method,
        seed, iter_warmup, iter_sampling, thin, parallel_chains, threads_per_chain,
        wall_time, sweep_time, resumed, the priors.

    Raises
    ------
    ValueError
        Bad options.
    CheckpointError
        The checkpoint path is a directory, the checkpoint is corrupt, of an earlier
        layout, or was written for other data or settings, or another run holds it.
    NonFiniteStateError
        A chain's log density became NaN or infinite.
    GaussianLDADataError
        ``data`` is not a :class:`GaussianLDAData`.
    """
    from bayeswe.inference_data import to_inference_data
    from bayeswe.model_spec import get_model
    from bayeswe.samplers.driver import RunOptions, Schedule, run_chains

    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    problem = GLDAProblem.from_data(data)
    args = GLDAGibbsArgs.from_options(method, options)
    chains = 4 if chains is None else chains
    if isinstance(chains, bool) or not isinstance(chains, (int, np.integer)) or chains < 1:
        raise ValueError(f"chains must be a positive integer, got {chains!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    chains, seed = int(chains), int(seed)
    settings = args.settings(problem.K)
    schedule = Schedule(settings.pop("iter_warmup"), settings.pop("iter_sampling"),
                        settings.pop("thin"))  # fmt: skip
    if method == "cgs":
        # the alias-MH options do not change a cgs chain
        for name in _ALIAS_ONLY:
            del settings[name]
    sampler = GLDASampler(problem, method, settings, seed)
    run = run_chains(
        sampler,
        chains=chains,
        schedule=schedule,
        seed=seed,
        fingerprint=problem.fingerprint(),
        settings={"method": method, **settings},
        options=RunOptions(
            parallel_chains=(
                min(chains, 2) if args.parallel_chains is None else int(args.parallel_chains)
            ),
            threads_per_chain=args.threads_per_chain,
            checkpoint=args.checkpoint,
            checkpoint_every=50 if args.checkpoint_every is None else int(args.checkpoint_every),
            callback=args.callback,
            show_progress=args.show_progress,
        ),
    )
    attrs = {
        "model": "gaussian_lda",
        "method": method,
        "seed": seed,
        "chains": chains,
        "iter_warmup": schedule.iter_warmup,
        "iter_sampling": schedule.iter_sampling,
        "thin": schedule.thin,
        "parallel_chains": run.parallel_chains,
        "threads_per_chain": run.threads_per_chain,
        "init": settings["init"],
        "wall_time": run.wall_time,
        "sweep_time": run.sweep_time,
        "resumed": int(run.resumed),
        "n_tokens": problem.n_tokens,
        "saved_parameters": "conditional posterior means given z (Rao-Blackwellised)",
        "sigma_mode_used": int(run.draws["sigma_mode"].sum()),
        "alpha": json.dumps(problem.alpha.tolist()),
        "kappa": problem.kappa0,
        "nu": problem.nu0,
        "rng": "splitmix64 per chain from SeedSequence(seed, spawn_key=(chain,))",
        "density": settings["density"],
        "type_moves": settings["type_moves"],
        "type_moves_accepted": json.dumps(run.totals["type_moves_accepted"].tolist()),
    }
    if method == "alias-mh":
        attrs.update(
            mh_steps=settings["mh_steps"],
            rebuild_every=(
                "once per sweep" if settings["rebuild_every"] is None else settings["rebuild_every"]
            ),
            max_table_age=json.dumps(settings["max_table_age"]),
            fresh_doc=int(settings["fresh_doc"]),
            scan=settings["scan"],
            alias_rebuilds=json.dumps(run.totals["rebuilds"].tolist()),
        )
    # the collapsed samplers keep no observed_data / constant_data groups; the zoo's
    # declaration names the dims, the document ids are the doc coords
    spec = dataclasses.replace(get_model("gaussian_lda"), data_fields=(), check=None)
    posterior = {name: run.draws[name] for name in ("theta", "mu", "Sigma", "topic_tokens")}
    return to_inference_data(
        spec,
        posterior,
        data={"doc_ids": problem.data.corpus.doc_ids},
        sample_stats={name: run.draws[name] for name in ("lp", "acceptance_rate")},
        warmup_sample_stats={"lp": run.warmup_lp} if schedule.iter_warmup else None,
        attrs=attrs,
        library=None,
    )
