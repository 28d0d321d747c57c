"""Declaration of the Gaussian LDA Stan program (``models/gaussian_lda.stan``).

The program (Das, Zaheer & Dyer 2015, section 3) marginalizes the topic
indicators, parameterizes each topic covariance by its Cholesky factor
``L_Sigma`` (inverse-Wishart density of the factor, Jacobian included) and
evaluates the Gaussian log density once per (used word type, topic); see the
header of the Stan file for the derivation.

``bayeswe.fit("gaussian_lda", GaussianLDAData(...), method="nuts"|"advi"|"map")``
returns ``theta`` ``(doc, topic)``, ``mu`` ``(topic, dim)``, ``Sigma`` and
``L_Sigma`` ``(topic, dim, dim2)``, with the documents' ids as ``doc`` coords;
``constant_data`` holds the embeddings with the vocabulary as ``word`` coords.
The Stan program calls the embedding dimension ``P`` (``D`` counts documents).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayeswe._arviz import az
from bayeswe.glda.data import GaussianLDAData, GaussianLDADataError
from bayeswe.model_spec import MODELS_DIR, DataField, StanModelSpec, register_model
from bayeswe.options import magnitude_problem

__all__ = ["GAUSSIAN_LDA", "fit_gaussian_lda", "initial_values"]


def _coords(data: Mapping[str, Any]) -> Mapping[str, Sequence[Any]]:
    """Document ids and vocabulary from the extra keys of ``GaussianLDAData.to_stan()``."""
    coords: dict[str, Sequence[Any]] = {}
    if data.get("doc_ids") is not None:
        coords["doc"] = [str(d) for d in data["doc_ids"]]
    if data.get("vocabulary") is not None:
        coords["word"] = [str(w) for w in data["vocabulary"]]
    return coords


def _check_data(fields: Mapping[str, Any]) -> str | None:
    """Refuse a corpus without tokens, and magnitudes that overflow."""
    if int(np.asarray(fields["count"]).sum()) == 0:
        return "the corpus holds no tokens: nothing to fit"
    emb = np.asarray(fields["embeddings"], dtype=float)
    if not np.isfinite(emb).all():
        return "embeddings contain NaN or infinite values"
    largest = float(np.abs(emb).max(initial=0.0))
    if largest > 0 and (problem := magnitude_problem("the largest |embedding|", largest)):
        return problem
    return magnitude_problem("kappa", float(fields["kappa"]))


GAUSSIAN_LDA: StanModelSpec = register_model(
    StanModelSpec(
        name="gaussian_lda",
        stan_file=MODELS_DIR / "gaussian_lda.stan",
        data_fields=(
            DataField("D", "int"),
            DataField("V", "int"),
            DataField("K", "int"),
            DataField("P", "int"),
            DataField("N", "int"),
            DataField("doc", "int", ("N",), dims=("pair",), observed=True),
            DataField("word", "int", ("N",), dims=("pair",), observed=True),
            DataField("count", "int", ("N",), dims=("pair",), observed=True),
            # constant_data, not observed_data: the field "word" there would clash with the dim
            DataField("embeddings", "real", ("V", "P"), dims=("word", "dim")),
            DataField("alpha", "real", ("K",), dims=("topic",)),
            DataField("mu0", "real", ("P",), dims=("dim",)),
            DataField("kappa", "real"),
            DataField("nu", "real"),
            DataField("Psi", "real", ("P", "P"), dims=("dim", "dim2")),
        ),
        dims={
            "theta": ("doc", "topic"),
            "mu": ("topic", "dim"),
            "L_Sigma": ("topic", "dim", "dim2"),
            "Sigma": ("topic", "dim", "dim2"),
            # the collapsed samplers' tokens per topic (not a Stan output)
            "topic_tokens": ("topic",),
        },
        coords=_coords,
        check=_check_data,
        description=(
            "Gaussian LDA (Das et al. 2015) with marginalized topic indicators and "
            "Cholesky-factor inverse-Wishart priors"
        ),
    )
)


def _kmeans(
    x: np.ndarray, w: np.ndarray, K: int, rng: np.random.Generator, lloyd_steps: int
) -> tuple[float, np.ndarray, np.ndarray]:
    """Weighted k-means++ seeding plus Lloyd steps: (inertia, centres, labels)."""
    centres = x[[rng.choice(x.shape[0], p=w / w.sum())]]
    for _ in range(1, K):  # k-means++: next centre with probability ~ w * distance^2
        d2 = np.min(((x[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
        p = w * d2
        p = p / p.sum() if p.sum() > 0 else w / w.sum()
        centres = np.vstack([centres, x[rng.choice(x.shape[0], p=p)]])
    for _ in range(lloyd_steps):
        label = np.argmin(((x[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
        for k in range(K):
            member = label == k
            if member.any():
                centres[k] = np.average(x[member], axis=0, weights=w[member])
    d2 = ((x[:, None, :] - centres[None]) ** 2).sum(-1)
    label = np.argmin(d2, axis=1)
    return float(w @ d2[np.arange(x.shape[0]), label]), centres, label


def initial_values(
    data: GaussianLDAData,
    *,
    seed: int | None,
    chains: int = 1,
    restarts: int = 10,
    lloyd_steps: int = 10,
) -> list[dict[str, np.ndarray]]:
    """Starting points for the Stan program from a token-weighted k-means of the word types.

    Stan's default start (every unconstrained coordinate uniform in (-2, 2)) puts the
    topic means and covariances far from the embeddings; on a 5000-token corpus with
    P=10 and K=5, NUTS then spent its whole warm-up at tree depth 10 without moving
    the document proportions. Here each chain starts from its own k-means clustering
    of the used word types (weights = token counts; the best of ``restarts``
    k-means++ seedings, each refined by ``lloyd_steps`` Lloyd iterations; a single
    seeding merged two nearby topics and split a third in the benchmark's corpus):
    ``mu_k`` = cluster centroid plus ``N(0, Sigma_k / (kappa + n_k))`` noise,
    ``Sigma_k = (Psi + S_k) / (nu + n_k + P + 1)``
    (the inverse-Wishart posterior mode given the hard clustering, ``S_k`` the
    cluster's scatter about its centroid; positive definite because ``Psi`` is),
    ``theta_d = (n_dk + alpha) / (N_d + sum(alpha))``. Different chains may start
    in different modes, which R-hat then shows.

    Parameters
    ----------
    data
        The Gaussian LDA data.
    seed
        Seed of the k-means++ seedings (one stream per chain).
    chains
        Number of starting points.
    restarts
        k-means++ seedings per chain; the one with the smallest weighted inertia is kept.
    lloyd_steps
        Lloyd iterations after the seeding.

    Returns
    -------
    list of dict
        One mapping ``{"theta", "mu", "L_Sigma"}`` per chain (pass it as ``inits``;
        for the one-chain methods pass its first element).
    """
    if not isinstance(data, GaussianLDAData):
        raise GaussianLDADataError(f"data must be a GaussianLDAData, got {type(data).__name__}")
    corpus = data.corpus
    K, P = data.n_topics, data.dim
    weight = np.bincount(corpus.word_ids, weights=corpus.counts, minlength=corpus.n_words)
    used = np.flatnonzero(weight > 0)
    if used.size < K:
        raise GaussianLDADataError(
            f"k-means initialization needs at least K={K} distinct word types, got {used.size}"
        )
    x, w = data.embeddings[used], weight[used]
    doc = corpus.doc_index()
    slot = np.searchsorted(used, corpus.word_ids)
    out = []
    for rng in (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(chains)):
        runs = [_kmeans(x, w, K, rng, lloyd_steps) for _ in range(restarts)]
        _, centres, label = min(runs, key=lambda r: r[0])
        L = np.empty((K, P, P))
        for k in range(K):
            member = label == k
            r = x[member] - centres[k]
            scatter = (r * w[member, None]).T @ r
            L[k] = np.linalg.cholesky((data.Psi + scatter) / (data.nu + w[member].sum() + P + 1.0))
        n_dk = np.zeros((corpus.n_docs, K))
        np.add.at(n_dk, (doc, label[slot]), corpus.counts)
        theta = (n_dk + data.alpha) / (n_dk.sum(axis=1, keepdims=True) + data.alpha.sum())
        # chains that found the same clustering still start apart: mu_k drawn from
        # N(centroid, Sigma_k / (kappa + n_k)), its conditional posterior given the clustering
        n_k = np.bincount(label, weights=w, minlength=K)
        noise = np.einsum("kij,kj->ki", L, rng.normal(size=(K, P)))
        mu = centres + noise / np.sqrt(data.kappa + n_k)[:, None]
        out.append({"theta": theta, "mu": mu, "L_Sigma": L})
    return out


def fit_gaussian_lda(
    data: GaussianLDAData,
    *,
    method: str,
    init: str = "kmeans",
    seed: int | None = None,
    chains: int | None = None,
    **options: Any,
) -> az.InferenceData:
    """Fit the Gaussian LDA Stan program, started from :func:`initial_values` by default.

    Parameters
    ----------
    data
        The Gaussian LDA data.
    method
        Any Stan method of :func:`bayeswe.fit` (``"nuts"``, ``"advi"``, ``"map"``, ...).
    init
        ``"kmeans"`` (default): every chain from its own k-means start;
        ``"random"``: Stan's default. Ignored when ``inits`` is passed as an option.
    seed, chains, **options
        As for :func:`bayeswe.fit`; ``seed`` also seeds the k-means starts.

    Returns
    -------
    arviz.InferenceData
        As :func:`bayeswe.fit`; ``attrs["init"]`` records the start used.
    """
    from bayeswe.fit import fit  # fit dispatches to the samplers, which import this package

    if init not in ("kmeans", "random"):
        raise ValueError(f"init must be 'kmeans' or 'random', got {init!r}")
    if not isinstance(data, GaussianLDAData):
        raise GaussianLDADataError(f"data must be a GaussianLDAData, got {type(data).__name__}")
    if seed is None:
        seed = int(np.random.default_rng().integers(0, 2**32 - 1))
    used = "user" if "inits" in options else init
    if used == "kmeans":
        n = (chains or 4) if method == "nuts" else 1
        starts = initial_values(data, seed=seed, chains=n)
        options["inits"] = starts if method == "nuts" else starts[0]
    idata = fit(GAUSSIAN_LDA, data, method=method, seed=seed, chains=chains, **options)
    for attrs in (idata.attrs, idata.posterior.attrs):
        attrs["init"] = used
    return idata
