"""Rotation-invariant summaries of SGNS embeddings (sections 2.1 and 4).

* :func:`cooccurrence_probability`: ``P(w ∧ v | θ) = σ(ρ_w · α_v)`` (eq. (11)),
* :func:`rmse_co`: RMSE of co-occurrence probabilities over all ``V^2`` pairs
  (eq. (12)), invariant under the ``GL(K)`` symmetry of eq. (7), so identified and
  unidentified estimates can be compared with each other and with the truth,
* :func:`interval_coverage`: whether equal-tailed credible intervals of ``P(w ∧ v)``
  cover the truth (Table 1),
* :func:`cosine_similarity` and :func:`posterior_cosine_similarity` (Figures 4-6),
* :func:`log_likelihood` / :func:`mean_log_likelihood`: eq. (5), for hold-out
  evaluation (Tables 5 and 6),
* :func:`mean_log_predictive`: the posterior predictive of held-out observations
  from draws, invariant under the ``GL(K)`` symmetry, unlike a plug-in of averaged
  vectors.

Eq. (11) writes ``σ(α_w^T ρ_v)``; here the matrix is indexed target ``w`` by
context ``v`` as in the likelihood, i.e. the transpose of the paper's. Eq. (12)
sums over all pairs, so RMSE and coverage do not depend on this choice.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from bayeswe._arviz import az
from bayeswe.sgns.data import SGNSData
from bayeswe.sgns.errors import SGNSDataError

__all__ = [
    "cooccurrence_probability",
    "cosine_similarity",
    "draws_of",
    "interval_coverage",
    "log_likelihood",
    "mean_log_likelihood",
    "mean_log_predictive",
    "pairwise_cosines",
    "posterior_cosine_similarity",
    "rmse_co",
]


def _pair(rho: ArrayLike, alpha: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r = np.asarray(rho, dtype=np.float64)
    a = np.asarray(alpha, dtype=np.float64)
    if r.ndim < 2 or r.shape != a.shape:
        raise SGNSDataError(
            f"rho and alpha must both have shape (..., V, K); got {r.shape} and {a.shape}"
        )
    return r, a


def cooccurrence_probability(rho: ArrayLike, alpha: ArrayLike) -> NDArray[np.float64]:
    """``σ(ρ_w · α_v)`` for all pairs (eq. (11)).

    Parameters
    ----------
    rho, alpha
        ``(..., V, K)`` target and context matrices.

    Returns
    -------
    numpy.ndarray
        ``(..., V, V)``, entry ``[..., w, v]`` for target ``w`` and context ``v``.
    """
    r, a = _pair(rho, alpha)
    return expit(r @ np.swapaxes(a, -1, -2))


def rmse_co(
    rho: ArrayLike, alpha: ArrayLike, rho_ref: ArrayLike, alpha_ref: ArrayLike
) -> NDArray[np.float64] | float:
    """RMSE between the co-occurrence probabilities of two embeddings (eq. (12)).

    Parameters
    ----------
    rho, alpha
        ``(..., V, K)`` embedding(s); leading axes (e.g. draws) are kept.
    rho_ref, alpha_ref
        ``(V, K)`` reference embedding (e.g. the truth), or the same shape as ``rho``.

    Returns
    -------
    float or numpy.ndarray
        ``sqrt(mean over (w, v) of (P(w ∧ v | θ) - P(w ∧ v | θ'))^2)``.
    """
    p = cooccurrence_probability(rho, alpha)
    q = cooccurrence_probability(rho_ref, alpha_ref)
    if p.shape[-2:] != q.shape[-2:]:
        raise SGNSDataError(f"vocabulary sizes differ: {p.shape[-1]} and {q.shape[-1]}")
    out = np.sqrt(np.mean((p - q) ** 2, axis=(-2, -1)))
    return float(out) if np.ndim(out) == 0 else out


def interval_coverage(
    rho_draws: ArrayLike,
    alpha_draws: ArrayLike,
    truth: ArrayLike,
    *,
    level: float = 0.9,
    chunk: int = 256,
) -> NDArray[np.bool_]:
    """Which true probabilities lie in the equal-tailed ``level`` credible interval.

    The interval of each pair is ``[q_lo, q_hi]`` with ``lo = (1 - level) / 2`` and
    ``hi = (1 + level) / 2``, the empirical quantiles of the draws of ``P(w ∧ v)``
    (inverted-CDF definition, NumPy's ``method="inverted_cdf"``). Computed by
    counting draws below the truth chunk by chunk, so the ``S x V x V`` array of
    draws is never held in memory: ``t >= q_lo`` iff ``#{x <= t} >= lo S`` and
    ``t <= q_hi`` iff ``#{x < t} < hi S``.

    Parameters
    ----------
    rho_draws, alpha_draws
        ``(..., V, K)`` draws (all leading axes are pooled).
    truth
        ``V x V`` true probabilities (target by context).
    level
        Credible level in ``(0, 1)``.
    chunk
        Draws processed at a time.

    Returns
    -------
    numpy.ndarray
        ``V x V`` booleans; ``.mean()`` is the coverage of Table 1.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    r, a = _pair(rho_draws, alpha_draws)
    V, K = r.shape[-2:]
    r = r.reshape(-1, V, K)
    a = a.reshape(-1, V, K)
    t = np.asarray(truth, dtype=np.float64)
    if t.shape != (V, V):
        raise SGNSDataError(f"truth must be {V} x {V}, got shape {t.shape}")
    S = r.shape[0]
    at_most = np.zeros((V, V), dtype=np.int64)
    below = np.zeros((V, V), dtype=np.int64)
    for start in range(0, S, max(1, int(chunk))):
        p = cooccurrence_probability(r[start : start + chunk], a[start : start + chunk])
        at_most += np.sum(p <= t, axis=0)
        below += np.sum(p < t, axis=0)
    lo, hi = (1.0 - level) / 2.0, (1.0 + level) / 2.0
    return (at_most >= lo * S) & (below < hi * S)


def cosine_similarity(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64] | float:
    """Cosine of the angle between vectors along the last axis (broadcasting)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    out = np.sum(x * y, axis=-1) / (np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1))
    return float(out) if np.ndim(out) == 0 else out


def pairwise_cosines(rho: ArrayLike) -> NDArray[np.float64]:
    """Cosine similarity of every pair ``w < v`` of rows, ``(..., V (V - 1) / 2)``."""
    r = np.asarray(rho, dtype=np.float64)
    unit = r / np.linalg.norm(r, axis=-1, keepdims=True)
    i, j = np.triu_indices(r.shape[-2], 1)
    gram = unit @ np.swapaxes(unit, -1, -2)
    return gram[..., i, j]


def posterior_cosine_similarity(
    idata: az.InferenceData, word_a: str, word_b: str, *, var: str = "rho"
) -> xr.DataArray:
    """Draws of the cosine similarity of two words' vectors (Figures 4-6).

    Returns a ``(chain, draw)`` DataArray. Cosine similarity is invariant under the
    orthogonal symmetries left by the prior but not under all of ``GL(K)``; in the
    identified model it is a well-defined function of the parameters.
    """
    vectors = idata.posterior[var]
    sim = cosine_similarity(
        vectors.sel(word=word_a).transpose("chain", "draw", "dim").values,
        vectors.sel(word=word_b).transpose("chain", "draw", "dim").values,
    )
    return xr.DataArray(
        sim,
        dims=("chain", "draw"),
        coords={"chain": vectors["chain"], "draw": vectors["draw"]},
        name=f"cos({word_a},{word_b})",
    )


def draws_of(idata: az.InferenceData) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``rho`` and ``alpha`` draws of a fit as ``(S, V, K)`` arrays (chains pooled)."""
    post = idata.posterior
    out = []
    for name in ("rho", "alpha"):
        values = post[name].transpose("chain", "draw", "word", "dim").values
        out.append(values.reshape(-1, *values.shape[2:]))
    return out[0], out[1]


def log_likelihood(rho: ArrayLike, alpha: ArrayLike, data: SGNSData) -> NDArray[np.float64] | Any:
    """SGNS log likelihood of ``data`` (eq. (5)), for each leading index of ``rho``.

    Computed as ``sum(n_pos * x - n * log1p(exp(x)))`` with ``x = ρ_w · α_v``, which
    equals eq. (5) exactly.
    """
    r, a = _pair(rho, alpha)
    if r.shape[-2] != data.V:
        raise SGNSDataError(f"embeddings have V={r.shape[-2]}, data have V={data.V}")
    x = np.sum(r[..., data.target, :] * a[..., data.context, :], axis=-1)
    out = x @ data.n_pos - np.logaddexp(0.0, x) @ data.n
    return float(out) if np.ndim(out) == 0 else out


def mean_log_likelihood(
    rho: ArrayLike, alpha: ArrayLike, data: SGNSData
) -> NDArray[np.float64] | Any:
    """:func:`log_likelihood` divided by the number of observations (Tables 5 and 6)."""
    return log_likelihood(rho, alpha, data) / data.total


def mean_log_predictive(rho_draws: ArrayLike, alpha_draws: ArrayLike, data: SGNSData) -> float:
    """Log posterior predictive per held-out observation, from ``S`` draws.

    Each observation's predictive probability is averaged over the draws, then logged:
    ``sum_p [n_pos[p] log mean_s σ(x_ps) + (n[p] - n_pos[p]) log mean_s σ(-x_ps)]``
    divided by ``data.total``, with ``x_ps = ρ_w^(s) · α_v^(s)`` (pointwise, like the
    log pointwise predictive density of Gelman, Hwang and Vehtari 2014). It depends
    on the draws only through ``x``, so it is the same in every frame of the
    ``GL(K)`` symmetry; :func:`mean_log_likelihood` of the averaged vectors (the
    "posterior mean" estimator of Tables 5-6) is not, and is lower whenever the draws
    spread. With one draw the two are equal.

    Parameters
    ----------
    rho_draws, alpha_draws
        ``(S, V, K)`` draws (:func:`draws_of` gives them from a fit).
    data
        The held-out observations.

    Raises
    ------
    SGNSDataError
        Shapes that are not ``(S, V, K)`` alike, ``V`` other than the data's, or
        draws that are not finite.
    """
    r, a = _pair(rho_draws, alpha_draws)
    if r.ndim != 3 or r.shape[0] < 1:
        raise SGNSDataError(f"draws must have shape (S, V, K) with S >= 1; got {r.shape}")
    if r.shape[1] != data.V:
        raise SGNSDataError(f"draws have V={r.shape[1]}, data have V={data.V}")
    if not (np.isfinite(r).all() and np.isfinite(a).all()):
        raise SGNSDataError("draws contain NaN or infinite values")
    # One draw at a time, summing probabilities in log space: memory of one P-vector
    # per sign, whatever S is.
    log_pos = np.full(data.P, -np.inf)
    log_neg = np.full(data.P, -np.inf)
    for s in range(r.shape[0]):
        x = np.einsum("pk,pk->p", r[s, data.target], a[s, data.context])
        log_pos = np.logaddexp(log_pos, -np.logaddexp(0.0, -x))
        log_neg = np.logaddexp(log_neg, -np.logaddexp(0.0, x))
    log_s = np.log(r.shape[0])
    n_neg = data.n - data.n_pos
    total = data.n_pos @ (log_pos - log_s) + n_neg @ (log_neg - log_s)
    return float(total / data.total)
