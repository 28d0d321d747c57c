"""The data of the truncated Dirichlet-process models: DP mixtures and HDP-LDA.

:class:`DPMixtureData` holds points and the priors of ``models/dp_mixture.stan``;
:class:`DPMultinomialData` holds count vectors and the priors of a DP mixture of
Dirichlet-multinomial clusters (``models/dp_multinomial.stan``);
:class:`HDPLDAData` holds a bag of words and the priors of ``models/hdp_lda.stan``.
All check their input when built and raise :class:`DPDataError` (a ``ValueError``)
naming the problem, so that nothing reaches Stan that Stan would reject.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe.corpus import BagOfWords, CorpusError, Vocabulary
from bayeswe.errors import BayesweError
from bayeswe.lda.data import COORDS_KEY, LDAData
from bayeswe.options import magnitude_problem

__all__ = ["DPDataError", "DPMixtureData", "DPMultinomialData", "HDPLDAData"]


class DPDataError(BayesweError, ValueError):
    """DP mixture or HDP-LDA data are unusable: T < 1, NaN points, empty documents, ..."""


def _positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise DPDataError(f"{name} must be a positive number, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise DPDataError(f"{name} must be positive and finite, got {value}")
    if (problem := magnitude_problem(name, value)) is not None:
        raise DPDataError(problem)
    return value


def _truncation(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise DPDataError(f"truncation must be an integer >= 1, got {value!r}")
    if value < 1:
        raise DPDataError(f"truncation must be >= 1, got {value}")
    return int(value)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class DPMixtureData:
    """Points, truncation level and priors of a DP mixture of Gaussians.

    The model is ``models/dp_mixture.stan``: stick-breaking weights with ``T``
    components, ``alpha ~ Gamma(alpha_shape, alpha_rate)``, and Normal-inverse-Wishart
    components ``Sigma_k ~ IW(nu0, Psi0)``, ``mu_k | Sigma_k ~ N(mu0, Sigma_k / kappa0)``.

    Parameters
    ----------
    points
        ``(N, P)`` array of finite numbers (a 1-d array is ``N`` points of dimension 1).
    truncation
        Number of components ``T >= 1``; generous (well above the clusters you expect)
        so that the fitted ``leftover`` stick mass is small.
    alpha_shape, alpha_rate
        Gamma prior of the concentration ``alpha`` (shape, rate; mean shape / rate).
    mu0
        Prior mean of the component means; ``None``: the mean of the points.
    kappa0
        Prior pseudo-count of a component mean (its prior covariance is Sigma_k / kappa0).
    nu0
        Inverse-Wishart degrees of freedom, ``> P - 1``; ``None``: ``P + 3``.
    Psi0
        ``(P, P)`` symmetric positive-definite inverse-Wishart scale; ``None``: the
        diagonal matrix for which the prior mean of ``Sigma_k`` is a tenth of the points'
        variance in each coordinate (1 where a coordinate does not vary).

    Raises
    ------
    DPDataError
        No points, NaN or infinite points, ``truncation < 1``, non-positive or
        non-finite hyperparameters, ``nu0 <= P - 1``, a ``Psi0`` of the wrong shape or
        not symmetric positive definite.

    Notes
    -----
    The defaults of ``mu0`` and ``Psi0`` depend on the points (an empirical-Bayes
    centring and scaling): they make the prior invariant to shifting and rescaling the
    data, which Stan's default initialization needs, but they use the data twice. Pass
    your own values for a fully Bayesian analysis.
    """

    points: np.ndarray
    truncation: int
    alpha_shape: float = 1.0
    alpha_rate: float = 1.0
    mu0: np.ndarray | None = None
    kappa0: float = 0.01
    nu0: float | None = None
    Psi0: np.ndarray | None = None

    def __post_init__(self) -> None:
        try:
            y = np.array(self.points, dtype=np.float64)
        except (TypeError, ValueError):
            raise DPDataError("points must be a numeric (N, P) array") from None
        if y.ndim == 1:
            y = y[:, None]
        if y.ndim != 2:
            raise DPDataError(f"points must be an (N, P) array, got shape {y.shape}")
        if y.shape[0] == 0 or y.shape[1] == 0:
            raise DPDataError(f"points must hold a point of dimension >= 1, got {y.shape}")
        if not np.isfinite(y).all():
            bad = int(np.flatnonzero(~np.isfinite(y).all(axis=1))[0])
            raise DPDataError(f"points hold NaN or infinite values (first in point {bad})")
        largest = float(np.abs(y).max())
        if largest > 0 and (problem := magnitude_problem("the largest |point|", largest)):
            raise DPDataError(problem)
        object.__setattr__(self, "points", _frozen(y))
        object.__setattr__(self, "truncation", _truncation(self.truncation))
        for name in ("alpha_shape", "alpha_rate", "kappa0"):
            object.__setattr__(self, name, _positive(name, getattr(self, name)))
        P = y.shape[1]
        if self.mu0 is None:
            mu0 = y.mean(axis=0)
        else:
            try:
                mu0 = np.array(self.mu0, dtype=np.float64).reshape(-1)
            except (TypeError, ValueError):
                raise DPDataError(f"mu0 must be numeric, got {self.mu0!r}") from None
            if mu0.shape != (P,) or not np.isfinite(mu0).all():
                raise DPDataError(f"mu0 must be {P} finite numbers, got shape {mu0.shape}")
        object.__setattr__(self, "mu0", _frozen(mu0))
        nu0 = P + 3.0 if self.nu0 is None else _positive("nu0", self.nu0)
        if nu0 <= P - 1:
            raise DPDataError(f"nu0 must exceed P - 1 = {P - 1}, got {nu0}")
        object.__setattr__(self, "nu0", nu0)
        if self.Psi0 is None:
            var = y.var(axis=0) if y.shape[0] > 1 else np.ones(P)
            var = np.where(var > 0, var, 1.0)
            # E[Sigma_k] = Psi0 / (nu0 - P - 1) when nu0 > P + 1
            Psi0 = np.diag(0.1 * var * max(nu0 - P - 1.0, 1.0))
        else:
            try:
                Psi0 = np.array(self.Psi0, dtype=np.float64)
            except (TypeError, ValueError):
                raise DPDataError(f"Psi0 must be numeric, got {self.Psi0!r}") from None
            if Psi0.shape != (P, P):
                raise DPDataError(f"Psi0 must have shape ({P}, {P}), got {Psi0.shape}")
            if not np.isfinite(Psi0).all() or not np.allclose(Psi0, Psi0.T, rtol=1e-8, atol=0):
                raise DPDataError("Psi0 must be finite and symmetric")
            try:
                np.linalg.cholesky(Psi0)
            except np.linalg.LinAlgError:
                raise DPDataError("Psi0 must be positive definite") from None
        object.__setattr__(self, "Psi0", _frozen(Psi0))

    @property
    def n_points(self) -> int:
        """Number of points N."""
        return int(self.points.shape[0])

    @property
    def dim(self) -> int:
        """Dimension P of a point."""
        return int(self.points.shape[1])

    def to_stan(self) -> dict[str, Any]:
        """Data of ``models/dp_mixture.stan`` (every field documented in the program)."""
        return {
            "N": self.n_points,
            "P": self.dim,
            "T": self.truncation,
            "y": np.array(self.points),
            "alpha_shape": self.alpha_shape,
            "alpha_rate": self.alpha_rate,
            "mu0": np.array(self.mu0),
            "kappa0": self.kappa0,
            "nu0": self.nu0,
            "Psi0": np.array(self.Psi0),
        }


@dataclass(frozen=True)
class DPMultinomialData:
    """Count vectors, truncation level and priors of a DP mixture of multinomials.

    The model (a DP mixture of unigrams): ``alpha ~ Gamma(alpha_shape, alpha_rate)``,
    stick-breaking weights, per cluster category probabilities
    ``phi_k ~ Dirichlet(beta)``, and each point a bag of ``L_i`` categorical tokens
    drawn from its cluster's ``phi``. The density of a point is that of its token
    sequence, ``prod_v phi_v^{x_v}``, without the multinomial coefficient (a constant
    of the data; add ``log L_i! - sum_v log x_v!`` for the density of the count vector).

    A separate class rather than a ``components=`` field of :class:`DPMixtureData`:
    the two share no observation type and no component prior, so every field of one
    would be meaningless for the other; the data's class picks the components when
    ``bayeswe.fit("dp_mixture", data, method="cgs")`` runs.

    Parameters
    ----------
    counts
        A :class:`~bayeswe.corpus.BagOfWords` (documents as points) or an ``(N, V)``
        array of non-negative integer counts; stored as a ``BagOfWords``. Every point
        must hold at least one token.
    truncation
        Number of clusters ``T >= 1`` kept by the display summaries (and the Stan
        twin's truncation).
    alpha_shape, alpha_rate
        Gamma prior of the concentration ``alpha`` (shape, rate).
    beta
        Dirichlet prior of each cluster's category probabilities: a positive number
        (symmetric) or ``V`` positive numbers; stored as a ``(V,)`` array.

    Raises
    ------
    DPDataError
        Counts that are not non-negative integers, a point without tokens, fewer than
        two categories, ``truncation < 1``, non-positive or non-finite
        hyperparameters, a ``beta`` of the wrong length.
    """

    counts: Any
    truncation: int
    alpha_shape: float = 1.0
    alpha_rate: float = 1.0
    beta: Any = 0.1

    def __post_init__(self) -> None:
        bow = self.counts
        if not isinstance(bow, BagOfWords):
            try:
                m = np.asarray(bow)
                if m.dtype == object or m.ndim != 2:
                    raise DPDataError(
                        f"counts must be a BagOfWords or an (N, V) array, got shape {m.shape}"
                    )
                vocab = Vocabulary(tuple(f"w{v}" for v in range(m.shape[1])))
                bow = BagOfWords.from_dense(m, vocab)
            except CorpusError as err:
                raise DPDataError(f"counts: {err}") from None
        if bow.n_docs == 0:
            raise DPDataError("counts hold no points")
        if bow.n_words < 2:
            raise DPDataError(f"counts need at least 2 categories, got {bow.n_words}")
        lengths = bow.doc_lengths
        if (lengths == 0).any():
            bad = int(np.flatnonzero(lengths == 0)[0])
            raise DPDataError(f"every point needs at least one token (point {bad} has none)")
        object.__setattr__(self, "counts", bow)
        object.__setattr__(self, "truncation", _truncation(self.truncation))
        for name in ("alpha_shape", "alpha_rate"):
            object.__setattr__(self, name, _positive(name, getattr(self, name)))
        V = bow.n_words
        if np.ndim(self.beta) == 0:
            beta = np.full(V, _positive("beta", self.beta))
        else:
            try:
                beta = np.array(self.beta, dtype=np.float64).reshape(-1)
            except (TypeError, ValueError):
                raise DPDataError(f"beta must be numeric, got {self.beta!r}") from None
            if beta.shape != (V,):
                raise DPDataError(f"beta must be a number or {V} numbers, got {beta.shape}")
            for value in beta:
                _positive("beta", float(value))
        object.__setattr__(self, "beta", _frozen(beta))

    @property
    def n_points(self) -> int:
        """Number of points N."""
        return int(self.counts.n_docs)

    @property
    def n_words(self) -> int:
        """Number of categories V."""
        return int(self.counts.n_words)

    def to_stan(self) -> dict[str, Any]:
        """Data of ``models/dp_multinomial.stan`` (every field documented in the program).

        Returns
        -------
        dict
            ``N``, ``V``, ``T``, ``E`` (stored (point, category) entries), ``point`` and
            ``word`` (1-based, int64, grouped by point), ``count`` (int64),
            ``alpha_shape``, ``alpha_rate`` and ``beta`` ``(V,)``.
        """
        bow = self.counts
        return {
            "N": self.n_points,
            "V": self.n_words,
            "T": self.truncation,
            "E": int(bow.word_ids.size),
            "point": bow.doc_index().astype(np.int64) + 1,
            "word": bow.word_ids.astype(np.int64) + 1,
            "count": bow.counts.astype(np.int64),
            "alpha_shape": self.alpha_shape,
            "alpha_rate": self.alpha_rate,
            "beta": np.array(self.beta),
        }

    def stan_data_for(self, spec: Any) -> dict[str, Any]:
        """The data :func:`bayeswe.fit` passes to ``"dp_multinomial"``, coords included."""
        name = getattr(spec, "name", spec)
        if name != "dp_multinomial":
            raise DPDataError(
                f"a DPMultinomialData is data for 'dp_multinomial' (Stan methods) or "
                f"'dp_mixture' (method='cgs'), not {name!r}"
            )
        return {**self.to_stan(), COORDS_KEY: self.coords()}

    def coords(self) -> dict[str, Any]:
        """Coordinates of fits: the categories (the vocabulary's words)."""
        return {"category": list(self.counts.vocabulary.words)}


@dataclass(frozen=True)
class HDPLDAData:
    """Documents, truncation level and concentrations of an HDP-LDA fit.

    The model is ``models/hdp_lda.stan``: top-level topic weights
    ``beta ~ GEM(gamma)`` truncated at ``T``, ``theta_d ~ Dirichlet(alpha0 * beta)``,
    ``phi_k ~ Dirichlet(eta)``.

    Parameters
    ----------
    corpus
        Document-term counts; every document must hold at least one token.
    truncation
        Number of topics ``T >= 1``, a few more than the topics you expect.
    gamma
        Top-level concentration (more topics for larger values).
    alpha0
        Document-level concentration (documents mix more topics for larger values).
    eta
        Symmetric Dirichlet prior on each topic's word distribution.

    Raises
    ------
    DPDataError
        A corpus that is not a :class:`~bayeswe.corpus.BagOfWords`, empty documents,
        ``truncation < 1``, non-positive or non-finite concentrations.
    """

    corpus: BagOfWords
    truncation: int
    gamma: float = 1.0
    alpha0: float = 1.0
    eta: float = 0.01

    def __post_init__(self) -> None:
        if not isinstance(self.corpus, BagOfWords):
            raise DPDataError(
                f"corpus must be a bayeswe.corpus.BagOfWords, got {type(self.corpus).__name__}"
            )
        try:
            self.corpus.check_nonempty()
        except CorpusError as err:
            raise DPDataError(f"HDP-LDA needs non-empty documents: {err}") from None
        object.__setattr__(self, "truncation", _truncation(self.truncation))
        for name in ("gamma", "alpha0", "eta"):
            object.__setattr__(self, name, _positive(name, getattr(self, name)))

    @classmethod
    def from_lda(
        cls,
        data: LDAData,
        *,
        truncation: int | None = None,
        gamma: float = 1.0,
        alpha0: float | None = None,
    ) -> HDPLDAData:
        """The HDP-LDA data of an :class:`~bayeswe.lda.LDAData`'s corpus.

        Parameters
        ----------
        data
            The LDA data; its corpus and ``beta`` (as ``eta``) are kept.
        truncation
            ``None``: the LDA's number of topics.
        gamma
            Top-level concentration.
        alpha0
            ``None``: the total of the LDA's ``alpha`` (the same document-level
            concentration, spread by ``beta`` instead of evenly).
        """
        if not isinstance(data, LDAData):
            raise DPDataError(f"expected an LDAData, got {type(data).__name__}")
        return cls(
            data.corpus,
            truncation=data.n_topics if truncation is None else truncation,
            gamma=gamma,
            alpha0=float(data.alpha_vector().sum()) if alpha0 is None else alpha0,
            eta=data.beta,
        )

    @property
    def n_docs(self) -> int:
        """Number of documents D."""
        return self.corpus.n_docs

    @property
    def n_words(self) -> int:
        """Vocabulary size V."""
        return self.corpus.n_words

    def to_stan(self) -> dict[str, Any]:
        """Data of ``models/hdp_lda.stan``, laid out as ``models/lda.stan``'s.

        Returns
        -------
        dict
            ``D``, ``V``, ``T``, ``N`` (distinct (document, word) pairs), ``doc`` and
            ``word`` (1-based, int64, grouped by document), ``count`` (int64),
            ``gamma``, ``alpha0`` and ``eta``.
        """
        bow = self.corpus
        return {
            "D": bow.n_docs,
            "V": bow.n_words,
            "T": self.truncation,
            "N": int(bow.word_ids.size),
            "doc": bow.doc_index().astype(np.int64) + 1,
            "word": bow.word_ids.astype(np.int64) + 1,
            "count": bow.counts.astype(np.int64),
            "gamma": self.gamma,
            "alpha0": self.alpha0,
            "eta": self.eta,
        }

    def stan_data_for(self, spec: Any) -> dict[str, Any]:
        """The data :func:`bayeswe.fit` passes to ``"hdp_lda"``, coords under ``COORDS_KEY``."""
        name = getattr(spec, "name", spec)
        if name != "hdp_lda":
            raise DPDataError(f"an HDPLDAData is data for the model 'hdp_lda', not {name!r}")
        return {**self.to_stan(), COORDS_KEY: self.coords()}

    def coords(self) -> dict[str, Any]:
        """Coordinates of fits: document ids, topic numbers, vocabulary words."""
        return {
            "doc": list(self.corpus.doc_ids),
            "topic": np.arange(self.truncation),
            "word": list(self.corpus.vocabulary.words),
        }
