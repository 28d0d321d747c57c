import numpy as np
import pytest

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.errors import BayesweError
from bayeswe.lda import LDAData, LDADataError


def _bow(docs, V=4):
    vocab = Vocabulary(tuple(f"w{i}" for i in range(V)))
    return BagOfWords.from_token_ids(docs, vocab, doc_ids=[f"d{i}" for i in range(len(docs))])


def test_to_stan_aggregates_pairs_one_based():
    data = LDAData(_bow([[0, 0, 3], [1, 2, 2, 2]]), n_topics=3, alpha=0.5, beta=0.2)
    s = data.to_stan()
    assert (s["D"], s["V"], s["K"], s["N"]) == (2, 4, 3, 4)
    assert s["doc"].tolist() == [1, 1, 2, 2]
    assert s["word"].tolist() == [1, 4, 2, 3]
    assert s["count"].tolist() == [2, 1, 1, 3]
    assert s["alpha"].tolist() == [0.5, 0.5, 0.5]
    assert s["beta"] == 0.2
    c = data.coords()
    assert c["doc"] == ["d0", "d1"] and c["word"] == ["w0", "w1", "w2", "w3"]
    assert c["topic"].tolist() == [0, 1, 2]


def test_asymmetric_alpha_vector():
    data = LDAData(_bow([[0, 1]]), n_topics=2, alpha=np.array([0.1, 2.0]))
    assert data.alpha_vector().tolist() == [0.1, 2.0]
    assert not data.symmetric_alpha
    assert LDAData(_bow([[0]]), n_topics=2).alpha_vector().dtype == np.float64


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_topics": 1}, "n_topics must be >= 2"),
        ({"n_topics": 2.5}, "n_topics must be an integer"),
        ({"n_topics": 2, "alpha": -0.1}, "alpha must be positive"),
        ({"n_topics": 2, "alpha": 0.0}, "alpha must be positive"),
        ({"n_topics": 2, "alpha": np.array([0.1, 0.2, 0.3])}, r"shape \(2,\)"),
        ({"n_topics": 2, "alpha": np.array([0.1, -1.0])}, "every entry of alpha"),
        ({"n_topics": 2, "beta": -1.0}, "beta must be positive"),
        ({"n_topics": 2, "beta": float("nan")}, "beta must be positive"),
    ],
)
def test_bad_parameters_raise(kwargs, message):
    with pytest.raises(LDADataError, match=message) as info:
        LDAData(_bow([[0, 1], [2]]), **kwargs)
    assert isinstance(info.value, BayesweError) and isinstance(info.value, ValueError)


def test_empty_document_raises_naming_it():
    with pytest.raises(LDADataError, match="'d1'"):
        LDAData(_bow([[0, 1], [], [2]]), n_topics=2)


def test_corpus_must_be_bag_of_words():
    with pytest.raises(LDADataError, match="BagOfWords"):
        LDAData([[0, 1]], n_topics=2)  # type: ignore[arg-type]
