"""Posterior cosines, neighbour probabilities and "closer than" probabilities."""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest

from bayeswe.evaluation import (
    EvaluationError,
    OutOfVocabularyError,
    posterior_cosine,
    posterior_cosine_table,
    posterior_neighbours,
    posterior_prob_closer,
)

VOCAB = ["immigration", "economy", "security", "border", "jobs"]


def _angles_draws(angles_deg):
    """Draws of 2-d vectors at the given angles (degrees), ``(S, V)`` -> ``(S, V, 2)``."""
    a = np.deg2rad(np.asarray(angles_deg, dtype=float))
    return np.stack([np.cos(a), np.sin(a)], axis=-1)


# Four draws; immigration at 0 degrees, economy and security at varying angles from it.
ANGLES = np.array(
    [
        [0, 20, 40, 90, 120],
        [0, 30, 25, 95, 130],
        [0, 10, 60, 80, 150],
        [0, 50, 45, 100, 170],
    ]
)
DRAWS = _angles_draws(ANGLES) * np.array([1.0, 2.0, 0.5, 1.0, 3.0])[None, :, None]


def test_posterior_cosine_of_a_pair():
    post = posterior_cosine(DRAWS, VOCAB, "immigration", "Economy", prob=0.5)
    cos = np.cos(np.deg2rad(ANGLES[:, 1]))
    np.testing.assert_allclose(post.draws.values.ravel(), cos, atol=1e-12)
    assert post.mean == pytest.approx(cos.mean(), abs=1e-12)
    assert post.sd == pytest.approx(cos.std(ddof=1), abs=1e-12)
    assert (post.lower, post.upper) == pytest.approx(tuple(np.quantile(cos, [0.25, 0.75])))
    assert post.prob == 0.5 and post.word2 == "Economy"


def test_cosine_table_rows_equal_single_pairs():
    pairs = [("immigration", "economy"), ("immigration", "security"), ("border", "jobs")]
    table = posterior_cosine_table(DRAWS, VOCAB, pairs)
    assert table.columns.tolist() == [
        "word1",
        "word2",
        "mean",
        "sd",
        "lower",
        "upper",
        "p_positive",
    ]
    for row, (a, b) in zip(table.itertuples(), pairs, strict=True):
        one = posterior_cosine(DRAWS, VOCAB, a, b)
        assert (row.mean, row.sd, row.lower, row.upper) == pytest.approx(
            (one.mean, one.sd, one.lower, one.upper), abs=1e-12
        )
        assert row.p_positive == np.mean(one.draws.values > 0)
    assert table.attrs == {"prob": 0.9, "n_draws": 4}


def test_prob_closer_counts_draws():
    # economy closer than security in draws 0, 2 (20<40, 10<60); not in 1, 3 (30>25, 50>45).
    result = posterior_prob_closer(DRAWS, VOCAB, "immigration", "economy", "security")
    assert result.probability == 0.5
    diff = np.cos(np.deg2rad(ANGLES[:, 1])) - np.cos(np.deg2rad(ANGLES[:, 2]))
    np.testing.assert_allclose(result.draws.values.ravel(), diff, atol=1e-12)
    assert result.difference["mean"] == pytest.approx(diff.mean(), abs=1e-12)
    reverse = posterior_prob_closer(DRAWS, VOCAB, "immigration", "security", "economy")
    assert reverse.probability == 0.5
    border = posterior_prob_closer(DRAWS, VOCAB, "immigration", "economy", "border")
    assert border.probability == 1.0


def test_neighbour_probabilities_known_case():
    table = posterior_neighbours(DRAWS, VOCAB, "immigration", k=2)
    probs = dict(zip(table["word"], table["probability"], strict=True))
    # Top 2 by angle from immigration: {economy, security} in every draw.
    assert probs == {"economy": 1.0, "security": 1.0}
    top1 = posterior_neighbours(DRAWS, VOCAB, "immigration", k=1)
    assert dict(zip(top1["word"], top1["probability"], strict=True)) == {
        "economy": 0.5,
        "security": 0.5,
    }
    mean_cos = np.cos(np.deg2rad(ANGLES[:, 1])).mean()
    assert top1.loc[top1["word"] == "economy", "mean_cosine"].item() == pytest.approx(mean_cos)
    assert top1.attrs == {"word": "immigration", "k": 1, "n_draws": 4}


@pytest.mark.parametrize("k", [1, 3, 7, 29])
def test_neighbour_probabilities_sum_to_k(k):
    rng = np.random.default_rng(k)
    vocab = [f"w{i}" for i in range(30)]
    draws = rng.normal(size=(37, 30, 4))
    table = posterior_neighbours(draws, vocab, "w5", k=k)
    # Each draw contributes exactly k neighbours: the tallies sum to k * draws.
    assert np.rint(table["probability"] * 37).sum() == k * 37
    assert table["probability"].sum() == pytest.approx(k, abs=1e-12)
    assert "w5" not in set(table["word"])
    assert table["probability"].between(0, 1).all()
    assert table["probability"].is_monotonic_decreasing


def test_neighbours_brute_force_and_chunking(monkeypatch):
    from bayeswe.evaluation import posterior as module

    rng = np.random.default_rng(11)
    vocab = [f"w{i}" for i in range(25)]
    draws = rng.normal(size=(9, 25, 3))
    unit = draws / np.linalg.norm(draws, axis=-1, keepdims=True)
    cos = np.einsum("svd,sd->sv", unit, unit[:, 0])
    cos[:, 0] = -np.inf
    tally = np.zeros(25)
    for row in cos:
        tally[np.argsort(-row)[:4]] += 1
    expected = {vocab[i]: tally[i] / 9 for i in np.flatnonzero(tally)}
    full = posterior_neighbours(draws, vocab, "w0", k=4)
    monkeypatch.setattr(module, "_CHUNK_FLOATS", 100)  # one draw per chunk
    chunked = posterior_neighbours(draws, vocab, "w0", k=4)
    for table in (full, chunked):
        assert dict(zip(table["word"], table["probability"], strict=True)) == pytest.approx(
            expected
        )
    np.testing.assert_allclose(full["mean_cosine"], chunked["mean_cosine"], atol=1e-12)


def test_inference_data_with_concat_vectors():
    rho = DRAWS.reshape(2, 2, 5, 2)
    alpha = np.flip(DRAWS, axis=1).reshape(2, 2, 5, 2)
    idata = az.from_dict(
        posterior={"rho": rho, "alpha": alpha},
        dims={"rho": ["word", "dim"], "alpha": ["word", "dim"]},
        coords={"word": VOCAB},
    )
    post = posterior_cosine(idata, None, "immigration", "economy", vectors="concat")
    joined = np.concatenate([DRAWS, np.flip(DRAWS, axis=1)], axis=-1)
    direct = posterior_cosine(joined, VOCAB, "immigration", "economy")
    assert post.draws.shape == (2, 2)
    np.testing.assert_allclose(post.draws.values, direct.draws.values.reshape(2, 2), atol=1e-12)
    table = posterior_neighbours(idata, None, "immigration", k=2, vectors="alpha")
    assert table["probability"].sum() == pytest.approx(2.0)


def test_vocabulary_object_with_words_attribute():
    class CorpusVocabulary:  # the shape of bayeswe.corpus.Vocabulary
        words = tuple(VOCAB)

    a = posterior_cosine(DRAWS, CorpusVocabulary(), "jobs", "economy")
    b = posterior_cosine(DRAWS, VOCAB, "jobs", "economy")
    assert a.mean == b.mean


def test_bad_inputs():
    with pytest.raises(OutOfVocabularyError, match="'immigrant' is not in.*'immigration'"):
        posterior_cosine(DRAWS, VOCAB, "immigrant", "economy")
    with pytest.raises(OutOfVocabularyError):
        posterior_prob_closer(DRAWS, VOCAB, "immigration", "economy", "defence")
    with pytest.raises(OutOfVocabularyError):
        posterior_neighbours(DRAWS, VOCAB, "asylum")
    with pytest.raises(EvaluationError, match="k must be < V = 5"):
        posterior_neighbours(DRAWS, VOCAB, "jobs", k=5)
    with pytest.raises(EvaluationError, match="k must be >= 1"):
        posterior_neighbours(DRAWS, VOCAB, "jobs", k=0)
    with pytest.raises(EvaluationError, match="k must be an integer"):
        posterior_neighbours(DRAWS, VOCAB, "jobs", k=2.0)
    for prob in (0, 1, 2.5):
        with pytest.raises(EvaluationError, match="prob must be"):
            posterior_cosine(DRAWS, VOCAB, "jobs", "economy", prob=prob)
    with pytest.raises(EvaluationError, match="pair must be two words"):
        posterior_cosine_table(DRAWS, VOCAB, [("jobs", "economy", "border")])
    with pytest.raises(EvaluationError, match="pairs is empty"):
        posterior_cosine_table(DRAWS, VOCAB, [])
    nan = DRAWS.copy()
    nan[2, 4, 1] = np.nan
    with pytest.raises(EvaluationError, match="word 'jobs' in draw 2 is not finite"):
        posterior_neighbours(nan, VOCAB, "economy", k=2)
    with pytest.raises(EvaluationError, match="vocabulary has 4 words but the embedding has 5"):
        posterior_cosine(DRAWS, VOCAB[:4], "jobs", "economy")
    with pytest.raises(EvaluationError, match="numeric array"):
        posterior_cosine(np.full((2, 5, 2), "x"), VOCAB, "jobs", "economy")
    with pytest.raises(EvaluationError, match="vocabulary entries must be strings"):
        posterior_cosine(DRAWS, [0, 1, 2, 3, 4], "jobs", "economy")
