"""The mode of the SGNS posterior without Stan's autodiff tape: :func:`sgns_map`.

Stan's L-BFGS (``bayeswe.fit(..., method="map")``) records every pair's terms on its
autodiff tape at each gradient; at the Congress scale of Yrjänäinen et al. (V = 5000,
K = 100, about 5·10^6 unique pairs) that tape alone exceeds 20 GB and the process is
killed. Here the negative log posterior of ``models/sgns.stan`` (no ``fixed_index``)
or ``models/sgns_identified.stan`` (with it) and its gradient come from one Numba pass
over the pairs by target and one by context (:mod:`bayeswe.kernels.sgns_map`, memory
``O(P + V K)``), and SciPy's L-BFGS-B finds the mode. The objective is the same
function as Stan's (the same ``lp__`` up to a constant); only the optimizer differs.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bayeswe.kernels import sgns_map as kern

__all__ = ["SGNSMode", "sgns_map"]


@dataclass(frozen=True)
class SGNSMode:
    """The mode found: ``rho`` and ``alpha`` (``V x K``; fixed rows exact), and the run."""

    rho: NDArray[np.float64]
    alpha: NDArray[np.float64]
    #: the free rows of ``alpha`` (all rows for the unidentified model)
    alpha_free: NDArray[np.float64]
    #: the negative log posterior at the mode (up to Stan's constant)
    objective: float
    iterations: int
    converged: bool
    message: str
    seconds: float


def _orderings(data: Mapping[str, Any]) -> tuple[np.ndarray, ...]:
    V = int(data["V"])
    target = np.asarray(data["target_word"], dtype=np.int64) - 1
    context = np.asarray(data["context_word"], dtype=np.int64) - 1
    n = np.asarray(data["n"], dtype=np.float64)
    pos = np.asarray(data["n_pos"], dtype=np.float64)
    by_t = np.lexsort((context, target))
    by_c = np.lexsort((target, context))
    t_ptr = np.zeros(V + 1, dtype=np.int64)
    np.cumsum(np.bincount(target, minlength=V), out=t_ptr[1:])
    c_ptr = np.zeros(V + 1, dtype=np.int64)
    np.cumsum(np.bincount(context, minlength=V), out=c_ptr[1:])
    return (t_ptr, context[by_t], n[by_t], pos[by_t], c_ptr, target[by_c], n[by_c], pos[by_c])


def sgns_map(
    data: Mapping[str, Any],
    *,
    seed: int,
    inits: Mapping[str, Any] | None = None,
    max_iter: int = 2000,
    ftol: float = 1e4 * np.finfo(float).eps,
    gtol: float = 1e-8,
) -> SGNSMode:
    """The posterior mode of ``sgns`` / ``sgns_identified`` data by L-BFGS-B.

    Parameters
    ----------
    data
        The Stan data of ``sgns`` or (with ``fixed_index`` and ``fixed_alpha``)
        ``sgns_identified``; validated by the model's declaration.
    seed
        Seeds the start when ``inits`` is not given: every free coordinate
        ``N(0, (0.1 lambda)^2)`` (a small random start breaks the model's symmetries;
        Stan's uniform(-2, 2) start is far out in the tails when ``lambda`` is small).
    inits
        ``{"rho": V x K, "alpha": V x K}`` or ``{"rho", "alpha_free"}``.
    max_iter, ftol, gtol
        L-BFGS-B's limits; ``ftol`` is Stan's default relative change of the objective
        (``tol_rel_obj = 1e4`` times machine epsilon).
    """
    from scipy.optimize import minimize

    from bayeswe.sgns.models import SGNS, SGNS_IDENTIFIED

    identified = "fixed_index" in data
    (SGNS_IDENTIFIED if identified else SGNS).validate(data)
    V, K = int(data["V"]), int(data["K"])
    sd = float(data["lambda"])
    free = np.ones(V, dtype=np.bool_)
    alpha = np.zeros((V, K))
    if identified:
        fixed = np.asarray(data["fixed_index"], dtype=np.int64).ravel() - 1
        free[fixed] = False
        alpha[fixed] = np.asarray(data["fixed_alpha"], dtype=np.float64).reshape(K, K)
    free_index = np.flatnonzero(free)
    rng = np.random.default_rng(seed)
    if inits is None:
        rho = rng.normal(scale=0.1 * sd, size=(V, K))
        alpha[free_index] = rng.normal(scale=0.1 * sd, size=(free_index.size, K))
    else:
        rho = np.array(inits["rho"], dtype=np.float64).reshape(V, K)
        if "alpha_free" in inits:
            alpha[free_index] = np.asarray(inits["alpha_free"], dtype=np.float64).reshape(-1, K)
        else:
            alpha[free_index] = np.asarray(inits["alpha"], dtype=np.float64)[free_index]
    order = _orderings(data)
    grad_rho, grad_alpha = np.empty((V, K)), np.empty((V, K))
    n_rho = V * K

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        r = theta[:n_rho].reshape(V, K)
        alpha[free_index] = theta[n_rho:].reshape(-1, K)
        value = kern.loss_and_gradient(r, alpha, *order, free, 1.0 / sd**2, grad_rho, grad_alpha)
        return value, np.concatenate([grad_rho.ravel(), grad_alpha[free_index].ravel()])

    theta0 = np.concatenate([rho.ravel(), alpha[free_index].ravel()])
    started = time.perf_counter()
    limits = {"maxiter": max_iter, "ftol": ftol, "gtol": gtol, "maxcor": 10}
    result = minimize(objective, theta0, jac=True, method="L-BFGS-B", options=limits)
    seconds = time.perf_counter() - started
    rho = result.x[:n_rho].reshape(V, K).copy()
    alpha[free_index] = result.x[n_rho:].reshape(-1, K)
    return SGNSMode(
        rho=rho,
        alpha=alpha.copy(),
        alpha_free=alpha[free_index].copy(),
        objective=float(result.fun),
        iterations=int(result.nit),
        converged=bool(result.success),
        message=str(result.message),
        seconds=seconds,
    )
