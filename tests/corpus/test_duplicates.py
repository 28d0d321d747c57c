"""``repeated_documents``: which documents repeat an earlier one."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bayeswe.corpus import BagOfWords, CorpusError, Vocabulary, duplicates, repeated_documents

VOCAB = Vocabulary(("a", "b", "c", "d"))


def _brute_force(dense: np.ndarray, min_cosine: float) -> np.ndarray:
    norm = np.linalg.norm(dense, axis=1)
    out = np.zeros(len(dense), dtype=bool)
    for d in range(len(dense)):
        for e in range(d):
            if norm[d] > 0 and norm[e] > 0:
                out[d] |= dense[d] @ dense[e] / (norm[d] * norm[e]) >= min_cosine - 1e-9
    return out


def test_later_copies_are_marked_and_first_copies_kept():
    dense = np.array([
        [2, 1, 0, 0],  # first of a group
        [0, 0, 3, 1],
        [4, 2, 0, 0],  # doc 0 at twice the length: cosine 1
        [0, 0, 0, 0],  # empty: never marked
        [2, 1, 0, 0],  # identical to doc 0
        [2, 1, 1, 0],  # cosine 5 / sqrt(5 * 6) = 0.913 to doc 0
        [0, 0, 0, 0],  # empty again
    ])  # fmt: skip
    bow = BagOfWords.from_dense(dense, VOCAB)
    assert repeated_documents(bow).tolist() == [False, False, True, False, True, False, False]
    assert repeated_documents(bow, 0.9).tolist() == [False, False, True, False, True, True, False]
    assert repeated_documents(bow, 1).tolist() == [False, False, True, False, True, False, False]
    kept = bow.subset(~repeated_documents(bow))
    assert kept.n_docs == 5 and not repeated_documents(kept).any()


@pytest.mark.parametrize("bad", [0, -0.5, 1.01, float("nan"), True, "0.9", None])
def test_a_threshold_outside_zero_one_is_refused(bad):
    bow = BagOfWords.from_dense(np.eye(4, dtype=int), VOCAB)
    with pytest.raises(CorpusError, match="min_cosine must be in"):
        repeated_documents(bow, bad)


@settings(max_examples=60, deadline=None)
@given(
    dense=arrays(np.int64, st.tuples(st.integers(1, 9), st.just(4)), elements=st.integers(0, 3)),
    min_cosine=st.sampled_from([0.5, 0.8, 0.95, 1.0]),
    block=st.integers(1, 4),
)
def test_agrees_with_the_definition_whatever_the_block(dense, min_cosine, block):
    bow = BagOfWords.from_dense(dense, VOCAB)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(duplicates, "_BLOCK", block)  # several blocks on a small corpus
        got = repeated_documents(bow, min_cosine)
    assert got.tolist() == _brute_force(dense, min_cosine).tolist()
