"""Shared tiny Gaussian LDA problems."""

from __future__ import annotations

import numpy as np
import pytest

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.glda import GaussianLDAData


def tiny_data(n_tokens: int = 10, K: int = 2, seed: int = 0, alpha: float = 0.5) -> GaussianLDAData:
    """Docs of 5 tokens, each token its own word type, 2-d vectors in loose clusters."""
    rng = np.random.default_rng(seed)
    D = 2
    centers = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 1.2]])[:K]
    vec = centers[rng.integers(0, K, n_tokens)] + 0.7 * rng.normal(size=(n_tokens, D))
    vocab = Vocabulary(tuple(f"w{i}" for i in range(n_tokens)))
    docs = [range(i, min(i + 5, n_tokens)) for i in range(0, n_tokens, 5)]
    corpus = BagOfWords.from_token_ids(docs, vocab)
    return GaussianLDAData(
        corpus, vec, n_topics=K, alpha=alpha, mu0=np.zeros(D), kappa=0.1, nu=D + 2.0, Psi=np.eye(D)
    )


@pytest.fixture
def tiny() -> GaussianLDAData:
    return tiny_data()


@pytest.fixture(scope="session")
def make_tiny():
    return tiny_data
