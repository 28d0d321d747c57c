"""Collapsed Gibbs sampling for LDA: ``bayeswe.fit("lda", data, method="cgs", ...)``.

The sampler targets the LDA posterior of :class:`~bayeswe.lda.LDAData` with
``theta`` and ``phi`` integrated out (conditional (1) of
:mod:`bayeswe.kernels.lda_cgs`). A chain is a :class:`CGSState` (assignments,
count matrices and its random stream) advanced by :func:`step` (one sweep over all
tokens). :class:`CGSSampler` puts these on the protocol of
:mod:`bayeswe.samplers.driver`, and :func:`sample_cgs` runs it through
:func:`~bayeswe.samplers.driver.run_chains`: chains in parallel threads (the
kernels release the GIL), ``iter_warmup`` sweeps discarded, then every ``thin``-th of
the next ``iter_sampling`` sweeps kept, starting with the first; checkpoint and
resume.

At each saved sweep the draw holds the posterior means of ``phi`` and ``theta``
given the current assignments (Griffiths and Steyvers, 2004, eqs. 6-7)::

    phi_kw   = (n_wk + beta) / (n_k + V beta)
    theta_dk = (n_dk + alpha_k) / (N_d + sum(alpha))

Random streams: chain ``c`` owns a xoshiro256+ generator seeded from
``numpy.random.SeedSequence(seed, spawn_key=(c,))``; it draws the initial
assignments and every sweep of that chain, tokens in a fixed order. Chains share
nothing, so the draws do not depend on how many threads run them.

Initial state: uniformly random topics by default. ``init="sequential"`` draws
each token in turn from the collapsed conditional given the tokens already
assigned (one O(K) pass): a sparser start with a higher log joint early on (3 %
higher after 20 sweeps on NYT, K=200), but on NYT (K=50) its topics predicted
held-out tokens worse after 10, 30 and 60 sweeps (-7.39 against -7.30 nats per
token at 30 sweeps), so it is not the default.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe._arviz import az
from bayeswe.kernels import lda_cgs as kern
from bayeswe.lda.data import LDAData, LDADataError
from bayeswe.options import build_options, check_bool, check_choice, check_int
from bayeswe.samplers.checkpoint import checked_arrays
from bayeswe.samplers.driver import check_run_options

__all__ = [
    "ALGORITHMS",
    "DENSE_FALLBACK",
    "INITS",
    "CGSArgs",
    "CGSInfo",
    "CGSProblem",
    "CGSSampler",
    "CGSState",
    "chain_stream",
    "init_state",
    "log_joint",
    "point_estimates",
    "sample_cgs",
    "step",
]

#: Samplers of the full conditional: SparseLDA buckets (default) or all K terms.
ALGORITHMS: tuple[str, ...] = ("sparse", "dense")

#: The sparse algorithm runs a dense sweep instead while the average number of
#: topics of a token's word exceeds this fraction of K (early sweeps from a uniform
#: start, where the word bucket costs more than all K terms). Both sweeps are the
#: same Markov kernel, so the choice does not change the target. Crossover
#: measured on NYT with K=200: sparse sweeps cost about 0.16 + 0.007 K_w µs per
#: token against 0.77 µs dense, equal at K_w ≈ 0.44 K.
DENSE_FALLBACK: float = 0.4

#: Initial assignments: uniformly at random (default), or drawn one token at a
#: time from the collapsed conditional given the tokens before.
INITS: tuple[str, ...] = ("uniform", "sequential")


@dataclass(frozen=True, kw_only=True)
class CGSArgs:
    """Options of ``method="cgs"``; ``None`` means the default given here.

    Attributes
    ----------
    iter_warmup
        Sweeps discarded first (default 500).
    iter_sampling
        Sweeps after warm-up (default 1000); every ``thin``-th is kept, starting with
        the first, so ``ceil(iter_sampling / thin)`` draws per chain, as in cmdstanpy.
    thin
        Keep one sweep in ``thin`` (default 10).
    algorithm
        ``"sparse"`` (SparseLDA buckets, cost per token independent of K) or
        ``"dense"`` (all K terms per token). Same target, different speed.
    keep_assignments
        Also return the final topic of every token (``constant_data.z``).
    init
        ``"uniform"`` (default) or ``"sequential"`` (each token drawn from the
        collapsed conditional given the tokens before it; see the module docstring).
    parallel_chains
        Chains run at the same time, in threads (default:
        ``min(chains, os.cpu_count())``). The draws do not depend on it.
    threads_per_chain
        Accepted so that a run switched from another method keeps its options, and
        validated, but without effect: the collapsed Gibbs kernels of one chain are
        sequential (each token's draw depends on the one before), so a chain uses
        one thread; use ``parallel_chains`` to use more cores.
    checkpoint
        File holding the run's state; if it exists the run resumes from it, and the
        resumed run's draws equal those of an uninterrupted one bit for bit. The kept
        draws then live in ``<checkpoint>.draws.npy`` beside it.
    checkpoint_every
        Sweeps between checkpoint writes (default 100; the end is always written).
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
    algorithm: str | None = None
    keep_assignments: bool | None = None
    init: str | None = None
    parallel_chains: int | None = None
    threads_per_chain: int | None = None
    checkpoint: str | os.PathLike[str] | None = None
    checkpoint_every: int | None = None
    callback: Callable[[int], None] | None = None
    show_progress: bool | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> CGSArgs:
        """Build and validate (``ValueError`` naming an unknown option or a bad value)."""
        return build_options(cls, "cgs", options)

    def validate(self) -> None:
        check_run_options(self)
        check_choice("algorithm", self.algorithm, ALGORITHMS)
        check_bool("keep_assignments", self.keep_assignments)
        check_choice("init", self.init, INITS)

    @property
    def n_sampling(self) -> int:
        return 1000 if self.iter_sampling is None else int(self.iter_sampling)

    @property
    def n_warmup(self) -> int:
        return 500 if self.iter_warmup is None else int(self.iter_warmup)

    @property
    def n_draws(self) -> int:
        """Kept draws per chain: ``ceil(iter_sampling / thin)``, as cmdstanpy keeps."""
        return -(-self.n_sampling // self.n_thin)

    @property
    def n_thin(self) -> int:
        return 10 if self.thin is None else int(self.thin)

    @property
    def algorithm_name(self) -> str:
        return self.algorithm or "sparse"


@dataclass(frozen=True)
class CGSProblem:
    """Flat token arrays of an :class:`LDAData`, as the kernels take them."""

    #: Token ranges of the documents, int64 ``(D + 1,)``.
    tok_ptr: np.ndarray
    #: Document of each token, int32 ``(N,)`` (sorted).
    doc: np.ndarray
    #: Word of each token, int32 ``(N,)``.
    word: np.ndarray
    #: Dirichlet parameter of theta, float64 ``(K,)``.
    alpha: np.ndarray
    beta: float
    n_docs: int
    n_words: int
    n_topics: int
    #: Tokens of each word, int64 ``(V,)``.
    word_freq: np.ndarray

    @classmethod
    def from_data(cls, data: LDAData) -> CGSProblem:
        bow = data.corpus
        doc, word = bow.tokens()
        tok_ptr = np.zeros(bow.n_docs + 1, dtype=np.int64)
        np.cumsum(bow.doc_lengths, out=tok_ptr[1:])
        return cls(
            tok_ptr=tok_ptr,
            doc=np.ascontiguousarray(doc, dtype=np.int32),
            word=np.ascontiguousarray(word, dtype=np.int32),
            alpha=data.alpha_vector(),
            beta=float(data.beta),
            n_docs=bow.n_docs,
            n_words=bow.n_words,
            n_topics=data.n_topics,
            word_freq=np.bincount(word, minlength=bow.n_words).astype(np.int64),
        )

    @property
    def n_tokens(self) -> int:
        return int(self.word.size)

    def fingerprint(self) -> str:
        """SHA-256 of everything that defines the posterior (checked on resume)."""
        h = hashlib.sha256()
        for arr in (self.tok_ptr, self.word, self.alpha, np.array([self.beta])):
            h.update(np.ascontiguousarray(arr).tobytes())
        h.update(f"{self.n_docs},{self.n_words},{self.n_topics}".encode())
        return h.hexdigest()


@dataclass
class CGSState:
    """One chain: assignments, the counts they imply, and the chain's random stream.

    The arrays are updated in place by :func:`step` (they are large; copying them
    every sweep would cost more than the sweep).
    """

    z: np.ndarray  # int32 (N,)
    n_dk: np.ndarray  # int32 (D, K)
    n_wk: np.ndarray  # int32 (V, K)
    n_k: np.ndarray  # int64 (K,)
    rng_state: np.ndarray  # uint64 (4,), xoshiro256+
    sweeps_done: int = 0
    # sparse sampler only: per-word lists of topics with n_wk > 0
    wl_topic: np.ndarray | None = None
    wl_pos: np.ndarray | None = None
    wl_len: np.ndarray | None = None


def chain_stream(seed: int, chain: int) -> np.ndarray:
    """The xoshiro256+ state of chain ``chain`` (never all zeros)."""
    state = np.random.SeedSequence(seed, spawn_key=(chain,)).generate_state(4, np.uint64)
    if not state.any():  # xoshiro's one forbidden state
        state[0] = 1
    return state


def init_state(
    problem: CGSProblem, seed: int, chain: int, algorithm: str, init: str = "uniform"
) -> CGSState:
    """Initial assignments drawn from the chain's stream (see :data:`INITS`), and their counts."""
    K = problem.n_topics
    state = chain_stream(seed, chain)
    z = np.empty(problem.n_tokens, dtype=np.int32)
    n_dk = np.zeros((problem.n_docs, K), dtype=np.int32)
    n_wk = np.zeros((problem.n_words, K), dtype=np.int32)
    n_k = np.zeros(K, dtype=np.int64)
    if init == "sequential":
        p = problem
        kern.init_sequential(p.tok_ptr, p.word, z, n_dk, n_wk, n_k, p.alpha, p.beta, state)
    else:
        kern.init_assignments(z, K, state)
        kern.counts_from_assignments(problem.tok_ptr, problem.word, z, n_dk, n_wk, n_k)
    out = CGSState(z=z, n_dk=n_dk, n_wk=n_wk, n_k=n_k, rng_state=state)
    if algorithm == "sparse":
        _word_lists(out, problem)
    return out


def _word_lists(state: CGSState, problem: CGSProblem) -> None:
    shape = (problem.n_words, problem.n_topics)
    # int16 topic ids when they fit: half the memory traffic of the per-token list
    # reads, measured 11-13 % faster per sweep (paired runs, 1000 x 200 tokens, K=200)
    dtype = np.int16 if problem.n_topics <= np.iinfo(np.int16).max else np.int32
    state.wl_topic = np.empty(shape, dtype=dtype)
    state.wl_pos = np.empty(shape, dtype=dtype)
    state.wl_len = kern.build_word_lists(state.n_wk, state.wl_topic, state.wl_pos)


def step(
    problem: CGSProblem,
    state: CGSState,
    algorithm: str,
    dense_fallback: float | None = DENSE_FALLBACK,
) -> CGSState:
    """One sweep over all tokens (in place); returns ``state``.

    With ``algorithm="sparse"``, a dense sweep is run instead while the word-topic
    lists are dense (see :data:`DENSE_FALLBACK`; ``None`` never falls back).
    """
    p = problem
    if algorithm == "sparse":
        if state.wl_topic is None:
            _word_lists(state, p)
        topics_per_token = float(p.word_freq @ state.wl_len) / max(p.n_tokens, 1)
        if dense_fallback is not None and topics_per_token > dense_fallback * p.n_topics:
            step(p, state, "dense")
            state.wl_len = kern.build_word_lists(state.n_wk, state.wl_topic, state.wl_pos)
            return state
        kern.sweep_sparse(
            p.tok_ptr,
            p.word,
            state.z,
            state.n_dk,
            state.n_wk,
            state.n_k,
            p.alpha,
            p.beta,
            state.rng_state,
            state.wl_topic,
            state.wl_pos,
            state.wl_len,
        )
    else:
        kern.sweep_dense(
            p.tok_ptr,
            p.word,
            state.z,
            state.n_dk,
            state.n_wk,
            state.n_k,
            p.alpha,
            p.beta,
            state.rng_state,
        )
    state.sweeps_done += 1
    return state


def log_joint(problem: CGSProblem, state: CGSState) -> float:
    """``log p(w, z)`` of the chain's current assignments (collapsed, closed form)."""
    return float(kern.log_joint(state.n_dk, state.n_wk, state.n_k, problem.alpha, problem.beta))


def point_estimates(problem: CGSProblem, state: CGSState) -> tuple[np.ndarray, np.ndarray]:
    """``phi`` ``(K, V)`` and ``theta`` ``(D, K)`` posterior means given the assignments."""
    V = problem.n_words
    phi = (state.n_wk.T + problem.beta) / (state.n_k[:, None] + V * problem.beta)
    n_d = state.n_dk.sum(axis=1, dtype=np.int64)
    theta = (state.n_dk + problem.alpha) / (n_d[:, None] + problem.alpha.sum())
    return phi, theta


@dataclass(frozen=True)
class CGSInfo:
    """What one sweep of :class:`CGSSampler` reports."""

    #: Collapsed ``log p(w, z)`` after the sweep; ``None`` for a sweep that is neither
    #: warm-up nor kept (not computed: it costs a pass over the count matrices).
    lp: float | None
    #: ``phi`` ``(K, V)`` and ``theta`` ``(D, K)`` of a kept sweep (else ``None``).
    phi: np.ndarray | None
    theta: np.ndarray | None
    #: Nanoseconds spent in :func:`step` (the sweep itself, without ``lp`` and the
    #: point estimates): summed by the driver into the run's ``sweep_time``.
    sweep_ns: int


class CGSSampler:
    """Collapsed Gibbs chains of one LDA posterior, for
    :func:`bayeswe.samplers.driver.run_chains`.

    ``init`` draws chain ``c``'s start from its stream (:func:`init_state`); ``step``
    is :func:`step`, which updates the chain's state in place, followed, in the
    chain's own thread, by what the driver keeps of that sweep: the log joint after a
    warm-up or kept sweep, and ``phi``, ``theta`` (:func:`point_estimates`) after a
    kept one. The sampler knows the run's :class:`~bayeswe.samplers.driver.Schedule`
    for that reason; a state counts its own sweeps (``sweeps_done``), so the sweep
    index is the driver's.
    """

    name = "lda-cgs"

    def __init__(
        self, problem: CGSProblem, *, seed: int, algorithm: str, init: str, schedule: Any
    ) -> None:
        self.problem = problem
        self.seed = int(seed)
        self.algorithm = algorithm
        self.init_name = init
        self.schedule = schedule
        K, V, D = problem.n_topics, problem.n_words, problem.n_docs
        self.layout = {
            "phi": ((K, V), np.float64),
            "theta": ((D, K), np.float64),
            "lp": ((), np.float64),
        }

    def init(self, chain: int) -> CGSState:
        return init_state(self.problem, self.seed, chain, self.algorithm, self.init_name)

    def step(self, state: CGSState) -> tuple[CGSState, CGSInfo]:
        t0 = time.perf_counter_ns()
        step(self.problem, state, self.algorithm)
        ns = time.perf_counter_ns() - t0
        t = state.sweeps_done - 1
        kept = self.schedule.kept_index(t) is not None
        lp = None
        if kept or t < self.schedule.iter_warmup:
            lp = log_joint(self.problem, state)
        phi, theta = point_estimates(self.problem, state) if kept else (None, None)
        return state, CGSInfo(lp, phi, theta, ns)

    def record(self, state: CGSState, info: CGSInfo) -> dict[str, Any]:
        return {"phi": info.phi, "theta": info.theta, "lp": info.lp}

    def lp(self, info: CGSInfo) -> float | None:
        return info.lp

    def tally(self, info: CGSInfo) -> dict[str, int]:
        return {"sweep_ns": info.sweep_ns}

    def dump(self, state: CGSState) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        arrays = {name: getattr(state, name) for name in _STATE_ARRAYS}
        # the order of the topics in each word's list decides which topic a uniform
        # draw lands on, so the lists are saved as they are, not rebuilt on resume
        if state.wl_topic is not None:
            arrays.update({name: getattr(state, name) for name in _LIST_ARRAYS})
        return arrays, {"sweeps_done": int(state.sweeps_done)}

    def load(self, arrays: Mapping[str, np.ndarray], record: Mapping[str, Any]) -> CGSState:
        p = self.problem
        K = p.n_topics
        lists = self.algorithm == "sparse"
        list_dtype = np.int16 if K <= np.iinfo(np.int16).max else np.int32
        expected = {
            "z": ((p.n_tokens,), np.int32),
            "n_dk": ((p.n_docs, K), np.int32),
            "n_wk": ((p.n_words, K), np.int32),
            "n_k": ((K,), np.int64),
            "rng_state": ((4,), np.uint64),
        }
        if lists:
            expected |= {
                "wl_topic": ((p.n_words, K), list_dtype),
                "wl_pos": ((p.n_words, K), list_dtype),
                "wl_len": ((p.n_words,), np.int32),
            }
        got = checked_arrays(arrays, expected)
        _check_consistent(p, got)
        state = CGSState(**got, sweeps_done=int(record["sweeps_done"]))
        if state.sweeps_done < 0:
            raise ValueError(f"sweeps_done {state.sweeps_done}")
        return state


_STATE_ARRAYS = ("z", "n_dk", "n_wk", "n_k", "rng_state")
_LIST_ARRAYS = ("wl_topic", "wl_pos", "wl_len")


def _check_consistent(p: CGSProblem, s: Mapping[str, np.ndarray]) -> None:
    """Raise ``ValueError`` unless the counts (and word lists) follow from ``z``."""
    z = s["z"]
    if z.size and not (0 <= z.min() and z.max() < p.n_topics):
        raise ValueError("topic assignments out of range")
    if not s["rng_state"].any():
        raise ValueError("an all-zero random stream")
    n_dk = np.zeros_like(s["n_dk"])
    n_wk = np.zeros_like(s["n_wk"])
    n_k = np.zeros_like(s["n_k"])
    kern.counts_from_assignments(p.tok_ptr, p.word, z, n_dk, n_wk, n_k)
    for name, value in (("n_dk", n_dk), ("n_wk", n_wk), ("n_k", n_k)):
        if not np.array_equal(value, s[name]):
            raise ValueError(f"counts {name} do not follow from the assignments")
    if "wl_len" in s:
        wl_len, wl_topic, wl_pos = s["wl_len"], s["wl_topic"], s["wl_pos"]
        if not np.array_equal(wl_len, (n_wk > 0).sum(axis=1)):
            raise ValueError("word-topic list lengths do not follow from the counts")
        # listed entries name topics with counts, each pointing back to its place, and
        # every other topic points nowhere: then each list is its word's topics
        rows, places = np.nonzero(np.arange(p.n_topics) < wl_len[:, None])
        topics = wl_topic[rows, places].astype(np.int64)
        if (
            (topics.size and not (0 <= topics.min() and topics.max() < p.n_topics))
            or not (n_wk[rows, topics] > 0).all()
            or not np.array_equal(wl_pos[rows, topics], places)
            or not (wl_pos[n_wk == 0] == -1).all()
        ):
            raise ValueError("word-topic lists do not match the counts")


def _warm_up_compiler(algorithm: str) -> None:
    """Compile the kernels on a two-token problem so that timings exclude compilation."""
    from bayeswe.corpus import BagOfWords, Vocabulary

    bow = BagOfWords.from_token_ids([[0, 1]], Vocabulary(("a", "b")))
    tiny = CGSProblem.from_data(LDAData(bow, n_topics=2))
    st = init_state(tiny, 0, 0, algorithm)
    # no dense fallback: a tiny problem's word lists are dense, and the sparse sweep
    # would not be compiled
    step(tiny, st, algorithm, dense_fallback=None)
    log_joint(tiny, st)


def sample_cgs(
    data: LDAData,
    *,
    seed: int,
    chains: int | None = None,
    **options: Any,
) -> az.InferenceData:
    """Sample the LDA posterior by collapsed Gibbs sampling.

    Parameters
    ----------
    data
        Corpus, number of topics and priors.
    seed
        Seed in ``[0, 2**32 - 1]``; with the options it determines every draw.
    chains
        Number of chains (default 4), each from its own random start.
    **options
        See :class:`CGSArgs`: ``iter_warmup``, ``iter_sampling``, ``thin``,
        ``algorithm``, ``keep_assignments``, ``init``, ``parallel_chains``,
        ``threads_per_chain``, ``checkpoint``, ``checkpoint_every``, ``callback``,
        ``show_progress``.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``phi`` ``(chain, draw, topic, word)`` and ``theta``
        ``(chain, draw, doc, topic)``, point estimates from the counts of each
        saved sweep; ``sample_stats.lp`` ``(chain, draw)``: collapsed
        ``log p(w, z)`` of each saved sweep; ``warmup_sample_stats.lp``: the
        same for every warm-up sweep (the warm-up trace); ``observed_data`` and
        ``constant_data``: the data of the ``lda`` Stan program (as NUTS returns
        them); with ``keep_assignments``, ``constant_data`` also holds ``z``
        ``(chain, token)`` (final topic of each token) and ``token_doc``,
        ``token_word`` ``(token,)``.
        ``attrs``: ``model``, ``method``, ``algorithm``, ``seed``, ``chains``,
        ``iter_warmup``, ``iter_sampling``, ``thin``, ``parallel_chains``,
        ``threads_per_chain`` (1), ``n_tokens``, ``wall_time`` (seconds, whole run),
        ``sweep_time`` (seconds in sweeps, summed over chains), ``tokens_per_s``
        (token updates per second of sweep time, per chain), ``resumed``.

    Raises
    ------
    LDADataError
        ``data`` is not an :class:`LDAData`.
    ValueError
        A bad option or chains, before anything runs.
    CheckpointError
        A checkpoint written for other data or settings, corrupt, or in use.
    """
    from bayeswe.inference_data import to_inference_data
    from bayeswe.lda.models import LDA, stan_data
    from bayeswe.samplers.driver import RunOptions, Schedule, run_chains

    if not isinstance(data, LDAData):
        raise LDADataError(f"method 'cgs' takes bayeswe.lda.LDAData, got {type(data).__name__}")
    args = CGSArgs.from_options(options)
    if chains is None:
        chains = 4
    check_int("chains", chains, minimum=1)
    chains = int(chains)
    parallel = args.parallel_chains or min(chains, os.cpu_count() or 1)
    schedule = Schedule(args.n_warmup, args.n_sampling, args.n_thin)
    algorithm, init = args.algorithm_name, args.init or "uniform"
    problem = CGSProblem.from_data(data)
    _warm_up_compiler(algorithm)

    sampler = CGSSampler(problem, seed=seed, algorithm=algorithm, init=init, schedule=schedule)
    run = run_chains(
        sampler,
        chains=chains,
        schedule=schedule,
        seed=int(seed),
        fingerprint=problem.fingerprint(),
        settings={"algorithm": algorithm, "init": init, "dense_fallback": DENSE_FALLBACK},
        options=RunOptions(
            parallel_chains=parallel,
            checkpoint=args.checkpoint,
            checkpoint_every=100 if args.checkpoint_every is None else int(args.checkpoint_every),
            callback=args.callback,
            show_progress=args.show_progress,
        ),
    )
    sweep_time = float(run.totals["sweep_ns"].sum()) / 1e9
    attrs = {
        "model": "lda",
        "method": "cgs",
        "algorithm": algorithm,
        "init": init,
        "seed": int(seed),
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
        "alpha_symmetric": int(data.symmetric_alpha),
        "resumed": bool(run.resumed),
    }
    idata = to_inference_data(
        LDA,
        {"phi": run.draws["phi"], "theta": run.draws["theta"]},
        data=stan_data(data),
        sample_stats={"lp": run.draws["lp"]},
        warmup_sample_stats={"lp": run.warmup_lp} if schedule.iter_warmup else None,
        attrs=attrs,
        library=None,
    )
    if args.keep_assignments:
        # Per-chain values are no data field of the Stan program: they join the data
        # group under their own dims after the build.
        idata.constant_data = idata.constant_data.assign(
            z=(("chain", "token"), np.stack([s.z for s in run.states])),
            token_doc=(("token",), problem.doc),
            token_word=(("token",), problem.word),
        ).assign_coords(chain=np.arange(chains), token=np.arange(problem.n_tokens))
    return idata
