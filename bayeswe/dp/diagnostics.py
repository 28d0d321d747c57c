"""Diagnostics and helpers for HDP-LDA fits of :func:`bayeswe.samplers.hdp_lda.sample_hdp_lda`.

Topics are born, die and switch labels between draws, so convergence is judged on the
label-free scalars only (:func:`summary`). The topic arrays of the ``topics`` group are
for display: :func:`relabel` matches each draw's topics to a reference draw's (Hungarian
assignment on Hellinger distances, ``scipy.optimize.linear_sum_assignment``) so that a
topic index means the same topic across draws, :func:`prune` drops topics that never
hold enough tokens, and :func:`to_lda` gives the fixed-K LDA of one draw's topics.
"""

from __future__ import annotations

from typing import Any

import arviz as az
import numpy as np
import xarray as xr
from scipy.optimize import linear_sum_assignment

from bayeswe.lda.align import topic_distances
from bayeswe.lda.data import LDAData

__all__ = ["LABEL_FREE", "prune", "relabel", "summary", "to_lda"]

#: The label-free scalars of the ``posterior`` group.
LABEL_FREE: tuple[str, ...] = ("n_topics", "n_tables", "alpha0", "gamma", "beta_u")


def _topics(idata: az.InferenceData) -> xr.Dataset:
    if "topics" not in idata.groups():
        raise ValueError("the fit has no 'topics' group (run it with keep_topics=True)")
    return idata["topics"]


def summary(idata: az.InferenceData, **kwargs: Any) -> Any:
    """ArviZ's summary (ESS, R-hat, MCSE) of the label-free scalars and ``lp`` only.

    ``kwargs`` go to :func:`arviz.summary`. Scalars that never change (a fixed
    ``alpha0`` or ``gamma``) are left out.
    """
    post = idata.posterior
    values = {name: post[name] for name in LABEL_FREE if name in post}
    if "sample_stats" in idata.groups() and "lp" in idata.sample_stats:
        values["lp"] = idata.sample_stats["lp"]
    values = {k: v for k, v in values.items() if float(v.max() - v.min()) > 0}
    return az.summary(xr.Dataset(values), **kwargs)


def relabel(
    idata: az.InferenceData, *, reference: tuple[int, int] = (0, -1), metric: str = "hellinger"
) -> xr.Dataset:
    """The ``topics`` group with each draw's topics matched to those of draw ``reference``.

    Topic ``k`` of the result is the reference draw's ``k``-th topic in every draw where
    one was matched to it (``NaN`` / 0 where none was); a draw's unmatched topics (it has
    more than the reference) follow, in their order. For display, never for diagnostics.
    """
    topics = _topics(idata)
    phi = topics["phi"].values
    beta = topics["beta"].values
    tokens = topics["topic_tokens"].values
    ref_phi = phi[reference]
    ref_live = np.flatnonzero(~np.isnan(ref_phi).any(axis=-1))
    n_chain, n_draw, K, _ = phi.shape
    out_phi, out_beta = np.full_like(phi, np.nan), np.full_like(beta, np.nan)
    out_tokens = np.zeros_like(tokens)
    for c in range(n_chain):
        for s in range(n_draw):
            live = np.flatnonzero(~np.isnan(phi[c, s]).any(axis=-1))
            cost = topic_distances(ref_phi[ref_live], phi[c, s, live], metric)
            rows, cols = linear_sum_assignment(cost)
            place = np.full(live.size, -1)
            place[cols] = ref_live[rows]
            spare = iter(k for k in range(K) if k not in set(place) and k not in set(ref_live))
            for j, k in enumerate(live):
                target = place[j] if place[j] >= 0 else next(spare)
                out_phi[c, s, target] = phi[c, s, k]
                out_beta[c, s, target] = beta[c, s, k]
                out_tokens[c, s, target] = tokens[c, s, k]
    return topics.copy(data={"phi": out_phi, "beta": out_beta, "topic_tokens": out_tokens})


def prune(topics: xr.Dataset, *, min_tokens: int = 1) -> xr.Dataset:
    """``topics`` without the topic positions that hold fewer than ``min_tokens`` tokens in
    every draw (dead topics)."""
    alive = (topics["topic_tokens"] >= min_tokens).any(dim=("chain", "draw"))
    return topics.isel(topic=np.flatnonzero(alive.values))


def to_lda(
    idata: az.InferenceData, data: Any, *, chain: int = 0, draw: int = -1
) -> tuple[LDAData, np.ndarray]:
    """The fixed-K LDA of one draw's live topics, and those topics.

    Parameters
    ----------
    idata
        A ``cgs`` fit of HDP-LDA with its ``topics`` group.
    data
        The data it was fitted to (an :class:`~bayeswe.dp.HDPLDAData`).
    chain, draw
        The draw.

    Returns
    -------
    (LDAData, numpy.ndarray)
        The LDA with ``K`` = the draw's topics (at most the data's ``truncation``),
        document prior ``alpha_k = alpha0 beta_k`` and ``beta = eta``; and its topics
        ``phi`` ``(K, V)``, a start or a reference for LDA's samplers.

    Raises
    ------
    ValueError
        The draw has fewer than two topics (LDA needs ``K >= 2``).
    """
    topics = _topics(idata).isel(chain=chain, draw=draw)
    live = np.flatnonzero(topics["topic_tokens"].values > 0)
    if live.size < 2:
        raise ValueError(f"draw ({chain}, {draw}) has {live.size} topic(s); LDA needs 2 or more")
    alpha0 = float(idata.posterior["alpha0"].isel(chain=chain, draw=draw))
    alpha = alpha0 * topics["beta"].values[live]
    lda = LDAData(data.corpus, n_topics=int(live.size), alpha=alpha, beta=data.eta)
    return lda, topics["phi"].values[live]
