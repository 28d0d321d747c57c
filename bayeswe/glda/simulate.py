"""Synthetic corpora drawn from the Gaussian LDA generative model (section 3 of the paper)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.glda.data import GaussianLDAData
from bayeswe.options import check_float, check_int, check_seed

__all__ = ["GaussianLDATruth", "simulate_gaussian_lda"]


@dataclass(frozen=True)
class GaussianLDATruth:
    """The parameters a synthetic corpus was drawn with."""

    mu: np.ndarray  # (K, D)
    Sigma: np.ndarray  # (K, D, D)
    theta: np.ndarray  # (n_docs, K)
    z: np.ndarray  # (N,) topic of each token, in the corpus' token order


def simulate_gaussian_lda(
    *,
    n_docs: int,
    doc_length: int,
    n_topics: int,
    dim: int,
    seed: int,
    alpha: float = 0.1,
    separation: float = 4.0,
    noise: float = 1.0,
) -> tuple[GaussianLDAData, GaussianLDATruth]:
    """Draw a corpus from Gaussian LDA with every token its own word type.

    ``theta_d ~ Dirichlet(alpha)``, ``mu_k ~ N(0, separation^2 I)``,
    ``Sigma_k = noise^2 * W_k`` with ``W_k`` a random SPD matrix of unit average
    variance, ``z ~ theta_d``, ``v ~ N(mu_z, Sigma_z)``. Each token is a distinct word
    type (``"w0", "w1", ...``), so the corpus is exactly a draw from the model
    (continuous vectors, no shared types). The returned data use ``mu0 = 0``,
    ``kappa = 0.1``, ``nu = D + 2`` and ``Psi = noise^2 * I``.
    """
    check_int("n_docs", n_docs, minimum=1)
    check_int("doc_length", doc_length, minimum=1)
    check_int("n_topics", n_topics, minimum=2)
    check_int("dim", dim, minimum=1)
    check_float("alpha", alpha, low=0)
    check_float("separation", separation, low=0)
    check_float("noise", noise, low=0)
    rng = np.random.default_rng(check_seed("seed", seed))
    K, D = n_topics, dim
    mu = rng.normal(0.0, separation, size=(K, D))
    Sigma = np.empty((K, D, D))
    for k in range(K):
        A = rng.normal(size=(D, D)) / np.sqrt(D)
        W = 0.5 * np.eye(D) + 0.5 * A @ A.T
        Sigma[k] = noise**2 * W / (np.trace(W) / D)
    theta = rng.dirichlet(np.full(K, alpha), size=n_docs)
    z = np.concatenate([rng.choice(K, size=doc_length, p=theta[d]) for d in range(n_docs)])
    N = z.size
    chol = np.linalg.cholesky(Sigma)
    vectors = mu[z] + np.einsum("nij,nj->ni", chol[z], rng.normal(size=(N, D)))
    vocab = Vocabulary(tuple(f"w{i}" for i in range(N)), np.ones(N, dtype=np.int64))
    docs = [np.arange(d * doc_length, (d + 1) * doc_length) for d in range(n_docs)]
    corpus = BagOfWords.from_token_ids(docs, vocab)
    data = GaussianLDAData(
        corpus,
        vectors,
        n_topics=K,
        alpha=alpha,
        mu0=np.zeros(D),
        kappa=0.1,
        nu=D + 2.0,
        Psi=noise**2 * np.eye(D),
    )
    return data, GaussianLDATruth(mu, Sigma, theta, z.astype(np.int32))
