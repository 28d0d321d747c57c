"""Exact posterior moments of truncated stick-breaking weights given the cluster sizes.

Given the indicators z of a truncated GEM(alpha) mixture, the weights depend on the
data only through the occupancy counts ``n_k`` (points in component ``k``), and the
sticks are independent given alpha:

    v_k | n, alpha ~ Beta(1 + n_k, alpha + n_{>k}),   n_{>k} = sum_{j > k} n_j,

(Ishwaran & James 2001, the conjugacy of the lecture's Dirichlet-categorical slide
applied to each stick), so ``E[w_k | n, alpha]`` is a product of Beta means. With
``alpha ~ Gamma(a, b)``,

    p(alpha | n) ∝ Gamma(alpha; a, b) prod_{k<T} alpha B(1 + n_k, alpha + n_{>k}),

integrated here on a grid of ``log alpha``. Because the weights are independent of the
component parameters and the data given ``z``, ``w_k - E[w_k | n(z)]`` has mean zero
under the posterior for the ``occupancy`` that ``models/dp_mixture.stan`` draws each
iteration: a Rao-Blackwell check of a sampler's weights that needs no labels matched.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import betaln

__all__ = ["StickMoments", "stick_posterior_moments"]


@dataclass(frozen=True)
class StickMoments:
    """Posterior means given the occupancy counts."""

    #: ``E[w_k | n]`` for the ``T`` components (sums to 1).
    w: np.ndarray
    #: ``E[alpha | n]``.
    alpha: float

    @property
    def leftover(self) -> float:
        """``E[w_T | n]``, the expected mass of the last (forced) stick."""
        return float(self.w[-1])


def stick_posterior_moments(
    occupancy: np.ndarray,
    *,
    alpha_shape: float,
    alpha_rate: float,
    grid_size: int = 4001,
) -> StickMoments:
    """Exact ``E[w | n]`` and ``E[alpha | n]`` of a truncated GEM mixture.

    Parameters
    ----------
    occupancy
        Points per component, ``(T,)`` non-negative integers, in stick order.
    alpha_shape, alpha_rate
        Gamma prior of the concentration.
    grid_size
        Points of the trapezoid rule on ``log alpha`` in ``[-20, 12]``.

    Returns
    -------
    StickMoments
    """
    n = np.asarray(occupancy, dtype=np.float64)
    if n.ndim != 1 or n.size < 1 or (n < 0).any():
        raise ValueError("occupancy must be a non-empty 1-d array of non-negative counts")
    T = n.size
    after = np.concatenate([np.cumsum(n[::-1])[::-1][1:], [0.0]])  # n_{>k}
    log_alpha = np.linspace(-20.0, 12.0, grid_size)
    alpha = np.exp(log_alpha)[:, None]
    sticks = slice(0, T - 1)
    # log p(alpha | n) + log alpha (the d log alpha Jacobian), up to a constant
    log_post = (
        alpha_shape * log_alpha
        - alpha_rate * alpha[:, 0]
        + (np.log(alpha) + betaln(1.0 + n[sticks], alpha + after[sticks])).sum(axis=1)
    )
    log_post -= log_post.max()
    weight = np.exp(log_post)
    weight /= np.trapezoid(weight, log_alpha)
    mean_v = (1.0 + n[sticks]) / (1.0 + alpha + n[sticks] + after[sticks])  # (grid, T-1)
    rest = np.cumprod(np.concatenate([np.ones((alpha.shape[0], 1)), 1.0 - mean_v], axis=1), axis=1)
    w_given_alpha = np.concatenate([mean_v, np.ones((alpha.shape[0], 1))], axis=1) * rest
    w = np.trapezoid(weight[:, None] * w_given_alpha, log_alpha, axis=0)
    alpha_mean = float(np.trapezoid(weight * alpha[:, 0], log_alpha))
    return StickMoments(w=w, alpha=alpha_mean)
