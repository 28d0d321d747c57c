"""Label switching: match the topics of one fit (or chain) to another.

The LDA posterior is invariant under permutations of the topic labels, so two
chains (or two fits) that found the same topics number them differently. Topics
are matched by minimizing the total distance between the topic-word distributions
``phi`` with the Hungarian algorithm (``scipy.optimize.linear_sum_assignment``).

Within one collapsed Gibbs chain labels practically never switch once the chain
has settled (a switch needs all tokens of two topics to trade places); across
chains they must be aligned before comparing or pooling them. R-hat on aligned
``phi`` then says whether the chains found the same mode, not whether the whole
multimodal posterior has been explored.
"""

from __future__ import annotations

import json

import numpy as np
from scipy.optimize import linear_sum_assignment

from bayeswe._arviz import az
from bayeswe.errors import BayesweError

__all__ = ["AlignmentError", "align_chains", "align_topics", "topic_distances"]

_METRICS = ("hellinger", "jensen-shannon")


class AlignmentError(BayesweError, ValueError):
    """Topic matrices cannot be aligned (shapes differ, not distributions, bad reference)."""


def _as_phi(name: str, phi: np.ndarray) -> np.ndarray:
    phi = np.asarray(phi, dtype=np.float64)
    if phi.ndim != 2 or phi.shape[0] < 1:
        raise AlignmentError(f"{name} must be a (topic, word) matrix, got shape {phi.shape}")
    if (phi < 0).any() or not np.isfinite(phi).all():
        raise AlignmentError(f"{name} must hold finite non-negative probabilities")
    return phi / phi.sum(axis=1, keepdims=True)


def topic_distances(a: np.ndarray, b: np.ndarray, metric: str = "hellinger") -> np.ndarray:
    """Distances between the rows of two ``(K, V)`` topic matrices, ``(K_a, K_b)``.

    ``hellinger``: ``sqrt(1 - sum_w sqrt(a_w b_w))`` (in [0, 1]);
    ``jensen-shannon``: square root of the JS divergence in bits (in [0, 1]).
    """
    a = _as_phi("a", a)
    b = _as_phi("b", b)
    if a.shape[1] != b.shape[1]:
        raise AlignmentError(f"topics over {a.shape[1]} and {b.shape[1]} words cannot be matched")
    if metric == "hellinger":
        bc = np.sqrt(a) @ np.sqrt(b).T
        return np.sqrt(np.clip(1.0 - bc, 0.0, None))
    if metric == "jensen-shannon":

        def plogp(x: np.ndarray) -> np.ndarray:
            return np.where(x > 0, x * np.log2(np.where(x > 0, x, 1.0)), 0.0)

        out = np.empty((a.shape[0], b.shape[0]))
        for i in range(a.shape[0]):
            m = 0.5 * (a[i] + b)
            js = 0.5 * (plogp(a[i]).sum() + plogp(b).sum(axis=1)) - plogp(m).sum(axis=1)
            out[i] = np.sqrt(np.clip(js, 0.0, None))
        return out
    raise AlignmentError(f"metric must be one of {', '.join(_METRICS)}, got {metric!r}")


def align_topics(
    reference_phi: np.ndarray, phi: np.ndarray, *, metric: str = "hellinger"
) -> np.ndarray:
    """The permutation of ``phi``'s topics that best matches ``reference_phi``.

    Parameters
    ----------
    reference_phi, phi
        ``(K, V)`` topic-word distributions (rows are normalized here).
    metric
        ``"hellinger"`` or ``"jensen-shannon"``.

    Returns
    -------
    numpy.ndarray
        ``perm`` (int64, ``(K,)``) such that ``phi[perm]`` is aligned with
        ``reference_phi``: topic ``perm[k]`` of ``phi`` is matched to reference
        topic ``k``, minimizing the summed distance.
    """
    ref = _as_phi("reference_phi", reference_phi)
    cur = _as_phi("phi", phi)
    if ref.shape != cur.shape:
        raise AlignmentError(f"reference_phi {ref.shape} and phi {cur.shape} differ in shape")
    cost = topic_distances(ref, cur, metric)
    rows, cols = linear_sum_assignment(cost)
    perm = np.empty(ref.shape[0], dtype=np.int64)
    perm[rows] = cols
    return perm


def align_chains(
    idata: az.InferenceData,
    reference: int | np.ndarray | az.InferenceData = 0,
    *,
    metric: str = "hellinger",
) -> az.InferenceData:
    """Permute the topics of every chain to match a reference.

    Each chain's posterior-mean ``phi`` is matched to the reference (Hungarian
    matching, :func:`align_topics`); the same permutation is applied to all its
    draws of every posterior variable with a ``topic`` dim (``phi``, ``theta``).

    Parameters
    ----------
    idata
        A fit with ``posterior.phi`` of dims ``(chain, draw, topic, word)``.
    reference
        A chain index of ``idata`` (default 0), a ``(K, V)`` matrix, or another
        fit (whose posterior-mean ``phi`` over all chains and draws is used).
    metric
        ``"hellinger"`` or ``"jensen-shannon"``.

    Returns
    -------
    arviz.InferenceData
        A copy with aligned posterior variables; ``posterior.attrs["topic_permutation"]``
        holds, as JSON, the permutation applied to each chain.
    """
    if "posterior" not in idata.groups() or "phi" not in idata.posterior:
        raise AlignmentError("align_chains needs a fit with posterior.phi")
    phi = idata.posterior["phi"]
    if phi.dims[:3] != ("chain", "draw", "topic"):
        raise AlignmentError(
            f"posterior.phi must have dims (chain, draw, topic, word), got {phi.dims}"
        )
    chain_means = phi.mean("draw").values  # (C, K, V)
    if isinstance(reference, az.InferenceData):
        if "posterior" not in reference.groups() or "phi" not in reference.posterior:
            raise AlignmentError("the reference fit has no posterior.phi")
        ref = reference.posterior["phi"].mean(("chain", "draw")).values
    elif isinstance(reference, (int, np.integer)) and not isinstance(reference, bool):
        if not 0 <= reference < chain_means.shape[0]:
            raise AlignmentError(
                f"reference chain {reference} out of range [0, {chain_means.shape[0]})"
            )
        ref = chain_means[int(reference)]
    else:
        ref = np.asarray(reference)
    perms = [align_topics(ref, chain_means[c], metric=metric) for c in range(len(chain_means))]
    out = idata.copy()
    post = out.posterior
    for name, var in post.data_vars.items():
        if "topic" not in var.dims:
            continue
        axis = var.dims.index("topic")
        values = var.values.copy()
        for c, perm in enumerate(perms):
            values[c] = np.take(values[c], perm, axis=axis - 1)
        post[name] = (var.dims, values)
    post.attrs["topic_permutation"] = json.dumps([p.tolist() for p in perms])
    return out
