"""Coordinate-ascent variational inference (CAVI) for LDA: ``fit("lda", data, method="cavi")``.

Mean-field ``q(beta, theta, z) = prod_k Dir(beta_k | lambda_k) prod_d Dir(theta_d | gamma_d)
prod_n Cat(z_dn | phi_dn)`` (Blei, Ng and Jordan 2003, section 5; the topic Dirichlets
are the "smoothed" model of their section 5.4, as in :class:`~bayeswe.lda.LDAData`:
``phi_k ~ Dir(beta)``). One iteration is the batch E-step of
:func:`bayeswe.kernels.lda_vi.e_step` (every document's ``gamma_d``, continued from the
previous iteration) and the M-step ``lambda_kv = beta + sum_{d,n: w_dn = v} phi_dnk``.
Each is an exact coordinate maximisation, so the ELBO never decreases; the value
recorded per iteration is the ELBO at the ``phi`` and ``gamma`` of that E-step and the
``lambda`` it used. Iterations stop when the ELBO's relative change falls below
``tol_rel_obj`` or after ``iter`` iterations (Stan's ADVI names).

The returned InferenceData has the names, dims and coords of ``method="cgs"``:
``posterior.phi (chain, draw, topic, word)`` and ``theta (chain, draw, doc, topic)``,
here ``draws`` independent draws from ``q`` (Dirichlet draws by normalised Gamma
variates); ``sample_stats.elbo`` holds the ELBO per iteration (dim ``iteration``);
``attrs`` the iterations, convergence and timings (the start's Gibbs sweeps
included in ``wall_time``). Seeded: the start of ``lambda`` (by default the counts of
``init_sweeps`` collapsed-Gibbs sweeps of chain 0 of ``seed``, see
:attr:`CAVIArgs.init`) and the draws (``SeedSequence(seed, spawn_key=(1,))``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, ClassVar

import arviz as az
import numpy as np

from bayeswe.kernels import lda_vi as kern
from bayeswe.lda.data import LDAData, LDADataError
from bayeswe.options import build_options, check_bool, check_choice, check_float, check_int

__all__ = [
    "INITS",
    "CAVIArgs",
    "CAVIResult",
    "SVIArgs",
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

    method: ClassVar[str] = "cavi"

    def validate(self) -> None:
        check_int("iter", self.iter, minimum=1)
        check_float("tol_rel_obj", self.tol_rel_obj, low=0)
        check_int("local_iter", self.local_iter, minimum=1)
        check_float("local_tol", self.local_tol, low=0)
        check_int("draws", self.draws, minimum=1)
        check_choice("init", self.init, INITS)
        check_int("init_sweeps", self.init_sweeps, minimum=1)


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


def cavi(
    data: LDAData,
    args: CAVIArgs,
    lam: np.ndarray,
    gamma: np.ndarray | None = None,
) -> CAVIResult:
    """Run CAVI from ``lam`` (``(K, V)``) and ``gamma`` (default ``alpha + N_d / K``)."""
    doc_ptr, word_ids, counts = _csr(data)
    alpha = data.alpha_vector()
    D, K, V = data.corpus.n_docs, data.n_topics, data.corpus.n_words
    lam = np.array(lam, dtype=np.float64)
    if gamma is None:
        gamma = alpha[None, :] + (data.corpus.doc_lengths[:, None] / K)
    gamma = np.array(gamma, dtype=np.float64)
    elog_beta = np.empty((K, V))
    sstats_t = np.empty((V, K))
    doc_elbo = np.empty(D)
    elbo: list[float] = []
    converged, rounds = False, 0
    for _ in range(args.iter):
        kern.dirichlet_expectation(lam, elog_beta)
        rounds += kern.e_step(
            doc_ptr, word_ids, counts, alpha, np.ascontiguousarray(elog_beta.T), gamma,
            sstats_t, doc_elbo, args.local_iter, args.local_tol,
        )  # fmt: skip
        elbo.append(float(doc_elbo.sum()) + kern.topic_elbo(float(data.beta), lam, elog_beta))
        lam = data.beta + sstats_t.T
        if len(elbo) > 1 and abs(elbo[-1] - elbo[-2]) <= args.tol_rel_obj * abs(elbo[-1]):
            converged = True
            break
    return CAVIResult(lam, gamma, np.array(elbo), converged, rounds)


def _dirichlet_draws(rng: np.random.Generator, param: np.ndarray, draws: int) -> np.ndarray:
    g = rng.gamma(param[None, :, :], size=(draws, *param.shape))
    g = np.maximum(g, np.finfo(np.float64).tiny)  # tiny parameters underflow to exact 0
    return g / g.sum(axis=-1, keepdims=True)


def sample_cavi(
    data: LDAData, *, seed: int, chains: int | None = None, **options: Any
) -> az.InferenceData:
    """CAVI for LDA and draws from its ``q`` as an InferenceData (see the module docstring)."""
    if not isinstance(data, LDAData):
        raise LDADataError(
            f'method="cavi" takes an LDAData (bayeswe.lda.LDAData), got {type(data).__name__}'
        )
    if chains not in (None, 1):
        raise ValueError(f'method="cavi" runs one optimisation: chains must be 1, got {chains}')
    args: CAVIArgs = build_options(CAVIArgs, "cavi", options)
    start = time.perf_counter()
    result = cavi(data, args, _start(data, args, seed))
    wall_time = time.perf_counter() - start
    attrs = {
        "iterations": int(result.elbo.size),
        "converged": int(result.converged),
        "local_rounds": int(result.local_rounds),
        "iter": args.iter,
        "init": args.init,
        "init_sweeps": args.init_sweeps if args.init == "cgs" else 0,
        "tol_rel_obj": args.tol_rel_obj,
        "wall_time": wall_time,
        "n_tokens": int(data.corpus.n_tokens),
        "final_elbo": float(result.elbo[-1]) if result.elbo.size else math.nan,
    }
    return _idata(data, "cavi", result.lam, result.gamma, result.elbo, seed, args.draws, attrs)


# ----------------------------------------------------------------------------- SVI


@dataclass(frozen=True, kw_only=True)
class SVIArgs:
    """Options of ``method="svi"`` (Hoffman, Blei and Bach 2010, Algorithm 2)."""

    #: Documents per mini-batch.
    batch_size: int = 256
    #: Passes over the corpus (each in a new random order).
    passes: int = 10
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

    method: ClassVar[str] = "svi"

    def validate(self) -> None:
        check_int("batch_size", self.batch_size, minimum=1)
        check_int("passes", self.passes, minimum=1)
        check_float("tau0", self.tau0, low=0)
        check_float("kappa", self.kappa, low=0, high=1)
        check_int("local_iter", self.local_iter, minimum=1)
        check_float("local_tol", self.local_tol, low=0)
        check_int("draws", self.draws, minimum=1)
        check_choice("init", self.init, INITS)
        check_int("init_sweeps", self.init_sweeps, minimum=1)
        check_bool("elbo_every_pass", self.elbo_every_pass)


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
    gamma = alpha[None, :] + data.corpus.doc_lengths[:, None] / K
    elog_beta = np.empty((K, V))
    kern.dirichlet_expectation(lam, elog_beta)
    doc_elbo = np.empty(data.corpus.n_docs)
    kern.e_step(
        doc_ptr, word_ids, counts, alpha, np.ascontiguousarray(elog_beta.T), gamma,
        np.empty((V, K)), doc_elbo, args.local_iter, args.local_tol,
    )  # fmt: skip
    return gamma, float(doc_elbo.sum()) + kern.topic_elbo(float(data.beta), lam, elog_beta)


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
    doc_ptr, word_ids, counts = _csr(data)
    alpha = data.alpha_vector()
    D, K, V = data.corpus.n_docs, data.n_topics, data.corpus.n_words
    lengths = data.corpus.doc_lengths
    lam = np.array(lam, dtype=np.float64)
    elog_beta = np.empty((K, V))
    sstats_t = np.empty((V, K))
    elbo: list[float] = []
    t = int(t_start)
    # each document's gamma is kept from its last visit: the local optimum does not
    # depend on where its coordinate ascent starts, the number of rounds does (12.6
    # rounds per visit from alpha + N_d / K against 3.6 warm, measured at K = 50)
    gamma_all = alpha[None, :] + lengths[:, None] / K if gamma is None else gamma
    for _ in range(args.passes):
        order = rng.permutation(D)
        for b in range(0, D, args.batch_size):
            docs = order[b : b + args.batch_size]
            ptr, wid, cnt = _batch_csr(doc_ptr, word_ids, counts, docs)
            batch_gamma = np.ascontiguousarray(gamma_all[docs])
            kern.dirichlet_expectation(lam, elog_beta)
            kern.e_step(
                ptr, wid, cnt, alpha, np.ascontiguousarray(elog_beta.T), batch_gamma, sstats_t,
                np.empty(docs.size), args.local_iter, args.local_tol,
            )  # fmt: skip
            gamma_all[docs] = batch_gamma
            rho = (args.tau0 + t) ** -args.kappa
            lam = (1.0 - rho) * lam + rho * (data.beta + (D / docs.size) * sstats_t.T)
            t += 1
        if args.elbo_every_pass:
            elbo.append(_full_e_step(data, lam, args)[1])
    return lam, np.array(elbo), t


def _idata(data: LDAData, method: str, lam, gamma, elbo, seed: int, draws: int, attrs: dict):
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    phi = _dirichlet_draws(rng, lam, draws)
    theta = _dirichlet_draws(rng, gamma, draws)
    dim = "iteration" if method == "cavi" else "pass"
    return az.from_dict(
        posterior={"phi": phi[None], "theta": theta[None]},
        sample_stats={"elbo": np.asarray(elbo)[None, None, :]},
        dims={"phi": ["topic", "word"], "theta": ["doc", "topic"], "elbo": [dim]},
        coords={**data.coords(), dim: np.arange(len(elbo))},
        attrs={"model": "lda", "method": method, "seed": int(seed), **attrs},
    )


def sample_svi(
    data: LDAData, *, seed: int, chains: int | None = None, **options: Any
) -> az.InferenceData:
    """Stochastic VI for LDA and draws from its ``q`` (``theta`` from a final full E-step)."""
    if not isinstance(data, LDAData):
        raise LDADataError(
            f'method="svi" takes an LDAData (bayeswe.lda.LDAData), got {type(data).__name__}'
        )
    if chains not in (None, 1):
        raise ValueError(f'method="svi" runs one optimisation: chains must be 1, got {chains}')
    args: SVIArgs = build_options(SVIArgs, "svi", options)
    start = time.perf_counter()
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2,)))
    lam, elbo, updates = svi(data, args, _start(data, args, seed), rng)
    wall_time = time.perf_counter() - start
    gamma, final = _full_e_step(data, lam, args)
    attrs = {
        "updates": int(updates),
        "passes": args.passes,
        "batch_size": args.batch_size,
        "tau0": args.tau0,
        "kappa": args.kappa,
        "init": args.init,
        "init_sweeps": args.init_sweeps if args.init == "cgs" else 0,
        "wall_time": wall_time,
        "n_tokens": int(data.corpus.n_tokens),
        "final_elbo": final,
    }
    return _idata(data, "svi", lam, gamma, elbo, seed, args.draws, attrs)
