"""SGNS pair extraction: exact positive counts, unigram^0.75 negatives, subsampling rate."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy import stats

from bayeswe.corpus import CorpusError, build_vocabulary, encode, tokenize
from bayeswe.corpus.pairs import (
    holdout_split,
    keep_probabilities,
    negative_distribution,
    sgns_data,
    subsample_tokens,
)

TOY = [
    "the cat sat on the mat and the dog sat on the cat",
    "a dog is not a cat",
    "cat",
    "the end of the story of the cat and the dog",
]


def _toy_docs():
    return [tokenize(t) for t in TOY]


def _brute_force(docs, window):
    counts = Counter()
    for doc in docs:
        for i, w in enumerate(doc):
            for j, v in enumerate(doc):
                if j != i and (window is None or abs(i - j) <= window):
                    counts[(w, v)] += 1
    return counts


def _positives(data):
    return {
        (data.vocabulary[t], data.vocabulary[c]): int(p)
        for t, c, p in zip(data.target, data.context, data.n_pos, strict=True)
        if p > 0
    }


@pytest.mark.parametrize("window", [1, 2, 5, 50, None])
def test_positive_counts_match_brute_force(window):
    docs = _toy_docs()
    data = sgns_data(docs, window=window, negatives=0, seed=0)
    assert _positives(data) == dict(_brute_force(docs, window))
    assert np.array_equal(data.n, data.n_pos)


def test_dropped_words_close_the_gap_and_unk_keeps_them():
    docs = _toy_docs()
    vocab = build_vocabulary(docs, min_count=3)  # drops rare words
    kept = [[w for w in d if w in vocab] for d in docs]
    data = sgns_data(docs, vocab, window=2, negatives=0, seed=0)
    assert _positives(data) == dict(_brute_force(kept, 2))
    vocab_unk = build_vocabulary(docs, min_count=3, unk="<unk>")
    data_unk = sgns_data(docs, vocab_unk, window=2, negatives=0, seed=0)
    mapped = [[w if w in vocab else "<unk>" for w in d] for d in docs]
    assert _positives(data_unk) == dict(_brute_force(mapped, 2))


def test_chunking_and_streaming_do_not_change_the_result():
    docs = _toy_docs() * 7
    vocab = build_vocabulary(docs)
    ref = sgns_data(docs, vocab, window=3, negatives=4, subsample=0.05, seed=11)
    small = sgns_data(
        iter(docs),
        vocab,
        window=3,
        negatives=4,
        subsample=0.05,
        seed=11,
        chunk_tokens=5,
        chunk_pairs=7,
    )
    assert small == ref
    other = sgns_data(docs, vocab, window=3, negatives=4, subsample=0.05, seed=12)
    assert not (other == ref)


def test_negatives_follow_unigram_power():
    """Chi-square goodness of fit of the negative contexts to unigram^0.75 at level 0.001.

    Real text (Lee corpus, first 100 documents, words with count >= 5); with a
    fixed seed the test is deterministic, and a sampler drawing from the plain
    unigram distribution fails it by a wide margin (checked below).
    """
    from bayeswe.datasets import load_lee

    docs = load_lee().documents[:100]
    vocab = build_vocabulary(docs, min_count=5)
    data = sgns_data(docs, vocab, window=2, negatives=3, seed=2026)
    # n_s negatives per positive, target by target
    pos_by_target = np.bincount(data.target, weights=data.n_pos, minlength=data.V)
    neg_by_target = np.bincount(data.target, weights=data.n_neg, minlength=data.V)
    assert np.array_equal(neg_by_target, 3 * pos_by_target)
    observed = np.bincount(data.context, weights=data.n_neg, minlength=data.V)
    q = negative_distribution(vocab.counts)
    total = observed.sum()
    stat, p = stats.chisquare(observed, total * q)
    assert p > 1e-3, (stat, p)
    plain = vocab.counts / vocab.counts.sum()
    assert stats.chisquare(observed, total * plain).pvalue < 1e-12
    # q is count^0.75 normalised: counts 1 and 16 give weights 1 and 8
    assert negative_distribution(np.array([1.0, 16.0])) == pytest.approx([1 / 9, 8 / 9])


def test_subsampling_keeps_the_expected_fraction():
    """Kept tokens within 4 binomial standard deviations of sum_w count_w * keep_w."""
    from bayeswe.datasets import load_lee

    docs = load_lee().documents
    vocab = build_vocabulary(docs)
    tokens, ptr = encode(docs, vocab)
    t = 1e-3
    keep = keep_probabilities(vocab.counts, t)
    f = vocab.counts / vocab.counts.sum()
    assert keep == pytest.approx(np.minimum(1, np.sqrt(t / f)))
    p = keep[tokens]
    expected, sd = p.sum(), np.sqrt((p * (1 - p)).sum())
    kept, new_ptr = subsample_tokens(tokens, ptr, keep, np.random.default_rng(7))
    assert abs(kept.size - expected) < 4 * sd, (kept.size, expected, sd)
    assert kept.size < 0.8 * tokens.size  # frequent words really are thinned
    assert new_ptr[0] == 0 and new_ptr[-1] == kept.size and np.all(np.diff(new_ptr) >= 0)
    # per word: "the" keeps about keep["the"] of its occurrences
    the = vocab["the"]
    n_the = int(vocab.counts[the])
    k_the = int((kept == the).sum())
    sd_the = np.sqrt(n_the * keep[the] * (1 - keep[the]))
    assert abs(k_the - n_the * keep[the]) < 4 * sd_the


def test_holdout_split_partitions_observations():
    data = sgns_data(_toy_docs() * 5, window=2, negatives=2, seed=3)
    train, test = holdout_split(data, 0.2, seed=4)
    total = {}
    for part in (train, test):
        for t, c, n, p in zip(part.target, part.context, part.n, part.n_pos, strict=True):
            a, b = total.get((t, c), (0, 0))
            total[(t, c)] = (a + n, b + p)
    assert total == {
        (t, c): (n, p)
        for t, c, n, p in zip(data.target, data.context, data.n, data.n_pos, strict=True)
    }
    assert 0 < test.total < train.total


def test_tokenizer_rules():
    assert tokenize("The Nation's 2nd well-known tax-cut, isn’t it?") == [
        "the",
        "nation's",
        "nd",
        "well",
        "known",
        "tax",
        "cut",
        "isn't",
        "it",
    ]
    assert tokenize("Ünïcode ＡＢＣ 123 _x_") == ["ünïcode", "abc", "x"]


@pytest.mark.parametrize(
    ("docs", "kwargs", "match"),
    [
        ([], {}, "no documents"),
        ([[], []], {}, "no tokens"),
        ([["a", "b"], ["c"]], {"min_count": 2}, "no word occurs at least min_count=2"),
        ([["a", "b"]], {"window": 0}, "window must be >= 1"),
        ([["a", "b"]], {"negatives": -1}, "negatives must be >= 0"),
        (["a text, not tokens"], {}, "not strings"),
        ([["a"], ["b"]], {}, "no positive pairs"),
    ],
)
def test_bad_inputs(docs, kwargs, match):
    with pytest.raises(CorpusError, match=match):
        sgns_data(docs, seed=0, **kwargs)


def test_one_shot_iterator_needs_a_vocabulary():
    with pytest.raises(CorpusError, match="one-shot iterator"):
        sgns_data(iter(_toy_docs()), seed=0)
    with pytest.raises(ValueError, match="subsample threshold"):
        sgns_data(_toy_docs(), seed=0, subsample=2.0)
