"""Output files written whole or not at all.

Every file bayeswe writes for a user (NetCDF fits, JSON results, figures, reports,
checkpoints) goes through :func:`atomic_path`: the writer fills a temporary file in
the destination's own directory, which is flushed to disk and renamed over the final
name (``os.replace``, atomic on POSIX) only when the writer returns. A crash, an
interrupt or a full disk therefore leaves either the previous file or none under the
final name, never a truncated one, and the temporary file is removed.

A failure to write (a full disk, a read-only directory) is re-raised as
:class:`~bayeswe.errors.OutputError` naming the final path.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bayeswe.errors import OutputError

__all__ = [
    "atomic_path",
    "check_output_dir",
    "check_output_file",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_netcdf_atomic",
    "write_text_atomic",
    "savefig_atomic",
]

_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG}


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path``; renamed to ``path`` if the block succeeds.

    The temporary file is created empty (so the writer may open it by name, as
    NetCDF and Matplotlib do), synced to disk after the block, and renamed over
    ``path``. On any exception it is removed and ``path`` is left as it was.

    Raises
    ------
    OutputError
        The directory cannot be created or written, or the disk is full (the
        original ``OSError`` is the ``__cause__``).
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}", path=path) from exc
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.errno in _DISK_ERRNOS or isinstance(exc, PermissionError):
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}", path=path) from exc
        raise
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_path`)."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: str | os.PathLike[str], obj: Any, **dump_options: Any) -> Path:
    """Write ``obj`` as indented JSON (``json.dumps`` options pass through) atomically."""
    dump_options.setdefault("indent", 2)
    return write_text_atomic(path, json.dumps(obj, **dump_options) + "\n")


def write_netcdf_atomic(idata: Any, path: str | os.PathLike[str]) -> Path:
    """``idata.to_netcdf`` to ``path`` atomically (an InferenceData or xarray object)."""
    with atomic_path(path) as tmp:
        idata.to_netcdf(str(tmp))
    return Path(path)


def savefig_atomic(fig: Any, path: str | os.PathLike[str], **options: Any) -> Path:
    """``fig.savefig`` to ``path`` atomically; the format comes from ``path``'s suffix."""
    fmt = options.pop("format", None) or Path(path).suffix.lstrip(".") or None
    with atomic_path(path) as tmp:
        fig.savefig(str(tmp), format=fmt, **options)
    return Path(path)


def check_output_dir(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """Check that ``path`` is, or can be made, a writable directory (nothing is created).

    Raises ``ValueError`` naming ``option`` for an existing non-directory, a parent
    that is a file, or a directory that cannot be written.
    """
    path = Path(path)
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"{option} {path}: exists and is not a directory")
        if not os.access(path, os.W_OK | os.X_OK):
            raise ValueError(f"{option} {path}: directory is not writable")
        return path
    _check_creatable(path, option)
    return path


def check_output_file(path: str | os.PathLike[str], option: str = "--output") -> Path:
    """Check that the file ``path`` can be written (its directory exists or can be made)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{option} {path}: is a directory, not a file")
    if path.parent.exists():
        if not path.parent.is_dir():
            raise ValueError(f"{option} {path}: {path.parent} is not a directory")
        if not os.access(path.parent, os.W_OK | os.X_OK):
            raise ValueError(f"{option} {path}: directory {path.parent} is not writable")
    else:
        _check_creatable(path.parent, option, target=path)
    return path


def _check_creatable(path: Path, option: str, target: Path | None = None) -> None:
    """``path`` does not exist: its nearest existing ancestor must be a writable directory."""
    target = path if target is None else target
    ancestor = path.absolute().parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ValueError(f"{option} {target}: {ancestor} is a file, not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {target}: cannot create it, {ancestor} is not writable")
