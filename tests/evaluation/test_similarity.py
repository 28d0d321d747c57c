"""Word similarity: exact Spearman values on constructed embeddings, posterior version."""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest
from scipy import stats

from bayeswe.evaluation import (
    EvaluationError,
    SimilarityBenchmark,
    UnknownBenchmarkError,
    posterior_spearman,
    read_similarity_table,
    word_similarity,
)


def _unit_2d(degrees):
    angles = np.deg2rad(np.asarray(degrees, dtype=float))
    return np.column_stack([np.cos(angles), np.sin(angles)])


# "anchor" at 0 degrees and b1..b5 further and further away, so that
# cos(anchor, b1) > ... > cos(anchor, b5); b2 and b4 get lengths != 1 (cosine ignores it).
VOCAB = ["anchor", "b1", "b2", "b3", "b4", "b5", "unused"]
EMBEDDING = _unit_2d([0, 10, 30, 50, 70, 85, 120]) * np.array([1, 1, 3, 1, 0.5, 1, 1])[:, None]
# Scores give the pairs the ranks 4, 5, 3, 1, 2, against cosine ranks 5, 4, 3, 2, 1:
# rank differences 1, -1, 0, -1, 1, so Spearman = 1 - 6 * 4 / (5 * (25 - 1)) = 0.8.
PAIRS = [
    ("Anchor", "b1", 8.0),  # capital A: matched case-insensitively
    ("anchor", "b2", 9.0),
    ("anchor", "b3", 5.0),
    ("anchor", "b4", 1.0),
    ("anchor", "b5", 2.0),
    ("anchor", "missing", 3.0),  # not covered
]


def test_spearman_matches_hand_computation():
    result = word_similarity(EMBEDDING, VOCAB, PAIRS)
    assert result.spearman == pytest.approx(0.8, abs=1e-12)
    assert (result.n_pairs, result.n_covered) == (6, 5)
    assert result.coverage == pytest.approx(5 / 6)
    assert result.pairs["covered"].tolist() == [True] * 5 + [False]
    expected_cos = np.cos(np.deg2rad([10, 30, 50, 70, 85]))
    np.testing.assert_allclose(result.pairs["cosine"][:5], expected_cos, atol=1e-12)
    assert np.isnan(result.pairs["cosine"][5])


def test_case_sensitive_matching_drops_the_capitalized_pair():
    result = word_similarity(EMBEDDING, VOCAB, PAIRS, case_sensitive=True)
    assert result.n_covered == 4
    # Ranks over the 4 remaining pairs: cosine 4, 3, 2, 1 vs scores 4, 3, 1, 2 -> 1 - 6*2/60.
    assert result.spearman == pytest.approx(0.8, abs=1e-12)
    flipped = [("anchor", "b2", 9.0), ("anchor", "b3", 5.0), ("anchor", "b4", 2.0)]
    flipped.append(("anchor", "b5", 1.0))
    assert word_similarity(EMBEDDING, VOCAB, flipped).spearman == pytest.approx(1.0)


def test_benchmark_accepted_as_file_frame_and_object(tmp_path):
    path = tmp_path / "toy.tsv"
    path.write_text("".join(f"{a}\t{b}\t{s}\n" for a, b, s in PAIRS), encoding="utf-8")
    bench = read_similarity_table(PAIRS)
    for form in (str(path), path, bench, bench.to_frame()):
        assert word_similarity(EMBEDDING, VOCAB, form).spearman == pytest.approx(0.8, abs=1e-12)
    assert isinstance(bench, SimilarityBenchmark)


def test_posterior_spearman_of_identical_draws_is_degenerate_at_the_point_value():
    point = word_similarity(EMBEDDING, VOCAB, PAIRS).spearman
    draws = np.repeat(EMBEDDING[None], 6, axis=0)
    post = posterior_spearman(draws, VOCAB, PAIRS, prob=0.8)
    np.testing.assert_allclose(post.draws.values, point, atol=1e-12)
    assert post.draws.dims == ("chain", "draw") and post.draws.shape == (1, 6)
    s = post.summary
    assert s["mean"] == pytest.approx(point, abs=1e-12)
    assert s["sd"] == pytest.approx(0.0, abs=1e-12)
    assert s["lower"] == pytest.approx(point, abs=1e-12)
    assert s["upper"] == pytest.approx(point, abs=1e-12)
    assert (s["prob"], s["n_draws"], s["n_pairs"], s["n_covered"]) == (0.8, 6, 6, 5)
    np.testing.assert_allclose(post.pairs["cos_mean"], post.pairs["cos_lower"], atol=1e-12)


def _random_problem(seed, n_draws=25, n_words=40, n_dim=5, n_pairs=60):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(n_words)]
    draws = rng.normal(size=(n_draws, n_words, n_dim))
    # Distinct pairs of distinct words: no cosines equal in exact arithmetic.
    upper = np.column_stack(np.triu_indices(n_words, k=1))
    i1, i2 = upper[rng.choice(len(upper), n_pairs, replace=False)].T
    # Integer scores: many ties, to check scipy's average ranks are reproduced.
    pairs = [(vocab[a], vocab[b], float(rng.integers(0, 5))) for a, b in zip(i1, i2, strict=True)]
    return draws, vocab, pairs


def _cos(x, i1, i2):
    u = x / np.linalg.norm(x, axis=-1, keepdims=True)
    return (u[..., i1, :] * u[..., i2, :]).sum(-1)


def test_posterior_spearman_equals_scipy_per_draw_and_credible_interval():
    draws, vocab, pairs = _random_problem(1)
    post = posterior_spearman(draws, vocab, pairs, prob=0.5)
    i1 = [vocab.index(a) for a, _, _ in pairs]
    i2 = [vocab.index(b) for _, b, _ in pairs]
    scores = [s for _, _, s in pairs]
    expected = np.array([stats.spearmanr(scores, _cos(d, i1, i2)).statistic for d in draws])
    np.testing.assert_allclose(post.draws.values.ravel(), expected, atol=1e-12)
    assert post.summary["mean"] == pytest.approx(expected.mean(), abs=1e-12)
    assert post.summary["sd"] == pytest.approx(expected.std(ddof=1), abs=1e-12)
    assert post.summary["lower"] == pytest.approx(np.quantile(expected, 0.25), abs=1e-12)
    assert post.summary["upper"] == pytest.approx(np.quantile(expected, 0.75), abs=1e-12)
    # One draw alone is the point estimate (scipy's spearmanr).
    point = word_similarity(draws[3], vocab, pairs)
    assert point.spearman == pytest.approx(expected[3], abs=1e-12)


def test_spearman_invariant_under_rotations_of_each_draw():
    # The SGNS posterior is invariant under rho -> rho Q (Q orthogonal); cosines are too.
    # Self pairs (cosine 1) and a repeated pair must tie in every draw, rotated or not.
    draws, vocab, pairs = _random_problem(2)
    pairs += [("w3", "w3", 10.0), ("w7", "w7", 9.0), ("w4", "w5", 1.0), ("w4", "w5", 2.0)]
    rng = np.random.default_rng(3)
    q = np.linalg.qr(rng.normal(size=(len(draws), 5, 5)))[0]
    rotated = draws @ q
    a = posterior_spearman(draws, vocab, pairs).draws.values
    b = posterior_spearman(rotated, vocab, pairs).draws.values
    np.testing.assert_allclose(a, b, atol=1e-12)


def _idata(rho, alpha, vocab, chains):
    n = rho.shape[0] // chains
    shape = (chains, n) + rho.shape[1:]
    return az.from_dict(
        posterior={"rho": rho.reshape(shape), "alpha": alpha.reshape(shape)},
        dims={"rho": ["word", "dim"], "alpha": ["word", "dim"]},
        coords={"word": vocab},
    )


def test_inference_data_and_vector_choices_match_arrays():
    rho, vocab, pairs = _random_problem(4, n_draws=24)
    alpha = np.random.default_rng(5).normal(size=rho.shape)
    idata = _idata(rho, alpha, vocab, chains=3)
    expected = {
        "rho": rho,
        "alpha": alpha,
        "concat": np.concatenate([rho, alpha], axis=-1),
        "sum": rho + alpha,
    }
    for vectors, array in expected.items():
        post = posterior_spearman(idata, None, pairs, vectors=vectors)
        assert post.draws.shape == (3, 8)
        direct = posterior_spearman(array, vocab, pairs).draws.values.ravel()
        np.testing.assert_allclose(post.draws.values.ravel(), direct, atol=1e-12)
    one = _idata(rho[:1], alpha[:1], vocab, chains=1)
    assert word_similarity(one, None, pairs, vectors="sum").spearman == pytest.approx(
        word_similarity(rho[0] + alpha[0], vocab, pairs).spearman, abs=1e-12
    )


def test_spearman_on_a_fitted_sgns_posterior():
    """End to end: ``bayeswe.fit`` output, scored against the simulation's true cosines."""
    from bayeswe.sgns import fit_sgns, simulate_sgns

    sim = simulate_sgns(12, 2, 20000, seed=1)
    vocab = list(sim.data.vocabulary)
    i1, i2 = np.triu_indices(12, k=1)
    truth = [(vocab[a], vocab[b], c) for a, b, c in zip(i1, i2, _cos(sim.rho, i1, i2), strict=True)]
    mode = fit_sgns(sim.data, 2, method="map", identified=False, seed=1)
    point = word_similarity(mode, None, truth)
    assert point.n_covered == 66
    advi = fit_sgns(sim.data, 2, method="advi", identified=False, seed=1, draws=200)
    post = posterior_spearman(advi, None, truth)
    assert post.summary["n_draws"] == 200
    assert post.summary["lower"] < post.summary["mean"] < post.summary["upper"]
    # 20,000 observations of 12 words in 2 dimensions pin the geometry down.
    assert point.spearman > 0.9
    assert post.summary["mean"] > 0.8


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(UnknownBenchmarkError, match="unknown benchmark 'ws-999'"):
        word_similarity(EMBEDDING, VOCAB, "ws-999")
    bad = EMBEDDING.copy()
    bad[2, 0] = np.nan
    with pytest.raises(EvaluationError, match="word 'b2' in draw 0 is not finite"):
        word_similarity(bad, VOCAB, PAIRS)
    with pytest.raises(EvaluationError, match="vocabulary has 6 words but the embedding has 7"):
        word_similarity(EMBEDDING, VOCAB[:-1], PAIRS)
    with pytest.raises(EvaluationError, match="vocabulary has 'b1' twice"):
        word_similarity(EMBEDDING, ["b1", *VOCAB[1:]], PAIRS)
    with pytest.raises(EvaluationError, match=r"\(V, D\) array, got shape \(1, 7, 2\)"):
        word_similarity(EMBEDDING[None], VOCAB, PAIRS)
    with pytest.raises(EvaluationError, match=r"\(n_draws, V, D\) array, got shape \(7, 2\)"):
        posterior_spearman(EMBEDDING, VOCAB, PAIRS)
    with pytest.raises(EvaluationError, match="needs vocabulary"):
        word_similarity(EMBEDDING, None, PAIRS)
    with pytest.raises(EvaluationError, match="only 1 of the 2 pairs"):
        word_similarity(EMBEDDING, VOCAB, [("anchor", "b1", 1.0), ("x", "y", 2.0)])
    with pytest.raises(EvaluationError, match="vectors must be one of"):
        word_similarity(EMBEDDING, VOCAB, PAIRS, vectors="rhoalpha")
    with pytest.raises(EvaluationError, match="applies to InferenceData"):
        word_similarity(EMBEDDING, VOCAB, PAIRS, vectors="alpha")
    draws = np.repeat(EMBEDDING[None], 3, axis=0)
    for prob in (0.0, 1.0, 1.5, -0.1, float("nan")):
        with pytest.raises(EvaluationError, match="prob must be"):
            posterior_spearman(draws, VOCAB, PAIRS, prob=prob)
    with pytest.raises(EvaluationError, match="prob must be a number"):
        posterior_spearman(draws, VOCAB, PAIRS, prob="0.9")
    idata = _idata(draws, draws, VOCAB, chains=1)
    with pytest.raises(EvaluationError, match="holds 3 draws; one embedding needs exactly one"):
        word_similarity(idata, None, PAIRS)
    with pytest.raises(EvaluationError, match="vocabulary has 6 words but the embedding has 7"):
        posterior_spearman(idata, VOCAB[:-1], PAIRS)
    nameless = az.from_dict(
        posterior={"rho": draws[None]}, dims={"rho": ["word", "dim"]}
    )  # integer word coords
    with pytest.raises(EvaluationError, match="coords are not words"):
        posterior_spearman(nameless, None, PAIRS)
    with pytest.raises(EvaluationError, match="lacks"):
        posterior_spearman(nameless, VOCAB, PAIRS, vectors="alpha")
    mismatched = az.from_dict(
        posterior={"rho": draws[None], "alpha": draws[None, :, :, :1]},
        dims={"rho": ["word", "dim"], "alpha": ["word", "dim1"]},
        coords={"word": VOCAB},
    )
    with pytest.raises(EvaluationError, match="rho and alpha have different shapes"):
        posterior_spearman(mismatched, None, PAIRS, vectors="sum")
    with pytest.raises(EvaluationError, match=r"dims \(chain, draw, word, dim\)"):
        posterior_spearman(az.from_dict(posterior={"rho": draws[None]}), VOCAB, PAIRS)
