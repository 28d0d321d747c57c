"""Analogy accuracy: a constructed embedding with known answers, brute force, gensim."""

from __future__ import annotations

import numpy as np
import pytest
from evaluation_helpers import needs_gensim

from bayeswe.evaluation import (
    EvaluationError,
    UnknownBenchmarkError,
    analogy_accuracy,
    posterior_analogy_accuracy,
    read_analogy_file,
)

# Words are sums of orthonormal features, so 3CosAdd answers are known exactly:
# u_woman - u_man + u_king = (royal + female) / sqrt(2) = u_queen.
FEATURES = ["royal", "person", "male", "female", "young", "thing"]
WORDS = {
    "king": ["royal", "male"],
    "queen": ["royal", "female"],
    "man": ["person", "male"],
    "woman": ["person", "female"],
    "prince": ["royal", "male", "young"],
    "princess": ["royal", "female", "young"],
    "boy": ["person", "male", "young"],
    "girl": ["person", "female", "young"],
    "throne": ["royal", "thing"],
}
VOCAB = list(WORDS)
EMBEDDING = np.array([[float(f in WORDS[w]) for f in FEATURES] for w in VOCAB])

QUESTIONS = """\
: family
man woman king queen
king queen man woman
Boy Girl Prince Princess
: tricky
man woman king girl
man man king king
man woman king unicorn
"""


@pytest.fixture
def toy_questions(tmp_path):
    path = tmp_path / "toy-questions.txt"
    path.write_text(QUESTIONS, encoding="utf-8")
    return read_analogy_file(path)


def test_known_answers_per_section_and_total(toy_questions):
    result = analogy_accuracy(EMBEDDING, VOCAB, toy_questions, chunk_size=2)
    assert result.questions["predicted"][:5].tolist() == [
        "queen",
        "woman",
        "princess",
        "queen",  # expected girl: wrong
        "prince",  # king is a question word, so excluded although u_king is the target
    ]
    assert result.questions["predicted"].isna().tolist() == [False] * 5 + [True]  # unicorn
    assert result.questions["correct"].tolist() == [True, True, True, False, False, False]
    assert (result.n_questions, result.n_covered, result.n_correct) == (6, 5, 3)
    assert result.accuracy == pytest.approx(0.6)
    table = result.sections
    assert table.index.tolist() == ["family", "tricky"]
    assert table.loc["family"].tolist() == [3, 3, 3, 1.0]
    assert table.loc["tricky"].tolist() == [3, 2, 0, 0.0]
    # Capitalized words match only case-insensitively.
    exact = analogy_accuracy(EMBEDDING, VOCAB, toy_questions, case_sensitive=True)
    assert (exact.n_covered, exact.n_correct) == (4, 2)


def test_case_insensitive_duplicates_count_as_one_word(toy_questions):
    # "Queen" (a later row) is the exact 3CosAdd target; "queen" is slightly off. Both
    # lower-case to "queen", so case-insensitively the answer "Queen" is right.
    vocab = [*VOCAB, "Queen"]
    emb = np.vstack([EMBEDDING, EMBEDDING[VOCAB.index("queen")]])
    emb[VOCAB.index("queen"), FEATURES.index("young")] = 0.3
    loose = analogy_accuracy(emb, vocab, toy_questions)
    assert loose.questions["predicted"][0] == "Queen"
    assert loose.questions["correct"][0]
    strict = analogy_accuracy(emb, vocab, toy_questions, case_sensitive=True)
    assert strict.questions["predicted"][0] == "Queen"
    assert not strict.questions["correct"][0]


def _brute_force(emb, vocab, questions):
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    index = {w: i for i, w in enumerate(vocab)}
    out = []
    for a, b, c, _ in questions:
        ia, ib, ic = index[a], index[b], index[c]
        best, best_score = -1, -np.inf
        for x in range(len(vocab)):
            if x in (ia, ib, ic):
                continue
            score = unit[x] @ unit[ib] - unit[x] @ unit[ia] + unit[x] @ unit[ic]
            if score > best_score:
                best, best_score = x, score
        out.append(vocab[best])
    return out


def test_chunked_vectorized_scoring_equals_brute_force(tmp_path):
    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(50)]
    emb = rng.normal(size=(50, 8))
    quads = [rng.choice(50, 4, replace=False) for _ in range(120)]
    text = ": one\n" + "".join(" ".join(vocab[i] for i in q) + "\n" for q in quads[:70])
    text += ": two\n" + "".join(" ".join(vocab[i] for i in q) + "\n" for q in quads[70:])
    path = tmp_path / "random.txt"
    path.write_text(text, encoding="utf-8")
    bench = read_analogy_file(path)
    expected = _brute_force(emb, vocab, bench.questions)
    for chunk in (None, 1, 7, 1000):
        for dtype in ("float32", "float64"):
            result = analogy_accuracy(emb, vocab, path, chunk_size=chunk, dtype=dtype)
            assert result.questions["predicted"].tolist() == expected
    correct = [p == q[3] for p, q in zip(expected, bench.questions, strict=True)]
    assert result.n_correct == sum(correct)
    assert result.sections.loc["one", "n_correct"] == sum(correct[:70])


def test_posterior_accuracy_of_mixed_draws(toy_questions):
    scrambled = EMBEDDING[np.random.default_rng(0).permutation(len(VOCAB))]
    wrong = analogy_accuracy(scrambled, VOCAB, toy_questions).accuracy
    draws = np.stack([EMBEDDING] * 3 + [scrambled])
    post = posterior_analogy_accuracy(draws, VOCAB, toy_questions, prob=0.5)
    np.testing.assert_allclose(post.draws.values.ravel(), [0.6, 0.6, 0.6, wrong])
    assert post.summary["mean"] == pytest.approx((3 * 0.6 + wrong) / 4)
    assert post.summary["n_covered"] == 5 and post.summary["n_draws"] == 4
    assert post.sections.loc["family", "upper"] == 1.0
    same = posterior_analogy_accuracy(draws[:3], VOCAB, toy_questions)
    assert same.summary["sd"] == 0.0 and same.summary["lower"] == same.summary["upper"] == 0.6


@needs_gensim
def test_agrees_with_gensim_on_real_vectors():
    """gensim's evaluate_word_analogies / evaluate_word_pairs on its lee_fasttext.vec."""
    gensim_models = pytest.importorskip("gensim.models")
    from gensim.test.utils import datapath

    kv = gensim_models.KeyedVectors.load_word2vec_format(datapath("lee_fasttext.vec"))
    _, sections = kv.evaluate_word_analogies(datapath("questions-words.txt"))
    ours = analogy_accuracy(kv.vectors, kv.index_to_key, "google")
    for section in sections[:-1]:
        row = ours.sections.loc[section["section"]]
        assert row["n_correct"] == len(section["correct"])
        assert row["n_covered"] == len(section["correct"]) + len(section["incorrect"])
    assert ours.n_questions == 19544 and ours.n_covered == 98 and ours.n_correct == 3
    pearson, spearman, oov = kv.evaluate_word_pairs(datapath("wordsim353.tsv"))
    from bayeswe.evaluation import word_similarity

    sim = word_similarity(kv.vectors, kv.index_to_key, "WS-353")
    assert sim.spearman == pytest.approx(spearman.statistic, abs=1e-9)
    assert 100 * (1 - sim.coverage) == pytest.approx(oov)


def test_bad_inputs(toy_questions, tmp_path):
    with pytest.raises(UnknownBenchmarkError, match="unknown benchmark 'googel'"):
        analogy_accuracy(EMBEDDING, VOCAB, "googel")
    with pytest.raises(UnknownBenchmarkError, match="word-similarity benchmark"):
        analogy_accuracy(EMBEDDING, VOCAB, "MEN")
    with pytest.raises(EvaluationError, match="chunk_size must be >= 1"):
        analogy_accuracy(EMBEDDING, VOCAB, toy_questions, chunk_size=0)
    with pytest.raises(EvaluationError, match="dtype must be one of"):
        analogy_accuracy(EMBEDDING, VOCAB, toy_questions, dtype="float16")
    path = tmp_path / "oov.txt"
    path.write_text(": s\na b c d\n", encoding="utf-8")
    with pytest.raises(EvaluationError, match="none of the 1 questions"):
        analogy_accuracy(EMBEDDING, VOCAB, path)
    bad = EMBEDDING.copy()
    bad[VOCAB.index("throne"), 0] = np.inf
    with pytest.raises(EvaluationError, match="word 'throne' in draw 0 is not finite"):
        analogy_accuracy(bad, VOCAB, toy_questions)
    with pytest.raises(EvaluationError, match="prob must be"):
        posterior_analogy_accuracy(EMBEDDING[None], VOCAB, toy_questions, prob=1.0)
