"""Corpora drawn from the LDA generative model, with the true parameters."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.lda.data import LDAData
from bayeswe.options import check_float, check_int, check_seed

__all__ = ["SimulatedLDA", "simulate_lda"]


@dataclass(frozen=True)
class SimulatedLDA:
    """A simulated corpus as :class:`LDAData` and the parameters that generated it."""

    data: LDAData
    #: True topic-word distributions, ``(K, V)``.
    phi: np.ndarray
    #: True document-topic proportions, ``(D, K)``.
    theta: np.ndarray


def simulate_lda(
    *,
    n_docs: int,
    doc_length: int,
    n_words: int,
    n_topics: int,
    alpha: float = 0.1,
    beta: float = 0.01,
    seed: int,
    phi: np.ndarray | None = None,
) -> SimulatedLDA:
    """Draw ``phi_k ~ Dir(beta)``, ``theta_d ~ Dir(alpha)`` and ``doc_length`` tokens per document.

    Parameters
    ----------
    n_docs, doc_length, n_words, n_topics
        Corpus size D, tokens per document, vocabulary size V, topics K.
    alpha, beta
        Symmetric Dirichlet parameters (also stored as the priors of the data).
    seed
        Seed of the generator (``numpy.random.default_rng``).
    phi
        Optional fixed ``(K, V)`` topics instead of draws from the prior.

    Returns
    -------
    SimulatedLDA
        Data (every document non-empty) and the true ``phi``, ``theta``.
    """
    check_int("n_docs", n_docs, minimum=1)
    check_int("doc_length", doc_length, minimum=1)
    check_int("n_words", n_words, minimum=2)
    check_int("n_topics", n_topics, minimum=2)
    check_float("alpha", alpha, low=0)
    check_float("beta", beta, low=0)
    rng = np.random.default_rng(check_seed("seed", seed))
    if phi is None:
        # Gamma draws with a floor: tiny beta underflows to exact zeros otherwise.
        g = rng.gamma(beta, size=(n_topics, n_words)) + 1e-300
        phi = g / g.sum(axis=1, keepdims=True)
    else:
        phi = np.asarray(phi, dtype=np.float64)
        if phi.shape != (n_topics, n_words):
            raise ValueError(f"phi must have shape ({n_topics}, {n_words}), got {phi.shape}")
    g = rng.gamma(alpha, size=(n_docs, n_topics)) + 1e-300
    theta = g / g.sum(axis=1, keepdims=True)
    docs = []
    for d in range(n_docs):
        topics = rng.choice(n_topics, size=doc_length, p=theta[d])
        counts = np.bincount(topics, minlength=n_topics)
        words = [rng.choice(n_words, size=c, p=phi[k]) for k, c in enumerate(counts) if c]
        docs.append(np.concatenate(words))
    vocab = Vocabulary(tuple(f"w{v}" for v in range(n_words)))
    bow = BagOfWords.from_token_ids(docs, vocab)
    data = LDAData(bow, n_topics=n_topics, alpha=alpha, beta=beta)
    return SimulatedLDA(data=data, phi=phi, theta=theta)
