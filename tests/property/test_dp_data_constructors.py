"""Property tests of the nonparametric models' data classes.

Valid inputs construct and keep every value exactly (points, counts, hyperparameters,
the Stan fields built from them); invalid ones raise :class:`DPDataError` naming the
problem, whatever their position, shape or value.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.dp import DPDataError, DPMixtureData, DPMultinomialData, HDPLDAData

FAST = settings(max_examples=60, deadline=None)

# points inside the supported magnitudes (a largest |point| below 1e-30 is refused)
finite = st.integers(-(10**8), 10**8).map(lambda i: i / 64)
truncations = st.integers(1, 50)
positive = st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False)
not_positive = st.sampled_from([0.0, -1.0, float("nan"), float("inf"), 1e31, 1e-31])


@st.composite
def point_arrays(draw: st.DrawFn) -> np.ndarray:
    n, p = draw(st.integers(1, 12)), draw(st.integers(1, 4))
    return np.array(draw(st.lists(finite, min_size=n * p, max_size=n * p))).reshape(n, p)


@st.composite
def count_matrices(draw: st.DrawFn) -> np.ndarray:
    """(N, V) non-negative counts, every row with at least one token."""
    n, v = draw(st.integers(1, 8)), draw(st.integers(2, 6))
    m = np.array(draw(st.lists(st.integers(0, 9), min_size=n * v, max_size=n * v)))
    m = m.reshape(n, v)
    m[np.arange(n), draw(st.lists(st.integers(0, v - 1), min_size=n, max_size=n))] += 1
    return m


@FAST
@given(y=point_arrays(), T=truncations, a=positive, b=positive)
def test_dp_mixture_keeps_its_points_and_builds_a_valid_prior(y, T, a, b) -> None:
    data = DPMixtureData(y, truncation=T, alpha_shape=a, alpha_rate=b)
    np.testing.assert_array_equal(data.points, y)
    assert not data.points.flags.writeable  # frozen: a fit cannot change its data
    assert (data.n_points, data.dim, data.truncation) == (*y.shape, T)
    stan = data.to_stan()
    N, P = y.shape
    assert (stan["N"], stan["P"], stan["T"]) == (N, P, T)
    assert (stan["alpha_shape"], stan["alpha_rate"]) == (a, b)
    np.testing.assert_array_equal(stan["y"], y)
    np.testing.assert_allclose(stan["mu0"], y.mean(axis=0))
    assert stan["nu0"] == P + 3
    psi = stan["Psi0"]
    assert psi.shape == (P, P) and np.array_equal(psi, psi.T)
    assert np.linalg.eigvalsh(psi).min() > 0


@FAST
@given(y=point_arrays(), data=st.data())
def test_dp_mixture_names_the_first_point_that_is_not_finite(y, data) -> None:
    bad = data.draw(st.lists(st.integers(0, y.shape[0] - 1), min_size=1, max_size=3))
    value = data.draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    y = y.copy()
    for i in bad:
        y[i, data.draw(st.integers(0, y.shape[1] - 1))] = value
    with pytest.raises(DPDataError, match=rf"\(first in point {min(bad)}\)"):
        DPMixtureData(y, truncation=5)


@FAST
@given(
    field=st.sampled_from(["alpha_shape", "alpha_rate", "kappa0"]),
    value=not_positive,
    y=point_arrays(),
)
def test_dp_mixture_refuses_a_hyperparameter_out_of_range(field, value, y) -> None:
    with pytest.raises(DPDataError, match=field):
        DPMixtureData(y, truncation=3, **{field: value})


@FAST
@given(T=st.one_of(st.integers(-5, 0), st.just(2.5), st.just(True), st.just("3")))
def test_every_class_refuses_a_truncation_that_is_not_a_positive_integer(T) -> None:
    bow = BagOfWords.from_token_ids([[0, 1]], Vocabulary(("a", "b")))
    for make in (
        lambda: DPMixtureData(np.zeros((2, 1)), truncation=T),
        lambda: DPMultinomialData(np.array([[1, 2]]), truncation=T),
        lambda: HDPLDAData(bow, truncation=T),
    ):
        with pytest.raises(DPDataError, match="truncation"):
            make()


@FAST
@given(m=count_matrices(), T=truncations, beta=positive)
def test_dp_multinomial_keeps_every_count(m, T, beta) -> None:
    data = DPMultinomialData(m, truncation=T, beta=beta)
    np.testing.assert_array_equal(data.counts.to_dense(), m)
    stan = data.to_stan()
    N, V = m.shape
    assert (stan["N"], stan["V"], stan["T"]) == (N, V, T)
    dense = np.zeros((N, V), dtype=np.int64)
    np.add.at(dense, (stan["point"] - 1, stan["word"] - 1), stan["count"])  # 1-based
    np.testing.assert_array_equal(dense, m)
    assert stan["E"] == len(stan["count"]) == np.count_nonzero(m)
    np.testing.assert_array_equal(stan["beta"], np.full(V, beta))


@FAST
@given(m=count_matrices(), data=st.data())
def test_dp_multinomial_names_the_first_point_without_tokens(m, data) -> None:
    empty = data.draw(st.lists(st.integers(0, m.shape[0] - 1), min_size=1, max_size=3))
    m = m.copy()
    m[empty] = 0
    with pytest.raises(DPDataError, match=rf"point {min(empty)} has none"):
        DPMultinomialData(m, truncation=4)


@FAST
@given(m=count_matrices(), data=st.data())
def test_dp_multinomial_refuses_counts_that_are_not_counts(m, data) -> None:
    kind = data.draw(st.sampled_from(["negative", "fraction", "one category", "3-d"]))
    if kind == "negative":
        m = m.copy()
        m[data.draw(st.integers(0, m.shape[0] - 1)), 0] = -1
    elif kind == "fraction":
        m = m + 0.5
    elif kind == "one category":
        m = m[:, :1] + 1
    else:
        m = m[None]
    with pytest.raises(DPDataError):
        DPMultinomialData(m, truncation=4)


@FAST
@given(m=count_matrices(), beta_len=st.integers(1, 8))
def test_dp_multinomial_refuses_a_beta_of_the_wrong_length(m, beta_len) -> None:
    if beta_len == m.shape[1]:
        DPMultinomialData(m, truncation=2, beta=np.ones(beta_len))  # the right length
        return
    with pytest.raises(DPDataError, match="beta must be"):
        DPMultinomialData(m, truncation=2, beta=np.ones(beta_len))


@FAST
@given(m=count_matrices(), T=truncations, g=positive, a=positive, e=positive)
def test_hdp_lda_keeps_its_corpus_and_concentrations(m, T, g, a, e) -> None:
    bow = BagOfWords.from_dense(m, Vocabulary(tuple(f"w{v}" for v in range(m.shape[1]))))
    data = HDPLDAData(bow, truncation=T, gamma=g, alpha0=a, eta=e)
    assert data.corpus is bow
    assert (data.truncation, data.gamma, data.alpha0, data.eta) == (T, g, a, e)


@FAST
@given(m=count_matrices(), data=st.data())
def test_hdp_lda_refuses_empty_documents_and_bad_concentrations(m, data) -> None:
    vocab = Vocabulary(tuple(f"w{v}" for v in range(m.shape[1])))
    with pytest.raises(DPDataError, match="corpus must be a bayeswe.corpus.BagOfWords"):
        HDPLDAData(m, truncation=3)
    field = data.draw(st.sampled_from(["gamma", "alpha0", "eta"]))
    bad = {field: data.draw(not_positive)}
    with pytest.raises(DPDataError, match=field):
        HDPLDAData(BagOfWords.from_dense(m, vocab), truncation=3, **bad)
    m = m.copy()
    m[data.draw(st.integers(0, m.shape[0] - 1))] = 0
    with pytest.raises(DPDataError, match="non-empty documents"):
        HDPLDAData(BagOfWords.from_dense(m, vocab), truncation=3)


@FAST
@given(m=count_matrices(), D=st.integers(1, 4), g=positive, a=positive, data=st.data())
def test_infinite_gaussian_lda_keeps_gaussian_ldas_prior_and_its_concentrations(
    m, D, g, a, data
) -> None:
    from bayeswe.glda import GaussianLDAData, HDPGaussianLDAData

    vocab = Vocabulary(tuple(f"w{v}" for v in range(m.shape[1])))
    bow = BagOfWords.from_dense(m, vocab)
    emb = np.array(data.draw(st.lists(finite, min_size=m.shape[1] * D, max_size=m.shape[1] * D)))
    emb = emb.reshape(m.shape[1], D)
    hdp = HDPGaussianLDAData(bow, emb, gamma=g, alpha0=a)
    glda = GaussianLDAData(bow, emb, n_topics=2, alpha=1.0)
    for name in ("embeddings", "mu0", "Psi"):
        np.testing.assert_array_equal(getattr(hdp, name), getattr(glda, name))
    assert (hdp.kappa, hdp.nu, hdp.gamma, hdp.alpha0) == (glda.kappa, glda.nu, g, a)


@FAST
@given(m=count_matrices(), data=st.data())
def test_infinite_gaussian_lda_refuses_bad_vectors_and_concentrations(m, data) -> None:
    from bayeswe.glda import GaussianLDADataError, HDPGaussianLDAData

    bow = BagOfWords.from_dense(m, Vocabulary(tuple(f"w{v}" for v in range(m.shape[1]))))
    emb = np.ones((m.shape[1], 2))
    emb[data.draw(st.integers(0, m.shape[1] - 1)), data.draw(st.integers(0, 1))] = np.nan
    with pytest.raises(GaussianLDADataError, match="NaN or infinite"):
        HDPGaussianLDAData(bow, emb)
    field = data.draw(st.sampled_from(["gamma", "alpha0"]))
    bad = {field: data.draw(not_positive)}
    with pytest.raises(GaussianLDADataError, match=field):
        HDPGaussianLDAData(bow, np.ones((m.shape[1], 2)), **bad)
    with pytest.raises(GaussianLDADataError, match="truncation"):
        HDPGaussianLDAData(bow, np.ones((m.shape[1], 2)), truncation=data.draw(st.integers(-3, 0)))
