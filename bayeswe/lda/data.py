"""The data of an LDA fit: a bag of words, the number of topics and the priors.

:class:`LDAData` is what every LDA method takes: ``bayeswe.fit("lda", data,
method=...)`` with the Stan methods (``nuts``, ``advi``, ``map``) and with the
Numba collapsed Gibbs sampler (``cgs``). The model is

    phi_k ~ Dirichlet(beta)            (symmetric, k = 1..K)
    theta_d ~ Dirichlet(alpha)         (symmetric or asymmetric)
    z_di ~ Categorical(theta_d),  w_di ~ Categorical(phi_{z_di})
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe.corpus import BagOfWords, CorpusError
from bayeswe.errors import BayesweError
from bayeswe.options import magnitude_problem

#: Key of the data mapping under which :meth:`LDAData.stan_data_for` passes the coords
#: (not a Stan identifier, so it can never clash with a data field).
COORDS_KEY = "__coords__"

__all__ = ["LDAData", "LDADataError"]


class LDADataError(BayesweError, ValueError):
    """LDA data are unusable: empty documents, K < 2, bad alpha or beta."""


def _positive_finite(name: str, value: float) -> float:
    value = _positive_finite_number(name, value)
    if (problem := magnitude_problem(name, value)) is not None:
        raise LDADataError(problem)
    return value


def _positive_finite_number(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise LDADataError(f"{name} must be a positive number, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise LDADataError(f"{name} must be positive and finite, got {value}")
    return value


@dataclass(frozen=True)
class LDAData:
    """Documents, number of topics and Dirichlet hyperparameters of an LDA fit.

    Parameters
    ----------
    corpus
        Document-term counts; every document must hold at least one token.
    n_topics
        Number of topics ``K >= 2``.
    alpha
        Dirichlet prior on each document's topic proportions ``theta_d``: a
        positive scalar (symmetric) or a positive array of shape ``(K,)``.
    beta
        Symmetric Dirichlet prior on each topic's word distribution ``phi_k``.

    Raises
    ------
    LDADataError
        For a corpus that is not a :class:`~bayeswe.corpus.BagOfWords`, empty
        documents, ``K < 2``, non-positive or non-finite ``alpha``/``beta``, or
        an ``alpha`` array of the wrong shape.
    """

    corpus: BagOfWords
    n_topics: int
    alpha: float | np.ndarray = 0.1
    beta: float = 0.01

    def __post_init__(self) -> None:
        if not isinstance(self.corpus, BagOfWords):
            raise LDADataError(
                f"corpus must be a bayeswe.corpus.BagOfWords, got {type(self.corpus).__name__}"
            )
        try:
            self.corpus.check_nonempty()
        except CorpusError as err:
            raise LDADataError(f"LDA needs non-empty documents: {err}") from None
        K = self.n_topics
        if isinstance(K, bool) or not isinstance(K, (int, np.integer)):
            raise LDADataError(f"n_topics must be an integer >= 2, got {K!r}")
        if K < 2:
            raise LDADataError(f"n_topics must be >= 2, got {K}")
        object.__setattr__(self, "n_topics", int(K))
        try:
            alpha_ndim = np.ndim(self.alpha)
        except (TypeError, ValueError):  # a ragged nested sequence
            raise LDADataError(f"alpha must be numeric, got {self.alpha!r}") from None
        if alpha_ndim == 0:
            object.__setattr__(self, "alpha", _positive_finite("alpha", self.alpha))  # type: ignore[arg-type]
        else:
            try:
                alpha = np.array(self.alpha, dtype=np.float64)
            except (TypeError, ValueError):
                raise LDADataError(f"alpha must be numeric, got {self.alpha!r}") from None
            if alpha.shape != (K,):
                raise LDADataError(
                    f"alpha must be a scalar or have shape ({K},) = (n_topics,), "
                    f"got shape {alpha.shape}"
                )
            if not (np.isfinite(alpha).all() and (alpha > 0).all()):
                raise LDADataError("every entry of alpha must be positive and finite")
            for a in (alpha.min(), alpha.max()):
                if (problem := magnitude_problem("alpha", a)) is not None:
                    raise LDADataError(problem)
            alpha.setflags(write=False)
            object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "beta", _positive_finite("beta", self.beta))

    # -- views -----------------------------------------------------------------

    @property
    def n_docs(self) -> int:
        """Number of documents D."""
        return self.corpus.n_docs

    @property
    def n_words(self) -> int:
        """Vocabulary size V."""
        return self.corpus.n_words

    @property
    def symmetric_alpha(self) -> bool:
        """Whether ``alpha`` was given as a scalar."""
        return np.ndim(self.alpha) == 0

    def alpha_vector(self) -> np.ndarray:
        """The Dirichlet parameter of ``theta_d`` as a ``(K,)`` float64 array."""
        return np.broadcast_to(np.asarray(self.alpha, dtype=np.float64), (self.n_topics,)).copy()

    def to_stan(self) -> dict[str, Any]:
        """Data for ``models/lda.stan`` in aggregated (document, word, count) form.

        Returns
        -------
        dict
            ``D``, ``V``, ``K``, ``N`` (number of distinct (document, word) pairs),
            ``doc`` and ``word`` (1-based, int64, length ``N``), ``count`` (int64),
            ``alpha`` (``(K,)`` float64) and ``beta`` (float).
        """
        bow = self.corpus
        return {
            "D": bow.n_docs,
            "V": bow.n_words,
            "K": self.n_topics,
            "N": int(bow.word_ids.size),
            "doc": bow.doc_index().astype(np.int64) + 1,
            "word": bow.word_ids.astype(np.int64) + 1,
            "count": bow.counts.astype(np.int64),
            "alpha": self.alpha_vector(),
            "beta": float(self.beta),
        }

    def to_stan_tokens(self) -> dict[str, Any]:
        """Token-level data of ``models/lda_users_guide.stan`` (one entry per token).

        Tokens are listed document by document, the words of a document in id order
        (the order does not change the log density).
        """
        agg = self.to_stan()
        counts = np.asarray(agg["count"], dtype=np.int64)
        return {
            "D": agg["D"],
            "V": agg["V"],
            "K": agg["K"],
            "N": int(counts.sum()),
            "doc": np.repeat(np.asarray(agg["doc"], dtype=np.int64), counts),
            "word": np.repeat(np.asarray(agg["word"], dtype=np.int64), counts),
            "alpha": agg["alpha"],
            "beta": agg["beta"],
        }

    def stan_data_for(self, spec: Any) -> dict[str, Any]:
        """The data mapping :func:`bayeswe.fit` passes to ``spec`` ("lda" or "lda_users_guide").

        The coords of the fit travel under :data:`COORDS_KEY`.

        Raises
        ------
        LDADataError
            ``spec`` is not one of the LDA programs.
        """
        name = getattr(spec, "name", spec)
        if name == "lda":
            return {**self.to_stan(), COORDS_KEY: self.coords()}
        if name == "lda_users_guide":
            return {**self.to_stan_tokens(), COORDS_KEY: self.coords()}
        raise LDADataError(
            f"an LDAData is data for the models 'lda' and 'lda_users_guide', not {name!r}"
        )

    def coords(self) -> dict[str, Any]:
        """Coordinates of fits: document ids, topic numbers, vocabulary words."""
        return {
            "doc": list(self.corpus.doc_ids),
            "topic": np.arange(self.n_topics),
            "word": list(self.corpus.vocabulary.words),
        }
