"""Mean-field VB with the Jaakkola–Jordan bound and ARD for SGNS: ``jj-vb`` and ``jj-svi``.

Model (Sakaya's thesis, sections 4.7-4.8, mapped onto the aggregated data of
``models/sgns.stan``): for pair ``p`` (target ``w``, context ``c``) the ``n_pos_p``
positive and ``n_p - n_pos_p`` negative observations have likelihood ``s(rho_w' alpha_c)``
and ``1 - s(rho_w' alpha_c)`` (eq. (5) of Yrjänäinen et al.); target vectors
``rho_w ~ N(0, lambda^2 I)`` (the data's ``lambda``; the thesis uses 1); context vectors
``alpha_c ~ N(0, diag(tau)^-1)`` with ARD precisions ``tau_k ~ Gamma(ard_a0, ard_b0)``
(rate parametrisation) shared by all context vectors. The thesis's word and context
biases are left out (it calls them optional and drops them in its algorithms; our
Stan models have none). With ``ard=False`` the precisions are fixed at ``lambda^-2``:
the model is then exactly ``sgns.stan``'s, and ``q`` approximates its posterior.

Approximation (thesis section 4.9): ``q = prod_w N(rho_w | m_w, S_w) prod_c N(alpha_c |
mu_c, Sigma_c) prod_k Gamma(tau_k | a_k, b_k)`` with full ``K x K`` covariances, and
the logistic likelihood replaced by the Jaakkola–Jordan lower bound (section 4.5) with
one parameter ``xi_p`` per pair (all observations of a pair share ``x = rho_w' alpha_c``
and therefore the optimal ``xi_p^2 = E_q[x^2]``, section 4.9.4). The updates
(kernels in :mod:`bayeswe.kernels.jj_vb`) are those of section 4.9 without biases:

* ``S_w^-1 = lambda^-2 I + sum_p 2 n_p lam(xi_p) E[alpha_c alpha_c']``,
  ``m_w = S_w sum_p (n_pos_p - n_p / 2) mu_c`` (section 4.9.1, eq. (*));
* ``Sigma_c^-1 = diag(E[tau]) + sum_p 2 n_p lam(xi_p) E[rho_w rho_w']``,
  ``mu_c = Sigma_c sum_p (n_pos_p - n_p / 2) m_w`` (section 4.9.2);
* ``a_k = a0 + V / 2``, ``b_k = b0 + 1/2 sum_c E[alpha_ck^2]`` (section 4.9.3);
* ``xi_p^2 = tr(E[rho_w rho_w'] E[alpha_c alpha_c'])`` (sections 4.9.4-4.9.5).

``jj-vb`` is batch coordinate ascent: one iteration updates every ``rho_w``, every
``xi_p``, every ``alpha_c``, ``q(tau)`` and every ``xi_p`` again. Each step maximises the
bound (:func:`elbo`) exactly in its coordinates, so the recorded ELBO never decreases.
Iterations stop when ``|ELBO_t - ELBO_{t-1}| < tol_rel_obj |ELBO_t|`` or after ``iter``.

``jj-svi`` is the thesis's Algorithm 3 (stochastic VI, section 5.3.1) on mini-batches of
pairs: for the words that are targets in a mini-batch, the natural parameters of
``q(rho_w)`` computed from the mini-batch (sums scaled per word by ``beta_w`` = pairs of
``w`` in the data / in the mini-batch, Algorithm 3 line 3) are blended in by a
Robbins–Monro step ``(1 - r_t) old + r_t new``, ``r_t = (tau0 + t)^-kappa`` (one global
rate as in Hoffman et al. 2013, instead of the thesis's per-word rate); then the same for
the contexts' ``q(alpha_c)`` and for ``b`` of ``q(tau)`` (see :func:`jj_svi` for the one
deviation in order, and why). The thesis's inner loop (``niter``) is one round and its
Algorithm 4 (the multithreaded version) is not implemented.

Output: ``posterior.rho`` and ``alpha`` ``(chain=1, draw, word, dim)`` are ``draws``
independent draws from ``q`` (``SeedSequence(seed, spawn_key=(1,))``), with ``sgns``'s
names, dims and coords; ``posterior.ard_precision`` ``(chain, draw, dim)`` draws from
``q(tau)`` (``ard=True`` only); group ``optimization_trace`` the ELBO per iteration
(dim ``iteration``: a sweep for ``jj-vb``, a pass over the pairs for ``jj-svi``). Both
run through :func:`bayeswe.samplers.variational.run_variational`; ``jj-vb`` stops by
:func:`~bayeswe.samplers.variational.relative_change_converged`, ``jj-svi`` (with
``tol_rel_obj > 0``) by :func:`~bayeswe.samplers.variational.advi_converged`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy.special import digamma, gammaln

from bayeswe._arviz import az
from bayeswe.errors import NonFiniteStateError
from bayeswe.kernels import jj_vb as kern
from bayeswe.options import (
    build_options,
    check_bool,
    check_choice,
    check_float,
    check_int,
    magnitude_problem,
)
from bayeswe.samplers import variational as vi

__all__ = [
    "INIT_SD",
    "JJSVI",
    "JJSVIState",
    "JJVB",
    "JJSVIArgs",
    "JJVBArgs",
    "JJVBProblem",
    "JJVBResult",
    "JJVBState",
    "check_options",
    "elbo",
    "init_state",
    "jj_svi",
    "jj_vb",
    "sample_jj_svi",
    "sample_jj_vb",
    "update_alpha",
    "update_rho",
    "update_tau",
    "update_xi",
]

#: Standard deviation of the random initial means and of the initial ``q`` around them.
INIT_SD: float = 0.1


def _check_init(init: Any) -> None:
    if isinstance(init, str):
        check_choice("init", init, ("random",))
        return
    if not isinstance(init, Mapping) or set(init) != {"rho", "alpha"}:
        raise ValueError(
            "init must be 'random' or a mapping with the initial means 'rho' and 'alpha' "
            f"(V x K arrays), got {init!r:.80}"
        )
    for name in ("rho", "alpha"):
        try:
            arr = np.asarray(init[name], dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"init[{name!r}] must be a numeric V x K array") from None
        if arr.ndim != 2 or not np.all(np.isfinite(arr)):
            raise ValueError(f"init[{name!r}] must be a finite V x K array, got shape {arr.shape}")


def _check_ard(a0: Any, b0: Any, ard: Any) -> None:
    check_bool("ard", ard)
    for name, value in (("ard_a0", a0), ("ard_b0", b0)):
        check_float(name, value, low=0)
        if (issue := magnitude_problem(name, value)) is not None:
            raise ValueError(issue)


@dataclass(frozen=True, kw_only=True)
class JJVBArgs:
    """Options of ``method="jj-vb"`` (batch coordinate ascent)."""

    #: Most iterations (each updates every factor of ``q`` once, ``xi`` twice).
    iter: int = 500
    #: Stop when ``|ELBO_t - ELBO_{t-1}| / |ELBO_t|`` falls below this.
    tol_rel_obj: float = 1e-7
    #: Draws from ``q`` in the returned posterior.
    draws: int = 1000
    #: ARD prior on the context vectors' precisions; False fixes them at ``lambda^-2``.
    ard: bool = True
    #: Shape and rate of the ARD prior ``Gamma(a0, b0)``. ``1e-3`` each: the usual vague
    #: choice of ARD (mean 1, the thesis's unit prior precision; sd ~32), so that the
    #: data, not the prior, decide which dimensions are switched off.
    ard_a0: float = 1e-3
    ard_b0: float = 1e-3
    #: ``"random"``: means ``N(0, 0.1^2)`` (seeded); or ``{"rho": m, "alpha": mu}``,
    #: ``V x K`` initial means. The covariances start at ``0.1^2 I`` and ``E[tau]`` at
    #: ``lambda^-2``.
    init: str | Mapping[str, Any] = "random"
    #: Progress of the iterations (:mod:`bayeswe.progress`).
    show_progress: bool | None = None

    method: ClassVar[str] = "jj-vb"

    def validate(self) -> None:
        check_int("iter", self.iter, minimum=1)
        check_float("tol_rel_obj", self.tol_rel_obj, low=0, open_low=False)
        check_int("draws", self.draws, minimum=1)
        _check_ard(self.ard_a0, self.ard_b0, self.ard)
        _check_init(self.init)
        _check_progress(self.show_progress)


@dataclass(frozen=True, kw_only=True)
class JJSVIArgs:
    """Options of ``method="jj-svi"`` (stochastic VI, thesis Algorithm 3)."""

    #: Most passes over the pairs (each in a new random order), one iteration each.
    iter: int = 20
    #: Stop by Stan's ADVI rule on the per-pass ELBO; 0 runs all ``iter`` passes.
    tol_rel_obj: float = 0.0
    #: Pairs per mini-batch.
    batch_size: int = 1000
    #: Step ``r_t = (tau0 + t) ** -kappa`` at update ``t = 0, 1, ...``; ``tau0 >= 1`` keeps
    #: every step in ``(0, 1]``; Robbins–Monro convergence needs ``0.5 < kappa <= 1``
    #: (``kappa = 0``: every step 1).
    tau0: float = 1.0
    kappa: float = 0.7
    draws: int = 1000
    ard: bool = True
    ard_a0: float = 1e-3
    ard_b0: float = 1e-3
    init: str | Mapping[str, Any] = "random"
    show_progress: bool | None = None

    method: ClassVar[str] = "jj-svi"

    def validate(self) -> None:
        check_int("iter", self.iter, minimum=1)
        check_float("tol_rel_obj", self.tol_rel_obj, low=0, open_low=False)
        check_int("batch_size", self.batch_size, minimum=1)
        check_float("tau0", self.tau0, low=1, open_low=False)
        check_float("kappa", self.kappa, low=0, high=1, open_low=False, open_high=False)
        check_int("draws", self.draws, minimum=1)
        _check_ard(self.ard_a0, self.ard_b0, self.ard)
        _check_init(self.init)
        _check_progress(self.show_progress)


def _check_progress(value: Any) -> None:
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"show_progress must be True, False or None, got {value!r}")


# --------------------------------------------------------------------------- problem


@dataclass(frozen=True, eq=False)
class JJVBProblem:
    """The SGNS data in the layout of the kernels: pairs sorted by target, plus the
    context-major ordering (built once)."""

    stan_data: Mapping[str, Any]
    V: int
    K: int
    prior_sd: float
    target: NDArray[np.int32]
    context: NDArray[np.int32]
    n: NDArray[np.float64]
    #: ``n_pos - n / 2`` per pair
    kappa: NDArray[np.float64]
    #: target ``w`` owns pairs ``target_ptr[w]:target_ptr[w+1]``
    target_ptr: NDArray[np.int64]
    #: pairs sorted by (context, target); context ``c`` owns ``context_order[context_ptr[c]:...]``
    context_order: NDArray[np.int64]
    context_ptr: NDArray[np.int64]

    @classmethod
    def from_stan_data(cls, data: Mapping[str, Any]) -> JJVBProblem:
        """Validate ``sgns`` data (1-based indices, as for Stan) and build the orderings.

        Raises
        ------
        bayeswe.errors.StanDataError
            A missing or misshapen field.
        bayeswe.sgns.SGNSDataError
            Bad pairs (indices, counts, repeated pairs).
        """
        from bayeswe.sgns.data import SGNSData
        from bayeswe.sgns.models import SGNS

        fields = SGNS.validate(data)
        V, K = int(fields["V"]), int(fields["K"])
        vocab = data.get("vocabulary")
        sgns = SGNSData(
            V if vocab is None else [str(w) for w in vocab],
            np.asarray(fields["target_word"]) - 1,
            np.asarray(fields["context_word"]) - 1,
            fields["n"],
            fields["n_pos"],
        )
        n = sgns.n.astype(np.float64)
        return cls(
            stan_data=data,
            V=V,
            K=K,
            prior_sd=float(fields["lambda"]),
            # writable copies: SGNSData's arrays are read-only, which Numba compiles as
            # another type (a second specialisation of every kernel)
            target=np.array(sgns.target, dtype=np.int32),
            context=np.array(sgns.context, dtype=np.int32),
            n=n,
            kappa=sgns.n_pos.astype(np.float64) - 0.5 * n,
            target_ptr=np.array(sgns.target_offsets, dtype=np.int64),
            context_order=np.array(sgns.context_order, dtype=np.int64),
            context_ptr=np.array(sgns.context_offsets, dtype=np.int64),
        )

    @property
    def P(self) -> int:
        return int(self.target.size)


@dataclass(eq=False)
class JJVBState:
    """The variational parameters, their natural form and cached second moments.

    ``rho_prec``/``rho_lin`` are the natural parameters ``S^-1`` and ``S^-1 m`` (what the
    stochastic steps average); ``rho_mom[w] = m_w m_w' + S_w``; ``rho_logdet[w] = log
    det S_w``; likewise for ``alpha``. ``lam[p] = lambda(xi_p)``.
    """

    m: NDArray[np.float64]
    S: NDArray[np.float64]
    rho_prec: NDArray[np.float64]
    rho_lin: NDArray[np.float64]
    rho_mom: NDArray[np.float64]
    rho_logdet: NDArray[np.float64]
    mu: NDArray[np.float64]
    Sigma: NDArray[np.float64]
    alpha_prec: NDArray[np.float64]
    alpha_lin: NDArray[np.float64]
    alpha_mom: NDArray[np.float64]
    alpha_logdet: NDArray[np.float64]
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    xi: NDArray[np.float64]
    lam: NDArray[np.float64]


@dataclass(frozen=True)
class JJVBResult:
    """Variational parameters at the end of a run and the ELBO trace.

    ``m``, ``mu`` ``(V, K)``; ``S``, ``Sigma`` ``(V, K, K)``; ``a``, ``b`` ``(K,)`` (shape and
    rate of ``q(tau)``; with ``ard=False`` the fixed precision is ``a / b = lambda^-2``);
    ``xi`` per pair, in the order of the data sorted by (target, context).
    """

    m: NDArray[np.float64]
    S: NDArray[np.float64]
    mu: NDArray[np.float64]
    Sigma: NDArray[np.float64]
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    xi: NDArray[np.float64]
    #: ELBO per iteration (``jj-vb``) or per pass (``jj-svi``)
    elbo: NDArray[np.float64]
    converged: bool

    @property
    def ard_precision(self) -> NDArray[np.float64]:
        """``E_q[tau_k] = a_k / b_k``."""
        return self.a / self.b


def _problem(data: JJVBProblem | Mapping[str, Any]) -> JJVBProblem:
    return data if isinstance(data, JJVBProblem) else JJVBProblem.from_stan_data(data)


def _gaussian_from_means(mean: NDArray[np.float64], K: int) -> tuple[NDArray[np.float64], ...]:
    V = mean.shape[0]
    prec = np.broadcast_to(np.eye(K) / INIT_SD**2, (V, K, K)).copy()
    cov = np.broadcast_to(np.eye(K) * INIT_SD**2, (V, K, K)).copy()
    mom = mean[:, :, None] * mean[:, None, :] + cov
    logdet = np.full(V, K * math.log(INIT_SD**2))
    return prec, mean / INIT_SD**2, cov, mom, logdet


def init_state(problem: JJVBProblem, args: JJVBArgs | JJSVIArgs, seed: int) -> JJVBState:
    """The start of ``q``: means from ``args.init`` (``"random"``: ``N(0, 0.1^2)`` from
    ``default_rng(seed)``), covariances ``0.1^2 I``, ``E[tau] = lambda^-2`` and ``xi`` at
    its optimum for that ``q``."""
    V, K = problem.V, problem.K
    if isinstance(args.init, str):
        rng = np.random.default_rng(seed)
        m = rng.normal(0.0, INIT_SD, size=(V, K))
        mu = rng.normal(0.0, INIT_SD, size=(V, K))
    else:
        m = np.array(args.init["rho"], dtype=np.float64)
        mu = np.array(args.init["alpha"], dtype=np.float64)
        for name, arr in (("rho", m), ("alpha", mu)):
            if arr.shape != (V, K):
                raise ValueError(
                    f"init[{name!r}] must have shape (V, K) = {(V, K)}, got {arr.shape}"
                )
    rho_prec, rho_lin, S, rho_mom, rho_logdet = _gaussian_from_means(m, K)
    alpha_prec, alpha_lin, Sigma, alpha_mom, alpha_logdet = _gaussian_from_means(mu, K)
    a = np.full(K, args.ard_a0 + 0.5 * V) if args.ard else np.ones(K)
    b = a * problem.prior_sd**2  # E[tau] = a / b = lambda^-2
    state = JJVBState(
        m=m, S=S, rho_prec=rho_prec, rho_lin=rho_lin, rho_mom=rho_mom, rho_logdet=rho_logdet,
        mu=mu, Sigma=Sigma, alpha_prec=alpha_prec, alpha_lin=alpha_lin, alpha_mom=alpha_mom,
        alpha_logdet=alpha_logdet, a=a, b=b, xi=np.zeros(problem.P), lam=np.zeros(problem.P),
    )  # fmt: skip
    update_xi(problem, state)
    return state


# --------------------------------------------------------------------------- updates


def _moments(rows, prec, lin, mean, cov, mom, logdet, what: str) -> None:
    failed = kern.moments_from_natural(rows, prec, lin, mean, cov, logdet)
    if failed:
        raise NonFiniteStateError(
            f"{failed} precision matrices of q({what}) are not positive definite "
            "(non-finite or overflowing data?)"
        )
    kern.second_moments(mean, cov, rows, mom)


def _rho_natural(problem: JJVBProblem, state: JJVBState, rows, ptr, pair, scale, prec, lin):
    prior = np.full(problem.K, 1.0 / problem.prior_sd**2)
    kern.natural_params(
        rows, ptr, pair, problem.context[pair], problem.n, problem.kappa, state.lam,
        state.alpha_mom, state.mu, prior, scale, prec, lin,
    )  # fmt: skip


def _alpha_natural(problem, state, rows, ptr, pair, scale, prec, lin, rho_mom, rho_mean):
    kern.natural_params(
        rows, ptr, pair, problem.target[pair], problem.n, problem.kappa, state.lam,
        rho_mom, rho_mean, state.a / state.b, scale, prec, lin,
    )  # fmt: skip


def update_rho(problem: JJVBProblem, state: JJVBState) -> None:
    """Every ``q(rho_w)`` at its optimum given ``q(alpha)`` and ``xi`` (thesis 4.9.1, (*))."""
    V = problem.V
    rows = np.arange(V, dtype=np.int64)
    pair = np.arange(problem.P, dtype=np.int64)
    _rho_natural(problem, state, rows, problem.target_ptr, pair, np.ones(V), state.rho_prec,
                 state.rho_lin)  # fmt: skip
    _moments(rows, state.rho_prec, state.rho_lin, state.m, state.S, state.rho_mom,
             state.rho_logdet, "rho")  # fmt: skip


def update_alpha(problem: JJVBProblem, state: JJVBState) -> None:
    """Every ``q(alpha_c)`` at its optimum given ``q(rho)``, ``q(tau)``, ``xi`` (thesis 4.9.2)."""
    V = problem.V
    rows = np.arange(V, dtype=np.int64)
    _alpha_natural(problem, state, rows, problem.context_ptr, problem.context_order, np.ones(V),
                   state.alpha_prec, state.alpha_lin, state.rho_mom, state.m)  # fmt: skip
    _moments(rows, state.alpha_prec, state.alpha_lin, state.mu, state.Sigma, state.alpha_mom,
             state.alpha_logdet, "alpha")  # fmt: skip


def _tau_rate(problem: JJVBProblem, state: JJVBState, b0: float) -> NDArray[np.float64]:
    return b0 + 0.5 * np.einsum("vkk->k", state.alpha_mom)


def update_tau(problem: JJVBProblem, state: JJVBState, args: JJVBArgs | JJSVIArgs) -> None:
    """``q(tau_k) = Gamma(a0 + V/2, b0 + 1/2 sum_c E[alpha_ck^2])`` (thesis 4.9.3); no-op
    without ARD."""
    if args.ard:
        state.a = np.full(problem.K, args.ard_a0 + 0.5 * problem.V)
        state.b = _tau_rate(problem, state, args.ard_b0)


def update_xi(
    problem: JJVBProblem, state: JJVBState, pairs: NDArray[np.int64] | None = None
) -> NDArray[np.float64]:
    """``xi_p^2 = E_q[(rho_w' alpha_c)^2]`` for ``pairs`` (default all; thesis 4.9.4).

    Returns each pair's expected bound at the new ``xi`` (the likelihood part of :func:`elbo`).
    """
    if pairs is None:
        pairs = np.arange(problem.P, dtype=np.int64)
    out = np.empty(pairs.size)
    kern.xi_update(
        pairs, problem.target, problem.context, problem.n, problem.kappa, state.m,
        state.rho_mom, state.mu, state.alpha_mom, state.xi, state.lam, out,
    )  # fmt: skip
    return out


def elbo(
    problem: JJVBProblem,
    state: JJVBState,
    args: JJVBArgs | JJSVIArgs,
    bound: NDArray[np.float64] | None = None,
) -> float:
    """The ELBO with the Jaakkola–Jordan bound, ``E_q[log p_xi(D, theta)] + H[q]``.

    Sum of the pairs' expected bounds (``bound`` from :func:`update_xi`, or recomputed at
    the current ``xi`` — which updates ``xi``), ``-KL(q(rho_w) || N(0, lambda^2 I))``,
    ``E_q[log N(alpha_c | 0, diag(tau)^-1)] + H[q(alpha_c)]`` and, with ARD,
    ``E_q[log Gamma(tau_k | a0, b0)] + H[q(tau_k)]``. Constants included: it bounds
    ``log p(D)`` of the model with the binomial coefficients of the counts dropped.
    """
    if bound is None:
        bound = update_xi(problem, state)
    K = problem.K
    prec0 = 1.0 / problem.prior_sd**2
    tr_rho = np.einsum("vkk->v", state.rho_mom)  # |m|^2 + tr S
    rho = 0.5 * np.sum(state.rho_logdet + K * math.log(prec0) + K - prec0 * tr_rho)
    if args.ard:
        e_tau = state.a / state.b
        e_log_tau = digamma(state.a) - np.log(state.b)
    else:
        e_tau = np.full(K, prec0)
        e_log_tau = np.full(K, math.log(prec0))
    diag_alpha = np.einsum("vkk->vk", state.alpha_mom)
    alpha = 0.5 * np.sum(state.alpha_logdet + K + e_log_tau.sum() - diag_alpha @ e_tau)
    tau = 0.0
    if args.ard:
        a0, b0, a, b = args.ard_a0, args.ard_b0, state.a, state.b
        tau = float(
            np.sum(
                a0 * math.log(b0) - gammaln(a0) + (a0 - 1.0) * e_log_tau - b0 * e_tau
                + a - np.log(b) + gammaln(a) + (1.0 - a) * digamma(a)
            )
        )  # fmt: skip
    return float(np.sum(bound)) + float(rho) + float(alpha) + tau


# --------------------------------------------------------------------------- approximations


def _result(state: JJVBState, trace: NDArray[np.float64], converged: bool) -> JJVBResult:
    return JJVBResult(
        m=state.m, S=state.S, mu=state.mu, Sigma=state.Sigma, a=state.a, b=state.b,
        xi=state.xi, elbo=np.asarray(trace), converged=converged,
    )  # fmt: skip


def _q_draws(
    state: JJVBState, n: int, rng: np.random.Generator, ard: bool
) -> tuple[dict[str, NDArray[np.float64]], dict[str, NDArray[np.float64]]]:
    """``n`` independent draws from ``q``: rho, then alpha, then tau (``ard`` only)."""
    out = {}
    for name, mean, cov in (("rho", state.m, state.S), ("alpha", state.mu, state.Sigma)):
        chol = np.linalg.cholesky(cov)
        z = rng.standard_normal((n, *mean.shape))
        out[name] = mean[None] + np.einsum("vkj,dvj->dvk", chol, z)
    if ard:
        out["ard_precision"] = rng.gamma(state.a, 1.0 / state.b, size=(n, state.a.size))
    return out, {}


class JJVB:
    """Batch coordinate-ascent VB (thesis section 4.9), an
    :class:`~bayeswe.samplers.variational.Approximation`.

    One iteration: :func:`update_rho`, :func:`update_xi`, :func:`update_alpha`,
    :func:`update_tau`, :func:`update_xi`, then the ELBO (:func:`elbo`). The state
    starts at ``init_state(problem, args, seed)`` and is updated in place.
    """

    name = "jj-vb"

    def __init__(self, problem: JJVBProblem, args: JJVBArgs, seed: int) -> None:
        self.problem, self.args, self.seed = problem, args, seed

    def init(self) -> JJVBState:
        return init_state(self.problem, self.args, self.seed)

    def update(self, state: JJVBState) -> tuple[JJVBState, float]:
        problem, args = self.problem, self.args
        update_rho(problem, state)
        update_xi(problem, state)
        update_alpha(problem, state)
        update_tau(problem, state, args)
        return state, elbo(problem, state, args, update_xi(problem, state))

    def objective(self, info: float) -> float:
        return info

    def converged(self, trace: Sequence[float], tol_rel_obj: float) -> bool:
        return vi.relative_change_converged(trace, tol_rel_obj)

    def draws(self, state: JJVBState, n: int, rng: np.random.Generator):
        return _q_draws(state, n, rng, self.args.ard)


def jj_vb(
    data: JJVBProblem | Mapping[str, Any],
    args: JJVBArgs,
    seed: int,
    state: JJVBState | None = None,
) -> JJVBResult:
    """Batch coordinate-ascent VB (:class:`JJVB`) from ``init_state(problem, args, seed)``
    or from ``state`` (updated in place)."""
    run = vi.optimize(
        JJVB(_problem(data), args, seed), iter=args.iter, tol_rel_obj=args.tol_rel_obj,
        show_progress=args.show_progress, state=state,
    )  # fmt: skip
    return _result(run.state, run.trace, run.converged)


def _batch_block(
    pairs: NDArray[np.int64], key: NDArray[np.int64], V: int, per_word: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """CSR of the mini-batch ``pairs`` grouped by word ``key[pairs]``.

    Returns the rows (the words present, plus the words without any pair in the data,
    whose optimum is the prior: a step moves them towards it, so that with ``r_t = 1`` a
    step equals a batch iteration), their pointer, the pairs in that order and each
    row's scale ``beta_w`` (pairs of ``w`` in the data / in the batch; 1 for no pairs).
    """
    words = key[pairs]
    order = np.argsort(words, kind="stable")
    counts = np.bincount(words, minlength=V)
    rows = np.flatnonzero((counts > 0) | (per_word == 0)).astype(np.int64)
    ptr = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(counts[rows], out=ptr[1:])
    present = counts[rows] > 0
    scale = np.ones(rows.size)
    scale[present] = per_word[rows][present] / counts[rows][present]
    return rows, ptr, pairs[order], scale


def _step(rows, r: float, prec, lin, new_prec, new_lin) -> None:
    """Robbins–Monro step on the natural parameters of the rows ``rows``."""
    prec[rows] = (1.0 - r) * prec[rows] + r * new_prec[rows]
    lin[rows] = (1.0 - r) * lin[rows] + r * new_lin[rows]


@dataclass(eq=False)
class JJSVIState:
    """``q`` (updated in place), the updates made and the mini-batch stream."""

    q: JJVBState
    t: int
    rng: np.random.Generator


class JJSVI:
    """Stochastic VI (thesis Algorithm 3, section 5.3.1) with Robbins–Monro steps on the
    natural parameters, one pass over the pairs per iteration; mini-batch order from
    ``SeedSequence(seed, spawn_key=(2,))``.

    Per mini-batch ``B`` (``batch_size`` pairs, sorted), with ``r_t = (tau0 + t)^-kappa``:

    1. ``xi`` of ``B``'s pairs from the current ``q``;
    2. for the targets ``w`` of ``B``: the natural parameters of ``q(rho_w)`` from ``B``'s
       pairs, the sums scaled by ``beta_w`` = (pairs of ``w`` in the data) / (pairs of
       ``w`` in ``B``) (Algorithm 3, lines 3 and 15-16), and the step
       ``(1 - r_t) old + r_t new``;
    3. ``xi`` of ``B`` again, then the same for the contexts ``c`` of ``B``'s ``q(alpha_c)``
       (with the new ``q(rho)``), then ``b <- (1 - r_t) b + r_t b_hat`` of ``q(tau)``.

    Words without any pair in the data take part in every step (their optimum is the
    prior). After each pass every ``xi`` is updated and the full-data ELBO evaluated.
    With one mini-batch of all pairs and ``r_t = 1`` a step is exactly one :class:`JJVB`
    iteration.

    Deviation from Algorithm 3: it blends ``U`` and ``V`` together at the end of the
    mini-batch (lines 19-21), the ``V`` estimate computed from the *unblended*
    mini-batch estimate of ``U``; here ``rho`` takes its step before ``alpha`` is
    estimated. Measured on simulated data (V = 20, K = 3, N = 20,000, 400 pairs,
    mini-batches of 60 pairs, 15 passes): ELBO -10,193 with the thesis's order against
    -8,529 with this one (batch optimum -8,304), as the noise of the scaled ``U`` estimate
    otherwise enters ``V``'s.
    """

    name = "jj-svi"

    def __init__(
        self, problem: JJVBProblem, args: JJSVIArgs, seed: int, q: JJVBState | None = None
    ) -> None:
        self.problem, self.args, self.seed, self._q = problem, args, seed, q
        P, V, K = problem.P, problem.V, problem.K
        # context_order position of each pair: sorts a batch like the full context ordering
        self.ctx_rank = np.empty(P, dtype=np.int64)
        self.ctx_rank[problem.context_order] = np.arange(P)
        self.per_target = np.diff(problem.target_ptr)
        self.per_context = np.diff(problem.context_ptr)
        self.prec_hat, self.lin_hat = np.empty((V, K, K)), np.empty((V, K))

    def init(self) -> JJSVIState:
        q = init_state(self.problem, self.args, self.seed) if self._q is None else self._q
        rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(2,)))
        return JJSVIState(q, 0, rng)

    def update(self, state: JJSVIState) -> tuple[JJSVIState, float]:
        problem, args, q = self.problem, self.args, state.q
        V, K, P = problem.V, problem.K, problem.P
        prec_hat, lin_hat = self.prec_hat, self.lin_hat
        order = state.rng.permutation(P)
        for start in range(0, P, args.batch_size):
            batch = np.sort(order[start : start + args.batch_size]).astype(np.int64)
            r = (args.tau0 + state.t) ** -args.kappa
            update_xi(problem, q, batch)
            rows, ptr, pairs, scale = _batch_block(batch, problem.target, V, self.per_target)
            _rho_natural(problem, q, rows, ptr, pairs, scale, prec_hat, lin_hat)
            _step(rows, r, q.rho_prec, q.rho_lin, prec_hat, lin_hat)
            _moments(rows, q.rho_prec, q.rho_lin, q.m, q.S, q.rho_mom, q.rho_logdet, "rho")
            update_xi(problem, q, batch)
            by_context = batch[np.argsort(self.ctx_rank[batch], kind="stable")]
            rows, ptr, pairs, scale = _batch_block(by_context, problem.context, V, self.per_context)
            _alpha_natural(problem, q, rows, ptr, pairs, scale, prec_hat, lin_hat,
                           q.rho_mom, q.m)  # fmt: skip
            _step(rows, r, q.alpha_prec, q.alpha_lin, prec_hat, lin_hat)
            _moments(rows, q.alpha_prec, q.alpha_lin, q.mu, q.Sigma, q.alpha_mom,
                     q.alpha_logdet, "alpha")  # fmt: skip
            if args.ard:
                q.a = np.full(K, args.ard_a0 + 0.5 * V)
                q.b = (1.0 - r) * q.b + r * _tau_rate(problem, q, args.ard_b0)
            state.t += 1
        return state, elbo(problem, q, args, update_xi(problem, q))

    def objective(self, info: float) -> float:
        return info

    def converged(self, trace: Sequence[float], tol_rel_obj: float) -> bool:
        return vi.advi_converged(trace, tol_rel_obj, iter=self.args.iter)

    def draws(self, state: JJSVIState, n: int, rng: np.random.Generator):
        return _q_draws(state.q, n, rng, self.args.ard)


def jj_svi(
    data: JJVBProblem | Mapping[str, Any],
    args: JJSVIArgs,
    seed: int,
    state: JJVBState | None = None,
) -> JJVBResult:
    """Stochastic VI (:class:`JJSVI`) from ``init_state(problem, args, seed)`` or from
    ``state`` (updated in place)."""
    run = vi.optimize(
        JJSVI(_problem(data), args, seed, state), iter=args.iter,
        tol_rel_obj=args.tol_rel_obj, show_progress=args.show_progress,
    )  # fmt: skip
    return _result(run.state.q, run.trace, run.converged)


# --------------------------------------------------------------------------- output


def _common_attrs(args: Any) -> dict[str, Any]:
    return {
        "model": "sgns",
        "ard": args.ard,
        "ard_a0": args.ard_a0 if args.ard else None,
        "ard_b0": args.ard_b0 if args.ard else None,
        "init": args.init if isinstance(args.init, str) else "given",
    }


def _run(problem: JJVBProblem, approx: Any, args: Any, seed: int, attrs: Any):
    from bayeswe.sgns.models import SGNS

    idata, _ = vi.run_variational(
        approx, spec=SGNS, data=problem.stan_data, iter=args.iter,
        tol_rel_obj=args.tol_rel_obj, draws=args.draws, seed=seed,
        show_progress=args.show_progress, attrs=attrs,
        extra_dims={"ard_precision": ("dim",)},
    )  # fmt: skip
    return idata


def check_options(method: str, chains: Any, options: Mapping[str, Any]) -> None:
    """Raise the errors ``method`` (``"jj-vb"`` or ``"jj-svi"``) would, before any work."""
    _check_chains(method, chains)
    build_options(JJVBArgs if method == "jj-vb" else JJSVIArgs, method, options)


def _check_chains(method: str, chains: Any) -> None:
    if chains not in (None, 1):
        raise ValueError(
            f'method="{method}" is an optimiser (one variational fit, then draws from q): '
            f"chains must be None or 1, got {chains!r}"
        )


def sample_jj_vb(
    data: Mapping[str, Any], *, seed: int, chains: int | None = None, **options: Any
) -> az.InferenceData:
    """``jj-vb`` on ``sgns`` data and ``draws`` draws from its ``q`` (see the module docstring).

    Options: :class:`JJVBArgs`. Raises ``ValueError`` for bad options or ``chains`` and
    the data's validation errors (:meth:`JJVBProblem.from_stan_data`) before fitting.
    """
    _check_chains("jj-vb", chains)
    args: JJVBArgs = build_options(JJVBArgs, "jj-vb", options)
    problem = JJVBProblem.from_stan_data(data)
    return _run(problem, JJVB(problem, args, seed), args, seed, _common_attrs(args))


def sample_jj_svi(
    data: Mapping[str, Any], *, seed: int, chains: int | None = None, **options: Any
) -> az.InferenceData:
    """``jj-svi`` on ``sgns`` data and ``draws`` draws from its ``q`` (:class:`JJSVIArgs`)."""
    _check_chains("jj-svi", chains)
    args: JJSVIArgs = build_options(JJSVIArgs, "jj-svi", options)
    problem = JJVBProblem.from_stan_data(data)

    def attrs(run: vi.Optimization[JJSVIState]) -> dict[str, Any]:
        return {
            **_common_attrs(args),
            "batch_size": args.batch_size,
            "updates": int(run.state.t),
            "tau0": args.tau0,
            "kappa": args.kappa,
        }

    return _run(problem, JJSVI(problem, args, seed), args, seed, attrs)
