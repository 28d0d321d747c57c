"""Diagnostics and helpers for HDP-LDA fits of :func:`bayeswe.samplers.hdp_lda.sample_hdp_lda`.

Topics are born, die and switch labels between draws, so convergence is judged on the
label-free scalars only (:func:`summary`). The topic arrays of the ``topics`` group are
for display: :func:`relabel` matches each draw's topics to a reference draw's (Hungarian
assignment on Hellinger distances, ``scipy.optimize.linear_sum_assignment``) so that a
topic index means the same topic across draws, :func:`prune` drops topics that never
hold enough tokens, and :func:`to_lda` gives the fixed-K LDA of one draw's topics.
:func:`complete` infers new documents' topic proportions (over several draws, not one)
and scores their held-out words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr
from scipy.optimize import linear_sum_assignment

from bayeswe._arviz import az
from bayeswe.corpus import BagOfWords
from bayeswe.lda.align import topic_distances
from bayeswe.lda.data import LDAData

__all__ = [
    "LABEL_FREE",
    "Completion",
    "complete",
    "complete_topics",
    "fit_topics",
    "prune",
    "relabel",
    "summary",
    "to_lda",
]

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


@dataclass(frozen=True)
class Completion:
    """Held-out document completion over several posterior draws."""

    #: ``(n_draws, D, K + 1)``: ``E[theta_d | observed half, draw]`` per draw, over the
    #: draw's shown topics (largest first, ``NaN``-padded) and, last, all other topics.
    theta: np.ndarray
    #: ``(n_draws,)``: mean log predictive per held-out token under each draw.
    per_draw: np.ndarray
    #: Mean over held-out tokens of the log of the predictive averaged over the draws.
    log_predictive: float


def _check_halves(observed: BagOfWords, heldout: BagOfWords, n_words: int) -> None:
    if observed.n_docs != heldout.n_docs or observed.n_words != heldout.n_words:
        raise ValueError("observed and heldout must hold the same documents and vocabulary")
    if observed.n_words != n_words:
        raise ValueError("the documents' vocabulary is not the fit's")
    if (observed.doc_lengths == 0).any():
        raise ValueError("every observed document needs at least one word")


def complete_topics(
    topics: Sequence[tuple[np.ndarray, np.ndarray]],
    observed: BagOfWords,
    heldout: BagOfWords,
    *,
    seed: int = 0,
    iter_warmup: int = 20,
    iter_sampling: int = 50,
) -> Completion:
    """Document completion under given topics: the evaluator of :func:`complete`, for any
    model that can be reduced to topic-word distributions and a document prior.

    Parameters
    ----------
    topics
        One ``(phi, alpha)`` pair per posterior draw (or one for a point estimate):
        ``phi`` ``(K, V)`` rows of word probabilities, ``alpha`` ``(K,)`` the positive
        Dirichlet parameter of a document's topic proportions over those ``K`` topics.
        ``K`` may differ between draws.
    observed, heldout
        The two halves of the same new documents, on the topics' vocabulary.
    seed, iter_warmup, iter_sampling
        Draw ``i`` estimates ``theta_d`` by :func:`bayeswe.kernels.lda_cgs.fold_in`
        (``iter_warmup`` sweeps, then ``iter_sampling`` averaged) on the stream
        :func:`bayeswe.samplers.lda_cgs.chain_stream` ``(seed, i)``.

    Returns
    -------
    Completion
        ``theta`` ``(n_draws, D, max K)`` (``NaN`` past a draw's ``K``); ``per_draw``;
        ``log_predictive``: the mean over held-out tokens of ``log`` of the predictive
        ``sum_k theta_dk phi_kw`` averaged over the draws. The same ``topics``, halves
        and settings give the same numbers, whichever sampler the topics came from.

    Raises
    ------
    ValueError
        No draws, a ``phi`` and ``alpha`` that do not match, non-finite or non-positive
        values, or halves as :func:`complete` rejects.
    """
    from bayeswe.kernels.lda_cgs import fold_in
    from bayeswe.samplers.lda_cgs import chain_stream

    if len(topics) == 0:
        raise ValueError("complete_topics needs at least one (phi, alpha) draw")
    V = observed.n_words
    _check_halves(observed, heldout, V)
    _, word = observed.tokens()
    word = word.astype(np.int32)
    tok_ptr = np.concatenate([[0], np.cumsum(observed.doc_lengths)]).astype(np.int64)
    _, h_word = heldout.tokens()
    h_doc = np.repeat(np.arange(heldout.n_docs), heldout.doc_lengths)
    thetas, probs = [], []
    for i, (phi, alpha) in enumerate(topics):
        phi = np.asarray(phi, dtype=np.float64)
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        if phi.ndim != 2 or phi.shape[1] != V or alpha.shape != (phi.shape[0],):
            raise ValueError(
                f"draw {i}: phi must be (K, {V}) and alpha (K,), got {phi.shape} and {alpha.shape}"
            )
        if not (np.isfinite(phi).all() and (phi >= 0).all() and (alpha > 0).all()):
            raise ValueError(f"draw {i}: phi must be finite and >= 0, alpha > 0")
        phi_wk = np.ascontiguousarray(phi.T)
        theta = fold_in(
            tok_ptr, word, phi_wk, alpha, iter_warmup, iter_sampling, chain_stream(seed, i)
        )
        probs.append((theta[h_doc] * phi_wk[h_word]).sum(axis=1))
        thetas.append(theta)
    K = max(t.shape[1] for t in thetas)
    theta_all = np.full((len(thetas), observed.n_docs, K), np.nan)
    for i, t in enumerate(thetas):
        theta_all[i, :, : t.shape[1]] = t
    p = np.array(probs)
    return Completion(
        theta=theta_all,
        per_draw=np.log(p).mean(axis=1),
        log_predictive=float(np.log(p.mean(axis=0)).mean()),
    )


def fit_topics(idata: az.InferenceData, *, draws: int = 20) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(phi, alpha)`` pairs :func:`complete` scores: ``draws`` draws of a fit,
    spread evenly over its chains and draws, each its shown topics plus one for all
    other topics (uniform words, the predictive of a topic no token holds) with document
    prior ``alpha0 (beta_1, ..., beta_K, 1 - sum beta)``."""
    topics = _topics(idata)
    n_chain, n_draw = topics.sizes["chain"], topics.sizes["draw"]
    picks = np.linspace(0, n_chain * n_draw - 1, min(draws, n_chain * n_draw)).astype(int)
    V = topics.sizes["word"]
    out = []
    for flat in picks:
        c, s = divmod(int(flat), n_draw)
        phi = topics["phi"].values[c, s]
        live = ~np.isnan(phi).any(axis=-1)
        beta = topics["beta"].values[c, s][live]
        alpha0 = float(idata.posterior["alpha0"].values[c, s])
        out.append(
            (
                np.vstack([phi[live], np.full(V, 1.0 / V)]),
                alpha0 * np.append(beta, max(1.0 - beta.sum(), 1e-12)),
            )
        )
    return out


def complete(
    idata: az.InferenceData,
    observed: BagOfWords,
    heldout: BagOfWords,
    *,
    draws: int = 20,
    seed: int = 0,
    iter_warmup: int = 20,
    iter_sampling: int = 50,
) -> Completion:
    """Document completion: topic proportions of new documents from their ``observed``
    words, and the predictive of their ``heldout`` words, over ``draws`` posterior draws.

    For each draw (spread evenly over the chains and draws of the fit), the draw's topics
    (``phi`` of the ``topics`` group) plus one for all other topics (uniform words, the
    predictive of a topic no token holds) are fixed, the document prior is
    ``alpha0 (beta_1, ..., beta_K, 1 - sum beta)`` (:func:`fit_topics`) and ``theta_d``
    is estimated by Gibbs sampling of the observed tokens' topics
    (:func:`bayeswe.kernels.lda_cgs.fold_in`, through :func:`complete_topics`, the
    evaluator that scores any model's topics the same way). The held-out token ``w`` of
    document ``d`` has predictive ``sum_k theta_dk phi_kw``.

    Raises
    ------
    ValueError
        ``observed`` and ``heldout`` differ in documents or vocabulary, or an observed
        document is empty.
    """
    topics = _topics(idata)
    _check_halves(observed, heldout, topics.sizes["word"])
    pairs = fit_topics(idata, draws=draws)
    out = complete_topics(
        pairs, observed, heldout, seed=seed, iter_warmup=iter_warmup, iter_sampling=iter_sampling
    )
    # back to the layout of the fit's topic positions, the other topics last
    n_chain, n_draw = topics.sizes["chain"], topics.sizes["draw"]
    picks = np.linspace(0, n_chain * n_draw - 1, min(draws, n_chain * n_draw)).astype(int)
    thetas = []
    for i, flat in enumerate(picks):
        c, s = divmod(int(flat), n_draw)
        live = ~np.isnan(topics["phi"].values[c, s]).any(axis=-1)
        full = np.full((observed.n_docs, topics.sizes["topic"] + 1), np.nan)
        full[:, np.append(np.flatnonzero(live), -1)] = out.theta[i, :, : live.sum() + 1]
        thetas.append(full)
    return Completion(
        theta=np.array(thetas), per_draw=out.per_draw, log_predictive=out.log_predictive
    )
