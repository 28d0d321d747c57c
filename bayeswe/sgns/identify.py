"""Identification of the SGNS model by fixing ``K`` context vectors (section 2).

The SGNS likelihood depends on the embeddings only through ``alpha @ rho.T``
(Appendix A, eq. (19)), so ``rho -> rho A^{-T}``, ``alpha -> alpha A`` leaves it
unchanged for every invertible ``A`` (eq. (7)). Fixing the ``K`` rows
``alpha[I] = M`` of an invertible ``M`` removes this freedom (Proposition 2), and
:func:`identify_transform` maps any embedding onto that slice without changing the
likelihood (Proposition 1, eq. (8)).

The workflow of section 4.1.1 is :func:`find_anchors` (MAP of the unidentified
model, then choose ``K`` words and take their MAP context vectors as ``M``) followed
by a fit of ``sgns_identified`` (:func:`bayeswe.sgns.fitting.fit_sgns` does both).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayeswe._arviz import az
from bayeswe.options import magnitude_problem
from bayeswe.sgns.errors import IdentificationError

__all__ = [
    "ANCHOR_RULES",
    "Anchors",
    "DEFAULT_ANCHOR_RULE",
    "check_anchors",
    "check_anchors_in_data",
    "choose_anchor_words",
    "identify_draws",
    "identify_transform",
    "word_counts",
]

#: Largest condition number accepted for the fixed ``K x K`` block.
MAX_CONDITION = 1e10

#: Rules for choosing the fixed words (see :func:`choose_anchor_words`).
ANCHOR_RULES: tuple[str, ...] = ("qr", "last", "first", "frequent", "random")

#: Default rule. Not the paper's ``"last"``: with MAP initialization on simulated
#: data (V=20, K=2, N=2e4, 4 chains x 1000 draws) "last" missed R-hat < 1.01 on 4 of
#: 10 datasets, "qr" on none (Notes of :func:`choose_anchor_words`, README).
DEFAULT_ANCHOR_RULE = "qr"


@dataclass(frozen=True, eq=False)
class Anchors:
    """The fixed context words of the identified model and their vectors.

    Attributes
    ----------
    fixed_index
        0-based indices of the ``K`` fixed words (``int64``, distinct).
    fixed_alpha
        ``K x K`` invertible matrix; row ``k`` is the context vector of
        ``fixed_index[k]`` (the paper's ``M``).
    words
        The fixed words (from the vocabulary), for reports.
    """

    fixed_index: NDArray[np.int64]
    fixed_alpha: NDArray[np.float64]
    words: tuple[str, ...] = ()

    @property
    def K(self) -> int:
        """Embedding dimension."""
        return len(self.fixed_index)

    @property
    def condition_number(self) -> float:
        """2-norm condition number of ``fixed_alpha``."""
        return float(np.linalg.cond(self.fixed_alpha))

    def stan_fields(self) -> dict[str, Any]:
        """``fixed_index`` (1-based) and ``fixed_alpha`` for ``sgns_identified.stan``."""
        return {
            "fixed_index": (self.fixed_index + 1).astype(np.int64),
            "fixed_alpha": np.array(self.fixed_alpha, dtype=np.float64),
        }


def check_anchors(
    fixed_index: ArrayLike, fixed_alpha: ArrayLike, *, V: int, K: int | None = None
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Validate fixed words and their matrix.

    Parameters
    ----------
    fixed_index
        0-based word indices.
    fixed_alpha
        Their context vectors as rows of a square matrix.
    V
        Vocabulary size.
    K
        Expected embedding dimension (default: ``len(fixed_index)``).

    Returns
    -------
    (index, matrix)
        ``int64`` indices and a ``float64`` matrix (copies).

    Raises
    ------
    IdentificationError
        Not ``K`` distinct indices in ``[0, V)``, a matrix that is not ``K x K``
        or not finite, or a condition number above :data:`MAX_CONDITION`
        (Proposition 1 requires ``M`` invertible).
    """
    index = np.asarray(fixed_index)
    if index.ndim != 1 or index.size == 0 or index.dtype.kind not in "iu":
        raise IdentificationError(
            f"fixed_index must be a non-empty 1-d array of integers, got {index!r}"
        )
    index = index.astype(np.int64)
    K = len(index) if K is None else int(K)
    if len(index) != K:
        raise IdentificationError(f"need K={K} fixed words, got {len(index)}")
    if K >= V:
        raise IdentificationError(
            f"K={K} fixed context words leave no free word: need K < V, got V={V}"
        )
    if index.min() < 0 or index.max() >= V:
        raise IdentificationError(f"fixed_index must lie in [0, {V}) (0-based), got {index}")
    if len(np.unique(index)) != K:
        raise IdentificationError(f"fixed_index holds a word twice: {index}")
    matrix = np.array(fixed_alpha, dtype=np.float64)
    if matrix.shape != (K, K):
        raise IdentificationError(f"fixed_alpha must be {K} x {K}, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise IdentificationError("fixed_alpha holds non-finite values")
    largest = float(np.abs(matrix).max())
    # the condition number is scale-free: 1e200 * I passes it, and overflows the model
    problem = magnitude_problem("the largest |entry| of fixed_alpha", largest) if largest else None
    if problem is not None:
        raise IdentificationError(problem)
    cond = np.linalg.cond(matrix)
    if not cond < MAX_CONDITION:
        raise IdentificationError(
            f"fixed_alpha is singular or ill-conditioned (condition number {cond:.3g} >= "
            f"{MAX_CONDITION:.0e}); choose other fixed words (e.g. anchor_words='qr')"
        )
    return index, matrix


def check_anchors_in_data(data: Any, fixed_index: ArrayLike) -> None:
    """Raise unless every fixed word occurs as a context word in ``data``.

    A context word without observations has no likelihood term: its MAP context
    vector is the prior mode ``0`` and nothing in the data pins the directions
    that fixing it is meant to pin.

    Raises
    ------
    IdentificationError
        Some fixed word has no observation as a context word; the message names it.
    """
    index = np.asarray(fixed_index, dtype=np.int64)
    seen = np.bincount(np.asarray(data.context), weights=np.asarray(data.n), minlength=data.V)
    absent = [int(i) for i in index if seen[i] == 0]
    if absent:
        words = ", ".join(repr(data.vocabulary[i]) for i in absent)
        raise IdentificationError(
            f"fixed word(s) {words} absent from the data (no observation as a context word); "
            "their context vectors cannot identify the model"
        )


def word_counts(data: Any) -> NDArray[np.int64]:
    """Observations of each word as target plus as context (``int64[V]``)."""
    n = np.asarray(data.n)
    counts = np.bincount(np.asarray(data.target), weights=n, minlength=data.V)
    counts += np.bincount(np.asarray(data.context), weights=n, minlength=data.V)
    return counts.astype(np.int64)


def identify_transform(
    rho: ArrayLike, alpha: ArrayLike, fixed_index: ArrayLike, fixed_alpha: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Map embeddings onto the identified slice ``alpha[I] = M`` (Proposition 1, eq. (8)).

    With ``A = alpha[I]^{-1} M``, returns ``rho A^{-T}`` and ``alpha A``: the product
    ``alpha @ rho.T``, hence the likelihood for every dataset (eq. (9)), is unchanged,
    and the rows ``fixed_index`` of the new ``alpha`` equal ``M`` (set exactly).

    Parameters
    ----------
    rho, alpha
        Arrays of shape ``(..., V, K)``, e.g. ``(chain, draw, V, K)`` posterior draws;
        each leading index is transformed with its own ``A``.
    fixed_index
        0-based indices of the ``K`` fixed words.
    fixed_alpha
        ``M``, ``K x K``, invertible.

    Returns
    -------
    (rho_identified, alpha_identified)
        Same shapes as the input.

    Raises
    ------
    IdentificationError
        Bad anchors (see :func:`check_anchors`), or ``alpha[fixed_index]`` singular
        in some draw (that draw cannot be mapped).

    Notes
    -----
    Applied to draws of the *unidentified* posterior this gives draws of the
    pushforward of that posterior, which is not the posterior of the identified
    model: the prior of eq. (6) is not invariant under ``GL(K)``. Use it to compare
    point estimates or to inspect symmetries, and fit ``sgns_identified`` for
    identified posterior inference.
    """
    rho = np.asarray(rho, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    if rho.ndim < 2 or rho.shape != alpha.shape:
        raise IdentificationError(
            f"rho and alpha must have the same shape (..., V, K); got {rho.shape} and {alpha.shape}"
        )
    V, K = rho.shape[-2:]
    index, M = check_anchors(fixed_index, fixed_alpha, V=V, K=K)
    alpha_fixed = alpha[..., index, :]  # (..., K, K)
    cond = np.linalg.cond(alpha_fixed)
    if not np.all(cond < MAX_CONDITION):
        raise IdentificationError(
            f"alpha[fixed_index] is singular or nearly so (largest condition number "
            f"{np.max(cond):.3g}); these words cannot serve as anchors for these embeddings"
        )
    A = np.linalg.solve(alpha_fixed, M)  # alpha_I^{-1} M
    alpha_new = alpha @ A
    # rho A^{-T} = (A^{-1} rho^T)^T, solved rather than inverted.
    rho_new = np.swapaxes(np.linalg.solve(A, np.swapaxes(rho, -1, -2)), -1, -2)
    alpha_new[..., index, :] = M
    return rho_new, alpha_new


def choose_anchor_words(
    alpha: ArrayLike,
    K: int | None = None,
    rule: str | Sequence[int] = DEFAULT_ANCHOR_RULE,
    *,
    counts: ArrayLike | None = None,
    seed: int | None = None,
) -> NDArray[np.int64]:
    """Pick the ``K`` words whose context vectors will be fixed.

    Parameters
    ----------
    alpha
        A ``V x K`` context matrix (typically the MAP estimate).
    K
        Embedding dimension (default ``alpha.shape[1]``).
    rule
        ``"qr"`` (default): the rows chosen by a column-pivoted QR decomposition of
        ``alpha.T``, which greedily maximizes the volume of the fixed block and so
        keeps it well conditioned; ``"last"``: the last ``K`` words (the paper's
        choice, section 4.1.1); ``"first"``: the first ``K``; ``"frequent"``: the
        ``K`` words with the largest ``counts`` (ties: lower index first);
        ``"random"``: ``K`` distinct words drawn uniformly with ``seed``; or
        explicit 0-based indices.
    counts
        Observations per word, needed by ``"frequent"`` (see :func:`word_counts`).
    seed
        Seed of ``"random"``.

    Notes
    -----
    Proposition 2 holds for any invertible block, but the block is what pins the
    remaining directions of the posterior, and a nearly singular one pins them
    weakly. From random starts this shows as chains in different modes (V=20,
    K=2, N=5000: last two words, condition number 5.8, R-hat 1.7; ``"qr"`` words,
    condition number 1.2, R-hat 1.00). It also shows with the default start at
    the MAP (:func:`~bayeswe.sgns.fitting.fit_sgns`): on ten simulated datasets with
    V=20, K=2, N=2e4 (seeds 1-10, 4 chains x 1000 draws) ``"last"`` (condition
    numbers 1.2-29) gave R-hat >= 1.01 on four (worst 1.020) and median bulk ESS
    930-2900 of 4000, ``"qr"`` (1.1-2.9) R-hat < 1.008 on all ten and median ESS
    2800-4300. So ``"qr"``, not the paper's ``"last"``, is the default.

    Returns
    -------
    numpy.ndarray
        0-based ``int64`` indices.

    Raises
    ------
    IdentificationError
        Unknown rule, ``K >= V``, or ``"frequent"`` without ``counts``.
    """
    a = np.asarray(alpha, dtype=np.float64)
    if a.ndim != 2:
        raise IdentificationError(f"alpha must be a V x K matrix, got shape {a.shape}")
    V, k_cols = a.shape
    K = k_cols if K is None else int(K)
    if K >= V:
        raise IdentificationError(
            f"cannot fix K={K} context words of a vocabulary of V={V}: need K < V"
        )
    if isinstance(rule, str):
        if rule == "last":
            return np.arange(V - K, V, dtype=np.int64)
        if rule == "first":
            return np.arange(K, dtype=np.int64)
        if rule == "qr":
            from scipy.linalg import qr

            _, _, pivots = qr(a.T, pivoting=True, mode="economic")
            return np.sort(pivots[:K]).astype(np.int64)
        if rule == "frequent":
            if counts is None:
                raise IdentificationError("anchor rule 'frequent' needs the word counts")
            c = np.asarray(counts)
            if c.shape != (V,):
                raise IdentificationError(f"counts must have shape ({V},), got {c.shape}")
            return np.sort(np.argsort(-c, kind="stable")[:K]).astype(np.int64)
        if rule == "random":
            rng = np.random.default_rng(seed)
            return np.sort(rng.choice(V, size=K, replace=False)).astype(np.int64)
        raise IdentificationError(
            f"anchor rule must be one of {ANCHOR_RULES} or a sequence of indices, got {rule!r}"
        )
    index = np.asarray(rule)
    if index.dtype.kind not in "iu":
        raise IdentificationError(f"explicit anchor words must be integer indices, got {rule!r}")
    return index.astype(np.int64)


def identify_draws(idata: az.InferenceData, anchors: Anchors) -> az.InferenceData:
    """Apply :func:`identify_transform` to every draw of ``rho`` and ``alpha`` in ``idata``.

    Returns a copy whose ``posterior`` holds the transformed ``rho`` and ``alpha``
    (other variables dropped) and whose ``attrs`` record the fixed words. See the
    Notes of :func:`identify_transform` for what the result is and is not.
    """
    post = idata.posterior
    rho, alpha = identify_transform(
        post["rho"].values, post["alpha"].values, anchors.fixed_index, anchors.fixed_alpha
    )
    new = post[["rho", "alpha"]].copy()
    new["rho"] = (post["rho"].dims, rho)
    new["alpha"] = (post["alpha"].dims, alpha)
    new.attrs = {
        **post.attrs,
        "identified_post_hoc": 1,
        "fixed_words": ",".join(anchors.words),
    }
    out = idata.copy()
    out.posterior = new
    return out
