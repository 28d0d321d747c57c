"""SGNSData: the aggregated data contract shared by every SGNS backend."""

from __future__ import annotations

import numpy as np
import pytest

from bayeswe.errors import BayesweError
from bayeswe.sgns import SGNSData, SGNSDataError, default_vocabulary

VOCAB = ("cat", "dog", "cow")


def test_constructor_sorts_pairs_and_fixes_dtypes() -> None:
    data = SGNSData(VOCAB, [2, 0, 0], [1, 2, 0], [3, 1, 5], [1, 0, 5])
    assert data.V == 3 and data.P == 3 and data.total == 9
    np.testing.assert_array_equal(data.target, [0, 0, 2])
    np.testing.assert_array_equal(data.context, [0, 2, 1])
    np.testing.assert_array_equal(data.n, [5, 1, 3])
    np.testing.assert_array_equal(data.n_pos, [5, 0, 1])
    np.testing.assert_array_equal(data.n_neg, [0, 1, 2])
    assert data.target.dtype == np.int32 and data.context.dtype == np.int32
    assert data.n.dtype == np.int64 and data.n_pos.dtype == np.int64
    for name in ("target", "context", "n", "n_pos"):
        arr = getattr(data, name)
        assert arr.flags.c_contiguous and not arr.flags.writeable


def test_csr_offsets_group_pairs_by_target_and_by_context() -> None:
    data = SGNSData(VOCAB, [2, 0, 0, 1], [1, 2, 0, 2], [3, 1, 5, 2], [1, 0, 5, 2])
    off = data.target_offsets
    np.testing.assert_array_equal(off, [0, 2, 3, 4])
    for w in range(data.V):
        assert np.all(data.target[off[w] : off[w + 1]] == w)
    order, coff = data.context_order, data.context_offsets
    np.testing.assert_array_equal(np.sort(order), np.arange(data.P))
    for v in range(data.V):
        assert np.all(data.context[order[coff[v] : coff[v + 1]]] == v)


def test_from_observations_aggregates_exactly() -> None:
    rng = np.random.default_rng(1)
    t = rng.integers(0, 3, 500)
    c = rng.integers(0, 3, 500)
    y = rng.integers(0, 2, 500)
    data = SGNSData.from_observations(VOCAB, t, c, y)
    assert data.total == 500 and int(data.n_pos.sum()) == int(y.sum())
    for p in range(data.P):
        mask = (t == data.target[p]) & (c == data.context[p])
        assert data.n[p] == mask.sum() and data.n_pos[p] == y[mask].sum()


def test_from_counts_merges_repeats_and_drops_empty_rows() -> None:
    data = SGNSData.from_counts(3, [0, 0, 1, 2], [1, 1, 1, 0], [2, 3, 0, 1], [1, 2, 0, 1])
    assert data.vocabulary == ("w0", "w1", "w2")
    np.testing.assert_array_equal(data.target, [0, 2])
    np.testing.assert_array_equal(data.n, [5, 1])
    np.testing.assert_array_equal(data.n_pos, [3, 1])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"target": [0, 3]}, "outside the vocabulary"),
        ({"context": [-1, 0]}, "outside the vocabulary"),
        ({"n": [0, 1]}, "n must be >= 1"),
        ({"n_pos": [3, 0]}, "n_pos exceeds n"),
        ({"n_pos": [-1, 0]}, "n_pos must be >= 0"),
        ({"target": [0, 0], "context": [1, 1]}, "more than once"),
        ({"n": [1, 2, 3]}, "differ in length"),
        ({"n": [1.5, 2]}, "integers"),
        ({"target": [[0, 1]]}, "one-dimensional"),
        ({"vocabulary": ("a", "a", "b")}, "more than once"),
        ({"vocabulary": "abc"}, "not one string"),
        ({"vocabulary": ()}, "empty"),
        ({"n": [2**31, 1]}, "int range"),
    ],
)
def test_bad_input_raises_typed_error(kwargs: dict, match: str) -> None:
    args = {"vocabulary": VOCAB, "target": [0, 1], "context": [1, 2], "n": [2, 2], "n_pos": [1, 2]}
    args.update(kwargs)
    with pytest.raises(SGNSDataError, match=match) as info:
        SGNSData(**args)
    assert isinstance(info.value, BayesweError) and isinstance(info.value, ValueError)


def test_stan_data_is_one_based_and_complete() -> None:
    data = SGNSData(VOCAB, [2, 0], [1, 2], [3, 1], [1, 0])
    d = data.stan_data(2, prior_sd=0.5)
    assert d["V"] == 3 and d["K"] == 2 and d["P"] == 2 and d["lambda"] == 0.5
    np.testing.assert_array_equal(d["target_word"], [1, 3])
    np.testing.assert_array_equal(d["context_word"], [3, 2])
    assert d["vocabulary"] == list(VOCAB)
    with pytest.raises(SGNSDataError, match="K must be"):
        data.stan_data(0)
    with pytest.raises(SGNSDataError, match="prior_sd"):
        data.stan_data(2, prior_sd=-1.0)
    with pytest.raises(SGNSDataError, match="both"):
        data.stan_data(2, fixed_index=[0, 1])
    d = data.stan_data(2, fixed_index=[2, 0], fixed_alpha=[[1.0, 0.0], [0.0, 2.0]])
    np.testing.assert_array_equal(d["fixed_index"], [3, 1])


def test_split_partitions_observations_reproducibly() -> None:
    rng = np.random.default_rng(5)
    n = rng.integers(1, 30, 50)
    data = SGNSData.from_counts(10, rng.integers(0, 10, 50), rng.integers(0, 10, 50), n, n // 2)
    train, test = data.split(0.3, seed=11)
    again = data.split(0.3, seed=11)
    assert train == again[0] and test == again[1]
    merged = SGNSData.from_counts(
        data.vocabulary,
        np.concatenate([train.target, test.target]),
        np.concatenate([train.context, test.context]),
        np.concatenate([train.n, test.n]),
        np.concatenate([train.n_pos, test.n_pos]),
    )
    assert merged == data
    with pytest.raises(SGNSDataError):
        data.split(1.0, seed=1)


def test_word_index_roundtrip_and_dict() -> None:
    data = SGNSData(VOCAB, [2, 0], [1, 2], [3, 1], [1, 0])
    assert data.word_index("cow") == 2
    with pytest.raises(SGNSDataError, match="not in the vocabulary"):
        data.word_index("emu")
    assert SGNSData.from_dict(data.to_dict()) == data
    assert default_vocabulary(11)[0] == "w00" and default_vocabulary(11)[-1] == "w10"
