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
``tol`` or after ``max_iter``.

The returned InferenceData has the names, dims and coords of ``method="cgs"``:
``posterior.phi (chain, draw, topic, word)`` and ``theta (chain, draw, doc, topic)``,
here ``draws`` independent draws from ``q`` (Dirichlet draws by normalised Gamma
variates); ``sample_stats.elbo`` holds the ELBO per iteration (dim ``iteration``);
``attrs`` the iterations, convergence and timings (the start's Gibbs sweeps
included in ``fit_time``). Seeded: the start of ``lambda`` (by default the counts of
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

__all__ = ["INITS", "CAVIArgs", "CAVIResult", "cavi", "cgs_lambda", "initial_lambda", "sample_cavi"]

#: Starts of ``lambda`` (see :attr:`CAVIArgs.init`).
INITS: tuple[str, ...] = ("cgs", "random")


@dataclass(frozen=True, kw_only=True)
class CAVIArgs:
    """Options of ``method="cavi"``."""

    #: Most iterations (E-step + M-step).
    max_iter: int = 200
    #: Stop when ``|ELBO_t - ELBO_{t-1}| / |ELBO_t|`` falls below this.
    tol: float = 1e-6
    #: Most rounds of a document's phi/gamma loop per E-step.
    local_iter: int = 100
    #: A document's loop stops when the mean |change| of gamma_d is below this.
    local_tol: float = 1e-5
    #: Draws from q in the returned posterior.
    draws: int = 200
    #: Start of ``lambda``: ``"cgs"``, the topic-word counts after ``init_sweeps`` sweeps
    #: of collapsed Gibbs (same seed); ``"random"``, Gamma noise around N / K tokens per
    #: topic (Hoffman et al. 2010). Batch VB stops at the first local optimum it meets,
    #: and from near-uniform topics that is often one that merges topics.
    init: str = "cgs"
    init_sweeps: int = 50
    progress: bool | None = None

    method: ClassVar[str] = "cavi"

    def validate(self) -> None:
        check_int("max_iter", self.max_iter, minimum=1)
        check_float("tol", self.tol, low=0)
        check_int("local_iter", self.local_iter, minimum=1)
        check_float("local_tol", self.local_tol, low=0)
        check_int("draws", self.draws, minimum=1)
        check_choice("init", self.init, INITS)
        check_int("init_sweeps", self.init_sweeps, minimum=1)
        if self.progress is not None:
            check_bool("progress", self.progress)


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
    for _ in range(args.max_iter):
        kern.dirichlet_expectation(lam, elog_beta)
        rounds += kern.e_step(
            doc_ptr, word_ids, counts, alpha, np.ascontiguousarray(elog_beta.T), gamma,
            sstats_t, doc_elbo, args.local_iter, args.local_tol,
        )  # fmt: skip
        elbo.append(float(doc_elbo.sum()) + kern.topic_elbo(float(data.beta), lam, elog_beta))
        lam = data.beta + sstats_t.T
        if len(elbo) > 1 and abs(elbo[-1] - elbo[-2]) <= args.tol * abs(elbo[-1]):
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
    if args.init == "cgs":
        lam0 = cgs_lambda(data, seed, args.init_sweeps)
    else:
        lam0 = initial_lambda(data, seed)
    result = cavi(data, args, lam0)
    fit_time = time.perf_counter() - start
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    phi = _dirichlet_draws(rng, result.lam, args.draws)
    theta = _dirichlet_draws(rng, result.gamma, args.draws)
    attrs = {
        "model": "lda",
        "method": "cavi",
        "seed": int(seed),
        "iterations": int(result.elbo.size),
        "converged": int(result.converged),
        "local_rounds": int(result.local_rounds),
        "max_iter": args.max_iter,
        "init": args.init,
        "init_sweeps": args.init_sweeps if args.init == "cgs" else 0,
        "tol": args.tol,
        "fit_time": fit_time,
        "n_tokens": int(data.corpus.n_tokens),
        "final_elbo": float(result.elbo[-1]) if result.elbo.size else math.nan,
    }
    idata = az.from_dict(
        posterior={"phi": phi[None], "theta": theta[None]},
        sample_stats={"elbo": result.elbo[None, None, :]},
        dims={"phi": ["topic", "word"], "theta": ["doc", "topic"], "elbo": ["iteration"]},
        coords={**data.coords(), "iteration": np.arange(result.elbo.size)},
        attrs=attrs,
    )
    return idata
