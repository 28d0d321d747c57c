"""Simulated SGNS data with known embeddings (section 4.1).

Embeddings (eq. (16)): ``rho_w, alpha_w ~ N(0, eps^2 / K I)``. Pairs (eq. (17)):
``(w_i, v_i)`` uniform on ``W x W``, or with Zipf-Mandelbrot marginals
``p(w) ∝ 1 / (rank(w)^a + b)`` (eq. (18), ``a = 1``, ``b = 2.7``), ``w`` and ``v``
independent; label ``X_i ~ Bernoulli(sigma(alpha_{v_i} . rho_{w_i}))``.

The ``N`` i.i.d. observations are drawn in aggregated form, which has exactly the
same distribution: counts per pair ``~ Multinomial(N, p_w p_v)``, then positives
per pair ``~ Binomial(n_wv, sigma(rho_w . alpha_v))``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bayeswe.options import check_seed
from bayeswe.sgns.data import SGNSData, default_vocabulary
from bayeswe.sgns.errors import SGNSDataError

__all__ = ["DISTRIBUTIONS", "SimulatedSGNS", "simulate_sgns", "word_probabilities"]

#: Word-pair distributions of :func:`simulate_sgns`.
DISTRIBUTIONS: tuple[str, ...] = ("uniform", "zipf")


@dataclass(frozen=True, eq=False)
class SimulatedSGNS:
    """A simulated dataset and the embeddings that generated it.

    Attributes
    ----------
    data
        The aggregated observations.
    rho, alpha
        True target and context matrices, ``V x K``.
    word_prob
        Marginal probability of each word as target (and as context).
    """

    data: SGNSData
    rho: NDArray[np.float64]
    alpha: NDArray[np.float64]
    word_prob: NDArray[np.float64]

    @property
    def probability(self) -> NDArray[np.float64]:
        """True ``P(w ∧ v)`` (eq. (11)) as a ``V x V`` matrix, target ``w`` by context ``v``."""
        from bayeswe.sgns.metrics import cooccurrence_probability

        return cooccurrence_probability(self.rho, self.alpha)

    def sample(self, N: int, *, seed: int | None) -> SGNSData:
        """``N`` fresh observations from the same embeddings and pair distribution.

        Independent of :attr:`data` (given the truth), e.g. a hold-out set for
        :func:`~bayeswe.sgns.metrics.mean_log_likelihood`.
        """
        if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1:
            raise SGNSDataError(f"N must be an integer >= 1, got {N!r}")
        rng = np.random.default_rng(check_seed("seed", seed, error=SGNSDataError))
        return _observe(rng, self.rho, self.alpha, self.word_prob, int(N))


def word_probabilities(
    V: int, distribution: str = "uniform", *, zipf_a: float = 1.0, zipf_b: float = 2.7
) -> NDArray[np.float64]:
    """Marginal word probabilities: uniform, or ``∝ 1 / (rank^a + b)`` (eq. (18))."""
    if distribution == "uniform":
        return np.full(V, 1.0 / V)
    if distribution == "zipf":
        if not (zipf_a > 0 and zipf_b > 0):
            raise SGNSDataError(f"zipf_a and zipf_b must be positive, got {zipf_a}, {zipf_b}")
        weights = 1.0 / (np.arange(1, V + 1, dtype=np.float64) ** zipf_a + zipf_b)
        return weights / weights.sum()
    raise SGNSDataError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")


def simulate_sgns(
    V: int,
    K: int,
    N: int,
    *,
    seed: int | None,
    epsilon: float = 1.0,
    distribution: str = "uniform",
    zipf_a: float = 1.0,
    zipf_b: float = 2.7,
) -> SimulatedSGNS:
    """Simulate ``N`` SGNS observations from random embeddings (section 4.1).

    Parameters
    ----------
    V, K, N
        Vocabulary size, embedding dimension, number of observations.
    seed
        Seed of :func:`numpy.random.default_rng` (``None``: fresh entropy).
    epsilon
        Signal-to-noise ratio ``eps`` of eq. (16) (the paper uses 1).
    distribution
        ``"uniform"`` (eq. (17)) or ``"zipf"`` (eq. (18)).
    zipf_a, zipf_b
        Constants of eq. (18) (Mandelbrot's ``a = 1``, ``b = 2.7``).

    Returns
    -------
    SimulatedSGNS
        Data (vocabulary :func:`~bayeswe.sgns.data.default_vocabulary`) and truth.
    """
    for name, value, low in (("V", V, 1), ("K", K, 1), ("N", N, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise SGNSDataError(f"{name} must be an integer >= {low}, got {value!r}")
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise SGNSDataError(f"epsilon must be positive, got {epsilon!r}")
    V, K, N = int(V), int(K), int(N)
    rng = np.random.default_rng(check_seed("seed", seed, error=SGNSDataError))
    scale = epsilon / np.sqrt(K)
    rho = rng.normal(0.0, scale, size=(V, K))
    alpha = rng.normal(0.0, scale, size=(V, K))
    p_word = word_probabilities(V, distribution, zipf_a=zipf_a, zipf_b=zipf_b)
    data = _observe(rng, rho, alpha, p_word, N)
    return SimulatedSGNS(data=data, rho=rho, alpha=alpha, word_prob=p_word)


def _observe(
    rng: np.random.Generator,
    rho: NDArray[np.float64],
    alpha: NDArray[np.float64],
    p_word: NDArray[np.float64],
    N: int,
) -> SGNSData:
    """Eqs. (17)-(18) and the Bernoulli labels: ``N`` observations, aggregated."""
    V = len(p_word)
    # Pair counts over the V x V cells, then the labels of each cell's observations.
    counts = rng.multinomial(N, np.outer(p_word, p_word).ravel())
    cells = np.flatnonzero(counts)
    target, context = np.divmod(cells, V)
    logits = np.einsum("pk,pk->p", rho[target], alpha[context])
    n = counts[cells]
    n_pos = rng.binomial(n, 1.0 / (1.0 + np.exp(-logits)))
    return SGNSData(default_vocabulary(V), target, context, n, n_pos)
