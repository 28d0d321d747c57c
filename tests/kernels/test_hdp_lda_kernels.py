"""HDP-LDA kernels: random variates, table counts, concentration updates, log joint."""

import math

import numpy as np
import pytest
from scipy.special import gammaln

from bayeswe.dp.crf import log_stirling
from bayeswe.kernels import hdp_lda as kern
from bayeswe.kernels.hdp_structs import Counts, Topics
from bayeswe.samplers.lda_cgs import chain_stream


def _z(sample: np.ndarray, mean: float, var: float) -> float:
    return (sample.mean() - mean) / math.sqrt(var / sample.size)


@pytest.mark.parametrize("shape", [0.3, 1.0, 4.5])
def test_gamma_draws_have_the_gamma_mean_and_variance(shape) -> None:
    rng = chain_stream(1, 0)
    x = np.array([kern.gamma_draw(shape, rng) for _ in range(20000)])
    assert abs(_z(x, shape, shape)) < 4
    assert abs(_z((x - shape) ** 2, shape, 2 * shape**2 + 6 * shape)) < 4


@pytest.mark.parametrize(("a", "b"), [(1.0, 0.4), (2.5, 7.0)])
def test_beta_draws_have_the_beta_mean(a, b) -> None:
    rng = chain_stream(2, 0)
    x = np.array([kern.beta_draw(a, b, rng) for _ in range(20000)])
    mean = a / (a + b)
    assert abs(_z(x, mean, mean * (1 - mean) / (a + b + 1))) < 4
    assert ((x >= 0) & (x <= 1)).all()


def test_table_counts_follow_antoniaks_distribution() -> None:
    """p(m | n, a) = Gamma(a) / Gamma(a + n) s(n, m) a^m (Teh et al. 2006, eq. 40)."""
    n, a = 6, 0.7
    log_s = log_stirling(n)[n]
    exact = np.exp(gammaln(a) - gammaln(a + n) + log_s + np.arange(n + 1) * math.log(a))
    assert exact.sum() == pytest.approx(1.0)
    rng = chain_stream(3, 0)
    n_dk = np.array([[n]], dtype=np.int32)
    m_k = np.zeros(1, dtype=np.int64)
    draws = np.array([kern.sample_tables(n_dk, np.array([1.0]), a, rng, m_k) for _ in range(40000)])
    assert draws.min() >= 1 and draws.max() <= n
    freq = np.bincount(draws, minlength=n + 1) / draws.size
    se = np.sqrt(exact * (1 - exact) / draws.size) + 1e-12
    assert (np.abs(freq - exact) / se < 4).all()


def test_table_counts_lie_between_one_and_the_tokens_per_document_and_topic() -> None:
    rng = chain_stream(4, 0)
    n_dk = np.array([[5, 0, 1], [0, 3, 9]], dtype=np.int32)
    m_k = np.zeros(3, dtype=np.int64)
    for _ in range(200):
        for d in range(2):
            total = kern.sample_tables(n_dk[d : d + 1], np.array([0.5, 0.2, 0.3]), 4.0, rng, m_k)
            assert total == m_k.sum()
            live = n_dk[d] > 0
            assert (m_k[live] >= 1).all() and (m_k <= n_dk[d]).all() and (m_k[~live] == 0).all()


def _crp_tables(n: int, concentration: float, rng: np.random.Generator) -> int:
    """Tables after ``n`` customers of a Chinese restaurant process."""
    return int((rng.uniform(size=n) * (np.arange(n) + concentration) < concentration).sum())


def test_the_alpha0_update_keeps_its_gamma_prior() -> None:
    """alpha0 ~ prior, tables ~ CRP(alpha0) per document, one update: alpha0 ~ prior still."""
    shape, rate = 3.0, 1.5
    n_d = np.array([4, 9, 2, 15])
    rng = np.random.default_rng(5)
    stream = chain_stream(5, 0)
    out = np.empty(20000)
    for i in range(out.size):
        alpha0 = rng.gamma(shape, 1 / rate)
        m = sum(_crp_tables(int(n), alpha0, rng) for n in n_d)
        out[i] = kern.resample_alpha0(alpha0, n_d, m, shape, rate, stream)
    assert abs(_z(out, shape / rate, shape / rate**2)) < 4


def test_the_gamma_update_keeps_its_gamma_prior() -> None:
    """gamma ~ prior, K = topics of m tables under CRP(gamma), one update: gamma ~ prior."""
    shape, rate, m = 2.0, 1.0, 12
    rng = np.random.default_rng(6)
    stream = chain_stream(6, 0)
    out = np.empty(20000)
    for i in range(out.size):
        gamma = rng.gamma(shape, 1 / rate)
        K = _crp_tables(m, gamma, rng)
        out[i] = kern.resample_gamma(gamma, K, m, shape, rate, stream)
    assert abs(_z(out, shape / rate, shape / rate**2)) < 4


def test_beta_draws_give_free_slots_no_weight_and_sum_to_one() -> None:
    rng = chain_stream(7, 0)
    topics = Topics(np.zeros(4), np.zeros(1), np.zeros(4, np.int32), np.zeros(1, np.int64))
    m_k = np.array([3, 0, 1, 0], dtype=np.int64)
    kern.sample_beta(m_k, topics, 0.5, rng)
    assert topics.beta[1] == topics.beta[3] == 0
    assert topics.beta.sum() + topics.rest[0] == pytest.approx(1.0)


def test_log_joint_equals_a_numpy_twin() -> None:
    rng = np.random.default_rng(8)
    n_dk = rng.integers(0, 4, size=(3, 5)).astype(np.int32)
    n_dk[:, 2] = 0  # a free slot
    n_wk = np.zeros((4, 5), dtype=np.int32)
    for k in range(5):  # spread each topic's tokens over the words
        for _ in range(int(n_dk[:, k].sum())):
            n_wk[rng.integers(4), k] += 1
    n_k = n_dk.sum(axis=0).astype(np.int64)
    beta = np.array([0.2, 0.3, 0.0, 0.1, 0.25])
    alpha0, eta = 2.0, 0.3
    got = kern.log_joint(Counts(np.zeros(0, np.int32), n_dk, n_wk, n_k), beta, alpha0, eta)
    live = n_k > 0
    a = alpha0 * beta[live]
    words = (
        gammaln(n_wk[:, live] + eta).sum()
        - 4 * live.sum() * gammaln(eta)
        + live.sum() * gammaln(4 * eta)
        - gammaln(n_k[live] + 4 * eta).sum()
    )
    docs = (
        gammaln(n_dk[:, live] + a).sum()
        - 3 * gammaln(a).sum()
        + 3 * gammaln(alpha0)
        - gammaln(n_dk.sum(axis=1) + alpha0).sum()
    )
    assert got == pytest.approx(words + docs, rel=1e-12)
