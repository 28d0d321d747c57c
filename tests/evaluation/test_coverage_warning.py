"""Evaluation warns when fewer than half of a benchmark is covered by the vocabulary."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayeswe.evaluation import (
    LowCoverageWarning,
    analogy_accuracy,
    read_analogy_file,
    read_similarity_table,
    word_similarity,
)

VOCAB = ["a", "b", "c", "d"]
EMBEDDING = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [-0.6, 0.8]])
COVERED = [("a", "b", 3.0), ("a", "c", 2.0), ("a", "d", 1.0)]


def _pairs(n_missing: int) -> list[tuple[str, str, float]]:
    return COVERED + [("a", f"x{i}", float(i)) for i in range(n_missing)]


@pytest.mark.parametrize(("n_missing", "warns"), [(2, False), (3, False), (4, True), (30, True)])
def test_similarity_warns_below_half_coverage(n_missing: int, warns: bool) -> None:
    bench = read_similarity_table(_pairs(n_missing))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = word_similarity(EMBEDDING, VOCAB, bench)
    low = [w for w in caught if issubclass(w.category, LowCoverageWarning)]
    assert result.n_covered == 3
    assert len(low) == int(warns)
    if warns:
        assert f"only 3 of the {3 + n_missing} pairs" in str(low[0].message)
        assert low[0].filename == __file__  # points at the caller's line


def test_analogy_warns_below_half_coverage(tmp_path) -> None:
    path = tmp_path / "q.txt"
    path.write_text(": s\na b c d\nb a d c\nx a b c\ny a b c\nz a b c\n", encoding="utf-8")
    with pytest.warns(LowCoverageWarning, match="only 2 of the 5 questions"):
        result = analogy_accuracy(EMBEDDING, VOCAB, read_analogy_file(path))
    assert result.n_covered == 2
    path.write_text(": s\na b c d\nb a d c\nx a b c\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error", LowCoverageWarning)
        assert analogy_accuracy(EMBEDDING, VOCAB, read_analogy_file(path)).n_covered == 2
