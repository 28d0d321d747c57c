"""Helpers shared by ``001-fig1``, ``001-fig4`` and ``001-fig9``: draws of cosine
similarities, and the numbers by which two posteriors of one quantity are compared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "compare_draws",
    "pair_cosines",
    "rounded",
    "split_rhat",
    "summarize_draws",
    "two_run_rhat",
]


def pair_cosines(rho: ArrayLike, pairs: ArrayLike) -> NDArray[np.float64]:
    """Cosine similarity of the word vectors of each pair in each draw.

    Parameters
    ----------
    rho
        ``(S, V, K)`` draws of the word vectors.
    pairs
        ``(n, 2)`` 0-based word indices.

    Returns
    -------
    numpy.ndarray
        ``(S, n)``.
    """
    r = np.asarray(rho, dtype=np.float64)
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    unit = r / np.linalg.norm(r, axis=-1, keepdims=True)
    return np.einsum("snk,snk->sn", unit[:, p[:, 0]], unit[:, p[:, 1]])


def summarize_draws(x: ArrayLike, level: float = 0.9) -> dict[str, float]:
    """Mean, sd and the central ``level`` interval of one-dimensional draws."""
    v = np.asarray(x, dtype=np.float64).ravel()
    lo, hi = np.quantile(v, [(1 - level) / 2, (1 + level) / 2])
    return {
        "mean": float(v.mean()),
        "sd": float(v.std(ddof=1)),
        "lower": float(lo),
        "upper": float(hi),
    }


def two_run_rhat(x: ArrayLike, y: ArrayLike) -> float:
    """ArviZ's rank-normalised split R-hat of two runs taken as two chains.

    This is the paper's check of Appendix C: R-hat near 1 when both runs sample the
    same distribution. The longer run is cut to the length of the shorter.
    """
    import arviz as az

    a, b = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    n = min(a.size, b.size)
    return float(az.rhat(np.stack([a[:n], b[:n]])))


def split_rhat(x: ArrayLike) -> float:
    """R-hat of one run's two halves as two chains: the baseline of :func:`two_run_rhat`.

    ArviZ does not compute R-hat of a single chain; the halves, each split again by
    ArviZ, give the usual split-R-hat of that run.
    """
    v = np.asarray(x, dtype=np.float64).ravel()
    half = v.size // 2
    return two_run_rhat(v[:half], v[half : 2 * half])


def compare_draws(reference: ArrayLike, other: ArrayLike) -> dict[str, float]:
    """How ``other``'s draws of a scalar differ from ``reference``'s.

    ``std_mean_diff``: (mean of other - mean of reference) / sd of reference;
    ``sd_ratio``: sd of other / sd of reference; ``ks``: the two-sample
    Kolmogorov-Smirnov distance (largest gap between the two empirical CDFs);
    ``rhat``: :func:`two_run_rhat`.
    """
    from scipy.stats import ks_2samp

    a = np.asarray(reference, dtype=np.float64).ravel()
    b = np.asarray(other, dtype=np.float64).ravel()
    sd = a.std(ddof=1)
    return {
        "std_mean_diff": float((b.mean() - a.mean()) / sd),
        "sd_ratio": float(b.std(ddof=1) / sd),
        "ks": float(ks_2samp(a, b).statistic),
        "rhat": two_run_rhat(a, b),
    }


def rounded(values: ArrayLike, digits: int = 5) -> Any:
    """``values`` as (nested) lists of floats rounded to ``digits``: compact JSON."""
    return np.round(np.asarray(values, dtype=np.float64), digits).tolist()
