"""Alias-MH's scan in corpus order (adaptive tables) is biased once K is larger than a few topics.

``test_glda_alias_repeated.py`` finds no bias at K = 3. Here the corpus is of the same
kind (D = 24 documents of 6 tokens, word types repeated across documents, D_emb = 2)
with 16 word types around 4 clusters and K = 12 topics. In the paper's scan
(``scan="document"``, tokens in corpus order) a word's table is rebuilt by
one of its tokens and then serves its other tokens for ``rebuild_every`` (K) uses, so
a token's proposal depends on past states that are correlated with its current topic.

Tables rebuilt at every use (from the state without the token) are valid MH proposals
and agree with exact collapsed Gibbs (``test_exact_schedules_match_cgs``),
as does the scan by word (the default), which builds each word's table once per sweep
and uses it for the word's tokens in a row (the same test).
The scan in corpus order with tables rebuilt after K uses does not: its mean lp lies
above cgs's. Table densities are taken without
the word's own tokens (``_log_t_without_copies``), which removes the direct dependence
of a token's proposal on its own topic; measured with 4 chains of 3,000 sweeps, that
halved the bias (0.57 to 0.24 posterior sd of lp at K = 12, 1.04 to 0.58 sd at
K = 24) but left it detectable. It shrinks with fresher tables (rebuilt every 4 uses:
0.09 sd at K = 24) and more MH steps, and vanishes for frozen tables.
``test_document_scan_tables_match_cgs`` states the property that scan lacks and is
marked as a known failure (strict: it fails the suite once the bias is gone, so that
the docs and this marker get updated).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_glda_alias_repeated import (
    _assert_chains_agree,
    _cgs_reference,
    _chains,
    _mean_and_mcse,
    _z,
)

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.glda import GaussianLDAData
from bayeswe.samplers.gaussian_lda import GLDAProblem

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

N_DOCS, DOC_LEN, N_TYPES, CLUSTERS, K, DIM = 24, 6, 16, 4, 12, 2
SWEEPS = 4_000


def _data() -> GaussianLDAData:
    rng = np.random.default_rng(7)
    centres = rng.normal(scale=1.5, size=(CLUSTERS, DIM))
    cluster = np.arange(N_TYPES) % CLUSTERS
    vectors = centres[cluster] + 0.6 * rng.normal(size=(N_TYPES, DIM))
    docs = []
    for d in range(N_DOCS):
        types = np.flatnonzero(np.isin(cluster, [d % CLUSTERS, (d + 1) % CLUSTERS]))
        docs.append(rng.choice(types, size=DOC_LEN).tolist())
    vocab = Vocabulary(tuple(f"w{i}" for i in range(N_TYPES)))
    return GaussianLDAData(
        BagOfWords.from_token_ids(docs, vocab), vectors, n_topics=K, alpha=0.5,
        mu0=np.zeros(DIM), kappa=0.1, nu=DIM + 2.0, Psi=3.0 * np.eye(DIM),
    )  # fmt: skip


@pytest.fixture(scope="module")
def problem() -> GLDAProblem:
    problem = GLDAProblem.from_data(_data())
    counts = np.bincount(problem.tok_word, minlength=N_TYPES)
    # every type has several tokens, so tables serve tokens other than their builder
    assert problem.n_tokens == N_DOCS * DOC_LEN and counts.min() >= 4
    return problem


@pytest.fixture(scope="module")
def reference(problem: GLDAProblem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _cgs_reference(problem, SWEEPS)


@pytest.mark.parametrize(
    "options",
    [{"scan": "document", "rebuild_every": 1}, {}],
    ids=["document-rebuild-every-use", "default-word-scan"],
)
def test_exact_schedules_match_cgs(problem, reference, options) -> None:
    draws = _chains(problem, "alias-mh", SWEEPS, **options)
    _assert_chains_agree(draws, f"alias-mh {options}")
    z = _z(reference, draws)
    _, mcse_ref, sd = reference
    detectable = (4 + 0.84) * np.hypot(_mean_and_mcse(draws)[1], mcse_ref) / sd
    print(f"{options}: z(lp, S) = {z.round(2)}; bias detected w.p. 0.8: {detectable.round(3)} sd")
    assert np.abs(z).max() < 4, z
    # power: half the default's measured bias in lp (about 0.57 posterior sd) is detected
    assert detectable.max() < 0.25, detectable


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="known issue: in scan='document' alias tables rebuilt from past states serve a "
    "word's tokens for K uses, so the chain is adaptive (lp biased upward, z about 9 at "
    "K = 12)",
)
def test_document_scan_tables_match_cgs(problem, reference) -> None:
    draws = _chains(problem, "alias-mh", SWEEPS, scan="document")
    z = _z(reference, draws)
    print(f"scan='document' tables: z(lp, S) = {z.round(2)}")
    assert np.abs(z).max() < 4, z
