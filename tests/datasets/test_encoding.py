"""A dataset or corpus file that is not UTF-8 is a CorpusError naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from bayeswe.corpus import CorpusError, read_lines
from bayeswe.datasets import loaders


def test_a_dataset_file_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_bytes("caf\xe9\nna\xefve\n".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"vocab\.txt is not valid utf-8 text"):
        loaders._read_text(path)
    assert loaders._read_text(path, "latin-1").split() == ["café", "naïve"]


def test_a_corpus_file_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "corpus.txt"
    path.write_bytes(b"good line\n\xff\xfe broken\n")
    with pytest.raises(CorpusError, match=r"corpus\.txt is not valid utf-8 text"):
        list(read_lines(path))
