"""Alias-MH on a corpus where word types repeat across documents: stationarity vs exact cgs.

``test_glda_stationarity.py`` enumerates a 10-token problem in which every word type
has one token, so a word's alias table is only ever rebuilt by its own token. Here
D = 24 documents of 6 tokens draw from V = 8 word types (each type has ~18 tokens in
~13 documents), K = 3, D_emb = 2: a table built while one token of a type is
sampled serves the type's other tokens, in other documents, sweeps later, so the
proposal of a token depends on the past topics of the others. This is where stale
tables could bias the chain.

The exact answer: 4 chains of exact collapsed Gibbs (``cgs``) of 30,000 sweeps each
(its invariance is checked against enumeration in ``test_glda_stationarity.py``).
Statistics (label-invariant): ``lp``, the log joint log p(z, v), and ``S``, the number
of token pairs assigned the same topic. Each sampler's mean has an MCSE from batch
means (per chain, 50 batches); the test asks ``|z| < 4`` for
``z = (mean_alias - mean_cgs) / sqrt(MCSE_alias^2 + MCSE_cgs^2)``.

Batch means see only the variation within a chain. A single-site sampler can stay
in a local mode (one topic covering two clusters) for the whole run, and then the
chains disagree with each other, not the sampler with the target: with a prior
scatter of ``Psi = I`` one of four ``cgs`` chains stayed at lp = -227 (the others at
-189.5) for 30,000 sweeps, which looked like an alias-MH bias of 0.57 posterior sd.
So every run here must first pass R-hat < 1.01 (rank-normalized, ArviZ) on both
statistics, and the problem (``Psi = 3 I``) is one where all samplers mix.

Power: the smallest bias the test detects with probability 0.8 is
``(4 + 0.84) * sqrt(MCSE_alias^2 + MCSE_cgs^2)``; :func:`test_power_is_stated` asserts
it is below 0.05 posterior sd for both statistics (default scan by word, 30,000 sweeps a
chain); the other schedules run 15,000 sweeps a chain and each must detect 0.05 sd too
(they detect 0.040-0.044). Deliberately
wrong MH ratios fail: always accepting proposals from tables frozen at the random start
(``scan="document"``), and log-densities in place of densities in either scan
(``test_wrong_mh_ratio_fails``). Always accepting with fresh tables is *not* detectable
here (measured bias 0.03 sd): tables rebuilt every K uses are so close to the exact
conditional that MH accepts almost everything anyway.
"""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.glda import GaussianLDAData
from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, step
from bayeswe.sbc import faulty_glda

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

N_DOCS, DOC_LEN, N_TYPES, K, DIM = 24, 6, 8, 3, 2
CHAINS, CGS_SWEEPS, ALIAS_SWEEPS, BATCHES = 4, 30_000, 30_000, 50
# the other schedules' runs: half as long (each prints the bias it detects, about 0.04 sd)
VARIANT_SWEEPS = 15_000


def _repeated_data() -> GaussianLDAData:
    rng = np.random.default_rng(7)
    centres = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 1.2]])
    vectors = centres[np.arange(N_TYPES) % K] + 0.6 * rng.normal(size=(N_TYPES, DIM))
    # each document mixes two topics' words, so topics are shared across documents
    docs = []
    for d in range(N_DOCS):
        types = np.flatnonzero(np.isin(np.arange(N_TYPES) % K, [d % K, (d + 1) % K]))
        docs.append(rng.choice(types, size=DOC_LEN).tolist())
    vocab = Vocabulary(tuple(f"w{i}" for i in range(N_TYPES)))
    corpus = BagOfWords.from_token_ids(docs, vocab)
    return GaussianLDAData(
        corpus, vectors, n_topics=K, alpha=0.5, mu0=np.zeros(DIM), kappa=0.1, nu=DIM + 2.0,
        Psi=3.0 * np.eye(DIM),
    )  # fmt: skip


def _chains(problem: GLDAProblem, method: str, sweeps: int, **kw) -> np.ndarray:
    """(chains, sweeps, 2): lp and S after every sweep, 10 % of each chain dropped."""
    out = np.empty((CHAINS, sweeps, 2))
    for c in range(CHAINS):
        state = init_state(problem, seed=100 + c, method=method)
        for t in range(sweeps):
            lp = _step(problem, state, method, **kw)[1].lp
            counts = np.bincount(state.z, minlength=K)
            out[c, t] = lp, (counts * (counts - 1) // 2).sum()
    return out[:, sweeps // 10 :]


def _step(problem: GLDAProblem, state, method: str, mh: str | None = None, **kw):
    # mh: a deliberately wrong MH step of bayeswe.sbc.faulty_glda (alias-mh only)
    if mh is None:
        return step(problem, state, method=method, **kw)
    return faulty_glda.step(problem, state, mh=mh, **kw)


def _mean_and_mcse(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pooled mean, batch-means MCSE and sd of each statistic of (chains, draws, stats)."""
    chains, n, _ = x.shape
    n -= n % BATCHES
    batches = x[:, :n].reshape(chains, BATCHES, -1, x.shape[-1]).mean(axis=2)
    batches = batches.reshape(chains * BATCHES, -1)
    mcse = batches.std(axis=0, ddof=1) / np.sqrt(batches.shape[0])
    return x.reshape(-1, x.shape[-1]).mean(axis=0), mcse, x.reshape(-1, x.shape[-1]).std(axis=0)


@pytest.fixture(scope="module")
def problem() -> GLDAProblem:
    problem = GLDAProblem.from_data(_repeated_data())
    counts = np.bincount(problem.tok_word, minlength=N_TYPES)
    assert problem.n_tokens == N_DOCS * DOC_LEN and counts.min() >= 5
    return problem


def _cgs_reference(problem: GLDAProblem, sweeps: int) -> tuple[np.ndarray, ...]:
    """Mean, MCSE and sd of (lp, S) under exact collapsed Gibbs, chains checked to agree."""
    draws = _chains(problem, "cgs", sweeps)
    _assert_chains_agree(draws, "cgs reference")
    return _mean_and_mcse(draws)


@pytest.fixture(scope="module")
def reference(problem: GLDAProblem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _cgs_reference(problem, CGS_SWEEPS)


@pytest.fixture(scope="module")
def default_draws(problem: GLDAProblem) -> np.ndarray:
    return _chains(problem, "alias-mh", ALIAS_SWEEPS)


def _assert_chains_agree(draws: np.ndarray, what: str) -> None:
    rhat = np.array([float(az.rhat(draws[..., j])) for j in range(draws.shape[-1])])
    per_chain = draws.mean(axis=1).round(2).tolist()
    assert rhat.max() < 1.01, f"{what}: chains disagree, R-hat(lp, S) = {rhat}; {per_chain}"


def _z(reference, draws: np.ndarray) -> np.ndarray:
    mean_ref, mcse_ref, _ = reference
    mean, mcse, _ = _mean_and_mcse(draws)
    return (mean - mean_ref) / np.hypot(mcse, mcse_ref)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"fresh_doc": True},
        {"scan": "document"},
        {"scan": "document", "fresh_doc": True},
        {"scan": "document", "rebuild_every": 1},
        {"scan": "document", "rebuild_every": 10**9},
        {"scan": "document", "max_table_age": 2},
    ],
    ids=[
        "default-word-scan",
        "word-scan-fresh-doc",
        "document-scan",
        "document-scan-fresh-doc",
        "document-rebuild-every-use",
        "document-frozen-tables",
        "document-max-age-2",
    ],
)
def test_alias_mh_matches_exact_cgs(problem, reference, default_draws, options) -> None:
    draws = _chains(problem, "alias-mh", VARIANT_SWEEPS, **options) if options else default_draws
    _assert_chains_agree(draws, f"alias-mh {options}")
    z = _z(reference, draws)
    _, mcse_ref, sd = reference
    detectable = (4 + 0.84) * np.hypot(_mean_and_mcse(draws)[1], mcse_ref) / sd
    print(f"alias-mh {options}: z(lp, S) = {z.round(2)}, detects {detectable.round(3)} sd")
    assert np.abs(z).max() < 4, z
    assert detectable.max() < 0.05, detectable


@pytest.mark.parametrize(
    "options",
    [
        {"mh": "always-accept", "scan": "document", "rebuild_every": 10**9},
        {"mh": "log-densities", "scan": "document"},
        {"mh": "log-densities"},
    ],
    ids=["always-accept-frozen-tables", "log-densities-document-scan", "log-densities-word-scan"],
)
def test_wrong_mh_ratio_fails(problem, reference, options) -> None:
    draws = _chains(problem, "alias-mh", ALIAS_SWEEPS // 6, **options)
    z = _z(reference, draws)
    print(f"{options}: z(lp, S) = {z.round(2)}")
    assert np.abs(z).max() > 4, z


def test_power_is_stated(reference, default_draws) -> None:
    _, mcse_ref, sd = reference
    _, mcse, _ = _mean_and_mcse(default_draws)
    detectable = (4 + 0.84) * np.hypot(mcse, mcse_ref) / sd
    print(f"smallest bias detected with probability 0.8: {detectable.round(4)} posterior sd")
    assert detectable.max() < 0.05, detectable
