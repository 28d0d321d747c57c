"""Where Numba caches bayeswe's compiled kernels: by the kernels' source, outside the tree.

Numba's default cache (``cache=True``) sits in ``__pycache__`` beside each source file
and is checked against that one file. Two things follow, both fixed here:

* a fresh checkout or a new virtual environment compiles every kernel again (about
  two CPU-minutes for all samplers, most of it Gaussian LDA's alias-MH sweeps), even
  when the kernels' source has not changed;
* a cached kernel that inlines or calls a kernel of another module (the Gaussian-LDA
  sweeps call :mod:`bayeswe.kernels.glda.common`) is not recompiled after only that
  other module was edited.

:class:`KernelSourceLocator` keys the cache by the content of every module of
:mod:`bayeswe.kernels` together (and, for a jitted module elsewhere in bayeswe such as
the SBC's deliberately wrong samplers, which import those kernels, by its own content
as well): any edit of any kernel module moves every kernel to a fresh directory, and a
checkout of the same source finds the kernels compiled already. The directory is
``<cache>/numba/<digest>/``, where ``<cache>`` is :func:`bayeswe.paths.cache_dir`
(``$BAYESWE_CACHE_DIR``, else ``$XDG_CACHE_HOME/bayeswe`` or ``~/.cache/bayeswe``), the
directory that holds the compiled Stan models too. Numba still checks its own version,
the CPU and each function's signature in its index; deleting the directory at any time
only costs a recompilation.

Numba's own settings win: with ``NUMBA_CACHE_DIR`` or ``NUMBA_CACHE_LOCATOR_CLASSES``
set, or where the cache directory cannot be written, Numba's locators decide as usual.
Functions outside the bayeswe package are never affected.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import time
from pathlib import Path
from typing import Any

from numba.core import caching, config

from bayeswe.paths import cache_dir

__all__ = ["KernelSourceLocator", "install", "kernel_cache_dir", "source_digest"]

_PACKAGE = Path(__file__).resolve().parents[1]  # .../bayeswe
_KERNELS = _PACKAGE / "kernels"

#: Digest directories of other sources untouched this long are removed when a new one
#: is made, so that a developer's edits do not pile up compiled kernels without end.
STALE_AFTER_S = 30 * 24 * 3600


def source_digest(package: Path) -> str:
    """SHA-256 (20 hex digits) of every ``.py`` file under ``package``, names and contents."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:20]


@functools.cache
def _kernels_digest() -> str:
    return source_digest(_KERNELS)


def kernel_cache_dir() -> Path:
    """The directory of this source's compiled kernels (it may not exist yet)."""
    return cache_dir() / "numba" / _kernels_digest()


def _prune_stale(keep: Path) -> None:
    """Remove other digests' directories not written to for :data:`STALE_AFTER_S`."""
    now = time.time()
    try:
        siblings = list(keep.parent.iterdir())
    except OSError:
        return
    for other in siblings:
        try:
            if other != keep and other.is_dir() and now - other.stat().st_mtime > STALE_AFTER_S:
                shutil.rmtree(other, ignore_errors=True)
        except OSError:
            continue


@functools.cache
def _prepared_root() -> Path:
    """:func:`kernel_cache_dir`; the first process of a new source prunes stale digests."""
    path = kernel_cache_dir()
    if not path.exists():
        _prune_stale(path)
    return path


@functools.cache
def _file_digest(path: str, mtime: float, size: int) -> str:
    # mtime and size are in the key so that a file edited while a process runs is read
    # again; the stamp itself is the content, which a fresh checkout does not change.
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class KernelSourceLocator(caching._CacheLocator):
    """Numba cache locator for jitted functions in bayeswe's source files.

    The stamp Numba compares is the SHA-256 of the function's own file; the directory
    is keyed by the digest of the whole kernels package, so a change to any kernel
    module invalidates every kernel.
    """

    def __init__(self, py_func: Any, py_file: str, root: Path) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        relative = Path(py_file).resolve().parent.relative_to(_PACKAGE)
        self._cache_path = str(root / (".".join(relative.parts) or "bayeswe"))

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        stat = os.stat(self._py_file)
        return _file_digest(self._py_file, stat.st_mtime, stat.st_size)

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> KernelSourceLocator | None:
        if config.CACHE_DIR or os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):
            return None
        try:
            Path(py_file).resolve().relative_to(_PACKAGE)
        except (OSError, ValueError):
            return None  # not bayeswe's: Numba's own locators
        self = cls(py_func, py_file, _prepared_root())
        try:
            self.ensure_cache_path()  # made and checked writable, as Numba's locators do
        except OSError:
            return None
        return self


def install() -> None:
    """Put :class:`KernelSourceLocator` first among Numba's locators (idempotent)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # private name in older Numba
    locators = impl._locator_classes
    if KernelSourceLocator not in locators:
        locators.insert(0, KernelSourceLocator)
