"""Property-based tests of the data constructors (SGNS, LDA, Gaussian LDA, corpus types).

Two kinds of properties:

* valid inputs drawn by hypothesis construct, and the documented invariants hold
  exactly (counts preserved, round trips, dtypes and shapes of the Stan fields);
* an input corrupted at a random place with a random bad value raises the library's
  typed error (a :class:`bayeswe.errors.BayesweError`), never a bare Python/numpy
  exception. Warnings are errors in this module, so a numpy warning on the way to
  the typed error (an overflowing cast, say) also fails.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeswe.corpus import BagOfWords, Corpus, CorpusError, Vocabulary
from bayeswe.errors import BayesweError
from bayeswe.glda.data import GaussianLDAData, GaussianLDADataError
from bayeswe.lda.data import LDAData, LDADataError
from bayeswe.options import MAGNITUDE_RANGE
from bayeswe.sgns.data import SGNSData, default_vocabulary
from bayeswe.sgns.errors import IdentificationError, SGNSDataError

pytestmark = pytest.mark.filterwarnings("error")

INT32_MAX = int(np.iinfo(np.int32).max)
LOW, HIGH = MAGNITUDE_RANGE


def cfg(max_examples: int) -> settings:
    """Reproducible settings: a fixed example sequence, no example database."""
    return settings(max_examples=max_examples, deadline=None, derandomize=True, database=None)


def assert_typed_error(
    error: type[BayesweError], build: Callable[[], Any], *needles: str
) -> BayesweError:
    """``build()`` raises exactly ``error`` (a BayesweError) whose message holds ``needles``."""
    with pytest.raises(error) as info:
        build()
    assert isinstance(info.value, BayesweError)
    for needle in needles:
        assert needle in str(info.value), (needle, str(info.value))
    return info.value


# --------------------------------------------------------------------------- strategies

WORDS = st.text(max_size=5)
#: Positive numbers inside MAGNITUDE_RANGE (the supported scale of every prior parameter).
IN_RANGE = st.one_of(
    st.floats(min_value=LOW, max_value=HIGH),
    st.integers(min_value=1, max_value=10**6),
    st.floats(min_value=LOW, max_value=HIGH).map(np.float64),
)
#: Values every "positive, finite, in MAGNITUDE_RANGE" parameter must refuse.
BAD_POSITIVE = st.one_of(
    st.sampled_from([0, 0.0, -0.0, float("nan"), float("inf"), -float("inf"), np.float64("nan")]),
    st.floats(max_value=0.0, allow_nan=False, allow_infinity=False),
    st.integers(max_value=0),
    st.floats(min_value=0.0, max_value=LOW, exclude_min=True, exclude_max=True),
    st.floats(min_value=HIGH, exclude_min=True, allow_infinity=False),
    st.sampled_from(["1.0", None, True, False, 1 + 0j, [1.0], object()]),
)
TINY = st.floats(min_value=0.0, max_value=LOW, exclude_min=True, exclude_max=True)
HUGE = st.floats(min_value=HIGH, exclude_min=True, allow_infinity=False)
NONFINITE = st.sampled_from([float("nan"), float("inf"), -float("inf")])
ARRAY_KINDS = st.sampled_from(["list", "tuple", "int64", "int32", "uint32", "float64"])


def as_kind(values: list[int], kind: str) -> Any:
    """The same integers as a list, a tuple or an array of the given dtype."""
    if kind == "list":
        return list(values)
    if kind == "tuple":
        return tuple(values)
    return np.asarray(values, dtype=kind)


@st.composite
def sgns_vocabularies(draw: st.DrawFn) -> tuple[Any, int]:
    """An int ``V`` or ``V`` distinct words, and ``V``."""
    V = draw(st.integers(1, 8))
    if draw(st.booleans()):
        return V, V
    return draw(st.lists(WORDS, min_size=V, max_size=V, unique=True)), V


@st.composite
def sgns_tables(draw: st.DrawFn, min_pairs: int = 0, max_pairs: int = 12) -> dict[str, Any]:
    """Unique (target, context) pairs with ``1 <= n`` and ``0 <= n_pos <= n``."""
    vocab, V = draw(sgns_vocabularies())
    index = st.integers(0, V - 1)
    pairs = draw(
        st.lists(
            st.tuples(index, index),
            unique=True,
            min_size=min(min_pairs, V * V),
            max_size=min(max_pairs, V * V),
        )
    )
    n = draw(st.lists(st.integers(1, 10**6), min_size=len(pairs), max_size=len(pairs)))
    n_pos = [draw(st.integers(0, k)) for k in n]
    return {
        "vocabulary": vocab,
        "V": V,
        "target": [t for t, _ in pairs],
        "context": [c for _, c in pairs],
        "n": n,
        "n_pos": n_pos,
    }


def sgns_build(table: dict[str, Any], kinds: dict[str, str] | None = None) -> SGNSData:
    kinds = kinds or {}
    arrays = [as_kind(table[k], kinds.get(k, "list")) for k in ("target", "context", "n", "n_pos")]
    return SGNSData(table["vocabulary"], *arrays)


def pair_table(target: Any, context: Any, n: Any, n_pos: Any) -> dict[tuple[int, int], tuple]:
    return {
        (int(t), int(c)): (int(a), int(b))
        for t, c, a, b in zip(target, context, n, n_pos, strict=True)
    }


def check_sgns_invariants(data: SGNSData, V: int, expected: dict[tuple[int, int], tuple]) -> None:
    """Layout, counts and CSR groupings of an SGNSData, exactly."""
    assert data.V == V and data.P == len(expected)
    for name, dtype in (("target", np.int32), ("context", np.int32)):
        arr = getattr(data, name)
        assert arr.dtype == dtype and arr.shape == (data.P,)
        assert arr.flags.c_contiguous and not arr.flags.writeable
    for name in ("n", "n_pos"):
        arr = getattr(data, name)
        assert arr.dtype == np.int64 and arr.shape == (data.P,)
        assert arr.flags.c_contiguous and not arr.flags.writeable
    key = data.target.astype(np.int64) * V + data.context
    assert np.all(np.diff(key) > 0)  # unique and sorted by (target, context)
    assert pair_table(data.target, data.context, data.n, data.n_pos) == expected
    assert data.total == sum(a for a, _ in expected.values())
    assert isinstance(data.total, int)
    np.testing.assert_array_equal(data.n_neg, data.n - data.n_pos)
    assert np.all(data.n >= 1) and np.all(data.n_neg >= 0) and np.all(data.n_pos >= 0)
    offsets = data.target_offsets
    assert offsets.shape == (V + 1,) and offsets[0] == 0 and offsets[-1] == data.P
    for w in range(V):
        assert np.all(data.target[offsets[w] : offsets[w + 1]] == w)
    order, c_offsets = data.context_order, data.context_offsets
    assert sorted(order.tolist()) == list(range(data.P))
    assert c_offsets[0] == 0 and c_offsets[-1] == data.P
    for v in range(V):
        assert np.all(data.context[order[c_offsets[v] : c_offsets[v + 1]]] == v)


# --------------------------------------------------------------------------- SGNSData: valid


@cfg(60)
@given(table=sgns_tables(), kinds=st.dictionaries(st.sampled_from(["target", "n"]), ARRAY_KINDS))
def test_sgns_unique_pairs_construct_sorted_and_preserve_counts(
    table: dict[str, Any], kinds: dict[str, str]
) -> None:
    expected = pair_table(table["target"], table["context"], table["n"], table["n_pos"])
    data = sgns_build(table, kinds)
    check_sgns_invariants(data, table["V"], expected)
    vocab = table["vocabulary"]
    words = default_vocabulary(vocab) if isinstance(vocab, int) else tuple(vocab)
    assert data.vocabulary == words
    assert [data.word_index(w) for w in words] == list(range(table["V"]))


@cfg(40)
@given(table=sgns_tables())
def test_sgns_to_dict_from_dict_round_trip(table: dict[str, Any]) -> None:
    data = sgns_build(table)
    d = data.to_dict()
    assert set(d) == {"vocabulary", "target", "context", "n", "n_pos"}
    assert d["vocabulary"] == list(data.vocabulary)
    back = SGNSData.from_dict(d)
    assert back == data and back is not data
    for name in ("target", "context", "n", "n_pos"):
        np.testing.assert_array_equal(getattr(back, name), getattr(data, name))
        assert getattr(back, name).dtype == getattr(data, name).dtype
        assert d[name].flags.writeable  # plain copies, not views of the frozen arrays
    # a second round trip is a fixed point
    assert SGNSData.from_dict(back.to_dict()) == data


@cfg(60)
@given(st.data())
def test_sgns_from_counts_merges_repeated_pairs_exactly(data: st.DataObject) -> None:
    vocab, V = data.draw(sgns_vocabularies())
    index = st.integers(0, V - 1)
    rows = data.draw(
        st.lists(
            st.tuples(index, index, st.integers(0, 1000)).flatmap(
                lambda r: st.tuples(st.just(r), st.integers(0, r[2]))
            ),
            max_size=20,
        )
    )
    target = [r[0] for r, _ in rows]
    context = [r[1] for r, _ in rows]
    n = [r[2] for r, _ in rows]
    n_pos = [p for _, p in rows]
    total: Counter[tuple[int, int]] = Counter()
    positive: Counter[tuple[int, int]] = Counter()
    for t, c, a, b in zip(target, context, n, n_pos, strict=True):
        if a > 0:
            total[(t, c)] += a
            positive[(t, c)] += b
    kind = data.draw(ARRAY_KINDS)
    out = SGNSData.from_counts(vocab, as_kind(target, kind), context, as_kind(n, kind), n_pos)
    check_sgns_invariants(out, V, {k: (total[k], positive[k]) for k in total})
    assert out.total == sum(n) and int(out.n_pos.sum()) == sum(n_pos)


@cfg(60)
@given(st.data())
def test_sgns_from_observations_counts_every_sample_once(data: st.DataObject) -> None:
    vocab, V = data.draw(sgns_vocabularies())
    index = st.integers(0, V - 1)
    obs = data.draw(st.lists(st.tuples(index, index, st.integers(0, 1)), max_size=40))
    labels: Any = [b for _, _, b in obs]
    if data.draw(st.booleans()):
        labels = np.asarray(labels, dtype=bool)
    out = SGNSData.from_observations(vocab, [t for t, _, _ in obs], [c for _, c, _ in obs], labels)
    n: Counter[tuple[int, int]] = Counter((t, c) for t, c, _ in obs)
    pos: Counter[tuple[int, int]] = Counter((t, c) for t, c, b in obs if b)
    check_sgns_invariants(out, V, {k: (n[k], pos[k]) for k in n})
    assert out.total == len(obs) and int(out.n_pos.sum()) == sum(b for _, _, b in obs)


@cfg(60)
@given(st.data())
def test_sgns_stan_data_fields_have_documented_shapes_and_dtypes(data: st.DataObject) -> None:
    table = data.draw(sgns_tables(min_pairs=1))
    d = sgns_build(table)
    V, P = d.V, d.P
    K = data.draw(st.integers(1, 6) | st.integers(1, 6).map(np.int64))
    prior_sd = data.draw(IN_RANGE)
    grainsize = data.draw(st.integers(0, 100))
    out = d.stan_data(K, prior_sd=prior_sd, grainsize=grainsize)
    assert set(out) == {
        "V",
        "K",
        "P",
        "target_word",
        "context_word",
        "n",
        "n_pos",
        "lambda",
        "grainsize",
        "vocabulary",
    }
    assert (out["V"], out["K"], out["P"], out["grainsize"]) == (V, int(K), P, grainsize)
    assert all(type(out[k]) is int for k in ("V", "K", "P", "grainsize"))
    assert type(out["lambda"]) is float and out["lambda"] == float(prior_sd)
    for name, expected in (
        ("target_word", d.target + 1),
        ("context_word", d.context + 1),
        ("n", d.n),
        ("n_pos", d.n_pos),
    ):
        assert out[name].dtype == np.int64 and out[name].shape == (P,)
        np.testing.assert_array_equal(out[name], expected)
    assert out["target_word"].min() >= 1 and out["target_word"].max() <= V  # 1-based
    assert out["vocabulary"] == list(d.vocabulary)

    if V >= 2:  # the identified model: K < V fixed context words
        K = data.draw(st.integers(1, min(V - 1, 5)))
        index = data.draw(st.permutations(range(V)))[:K]
        diag = data.draw(st.lists(st.floats(0.5, 2.0), min_size=K, max_size=K))
        signs = data.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=K, max_size=K))
        matrix = np.diag(np.multiply(diag, signs))
        out = d.stan_data(K, fixed_index=index, fixed_alpha=matrix.tolist())
        assert out["fixed_index"].dtype == np.int64
        np.testing.assert_array_equal(out["fixed_index"], np.asarray(index) + 1)
        assert out["fixed_alpha"].dtype == np.float64 and out["fixed_alpha"].shape == (K, K)
        np.testing.assert_array_equal(out["fixed_alpha"], matrix)


# --------------------------------------------------------------------------- SGNSData: invalid

SGNS_CORRUPTIONS = [
    "target_high",
    "target_negative",
    "context_high",
    "context_negative",
    "n_below_one",
    "n_beyond_int32",
    "n_pos_negative",
    "n_pos_above_n",
    "fraction",
    "nonfinite",
    "float_beyond_int64",
    "uint_beyond_int64",
    "python_int_beyond_int64",
    "duplicate_pair",
    "length_mismatch",
    "two_dimensional",
    "strings",
]


@cfg(150)
@given(table=sgns_tables(min_pairs=1), kind=st.sampled_from(SGNS_CORRUPTIONS), data=st.data())
def test_sgns_corrupted_arrays_raise_sgns_data_error(
    table: dict[str, Any], kind: str, data: st.DataObject
) -> None:
    V, P = table["V"], len(table["n"])
    i = data.draw(st.integers(0, P - 1), label="row")
    arrays: dict[str, Any] = {k: list(table[k]) for k in ("target", "context", "n", "n_pos")}
    needles: tuple[str, ...] = ()
    if kind.startswith(("target", "context")):
        name = kind.split("_")[0]
        bad = (
            data.draw(st.integers(V, 2**40))
            if kind.endswith("high")
            else data.draw(st.integers(-(2**40), -1))
        )
        arrays[name][i] = bad
        needles = (name, str(bad))
    elif kind == "n_below_one":
        arrays["n"][i] = data.draw(st.integers(-(2**40), 0))
        arrays["n_pos"][i] = 0
    elif kind == "n_beyond_int32":
        arrays["n"][i] = data.draw(st.integers(INT32_MAX + 1, 2**62))
    elif kind == "n_pos_negative":
        arrays["n_pos"][i] = data.draw(st.integers(-(2**40), -1))
    elif kind == "n_pos_above_n":
        arrays["n_pos"][i] = arrays["n"][i] + data.draw(st.integers(1, 2**20))
        needles = (f"n_pos={arrays['n_pos'][i]}",)
    elif kind in ("fraction", "nonfinite", "float_beyond_int64"):
        name = data.draw(st.sampled_from(["target", "context", "n", "n_pos"]))
        arrays[name] = np.asarray(arrays[name], dtype=np.float64)
        if kind == "fraction":
            arrays[name][i] += data.draw(st.floats(0.01, 0.99))
        elif kind == "nonfinite":
            arrays[name][i] = data.draw(NONFINITE)
        else:
            arrays[name][i] = data.draw(st.floats(2.0**63, 1e300)) * data.draw(
                st.sampled_from([1, -1])
            )
    elif kind == "uint_beyond_int64":
        name = data.draw(st.sampled_from(["target", "context", "n", "n_pos"]))
        arrays[name] = np.asarray(arrays[name], dtype=np.uint64)
        arrays[name][i] = data.draw(st.integers(2**63, 2**64 - 1))
    elif kind == "python_int_beyond_int64":
        name = data.draw(st.sampled_from(["target", "context", "n", "n_pos"]))
        arrays[name][i] = data.draw(st.integers(2**63, 2**80) | st.integers(-(2**80), -(2**63) - 1))
    elif kind == "duplicate_pair":
        for name in arrays:  # append a copy of row i: the pair now occurs twice
            arrays[name].append(arrays[name][i])
        needles = ("more than once",)
    elif kind == "length_mismatch":
        name = data.draw(st.sampled_from(sorted(arrays)))
        arrays[name] = arrays[name][:-1] if data.draw(st.booleans()) else arrays[name] + [0]
        needles = ("differ in length",)
    elif kind == "two_dimensional":
        name = data.draw(st.sampled_from(sorted(arrays)))
        arrays[name] = np.asarray(arrays[name]).reshape(-1, 1)
        needles = ("one-dimensional",)
    elif kind == "strings":
        name = data.draw(st.sampled_from(sorted(arrays)))
        arrays[name] = [str(x) for x in arrays[name]]
    else:  # pragma: no cover - a new kind without a branch
        raise AssertionError(kind)
    vocab = table["vocabulary"]
    assert_typed_error(
        SGNSDataError,
        lambda: SGNSData(vocab, arrays["target"], arrays["context"], arrays["n"], arrays["n_pos"]),
        *needles,
    )


FROM_COUNTS_CORRUPTIONS = [
    "index_out_of_range",
    "n_negative",
    "n_pos_negative_cancelled_by_merge",
    "n_pos_above_n_hidden_by_merge",
    "n_pos_without_n",
    "n_beyond_int32",
    "n_huge_float",
    "fraction",
    "length_mismatch",
]


@cfg(120)
@given(
    table=sgns_tables(min_pairs=1),
    kind=st.sampled_from(FROM_COUNTS_CORRUPTIONS),
    data=st.data(),
)
def test_sgns_from_counts_refuses_bad_rows_even_when_merging_would_hide_them(
    table: dict[str, Any], kind: str, data: st.DataObject
) -> None:
    V, P = table["V"], len(table["n"])
    i = data.draw(st.integers(0, P - 1), label="row")
    t, c, n, p = (list(table[k]) for k in ("target", "context", "n", "n_pos"))
    n_arr: Any = n
    if kind == "index_out_of_range":
        bad = data.draw(st.integers(V, 2**40) | st.integers(-(2**40), -1))
        (t if data.draw(st.booleans()) else c)[i] = bad
    elif kind == "n_negative":
        n[i] = data.draw(st.integers(-(2**40), -1))
        p[i] = 0
    elif kind == "n_pos_negative_cancelled_by_merge":
        m = data.draw(st.integers(1, 1000))
        p[i] = -m  # ... and a second row of the same pair brings the sum back into [0, n]
        t, c, n, p = t + [t[i]], c + [c[i]], n + [2 * m], p + [2 * m]
        n_arr = n
    elif kind == "n_pos_above_n_hidden_by_merge":
        p[i] = n[i] + data.draw(st.integers(1, 1000))
        t, c, n, p = t + [t[i]], c + [c[i]], n + [10**7], p + [0]
        n_arr = n
    elif kind == "n_pos_without_n":
        n[i] = 0
        p[i] = data.draw(st.integers(1, 1000) | st.integers(-1000, -1))
    elif kind == "n_beyond_int32":
        n[i] = data.draw(st.integers(INT32_MAX + 1, 2**62))
    elif kind == "n_huge_float":  # several huge rows: their float sum leaves the int64 range
        n_arr = np.asarray(n + [0.0] * 3, dtype=np.float64)
        n_arr[-3:] = data.draw(st.floats(2.0**62, 2.0**62.9))
        t, c, p = t + [t[i]] * 3, c + [c[i]] * 3, p + [0] * 3
    elif kind == "fraction":
        n_arr = np.asarray(n, dtype=np.float64)
        n_arr[i] += data.draw(st.floats(0.01, 0.99))
    elif kind == "length_mismatch":
        p = p[:-1]
    else:  # pragma: no cover
        raise AssertionError(kind)
    vocab = table["vocabulary"]
    assert_typed_error(SGNSDataError, lambda: SGNSData.from_counts(vocab, t, c, n_arr, p))


@cfg(60)
@given(
    obs=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 1)), min_size=1),
    bad=st.integers(2, 2**40) | st.integers(-(2**40), -1) | st.floats(0.01, 0.99),
    data=st.data(),
)
def test_sgns_from_observations_refuses_labels_other_than_0_and_1(
    obs: list[tuple[int, int, int]], bad: float, data: st.DataObject
) -> None:
    i = data.draw(st.integers(0, len(obs) - 1))
    labels: list[float] = [b for _, _, b in obs]
    labels[i] = bad
    assert_typed_error(
        SGNSDataError,
        lambda: SGNSData.from_observations(
            4, [t for t, _, _ in obs], [c for _, c, _ in obs], labels
        ),
        "label",
    )


@cfg(80)
@given(
    kind=st.sampled_from(["empty", "duplicate", "not_a_string", "one_string", "bad_int"]),
    words=st.lists(WORDS, min_size=1, max_size=6, unique=True),
    data=st.data(),
)
def test_sgns_bad_vocabulary_raises(kind: str, words: list[str], data: st.DataObject) -> None:
    vocab: Any
    if kind == "empty":
        vocab = data.draw(st.sampled_from([[], (), np.array([], dtype=str)]))
    elif kind == "duplicate":
        i = data.draw(st.integers(0, len(words)))
        vocab = words[:i] + [data.draw(st.sampled_from(words))] + words[i:]
    elif kind == "not_a_string":
        i = data.draw(st.integers(0, len(words) - 1))
        vocab = list(words)
        vocab[i] = data.draw(st.sampled_from([None, 1, 1.5, b"w", ("w",)]))
    elif kind == "one_string":
        vocab = "".join(words) or "w"
    else:
        vocab = data.draw(st.integers(max_value=0) | st.sampled_from([True, False, 2.0, None]))
    assert_typed_error(SGNSDataError, lambda: SGNSData(vocab, [0], [0], [1], [0]))


@cfg(30)
@given(
    table=sgns_tables(),
    drop=st.sampled_from(["vocabulary", "target", "context", "n", "n_pos"]),
    junk=st.sampled_from([None, 3, 1.5, object()]),
)
def test_sgns_from_dict_refuses_missing_keys_and_non_mappings(
    table: dict[str, Any], drop: str, junk: Any
) -> None:
    d = sgns_build(table).to_dict()
    del d[drop]
    assert_typed_error(SGNSDataError, lambda: SGNSData.from_dict(d), repr(drop))
    assert_typed_error(SGNSDataError, lambda: SGNSData.from_dict(junk))


@cfg(120)
@given(
    table=sgns_tables(min_pairs=1),
    what=st.sampled_from(["K", "prior_sd", "grainsize", "no_pairs"]),
    data=st.data(),
)
def test_sgns_stan_data_refuses_bad_parameters(
    table: dict[str, Any], what: str, data: st.DataObject
) -> None:
    d = sgns_build(table)
    kwargs: dict[str, Any] = {}
    K: Any = 2
    if what == "K":
        K = data.draw(
            st.integers(max_value=0) | st.sampled_from([True, False, 2.0, "2", None, [2]])
        )
    elif what == "prior_sd":
        kwargs["prior_sd"] = data.draw(BAD_POSITIVE | st.just(np.array([1.0, 2.0])))
    elif what == "grainsize":
        kwargs["grainsize"] = data.draw(
            st.integers(max_value=-1) | st.sampled_from([True, 1.5, "8", None])
        )
    else:
        d = SGNSData(d.vocabulary, [], [], [], [])
    assert_typed_error(SGNSDataError, lambda: d.stan_data(K, **kwargs))


ANCHOR_CORRUPTIONS = [
    "K_not_below_V",
    "index_out_of_range",
    "index_repeated",
    "index_not_integer",
    "index_ragged",
    "alpha_wrong_shape",
    "alpha_nonfinite",
    "alpha_singular",
    "alpha_ragged",
    "alpha_strings",
    "only_one_given",
]


@cfg(120)
@given(table=sgns_tables(min_pairs=1), kind=st.sampled_from(ANCHOR_CORRUPTIONS), data=st.data())
def test_sgns_stan_data_refuses_bad_fixed_words(
    table: dict[str, Any], kind: str, data: st.DataObject
) -> None:
    d = sgns_build(table)
    V = d.V
    if kind == "K_not_below_V":
        K = data.draw(st.integers(V, V + 3))
        index: Any = list(range(K))
    else:
        if V < 3:  # every other corruption wants 2 <= K < V
            d = SGNSData(V + 2, d.target, d.context, d.n, d.n_pos)
            V += 2
        K = data.draw(st.integers(2, min(V - 1, 4)))
        index = data.draw(st.permutations(range(V)))[:K]
    alpha: Any = np.eye(K) * data.draw(st.floats(0.5, 2.0))
    i, j = data.draw(st.integers(0, K - 1)), data.draw(st.integers(0, K - 1))
    error: type[BayesweError] = IdentificationError
    if kind == "index_out_of_range":
        index[i] = data.draw(st.integers(V, 2**40) | st.integers(-(2**40), -1))
    elif kind == "index_repeated":
        index[i] = index[(i + 1) % K]
    elif kind == "index_not_integer":
        index = np.asarray(index, dtype=np.float64) + data.draw(st.sampled_from([0.0, 0.5]))
    elif kind == "index_ragged":
        index = [list(index[:1]), *index[1:]]
    elif kind == "alpha_wrong_shape":
        alpha = data.draw(
            st.sampled_from([np.eye(K + 1), np.ones((K, K + 1)), np.ones(K), np.ones((K, K, 1))])
        )
    elif kind == "alpha_nonfinite":
        alpha[i, j] = data.draw(NONFINITE)
    elif kind == "alpha_singular":
        alpha[i] = alpha[j] if i != j else 0.0
        if i == j or data.draw(st.booleans()):
            alpha[i] = 0.0
    elif kind == "alpha_ragged":
        alpha = alpha.tolist()
        alpha[i] = alpha[i][:-1]
    elif kind == "alpha_strings":
        alpha = [["a"] * K] * K
    elif kind == "only_one_given":
        error = SGNSDataError
        if data.draw(st.booleans()):
            alpha = None
        else:
            index = None
    assert_typed_error(error, lambda: d.stan_data(K, fixed_index=index, fixed_alpha=alpha))


# --------------------------------------------------------------------------- LDA


@st.composite
def dense_counts(
    draw: st.DrawFn, min_docs: int = 1, max_docs: int = 5, max_words: int = 6
) -> np.ndarray:
    """A ``(n_docs, V)`` int64 count matrix without empty rows."""
    D = draw(st.integers(min_docs, max_docs))
    V = draw(st.integers(1, max_words))
    cells = draw(st.lists(st.integers(0, 30), min_size=D * V, max_size=D * V))
    m = np.asarray(cells, dtype=np.int64).reshape(D, V)
    for d in range(D):
        if m[d].sum() == 0:
            m[d, draw(st.integers(0, V - 1))] = draw(st.integers(1, 30))
    return m


def bow_from(m: np.ndarray) -> BagOfWords:
    vocab = Vocabulary(tuple(f"w{i}" for i in range(m.shape[1])))
    return BagOfWords.from_dense(m, vocab)


def check_aggregated_stan(out: dict[str, Any], m: np.ndarray) -> None:
    """``doc``/``word`` 1-based int64, ``count`` int64, and they rebuild the count matrix."""
    D, V = m.shape
    nnz = int(np.count_nonzero(m))
    assert (out["D"], out["V"], out["N"]) == (D, V, nnz)
    for name in ("doc", "word", "count"):
        assert out[name].dtype == np.int64 and out[name].shape == (nnz,)
    rebuilt = np.zeros_like(m)
    rebuilt[out["doc"] - 1, out["word"] - 1] = out["count"]
    np.testing.assert_array_equal(rebuilt, m)


@cfg(60)
@given(
    m=dense_counts(),
    K=st.integers(2, 6),
    alpha_vector=st.booleans(),
    data=st.data(),
)
def test_lda_valid_inputs_construct_and_to_stan_preserves_counts(
    m: np.ndarray, K: int, alpha_vector: bool, data: st.DataObject
) -> None:
    alpha: Any = (
        data.draw(st.lists(IN_RANGE, min_size=K, max_size=K))
        if alpha_vector
        else data.draw(IN_RANGE)
    )
    beta = data.draw(IN_RANGE)
    lda = LDAData(bow_from(m), np.int64(K) if data.draw(st.booleans()) else K, alpha, beta)
    assert (lda.n_docs, lda.n_words) == m.shape
    assert type(lda.n_topics) is int and lda.n_topics == K
    assert type(lda.beta) is float and lda.beta == float(beta)
    assert lda.symmetric_alpha is not alpha_vector
    if alpha_vector:
        assert lda.alpha.dtype == np.float64 and not lda.alpha.flags.writeable
        np.testing.assert_array_equal(lda.alpha, np.asarray(alpha, dtype=np.float64))
    else:
        assert type(lda.alpha) is float and lda.alpha == float(alpha)
    vec = lda.alpha_vector()
    assert vec.shape == (K,) and vec.dtype == np.float64
    np.testing.assert_array_equal(vec, np.broadcast_to(np.asarray(alpha, dtype=np.float64), (K,)))

    out = lda.to_stan()
    assert set(out) == {"D", "V", "K", "N", "doc", "word", "count", "alpha", "beta"}
    check_aggregated_stan(out, m)
    assert out["K"] == K and out["beta"] == float(beta)
    tokens = lda.to_stan_tokens()
    assert tokens["N"] == int(m.sum()) and tokens["doc"].shape == tokens["word"].shape == (m.sum(),)
    np.testing.assert_array_equal(np.bincount(tokens["doc"] - 1, minlength=m.shape[0]), m.sum(1))
    np.testing.assert_array_equal(np.bincount(tokens["word"] - 1, minlength=m.shape[1]), m.sum(0))


LDA_CORRUPTIONS = [
    "empty_document",
    "no_documents",
    "corpus_not_bag",
    "K_small",
    "K_not_int",
    "alpha_scalar",
    "alpha_entry",
    "alpha_shape",
    "alpha_not_numeric",
    "beta",
]


@cfg(150)
@given(m=dense_counts(), kind=st.sampled_from(LDA_CORRUPTIONS), data=st.data())
def test_lda_invalid_inputs_raise_lda_data_error(
    m: np.ndarray, kind: str, data: st.DataObject
) -> None:
    D, V = m.shape
    K = data.draw(st.integers(2, 5))
    corpus: Any = bow_from(m)
    alpha: Any = 0.1
    beta: Any = 0.01
    needles: tuple[str, ...] = ()
    if kind == "empty_document":
        at = data.draw(st.integers(0, D))
        corpus = bow_from(np.insert(m, at, 0, axis=0))
        needles = (f"(index {at})",)
    elif kind == "no_documents":
        corpus = bow_from(np.zeros((0, V), dtype=np.int64))
    elif kind == "corpus_not_bag":
        corpus = data.draw(st.sampled_from([m, m.tolist(), None, Vocabulary(("a",))]))
    elif kind == "K_small":
        K = data.draw(st.integers(max_value=1))
    elif kind == "K_not_int":
        K = data.draw(st.sampled_from([2.0, "3", None, True, [2]]))
    elif kind == "alpha_scalar":
        alpha = data.draw(BAD_POSITIVE.filter(lambda x: not isinstance(x, list)))
    elif kind == "alpha_entry":
        alpha = [0.5] * K
        alpha[data.draw(st.integers(0, K - 1))] = data.draw(
            st.floats(max_value=0.0) | NONFINITE | TINY | HUGE
        )
    elif kind == "alpha_shape":
        alpha = data.draw(
            st.sampled_from([[0.5] * (K + 1), [0.5] * (K - 1), [[0.5] * K], np.full((K, 1), 0.5)])
        )
    elif kind == "alpha_not_numeric":
        alpha = data.draw(st.sampled_from([["a"] * K, [[0.5], [0.5, 0.5]], [1 + 1j] * K]))
    else:
        beta = data.draw(BAD_POSITIVE | st.just(np.array([0.1, 0.2])))
    assert_typed_error(LDADataError, lambda: LDAData(corpus, K, alpha, beta), *needles)


# --------------------------------------------------------------------------- Gaussian LDA


def dyadic(low: int = -800, high: int = 800) -> st.SearchStrategy[float]:
    """Multiples of 1/8: sums and products of a few are exact in float64."""
    return st.integers(low, high).map(lambda k: k / 8.0)


@st.composite
def glda_inputs(draw: st.DrawFn) -> dict[str, Any]:
    m = draw(dense_counts())
    V = m.shape[1]
    D = draw(st.integers(1, 4))
    emb = np.asarray(draw(st.lists(dyadic(), min_size=V * D, max_size=V * D))).reshape(V, D)
    return {"m": m, "emb": emb, "D": D, "K": draw(st.integers(2, 5))}


@cfg(60)
@given(inputs=glda_inputs(), data=st.data())
def test_glda_valid_inputs_construct_with_exact_defaults(
    inputs: dict[str, Any], data: st.DataObject
) -> None:
    m, emb, D, K = inputs["m"], inputs["emb"], inputs["D"], inputs["K"]
    kwargs: dict[str, Any] = {}
    if data.draw(st.booleans()):
        kwargs["alpha"] = data.draw(IN_RANGE | st.lists(IN_RANGE, min_size=K, max_size=K))
    if data.draw(st.booleans()):
        kwargs["kappa"] = data.draw(IN_RANGE)
    if data.draw(st.booleans()):
        kwargs["nu"] = data.draw(st.floats(D - 0.5, 1e6) | st.integers(D, 10**6))
    if data.draw(st.booleans()):
        kwargs["mu0"] = data.draw(st.lists(dyadic(), min_size=D, max_size=D))
    if data.draw(st.booleans()):
        a = np.asarray(data.draw(st.lists(dyadic(-16, 16), min_size=D * D, max_size=D * D)))
        a = a.reshape(D, D)
        kwargs["Psi"] = a @ a.T + np.eye(D)  # symmetric exactly, positive definite
    emb_in: Any = emb.astype(np.float32) if data.draw(st.booleans()) else emb.tolist()
    g = GaussianLDAData(bow_from(m), emb_in, K, **kwargs)

    assert (g.n_docs, g.n_words, g.dim, g.n_topics) == (m.shape[0], m.shape[1], D, K)
    for name, shape in (("embeddings", emb.shape), ("alpha", (K,)), ("mu0", (D,)), ("Psi", (D, D))):
        arr = getattr(g, name)
        assert arr.dtype == np.float64 and arr.shape == shape, name
        assert arr.flags.c_contiguous and not arr.flags.writeable, name
    np.testing.assert_array_equal(g.embeddings, emb)
    np.testing.assert_array_equal(
        g.alpha, np.broadcast_to(np.asarray(kwargs.get("alpha", 0.1), dtype=np.float64), (K,))
    )
    assert type(g.kappa) is float and g.kappa == float(kwargs.get("kappa", 0.1))
    assert type(g.nu) is float and g.nu == float(kwargs.get("nu", D + 2))
    if "mu0" in kwargs:
        np.testing.assert_array_equal(g.mu0, kwargs["mu0"])
    else:  # the mean of the token embeddings (exact for dyadic entries and small counts)
        np.testing.assert_array_equal(g.mu0, (m.sum(axis=0) @ emb) / m.sum())
    np.testing.assert_array_equal(g.Psi, kwargs.get("Psi", 3.0 * np.eye(D)))

    out = g.to_stan()
    check_aggregated_stan(out, m)
    assert (out["K"], out["P"], out["kappa"], out["nu"]) == (K, D, g.kappa, g.nu)
    assert out["vocabulary"] == [f"w{i}" for i in range(m.shape[1])]
    for name in ("embeddings", "alpha", "mu0", "Psi"):
        np.testing.assert_array_equal(out[name], getattr(g, name))
        assert out[name].flags.writeable  # copies


GLDA_CORRUPTIONS = [
    "empty_document",
    "corpus_not_bag",
    "emb_nonfinite",
    "emb_rows",
    "emb_ndim",
    "emb_no_columns",
    "emb_huge",
    "emb_tiny",
    "emb_not_real",
    "emb_ragged",
    "K",
    "alpha_scalar",
    "alpha_entry",
    "alpha_shape",
    "alpha_not_numeric",
    "kappa",
    "nu_too_small",
    "nu_bad",
    "mu0_shape",
    "mu0_nonfinite",
    "mu0_not_numeric",
    "Psi_shape",
    "Psi_nonfinite",
    "Psi_asymmetric",
    "Psi_not_positive_definite",
    "Psi_magnitude",
    "Psi_huge_off_diagonal",
    "Psi_not_numeric",
]


@cfg(250)
@given(inputs=glda_inputs(), kind=st.sampled_from(GLDA_CORRUPTIONS), data=st.data())
def test_glda_invalid_inputs_raise_gaussian_lda_data_error(
    inputs: dict[str, Any], kind: str, data: st.DataObject
) -> None:
    m, emb, D, K = inputs["m"], inputs["emb"], inputs["D"], inputs["K"]
    V = m.shape[1]
    corpus: Any = bow_from(m)
    emb_in: Any = emb
    kw: dict[str, Any] = {}
    needles: tuple[str, ...] = ()
    r, c = data.draw(st.integers(0, V - 1)), data.draw(st.integers(0, D - 1))
    if kind == "empty_document":
        at = data.draw(st.integers(0, m.shape[0]))
        corpus = bow_from(np.insert(m, at, 0, axis=0))
        needles = (f"(index {at})",)
    elif kind == "corpus_not_bag":
        corpus = data.draw(st.sampled_from([m, None, "corpus"]))
    elif kind == "emb_nonfinite":
        emb_in = emb.copy()
        emb_in[r, c] = data.draw(NONFINITE)
        needles = (repr(f"w{r}"),)  # names the word without a vector
    elif kind == "emb_rows":
        emb_in = emb[:-1] if data.draw(st.booleans()) else np.vstack([emb, emb[:1]])
        needles = ("dimension mismatch",)
    elif kind == "emb_ndim":
        emb_in = data.draw(st.sampled_from([emb.ravel(), emb[..., None], np.float64(1.0)]))
    elif kind == "emb_no_columns":
        emb_in = np.zeros((V, 0))
    elif kind == "emb_huge":
        emb_in = emb.copy()
        emb_in[r, c] = data.draw(HUGE) * data.draw(st.sampled_from([1, -1]))
    elif kind == "emb_tiny":  # every entry is 0 or below the smallest supported magnitude
        emb_in = np.zeros_like(emb)
        emb_in[r, c] = data.draw(TINY)
    elif kind == "emb_not_real":
        emb_in = data.draw(
            st.sampled_from([emb + 1j, emb.astype(str), emb > 0, emb.astype(object)])
        )
    elif kind == "emb_ragged":
        emb_in = emb.tolist() + [[0.0] * (D + 1)]
    elif kind == "K":
        K = data.draw(st.integers(max_value=1) | st.sampled_from([2.0, "2", None, True]))
    elif kind == "alpha_scalar":
        kw["alpha"] = data.draw(BAD_POSITIVE.filter(lambda x: not isinstance(x, list)))
    elif kind == "alpha_entry":
        alpha = [0.5] * K
        alpha[data.draw(st.integers(0, K - 1))] = data.draw(
            st.floats(max_value=0.0) | NONFINITE | TINY | HUGE
        )
        kw["alpha"] = alpha
    elif kind == "alpha_shape":
        kw["alpha"] = data.draw(st.sampled_from([[0.5] * (K + 1), [[0.5] * K], []]))
    elif kind == "alpha_not_numeric":
        kw["alpha"] = data.draw(
            st.sampled_from([["a"] * K, [[0.5], [0.5, 0.5]], [1 + 1j] * K, object()])
        )
    elif kind == "kappa":
        kw["kappa"] = data.draw(BAD_POSITIVE)
    elif kind == "nu_too_small":
        kw["nu"] = data.draw(st.floats(max_value=D - 1, allow_infinity=False, allow_nan=False))
        needles = (f"D - 1 = {D - 1}",)
    elif kind == "nu_bad":
        kw["nu"] = data.draw(NONFINITE | HUGE | st.sampled_from(["5", True, [5.0], 5 + 0j]))
    elif kind == "mu0_shape":
        kw["mu0"] = data.draw(st.sampled_from([np.zeros(D + 1), np.zeros((D, 1)), 0.0]))
    elif kind == "mu0_nonfinite":
        mu0 = np.zeros(D)
        mu0[c] = data.draw(NONFINITE)
        kw["mu0"] = mu0
    elif kind == "mu0_not_numeric":
        kw["mu0"] = data.draw(st.sampled_from([["a"] * D, [[0.0]] + [[0.0, 1.0]] * D, [1j] * D]))
    elif kind.startswith("Psi"):
        a = np.asarray(data.draw(st.lists(dyadic(-16, 16), min_size=D * D, max_size=D * D)))
        psi = a.reshape(D, D) @ a.reshape(D, D).T + np.eye(D)
        i, j = data.draw(st.integers(0, D - 1)), data.draw(st.integers(0, D - 1))
        if kind == "Psi_shape":
            psi = data.draw(st.sampled_from([np.eye(D + 1), np.ones(D), np.ones((D, D + 1))]))
        elif kind == "Psi_nonfinite":
            psi[i, j] = data.draw(NONFINITE)
        elif kind == "Psi_asymmetric" and D >= 2:
            j = (i + 1) % D
            psi[i, j] += data.draw(st.floats(0.5, 100.0)) * np.abs(psi).max()
        elif kind == "Psi_not_positive_definite" or kind == "Psi_asymmetric":
            # subtract t v v^T with v^T Psi v < t |v|^4: an indefinite but symmetric matrix
            v = np.asarray(data.draw(st.lists(st.integers(-3, 3), min_size=D, max_size=D)))
            if not v.any():
                v[i] = 1
            t = float(v @ psi @ v) / float(v @ v) ** 2 + data.draw(st.floats(0.5, 10.0))
            psi = psi - t * np.outer(v, v)
        elif kind == "Psi_magnitude":
            psi = data.draw(st.sampled_from([0.0, 1.0])) * np.eye(D) * data.draw(TINY | HUGE)
        elif kind == "Psi_huge_off_diagonal":
            if D == 1:
                psi = np.array([[data.draw(HUGE)]])
            else:
                j = (i + 1) % D
                sign = data.draw(st.sampled_from([1.0, -1.0]))
                psi[i, j] = data.draw(HUGE)
                psi[j, i] = sign * psi[i, j]
        else:
            psi = [["a"] * D] * D if data.draw(st.booleans()) else [[1.0]] + [[1.0, 0.0]] * D
        kw["Psi"] = psi
    else:  # pragma: no cover
        raise AssertionError(kind)
    assert_typed_error(
        GaussianLDADataError, lambda: GaussianLDAData(corpus, emb_in, K, **kw), *needles
    )


# --------------------------------------------------------------------------- corpus types


@cfg(60)
@given(
    words=st.lists(WORDS, min_size=1, max_size=10, unique=True),
    data=st.data(),
)
def test_vocabulary_valid_words_get_their_positions_as_ids(
    words: list[str], data: st.DataObject
) -> None:
    counts = data.draw(
        st.none() | st.lists(st.integers(0, 2**40), min_size=len(words), max_size=len(words))
    )
    unk = data.draw(st.none() | st.sampled_from(words))
    vocab = Vocabulary(tuple(words), counts, unk=unk)
    assert vocab.words == tuple(words) and len(vocab) == len(words)
    assert vocab.counts.dtype == np.int64 and not vocab.counts.flags.writeable
    np.testing.assert_array_equal(vocab.counts, counts if counts is not None else 0)
    assert [vocab.id(w) for w in words] == list(range(len(words)))
    ids = vocab.ids(words)
    assert ids.dtype == np.int32
    np.testing.assert_array_equal(ids, np.arange(len(words)))
    unknown = "".join(words) + "#"  # longer than every word, so not among them
    assert unknown not in vocab
    if unk is None:
        assert vocab.ids([unknown, *words], drop_unknown=True).tolist() == list(range(len(words)))
    else:
        assert vocab.id(unknown) == words.index(unk)


@cfg(80)
@given(
    words=st.lists(WORDS, min_size=1, max_size=8, unique=True),
    kind=st.sampled_from(["empty", "duplicate", "negative_count", "counts_shape", "unk_missing"]),
    data=st.data(),
)
def test_vocabulary_invalid_inputs_raise_corpus_error(
    words: list[str], kind: str, data: st.DataObject
) -> None:
    counts: Any = [1] * len(words)
    unk = None
    if kind == "empty":
        words = []
    elif kind == "duplicate":
        at = data.draw(st.integers(0, len(words)))
        words = words[:at] + [data.draw(st.sampled_from(words))] + words[at:]
        counts = [1] * len(words)
    elif kind == "negative_count":
        counts[data.draw(st.integers(0, len(words) - 1))] = data.draw(st.integers(-(2**40), -1))
    elif kind == "counts_shape":
        counts = data.draw(
            st.sampled_from([counts + [1], counts[:-1], [counts], 1 if len(words) > 1 else [1, 1]])
        )
    else:
        unk = "".join(words) + "#"
    assert_typed_error(CorpusError, lambda: Vocabulary(tuple(words), counts, unk=unk))


def check_bag(bow: BagOfWords, docs: list[list[int]]) -> None:
    """A bag of words holds exactly the token multiset of each document, in CSR form."""
    V = bow.n_words
    assert bow.n_docs == len(docs)
    assert bow.doc_ptr.dtype == np.int64 and bow.doc_ptr.shape == (len(docs) + 1,)
    assert bow.word_ids.dtype == np.int32 and bow.counts.dtype == np.int32
    for arr in (bow.doc_ptr, bow.word_ids, bow.counts):
        assert not arr.flags.writeable
    assert bow.doc_lengths.dtype == np.int64
    np.testing.assert_array_equal(bow.doc_lengths, [len(d) for d in docs])
    assert bow.n_tokens == int(bow.doc_lengths.sum()) == sum(len(d) for d in docs)
    assert np.all(bow.counts > 0)
    for d in range(len(docs)):
        row = bow.word_ids[bow.doc_ptr[d] : bow.doc_ptr[d + 1]]
        assert np.all(np.diff(row) > 0)  # strictly increasing within a document
    doc_of, word_of = bow.tokens()
    assert doc_of.shape == word_of.shape == (bow.n_tokens,)
    for d, doc in enumerate(docs):
        assert sorted(word_of[doc_of == d].tolist()) == sorted(doc)
    dense = bow.to_dense()
    assert dense.shape == (len(docs), V)
    for d, doc in enumerate(docs):
        np.testing.assert_array_equal(dense[d], np.bincount(doc, minlength=V) if doc else 0)


@cfg(60)
@given(st.data())
def test_bag_of_words_from_token_ids_keeps_every_token(data: st.DataObject) -> None:
    V = data.draw(st.integers(1, 8))
    docs = data.draw(st.lists(st.lists(st.integers(0, V - 1), max_size=15), max_size=6))
    kind = data.draw(st.sampled_from(["list", "int64", "int32", "uint16"]))
    given_docs = [as_kind(d, kind) for d in docs]
    ids = data.draw(
        st.none() | st.lists(WORDS, min_size=len(docs), max_size=len(docs), unique=True)
    )
    bow = BagOfWords.from_token_ids(
        given_docs, Vocabulary(tuple(f"w{i}" for i in range(V))), doc_ids=ids or ()
    )
    check_bag(bow, docs)
    assert bow.doc_ids == (tuple(ids) if ids else tuple(str(i) for i in range(len(docs))))
    # subset by a mask keeps the non-empty documents and their tokens
    keep = bow.subset(bow.doc_lengths > 0)
    check_bag(keep, [d for d in docs if d])
    if keep.n_docs:
        keep.check_nonempty()


@cfg(60)
@given(
    m=dense_counts(min_docs=0, max_docs=6, max_words=7).map(
        lambda m: m * (np.arange(m.size).reshape(m.shape) % 3 != 0)
    ),
    dtype=st.sampled_from([np.int64, np.int32, np.uint8, np.float64]),
)
def test_bag_of_words_from_dense_round_trips(m: np.ndarray, dtype: type) -> None:
    bow = bow_from(m.astype(dtype))
    dense = bow.to_dense()
    assert dense.dtype == np.int64
    np.testing.assert_array_equal(dense, m)
    assert bow.n_tokens == int(m.sum())
    np.testing.assert_array_equal(bow.doc_lengths, m.sum(axis=1))
    assert bow.word_ids.size == np.count_nonzero(m)
    docs = [np.repeat(np.arange(m.shape[1]), row).tolist() for row in m]
    check_bag(bow, docs)


BAG_CORRUPTIONS = [
    "word_id_out_of_range",
    "count_not_positive",
    "repeated_word_in_document",
    "decreasing_words_in_document",
    "doc_ptr_start",
    "doc_ptr_decreasing",
    "doc_ptr_2d",
    "shape_mismatch",
    "doc_ids_length",
    "doc_ids_repeated",
    "metadata_rows",
    "token_id_out_of_range",
    "dense_negative",
    "dense_fraction",
    "dense_nan",
    "dense_shape",
]


@cfg(150)
@given(m=dense_counts(min_docs=2), kind=st.sampled_from(BAG_CORRUPTIONS), data=st.data())
def test_bag_of_words_invalid_inputs_raise_corpus_error(
    m: np.ndarray, kind: str, data: st.DataObject
) -> None:
    bow = bow_from(m)
    vocab = bow.vocabulary
    V, D = len(vocab), bow.n_docs
    ptr, ids, cnt = bow.doc_ptr.copy(), bow.word_ids.copy(), bow.counts.copy()
    ids, cnt = ids.astype(np.int64), cnt.astype(np.int64)
    i = data.draw(st.integers(0, ids.size - 1))
    kw: dict[str, Any] = {}
    needles: tuple[str, ...] = ()
    docs: list[list[int]] | None = None  # set: build with from_token_ids
    dense: Any = None  # set: build with from_dense
    if kind == "word_id_out_of_range":
        ids[i] = data.draw(st.integers(V, 2**31 - 1) | st.integers(-(2**31), -1))
        needles = (f"word id {ids[i]} ",)
    elif kind == "count_not_positive":
        cnt[i] = data.draw(st.integers(-(2**31), 0))
    elif kind in ("repeated_word_in_document", "decreasing_words_in_document"):
        d = data.draw(st.integers(0, D - 1))
        at = int(ptr[d])  # document d is non-empty: put an entry before its first one
        # a larger id before the first one (or the same id when there is no larger one)
        new = ids[at] if kind.startswith("repeated") or ids[at] == V - 1 else ids[at] + 1
        ids, cnt = np.insert(ids, at, new), np.insert(cnt, at, 1)
        ptr = ptr.copy()
        ptr[d + 1 :] += 1
        needles = ("strictly increasing",)
    elif kind == "doc_ptr_start":
        ptr = ptr + data.draw(st.integers(1, 5))
    elif kind == "doc_ptr_decreasing":
        ptr = np.append(ptr, ptr[-1] - data.draw(st.integers(1, int(ptr[-1]))))
    elif kind == "doc_ptr_2d":
        ptr = ptr.reshape(1, -1)
    elif kind == "shape_mismatch":
        which = data.draw(st.sampled_from(["ids", "cnt", "ptr"]))
        if which == "ids":
            ids = ids[:-1]
        elif which == "cnt":
            cnt = np.append(cnt, 1)
        else:
            ptr = ptr.copy()
            ptr[-1] += data.draw(st.integers(1, 3))
    elif kind == "doc_ids_length":
        kw["doc_ids"] = tuple(str(k) for k in range(D + data.draw(st.sampled_from([-1, 1]))))
    elif kind == "doc_ids_repeated":
        kw["doc_ids"] = ("same",) * D
    elif kind == "metadata_rows":
        kw["metadata"] = pd.DataFrame({"year": range(D + data.draw(st.sampled_from([-1, 1])))})
    elif kind == "token_id_out_of_range":
        docs = [np.repeat(np.arange(V), row).tolist() for row in m]
        d = data.draw(st.integers(0, D - 1))
        docs[d].append(data.draw(st.integers(V, 2**40) | st.integers(-(2**40), -1)))
        needles = (f"document {d} ",)
    else:
        dense = m.astype(np.float64)
        r, c = data.draw(st.integers(0, D - 1)), data.draw(st.integers(0, V - 1))
        if kind == "dense_negative":
            dense[r, c] = -data.draw(st.integers(1, 2**31))
        elif kind == "dense_fraction":
            dense[r, c] += data.draw(st.floats(0.01, 0.99))
        elif kind == "dense_nan":
            dense[r, c] = np.nan
        else:
            dense = data.draw(st.sampled_from([dense[:, :-1], np.hstack([dense, dense]), dense[0]]))

    def build() -> BagOfWords:
        if docs is not None:
            return BagOfWords.from_token_ids(docs, vocab)
        if dense is not None:
            return BagOfWords.from_dense(dense, vocab)
        return BagOfWords(vocab, ptr, ids, cnt, **kw)

    assert_typed_error(CorpusError, build, *needles)


TOKENS = st.lists(st.sampled_from(["a", "b", "cat", "dog", "x"]), max_size=8)


@cfg(40)
@given(docs=st.lists(TOKENS, min_size=1, max_size=5).filter(lambda ds: any(ds)))
def test_corpus_valid_documents_and_bag_of_words_agree(docs: list[list[str]]) -> None:
    ids = tuple(f"doc{k}" for k in range(len(docs)))
    meta = pd.DataFrame({"k": range(len(docs))}, index=range(10, 10 + len(docs)))
    corpus = Corpus("toy", tuple(tuple(d) for d in docs), ids, meta)
    assert corpus.n_docs == len(corpus) == len(docs)
    assert corpus.documents == tuple(tuple(d) for d in docs)
    assert corpus.doc_lengths.dtype == np.int64
    np.testing.assert_array_equal(corpus.doc_lengths, [len(d) for d in docs])
    assert corpus.n_tokens == sum(len(d) for d in docs)
    assert list(corpus.metadata.index) == list(range(len(docs)))  # index reset
    bow = corpus.bag_of_words()
    words = bow.vocabulary.words
    assert set(words) == {w for d in docs for w in d}
    assert bow.doc_ids == ids and bow.n_tokens == corpus.n_tokens
    check_bag(bow, [[words.index(w) for w in d] for d in docs])


@cfg(40)
@given(
    docs=st.lists(TOKENS, min_size=1, max_size=5),
    kind=st.sampled_from(["no_documents", "doc_ids_length", "doc_ids_repeated", "metadata_rows"]),
    data=st.data(),
)
def test_corpus_invalid_inputs_raise_corpus_error(
    docs: list[list[str]], kind: str, data: st.DataObject
) -> None:
    n = len(docs)
    ids: tuple[str, ...] = tuple(f"doc{k}" for k in range(n))
    meta = pd.DataFrame({"k": range(n)})
    if kind == "no_documents":
        docs, ids, meta = [], (), pd.DataFrame({"k": []})
    elif kind == "doc_ids_length":
        ids = tuple(f"doc{k}" for k in range(n + data.draw(st.sampled_from([-1, 1]))))
    elif kind == "doc_ids_repeated":
        if n == 1:
            docs, meta = docs * 2, pd.DataFrame({"k": range(2)})
        ids = ("same",) * len(docs)
    else:
        meta = pd.DataFrame({"k": range(n + data.draw(st.integers(1, 3)))})
    assert_typed_error(CorpusError, lambda: Corpus("toy", tuple(map(tuple, docs)), ids, meta))
