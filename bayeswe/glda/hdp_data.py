"""Data of infinite Gaussian LDA: the HDP with Normal-inverse-Wishart topics over word vectors.

:class:`HDPGaussianLDAData` is Gaussian LDA's data (:class:`~bayeswe.glda.GaussianLDAData`:
a corpus, one vector per word type, the NIW prior of a topic) with the number of topics
replaced by the two concentrations of the hierarchical Dirichlet process (Teh, Jordan,
Beal and Blei 2006): top-level weights ``beta ~ GEM(gamma)``, document proportions
``theta_d ~ DP(alpha0, beta)``, topics ``(mu_k, Sigma_k) ~ NIW(mu0, kappa, nu, Psi)``,
``v_{d,i} ~ N(mu_{z_{d,i}}, Sigma_{z_{d,i}})``. The corpus, vectors and NIW prior are
validated exactly as Gaussian LDA's (same defaults, same errors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe.corpus import BagOfWords
from bayeswe.glda.data import GaussianLDAData, GaussianLDADataError
from bayeswe.options import magnitude_problem

__all__ = ["HDPGaussianLDAData"]


def _positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise GaussianLDADataError(f"{name} must be a positive number, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise GaussianLDADataError(f"{name} must be positive and finite, got {value}")
    if (problem := magnitude_problem(name, value)) is not None:
        raise GaussianLDADataError(problem)
    return value


@dataclass(frozen=True, eq=False)
class HDPGaussianLDAData:
    """A corpus, its word vectors, the HDP concentrations and the NIW prior of a topic.

    Parameters
    ----------
    corpus
        Document-term counts; every document must be non-empty.
    embeddings
        ``(V, D)`` array, row ``w`` the vector of vocabulary word ``w``; finite.
    gamma
        Top-level concentration (more topics for larger values).
    alpha0
        Document-level concentration (documents mix more topics for larger values).
    mu0, kappa, nu, Psi
        The NIW prior of every topic, with :class:`~bayeswe.glda.GaussianLDAData`'s
        meaning and defaults (``mu0`` the mean token vector, ``kappa = 0.1``,
        ``nu = D + 2``, ``Psi = 3 I``).
    truncation
        How many of a draw's largest topics the sampler records for display (the
        sampler itself is not truncated); default 20.

    Raises
    ------
    GaussianLDADataError
        Naming the first problem found (empty documents, NaN vectors, wrong shapes, a
        prior that is not positive definite, non-positive concentrations, ...).
    """

    corpus: BagOfWords
    embeddings: np.ndarray
    gamma: float = 1.0
    alpha0: float = 1.0
    mu0: np.ndarray | None = None
    kappa: float = 0.1
    nu: float | None = None
    Psi: np.ndarray | None = None
    truncation: int = 20

    def __post_init__(self) -> None:
        # Gaussian LDA's checks of the corpus, the vectors and the NIW prior (n_topics is
        # a placeholder: the HDP has none)
        glda = GaussianLDAData(
            self.corpus, self.embeddings, n_topics=2, alpha=1.0, mu0=self.mu0,
            kappa=self.kappa, nu=self.nu, Psi=self.Psi,
        )  # fmt: skip
        for name in ("embeddings", "mu0", "kappa", "nu", "Psi"):
            object.__setattr__(self, name, getattr(glda, name))
        for name in ("gamma", "alpha0"):
            object.__setattr__(self, name, _positive(name, getattr(self, name)))
        T = self.truncation
        if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
            raise GaussianLDADataError(f"truncation must be an integer >= 1, got {T!r}")
        object.__setattr__(self, "truncation", int(T))

    @classmethod
    def from_glda(
        cls, data: GaussianLDAData, *, gamma: float = 1.0, alpha0: float | None = None
    ) -> HDPGaussianLDAData:
        """The HDP data of a Gaussian LDA's corpus, vectors and NIW prior.

        ``alpha0`` ``None``: the total of the Gaussian LDA's ``alpha``; the display
        truncation is its number of topics.
        """
        if not isinstance(data, GaussianLDAData):
            raise GaussianLDADataError(f"expected a GaussianLDAData, got {type(data).__name__}")
        return cls(
            data.corpus, data.embeddings, gamma=gamma,
            alpha0=float(np.sum(data.alpha)) if alpha0 is None else alpha0,
            mu0=data.mu0, kappa=data.kappa, nu=data.nu, Psi=data.Psi,
            truncation=data.n_topics,
        )  # fmt: skip

    @property
    def n_docs(self) -> int:
        return self.corpus.n_docs

    @property
    def n_words(self) -> int:
        """Vocabulary size V."""
        return self.corpus.n_words

    @property
    def dim(self) -> int:
        """Embedding dimension D."""
        return int(self.embeddings.shape[1])

    def to_stan(self) -> dict[str, Any]:
        """The data in the layout of ``models/gaussian_lda.stan`` (no Stan program uses
        it: the fields the sampler's InferenceData records as observed and constant data)."""
        c = self.corpus
        return {
            "D": c.n_docs,
            "V": c.n_words,
            "P": self.dim,
            "N": int(c.word_ids.size),
            "doc": c.doc_index().astype(np.int64) + 1,
            "word": c.word_ids.astype(np.int64) + 1,
            "count": c.counts.astype(np.int64),
            "embeddings": np.array(self.embeddings),
            "gamma": self.gamma,
            "alpha0": self.alpha0,
            "mu0": np.array(self.mu0),
            "kappa": self.kappa,
            "nu": self.nu,
            "Psi": np.array(self.Psi),
        }

    def coords(self) -> dict[str, Any]:
        """Coordinates of fits: document ids, vocabulary words, dimensions."""
        return {
            "doc": list(self.corpus.doc_ids),
            "word": list(self.corpus.vocabulary.words),
            "dim": list(range(self.dim)),
            "dim2": list(range(self.dim)),
        }

    def __repr__(self) -> str:
        return (
            f"HDPGaussianLDAData(n_docs={self.n_docs}, n_words={self.n_words}, "
            f"n_tokens={self.corpus.n_tokens}, dim={self.dim}, gamma={self.gamma}, "
            f"alpha0={self.alpha0})"
        )
