"""Identification (section 2): the Prop. 1 transform and the choice of fixed words."""

from __future__ import annotations

import numpy as np
import pytest

from bayeswe.sgns import (
    Anchors,
    IdentificationError,
    SGNSData,
    check_anchors,
    check_anchors_in_data,
    choose_anchor_words,
    cooccurrence_probability,
    find_anchors,
    fit_sgns,
    identify_transform,
    log_likelihood,
    simulate_sgns,
    word_counts,
)


@pytest.fixture
def embedding() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return rng.normal(size=(12, 3)), rng.normal(size=(12, 3))


def test_prop1_preserves_products_and_fixes_rows(embedding) -> None:
    rho, alpha = embedding
    index = np.array([11, 3, 5])
    M = np.array([[1.0, 0.2, 0.0], [0.0, 1.0, -0.5], [0.3, 0.0, 2.0]])
    rho2, alpha2 = identify_transform(rho, alpha, index, M)
    np.testing.assert_allclose(alpha2 @ rho2.T, alpha @ rho.T, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(alpha2[index], M)
    # eq. (8) written out: A = alpha_I^{-1} M, rho A^{-T}, alpha A
    A = np.linalg.inv(alpha[index]) @ M
    np.testing.assert_allclose(alpha2, alpha @ A, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(rho2, rho @ np.linalg.inv(A).T, rtol=1e-10, atol=1e-12)
    # Applying it twice changes nothing (the slice alpha_I = M is fixed by it).
    rho3, alpha3 = identify_transform(rho2, alpha2, index, M)
    np.testing.assert_allclose(rho3, rho2, rtol=1e-10, atol=1e-12)


def test_prop1_keeps_the_likelihood_of_data() -> None:
    sim = simulate_sgns(15, 2, 3000, seed=3)
    index, M = np.array([0, 1]), np.eye(2)
    rho2, alpha2 = identify_transform(sim.rho, sim.alpha, index, M)
    before = log_likelihood(sim.rho, sim.alpha, sim.data)
    assert log_likelihood(rho2, alpha2, sim.data) == pytest.approx(before, rel=1e-12)


def test_prop1_removes_any_gl_transform(embedding) -> None:
    rho, alpha = embedding
    rng = np.random.default_rng(2)
    A = rng.normal(size=(3, 3))
    index, M = np.array([0, 1, 2]), np.diag([1.0, 2.0, 3.0])
    r1, a1 = identify_transform(rho, alpha, index, M)
    r2, a2 = identify_transform(rho @ np.linalg.inv(A).T, alpha @ A, index, M)
    np.testing.assert_allclose(r2, r1, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(a2, a1, rtol=1e-8, atol=1e-10)


def test_prop1_is_batched_over_draws(embedding) -> None:
    rho, alpha = embedding
    rng = np.random.default_rng(3)
    rhos = rho + 0.1 * rng.normal(size=(2, 4, 12, 3))
    alphas = alpha + 0.1 * rng.normal(size=(2, 4, 12, 3))
    index, M = np.array([4, 5, 6]), np.eye(3)
    r, a = identify_transform(rhos, alphas, index, M)
    assert r.shape == rhos.shape
    for c in range(2):
        for d in range(4):
            rr, aa = identify_transform(rhos[c, d], alphas[c, d], index, M)
            np.testing.assert_allclose(r[c, d], rr, rtol=1e-12)
            np.testing.assert_allclose(a[c, d], aa, rtol=1e-12)


def test_singular_blocks_raise(embedding) -> None:
    rho, alpha = embedding
    index = np.array([0, 1, 2])
    with pytest.raises(IdentificationError, match="fixed_alpha is singular"):
        identify_transform(rho, alpha, index, np.ones((3, 3)))
    # Ill-conditioned but invertible: the message reports the condition number.
    with pytest.raises(IdentificationError, match=r"condition number 1e\+12"):
        check_anchors(index, np.diag([1.0, 1.0, 1e-12]), V=12)
    bad = alpha.copy()
    bad[2] = bad[0] + bad[1]
    with pytest.raises(IdentificationError, match=r"alpha\[fixed_index\] is singular"):
        identify_transform(rho, bad, index, np.eye(3))


@pytest.mark.parametrize(
    ("index", "matrix", "match"),
    [
        ([0, 0, 1], np.eye(3), "twice"),
        ([0, 1], np.eye(3), "need K=3"),
        ([0, 1, 12], np.eye(3), r"\[0, 12\)"),
        ([0.0, 1.0, 2.0], np.eye(3), "integers"),
        ([0, 1, 2], np.eye(2), "3 x 3"),
        ([0, 1, 2], np.full((3, 3), np.nan), "non-finite"),
    ],
)
def test_check_anchors_rejects(index, matrix, match) -> None:
    with pytest.raises(IdentificationError, match=match) as info:
        check_anchors(index, matrix, V=12, K=3)
    assert isinstance(info.value, ValueError)


def test_choose_anchor_words_rules(embedding) -> None:
    _, alpha = embedding
    np.testing.assert_array_equal(choose_anchor_words(alpha, 3, "last"), [9, 10, 11])
    np.testing.assert_array_equal(choose_anchor_words(alpha, 3, "first"), [0, 1, 2])
    qr = choose_anchor_words(alpha, 3, "qr")
    assert len(set(qr.tolist())) == 3
    # Column-pivoted QR of alpha.T takes the longest row first.
    assert int(np.argmax(np.linalg.norm(alpha, axis=1))) in qr.tolist()
    # A near-duplicate of a chosen row is never chosen as well.
    dup = alpha.copy()
    dup[5] = dup[qr[0]] * (1 + 1e-9)
    chosen = choose_anchor_words(dup, 3, "qr")
    assert not {5, int(qr[0])} <= set(chosen.tolist())
    with pytest.raises(IdentificationError, match="anchor rule"):
        choose_anchor_words(alpha, 3, "volume")


def test_frequent_and_random_anchor_rules(embedding) -> None:
    _, alpha = embedding
    counts = np.array([5, 9, 1, 9, 0, 3, 7, 2, 2, 8, 1, 4])
    # the three largest counts (ties broken by the lower index), sorted
    np.testing.assert_array_equal(
        choose_anchor_words(alpha, 3, "frequent", counts=counts), [1, 3, 9]
    )
    with pytest.raises(IdentificationError, match="needs the word counts"):
        choose_anchor_words(alpha, 3, "frequent")
    a = choose_anchor_words(alpha, 3, "random", seed=4)
    np.testing.assert_array_equal(a, choose_anchor_words(alpha, 3, "random", seed=4))
    assert len(set(a.tolist())) == 3 and a.min() >= 0 and a.max() < 12
    draws = {tuple(choose_anchor_words(alpha, 3, "random", seed=s)) for s in range(20)}
    assert len(draws) > 10  # the seed matters


def test_word_counts_add_target_and_context_observations() -> None:
    data = SGNSData(4, [0, 0, 2], [1, 2, 2], [3, 4, 5], [1, 0, 5])
    np.testing.assert_array_equal(word_counts(data), [7, 3, 14, 0])


def test_prop1_leaves_every_cooccurrence_probability_unchanged() -> None:
    sim = simulate_sgns(30, 4, 1000, seed=11)
    rng = np.random.default_rng(12)
    index = np.array([3, 17, 29, 8])
    M = rng.normal(size=(4, 4))
    rho2, alpha2 = identify_transform(sim.rho, sim.alpha, index, M)
    before = cooccurrence_probability(sim.rho, sim.alpha)
    after = cooccurrence_probability(rho2, alpha2)
    # Probabilities lie in (0, 1); the solves lose at most cond(A) ulps. Measured error
    # about 1e-16, so 1e-13 is "unchanged to floating point" with room to spare.
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-13)
    np.testing.assert_array_equal(alpha2[index], M)  # exactly on the slice


def test_k_not_below_v_is_an_error(embedding) -> None:
    _, alpha = embedding
    with pytest.raises(IdentificationError, match="need K < V"):
        check_anchors(np.arange(3), np.eye(3), V=3)
    with pytest.raises(IdentificationError, match="need K < V"):
        choose_anchor_words(alpha[:3], 3, "qr")
    data = SGNSData(2, [0, 1], [1, 0], [3, 3], [1, 2])
    with pytest.raises(IdentificationError, match="need K < V"):
        find_anchors(data, 2)


def test_fixed_word_absent_from_the_data_is_an_error() -> None:
    # "d" never occurs as a context word, "e" not at all
    data = SGNSData(
        ("a", "b", "c", "d", "e"), [0, 1, 3, 2], [1, 0, 2, 0], [4, 4, 4, 4], [1, 2, 3, 0]
    )
    with pytest.raises(IdentificationError, match=r"'d' absent from the data"):
        check_anchors_in_data(data, [0, 3])
    with pytest.raises(IdentificationError, match=r"'e' absent from the data"):
        fit_sgns(data, 2, method="map", anchors=Anchors(np.array([1, 4]), np.eye(2)))
    with pytest.raises(IdentificationError, match="absent from the vocabulary"):
        find_anchors(data, 2, anchor_words=["a", "zebra"])
    with pytest.raises(IdentificationError, match=r"'d' absent from the data"):
        find_anchors(data, 2, anchor_words=["a", "d"], seed=1)
    check_anchors_in_data(data, [0, 1])  # fine


def test_identify_draws_transforms_every_draw(embedding) -> None:
    from bayeswe.inference_data import to_inference_data
    from bayeswe.sgns import SGNS, identify_draws

    rho, alpha = embedding
    rng = np.random.default_rng(5)
    rhos = rho + 0.1 * rng.normal(size=(2, 3, 12, 3))
    alphas = alpha + 0.1 * rng.normal(size=(2, 3, 12, 3))
    vocab = [f"v{i}" for i in range(12)]
    idata = to_inference_data(SGNS, {"rho": rhos, "alpha": alphas}, data=None)
    idata.posterior = idata.posterior.assign_coords(word=vocab)
    anchors = Anchors(np.array([1, 4, 7]), np.diag([1.0, -1.0, 2.0]), ("v1", "v4", "v7"))
    out = identify_draws(idata, anchors)
    r, a = identify_transform(rhos, alphas, anchors.fixed_index, anchors.fixed_alpha)
    np.testing.assert_array_equal(out.posterior["rho"].values, r)
    np.testing.assert_array_equal(out.posterior["alpha"].values, a)
    assert list(out.posterior["word"].values) == vocab
    assert out.posterior.attrs["fixed_words"] == "v1,v4,v7"
    # the input is left alone
    np.testing.assert_array_equal(idata.posterior["rho"].values, rhos)


def test_find_anchors_frequent_and_random_rules() -> None:
    # Zipf pairs: the first words are the most frequent (eq. (18))
    data = simulate_sgns(30, 3, 5000, seed=2, distribution="zipf").data
    anchors, _ = find_anchors(data, 3, prior_sd=0.6, anchor_words="frequent", seed=4)
    assert anchors.words == ("w00", "w01", "w02")
    a, _ = find_anchors(data, 3, prior_sd=0.6, anchor_words="random", seed=4)
    b, _ = find_anchors(data, 3, prior_sd=0.6, anchor_words="random", seed=4)
    assert a.words == b.words
    np.testing.assert_array_equal(
        a.fixed_index, choose_anchor_words(np.ones((30, 3)), 3, "random", seed=4)
    )
