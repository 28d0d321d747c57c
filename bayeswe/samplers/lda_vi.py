"""Coordinate-ascent and stochastic variational inference for LDA: ``fit("lda", data,
method="cavi")`` and ``method="svi"``.

Mean-field ``q(beta, theta, z) = prod_k Dir(beta_k | lambda_k) prod_d Dir(theta_d | gamma_d)
prod_n Cat(z_dn | phi_dn)`` (Blei, Ng and Jordan 2003, section 5; the topic Dirichlets
are the "smoothed" model of their section 5.4, as in :class:`~bayeswe.lda.LDAData`:
``phi_k ~ Dir(beta)``).

``cavi`` (:class:`CAVI`): one iteration is the batch E-step of
:func:`bayeswe.kernels.lda_vi.e_step` (every document's ``gamma_d``, continued from the
previous iteration) and the M-step ``lambda_kv = beta + sum_{d,n: w_dn = v} phi_dnk``.
Each is an exact coordinate maximisation, so the ELBO never decreases; the value
recorded per iteration is the ELBO at the ``phi`` and ``gamma`` of that E-step and the
``lambda`` it used. Iterations stop when the ELBO's relative change falls below
``tol_rel_obj`` (:func:`~bayeswe.samplers.variational.relative_change_converged`) or
after ``iter`` iterations.

``svi`` (:class:`SVI`, Hoffman, Blei and Bach 2010, Algorithm 2): one iteration is one
pass over the documents in a new random order, in mini-batches of ``batch_size``, each
a Robbins–Monro step on ``lambda``; after each pass the full-corpus ELBO is evaluated
(one more E-step over every document, ``elbo_every_pass``). ``tol_rel_obj`` > 0 stops
by Stan's ADVI rule (:func:`~bayeswe.samplers.variational.advi_converged`); the
default 0 runs all ``iter`` passes.

Both run through :func:`bayeswe.samplers.variational.run_variational`. The returned
InferenceData has the names, dims and coords of ``lda``'s Stan fits:
``posterior.phi (chain, draw, topic, word)`` and ``theta (chain, draw, doc, topic)``,
``draws`` independent draws from ``q`` (Dirichlet draws by normalised Gamma variates,
``phi`` then ``theta``, from ``SeedSequence(seed, spawn_key=(1,))``); the ELBO trace in
group ``optimization_trace`` (dim ``iteration``); ``attrs`` the iterations,
convergence and timings (the start's Gibbs sweeps in ``init_time`` and ``wall_time``).
Seeded: the start of ``lambda`` (by default the counts of ``init_sweeps``
collapsed-Gibbs sweeps of chain 0 of ``seed``, see :attr:`CAVIArgs.init`), SVI's
mini-batch order (``SeedSequence(seed, spawn_key=(2,))``) and the draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from bayeswe._arviz import az
from bayeswe.kernels import lda_vi as kern
from bayeswe.lda.data import LDAData, LDADataError
from bayeswe.options import build_options, check_bool, check_choice, check_float, check_int
from bayeswe.samplers import variational as vi

__all__ = [
    "CAVI",
    "INITS",
    "SVI",
    "CAVIArgs",
    "CAVIResult",
    "CAVIState",
    "SVIArgs",
    "SVIState",
    "cavi",
    "cgs_lambda",
    "initial_lambda",
    "sample_cavi",
    "sample_svi",
    "svi",
]

#: Starts of ``lambda`` (see :attr:`CAVIArgs.init`).
INITS: tuple[str, ...] = ("cgs", "random")


@dataclass(frozen=True, kw_only=True)
class CAVIArgs:
    """Options of ``method="cavi"``."""

    #: Most iterations (E-step + M-step).
    iter: int = 200
    #: Stop when ``|ELBO_t - ELBO_{t-1}| / |ELBO_t|`` falls below this.
    tol_rel_obj: float = 1e-6
    #: Most rounds of a document's phi/gamma loop per E-step.
    local_iter: int = 100
    #: A document's loop stops when the mean |change| of gamma_d is below this (as
    #: Hoffman et al.'s and scikit-learn's mean-change threshold).
    local_tol: float = 1e-3
    #: Draws from q in the returned posterior.
    draws: int = 200
    #: Start of ``lambda``: ``"cgs"``, the topic-word counts after ``init_sweeps`` sweeps
    #: of collapsed Gibbs (same seed); ``"random"``, Gamma noise around N / K tokens per
    #: topic (Hoffman et al. 2010). Batch VB stops at the first local optimum it meets,
    #: and from near-uniform topics that is often one that merges topics.
    init: str = "cgs"
    init_sweeps: int = 200
    #: Progress of the iterations (:mod:`bayeswe.progress`).
    show_progress: bool | None = None

    method: ClassVar[str] = "cavi"

    def validate(self) -> None:
        check_int("iter", self.iter, minimum=1)
        check_float("tol_rel_obj", self.tol_rel_obj, low=0, open_low=False)
        check_int("local_iter", self.local_iter, minimum=1)
        check_float("local_tol", self.local_tol, low=0)
        check_int("draws", self.draws, minimum=1)
        check_choice("init", self.init, INITS)
        check_int("init_sweeps", self.init_sweeps, minimum=1)
        _check_progress(self.show_progress)


@dataclass(frozen=True, kw_only=True)
class SVIArgs:
    """Options of ``method="svi"`` (Hoffman, Blei and Bach 2010, Algorithm 2)."""

    #: Most passes over the corpus (each in a new random order).
    iter: int = 10
    #: Stop by Stan's ADVI rule on the per-pass ELBO; 0 runs all ``iter`` passes.
    tol_rel_obj: float = 0.0
    #: Documents per mini-batch.
    batch_size: int = 256
    #: Learning rate ``rho_t = (tau0 + t) ** -kappa`` at update ``t = 0, 1, ...``.
    tau0: float = 1.0
    kappa: float = 0.7
    local_iter: int = 100
    local_tol: float = 1e-3
    draws: int = 200
    init: str = "cgs"
    init_sweeps: int = 200
    #: Record the full-corpus ELBO after each pass (one more E-step over every document).
    elbo_every_pass: bool = True
    show_progress: bool | None = None

    method: ClassVar[str] = "svi"

    def validate(self) -> None:
        check_int("iter", self.iter, minimum=1)
        check_float("tol_rel_obj", self.tol_rel_obj, low=0, open_low=False)
        check_int("batch_size", self.batch_size, minimum=1)
        check_float("tau0", self.tau0, low=0)
        check_float("kappa", self.kappa, low=0, high=1)
        check_int("local_iter", self.local_iter, minimum=1)
        check_float("local_tol", self.local_tol, low=0)
        check_int("draws", self.draws, minimum=1)
        check_choice("init", self.init, INITS)
        check_int("init_sweeps", self.init_sweeps, minimum=1)
        check_bool("elbo_every_pass", self.elbo_every_pass)
        _check_progress(self.show_progress)


def _check_progress(value: Any) -> None:
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"show_progress must be True, False or None, got {value!r}")


@dataclass(frozen=True)
class CAVIResult:
    """The variational parameters and the ELBO trace."""

    #: Topic Dirichlet parameters, ``(K, V)``.
    lam: np.ndarray
    #: Document Dirichlet parameters, ``(D, K)``.
    gamma: np.ndarray
    #: ELBO per iteration.
    elbo: np.ndarray
    converged: bool
    local_rounds: int


def _csr(data: LDAData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    bow = data.corpus
    return (
        np.ascontiguousarray(bow.doc_ptr, dtype=np.int64),
        np.ascontiguousarray(bow.word_ids, dtype=np.int64),
        np.ascontiguousarray(bow.counts, dtype=np.float64),
    )


def initial_lambda(data: LDAData, seed: int) -> np.ndarray:
    """``lambda`` at the start: ``Gamma(100, 1/100)`` noise scaled to N / K tokens per topic."""
    K, V = data.n_topics, data.corpus.n_words
    rng = np.random.default_rng(seed)
    scale = data.corpus.n_tokens / (K * V)
    return data.beta + scale * rng.gamma(100.0, 0.01, size=(K, V))


def cgs_lambda(data: LDAData, seed: int, sweeps: int) -> np.ndarray:
    """``beta`` plus the topic-word counts of one collapsed-Gibbs chain after ``sweeps``."""
    from bayeswe.samplers import lda_cgs

    problem = lda_cgs.CGSProblem.from_data(data)
    state = lda_cgs.init_state(problem, seed, 0, "sparse")
    for _ in range(sweeps):
        lda_cgs.step(problem, state, "sparse")
    return data.beta + state.n_wk.T.astype(np.float64)


def _start(data: LDAData, args: CAVIArgs | SVIArgs, seed: int) -> np.ndarray:
    """``lambda`` at the start chosen by ``args.init``."""
    if args.init == "cgs":
        return cgs_lambda(data, seed, args.init_sweeps)
    return initial_lambda(data, seed)


def _first_gamma(data: LDAData) -> np.ndarray:
    """Every document's ``gamma_d`` before its first E-step: ``alpha + N_d / K``."""
    return data.alpha_vector()[None, :] + data.corpus.doc_lengths[:, None] / data.n_topics


def _dirichlet_draws(rng: np.random.Generator, param: np.ndarray, draws: int) -> np.ndarray:
    g = rng.gamma(param[None, :, :], size=(draws, *param.shape))
    g = np.maximum(g, np.finfo(np.float64).tiny)  # tiny parameters underflow to exact 0
    return g / g.sum(axis=-1, keepdims=True)


def _q_draws(rng: np.random.Generator, lam: np.ndarray, gamma: np.ndarray, n: int):
    """``phi`` then ``theta`` from ``q``; no per-draw statistics."""
    phi = _dirichlet_draws(rng, lam, n)
    theta = _dirichlet_draws(rng, gamma, n)
    return {"phi": phi, "theta": theta}, {}


# ----------------------------------------------------------------------------- CAVI


@dataclass(eq=False)
class CAVIState:
    """``lambda`` ``(K, V)``, ``gamma`` ``(D, K)`` (updated in place) and the local rounds
    run so far."""

    lam: np.ndarray
    gamma: np.ndarray
    rounds: int = 0


@dataclass(frozen=True)
class CAVIInfo:
    """The ELBO of the iteration's E-step and its local rounds."""

    elbo: float
    rounds: int


class CAVI:
    """Batch coordinate-ascent VI for LDA, an :class:`~bayeswe.samplers.variational.Approximation`.

    ``lam`` and ``gamma``: the start (default: ``args.init``'s ``lambda`` and
    ``alpha + N_d / K``).
    """

    name = "cavi"

    def __init__(
        self,
        data: LDAData,
        args: CAVIArgs,
        seed: int,
        lam: np.ndarray | None = None,
        gamma: np.ndarray | None = None,
    ) -> None:
        self.data, self.args, self.seed = data, args, seed
        self._lam, self._gamma = lam, gamma
        self.doc_ptr, self.word_ids, self.counts = _csr(data)
        self.alpha = data.alpha_vector()
        K, V = data.n_topics, data.corpus.n_words
        self.elog_beta = np.empty((K, V))
        self.sstats_t = np.empty((V, K))
        self.doc_elbo = np.empty(data.corpus.n_docs)

    def init(self) -> CAVIState:
        lam = _start(self.data, self.args, self.seed) if self._lam is None else self._lam
        gamma = _first_gamma(self.data) if self._gamma is None else self._gamma
        return CAVIState(np.array(lam, dtype=np.float64), np.array(gamma, dtype=np.float64))

    def update(self, state: CAVIState) -> tuple[CAVIState, CAVIInfo]:
        args, beta = self.args, float(self.data.beta)
        kern.dirichlet_expectation(state.lam, self.elog_beta)
        rounds = kern.e_step(
            self.doc_ptr, self.word_ids, self.counts, self.alpha,
            np.ascontiguousarray(self.elog_beta.T), state.gamma, self.sstats_t, self.doc_elbo,
            args.local_iter, args.local_tol,
        )  # fmt: skip
        elbo = float(self.doc_elbo.sum()) + kern.topic_elbo(beta, state.lam, self.elog_beta)
        state.lam = self.data.beta + self.sstats_t.T
        state.rounds += rounds
        return state, CAVIInfo(elbo, rounds)

    def objective(self, info: CAVIInfo) -> float:
        return info.elbo

    def converged(self, trace: Sequence[float], tol_rel_obj: float) -> bool:
        return vi.relative_change_converged(trace, tol_rel_obj)

    def draws(self, state: CAVIState, n: int, rng: np.random.Generator):
        return _q_draws(rng, state.lam, state.gamma, n)


def cavi(
    data: LDAData,
    args: CAVIArgs,
    lam: np.ndarray,
    gamma: np.ndarray | None = None,
) -> CAVIResult:
    """Run CAVI from ``lam`` (``(K, V)``) and ``gamma`` (default ``alpha + N_d / K``)."""
    run = vi.optimize(
        CAVI(data, args, 0, lam, gamma),
        iter=args.iter, tol_rel_obj=args.tol_rel_obj, show_progress=args.show_progress,
    )  # fmt: skip
    state = run.state
    return CAVIResult(state.lam, state.gamma, run.trace, run.converged, state.rounds)


def _check_data(method: str, data: Any, chains: Any) -> None:
    if not isinstance(data, LDAData):
        raise LDADataError(
            f'method="{method}" takes an LDAData (bayeswe.lda.LDAData), got {type(data).__name__}'
        )
    if chains not in (None, 1):
        raise ValueError(f'method="{method}" runs one optimisation: chains must be 1, got {chains}')


def _run(data: LDAData, approx: Any, args: Any, seed: int, attrs: Any) -> az.InferenceData:
    from bayeswe.lda.models import LDA, stan_data

    idata, _ = vi.run_variational(
        approx, spec=LDA, data=stan_data(data), iter=args.iter,
        tol_rel_obj=args.tol_rel_obj, draws=args.draws, seed=seed,
        show_progress=args.show_progress, attrs=attrs,
    )  # fmt: skip
    return idata


def _init_attrs(data: LDAData, args: CAVIArgs | SVIArgs) -> dict[str, Any]:
    return {
        "model": "lda",
        "init": args.init,
        "init_sweeps": args.init_sweeps if args.init == "cgs" else 0,
        "n_tokens": int(data.corpus.n_tokens),
    }


def sample_cavi(
    data: LDAData, *, seed: int, chains: int | None = None, **options: Any
) -> az.InferenceData:
    """CAVI for LDA and draws from its ``q`` as an InferenceData (see the module docstring)."""
    _check_data("cavi", data, chains)
    args: CAVIArgs = build_options(CAVIArgs, "cavi", options)
    approx = CAVI(data, args, seed)

    def attrs(run: vi.Optimization[CAVIState]) -> dict[str, Any]:
        return {**_init_attrs(data, args), "local_rounds": int(run.state.rounds)}

    return _run(data, approx, args, seed, attrs)


# ----------------------------------------------------------------------------- SVI


def _batch_csr(
    doc_ptr: np.ndarray, word_ids: np.ndarray, counts: np.ndarray, docs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lengths = doc_ptr[docs + 1] - doc_ptr[docs]
    ptr = np.zeros(docs.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    # position of every pair of the batch in the corpus arrays
    pos = np.repeat(doc_ptr[docs] - ptr[:-1], lengths) + np.arange(ptr[-1])
    return ptr, word_ids[pos], counts[pos]


def _full_e_step(data: LDAData, lam: np.ndarray, args: Any) -> tuple[np.ndarray, float]:
    """``gamma`` of every document for ``lam`` (from ``alpha + N_d / K``) and the ELBO there."""
    doc_ptr, word_ids, counts = _csr(data)
    K, V = lam.shape
    alpha = data.alpha_vector()
    gamma = _first_gamma(data)
    elog_beta = np.empty((K, V))
    kern.dirichlet_expectation(lam, elog_beta)
    doc_elbo = np.empty(data.corpus.n_docs)
    kern.e_step(
        doc_ptr, word_ids, counts, alpha, np.ascontiguousarray(elog_beta.T), gamma,
        np.empty((V, K)), doc_elbo, args.local_iter, args.local_tol,
    )  # fmt: skip
    return gamma, float(doc_elbo.sum()) + kern.topic_elbo(float(data.beta), lam, elog_beta)


@dataclass(eq=False)
class SVIState:
    """``lambda``; every document's ``gamma`` at its last visit (updated in place); the
    updates made; the mini-batch stream; the full E-step's ``gamma`` at the current
    ``lambda`` when the last pass evaluated it (else ``None``)."""

    lam: np.ndarray
    gamma: np.ndarray
    t: int
    rng: np.random.Generator
    full_gamma: np.ndarray | None = None
    full_elbo: float = float("nan")


class SVI:
    """Stochastic VI for LDA, one pass per iteration (see the module docstring).

    ``lam``, ``gamma``, ``t``, ``rng``: a start other than ``args.init``'s (to continue a
    run: ``t`` updates already made, the rate goes on from there).
    """

    name = "svi"

    def __init__(
        self,
        data: LDAData,
        args: SVIArgs,
        seed: int,
        *,
        lam: np.ndarray | None = None,
        gamma: np.ndarray | None = None,
        t: int = 0,
        rng: np.random.Generator | None = None,
    ) -> None:
        self.data, self.args, self.seed = data, args, seed
        self._start = (lam, gamma, int(t), rng)
        self.doc_ptr, self.word_ids, self.counts = _csr(data)
        self.alpha = data.alpha_vector()
        K, V = data.n_topics, data.corpus.n_words
        self.elog_beta = np.empty((K, V))
        self.sstats_t = np.empty((V, K))

    def init(self) -> SVIState:
        lam, gamma, t, rng = self._start
        if rng is None:
            rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(2,)))
        if lam is None:
            lam = _start(self.data, self.args, self.seed)
        # each document's gamma is kept from its last visit: the local optimum does not
        # depend on where its coordinate ascent starts, the number of rounds does (12.6
        # rounds per visit from alpha + N_d / K against 3.6 warm, measured at K = 50)
        gamma = _first_gamma(self.data) if gamma is None else gamma
        return SVIState(np.array(lam, dtype=np.float64), gamma, t, rng)

    def update(self, state: SVIState) -> tuple[SVIState, float | None]:
        data, args = self.data, self.args
        D = data.corpus.n_docs
        lam = state.lam
        order = state.rng.permutation(D)
        for b in range(0, D, args.batch_size):
            docs = order[b : b + args.batch_size]
            ptr, wid, cnt = _batch_csr(self.doc_ptr, self.word_ids, self.counts, docs)
            batch_gamma = np.ascontiguousarray(state.gamma[docs])
            kern.dirichlet_expectation(lam, self.elog_beta)
            kern.e_step(
                ptr, wid, cnt, self.alpha, np.ascontiguousarray(self.elog_beta.T), batch_gamma,
                self.sstats_t, np.empty(docs.size), args.local_iter, args.local_tol,
            )  # fmt: skip
            state.gamma[docs] = batch_gamma
            rho = (args.tau0 + state.t) ** -args.kappa
            lam = (1.0 - rho) * lam + rho * (data.beta + (D / docs.size) * self.sstats_t.T)
            state.t += 1
        state.lam, state.full_gamma = lam, None
        if not args.elbo_every_pass:
            return state, None
        state.full_gamma, state.full_elbo = _full_e_step(data, lam, args)
        return state, state.full_elbo

    def objective(self, info: float | None) -> float | None:
        return info

    def converged(self, trace: Sequence[float], tol_rel_obj: float) -> bool:
        return vi.advi_converged(trace, tol_rel_obj, iter=self.args.iter)

    def final(self, state: SVIState) -> np.ndarray:
        """``gamma`` of every document at the final ``lambda`` (a full E-step, reused when
        the last pass evaluated the ELBO); its ELBO goes to ``state.full_elbo``."""
        if state.full_gamma is None:
            state.full_gamma, state.full_elbo = _full_e_step(self.data, state.lam, self.args)
        return state.full_gamma

    def draws(self, state: SVIState, n: int, rng: np.random.Generator):
        return _q_draws(rng, state.lam, self.final(state), n)


def svi(
    data: LDAData,
    args: SVIArgs,
    lam: np.ndarray,
    rng: np.random.Generator,
    t_start: int = 0,
    gamma: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Stochastic VI from ``lam``: ``(lam, elbo per pass, updates)``.

    ``t_start``: updates already made (to continue a run: the rate goes on from there);
    the returned count includes them. ``gamma`` ``(D, K)``: the documents' parameters
    at their last visit, updated in place (default: a new array from ``alpha + N_d / K``).

    Each mini-batch's ``gamma_d`` start where their last visit left them (first visit:
    ``alpha + N_d / K``); the topics move to
    ``(1 - rho_t) lambda + rho_t (beta + D / |B| * sstats_B)``.
    """
    approx = SVI(data, args, 0, lam=lam, gamma=gamma, t=t_start, rng=rng)
    run = vi.optimize(
        approx, iter=args.iter, tol_rel_obj=args.tol_rel_obj, show_progress=args.show_progress
    )
    return run.state.lam, run.trace, run.state.t


def sample_svi(
    data: LDAData, *, seed: int, chains: int | None = None, **options: Any
) -> az.InferenceData:
    """Stochastic VI for LDA and draws from its ``q`` (``theta`` from a final full E-step)."""
    _check_data("svi", data, chains)
    args: SVIArgs = build_options(SVIArgs, "svi", options)
    approx = SVI(data, args, seed)

    def attrs(run: vi.Optimization[SVIState]) -> dict[str, Any]:
        approx.final(run.state)
        return {
            **_init_attrs(data, args),
            "updates": int(run.state.t),
            "batch_size": args.batch_size,
            "tau0": args.tau0,
            "kappa": args.kappa,
            # the ELBO at the final lambda, evaluated by the last pass or for the draws
            "final_elbo": run.state.full_elbo,
        }

    return _run(data, approx, args, seed, attrs)
