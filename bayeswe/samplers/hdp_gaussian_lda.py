"""Collapsed Gibbs sampling for infinite Gaussian LDA:
``bayeswe.fit("hdp_gaussian_lda", data, method="cgs")``.

The HDP with Normal-inverse-Wishart topics over word vectors, sampled by HDP-LDA's
direct assignment (Teh, Jordan, Beal and Blei 2006, section 5.3) with Gaussian LDA's
topics (Das, Zaheer and Dyer 2015): kernels in :mod:`bayeswe.kernels.hdp_glda`. The
number of topics is not fixed: the arrays hold a capacity of topic slots that doubles
when a new topic finds none free. ``alpha0`` and ``gamma`` are fixed at the data's
values or, with ``resample_concentrations=True``, resampled every sweep under Gamma
priors.

Each sweep ends by recomputing every topic's factor from the assignments (Gaussian
LDA's eq. 3, fresh Cholesky factors), so the state between sweeps is a function of
``z`` and the weights: rounding from the rank-1 moves never accumulates over sweeps,
and a checkpoint holds no factors.

What a draw keeps, as HDP-LDA's sampler: label-free scalars in ``posterior``
(``n_topics``, ``n_tables``, ``alpha0``, ``gamma``, ``beta_u``), ``sample_stats.lp``
(the log joint with the topics integrated out), and a display group ``topics`` with
the ``truncation`` largest topics of each draw, largest first, padded: ``topic_tokens``,
``beta``, ``mu`` (posterior mean of the topic's mean) and ``top_words`` (the words of
highest posterior-predictive density under the topic, ``-1`` padding).

Random streams: chain ``c`` owns the xoshiro256+ stream
:func:`bayeswe.samplers.lda_cgs.chain_stream` ``(seed, c)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe._arviz import az
from bayeswe.errors import NonFiniteStateError
from bayeswe.glda.data import GaussianLDAData, GaussianLDADataError
from bayeswe.glda.hdp_data import HDPGaussianLDAData
from bayeswe.kernels import hdp_glda as kern
from bayeswe.kernels import hdp_glda_split_merge as gsm
from bayeswe.kernels import hdp_lda as hdp_kern
from bayeswe.kernels import hdp_split_merge as sm
from bayeswe.kernels.glda import common as glda_common
from bayeswe.kernels.glda.structs import Corpus as GLDACorpus
from bayeswe.kernels.glda.structs import Prior, Topics, TopicSums
from bayeswe.kernels.hdp_structs import Topics as Weights
from bayeswe.kernels.lda_cgs import init_assignments
from bayeswe.model_spec import MODELS_DIR, DataField, StanModelSpec
from bayeswe.options import build_options, check_int
from bayeswe.samplers.hdp_lda import (
    HDPArgs,
    HDPChains,
    hdp_inference_data,
    initial_topics_by_chain,
    run_hdp,
    run_split_merge,
)
from bayeswe.samplers.lda_cgs import chain_stream

__all__ = [
    "HDP_GAUSSIAN_LDA",
    "HDPGLDAArgs",
    "HDPGLDAProblem",
    "HDPGLDASampler",
    "HDPGLDAState",
    "as_hdp_glda_data",
    "check_state",
    "init_state",
    "log_joint",
    "sample_hdp_gaussian_lda",
    "state_from_assignments",
    "step",
    "topic_summary",
]

#: Smallest capacity (topic slots) a chain starts with.
MIN_CAPACITY = 16
#: Words recorded per displayed topic (``top_words``).
N_TOP_WORDS = 10

#: The InferenceData declaration (no Stan program: the sampler is the only method).
HDP_GAUSSIAN_LDA = StanModelSpec(
    name="hdp_gaussian_lda",
    stan_file=MODELS_DIR / "hdp_gaussian_lda.stan",
    data_fields=(
        DataField("D", "int"),
        DataField("V", "int"),
        DataField("P", "int"),
        DataField("N", "int"),
        DataField("doc", "int", ("N",), dims=("pair",), observed=True),
        DataField("word", "int", ("N",), dims=("pair",), observed=True),
        DataField("count", "int", ("N",), dims=("pair",), observed=True),
        # constant_data, not observed_data: the field "word" there would clash with the dim
        DataField("embeddings", "real", ("V", "P"), dims=("word", "dim")),
        DataField("gamma", "real"),
        DataField("alpha0", "real"),
        DataField("mu0", "real", ("P",), dims=("dim",)),
        DataField("kappa", "real"),
        DataField("nu", "real"),
        DataField("Psi", "real", ("P", "P"), dims=("dim", "dim2")),
    ),
    dims={
        "topic_tokens": ("topic",),
        "beta": ("topic",),
        "mu": ("topic", "dim"),
        "top_words": ("topic", "rank"),
    },
    coords=lambda data: dict(data.get("__coords__") or {}),
    description="Infinite Gaussian LDA: HDP with Normal-inverse-Wishart topics (sampler only)",
)


@dataclass(frozen=True, kw_only=True)
class HDPGLDAArgs(HDPArgs):
    """Options of ``method="cgs"`` for ``hdp_gaussian_lda``; ``None`` means the default.

    Attributes
    ----------
    iter_warmup, iter_sampling, thin
        As cmdstanpy (defaults 100, 200, 1): ``ceil(iter_sampling / thin)`` draws kept.
    resample_concentrations
        Resample ``alpha0`` and ``gamma`` every sweep (default ``False``: fixed at the
        data's values).
    alpha0_prior, gamma_prior
        Gamma priors ``(shape, rate)`` of ``alpha0`` and ``gamma`` when resampled
        (default ``(1, 1)`` each); the data's values are the starting values.
    initial_topics
        Topics of the start: tokens spread uniformly at random over them (default 1),
        or one number per chain, as HDP-LDA's.
    split_merge
        Split-merge proposals per sweep (default 0), as HDP-LDA's
        (:mod:`bayeswe.kernels.hdp_glda_split_merge`).
    split_merge_scans
        Restricted Gibbs scans in each proposal's launch (default 0), as HDP-LDA's.
    keep_topics
        Record the display arrays of every kept draw (group ``topics``; default ``True``).
        The top words cost ``V`` density evaluations per displayed topic and draw.
    parallel_chains, threads_per_chain, checkpoint, checkpoint_every, callback, show_progress
        As :class:`bayeswe.samplers.hdp_lda.HDPArgs`.
    """

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> HDPGLDAArgs:
        """Build and validate (``ValueError`` naming an unknown option or a bad value)."""
        return build_options(cls, "cgs", options)

    def get(self, name: str) -> Any:
        """The option's value, or its default (Gaussian LDA's schedule)."""
        value = getattr(self, name)
        return _DEFAULTS.get(name) if value is None else value


_DEFAULTS: dict[str, Any] = {
    "iter_warmup": 100,
    "iter_sampling": 200,
    "thin": 1,
    "resample_concentrations": False,
    "alpha0_prior": (1.0, 1.0),
    "gamma_prior": (1.0, 1.0),
    "initial_topics": 1,
    "split_merge": 0,
    "split_merge_scans": 0,
    "keep_topics": True,
    "checkpoint_every": 100,
}


def as_hdp_glda_data(data: Any) -> HDPGaussianLDAData:
    """``data`` as :class:`HDPGaussianLDAData`: itself, or a Gaussian LDA's
    (:meth:`HDPGaussianLDAData.from_glda`)."""
    if isinstance(data, HDPGaussianLDAData):
        return data
    if isinstance(data, GaussianLDAData):
        return HDPGaussianLDAData.from_glda(data)
    raise GaussianLDADataError(
        "hdp_gaussian_lda's sampler takes an HDPGaussianLDAData or a GaussianLDAData, got "
        f"{type(data).__name__}"
    )


def _prior_topic(prior: Prior) -> Topics:
    """The NIW prior as a one-slot :class:`Topics` (a topic without tokens)."""
    D = prior.mu0.size
    t = Topics(
        np.zeros((1, D)), np.zeros((1, D, D)), np.zeros((1, D)), np.zeros(1), np.zeros(1),
        np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1),
    )  # fmt: skip
    sums = TopicSums(np.zeros(1, np.int64), np.zeros((1, D)), np.zeros((1, D, D)))
    empty = GLDACorpus(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros((0, D)), np.ones(1))
    glda_common.init_topics(empty, np.zeros(0, np.int32), prior, t, sums)
    # exactly the prior: mu0 and the factor of Psi0 (init_topics' formula adds and
    # subtracts kappa0 mu0 mu0')
    t.mu[0] = prior.mu0
    L = np.linalg.cholesky(prior.Psi0)
    t.R[0] = L.T
    t.invd[0] = 1.0 / np.diag(L)
    glda_common.resync_topics(t.kappa_k, t.nu_k, t.R, t.logdet, t.tconst, t.tscale, t.texp)
    return t


@dataclass(frozen=True)
class HDPGLDAProblem:
    """Flat token arrays, the vectors and the fixed settings of one posterior."""

    corpus: kern.VectorCorpus
    #: the same tokens in Gaussian LDA's layout (for the topic factors from scratch)
    glda_corpus: GLDACorpus
    prior: Prior
    prior_topic: Topics
    logdet_psi0: float
    word_order: np.ndarray  #: int64 (N,): tokens sorted by word type
    word_start: np.ndarray  #: int64 (V + 1,)
    doc_len: np.ndarray  #: int64 (n_docs,)
    n_docs: int
    n_words: int
    dim: int
    alpha0: float
    gamma: float
    #: Topics a draw records for display (the data's truncation).
    display: int
    resample: bool
    alpha0_prior: tuple[float, float]
    gamma_prior: tuple[float, float]

    @classmethod
    def from_data(cls, data: HDPGaussianLDAData, args: HDPGLDAArgs | None = None) -> HDPGLDAProblem:
        args = HDPGLDAArgs() if args is None else args
        doc, word = data.corpus.tokens()
        word = np.ascontiguousarray(word, dtype=np.int32)
        tok_ptr = np.zeros(data.n_docs + 1, dtype=np.int64)
        np.cumsum(data.corpus.doc_lengths, out=tok_ptr[1:])
        emb = np.ascontiguousarray(data.embeddings, dtype=np.float64)
        prior = Prior(
            np.array(data.mu0, dtype=np.float64), float(data.kappa), float(data.nu),
            np.array(data.Psi, dtype=np.float64),
        )  # fmt: skip
        prior_topic = _prior_topic(prior)
        log_prior_pred = np.empty((1, emb.shape[0]))
        kern.word_log_density(emb, prior_topic, np.zeros(1, np.int64), log_prior_pred)
        order = np.argsort(word, kind="stable").astype(np.int64)
        start = np.zeros(data.n_words + 1, dtype=np.int64)
        np.cumsum(np.bincount(word, minlength=data.n_words), out=start[1:])
        return cls(
            corpus=kern.VectorCorpus(tok_ptr, word, emb, log_prior_pred[0]),
            glda_corpus=GLDACorpus(
                np.ascontiguousarray(doc, dtype=np.int32), word, emb, np.ones(1)
            ),
            prior=prior,
            prior_topic=prior_topic,
            logdet_psi0=float(np.linalg.slogdet(prior.Psi0)[1]),
            word_order=order,
            word_start=start,
            doc_len=np.diff(tok_ptr),
            n_docs=data.n_docs,
            n_words=data.n_words,
            dim=data.dim,
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

    def fingerprint(self) -> str:
        """SHA-256 of the tokens, vectors and priors (checked on resume)."""
        h = hashlib.sha256()
        for arr in (self.corpus.tok_ptr, self.corpus.word, self.corpus.emb, self.prior.mu0,
                    self.prior.Psi0):  # fmt: skip
            h.update(np.ascontiguousarray(arr).tobytes())
        p = self.prior
        h.update(f"{p.kappa0!r},{p.nu0!r},{self.alpha0!r},{self.gamma!r}".encode())
        return h.hexdigest()


@dataclass
class HDPGLDAState:
    """One chain, updated in place by :func:`step`."""

    assign: kern.Assignments
    topics: Topics
    weights: Weights
    m_k: np.ndarray  #: int64 (C,): tables per topic
    rng_state: np.ndarray  #: uint64 (4,)
    alpha0: float
    gamma: float
    n_tables: int = 0
    sweeps_done: int = 0
    #: Scratch of the split-merge moves (never part of the chain's state).
    split_scratch: sm.Scratch | None = None
    split_stats: gsm.Stats | None = None
    #: Split-merge moves accepted, (splits, merges), since the counter was last reset.
    moves: tuple[int, int] = (0, 0)

    @property
    def capacity(self) -> int:
        return int(self.assign.n_k.size)

    @property
    def n_topics(self) -> int:
        return self.capacity - int(self.weights.n_free[0])


def _empty_topics(C: int, D: int) -> Topics:
    return Topics(
        np.zeros((C, D)), np.zeros((C, D, D)), np.zeros((C, D)), np.zeros(C), np.zeros(C),
        np.zeros(C), np.zeros(C), np.zeros(C), np.zeros(C),
    )  # fmt: skip


def _refresh_topics(problem: HDPGLDAProblem, state: HDPGLDAState) -> None:
    """Every slot's factor and constants from the assignments (eq. 3, fresh Cholesky);
    empty slots exactly the prior."""
    C, D = state.capacity, problem.dim
    sums = TopicSums(np.zeros(C, np.int64), np.zeros((C, D)), np.zeros((C, D, D)))
    if not glda_common.init_topics(
        problem.glda_corpus, state.assign.z, problem.prior, state.topics, sums
    ):
        raise NonFiniteStateError("a topic's scale matrix is not positive definite")
    kern.reset_empty(state.assign.n_k, state.topics, problem.prior_topic)


def _free_stack(n_k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The free-slot stack of the empty slots, the lowest on top (taken first)."""
    empty = np.flatnonzero(n_k == 0)[::-1].astype(np.int32)
    free = np.zeros(n_k.size, dtype=np.int32)
    free[: empty.size] = empty
    return free, np.array([empty.size], dtype=np.int64)


def state_from_assignments(
    problem: HDPGLDAProblem,
    z: np.ndarray,
    beta: np.ndarray,
    beta_u: float,
    *,
    rng_state: np.ndarray,
    alpha0: float,
    gamma: float,
    capacity: int | None = None,
) -> HDPGLDAState:
    """The state of assignments ``z`` and weights ``beta`` (0 on empty slots), ``beta_u``."""
    C = max(MIN_CAPACITY, len(beta), int(z.max(initial=0)) + 1, capacity or 0)
    z = np.ascontiguousarray(z, dtype=np.int32)
    doc = problem.glda_corpus.tok_doc
    n_dk = np.zeros((problem.n_docs, C), dtype=np.int32)
    np.add.at(n_dk, (doc, z), 1)
    n_k = n_dk.sum(axis=0, dtype=np.int64)
    full = np.zeros(C)
    full[: len(beta)] = beta
    full[n_k == 0] = 0.0
    state = HDPGLDAState(
        assign=kern.Assignments(z, n_dk, n_k),
        topics=_empty_topics(C, problem.dim),
        weights=Weights(full, np.array([float(beta_u)]), *_free_stack(n_k)),
        m_k=np.zeros(C, dtype=np.int64),
        rng_state=rng_state,
        alpha0=float(alpha0),
        gamma=float(gamma),
    )
    _refresh_topics(problem, state)
    return state


def init_state(problem: HDPGLDAProblem, seed: int, chain: int, initial_topics: int) -> HDPGLDAState:
    """Tokens uniformly over ``initial_topics`` topics; equal weights for them and ``beta_u``."""
    rng = chain_stream(seed, chain)
    z = np.empty(problem.n_tokens, dtype=np.int32)
    init_assignments(z, initial_topics, rng)
    capacity = MIN_CAPACITY
    while capacity < 2 * initial_topics:
        capacity *= 2
    share = 1.0 / (initial_topics + 1)
    return state_from_assignments(
        problem, z, np.full(initial_topics, share), share, rng_state=rng,
        alpha0=problem.alpha0, gamma=problem.gamma, capacity=capacity,
    )  # fmt: skip


def _grow(problem: HDPGLDAProblem, state: HDPGLDAState) -> None:
    """Double the capacity; the new slots (the prior) go on the free stack, lowest on top."""
    C = state.capacity
    a, w = state.assign, state.weights

    def wider(x: np.ndarray, axis: int = -1) -> np.ndarray:
        shape = list(x.shape)
        shape[axis] = 2 * C
        out = np.zeros(shape, dtype=x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, C)
        out[tuple(index)] = x
        return out

    state.assign = kern.Assignments(a.z, wider(a.n_dk), wider(a.n_k))
    state.topics = Topics(*(wider(x, 0) for x in state.topics))
    kern.reset_empty(state.assign.n_k, state.topics, problem.prior_topic)
    n_free = int(w.n_free[0])
    free = np.zeros(2 * C, dtype=np.int32)
    free[:C] = np.arange(2 * C - 1, C - 1, -1)
    free[C : C + n_free] = w.free[:n_free]
    state.weights = Weights(wider(w.beta), w.rest, free, np.array([C + n_free], dtype=np.int64))
    state.m_k = wider(state.m_k)


def step(
    problem: HDPGLDAProblem,
    state: HDPGLDAState,
    split_merge: int = 0,
    split_merge_scans: int = 0,
) -> HDPGLDAState:
    """One sweep (in place): every token, the factors afresh, then tables, concentrations
    and ``beta``, then ``split_merge`` split-merge proposals (:func:`split_merge_moves`,
    ``split_merge_scans`` restricted Gibbs scans in each launch)."""
    position, N = 0, problem.n_tokens
    while True:
        position = kern.sweep(
            problem.corpus, state.assign, state.topics, problem.prior_topic, state.weights,
            state.alpha0, state.gamma, state.rng_state, position,
        )  # fmt: skip
        if position >= N:
            break
        _grow(problem, state)
    _refresh_topics(problem, state)
    rng = state.rng_state
    n_tables = hdp_kern.sample_tables(
        state.assign.n_dk, state.weights.beta, state.alpha0, rng, state.m_k
    )
    if problem.resample:
        a, b = problem.alpha0_prior
        state.alpha0 = hdp_kern.resample_alpha0(state.alpha0, problem.doc_len, n_tables, a, b, rng)
        a, b = problem.gamma_prior
        state.gamma = hdp_kern.resample_gamma(state.gamma, state.n_topics, n_tables, a, b, rng)
    hdp_kern.sample_beta(state.m_k, state.weights, state.gamma, rng)
    state.n_tables = n_tables
    state.sweeps_done += 1
    split_merge_moves(problem, state, split_merge, scans=split_merge_scans)
    return state


def split_merge_moves(
    problem: HDPGLDAProblem,
    state: HDPGLDAState,
    proposals: int,
    log_ratio: Callable[[int, float, float], float] | None = None,
    scans: int = 0,
) -> tuple[int, int]:
    """As :func:`bayeswe.samplers.hdp_lda.split_merge_moves`, with the NIW likelihood
    (:mod:`bayeswe.kernels.hdp_glda_split_merge`); an accepted move refreshes the
    topics' factors from the assignments."""
    if proposals <= 0 or problem.n_tokens < 2:
        return 0, 0
    if state.split_scratch is None:
        state.split_scratch = sm.new_scratch(problem.n_tokens, problem.n_words)
        state.split_stats = gsm.new_stats(problem.dim)
    sc, stats = state.split_scratch, state.split_stats

    def propose() -> int:
        if state.weights.n_free[0] == 0:  # a split needs a free slot
            _grow(problem, state)
        return gsm.propose(
            problem.corpus, problem.word_start, problem.word_order, state.assign,
            state.weights, state.alpha0, state.gamma, problem.prior, problem.logdet_psi0,
            state.rng_state, sc, stats, scans,
        )  # fmt: skip

    def settle(kind: int, accept: bool) -> None:
        frm, to = sm.settle_slots(state.weights, state.m_k, kind, accept, sc)
        if frm >= 0:
            gsm.settle_tokens(problem.glda_corpus.tok_doc, state.assign, frm, to, sc)
            _refresh_topics(problem, state)

    return run_split_merge(state, proposals, propose, settle, lambda: state.weights, log_ratio)


def log_joint(problem: HDPGLDAProblem, state: HDPGLDAState) -> float:
    """``log p(v | z) + log p(z | alpha0 beta)``: the NIW marginal likelihood of every
    represented topic (from ``z`` alone, in a fixed order, so that equal states give
    equal bits) plus HDP-LDA's document term."""
    C = state.capacity
    counts = np.zeros(C, dtype=np.int64)
    logdet = np.zeros(C)
    p = problem.prior
    glda_common.topic_logdets(
        state.assign.z, problem.word_order, problem.word_start, problem.corpus.emb, p.mu0,
        p.kappa0, p.Psi0, counts, logdet,
    )  # fmt: skip
    live = counts > 0
    L = int(live.sum())
    niw = glda_common.log_joint(
        np.zeros((0, L), dtype=np.int32), np.ones(L), counts[live], logdet[live], p.kappa0,
        p.nu0, problem.logdet_psi0, problem.dim,
    )  # fmt: skip
    return float(niw + kern.log_p_z(state.assign.n_dk, state.weights.beta, state.alpha0))


def topic_summary(
    problem: HDPGLDAProblem, state: HDPGLDAState, n_top: int = N_TOP_WORDS
) -> dict[str, np.ndarray]:
    """The ``display`` largest topics, largest first: ``topic_tokens``, ``beta``, ``mu``,
    ``top_words`` (word ids by posterior-predictive density, highest first).

    Padded with 0 tokens, ``NaN`` weights and means and ``-1`` words.
    """
    T, D = problem.display, problem.dim
    n_top = min(n_top, problem.n_words)
    n_k = state.assign.n_k
    live = np.flatnonzero(n_k > 0)
    order = live[np.argsort(-n_k[live], kind="stable")][:T].astype(np.int64)
    n = order.size
    tokens = np.zeros(T, dtype=np.int64)
    beta = np.full(T, np.nan)
    mu = np.full((T, D), np.nan)
    top = np.full((T, n_top), -1, dtype=np.int64)
    tokens[:n] = n_k[order]
    beta[:n] = state.weights.beta[order]
    mu[:n] = state.topics.mu[order]
    dens = np.empty((n, problem.n_words))
    kern.word_log_density(problem.corpus.emb, state.topics, order, dens)
    top[:n] = np.argsort(-dens, axis=1, kind="stable")[:, :n_top]
    return {"topic_tokens": tokens, "beta": beta, "mu": mu, "top_words": top}


class HDPGLDASampler(HDPChains):
    """Infinite Gaussian LDA chains for :func:`bayeswe.samplers.driver.run_chains`."""

    name = "hdp-gaussian-lda-cgs"

    def __init__(
        self,
        problem: HDPGLDAProblem,
        *,
        seed: int,
        schedule: Any,
        initial_topics: int | tuple[int, ...] = 1,
        keep_topics: bool = True,
        split_merge: int = 0,
        split_merge_scans: int = 0,
    ) -> None:
        self.split_merge = int(split_merge)
        self.split_merge_scans = int(split_merge_scans)
        T, D = problem.display, problem.dim
        n_top = min(N_TOP_WORDS, problem.n_words)
        topic_layout = {
            "topic_tokens": ((T,), np.int64),
            "beta": ((T,), np.float64),
            "mu": ((T, D), np.float64),
            "top_words": ((T, n_top), np.int64),
        }
        super().__init__(problem, seed=seed, schedule=schedule, initial_topics=initial_topics,
                         keep_topics=keep_topics, topic_layout=topic_layout)  # fmt: skip

    def init(self, chain: int) -> HDPGLDAState:
        return init_state(self.problem, self.seed, chain, self.topics_at_start(chain))

    def sweep(self, state: HDPGLDAState) -> None:
        state.moves = (0, 0)
        step(self.problem, state, self.split_merge, self.split_merge_scans)

    def log_joint(self, state: HDPGLDAState) -> float:
        return log_joint(self.problem, state)

    def topic_summary(self, state: HDPGLDAState) -> dict[str, np.ndarray]:
        return topic_summary(self.problem, state)

    def leftover(self, state: HDPGLDAState) -> float:
        return float(state.weights.rest[0])

    def dump(self, state: HDPGLDAState) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        a, w = state.assign, state.weights
        arrays = {
            "z": a.z, "n_dk": a.n_dk, "n_k": a.n_k, "beta": w.beta, "rest": w.rest,
            "free": w.free, "n_free": w.n_free, "m_k": state.m_k, "rng_state": state.rng_state,
        }  # fmt: skip
        return arrays, self.scalars_record(state)

    def load(self, arrays: Mapping[str, np.ndarray], record: Mapping[str, Any]) -> HDPGLDAState:
        a = {name: np.array(value) for name, value in arrays.items()}
        C = int(a["n_k"].size)
        state = HDPGLDAState(
            assign=kern.Assignments(a["z"], a["n_dk"], a["n_k"]),
            topics=_empty_topics(C, self.problem.dim),
            weights=Weights(a["beta"], a["rest"], a["free"], a["n_free"]),
            m_k=a["m_k"],
            rng_state=a["rng_state"],
            alpha0=float.fromhex(record["alpha0"]),
            gamma=float.fromhex(record["gamma"]),
            n_tables=int(record["n_tables"]),
            sweeps_done=int(record["sweeps_done"]),
        )
        check_state(self.problem, state)
        _refresh_topics(self.problem, state)
        return state


def check_state(problem: HDPGLDAProblem, state: HDPGLDAState) -> None:
    """Raise ``ValueError`` unless the state is consistent: dtypes and shapes, counts that
    follow from ``z``, weights on exactly the represented slots, the free stack holding
    exactly the empty slots."""
    C = state.capacity
    a, w = state.assign, state.weights
    D, N = problem.n_docs, problem.n_tokens
    expected = {
        "z": (a.z, (N,), np.int32), "n_dk": (a.n_dk, (D, C), np.int32),
        "n_k": (a.n_k, (C,), np.int64), "beta": (w.beta, (C,), np.float64),
        "rest": (w.rest, (1,), np.float64), "free": (w.free, (C,), np.int32),
        "n_free": (w.n_free, (1,), np.int64), "m_k": (state.m_k, (C,), np.int64),
        "rng_state": (state.rng_state, (4,), np.uint64),
    }  # fmt: skip
    for name, (value, shape, dtype) in expected.items():
        if value.shape != shape or value.dtype != dtype:
            raise ValueError(f"state array {name} is {value.dtype}{value.shape}; need {shape}")
    if N and not (0 <= a.z.min() and a.z.max() < C):
        raise ValueError("topic assignments out of range")
    n_dk = np.zeros((D, C), dtype=np.int32)
    np.add.at(n_dk, (problem.glda_corpus.tok_doc, a.z), 1)
    if not np.array_equal(n_dk, a.n_dk) or not np.array_equal(n_dk.sum(axis=0), a.n_k):
        raise ValueError("counts do not follow from the assignments")
    live = a.n_k > 0
    n_free = int(w.n_free[0])
    if (
        not (w.beta[~live] == 0).all()
        or not (w.beta[live] >= 0).all()
        or not np.array_equal(np.sort(w.free[:n_free]), np.flatnonzero(~live))
        or not (0 <= w.rest[0] <= 1)
        or not state.rng_state.any()
    ):
        raise ValueError("top-level weights, free slots or random stream are inconsistent")


def _warm_up_compiler() -> None:
    """Compile the kernels on a two-token problem so that timings exclude compilation."""
    from bayeswe.corpus import BagOfWords, Vocabulary

    bow = BagOfWords.from_token_ids([[0, 1]], Vocabulary(("a", "b")))
    tiny = HDPGLDAProblem.from_data(HDPGaussianLDAData(bow, np.array([[0.0], [1.0]]), truncation=2))
    state = init_state(tiny, 0, 0, 1)
    step(tiny, state)
    log_joint(tiny, state)
    topic_summary(tiny, state)


def sample_hdp_gaussian_lda(
    data: HDPGaussianLDAData | GaussianLDAData,
    *,
    seed: int | None = None,
    chains: int | None = None,
    **options: Any,
) -> az.InferenceData:
    """Sample infinite Gaussian LDA's posterior by direct-assignment collapsed Gibbs.

    Parameters
    ----------
    data
        An :class:`~bayeswe.glda.HDPGaussianLDAData` (its ``truncation`` only sets how
        many topics a draw records for display), or a
        :class:`~bayeswe.glda.GaussianLDAData` (:func:`as_hdp_glda_data`).
    seed
        Seed in ``[0, 2**32 - 1]`` (``None``: a random one, recorded in ``attrs``).
    chains
        Number of chains (default 4).
    **options
        See :class:`HDPGLDAArgs`.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``n_topics``, ``n_tables``, ``alpha0``, ``gamma``, ``beta_u``
        ``(chain, draw)``, label-free (diagnose these); ``sample_stats.lp``:
        ``log p(v | z) + log p(z | alpha0 beta)``; ``warmup_sample_stats.lp``;
        ``topics`` (with ``keep_topics``): ``topic_tokens``, ``beta`` ``(chain, draw,
        topic)``, ``mu`` ``(chain, draw, topic, dim)`` and ``top_words`` ``(chain, draw,
        topic, rank)``, each draw's largest topics first, for display only (labels
        switch); ``observed_data`` and ``constant_data``. ``attrs`` as
        :func:`bayeswe.samplers.hdp_lda.sample_hdp_lda`'s.

    Raises
    ------
    GaussianLDADataError
        Unusable data.
    ValueError
        A bad option or chains, before anything runs.
    CheckpointError
        A checkpoint written for other data or settings, corrupt, or in use.
    """
    from bayeswe.samplers.driver import Schedule
    from bayeswe.stan.fitting import check_seed

    hdp = as_hdp_glda_data(data)
    args = HDPGLDAArgs.from_options(options)
    seed = check_seed(seed)
    chains = 4 if chains is None else chains
    check_int("chains", chains, minimum=1)
    chains = int(chains)
    schedule = Schedule(args.get("iter_warmup"), args.get("iter_sampling"), args.get("thin"))
    problem = HDPGLDAProblem.from_data(hdp, args)
    _warm_up_compiler()
    sampler = HDPGLDASampler(
        problem,
        seed=seed,
        schedule=schedule,
        initial_topics=initial_topics_by_chain(args.get("initial_topics"), chains),
        keep_topics=args.get("keep_topics"),
        split_merge=args.get("split_merge"),
        split_merge_scans=args.get("split_merge_scans"),
    )
    # absent at 0, so that older checkpoints resume
    extra = {"split_merge": sampler.split_merge} if sampler.split_merge else {}
    if sampler.split_merge_scans:
        extra["split_merge_scans"] = sampler.split_merge_scans
    run = run_hdp(problem, sampler, args, schedule, chains=chains, seed=seed, settings=extra)
    return hdp_inference_data(
        HDP_GAUSSIAN_LDA, hdp, problem, run, schedule, seed, chains, model="hdp_gaussian_lda",
        method="cgs", topic_arrays=("topic_tokens", "beta", "mu", "top_words"),
        extra_attrs={"split_merge": sampler.split_merge,
                     "split_merge_scans": sampler.split_merge_scans,
                     "initial_topics": sampler.initial_topics},
    )  # fmt: skip
