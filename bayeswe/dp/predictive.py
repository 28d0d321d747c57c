"""Held-out log predictive densities of a DP mixture's draws, label-free.

The density of a new point given one draw does not depend on how the draw labels its
clusters, so it can be compared across chains, methods and truncations: for the Stan
twin it is ``sum_k w_k N(x | mu_k, Sigma_k)``; the collapsed sampler records its own,
``p(x | z, alpha, y)`` (:func:`bayeswe.kernels.dp_mixture.predictive_log_density`).
Both have the posterior predictive density ``p(x | y)`` as their posterior mean, so
:func:`log_pointwise_predictive` of either estimates the same number.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

__all__ = ["log_pointwise_predictive", "mixture_log_density"]


def mixture_log_density(
    w: np.ndarray, mu: np.ndarray, Sigma: np.ndarray, x: np.ndarray
) -> np.ndarray:
    """``log sum_k w_k N(x_m | mu_k, Sigma_k)`` for every draw and held-out point.

    Parameters
    ----------
    w, mu, Sigma
        Draws ``(chain, draw, T)``, ``(chain, draw, T, P)``, ``(chain, draw, T, P, P)``
        (``models/dp_mixture.stan``'s ``w``, ``mu`` and ``Sigma``).
    x
        ``(M, P)`` held-out points.

    Returns
    -------
    numpy.ndarray
        ``(chain, draw, M)``.
    """
    x = np.asarray(x, dtype=np.float64)
    P = x.shape[1]
    chol = np.linalg.cholesky(Sigma)  # (C, D, T, P, P)
    diff = x[None, None, None, :, :] - mu[:, :, :, None, :]  # (C, D, T, M, P)
    z = np.linalg.solve(chol[:, :, :, None], diff[..., None])[..., 0]
    logdet = np.log(np.diagonal(chol, axis1=-2, axis2=-1)).sum(axis=-1)  # (C, D, T)
    comp = -0.5 * (z**2).sum(axis=-1) - logdet[..., None] - 0.5 * P * np.log(2 * np.pi)
    with np.errstate(divide="ignore"):
        logw = np.log(w)[..., None]
    return logsumexp(logw + comp, axis=2)


def log_pointwise_predictive(log_density: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log mean`` over all draws of each point's density, and its Monte Carlo error.

    ``log_density`` is ``(chain, draw, M)``. The standard error is the delta method's:
    ArviZ's MCSE of the mean density over that mean (so it accounts for the chains'
    autocorrelation).
    """
    import arviz as az

    ld = np.asarray(log_density, dtype=np.float64)
    top = ld.max(axis=(0, 1))
    dens = np.exp(ld - top)
    mean = dens.mean(axis=(0, 1))
    mcse = np.asarray(az.mcse(az.convert_to_dataset({"d": dens})).d.values)
    return np.log(mean) + top, mcse / mean
