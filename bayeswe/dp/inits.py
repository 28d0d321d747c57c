"""Starting points for ``models/dp_mixture.stan`` from a k-means clustering of the points.

NUTS does not move a cluster from one stick position to another (that needs a path
through states where two components share the cluster), so a chain keeps the order in
which its start puts the clusters. From Stan's random start, clusters land in arbitrary
positions, often behind empty components or in the last, forced, stick: on 200 points
in three clusters with T = 8, one chain of four ran at tree depth 10 with a step size
of 0.004 and another put a cluster in the last stick (leftover mass 0.19). The posterior
favours big clusters first (the GEM prior), so the starts here order the clusters by
size, as the dominant mode does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayeswe.dp.data import DPDataError, DPMixtureData

__all__ = ["initial_values"]


def _kmeans(x: np.ndarray, K: int, rng: np.random.Generator, steps: int) -> np.ndarray:
    """k-means++ seeding plus Lloyd steps; returns the labels."""
    centres = x[[rng.integers(x.shape[0])]]
    for _ in range(1, K):
        d2 = np.min(((x[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
        p = d2 / d2.sum() if d2.sum() > 0 else np.full(x.shape[0], 1.0 / x.shape[0])
        centres = np.vstack([centres, x[rng.choice(x.shape[0], p=p)]])
    label = np.zeros(x.shape[0], dtype=np.int64)
    for _ in range(steps):
        label = np.argmin(((x[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
        for k in range(K):
            if (label == k).any():
                centres[k] = x[label == k].mean(axis=0)
    return label


def _cluster_covariance(data: DPMixtureData, members: np.ndarray) -> np.ndarray:
    """Mode of the inverse-Wishart posterior of a cluster's covariance given its members."""
    P = data.dim
    scatter = np.zeros((P, P))
    if members.shape[0] > 1:
        centred = members - members.mean(axis=0)
        scatter = centred.T @ centred
    return (data.Psi0 + scatter) / (data.nu0 + members.shape[0] + P + 1)


def _bic(data: DPMixtureData, label: np.ndarray) -> float:
    y, N, P = data.points, data.n_points, data.dim
    loglik = 0.0
    used = np.unique(label)
    for k in used:
        members = y[label == k]
        cov = _cluster_covariance(data, members)
        chol = np.linalg.cholesky(cov)
        z = np.linalg.solve(chol, (members - members.mean(axis=0)).T)
        loglik += (
            members.shape[0] * np.log(members.shape[0] / N)
            - 0.5 * (z**2).sum()
            - members.shape[0] * (np.log(np.diag(chol)).sum() + 0.5 * P * np.log(2 * np.pi))
        )
    n_params = used.size * (1 + P + P * (P + 1) / 2) - 1
    return -2.0 * loglik + n_params * np.log(N)


def initial_values(
    data: DPMixtureData,
    *,
    seed: int | None,
    chains: int = 4,
    max_clusters: int = 10,
    restarts: int = 3,
    lloyd_steps: int = 20,
) -> list[dict[str, Any]]:
    """One start per chain for ``models/dp_mixture.stan``.

    Each chain clusters the points by k-means (k-means++ seeding, ``restarts`` seedings
    per k) for every ``k`` from 1 to ``min(max_clusters, T - 1)`` (or 1 when ``T = 1``),
    keeps the ``k`` of least BIC, and starts with the clusters in the first sticks by
    decreasing size: ``v_k = n_k / n_{>=k}`` (clipped to [0.02, 0.98]), ``mu_k`` the
    cluster mean, ``L_Sigma[k]`` the Cholesky factor of the inverse-Wishart posterior
    mode given the cluster; empty components start at ``v = 0.5``, ``mu0`` and the prior
    mode of the covariance; ``alpha`` at 1. Chains differ by their k-means seeds.

    Parameters
    ----------
    data
        The DP-mixture data.
    seed
        Seed of the k-means seedings (one stream per chain).
    chains
        Number of starts.
    max_clusters, restarts, lloyd_steps
        k-means search: largest ``k``, seedings per ``k`` and Lloyd iterations.

    Returns
    -------
    list of dict
        ``{"alpha", "v", "mu", "L_Sigma"}`` per chain: pass it as ``inits`` to
        ``bayeswe.fit("dp_mixture", data, method="nuts", inits=...)`` (one mapping,
        ``[0]``, for the other methods).
    """
    if not isinstance(data, DPMixtureData):
        raise DPDataError(f"expected a DPMixtureData, got {type(data).__name__}")
    T, P, y = data.truncation, data.dim, data.points
    k_max = max(1, min(max_clusters, T - 1, data.n_points))
    prior_chol = np.linalg.cholesky(data.Psi0 / (data.nu0 + P + 1))
    starts = []
    for stream in np.random.SeedSequence(seed).spawn(chains):
        rng = np.random.default_rng(stream)
        best: tuple[float, np.ndarray] | None = None
        for k in range(1, k_max + 1):
            for _ in range(restarts if k > 1 else 1):
                label = _kmeans(y, k, rng, lloyd_steps)
                score = _bic(data, label)
                if best is None or score < best[0]:
                    best = (score, label)
        assert best is not None
        label = best[1]
        sizes = np.bincount(label)
        order = [k for k in np.argsort(-sizes, kind="stable") if sizes[k] > 0]
        v = np.full(max(T - 1, 0), 0.5)
        mu = np.tile(data.mu0, (T, 1))
        chol = np.tile(prior_chol, (T, 1, 1))
        remaining = data.n_points
        for slot, k in enumerate(order):
            members = y[label == k]
            if slot < T - 1:
                v[slot] = np.clip(members.shape[0] / remaining, 0.02, 0.98)
            remaining -= members.shape[0]
            mu[slot] = members.mean(axis=0)
            chol[slot] = np.linalg.cholesky(_cluster_covariance(data, members))
        starts.append({"alpha": 1.0, "v": v, "mu": mu, "L_Sigma": chol})
    return starts
