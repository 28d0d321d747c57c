"""Data drawn from DP-mixture and HDP-LDA generative models, with the truth kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.dp.data import DPDataError, DPMixtureData, DPMultinomialData, HDPLDAData
from bayeswe.options import check_seed

__all__ = [
    "SimulatedDPMixture",
    "SimulatedDPMultinomial",
    "SimulatedHDPLDA",
    "simulate_dp_mixture",
    "simulate_dp_multinomial",
    "simulate_hdp_lda",
]


@dataclass(frozen=True)
class SimulatedDPMixture:
    """Points from a Gaussian mixture as :class:`DPMixtureData`, and the truth."""

    data: DPMixtureData
    #: True cluster of each point, ``(N,)`` int64 in ``0..K-1``.
    labels: np.ndarray
    #: True weights, means ``(K, P)`` and covariances ``(K, P, P)``.
    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray

    @property
    def n_clusters(self) -> int:
        """Number of clusters that hold at least one point."""
        return int(np.unique(self.labels).size)


def _weights(weights: Sequence[float]) -> np.ndarray:
    try:
        w = np.array(weights, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise DPDataError(f"weights must be numbers, got {weights!r}") from None
    if w.size < 1 or not np.isfinite(w).all() or (w <= 0).any():
        raise DPDataError("weights must be one or more positive finite numbers")
    return w / w.sum()


def _count(name: str, value: int, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise DPDataError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class SimulatedDPMultinomial:
    """Count vectors from a mixture of multinomials as :class:`DPMultinomialData`, and
    the truth."""

    data: DPMultinomialData
    #: True cluster of each point, ``(N,)`` int64 in ``0..K-1``.
    labels: np.ndarray
    #: True weights ``(K,)`` and category probabilities ``(K, V)``.
    weights: np.ndarray
    probabilities: np.ndarray

    @property
    def n_clusters(self) -> int:
        """Number of clusters that hold at least one point."""
        return int(np.unique(self.labels).size)


def simulate_dp_multinomial(
    *,
    n_points: int,
    weights: Sequence[float] = (0.5, 0.3, 0.2),
    n_words: int = 20,
    doc_length: int = 30,
    concentration: float = 0.1,
    truncation: int = 10,
    beta: float = 0.1,
    seed: int,
) -> SimulatedDPMultinomial:
    """Count vectors from a mixture of ``len(weights)`` multinomials.

    Cluster ``k`` has weight ``weights[k]`` and category probabilities
    ``phi_k ~ Dirichlet(concentration)`` (small values: peaked, well-separated
    clusters); each point draws ``doc_length`` tokens from its cluster's ``phi``.

    Parameters
    ----------
    n_points, n_words, doc_length
        Number of points N, categories V and tokens per point.
    weights
        Cluster weights (normalized here).
    concentration
        Symmetric Dirichlet parameter the true ``phi_k`` are drawn from.
    truncation, beta
        ``T`` and the Dirichlet prior ``beta`` of the returned data.
    seed
        Seed of ``numpy.random.default_rng``.

    Raises
    ------
    DPDataError
        Bad counts, weights or concentration.
    """
    N = _count("n_points", n_points, 1)
    V = _count("n_words", n_words, 2)
    L = _count("doc_length", doc_length, 1)
    w = _weights(weights)
    if not (np.isfinite(concentration) and concentration > 0):
        raise DPDataError(f"concentration must be positive and finite, got {concentration!r}")
    rng = np.random.default_rng(check_seed("seed", seed, error=DPDataError))
    # gamma draws with a floor: small concentrations underflow to exact zeros otherwise
    g = rng.gamma(concentration, size=(w.size, V)) + 1e-300
    phi = g / g.sum(axis=1, keepdims=True)
    labels = rng.choice(w.size, size=N, p=w).astype(np.int64)
    counts = np.stack([rng.multinomial(L, phi[k]) for k in labels])
    data = DPMultinomialData(counts, truncation=truncation, beta=beta)
    return SimulatedDPMultinomial(data=data, labels=labels, weights=w, probabilities=phi)


def simulate_dp_mixture(
    *,
    n_points: int,
    weights: Sequence[float] = (0.5, 0.3, 0.2),
    dim: int = 2,
    separation: float = 8.0,
    truncation: int = 10,
    seed: int,
) -> SimulatedDPMixture:
    """Points from a mixture of ``len(weights)`` Gaussians with well-separated means.

    Cluster ``k`` has weight ``weights[k]``, a random mean and a random covariance
    whose standard deviations are between 0.5 and 1 per axis (random orientation);
    every two means are at least ``separation`` apart. Labels are drawn with
    the weights, so a small cluster can come out empty; ``n_clusters`` counts those
    that hold points.

    Parameters
    ----------
    n_points, dim
        Number N and dimension P of the points.
    weights
        Cluster weights (normalized here).
    separation
        Least distance between two true means, in units of the largest cluster sd.
    truncation
        ``T`` of the returned :class:`DPMixtureData` (default priors otherwise).
    seed
        Seed of ``numpy.random.default_rng``.

    Raises
    ------
    DPDataError
        Bad counts, weights or separation.
    """
    N = _count("n_points", n_points, 1)
    P = _count("dim", dim, 1)
    w = _weights(weights)
    if not (np.isfinite(separation) and separation > 0):
        raise DPDataError(f"separation must be positive, got {separation!r}")
    K = w.size
    rng = np.random.default_rng(check_seed("seed", seed, error=DPDataError))
    spread = separation * max(1.0, K ** (1.0 / P))
    for _ in range(10_000):
        means = rng.uniform(-spread, spread, size=(K, P))
        gaps = np.linalg.norm(means[:, None] - means[None], axis=-1)[np.triu_indices(K, 1)]
        if gaps.size == 0 or gaps.min() >= separation:
            break
    else:  # pragma: no cover - the box is large enough for any K
        raise DPDataError("could not place the means; lower separation")
    covariances = np.empty((K, P, P))
    for k in range(K):
        q, _ = np.linalg.qr(rng.standard_normal((P, P)))
        sd = rng.uniform(0.5, 1.0, size=P)
        covariances[k] = (q * sd**2) @ q.T
    labels = rng.choice(K, size=N, p=w).astype(np.int64)
    points = np.empty((N, P))
    for k in range(K):
        member = labels == k
        points[member] = rng.multivariate_normal(means[k], covariances[k], size=int(member.sum()))
    return SimulatedDPMixture(
        data=DPMixtureData(points, truncation=truncation),
        labels=labels,
        weights=w,
        means=means,
        covariances=covariances,
    )


@dataclass(frozen=True)
class SimulatedHDPLDA:
    """A corpus drawn from a K-topic HDP-LDA as :class:`HDPLDAData`, and the truth."""

    data: HDPLDAData
    #: True top-level weights ``(K,)``, topics ``(K, V)``, document proportions ``(D, K)``.
    beta: np.ndarray
    phi: np.ndarray
    theta: np.ndarray
    #: Tokens of each true topic, ``(K,)``.
    topic_tokens: np.ndarray


def simulate_hdp_lda(
    *,
    n_docs: int,
    doc_length: int,
    n_words: int,
    beta: Sequence[float] = (0.5, 0.3, 0.2),
    alpha0: float = 1.0,
    eta: float = 0.05,
    truncation: int = 8,
    gamma: float = 1.0,
    seed: int,
) -> SimulatedHDPLDA:
    """A corpus from HDP-LDA's document level with ``len(beta)`` live topics.

    ``phi_k ~ Dirichlet(eta)``, ``theta_d ~ Dirichlet(alpha0 * beta)`` and
    ``doc_length`` tokens per document. The returned data carry ``truncation``,
    ``gamma``, ``alpha0`` and ``eta`` as the fit's priors.

    Raises
    ------
    DPDataError
        Bad counts, weights or concentrations.
    """
    D = _count("n_docs", n_docs, 1)
    L = _count("doc_length", doc_length, 1)
    V = _count("n_words", n_words, 2)
    b = _weights(beta)
    for name, value in (("alpha0", alpha0), ("eta", eta)):
        if not (np.isfinite(value) and value > 0):
            raise DPDataError(f"{name} must be positive and finite, got {value!r}")
    rng = np.random.default_rng(check_seed("seed", seed, error=DPDataError))
    K = b.size
    # gamma draws with a floor: small concentrations underflow to exact zeros otherwise
    g = rng.gamma(eta, size=(K, V)) + 1e-300
    phi = g / g.sum(axis=1, keepdims=True)
    g = rng.gamma(alpha0 * b, size=(D, K)) + 1e-300
    theta = g / g.sum(axis=1, keepdims=True)
    docs = []
    tokens = np.zeros(K, dtype=np.int64)
    for d in range(D):
        counts = rng.multinomial(L, theta[d])
        tokens += counts
        docs.append(
            np.concatenate([rng.choice(V, size=c, p=phi[k]) for k, c in enumerate(counts) if c])
        )
    vocab = Vocabulary(tuple(f"w{v}" for v in range(V)))
    bow = BagOfWords.from_token_ids(docs, vocab)
    data = HDPLDAData(bow, truncation=truncation, gamma=gamma, alpha0=alpha0, eta=eta)
    return SimulatedHDPLDA(data=data, beta=b, phi=phi, theta=theta, topic_tokens=tokens)
