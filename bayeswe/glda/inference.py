"""Using fitted Gaussian LDA topics: top words (Table 1) and held-out documents (section 5.2)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from scipy.special import gammaln

from bayeswe._arviz import az
from bayeswe.corpus import BagOfWords
from bayeswe.glda.data import GaussianLDADataError
from bayeswe.kernels import glda as kern
from bayeswe.kernels.glda.structs import Corpus, Topics
from bayeswe.options import rename_deprecated

__all__ = [
    "infer_theta",
    "niw_predictive_log_density",
    "predictive_log_density",
    "top_words",
]


def _draw(idata: az.InferenceData, chain: int, draw: int) -> dict[str, Any]:
    post = idata.posterior
    for name in ("mu", "Sigma", "topic_tokens"):
        if name not in post:
            raise ValueError(f"idata has no posterior variable {name!r}: not a Gaussian LDA fit")
    attrs = {**post.attrs, **idata.attrs}
    return {
        "mu": post["mu"].values[chain, draw],
        "Sigma": post["Sigma"].values[chain, draw],
        "N": post["topic_tokens"].values[chain, draw],
        "kappa": float(attrs["kappa"]),
        "nu": float(attrs["nu"]),
        "alpha": np.asarray(json.loads(attrs["alpha"]), dtype=np.float64),
    }


def predictive_log_density(
    idata: az.InferenceData,
    embeddings: np.ndarray,
    *,
    chain: int = 0,
    draw: int = -1,
) -> np.ndarray:
    """``(V, K)`` log posterior-predictive densities (eq. 1/2) of ``embeddings`` per topic.

    Uses the saved state of one sweep (``chain``, ``draw``; default the last draw of
    chain 0, as the paper's "final sample"): ``Sigma`` there is ``Psi_k / (nu_k - D - 1)``
    and ``topic_tokens`` is ``N_k``, which give back ``Psi_k``, ``kappa_k``, ``nu_k``
    and so the multivariate t of eq. (1).
    """
    topics = _topic_posterior(idata, chain, draw)
    emb = _check_embeddings(embeddings, topics["mu"].shape[1])
    return niw_predictive_log_density(
        emb, topics["mu"], topics["psi"], topics["kappa_k"], topics["nu_k"]
    )


def _topic_posterior(idata: az.InferenceData, chain: int, draw: int) -> dict[str, np.ndarray]:
    """Each topic's normal-inverse-Wishart posterior (eq. 2) at one saved sweep:
    ``mu (K, D)``, ``psi (K, D, D)``, ``kappa_k``, ``nu_k`` and ``alpha`` (K,)."""
    p = _draw(idata, chain, draw)
    D = p["mu"].shape[1]
    kap = p["kappa"] + p["N"]
    nuk = p["nu"] + p["N"]
    # Sigma is saved as Psi_k / (nu_k - D - 1), or / (nu_k + D + 1) where that is <= 0
    denom = np.where(nuk - D - 1.0 > 0, nuk - D - 1.0, nuk + D + 1.0)
    psi = p["Sigma"] * denom[:, None, None]
    return {"mu": p["mu"], "psi": psi, "kappa_k": kap, "nu_k": nuk, "alpha": p["alpha"]}


#: Floats of the offsets held at once by :func:`niw_predictive_log_density`.
_CHUNK_FLOATS = 1 << 22


def _positive_definite(a: np.ndarray) -> bool:
    try:
        np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        return False
    return True


def niw_predictive_log_density(
    x: np.ndarray, mean: np.ndarray, psi: np.ndarray, kappa: np.ndarray, nu: np.ndarray
) -> np.ndarray:
    """``(V, K)`` log densities of the rows of ``x`` (V, D) under each topic's
    normal-inverse-Wishart posterior predictive (eq. 1): the multivariate Student-t with
    ``nu_k - D + 1`` degrees of freedom, location ``mean`` (K, D) and scale
    ``(kappa_k + 1) / (kappa_k (nu_k - D + 1)) Psi_k``, from ``psi`` (K, D, D),
    ``kappa`` and ``nu`` (K,).

    Raises ``ValueError`` for shapes that do not fit, ``kappa_k <= 0``,
    ``nu_k <= D - 1`` or a ``Psi_k`` that is not positive definite.
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    mean = np.asarray(mean, dtype=np.float64)
    psi = np.asarray(psi, dtype=np.float64)
    kappa = np.asarray(kappa, dtype=np.float64)
    nu = np.asarray(nu, dtype=np.float64)
    D = x.shape[1]
    K = mean.shape[0] if mean.ndim == 2 else -1
    if (
        x.ndim != 2
        or mean.shape != (K, D)
        or psi.shape != (K, D, D)
        or kappa.shape != (K,)
        or nu.shape != (K,)
    ):
        raise ValueError(
            f"x (V, D), mean (K, D), psi (K, D, D), kappa and nu (K,) do not fit: got "
            f"{x.shape}, {mean.shape}, {psi.shape}, {kappa.shape} and {nu.shape}"
        )
    if not (kappa > 0).all() or not (nu > D - 1).all():
        raise ValueError(f"every kappa_k must be > 0 and every nu_k > D - 1 = {D - 1}")
    dof = nu - D + 1.0
    scale = (kappa + 1.0) / (kappa * dof)
    head = gammaln(0.5 * (dof + D)) - gammaln(0.5 * dof) - 0.5 * D * np.log(dof * np.pi)
    out = np.empty((x.shape[0], K))
    # topics in chunks, so the offsets (chunk, D, V) stay near _CHUNK_FLOATS floats for a
    # large vocabulary and one batched solve serves many topics for a few rows
    chunk = max(1, _CHUNK_FLOATS // max(x.size, 1))
    for lo in range(0, K, chunk):
        ks = slice(lo, min(lo + chunk, K))
        try:
            chol = np.linalg.cholesky(scale[ks, None, None] * psi[ks])
        except np.linalg.LinAlgError:
            bad = next((k for k in range(lo, ks.stop) if not _positive_definite(psi[k])), lo)
            raise ValueError(f"Psi of topic {bad} is not positive definite") from None
        y = np.linalg.solve(chol, np.swapaxes(x[None, :, :] - mean[ks, None, :], 1, 2))
        quad = (y * y).sum(axis=1)
        logdet = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=-1)
        out[:, ks] = (
            head[ks, None]
            - 0.5 * logdet[:, None]
            - 0.5 * (dof[ks] + D)[:, None] * np.log1p(quad / dof[ks, None])
        ).T
    return out


def top_words(
    idata: az.InferenceData,
    words: Any,
    embeddings: np.ndarray,
    *,
    n: int = 10,
    chain: int = 0,
    draw: int = -1,
) -> pd.DataFrame:
    """Each topic's ``n`` words of highest posterior-predictive density (Table 1).

    Parameters
    ----------
    idata
        A ``cgs``/``alias-mh`` fit.
    words, embeddings
        Candidate words and their ``(V, D)`` vectors (e.g. the corpus vocabulary, or
        any larger GloVe vocabulary).
    n
        Words per topic.

    Returns
    -------
    pandas.DataFrame
        One row per topic (index ``topic``), columns ``0..n-1``.
    """
    words = list(getattr(words, "words", words))
    logp = predictive_log_density(idata, embeddings, chain=chain, draw=draw)
    if len(words) != logp.shape[0]:
        raise GaussianLDADataError(f"{len(words)} words for {logp.shape[0]} embedding rows")
    order = np.argsort(-logp, axis=0, kind="stable")[:n]
    table = pd.DataFrame(
        [[words[i] for i in order[:, k]] for k in range(logp.shape[1])],
        index=pd.Index(range(logp.shape[1]), name="topic"),
    )
    return table


def _check_embeddings(embeddings: np.ndarray, D: int) -> np.ndarray:
    emb = np.asarray(embeddings, dtype=np.float64)
    if emb.ndim != 2 or emb.shape[1] != D:
        raise GaussianLDADataError(
            f"dimension mismatch: embeddings have shape {emb.shape}, the topics have D = {D}"
        )
    if not np.isfinite(emb).all():
        raise GaussianLDADataError("embeddings contain NaN or infinite values")
    return np.ascontiguousarray(emb)


def infer_theta(
    idata: az.InferenceData,
    new_corpus: BagOfWords,
    embeddings: np.ndarray,
    *,
    seed: int,
    iter_sampling: int = 100,
    iter_warmup: int = 50,
    chain: int = 0,
    draw: int = -1,
    batch_size: int | None = None,
    **deprecated: Any,
) -> xr.DataArray:
    """Topic proportions of new documents (section 5.2), with the learned topics fixed
    or updated by each batch of new documents.

    The new documents may contain words never seen in training: only their
    embeddings matter. The topics start from the saved state of one sweep
    (``chain``, ``draw``) and the new tokens' topics are Gibbs-sampled with ``theta``
    integrated out.

    * ``batch_size=None``: the topics stay fixed, with their posterior-predictive t
      densities (eq. 1) given the training tokens ("G-LDA (fix)" of Table 2).
    * ``batch_size=b``: the paper's online version (section 5.2, after Yao et al.
      2009, "G-LDA (b)"). The documents, in order, come in batches of ``b``, and each
      batch is inferred on its own, "also sampling for the topic parameter": its
      tokens' densities are those of eq. (1) given the training tokens *and* the
      batch's other tokens (the training posterior of eq. (2) is the prior of the
      batch, so the exact collapsed Gibbs sweep of ``method="cgs"`` with its rank-1
      moves of eq. (4) applies). No batch sees another's tokens.

    Parameters
    ----------
    idata
        A ``cgs``/``alias-mh`` fit.
    new_corpus
        The held-out documents (own vocabulary; non-empty documents).
    embeddings
        ``(V_new, D)`` vectors of ``new_corpus``'s vocabulary.
    seed
        Seed of the Gibbs sampler.
    iter_sampling, iter_warmup
        Sweeps after warm-up whose ``E[theta_d | z]`` are averaged, and sweeps before
        (``sweeps`` and ``burn_in``, their earlier names, still work with a
        ``DeprecationWarning``).
    batch_size
        ``None`` for fixed topics; else the documents per batch of the online version.
        Batch ``j`` draws from its own stream, ``SeedSequence(seed).spawn(n_batches)[j]``.

    Returns
    -------
    xarray.DataArray
        ``(doc, topic)`` posterior mean of ``theta`` for the new documents.
    """
    if deprecated:
        renamed = rename_deprecated("infer_theta", deprecated)
        unknown = sorted(set(renamed) - {"iter_sampling", "iter_warmup"})
        if unknown:
            raise TypeError(f"infer_theta() got unexpected keyword argument(s) {unknown}")
        iter_sampling = renamed.get("iter_sampling", iter_sampling)
        iter_warmup = renamed.get("iter_warmup", iter_warmup)
    if not isinstance(new_corpus, BagOfWords):
        raise GaussianLDADataError("new_corpus must be a BagOfWords")
    new_corpus.check_nonempty()
    if embeddings is None or np.shape(embeddings)[0] != new_corpus.n_words:
        raise GaussianLDADataError(
            f"dimension mismatch: {np.shape(embeddings)[0] if embeddings is not None else 0} "
            f"embedding rows for a vocabulary of {new_corpus.n_words} words"
        )
    checks = [("iter_sampling", iter_sampling, 1), ("iter_warmup", iter_warmup, 0)]
    if batch_size is not None:
        checks.append(("batch_size", batch_size, 1))
    for name, value, low in checks:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if batch_size is not None:
        topics = _topic_posterior(idata, chain, draw)
        theta = _infer_theta_online(
            topics,
            new_corpus,
            _check_embeddings(embeddings, topics["mu"].shape[1]),
            seed=seed,
            iter_sampling=iter_sampling,
            iter_warmup=iter_warmup,
            batch_size=int(batch_size),
        )
        return _theta_array(theta, new_corpus)
    alpha = _draw(idata, chain, draw)["alpha"]
    loglik = predictive_log_density(idata, embeddings, chain=chain, draw=draw)
    K = alpha.size
    doc, word = new_corpus.tokens()
    doc = np.ascontiguousarray(doc, dtype=np.int32)
    word = np.ascontiguousarray(word, dtype=np.int32)
    ss = np.random.SeedSequence(int(seed))
    init_ss, kern_ss = ss.spawn(2)
    z = np.random.default_rng(init_ss).integers(0, K, size=doc.size).astype(np.int32)
    rng = kern_ss.generate_state(1, dtype=np.uint64).astype(np.uint64)
    n_dk = np.zeros((new_corpus.n_docs, K), dtype=np.int32)
    np.add.at(n_dk, (doc, z), 1)
    logw = np.empty(K)
    theta = np.zeros((new_corpus.n_docs, K))
    n_d = new_corpus.doc_lengths[:, None].astype(np.float64)
    for t in range(iter_warmup + iter_sampling):
        kern.sweep_fixed(doc, word, z, loglik, alpha, n_dk, rng, logw)
        if t >= iter_warmup:
            theta += (n_dk + alpha) / (n_d + alpha.sum())
    theta /= iter_sampling
    return _theta_array(theta, new_corpus)


def _theta_array(theta: np.ndarray, corpus: BagOfWords) -> xr.DataArray:
    return xr.DataArray(
        theta,
        dims=("doc", "topic"),
        coords={"doc": list(corpus.doc_ids), "topic": list(range(theta.shape[1]))},
        name="theta",
    )


def _infer_theta_online(
    topics: dict[str, np.ndarray],
    corpus: BagOfWords,
    emb: np.ndarray,
    *,
    seed: int,
    iter_sampling: int,
    iter_warmup: int,
    batch_size: int,
) -> np.ndarray:
    """``(doc, topic)`` mean ``E[theta_d | z]`` of the online version, batch by batch."""
    from bayeswe.samplers.gaussian_lda import GLDAState, _precision_cache

    alpha = topics["alpha"]
    K, D = topics["mu"].shape
    try:
        L = np.linalg.cholesky(topics["psi"])
    except np.linalg.LinAlgError:
        raise GaussianLDADataError(
            "a topic's scatter matrix Psi_k is not positive definite"
        ) from None
    R0 = np.ascontiguousarray(np.swapaxes(L, 1, 2))  # upper factors, Psi_k = R_k' R_k
    doc, word = corpus.tokens()
    doc = np.ascontiguousarray(doc, dtype=np.int32)
    word = np.ascontiguousarray(word, dtype=np.int32)
    n_docs = corpus.n_docs
    starts = list(range(0, n_docs, batch_size))
    streams = np.random.SeedSequence(int(seed)).spawn(len(starts))
    theta = np.zeros((n_docs, K))
    lengths = corpus.doc_lengths.astype(np.float64)
    work = np.empty(3 * D + 2 * K)
    for lo, stream in zip(starts, streams, strict=True):
        hi = min(lo + batch_size, n_docs)
        # tokens are in document order, so a batch's tokens are one slice
        first, last = np.searchsorted(doc, [lo, hi])
        tok_doc = np.ascontiguousarray(doc[first:last] - lo)
        tok_word = np.ascontiguousarray(word[first:last])
        init_ss, kern_ss = stream.spawn(2)
        z = np.random.default_rng(init_ss).integers(0, K, size=tok_doc.size).astype(np.int32)
        n_dk = np.zeros((hi - lo, K), dtype=np.int32)
        np.add.at(n_dk, (tok_doc, z), 1)
        R = R0.copy()
        state = GLDAState(
            z, n_dk, topics["mu"].copy(), R, 1.0 / np.diagonal(R, axis1=1, axis2=2).copy(),
            np.zeros(K), topics["kappa_k"].astype(np.float64), topics["nu_k"].astype(np.float64),
            np.zeros(K), np.zeros(K), np.zeros(K),
            kern_ss.generate_state(1, dtype=np.uint64).astype(np.uint64),
        )  # fmt: skip
        topic_args = (state.mu, state.R, state.invd, state.logdet, state.kappa_k, state.nu_k,
                      state.tconst, state.tscale, state.texp)  # fmt: skip
        kern.resync_topics(state.kappa_k, state.nu_k, state.R, state.logdet, state.tconst,
                           state.tscale, state.texp)  # fmt: skip
        for i in range(tok_doc.size):  # the batch's tokens join their start topics (eq. 4)
            kern.topic_move(int(z[i]), emb[tok_word[i]], 1.0, *topic_args, work)
        for t in range(iter_warmup + iter_sampling):
            kern.resync_topics(state.kappa_k, state.nu_k, state.R, state.logdet, state.tconst,
                               state.tscale, state.texp)  # fmt: skip
            kern.sweep_cgs_precision(
                Corpus(tok_doc, tok_word, emb, alpha),
                z,
                n_dk,
                Topics(*topic_args),
                _precision_cache(state),
                state.rng,
                work,
                0,
                tok_doc.size,
            )
            if t >= iter_warmup:
                theta[lo:hi] += (n_dk + alpha) / (lengths[lo:hi, None] + alpha.sum())
    return theta / iter_sampling
