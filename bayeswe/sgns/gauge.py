"""Gauges: one canonical embedding per draw of the unidentified SGNS posterior.

The likelihood depends on ``rho`` and ``alpha`` only through ``Theta = rho @ alpha.T``
(eq. (19)), so every ``(rho A^-T, alpha A)`` with invertible ``A`` explains the data
equally well (eq. (7)). Co-occurrence probabilities ``sigmoid(Theta)`` do not depend
on ``A``; cosine similarities and nearest neighbours do, so they need a convention,
a *gauge*, fixing ``A`` for each draw. Fixing it *after* sampling the unidentified
model (``fit_sgns(identification="posthoc")``) keeps that model's posterior of
``Theta`` intact; fixing ``K`` context vectors *before* sampling
(``identification="anchors"``) conditions on them and changes it.

Two gauges, both functions of ``Theta`` alone (so of nothing the sampler's wandering
along the orbit can change):

* ``"svd"`` (default): with ``Theta = U S W^T``, ``rho = U S^1/2`` and
  ``alpha = W S^1/2``, the *balanced* factorization (``rho^T rho = alpha^T alpha =
  S``). It singles out no word and inverts nothing; target-vector cosines are those
  of the rows of ``(Theta Theta^T)^1/2``. Columns are ordered by singular value and
  signed so that each column of ``rho`` sums to a non-negative number; a column's
  sign and, where two singular values are close, the order of columns can still
  change between draws, so single coordinates are for display, while cosines,
  norms and neighbour sets are well defined.
* ``"anchors"``: Proposition 1's transform onto ``alpha[I] = I`` for ``K`` chosen
  words ``I``: ``rho_w`` becomes ``(Theta[w, i])_{i in I}``, the logits of ``w`` with
  the anchors. It needs ``alpha[I]`` invertible in every draw, and cosines inherit
  its conditioning (:func:`anchor_condition`).

Both cost ``O(V K^2)`` per draw (QR of ``rho`` and ``alpha``, an SVD of ``K x K``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayeswe._arviz import az
from bayeswe.sgns.errors import IdentificationError

__all__ = ["GAUGES", "anchor_condition", "anchor_gauge", "gauge_draws", "svd_gauge", "to_gauge"]

#: Names of the gauges (see the module docstring).
GAUGES: tuple[str, ...] = ("svd", "anchors")


def _pair(rho: ArrayLike, alpha: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r = np.asarray(rho, dtype=np.float64)
    a = np.asarray(alpha, dtype=np.float64)
    if r.ndim < 2 or r.shape != a.shape:
        raise IdentificationError(
            f"rho and alpha must have the same shape (..., V, K); got {r.shape} and {a.shape}"
        )
    if not (np.isfinite(r).all() and np.isfinite(a).all()):
        raise IdentificationError("rho or alpha holds NaN or infinite values")
    return r, a


def svd_gauge(rho: ArrayLike, alpha: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The balanced factorization of ``rho @ alpha.T`` for every leading index.

    Parameters
    ----------
    rho, alpha
        Arrays of shape ``(..., V, K)`` with ``V >= K``.

    Returns
    -------
    (rho_gauge, alpha_gauge)
        Same shapes; ``rho_gauge @ alpha_gauge.T`` equals ``rho @ alpha.T`` up to
        rounding, and ``rho_gauge.T @ rho_gauge = alpha_gauge.T @ alpha_gauge`` is
        diagonal with decreasing entries.
    """
    r, a = _pair(rho, alpha)
    V, K = r.shape[-2:]
    if K > V:
        raise IdentificationError(f"the svd gauge needs V >= K, got V={V}, K={K}")
    q_r, r_r = np.linalg.qr(r)
    q_a, r_a = np.linalg.qr(a)
    u, s, wt = np.linalg.svd(r_r @ np.swapaxes(r_a, -1, -2))
    root = np.sqrt(s)[..., None, :]
    rho_g = q_r @ u * root
    alpha_g = q_a @ np.swapaxes(wt, -1, -2) * root
    sign = np.where(rho_g.sum(axis=-2, keepdims=True) < 0, -1.0, 1.0)
    return rho_g * sign, alpha_g * sign


def anchor_gauge(
    rho: ArrayLike, alpha: ArrayLike, fixed_index: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Proposition 1's transform onto ``alpha[fixed_index] = I`` for every leading index.

    Raises
    ------
    IdentificationError
        ``alpha[fixed_index]`` singular (or nearly so) in some draw.
    """
    from bayeswe.sgns.identify import identify_transform

    r, a = _pair(rho, alpha)
    K = r.shape[-1]
    return identify_transform(r, a, fixed_index, np.eye(K))


def anchor_condition(alpha: ArrayLike, fixed_index: ArrayLike) -> NDArray[np.float64]:
    """Condition number of ``alpha[fixed_index]`` in every draw (the anchor gauge's)."""
    a = np.asarray(alpha, dtype=np.float64)
    return np.linalg.cond(a[..., np.asarray(fixed_index, dtype=np.int64), :])


def gauge_draws(
    rho: ArrayLike,
    alpha: ArrayLike,
    gauge: str = "svd",
    *,
    fixed_index: ArrayLike | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``rho`` and ``alpha`` in ``gauge`` (``"svd"``, or ``"anchors"`` with ``fixed_index``)."""
    if gauge == "svd":
        return svd_gauge(rho, alpha)
    if gauge == "anchors":
        if fixed_index is None:
            raise IdentificationError("the anchors gauge needs fixed_index (the K anchor words)")
        return anchor_gauge(rho, alpha, fixed_index)
    raise ValueError(f"gauge must be one of {GAUGES}, got {gauge!r}")


def to_gauge(
    idata: az.InferenceData,
    gauge: str = "svd",
    *,
    anchor_words: Sequence[int] | Sequence[str] | None = None,
) -> az.InferenceData:
    """A copy of ``idata`` whose ``rho`` and ``alpha`` draws are mapped onto ``gauge``.

    Other posterior variables and groups are kept, but for ``alpha_free`` (the free rows
    of an anchored fit, in that fit's frame), which is dropped. ``attrs["gauge"]``
    records the gauge (and ``attrs["gauge_words"]`` the anchor words of ``"anchors"``).

    Parameters
    ----------
    idata
        A fit of the unidentified ``sgns`` (or any fit with ``rho`` and ``alpha``).
    gauge
        ``"svd"`` or ``"anchors"``.
    anchor_words
        The ``K`` anchor words of ``"anchors"``, as words or 0-based indices.
    """
    post = idata.posterior
    index: Any = None
    words = ""
    if gauge == "anchors":
        if anchor_words is None:
            raise IdentificationError("gauge='anchors' needs anchor_words")
        vocab = [str(w) for w in post["rho"].coords[post["rho"].dims[2]].values]
        items = list(anchor_words)
        if items and all(isinstance(w, str) for w in items):
            missing = [w for w in items if w not in vocab]
            if missing:
                raise IdentificationError(f"anchor word(s) {missing} not in the vocabulary")
            index = np.array([vocab.index(w) for w in items], dtype=np.int64)
        else:
            index = np.asarray(items, dtype=np.int64)
        words = ",".join(vocab[i] for i in index)
    rho, alpha = gauge_draws(post["rho"].values, post["alpha"].values, gauge, fixed_index=index)
    new = post.drop_vars([v for v in ("alpha_free",) if v in post])
    new["rho"] = (post["rho"].dims, rho)
    new["alpha"] = (post["alpha"].dims, alpha)
    out = idata.copy()
    out.posterior = new
    for attrs in (out.attrs, out.posterior.attrs):
        attrs["gauge"] = gauge
        if words:
            attrs["gauge_words"] = words
    return out
