"""The SBC cases: a small model per sampler, drawn from its prior, and the statistics ranked.

Every case is tiny on purpose: hundreds of replications must run in minutes, and with
few data the prior shapes the posterior as much as the data do, so a sampler that
gets the prior's scale wrong is caught (hyperparameters are never 1, where sd,
variance and precision coincide).

Gibbs chains start at the true parameters and discard a warm-up: a chain started in
its stationary distribution stays there, so any bias in the ranks comes from the
transition kernel (a start from the prior would also test how fast the chain forgets
it). Kept draws are thinned so that their autocorrelation does not widen the rank
histogram's spread.

Topic models are label-switching: their statistics are functions of the assignments
``z`` that do not change when topics are relabelled (log p(z), log p(w | z), counts of
token pairs sharing a topic), computed exactly from the state after each kept sweep.
The ``phi``/``theta`` outputs of the collapsed samplers are conditional means given
``z`` (Rao-Blackwellised), not draws, and are not ranked.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats
from scipy.special import expit, gammaln, multigammaln

from bayeswe.sbc.core import rank_of

__all__ = ["CASES", "SBCCase", "case_names", "replicate"]

#: Posterior draws per replication: ranks lie in 0..99, ten bins of ten ranks.
N_DRAWS = 99


@dataclass(frozen=True)
class SBCCase:
    """One sampler's SBC design."""

    name: str
    #: What is simulated and how the sampler is run, for the report.
    design: str
    statistics: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)
    #: ``True`` for approximate methods, expected to fail (a measure of how far off).
    approximate: bool = False


# ----------------------------------------------------------------------------- SGNS

SGNS_V, SGNS_K, SGNS_PAIR_COUNT = 6, 2, 4
SGNS_FIXED = np.array([4, 5])
SGNS_FIXED_ALPHA = np.array([[1.0, 0.2], [-0.3, 0.9]])
SGNS_LAMBDA = 0.5
SGNS_FREE = np.setdiff1d(np.arange(SGNS_V), SGNS_FIXED)
SGNS_STATS = tuple(f"rho[{v},{k}]" for v in range(SGNS_V) for k in range(SGNS_K)) + tuple(
    f"alpha[{v},{k}]" for v in SGNS_FREE for k in range(SGNS_K)
)
PG_WARMUP, PG_THIN = 300, 5


def _sgns_draw(rng: np.random.Generator, lam: float) -> tuple[NDArray, NDArray, dict[str, Any]]:
    """``rho``, ``alpha`` from the prior (eq. (6) of Yrjänäinen et al.), labels from eq. (5)."""
    from bayeswe.sgns import SGNSData

    V, K = SGNS_V, SGNS_K
    rho = rng.normal(0.0, lam, size=(V, K))
    alpha = np.empty((V, K))
    alpha[SGNS_FREE] = rng.normal(0.0, lam, size=(len(SGNS_FREE), K))
    alpha[SGNS_FIXED] = SGNS_FIXED_ALPHA
    target, context = np.divmod(np.arange(V * V), V)
    n = np.full(V * V, SGNS_PAIR_COUNT)
    n_pos = rng.binomial(n, expit(np.sum(rho[target] * alpha[context], axis=1)))
    data = SGNSData(V, target, context, n, n_pos).stan_data(
        K, prior_sd=lam, fixed_index=SGNS_FIXED, fixed_alpha=SGNS_FIXED_ALPHA
    )
    return rho, alpha, data


def _sgns_draws(idata: Any) -> NDArray[np.float64]:
    post = idata.posterior
    rho = post["rho"].values[0]
    alpha = post["alpha"].values[0][:, SGNS_FREE]
    return np.concatenate([rho.reshape(len(rho), -1), alpha.reshape(len(alpha), -1)], axis=1)


def _pg_gibbs(omega: str) -> Callable[[np.random.Generator, int], NDArray[np.int64]]:
    def run(rng: np.random.Generator, seed: int) -> NDArray[np.int64]:
        from bayeswe.samplers.pg_gibbs import sample_pg_gibbs

        rho, alpha, data = _sgns_draw(rng, SGNS_LAMBDA)
        idata = sample_pg_gibbs(
            data, seed=seed, chains=1, iter_warmup=PG_WARMUP, iter_sampling=N_DRAWS * PG_THIN,
            thin=PG_THIN, init={"rho": rho, "alpha": alpha}, threads_per_chain=1,
            omega=omega, show_progress=False,
        )  # fmt: skip
        truth = np.concatenate([rho.ravel(), alpha[SGNS_FREE].ravel()])
        return rank_of(truth, _sgns_draws(idata), rng)

    return run


#: Gauge-free statistics of the unidentified SGNS: the logits ``rho_w . alpha_v``, and the
#: squared norms of the vectors (invariant under the rotations the posterior is
#: invariant under; the gauge move's scalings change them as the posterior says).
SGNS_FREE_STATS = (
    tuple(f"logit[{w},{v}]" for w in range(SGNS_V) for v in range(SGNS_V))
    + tuple(f"|rho[{w}]|^2" for w in range(SGNS_V))
    + tuple(f"|alpha[{v}]|^2" for v in range(SGNS_V))
)


def _sgns_free_draw(
    rng: np.random.Generator, lam: float, sampler_lam: float
) -> tuple[NDArray, NDArray, dict[str, Any]]:
    """``rho``, ``alpha`` (all rows free) from the prior, labels from eq. (5); the data of
    ``sgns`` with prior sd ``sampler_lam`` (``lam`` for a correct sampler)."""
    from bayeswe.sgns import SGNSData

    V, K = SGNS_V, SGNS_K
    rho = rng.normal(0.0, lam, size=(V, K))
    alpha = rng.normal(0.0, lam, size=(V, K))
    target, context = np.divmod(np.arange(V * V), V)
    n = np.full(V * V, SGNS_PAIR_COUNT)
    n_pos = rng.binomial(n, expit(np.sum(rho[target] * alpha[context], axis=1)))
    data = SGNSData(V, target, context, n, n_pos).stan_data(K, prior_sd=sampler_lam)
    return rho, alpha, data


def _gauge_free(rho: NDArray[np.float64], alpha: NDArray[np.float64]) -> NDArray[np.float64]:
    """:data:`SGNS_FREE_STATS` of ``(..., V, K)`` embeddings, as ``(..., 48)``."""
    logits = np.einsum("...wk,...vk->...wv", rho, alpha)
    lead = logits.shape[:-2]
    return np.concatenate(
        [
            logits.reshape(*lead, -1),
            np.einsum("...wk,...wk->...w", rho, rho),
            np.einsum("...wk,...wk->...w", alpha, alpha),
        ],
        axis=-1,
    )


def _pg_gibbs_unidentified(
    prior_factor: float = 1.0,
) -> Callable[[np.random.Generator, int], NDArray[np.int64]]:
    def run(rng: np.random.Generator, seed: int) -> NDArray[np.int64]:
        from bayeswe.samplers.pg_gibbs import sample_pg_gibbs

        rho, alpha, data = _sgns_free_draw(rng, SGNS_LAMBDA, SGNS_LAMBDA * prior_factor)
        idata = sample_pg_gibbs(
            data, seed=seed, chains=1, identified=False, iter_warmup=PG_WARMUP,
            iter_sampling=N_DRAWS * PG_THIN, thin=PG_THIN, init={"rho": rho, "alpha": alpha},
            threads_per_chain=1, show_progress=False,
        )  # fmt: skip
        post = idata.posterior
        draws = _gauge_free(post["rho"].values[0], post["alpha"].values[0])
        return rank_of(_gauge_free(rho, alpha), draws, rng)

    return run


def _stan_sgns(method: str) -> Callable[[np.random.Generator, int], NDArray[np.int64]]:
    def run(rng: np.random.Generator, seed: int) -> NDArray[np.int64]:
        import bayeswe

        rho, alpha, data = _sgns_draw(rng, SGNS_LAMBDA)
        options: dict[str, Any] = {"draws": N_DRAWS}
        if method.startswith("advi"):
            # a run that stops without reporting convergence still returns its q:
            # how far off q is, is what is measured
            options["require_converged"] = False
        from cmdstanpy.utils import get_logger

        logger = get_logger()  # configured on first use, which would reset the level
        level = logger.level
        # one "Chain [1] start/done" pair per replication; never louder than the caller
        logger.setLevel(max(level, logging.WARNING))
        try:
            idata = bayeswe.fit("sgns_identified", data, method=method, seed=seed, **options)
        finally:
            logger.setLevel(level)
        draws = _sgns_draws(idata)[:N_DRAWS]
        truth = np.concatenate([rho.ravel(), alpha[SGNS_FREE].ravel()])
        return rank_of(truth, draws, rng)

    return run


# ----------------------------------------------------------------------------- LDA

LDA_DOCS, LDA_DOC_LENGTH, LDA_WORDS, LDA_TOPICS = 6, 12, 8, 3
LDA_ALPHA, LDA_BETA = 0.5, 0.3
TOPIC_WARMUP, TOPIC_THIN = 100, 5
LDA_STATS = ("log_p_z", "log_p_w_given_z", "sum_n_dk_squared", "sum_n_wk_squared")


def label_free_sum(terms: NDArray) -> float:
    """The correctly rounded sum of ``terms`` (:func:`math.fsum`), whatever their order.

    A statistic that sums over topics or clusters in label order would round differently
    for a draw equal to the truth up to its labels; SBC's random tie-breaking needs the
    two values to be bit-identical."""
    return math.fsum(np.ravel(terms).tolist())


def _log_dirichlet_multinomial(counts: NDArray, prior: NDArray) -> float:
    """``sum_rows log int prod_k p_k^n_k Dir(p | prior) dp`` for count rows ``(R, K)``
    (a symmetric ``prior``: the same value for any permutation of the columns)."""
    n = counts.sum(axis=1)
    a = prior.sum()
    return label_free_sum(
        np.concatenate(
            [gammaln(a) - gammaln(n + a), np.ravel(gammaln(counts + prior) - gammaln(prior))]
        )
    )


def _lda_draw(rng: np.random.Generator) -> tuple[Any, NDArray[np.int32]]:
    """Corpus and true ``z`` (in the corpus' token order) from LDA's generative model."""
    from bayeswe.corpus import BagOfWords, Vocabulary
    from bayeswe.lda import LDAData

    D, L, V, K = LDA_DOCS, LDA_DOC_LENGTH, LDA_WORDS, LDA_TOPICS
    phi = rng.dirichlet(np.full(V, LDA_BETA), size=K)
    theta = rng.dirichlet(np.full(K, LDA_ALPHA), size=D)
    docs, zs = [], []
    for d in range(D):
        z = rng.choice(K, size=L, p=theta[d])
        w = np.array([rng.choice(V, p=phi[k]) for k in z])
        order = np.argsort(w, kind="stable")  # BagOfWords.tokens(): words ascending per doc
        docs.append(w[order])
        zs.append(z[order])
    vocab = Vocabulary(tuple(f"w{v}" for v in range(V)), np.ones(V, dtype=np.int64))
    corpus = BagOfWords.from_token_ids(docs, vocab)
    data = LDAData(corpus, n_topics=K, alpha=LDA_ALPHA, beta=LDA_BETA)
    _, word = corpus.tokens()
    if not np.array_equal(word, np.concatenate(docs)):  # pragma: no cover - layout guard
        raise AssertionError("token order of BagOfWords.tokens() changed")
    return data, np.concatenate(zs).astype(np.int32)


def _lda_statistics(n_dk: NDArray, n_wk: NDArray, alpha: float, beta: float) -> NDArray:
    K = n_dk.shape[1]
    V = n_wk.shape[0]
    return np.array(
        [
            _log_dirichlet_multinomial(n_dk, np.full(K, alpha)),
            _log_dirichlet_multinomial(n_wk.T, np.full(V, beta)),
            float(np.sum(n_dk.astype(np.int64) ** 2)),
            float(np.sum(n_wk.astype(np.int64) ** 2)),
        ]
    )


def _lda_cgs(
    algorithm: str, prior_factor: float = 1.0
) -> Callable[[np.random.Generator, int], NDArray[np.int64]]:
    """``prior_factor != 1`` runs the sampler with alpha scaled by it (a wrong sampler)."""

    def run(rng: np.random.Generator, seed: int) -> NDArray[np.int64]:
        from bayeswe.kernels import lda_cgs as kern
        from bayeswe.samplers import lda_cgs as cgs

        data, z_true = _lda_draw(rng)
        problem = cgs.CGSProblem.from_data(data)
        if prior_factor != 1.0:
            problem = dataclasses.replace(problem, alpha=problem.alpha * prior_factor)
        K = problem.n_topics
        n_dk = np.zeros((problem.n_docs, K), dtype=np.int32)
        n_wk = np.zeros((problem.n_words, K), dtype=np.int32)
        n_k = np.zeros(K, dtype=np.int64)
        z = z_true.copy()
        kern.counts_from_assignments(problem.tok_ptr, problem.word, z, n_dk, n_wk, n_k)
        truth = _lda_statistics(n_dk, n_wk, LDA_ALPHA, LDA_BETA)
        state = cgs.CGSState(z, n_dk, n_wk, n_k, cgs.chain_stream(seed, 0))
        draws = np.empty((N_DRAWS, len(LDA_STATS)))
        for _ in range(TOPIC_WARMUP):
            cgs.step(problem, state, algorithm)
        for i in range(N_DRAWS):
            for _ in range(TOPIC_THIN):
                cgs.step(problem, state, algorithm)
            draws[i] = _lda_statistics(state.n_dk, state.n_wk, LDA_ALPHA, LDA_BETA)
        return rank_of(truth, draws, rng)

    return run


# ----------------------------------------------------------------------- Gaussian LDA

GLDA_DOCS, GLDA_DOC_LENGTH, GLDA_TOPICS, GLDA_DIM = 4, 6, 2, 2
GLDA_ALPHA, GLDA_KAPPA, GLDA_NU = 0.5, 0.5, GLDA_DIM + 2.0
GLDA_PSI = np.array([[0.6, 0.1], [0.1, 0.4]])
GLDA_STATS = ("log_p_z", "log_p_v_given_z", "sum_n_dk_squared", "sum_n_k_squared")


def _glda_draw(rng: np.random.Generator) -> tuple[Any, NDArray[np.int32]]:
    """Corpus (each token its own word type, so the vectors are exact model draws) and ``z``.

    ``Sigma_k ~ IW(Psi, nu)``, ``mu_k ~ N(mu0 = 0, Sigma_k / kappa)``,
    ``theta_d ~ Dir(alpha)``, ``z ~ theta_d``, ``v ~ N(mu_z, Sigma_z)``.
    """
    from bayeswe.corpus import BagOfWords, Vocabulary
    from bayeswe.glda import GaussianLDAData

    K, D = GLDA_TOPICS, GLDA_DIM
    Sigma = stats.invwishart(df=GLDA_NU, scale=GLDA_PSI).rvs(size=K, random_state=rng)
    mu = np.stack([rng.multivariate_normal(np.zeros(D), Sigma[k] / GLDA_KAPPA) for k in range(K)])
    theta = rng.dirichlet(np.full(K, GLDA_ALPHA), size=GLDA_DOCS)
    z = np.concatenate([rng.choice(K, size=GLDA_DOC_LENGTH, p=t) for t in theta])
    N = z.size
    vectors = np.stack([rng.multivariate_normal(mu[k], Sigma[k]) for k in z])
    vocab = Vocabulary(tuple(f"w{i}" for i in range(N)), np.ones(N, dtype=np.int64))
    docs = [np.arange(d * GLDA_DOC_LENGTH, (d + 1) * GLDA_DOC_LENGTH) for d in range(GLDA_DOCS)]
    data = GaussianLDAData(
        BagOfWords.from_token_ids(docs, vocab), vectors, n_topics=K, alpha=GLDA_ALPHA,
        mu0=np.zeros(D), kappa=GLDA_KAPPA, nu=GLDA_NU, Psi=GLDA_PSI,
    )  # fmt: skip
    return data, z.astype(np.int32)


def niw_log_marginals(
    x: NDArray[np.float64], z: NDArray, kappa0: float, nu0: float, psi0: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Per cluster of ``z`` (points sharing a label, in the order of the labels' values):
    ``log p(x_cluster)`` under ``N(mu, Sigma)``, ``(mu, Sigma) ~ NIW(0, kappa0, nu0, psi0)``.

    Murphy (2007), "Conjugate Bayesian analysis of the Gaussian distribution", eq. 266.
    A cluster's value depends on its points only (accumulated in their index order), not
    on its label.
    """
    _, k = np.unique(z, return_inverse=True)
    n_clusters, D = int(k.max(initial=-1)) + 1, x.shape[1]
    n = np.bincount(k, minlength=n_clusters).astype(np.float64)
    sums = np.zeros((n_clusters, D))
    np.add.at(sums, k, x)
    mean = sums / n[:, None]
    centred = x - mean[k]
    scatter = np.zeros((n_clusters, D, D))
    np.add.at(scatter, k, centred[:, :, None] * centred[:, None, :])
    kn, nn = kappa0 + n, nu0 + n
    psi_n = (
        psi0 + scatter + (kappa0 * n / kn)[:, None, None] * (mean[:, :, None] * mean[:, None, :])
    )
    return (
        -0.5 * n * D * np.log(np.pi)
        + multigammaln(0.5 * nn, D) - multigammaln(0.5 * nu0, D)
        + 0.5 * nu0 * np.linalg.slogdet(psi0)[1] - 0.5 * nn * np.linalg.slogdet(psi_n)[1]
        + 0.5 * D * (np.log(kappa0) - np.log(kn))
    )  # fmt: skip


def _log_marginal_niw(x: NDArray[np.float64], z: NDArray) -> float:
    """``sum_k log p(x_k)`` over the clusters of ``z`` under the Gaussian LDA cases' prior."""
    return label_free_sum(niw_log_marginals(x, z, GLDA_KAPPA, GLDA_NU, GLDA_PSI))


def _glda_statistics(vectors: NDArray, doc: NDArray, z: NDArray) -> NDArray:
    """Statistics of ``z`` computed afresh from ``z`` and the data.

    Not from the sampler's state (its factors carry rounding from rank-one updates): a
    draw equal to the truth must give a bit-identical value, or the random tie-breaking
    of the ranks would be replaced by the direction of rounding errors.
    """
    K = GLDA_TOPICS
    n_dk = np.zeros((GLDA_DOCS, K), dtype=np.int64)
    np.add.at(n_dk, (doc, z), 1)
    n_k = n_dk.sum(axis=0)
    return np.array(
        [
            _log_dirichlet_multinomial(n_dk, np.full(K, GLDA_ALPHA)),
            _log_marginal_niw(vectors, z),
            float(np.sum(n_dk**2)),
            float(n_k @ n_k),
        ]
    )


def _glda(
    method: str, mh: str | None = None, psi_factor: float = 1.0, **step_options: Any
) -> Callable[[np.random.Generator, int], NDArray]:
    """Power checks only: ``mh``, alias-MH with a wrong MH step
    (:func:`bayeswe.sbc.faulty_glda.step`); ``psi_factor != 1``, the sampler's prior
    scale ``Psi`` multiplied by it."""

    def run(rng: np.random.Generator, seed: int) -> NDArray[np.int64]:
        from bayeswe.samplers import gaussian_lda as glda
        from bayeswe.sbc import faulty_glda

        def sweep(problem: Any, state: Any) -> None:
            if mh is None:
                glda.step(problem, state, method=method, **step_options)
            else:
                faulty_glda.step(problem, state, mh=mh, **step_options)

        data, z_true = _glda_draw(rng)
        problem = glda.GLDAProblem.from_data(data)
        if psi_factor != 1.0:
            psi = problem.Psi0 * psi_factor
            problem = dataclasses.replace(
                problem, Psi0=psi, logdet_psi0=float(np.linalg.slogdet(psi)[1])
            )
        state = glda.init_state(problem, seed=seed, method=method, z=z_true)
        vectors, doc = problem.emb[problem.tok_word], problem.tok_doc
        truth = _glda_statistics(vectors, doc, z_true)
        draws = np.empty((N_DRAWS, len(GLDA_STATS)))
        for _ in range(TOPIC_WARMUP):
            sweep(problem, state)
        for i in range(N_DRAWS):
            for _ in range(TOPIC_THIN):
                sweep(problem, state)
            draws[i] = _glda_statistics(vectors, doc, state.z)
        return rank_of(truth, draws, rng)

    return run


# --------------------------------------------------------------------- DP mixture

DP_POINTS, DP_DIM = 12, 2
DP_SHAPE, DP_RATE = 2.0, 1.5  # alpha ~ Gamma(shape, rate): prior mean 1.33
DP_KAPPA, DP_NU = 0.5, DP_DIM + 2.0
DP_PSI = np.array([[0.6, 0.1], [0.1, 0.4]])
DP_WARMUP, DP_THIN = 100, 5
DP_STATS = (
    "alpha",
    "n_clusters",
    "log_marginal",
    "sum_n_k_squared",
    "n_singletons",
    "size_of_point_0",
)


def _dp_draw(rng: np.random.Generator) -> tuple[Any, NDArray[np.int64], float]:
    """Data, true partition and alpha from the DP mixture's generative model.

    ``alpha ~ Gamma(shape, rate)``; ``z`` from the Chinese restaurant process; per
    cluster ``Sigma ~ IW(nu, Psi)``, ``mu ~ N(0, Sigma / kappa)``; ``y ~ N(mu_z, Sigma_z)``.
    """
    from bayeswe.dp import DPMixtureData

    alpha = rng.gamma(DP_SHAPE, 1.0 / DP_RATE)
    z = np.zeros(DP_POINTS, dtype=np.int64)
    sizes = [1]
    for i in range(1, DP_POINTS):
        p = np.array([*sizes, alpha]) / (i + alpha)
        k = int(rng.choice(len(p), p=p))
        if k == len(sizes):
            sizes.append(0)
        sizes[k] += 1
        z[i] = k
    y = np.empty((DP_POINTS, DP_DIM))
    for k in range(len(sizes)):
        Sigma = stats.invwishart(df=DP_NU, scale=DP_PSI).rvs(random_state=rng)
        mu = rng.multivariate_normal(np.zeros(DP_DIM), Sigma / DP_KAPPA)
        y[z == k] = rng.multivariate_normal(mu, Sigma, size=sizes[k])
    data = DPMixtureData(
        y, truncation=DP_POINTS, alpha_shape=DP_SHAPE, alpha_rate=DP_RATE,
        mu0=np.zeros(DP_DIM), kappa0=DP_KAPPA, nu0=DP_NU, Psi0=DP_PSI,
    )  # fmt: skip
    return data, z, float(alpha)


def dp_statistics(y: NDArray[np.float64], z: NDArray[np.int64], alpha: float) -> NDArray:
    """:data:`DP_STATS` of a partition, recomputed from ``z`` (labels do not matter)."""
    labels, sizes = np.unique(z, return_counts=True)
    return np.array(
        [
            alpha,
            float(labels.size),
            label_free_sum(niw_log_marginals(y, z, DP_KAPPA, DP_NU, DP_PSI)),
            float(sizes @ sizes),
            float((sizes == 1).sum()),
            float((z == z[0]).sum()),
        ]
    )


def dp_replication(
    alpha_update: Callable[[Any, Any, float], float] | None = None,
) -> Callable[[np.random.Generator, int], NDArray[np.int64]]:
    """The DP-mixture case; ``alpha_update(problem, state, alpha) -> alpha`` replaces
    Escobar-West's update (power checks, built in the tests)."""

    def run(rng: np.random.Generator, seed: int) -> NDArray[np.int64]:
        from bayeswe.kernels import dp_mixture as kern
        from bayeswe.samplers import dp_mixture as dpm
        from bayeswe.samplers.dp_options import SPLIT_MERGE

        data, z_true, alpha_true = _dp_draw(rng)
        problem = dpm.DPMixtureProblem.from_data(data)
        state = dpm.init_state(problem, seed, 0, {"z": z_true, "alpha": alpha_true})
        truth = dp_statistics(problem.y, z_true, alpha_true)
        draws = np.empty((N_DRAWS, len(DP_STATS)))

        def sweep() -> None:
            if alpha_update is None:
                dpm.step(problem, state, SPLIT_MERGE)
                return
            p, cl = problem.prior, state.clusters
            kern.gibbs_sweep(p, cl, problem.y, state.z, state.alpha, state.rng_state)
            for _ in range(SPLIT_MERGE):
                kern.split_merge(p, cl, problem.y, state.z, state.alpha, state.rng_state,
                                 state.members, state.side)  # fmt: skip
            state.alpha = alpha_update(problem, state, state.alpha)

        for _ in range(DP_WARMUP):
            sweep()
        for i in range(N_DRAWS):
            for _ in range(DP_THIN):
                sweep()
            draws[i] = dp_statistics(problem.y, state.z, state.alpha)
        return rank_of(truth, draws, rng)

    return run


# ------------------------------------------------------- DP mixture of multinomials

DPM_POINTS, DPM_LENGTHS = 10, (1, 6)  # tokens per point uniform on 1..6
DPM_BETA = np.array([0.3, 0.6, 0.9, 1.2])  # Dirichlet prior of a cluster's probabilities
DPM_STATS = DP_STATS  # alpha, clusters, log marginal, sum n_k^2, singletons, |cluster of 0|


def _dpm_log_marginals(x: NDArray[np.int64], z: NDArray[np.int64]) -> NDArray[np.float64]:
    """Per cluster of ``z``: the Dirichlet-multinomial marginal of its rows' tokens."""
    _, k = np.unique(z, return_inverse=True)
    c = np.zeros((int(k.max(initial=-1)) + 1, x.shape[1]), dtype=np.int64)
    np.add.at(c, k, x)
    b = DPM_BETA
    return (
        gammaln(b.sum())
        - gammaln(b.sum() + c.sum(axis=1))
        + (gammaln(b + c) - gammaln(b)).sum(axis=1)
    )


def dp_multinomial_statistics(x: NDArray[np.int64], z: NDArray[np.int64], alpha: float) -> NDArray:
    """:data:`DPM_STATS` of a partition, recomputed from ``z`` (labels do not matter)."""
    labels, sizes = np.unique(z, return_counts=True)
    return np.array(
        [
            alpha,
            float(labels.size),
            label_free_sum(_dpm_log_marginals(x, z)),
            float(sizes @ sizes),
            float((sizes == 1).sum()),
            float((z == z[0]).sum()),
        ]
    )


def dp_multinomial_replication(
    gibbs_sweep: Callable[..., Any] | None = None,
) -> Callable[[np.random.Generator, int], NDArray[np.int64]]:
    """The DP-multinomial case: ``alpha ~ Gamma(shape, rate)``, ``z`` from the CRP,
    ``phi_k ~ Dirichlet(beta)``, point lengths uniform, tokens from ``phi_{z_i}``;
    ``gibbs_sweep`` replaces the production Gibbs pass (power checks, built in the tests).
    """

    def run(rng: np.random.Generator, seed: int) -> NDArray[np.int64]:
        from bayeswe.dp import DPMultinomialData
        from bayeswe.kernels import dp_multinomial as kern
        from bayeswe.kernels.dp_mixture import sample_alpha
        from bayeswe.samplers import dp_multinomial as dpm
        from bayeswe.samplers.dp_options import SPLIT_MERGE

        alpha = float(rng.gamma(DP_SHAPE, 1.0 / DP_RATE))
        z = np.zeros(DPM_POINTS, dtype=np.int64)
        sizes = [1]
        for i in range(1, DPM_POINTS):
            p = np.array([*sizes, alpha]) / (i + alpha)
            k = int(rng.choice(len(p), p=p))
            if k == len(sizes):
                sizes.append(0)
            sizes[k] += 1
            z[i] = k
        phi = rng.dirichlet(DPM_BETA, size=len(sizes))
        lengths = rng.integers(DPM_LENGTHS[0], DPM_LENGTHS[1], size=DPM_POINTS, endpoint=True)
        x = np.stack([rng.multinomial(lengths[i], phi[z[i]]) for i in range(DPM_POINTS)])
        data = DPMultinomialData(
            x, truncation=DPM_POINTS, alpha_shape=DP_SHAPE, alpha_rate=DP_RATE, beta=DPM_BETA
        )
        problem = dpm.DPMultinomialProblem.from_data(data)
        state = dpm.init_state(problem, seed, 0, {"z": z, "alpha": alpha})
        truth = dp_multinomial_statistics(x, z, alpha)
        draws = np.empty((N_DRAWS, len(DPM_STATS)))

        def sweep() -> None:
            if gibbs_sweep is None:
                dpm.step(problem, state, SPLIT_MERGE)
                return
            p, cl, pts = problem.prior, state.clusters, problem.points
            gibbs_sweep(p, cl, pts, state.z, state.alpha, state.rng_state)
            for _ in range(SPLIT_MERGE):
                kern.split_merge(p, cl, pts, state.z, state.alpha, state.rng_state,
                                 state.members, state.side)  # fmt: skip
            K, pr = int(cl.counts[0]), problem.prior
            state.alpha = sample_alpha(state.alpha, K, problem.n_points, pr.alpha_shape,
                                       pr.alpha_rate, state.rng_state)  # fmt: skip

        for _ in range(DP_WARMUP):
            sweep()
        for i in range(N_DRAWS):
            for _ in range(DP_THIN):
                sweep()
            draws[i] = dp_multinomial_statistics(x, state.z, state.alpha)
        return rank_of(truth, draws, rng)

    return run


# ----------------------------------------------------------------------------- registry

# --------------------------------------------------------------------------- HDP-LDA

HDP_DOCS, HDP_DOC_LENGTH, HDP_WORDS, HDP_ETA = 4, 6, 5, 0.4
HDP_ALPHA0, HDP_GAMMA = 1.5, 0.8
#: Gamma priors (shape, rate) of alpha0 and gamma when they are resampled (same means).
HDP_ALPHA0_PRIOR, HDP_GAMMA_PRIOR = (3.0, 2.0), (2.0, 2.5)
HDP_STATS = ("n_topics", "n_tables", "log_p_w_given_z", "sum_n_k_squared", "sum_n_dk_squared")


def _hdp_statistics(z: NDArray, words: NDArray, m_total: int) -> list[float]:
    from bayeswe.dp.crf import log_p_words

    _, n_k = np.unique(z, return_counts=True)
    _, n_dk = np.unique(
        np.repeat(np.arange(HDP_DOCS), HDP_DOC_LENGTH) * (int(z.max()) + 1) + z,
        return_counts=True,
    )
    return [
        float(n_k.size),
        float(m_total),
        log_p_words(z, words, HDP_WORDS, HDP_ETA),
        float((n_k.astype(np.int64) ** 2).sum()),
        float((n_dk.astype(np.int64) ** 2).sum()),
    ]


def _hdp_lda(
    resample: bool,
    step: Callable[..., Any] | None = None,
    method: str = "cgs",
    split_merge: int = 0,
    scans: int = 0,
) -> Callable[[np.random.Generator, int], NDArray[np.int64]]:
    """``step``: the sweep to calibrate (default :func:`bayeswe.samplers.hdp_lda.step`,
    or :func:`~bayeswe.samplers.hdp_lda.step_alias` for ``method="alias-mh"``), with
    ``split_merge`` split-merge proposals per sweep, each launched by ``scans``
    restricted Gibbs scans."""

    def run(rng: np.random.Generator, seed: int) -> NDArray[np.int64]:
        from bayeswe.dp.crf import crf_draw, words_given_topics
        from bayeswe.kernels.hdp_structs import Corpus
        from bayeswe.samplers import hdp_lda as hdp

        default = hdp.step_alias if method == "alias-mh" else hdp.step
        sweep = default if step is None else step
        if split_merge:
            sweep = functools.partial(sweep, split_merge=split_merge, split_merge_scans=scans)
        alpha0, gamma = HDP_ALPHA0, HDP_GAMMA
        if resample:
            alpha0 = rng.gamma(HDP_ALPHA0_PRIOR[0], 1 / HDP_ALPHA0_PRIOR[1])
            gamma = rng.gamma(HDP_GAMMA_PRIOR[0], 1 / HDP_GAMMA_PRIOR[1])
        lengths = np.full(HDP_DOCS, HDP_DOC_LENGTH)
        truth = crf_draw(lengths, alpha0, gamma, rng)
        words = words_given_topics(truth.z, HDP_WORDS, HDP_ETA, rng)
        g = rng.gamma(np.append(truth.m_k, gamma).astype(float))  # beta | m (eq. 36)
        tok_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        problem = hdp.HDPProblem(
            corpus=Corpus(tok_ptr, words), doc_len=lengths, n_docs=HDP_DOCS,
            n_words=HDP_WORDS, eta=HDP_ETA, alpha0=HDP_ALPHA0, gamma=HDP_GAMMA, display=1,
            resample=resample, alpha0_prior=HDP_ALPHA0_PRIOR, gamma_prior=HDP_GAMMA_PRIOR,
        )  # fmt: skip
        state = hdp.state_from_assignments(
            problem, truth.z, g[:-1] / g.sum(), g[-1] / g.sum(),
            rng_state=hdp.chain_stream(seed, 0), alpha0=alpha0, gamma=gamma,
        )  # fmt: skip
        extra = [alpha0, gamma] if resample else []
        true_stats = np.array(_hdp_statistics(truth.z, words, truth.n_tables) + extra)
        draws = np.empty((N_DRAWS, true_stats.size))
        for _ in range(TOPIC_WARMUP):
            sweep(problem, state)
        for i in range(N_DRAWS):
            for _ in range(TOPIC_THIN):
                sweep(problem, state)
            extra = [state.alpha0, state.gamma] if resample else []
            draws[i] = _hdp_statistics(state.counts.z, words, state.n_tables) + extra
        return rank_of(true_stats, draws, rng)

    return run


# ------------------------------------------------------------ infinite Gaussian LDA

#: Infinite Gaussian LDA's design: HDP-LDA's documents and concentrations, Gaussian LDA's
#: NIW prior (mu0 = 0), each token its own word type so that the vectors are exact draws.
HDP_GLDA_STATS = ("n_topics", "n_tables", "log_p_v_given_z", "sum_n_k_squared",
                  "sum_n_dk_squared")  # fmt: skip


def _hdp_glda_statistics(vectors: NDArray, z: NDArray, m_total: int) -> list[float]:
    """Label-free statistics, computed afresh from ``z`` and the vectors (not from the
    sampler's factors, so that a draw equal to the truth gives bit-identical values)."""
    _, n_k = np.unique(z, return_counts=True)
    _, n_dk = np.unique(
        np.repeat(np.arange(HDP_DOCS), HDP_DOC_LENGTH) * (int(z.max()) + 1) + z,
        return_counts=True,
    )
    return [
        float(n_k.size),
        float(m_total),
        _log_marginal_niw(vectors, z),
        float((n_k.astype(np.int64) ** 2).sum()),
        float((n_dk.astype(np.int64) ** 2).sum()),
    ]


def _hdp_glda(
    step: Callable[..., Any] | None = None, split_merge: int = 0, scans: int = 0
) -> Callable[[np.random.Generator, int], NDArray[np.int64]]:
    """``step``: the sweep to calibrate (default
    :func:`bayeswe.samplers.hdp_gaussian_lda.step`), with ``split_merge`` split-merge
    proposals per sweep, each launched by ``scans`` restricted Gibbs scans."""

    def run(rng: np.random.Generator, seed: int) -> NDArray[np.int64]:
        from bayeswe.corpus import BagOfWords, Vocabulary
        from bayeswe.dp.crf import crf_draw
        from bayeswe.glda.hdp_data import HDPGaussianLDAData
        from bayeswe.samplers import hdp_gaussian_lda as igl

        sweep = igl.step if step is None else step
        if split_merge:
            sweep = functools.partial(sweep, split_merge=split_merge, split_merge_scans=scans)
        lengths = np.full(HDP_DOCS, HDP_DOC_LENGTH)
        truth = crf_draw(lengths, HDP_ALPHA0, HDP_GAMMA, rng)
        K, D = truth.n_topics, GLDA_DIM
        Sigma = stats.invwishart(df=GLDA_NU, scale=GLDA_PSI).rvs(size=K, random_state=rng)
        Sigma = np.asarray(Sigma).reshape(K, D, D)
        mu = np.stack([rng.multivariate_normal(np.zeros(D), S / GLDA_KAPPA) for S in Sigma])
        vectors = np.stack([rng.multivariate_normal(mu[k], Sigma[k]) for k in truth.z])
        N = vectors.shape[0]
        vocab = Vocabulary(tuple(f"w{i}" for i in range(N)), np.ones(N, dtype=np.int64))
        docs = [np.arange(d * HDP_DOC_LENGTH, (d + 1) * HDP_DOC_LENGTH) for d in range(HDP_DOCS)]
        data = HDPGaussianLDAData(
            BagOfWords.from_token_ids(docs, vocab), vectors, gamma=HDP_GAMMA,
            alpha0=HDP_ALPHA0, mu0=np.zeros(D), kappa=GLDA_KAPPA, nu=GLDA_NU, Psi=GLDA_PSI,
            truncation=1,
        )  # fmt: skip
        problem = igl.HDPGLDAProblem.from_data(data)
        g = rng.gamma(np.append(truth.m_k, HDP_GAMMA).astype(float))  # beta | m (eq. 36)
        state = igl.state_from_assignments(
            problem, truth.z, g[:-1] / g.sum(), g[-1] / g.sum(),
            rng_state=igl.chain_stream(seed, 0), alpha0=HDP_ALPHA0, gamma=HDP_GAMMA,
        )  # fmt: skip
        true_stats = np.array(_hdp_glda_statistics(vectors, truth.z, truth.n_tables))
        draws = np.empty((N_DRAWS, true_stats.size))
        for _ in range(TOPIC_WARMUP):
            sweep(problem, state)
        for i in range(N_DRAWS):
            for _ in range(TOPIC_THIN):
                sweep(problem, state)
            draws[i] = _hdp_glda_statistics(vectors, state.assign.z, state.n_tables)
        return rank_of(true_stats, draws, rng)

    return run


_SGNS_DESIGN = (
    f"identified SGNS, V={SGNS_V}, K={SGNS_K}, prior sd lambda={SGNS_LAMBDA}, context "
    f"vectors of words {SGNS_FIXED.tolist()} fixed; all {SGNS_V**2} (target, context) pairs "
    f"observed n={SGNS_PAIR_COUNT} times; ranks of the 12 rho and 8 free alpha entries"
)
_LDA_DESIGN = (
    f"LDA, {LDA_DOCS} documents x {LDA_DOC_LENGTH} tokens, V={LDA_WORDS}, K={LDA_TOPICS}, "
    f"alpha={LDA_ALPHA}, beta={LDA_BETA}; chain started at the true z, {TOPIC_WARMUP} sweeps "
    f"discarded, every {TOPIC_THIN}th kept; label-invariant statistics of z"
)
_GLDA_DESIGN = (
    f"Gaussian LDA, {GLDA_DOCS} documents x {GLDA_DOC_LENGTH} tokens (each its own word type), "
    f"K={GLDA_TOPICS}, D={GLDA_DIM}, alpha={GLDA_ALPHA}, kappa={GLDA_KAPPA}, nu={GLDA_NU}, "
    f"Psi={GLDA_PSI.tolist()}; chain started at the true z, {TOPIC_WARMUP} sweeps discarded, "
    f"every {TOPIC_THIN}th kept; label-invariant statistics of z"
)
_DP_DESIGN = (
    f"DP mixture of Gaussians, N={DP_POINTS} points, P={DP_DIM}, alpha ~ Gamma({DP_SHAPE}, "
    f"rate {DP_RATE}), kappa0={DP_KAPPA}, nu0={DP_NU}, Psi0={DP_PSI.tolist()}, mu0=0; "
    f"Neal's algorithm 3 + 3 SAMS split-merge proposals + Escobar-West alpha per sweep; "
    f"chain started at the true z and alpha, {DP_WARMUP} sweeps discarded, every "
    f"{DP_THIN}th kept; label-free statistics of (z, alpha)"
)
_DPM_DESIGN = (
    f"DP mixture of multinomials, N={DPM_POINTS} points of {DPM_LENGTHS[0]}-{DPM_LENGTHS[1]} "
    f"tokens (uniform), V={DPM_BETA.size}, beta={DPM_BETA.tolist()}, alpha ~ "
    f"Gamma({DP_SHAPE}, rate {DP_RATE}); Neal's algorithm 3 + 3 SAMS split-merge proposals "
    f"+ Escobar-West alpha per sweep; chain started at the true z and alpha, {DP_WARMUP} "
    f"sweeps discarded, every {DP_THIN}th kept; label-free statistics of (z, alpha)"
)
_HDP_DESIGN = (
    f"HDP-LDA, {HDP_DOCS} documents x {HDP_DOC_LENGTH} tokens, V={HDP_WORDS}, eta={HDP_ETA}; "
    f"topics from the Chinese restaurant franchise; chain started at the true z and "
    f"beta | m, {TOPIC_WARMUP} sweeps discarded, every {TOPIC_THIN}th kept; label-free "
    "statistics of z and the table counts"
)
_HDP_FIXED = f"; alpha0={HDP_ALPHA0}, gamma={HDP_GAMMA} fixed"
_HDP_RESAMPLED = (
    f"; alpha0 ~ Gamma{HDP_ALPHA0_PRIOR}, gamma ~ Gamma{HDP_GAMMA_PRIOR} (shape, rate), "
    "resampled every sweep and ranked"
)
_HDP_GLDA_DESIGN = (
    f"infinite Gaussian LDA (HDP with NIW topics), {HDP_DOCS} documents x {HDP_DOC_LENGTH} "
    f"tokens (each its own word type), D={GLDA_DIM}, kappa={GLDA_KAPPA}, nu={GLDA_NU}, "
    f"Psi={GLDA_PSI.tolist()}, mu0=0, alpha0={HDP_ALPHA0}, gamma={HDP_GAMMA} fixed; topics "
    f"from the Chinese restaurant franchise; chain started at the true z and beta | m, "
    f"{TOPIC_WARMUP} sweeps discarded, every {TOPIC_THIN}th kept; label-free statistics of "
    "z, the vectors and the table counts"
)
#: alias-MH whose proposal never changes after a word's first table (an exact MH step)
_FROZEN: dict[str, Any] = {"scan": "document", "rebuild_every": 10**9, "fresh_doc": False}
_PG = f"; {PG_WARMUP} sweeps from the true values discarded, every {PG_THIN}th kept"
_SGNS_FREE_DESIGN = (
    f"unidentified SGNS (every context vector free), V={SGNS_V}, K={SGNS_K}, prior sd "
    f"lambda={SGNS_LAMBDA}; all {SGNS_V**2} (target, context) pairs observed "
    f"n={SGNS_PAIR_COUNT} times; ranks of the {SGNS_V**2} logits rho_w . alpha_v and the "
    f"squared norms of the {2 * SGNS_V} vectors (gauge-free)"
)

#: name -> (case, replication function)
CASES: dict[str, tuple[SBCCase, Callable[[np.random.Generator, int], NDArray[np.int64]]]] = {
    "pg-gibbs-per-sweep": (
        SBCCase("pg-gibbs-per-sweep", _SGNS_DESIGN + _PG, SGNS_STATS, {"omega": "per-sweep"}),
        _pg_gibbs("per-sweep"),
    ),
    "pg-gibbs-per-block": (
        SBCCase("pg-gibbs-per-block", _SGNS_DESIGN + _PG, SGNS_STATS, {"omega": "per-block"}),
        _pg_gibbs("per-block"),
    ),
    "pg-gibbs-unidentified": (
        SBCCase(
            "pg-gibbs-unidentified",
            _SGNS_FREE_DESIGN + _PG,
            SGNS_FREE_STATS,
            {"identified": False, "gauge_moves": True},
        ),  # fmt: skip
        _pg_gibbs_unidentified(),
    ),
    "lda-cgs": (
        SBCCase("lda-cgs", _LDA_DESIGN, LDA_STATS, {"algorithm": "sparse"}),
        _lda_cgs("sparse"),
    ),
    "lda-cgs-dense": (
        SBCCase("lda-cgs-dense", _LDA_DESIGN, LDA_STATS, {"algorithm": "dense"}),
        _lda_cgs("dense"),
    ),
    "glda-cgs": (SBCCase("glda-cgs", _GLDA_DESIGN, GLDA_STATS, {"method": "cgs"}), _glda("cgs")),
    "glda-alias-mh": (
        SBCCase(
            "glda-alias-mh",
            _GLDA_DESIGN + "; the default scan by word",
            GLDA_STATS,
            {"method": "alias-mh", "mh_steps": 2, "scan": "word (default)"},
        ),  # fmt: skip
        _glda("alias-mh"),
    ),
    "glda-alias-mh-document": (
        SBCCase(
            "glda-alias-mh-document",
            _GLDA_DESIGN + "; the paper's scan in corpus order",
            GLDA_STATS,
            {"method": "alias-mh", "mh_steps": 2, "scan": "document", "rebuild_every": "K"},
        ),  # fmt: skip
        _glda("alias-mh", scan="document"),
    ),
    "glda-alias-mh-frozen": (
        SBCCase(
            "glda-alias-mh-frozen",
            _GLDA_DESIGN + "; tables frozen after their first build",
            GLDA_STATS,
            {"method": "alias-mh", "mh_steps": 2, **_FROZEN},
        ),  # fmt: skip
        _glda("alias-mh", **_FROZEN),
    ),
    "dp-mixture-cgs": (
        SBCCase("dp-mixture-cgs", _DP_DESIGN, DP_STATS, {"split_merge": 3}),
        dp_replication(),
    ),
    "dp-multinomial-cgs": (
        SBCCase("dp-multinomial-cgs", _DPM_DESIGN, DPM_STATS, {"split_merge": 3}),
        dp_multinomial_replication(),
    ),
    "hdp-lda-cgs": (SBCCase("hdp-lda-cgs", _HDP_DESIGN + _HDP_FIXED, HDP_STATS), _hdp_lda(False)),
    "hdp-lda-cgs-resample": (
        SBCCase(
            "hdp-lda-cgs-resample",
            _HDP_DESIGN + _HDP_RESAMPLED,
            (*HDP_STATS, "alpha0", "gamma"),
            {"resample_concentrations": True},
        ),  # fmt: skip
        _hdp_lda(True),
    ),
    "hdp-lda-cgs-split-merge": (
        SBCCase(
            "hdp-lda-cgs-split-merge",
            _HDP_DESIGN + _HDP_FIXED + "; 3 split-merge proposals per sweep",
            HDP_STATS,
            {"split_merge": 3},
        ),  # fmt: skip
        _hdp_lda(False, split_merge=3),
    ),
    "hdp-lda-cgs-split-merge-scans": (
        SBCCase(
            "hdp-lda-cgs-split-merge-scans",
            _HDP_DESIGN + _HDP_FIXED + "; 3 split-merge proposals per sweep, each launched "
            "by 2 restricted Gibbs scans",
            HDP_STATS,
            {"split_merge": 3, "split_merge_scans": 2},
        ),  # fmt: skip
        _hdp_lda(False, split_merge=3, scans=2),
    ),
    "hdp-gaussian-lda-cgs": (
        SBCCase("hdp-gaussian-lda-cgs", _HDP_GLDA_DESIGN, HDP_GLDA_STATS),
        _hdp_glda(),
    ),
    "hdp-gaussian-lda-cgs-split-merge": (
        SBCCase(
            "hdp-gaussian-lda-cgs-split-merge",
            _HDP_GLDA_DESIGN + "; 3 split-merge proposals per sweep",
            HDP_GLDA_STATS,
            {"split_merge": 3},
        ),  # fmt: skip
        _hdp_glda(split_merge=3),
    ),
    "hdp-gaussian-lda-cgs-split-merge-scans": (
        SBCCase(
            "hdp-gaussian-lda-cgs-split-merge-scans",
            _HDP_GLDA_DESIGN + "; 3 split-merge proposals per sweep, each launched by 2 "
            "restricted Gibbs scans",
            HDP_GLDA_STATS,
            {"split_merge": 3, "split_merge_scans": 2},
        ),  # fmt: skip
        _hdp_glda(split_merge=3, scans=2),
    ),
    "hdp-lda-alias-mh": (
        SBCCase(
            "hdp-lda-alias-mh",
            _HDP_DESIGN + _HDP_FIXED + "; tokens by word, each word's alias table built at "
            "its first token and corrected for the topics its tokens move",
            HDP_STATS,
            {"method": "alias-mh"},
        ),  # fmt: skip
        _hdp_lda(False, method="alias-mh"),
    ),
    "advi-meanfield": (
        SBCCase(
            "advi-meanfield",
            _SGNS_DESIGN + "; Stan ADVI, 99 draws from q",
            SGNS_STATS,
            {"method": "advi"},
            approximate=True,
        ),  # fmt: skip
        _stan_sgns("advi"),
    ),
    "advi-fullrank": (
        SBCCase(
            "advi-fullrank",
            _SGNS_DESIGN + "; Stan ADVI, 99 draws from q",
            SGNS_STATS,
            {"method": "advi-fullrank"},
            approximate=True,
        ),  # fmt: skip
        _stan_sgns("advi-fullrank"),
    ),
    "pathfinder": (
        SBCCase(
            "pathfinder",
            _SGNS_DESIGN + "; Stan Pathfinder, 99 draws",
            SGNS_STATS,
            {"method": "pathfinder"},
            approximate=True,
        ),  # fmt: skip
        _stan_sgns("pathfinder"),
    ),
}

#: Deliberately wrong samplers, for the power checks of the tests (not in the CLI).
BROKEN: dict[str, tuple[SBCCase, Callable[[np.random.Generator, int], NDArray[np.int64]]]] = {
    "pg-gibbs-unidentified-lambda-x1.3": (
        SBCCase(
            "pg-gibbs-unidentified-lambda-x1.3",
            _SGNS_FREE_DESIGN + "; sampler's prior sd 1.3x the prior's",
            SGNS_FREE_STATS,
        ),  # fmt: skip
        _pg_gibbs_unidentified(prior_factor=1.3),
    ),
    "lda-cgs-alpha-x4": (
        SBCCase(
            "lda-cgs-alpha-x4", _LDA_DESIGN + "; sampler's alpha 4x the prior's", LDA_STATS
        ),  # fmt: skip
        _lda_cgs("sparse", prior_factor=4.0),
    ),
    "glda-cgs-psi-x2": (
        SBCCase("glda-cgs-psi-x2", _GLDA_DESIGN + "; sampler's Psi 2x the prior's", GLDA_STATS),
        _glda("cgs", psi_factor=2.0),
    ),
    "glda-alias-mh-log-ratio": (
        SBCCase(
            "glda-alias-mh-log-ratio",
            _GLDA_DESIGN + "; tables frozen, MH ratio of log-densities in place of densities",
            GLDA_STATS,
        ),  # fmt: skip
        _glda("alias-mh", mh="log-densities", **_FROZEN),
    ),
    "glda-alias-mh-always-accept": (
        SBCCase(
            "glda-alias-mh-always-accept",
            _GLDA_DESIGN + "; tables frozen after their first build, MH step always "
            "accepts (the reference implementation's bug)",
            GLDA_STATS,
        ),  # fmt: skip
        _glda("alias-mh", mh="always-accept", **_FROZEN),
    ),
}


def case_names() -> tuple[str, ...]:
    return tuple(CASES)


def _lookup(name: str) -> tuple[SBCCase, Callable[[np.random.Generator, int], NDArray]]:
    if name in CASES:
        return CASES[name]
    if name in BROKEN:
        return BROKEN[name]
    raise KeyError(name)


def replicate(name: str, seed: int, rep: int) -> NDArray[np.int64]:
    """Ranks of replication ``rep`` of case ``name``: a function of ``(seed, rep)`` only."""
    _, run = _lookup(name)
    ss = np.random.SeedSequence(seed, spawn_key=(rep,))
    sim_ss, sampler_ss = ss.spawn(2)
    rng = np.random.default_rng(sim_ss)
    sampler_seed = int(sampler_ss.generate_state(1, np.uint32)[0])
    return run(rng, sampler_seed)
