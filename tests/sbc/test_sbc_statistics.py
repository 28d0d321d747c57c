"""The SBC cases' label-free statistics: right values, and bit-identical under relabelling.

SBC breaks a tie between the truth and a draw at random, which needs a draw equal to
the truth up to its labels to give the very same number: a sum over topics in label
order can round the other way, and then the rounding direction, not the tie-break,
decides the rank.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayeswe.dp.crf import log_p_words
from bayeswe.sbc import cases


def _niw_chain_rule(x: np.ndarray, kappa0: float, nu0: float, psi0: np.ndarray) -> float:
    """``log p(x_1..x_n)`` as a product of Student-t predictives (mu0 = 0), a route that
    shares nothing with the closed form but the prior."""
    D = x.shape[1]
    total, mean, kappa, nu, psi = 0.0, np.zeros(D), kappa0, nu0, psi0.copy()
    for xi in x:
        df = nu - D + 1
        shape = psi * (kappa + 1) / (kappa * df)
        total += stats.multivariate_t(loc=mean, shape=shape, df=df).logpdf(xi)
        d = xi - mean
        psi = psi + (kappa / (kappa + 1)) * np.outer(d, d)
        mean = (kappa * mean + xi) / (kappa + 1)
        kappa, nu = kappa + 1, nu + 1
    return total


def test_niw_log_marginals_match_the_chain_of_predictives() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(11, 2)) * [1.0, 0.5] + [0.3, -0.2]
    z = np.array([5, 2, 5, 5, 9, 2, 5, 9, 9, 2, 7])  # four clusters, one a singleton
    psi0 = np.array([[0.6, 0.1], [0.1, 0.4]])
    got = cases.niw_log_marginals(x, z, 0.5, 4.0, psi0)
    expected = [_niw_chain_rule(x[z == k], 0.5, 4.0, psi0) for k in np.unique(z)]
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def _relabellings(z: np.ndarray, n: int, seed: int):
    rng = np.random.default_rng(seed)
    labels = np.unique(z)
    for _ in range(n):
        new = rng.permutation(labels.size) * 3 + 1  # other values, other order
        yield new[np.searchsorted(labels, z)]


def test_statistics_are_bit_identical_under_relabelling() -> None:
    rng = np.random.default_rng(5)
    y = rng.normal(size=(12, 2))
    z = rng.integers(0, 6, size=12)
    alpha = 1.3
    dp = cases.dp_statistics(y, z, alpha)
    x = rng.integers(0, 3, size=(12, 4))
    dpm = cases.dp_multinomial_statistics(x, z, alpha)
    words = rng.integers(0, 5, size=12)
    hdp = log_p_words(z, words, 5, 0.4)
    seen = set()
    for zz in _relabellings(z, 300, 6):
        assert cases.dp_statistics(y, zz, alpha).tolist() == dp.tolist()
        assert cases.dp_multinomial_statistics(x, zz, alpha).tolist() == dpm.tolist()
        assert log_p_words(zz, words, 5, 0.4) == hdp
        seen.add(cases.label_free_sum(cases.niw_log_marginals(y, zz, 0.5, 4.0, np.eye(2))))
    assert len(seen) == 1


def test_fixed_k_statistics_are_bit_identical_under_permuted_topics() -> None:
    rng = np.random.default_rng(7)
    K = cases.GLDA_TOPICS
    n_docs, length = cases.GLDA_DOCS, cases.GLDA_DOC_LENGTH
    vectors = rng.normal(size=(n_docs * length, cases.GLDA_DIM))
    doc = np.repeat(np.arange(n_docs), length)
    z = rng.integers(0, K, size=doc.size)
    glda = cases._glda_statistics(vectors, doc, z)
    assert cases._glda_statistics(vectors, doc, (K - 1) - z).tolist() == glda.tolist()
    # LDA: the count matrices with their topic columns permuted
    n_dk = rng.integers(0, 9, size=(6, 7))
    n_wk = rng.integers(0, 9, size=(8, 7))
    lda = cases._lda_statistics(n_dk, n_wk, 0.5, 0.3)
    for perm in (rng.permutation(7) for _ in range(100)):
        got = cases._lda_statistics(n_dk[:, perm], n_wk[:, perm], 0.5, 0.3)
        assert got.tolist() == lda.tolist()


def test_label_free_sum_is_correctly_rounded() -> None:
    terms = np.array([1e16, 1.0, -1e16, 1.0])
    assert cases.label_free_sum(terms) == 2.0  # a naive left-to-right sum gives 1.0
    assert cases.label_free_sum(terms[::-1]) == 2.0
    assert cases.label_free_sum(np.zeros(0)) == 0.0


@pytest.mark.parametrize("n", [1, 2, 9])
def test_a_cluster_of_one_point_or_more_matches(n: int) -> None:
    x = np.random.default_rng(n).normal(size=(n, 2))
    got = cases.niw_log_marginals(x, np.zeros(n, dtype=int), 1.0, 3.0, np.eye(2))
    assert got.shape == (1,)
    assert got[0] == pytest.approx(_niw_chain_rule(x, 1.0, 3.0, np.eye(2)), rel=1e-10)
