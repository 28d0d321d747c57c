import warnings

import numpy as np
import pandas as pd
import pytest

from bayeswe.corpus import BagOfWords, Corpus, CorpusError, Vocabulary


def test_vocabulary_from_counts_orders_by_frequency_then_alphabet():
    vocab = Vocabulary.from_counts({"b": 2, "a": 2, "c": 5, "d": 1}, min_count=2)
    assert vocab.words == ("c", "a", "b")
    assert vocab.counts.tolist() == [5, 2, 2]
    assert vocab.id("a") == 1
    with pytest.raises(KeyError):
        vocab.id("d")
    assert vocab.ids(["d", "c"], drop_unknown=True).tolist() == [0]


def test_vocabulary_unk_collects_dropped_mass():
    vocab = Vocabulary.from_counts({"a": 3, "b": 2, "c": 1}, max_size=2, unk="<unk>")
    assert vocab.words == ("a", "<unk>")
    assert vocab.counts.tolist() == [3, 3]
    assert vocab.ids(["c", "a"]).tolist() == [1, 0]


def test_vocabulary_errors():
    with pytest.raises(CorpusError, match="min_count=5"):
        Vocabulary.from_counts({"a": 1}, min_count=5)
    with pytest.raises(CorpusError, match="unique"):
        Vocabulary(("a", "a"))
    with pytest.raises(CorpusError, match="at least one"):
        Vocabulary(())


def test_bag_of_words_round_trip_and_views():
    vocab = Vocabulary(("x", "y", "z"))
    docs = [[2, 0, 2], [], [1, 1, 1, 0]]
    meta = pd.DataFrame({"year": [1, 2, 3]})
    bow = BagOfWords.from_token_ids(docs, vocab, doc_ids=["a", "b", "c"], metadata=meta)
    dense = np.array([[1, 0, 2], [0, 0, 0], [1, 3, 0]])
    assert np.array_equal(bow.to_dense(), dense)
    assert bow.doc_lengths.tolist() == [3, 0, 4]
    assert bow.n_tokens == 7
    assert np.array_equal(BagOfWords.from_dense(dense, vocab).to_dense(), dense)
    d, w = bow.tokens()
    assert d.tolist() == [0, 0, 0, 2, 2, 2, 2]
    assert w.tolist() == [0, 2, 2, 0, 1, 1, 1]
    sub = bow.subset(bow.doc_lengths > 0)
    assert sub.doc_ids == ("a", "c")
    assert sub.metadata["year"].tolist() == [1, 3]
    assert np.array_equal(sub.to_dense(), dense[[0, 2]])
    with pytest.raises(CorpusError, match="'b'"):
        bow.check_nonempty()
    sub.check_nonempty()


def test_bag_of_words_rejects_bad_input():
    vocab = Vocabulary(("x", "y"))
    with pytest.raises(CorpusError, match="out of range"):
        BagOfWords.from_token_ids([[0, 2]], vocab)
    with pytest.raises(CorpusError, match="out of range"):
        BagOfWords(vocab, [0, 1], [5], [1])
    with pytest.raises(CorpusError, match="positive"):
        BagOfWords(vocab, [0, 1], [1], [0])
    with pytest.raises(CorpusError, match="increasing"):
        BagOfWords(vocab, [0, 2], [1, 0], [1, 1])
    with pytest.raises(CorpusError, match="metadata"):
        BagOfWords(vocab, [0, 1], [1], [1], metadata=pd.DataFrame({"a": [1, 2]}))
    with pytest.raises(CorpusError, match="counts must hold integers, found 0.5"):
        BagOfWords.from_dense(np.array([[0.5, 1.0]]), vocab)


_VOC3 = ("a", "b", "c")


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda v: BagOfWords(v, [0, 1], [0], [2**31]), "beyond the supported maximum"),
        (lambda v: BagOfWords.from_dense(np.array([[2**40, 0, 0]]), v), "beyond the supported"),
        (lambda v: BagOfWords(v, [0, 1], [0], [1.5]), "counts must hold integers, found 1.5"),
        (lambda v: BagOfWords(v, [0, 1], [1.5], [1]), "word_ids must hold integers, found 1.5"),
        (lambda v: BagOfWords(v, [0, 1.5], [0], [1]), "doc_ptr must hold integers"),
        (lambda v: BagOfWords.from_token_ids([[0.7]], v), "document 0 must hold integers"),
        (lambda v: BagOfWords.from_dense(np.array([[np.inf, 0, 0]]), v), "NaN or infinite"),
        (lambda v: BagOfWords.from_dense(np.array([["x", "y", "z"]]), v), "got dtype <U1"),
        (lambda v: BagOfWords(v, [0, 1], ["a"], [1]), "word_ids must hold integers"),
        (lambda v: Vocabulary(("a",), counts=["x"]), "vocabulary counts must hold integers"),
        (lambda v: Vocabulary(("a",), counts=[np.nan]), "NaN or infinite"),
        (lambda v: Vocabulary(None), "sequence of strings, got NoneType"),
        (lambda v: Corpus("x", (("a",),), ("0",), None), "metadata must be a pandas DataFrame"),
    ],
)
def test_values_a_cast_would_wrap_or_truncate_are_refused(build, message) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning on the way to the error
        with pytest.raises(CorpusError, match=message):
            build(Vocabulary(_VOC3))
