"""Evaluating topic models: held-out log predictive, coherence, top words.

Held-out log predictive probability by document completion
-----------------------------------------------------------
The estimator of the 002 seed (Naidu 2021, section 6.1, after Hoffman et al.
2013): each held-out document's tokens are split into observed tokens
``w_obs`` and held-out tokens ``w_ho``; the score is the average over held-out
tokens of::

    log p(w_ho | w_obs, D) = log ∫∫ (sum_k theta_k phi_{k, w_ho})
                                 p(theta | w_obs, phi) p(phi | D) dtheta dphi

The outer integral is a Monte Carlo average over posterior draws of ``phi``; for
each draw, ``E[theta | w_obs, phi]`` is estimated by a short Gibbs run on the
observed tokens with ``phi`` fixed (:func:`bayeswe.kernels.lda_cgs.fold_in`), so
the predictive probability of a held-out token is
``mean_s sum_k E[theta_k | w_obs, phi_s] phi_{s, k, w}``. A single draw (or a
point estimate of ``phi``) gives the seed's plug-in formula
``sum_k E[theta_k] E[phi_{k, w}]``.

Topic coherence
---------------
From document co-occurrence counts ``D(w)``, ``D(w, w')`` in a reference corpus,
over the ``top_n`` most probable words of each topic (Mimno et al. 2011 for
UMass; Bouma 2009 / Röder et al. 2015 for NPMI), averaged over word pairs:

* UMass: ``log((D(w_m, w_l) + 1) / D(w_l))`` for ``l < m`` (``w_l`` ranked higher);
* NPMI: ``log(P(w, w') / (P(w) P(w'))) / -log P(w, w')`` with document
  frequencies as probabilities, and -1 for pairs that never co-occur.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from bayeswe._arviz import az
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.errors import BayesweError
from bayeswe.kernels import lda_cgs as kern
from bayeswe.options import check_float, check_int, rename_deprecated

__all__ = [
    "EvaluationError",
    "HeldOutScore",
    "coherence",
    "heldout_log_predictive",
    "split_documents",
    "top_words",
]


class EvaluationError(BayesweError, ValueError):
    """Evaluation inputs disagree (vocabulary sizes, shapes) or are out of range."""


def _phi_draws(phi: np.ndarray | az.InferenceData, max_draws: int | None = None) -> np.ndarray:
    """``(S, K, V)`` float64 draws of phi from a fit, a ``(K, V)`` or an ``(S, K, V)`` array."""
    if isinstance(phi, az.InferenceData):
        if "posterior" not in phi.groups() or "phi" not in phi.posterior:
            raise EvaluationError("the fit has no posterior.phi")
        arr = phi.posterior["phi"].transpose("chain", "draw", "topic", "word").values
        arr = arr.reshape(-1, *arr.shape[2:])
    else:
        arr = np.asarray(phi, dtype=np.float64)
        if arr.ndim == 2:
            arr = arr[None]
    if arr.ndim != 3:
        raise EvaluationError(f"phi must be (topic, word) or (draw, topic, word), got {arr.shape}")
    if (arr < 0).any() or not np.isfinite(arr).all():
        raise EvaluationError("phi must hold finite non-negative probabilities")
    if max_draws is not None and arr.shape[0] > max_draws:
        # evenly spaced draws: a thinned sample of the posterior
        arr = arr[np.linspace(0, arr.shape[0] - 1, max_draws).round().astype(int)]
    return arr / arr.sum(axis=2, keepdims=True)


def _mean_phi(phi: np.ndarray | az.InferenceData) -> np.ndarray:
    return _phi_draws(phi).mean(axis=0)


def _fit_words(phi: np.ndarray | az.InferenceData) -> tuple[str, ...] | None:
    """The word labels of a fit's ``phi`` (its ``word`` coordinate), or None if it has none.

    Integer coordinates (a fit made without a vocabulary) are positions, not labels.
    """
    if not isinstance(phi, az.InferenceData) or "posterior" not in phi.groups():
        return None
    if "phi" not in phi.posterior or "word" not in phi.posterior["phi"].coords:
        return None
    values = phi.posterior["phi"].coords["word"].values
    if values.dtype.kind not in "OUS":
        return None
    return tuple(str(w) for w in values)


def _on_fit_words(phi: np.ndarray | az.InferenceData, corpus: BagOfWords, role: str) -> BagOfWords:
    """``corpus`` with its word ids in the fit's word order, checked by label.

    A corpus whose words are the fit's in another order, or a subset of them, is
    re-indexed to the fit's order (its counts move with their words, so nothing is
    lost). A corpus with words the fit does not have is an :class:`EvaluationError`
    naming them. Without labels on the fit (an array), only the sizes can be compared.
    """
    fit_words = _fit_words(phi)
    words = corpus.vocabulary.words
    if fit_words is None or tuple(words) == fit_words:
        return corpus
    index = {w: i for i, w in enumerate(fit_words)}
    unknown = [w for w in words if w not in index]
    if unknown:
        shown = ", ".join(repr(w) for w in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise EvaluationError(
            f"the {role} corpus has {len(unknown)} word(s) the fit does not: {shown}{more} "
            "(its vocabulary must be the fit's words)"
        )
    new_ids = np.array([index[w] for w in words], dtype=np.int64)[corpus.word_ids]
    word_ids = np.empty_like(new_ids)
    counts = np.empty_like(corpus.counts)
    ptr = corpus.doc_ptr
    for d in range(corpus.n_docs):
        a, b = int(ptr[d]), int(ptr[d + 1])
        order = np.argsort(new_ids[a:b], kind="stable")
        word_ids[a:b] = new_ids[a:b][order]
        counts[a:b] = corpus.counts[a:b][order]
    return BagOfWords(
        vocabulary=Vocabulary(fit_words),
        doc_ptr=corpus.doc_ptr,
        word_ids=word_ids,
        counts=counts,
        doc_ids=corpus.doc_ids,
        metadata=corpus.metadata,
    )


def split_documents(
    bow: BagOfWords, *, observed_fraction: float = 0.5, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Split each document's tokens at random into an observed and a held-out part.

    Returns
    -------
    tuple
        ``(obs_ptr, obs_word, ho_ptr, ho_word)``: token ranges (int64 ``(D + 1,)``)
        and word ids (int32) of the observed and held-out parts. Document ``d``
        with ``N_d`` tokens keeps ``round(observed_fraction * N_d)`` observed.
    """
    check_float("observed_fraction", observed_fraction, low=0, high=1)
    rng = np.random.default_rng(seed)
    doc, word = bow.tokens()
    lengths = bow.doc_lengths
    n_obs = np.rint(observed_fraction * lengths).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    obs_words, ho_words = [], []
    for d in range(bow.n_docs):
        w = word[starts[d] : starts[d + 1]]
        w = w[rng.permutation(w.size)]
        obs_words.append(np.sort(w[: n_obs[d]]))
        ho_words.append(w[n_obs[d] :])
    obs_ptr = np.concatenate([[0], np.cumsum(n_obs)]).astype(np.int64)
    ho_ptr = np.concatenate([[0], np.cumsum(lengths - n_obs)]).astype(np.int64)
    return (
        obs_ptr,
        np.concatenate(obs_words).astype(np.int32),
        ho_ptr,
        np.concatenate(ho_words).astype(np.int32),
    )


@dataclass(frozen=True)
class HeldOutScore:
    """Result of :func:`heldout_log_predictive`."""

    #: Average log predictive probability per held-out token (nats).
    per_token: float
    #: Held-out tokens scored.
    n_tokens: int
    #: Documents scored.
    n_docs: int
    #: Posterior draws of phi averaged over.
    n_draws: int


def heldout_log_predictive(
    phi: np.ndarray | az.InferenceData,
    test: BagOfWords,
    alpha: float | np.ndarray,
    *,
    seed: int,
    observed_fraction: float = 0.5,
    iter_warmup: int | None = None,
    iter_sampling: int | None = None,
    max_draws: int | None = 20,
    **deprecated: int,
) -> HeldOutScore:
    """Held-out log predictive probability per token by document completion.

    Parameters
    ----------
    phi
        Topics: a fit with ``posterior.phi`` (all chains and draws; align chains
        first only if you want per-chain summaries: the average over draws does
        not depend on labels), an ``(S, K, V)`` array of draws or a ``(K, V)``
        point estimate.
    test
        Held-out documents over the fit's words. With a fit (word labels on
        ``phi``), words are matched by label: the same words in another order, or a
        subset of them, are re-indexed to the fit's order; words the fit lacks are an
        :class:`EvaluationError` naming them. With an array, only ``V`` is checked.
    alpha
        Dirichlet parameter of ``theta`` (scalar or ``(K,)``).
    seed
        Seeds the split of the documents and the fold-in Gibbs runs.
    observed_fraction
        Share of each document's tokens used to estimate its ``theta``.
    iter_warmup, iter_sampling
        Fold-in Gibbs sweeps per draw not averaged (default 10), then averaged
        (default 40). The names of earlier releases, ``burn_in`` (``iter_warmup``) and
        ``sweeps`` (all sweeps: ``iter_warmup + iter_sampling``), still work for one
        release with a :class:`DeprecationWarning`.
    max_draws
        Use at most this many draws of ``phi`` (evenly spaced); ``None``: all.

    Returns
    -------
    HeldOutScore
        ``per_token`` is the mean over held-out tokens of the log of the
        draw-averaged predictive probability (see the module docstring).
    """
    draws = _phi_draws(phi, max_draws)
    S, K, V = draws.shape
    test = _on_fit_words(phi, test, "test")
    if test.n_words != V:
        raise EvaluationError(f"test corpus has V={test.n_words} words, phi has {V}")
    alpha_arr = np.asarray(alpha, dtype=np.float64)
    if alpha_arr.shape not in ((), (K,)) or not (alpha_arr > 0).all():
        raise EvaluationError(f"alpha must be positive, scalar or of shape ({K},)")
    alpha_vec = np.broadcast_to(alpha_arr, (K,)).copy()
    iter_warmup, iter_sampling = _fold_in_lengths(iter_warmup, iter_sampling, deprecated)
    obs_ptr, obs_word, ho_ptr, ho_word = split_documents(
        test, observed_fraction=observed_fraction, seed=seed
    )
    ho_doc = np.repeat(np.arange(test.n_docs), np.diff(ho_ptr))
    prob = np.zeros(ho_word.size)
    for s in range(S):
        state = np.random.SeedSequence(seed, spawn_key=(1, s)).generate_state(4, np.uint64)
        phi_wk = np.ascontiguousarray(draws[s].T)
        theta = kern.fold_in(
            obs_ptr, obs_word, phi_wk, alpha_vec, iter_warmup, iter_sampling, state
        )
        prob += np.einsum("ik,ik->i", theta[ho_doc], phi_wk[ho_word])
    prob /= S
    return HeldOutScore(
        per_token=float(np.log(prob).mean()) if prob.size else float("nan"),
        n_tokens=int(ho_word.size),
        n_docs=int((np.diff(ho_ptr) > 0).sum()),
        n_draws=S,
    )


def _fold_in_lengths(
    iter_warmup: int | None, iter_sampling: int | None, deprecated: Mapping[str, Any]
) -> tuple[int, int]:
    """Checked fold-in lengths, the deprecated ``sweeps``/``burn_in`` translated."""
    unknown = sorted(set(deprecated) - {"sweeps", "burn_in"})
    if unknown:
        raise TypeError(f"heldout_log_predictive() got unexpected argument(s) {unknown}")
    given = {k: v for k, v in (("iter_warmup", iter_warmup), ("iter_sampling", iter_sampling))
             if v is not None}  # fmt: skip
    opts = rename_deprecated("heldout_log_predictive", {**given, **deprecated})
    warmup = opts.get("iter_warmup", 10)
    check_int("burn_in" if "burn_in" in deprecated else "iter_warmup", warmup, minimum=0)
    if "sweeps" not in deprecated:
        sampling = opts.get("iter_sampling", 40)
        check_int("iter_sampling", sampling, minimum=1)
        return int(warmup), int(sampling)
    # ``sweeps`` counted every sweep, the discarded ones included
    sweeps = deprecated["sweeps"]
    check_int("sweeps", sweeps, minimum=1)
    if warmup >= sweeps:
        raise EvaluationError(f"burn_in={warmup} must be < sweeps={sweeps}")
    return int(warmup), int(sweeps - warmup)


def _top_ids(phi: np.ndarray, top_n: int) -> np.ndarray:
    # stable sort on -phi: ties go to the lower word id, so results are reproducible
    return np.argsort(-phi, axis=1, kind="stable")[:, :top_n]


def top_words(
    phi: np.ndarray | az.InferenceData, vocabulary: Vocabulary, *, top_n: int = 10
) -> pd.DataFrame:
    """The ``top_n`` most probable words of each topic (posterior mean of ``phi``).

    Returns
    -------
    pandas.DataFrame
        One row per topic (index ``topic``), columns ``1..top_n`` (rank), words as values.
    """
    check_int("top_n", top_n, minimum=1)
    mean = _mean_phi(phi)
    fit_words = _fit_words(phi)
    if fit_words is not None and tuple(vocabulary.words) != fit_words:
        differ = [
            i for i, (a, b) in enumerate(zip(fit_words, vocabulary.words, strict=False)) if a != b
        ]
        where = f"first at word {differ[0]}" if differ else "in length"
        raise EvaluationError(
            f"the vocabulary is not the fit's words ({where}); pass the fit's vocabulary"
        )
    if mean.shape[1] != len(vocabulary):
        raise EvaluationError(f"phi has {mean.shape[1]} words, the vocabulary {len(vocabulary)}")
    ids = _top_ids(mean, min(top_n, mean.shape[1]))
    words = np.asarray(vocabulary.words, dtype=object)[ids]
    frame = pd.DataFrame(words, columns=range(1, ids.shape[1] + 1))
    frame.index.name = "topic"
    return frame


def coherence(
    phi: np.ndarray | az.InferenceData,
    reference: BagOfWords,
    *,
    top_n: int = 10,
    measure: str = "npmi",
) -> np.ndarray:
    """Topic coherence of each topic's ``top_n`` words on a reference corpus.

    Parameters
    ----------
    phi
        Topics (a fit: posterior mean of ``phi``; or an array).
    reference
        Corpus whose document co-occurrences define the measure, over the fit's
        words (matched by label for a fit, as in :func:`heldout_log_predictive`).
    top_n
        Words per topic.
    measure
        ``"npmi"`` (in [-1, 1]) or ``"umass"`` (<= about 0), see the module docstring.

    Returns
    -------
    numpy.ndarray
        ``(K,)`` mean over the topic's word pairs.
    """
    check_int("top_n", top_n, minimum=2)
    if measure not in ("npmi", "umass"):
        raise EvaluationError(f"measure must be 'npmi' or 'umass', got {measure!r}")
    mean = _mean_phi(phi)
    K, V = mean.shape
    reference = _on_fit_words(phi, reference, "reference")
    if reference.n_words != V:
        raise EvaluationError(f"reference corpus has V={reference.n_words} words, phi has {V}")
    ids = _top_ids(mean, min(top_n, V))
    used, inverse = np.unique(ids, return_inverse=True)
    inverse = inverse.reshape(ids.shape)
    X = sp.csr_matrix(
        (np.ones(reference.word_ids.size), reference.word_ids, reference.doc_ptr),
        shape=(reference.n_docs, V),
    )[:, used]
    co = (X.T @ X).toarray()  # document co-occurrence counts; diagonal = document frequency
    n_docs = reference.n_docs
    out = np.empty(K)
    for k in range(K):
        vals = []
        for m in range(1, ids.shape[1]):
            for lo in range(m):
                a, b = inverse[k, lo], inverse[k, m]
                joint = co[a, b]
                if measure == "umass":
                    df = co[a, a]
                    vals.append(np.log((joint + 1.0) / df) if df > 0 else np.nan)
                elif joint == 0:
                    vals.append(-1.0)
                else:
                    p_ab = joint / n_docs
                    p_a, p_b = co[a, a] / n_docs, co[b, b] / n_docs
                    vals.append(1.0 if p_ab == 1.0 else np.log(p_ab / (p_a * p_b)) / -np.log(p_ab))
        out[k] = float(np.nanmean(vals)) if not np.isnan(vals).all() else np.nan
    return out
