"""Benchmark loaders: the real files have their documented sizes; bad input is rejected."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from evaluation_helpers import installed, needs_gensim, needs_pwe

from bayeswe.errors import BayesweError
from bayeswe.evaluation import (
    BENCHMARKS,
    BenchmarkFormatError,
    BenchmarkUnavailableError,
    UnknownBenchmarkError,
    benchmark_path,
    list_benchmarks,
    load_analogy,
    load_similarity,
    read_analogy_file,
    read_similarity_table,
)
from bayeswe.evaluation import testsets as bm

# Published sizes (pairs / questions) of each set.
SIZES = {
    "WS-353": 353,
    "SimLex-999": 999,
    "MEN": 3000,
    "SimVerb-3500": 3500,
    "WS-353-REL": 252,
    "WS-353-SIM": 203,
    "RW": 2034,
    "MTurk-287": 287,
    "MTurk-771": 771,
    "RG-65": 65,
    "MC-30": 30,
    "YP-130": 130,
    "Card-660": 660,
}


@needs_gensim
def test_gensim_sets_have_documented_sizes():
    ws = load_similarity("WS-353")
    assert len(ws) == 353
    assert (ws.word1[0], ws.word2[0], ws.score[0]) == ("love", "sex", 6.77)
    assert "gensim" in ws.source
    simlex = load_similarity("simlex999")
    assert len(simlex) == 999
    assert (simlex.word1[0], simlex.word2[0], simlex.score[0]) == ("old", "new", 1.58)


@needs_gensim
def test_google_analogies_have_19544_questions_in_14_sections():
    google = load_analogy("google")
    assert len(google) == 19544
    assert len(google.sections) == 14
    assert google.questions[0] == ("Athens", "Greece", "Baghdad", "Iraq")
    section = np.asarray(google.section)
    # Mikolov et al. (2013): 8,869 semantic and 10,675 syntactic questions.
    assert sum(s.startswith("gram") for s in google.section) == 10675
    assert np.sum(section == "capital-common-countries") == 506
    assert load_analogy("questions-words") == google


@needs_pwe
@pytest.mark.parametrize("name", sorted(SIZES))
def test_similarity_sets_have_documented_sizes(name):
    bench = load_similarity(name)
    assert len(bench) == SIZES[name]
    assert np.isfinite(bench.score).all()
    assert all(bench.word1) and all(bench.word2)


@needs_pwe
def test_men_scores_are_on_0_to_50_scale():
    men = load_similarity("MEN")
    assert men.score.min() >= 0 and men.score.max() == 50.0
    assert (men.word1[0], men.word2[0]) == ("sun", "sunlight")


@pytest.mark.skipif(
    not (installed("gensim") and installed("probabilistic_word_embeddings")),
    reason="needs both optional benchmark packages",
)
def test_ws353_and_simlex_identical_in_both_packages():
    for name, pwe_file in (("WS-353", "WS-353-ALL.tsv"), ("SimLex-999", "SimLex999.tsv")):
        from_gensim = load_similarity(name)
        other = read_similarity_table(
            bm._package_dir("probabilistic_word_embeddings") / "data" / "eval" / pwe_file
        )
        assert from_gensim.word1 == other.word1 and from_gensim.word2 == other.word2
        np.testing.assert_array_equal(from_gensim.score, other.score)


def test_names_are_case_and_punctuation_insensitive():
    assert bm._info("ws-353") is bm._info("WordSim353") is bm._info("WS353")
    assert bm._info("SIMLEX-999") is bm._info("simlex")
    assert bm._info("men-tr-3k").name == "MEN"


def test_unknown_name_lists_known_ones():
    with pytest.raises(UnknownBenchmarkError, match="unknown benchmark 'ws-354'.*SimLex-999"):
        load_similarity("ws-354")
    with pytest.raises(ValueError):
        benchmark_path("nope")
    with pytest.raises(UnknownBenchmarkError, match="analogy benchmark"):
        load_similarity("google")
    with pytest.raises(UnknownBenchmarkError, match="word-similarity benchmark"):
        load_analogy("MEN")


def test_missing_package_names_the_pip_install(monkeypatch):
    monkeypatch.setattr(bm, "_package_dir", lambda package: None)
    with pytest.raises(BenchmarkUnavailableError, match=r"pip install gensim==4\.4\.0"):
        load_analogy("google")
    with pytest.raises(
        BenchmarkUnavailableError,
        match=r"pip install --no-deps probabilistic-word-embeddings==1\.18\.2",
    ) as info:
        load_similarity("MEN")
    assert isinstance(info.value, BayesweError) and isinstance(info.value, ImportError)
    table = list_benchmarks()
    assert not table["available"].any()
    assert len(table) == len(BENCHMARKS) == 14


def test_package_without_its_data_files_is_reported(monkeypatch, tmp_path):
    monkeypatch.setattr(bm, "_package_dir", lambda package: tmp_path / package)
    with pytest.raises(
        BenchmarkUnavailableError, match=r"gensim is installed at .* but has no questions-words"
    ):
        load_analogy("google")


@needs_gensim
def test_list_benchmarks_reports_installed_packages():
    table = list_benchmarks("analogy")
    assert table["name"].tolist() == ["Google"]
    assert table["available"].all()


def test_truncated_known_file_is_rejected(tmp_path, monkeypatch):
    path = tmp_path / "wordsim353.tsv"
    path.write_text("# header\nlove\tsex\t6.77\ntiger\tcat\t7.35\n", encoding="utf-8")
    monkeypatch.setattr(bm, "benchmark_path", lambda name: path)
    with pytest.raises(BenchmarkFormatError, match="expected 353 pairs for WS-353, found 2"):
        load_similarity("WS-353")


def test_user_tsv_with_comments_crlf_and_spaces(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_bytes(
        b"# my pairs\r\ncar\tautomobile\t9.5\r\n\r\nsun moon 3\r\nNew_York\tcity\t7\r\n"
    )
    bench = read_similarity_table(path)
    assert bench.name == "mine.tsv"
    assert bench.word1 == ("car", "sun", "New_York")
    assert bench.word2 == ("automobile", "moon", "city")
    np.testing.assert_array_equal(bench.score, [9.5, 3.0, 7.0])


def test_user_tables_from_frame_and_tuples():
    rows = [("a", "b", 1.0), ("c", "d", "2.5")]
    from_rows = read_similarity_table(rows, name="toy")
    frame = pd.DataFrame(rows, columns=["w1", "w2", "s"])
    from_frame = read_similarity_table(frame)
    assert from_rows.word1 == from_frame.word1 == ("a", "c")
    np.testing.assert_array_equal(from_rows.score, [1.0, 2.5])
    np.testing.assert_array_equal(from_frame.score, from_rows.score)
    assert from_rows.name == "toy"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("a\tb\t1\nc\td\n", r"mine\.tsv:2: expected 'word1<TAB>word2<TAB>score'"),
        ("a\tb\t1\nc\td\tlots\n", r"mine\.tsv:2: score 'lots' is not a number"),
        ("a\tb\tnan\n", r"mine\.tsv:1: score 'nan' is not finite"),
        ("# only a comment\n", "has no pairs"),
    ],
)
def test_corrupt_similarity_file(tmp_path, content, message):
    path = tmp_path / "mine.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BenchmarkFormatError, match=message):
        read_similarity_table(path)


def test_non_utf8_and_missing_files(tmp_path):
    path = tmp_path / "latin1.tsv"
    path.write_bytes("caf\xe9\tcoffee\t5\n".encode("latin-1"))
    with pytest.raises(BenchmarkFormatError, match="not UTF-8"):
        read_similarity_table(path)
    with pytest.raises(BenchmarkFormatError, match="does not exist"):
        read_similarity_table(tmp_path / "absent.tsv")


def test_bad_rows_in_tables():
    with pytest.raises(BenchmarkFormatError, match="row 1: expected"):
        read_similarity_table([("a", "b", 1), ("c", "d")])
    with pytest.raises(BenchmarkFormatError, match="row 0: score None"):
        read_similarity_table([("a", "b", None)])
    with pytest.raises(BenchmarkFormatError, match="non-empty strings"):
        read_similarity_table([("a", 3, 1.0)])
    with pytest.raises(BenchmarkFormatError, match="needs columns"):
        read_similarity_table(pd.DataFrame({"w1": ["a"], "w2": ["b"]}))


def test_analogy_file_format(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text(
        "a b c d\n: first\nman woman king queen\n\n: second\nx y z w\n", encoding="utf-8"
    )
    bench = read_analogy_file(path)
    assert bench.questions == (
        ("a", "b", "c", "d"),
        ("man", "woman", "king", "queen"),
        ("x", "y", "z", "w"),
    )
    assert bench.section == ("", "first", "second")
    assert bench.sections == ["", "first", "second"]
    path.write_text(": s\nman woman king\n", encoding="utf-8")
    with pytest.raises(BenchmarkFormatError, match=r"q\.txt:2: expected four words"):
        read_analogy_file(path)
    path.write_text(": s\n", encoding="utf-8")
    with pytest.raises(BenchmarkFormatError, match="no questions"):
        read_analogy_file(path)
