"""Output files written whole or not at all.

Every file bayeswe writes for a user (NetCDF fits, JSON results, figures, reports,
checkpoints) goes through :func:`atomic_path`: the writer fills a temporary file in
the destination's own directory, which is flushed to disk and renamed over the final
name (``os.replace``, atomic on POSIX) only when the writer returns. A crash, an
interrupt or a full disk therefore leaves either the previous file or none under the
final name, never a truncated one, and the temporary file is removed.

A failure to write (a full disk, a file-size limit, a read-only directory) is
re-raised as :class:`~bayeswe.errors.OutputError` naming the final path.

The file gets the permissions a newly created file gets under the process's umask
(or keeps those of the file it replaces), not the 0600 of the temporary file. A final
name that is a symbolic link is kept: the file it points to is replaced.

NetCDF is serialized in memory first and then written as bytes: HDF5 reports a
failed write only when it closes the file, and after such a failure h5py's clean-up
can crash the process.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bayeswe.errors import OutputError

__all__ = [
    "atomic_path",
    "check_output_dir",
    "check_output_file",
    "netcdf_bytes",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_netcdf_atomic",
    "write_text_atomic",
    "savefig_atomic",
]


def _umask() -> int:
    """The process's umask, read without changing it where the system allows."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _final_mode(path: Path) -> int:
    """The mode of the file being replaced, or what ``open(path, "w")`` would give."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _output_error(path: Path, exc: OSError) -> OutputError:
    return OutputError(f"cannot write {path}: {exc.strerror or exc}", path=path)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path``; renamed to ``path`` if the block succeeds.

    The temporary file is created empty (so the writer may open it by name, as
    Matplotlib does), given the final file's permissions (see the module docstring),
    synced to disk after the block, and renamed over ``path``; if ``path`` is a
    symbolic link, over the file it points to. On any exception it is removed and
    ``path`` is left as it was.

    Raises
    ------
    OutputError
        The directory cannot be created or written, the disk is full, a file-size
        limit is hit, or any other ``OSError`` while writing (the original is the
        ``__cause__``).
    """
    shown = Path(path)
    # write through a user's symlink to its target, so the link stays a link
    path = Path(os.path.realpath(shown)) if shown.is_symlink() else shown
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            os.fchmod(fd, _final_mode(path))
        finally:
            os.close(fd)
    except OSError as exc:
        raise _output_error(shown, exc) from exc
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _output_error(shown, exc) from exc
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


def netcdf_bytes(obj: Any) -> bytes:
    """``obj`` (an InferenceData, DataTree or xarray Dataset) as NetCDF-4 bytes.

    An InferenceData is written as ``InferenceData.to_netcdf`` writes it (its attributes
    on the root group, one group each, numeric variables zlib-compressed), so
    ``arviz.from_netcdf`` reads it back.
    """
    if hasattr(obj, "to_datatree") and hasattr(obj, "groups"):
        tree = obj.to_datatree()
        encoding = {
            node.path: {
                name: {"zlib": True}
                for name, var in node.dataset.variables.items()
                if var.dtype.kind in "biufc"
            }
            for node in tree.subtree
            if node.path != "/"
        }
        data = tree.to_netcdf(None, engine="h5netcdf", encoding=encoding)
    else:
        data = obj.to_netcdf(None, engine="h5netcdf")
    return bytes(data)


def write_netcdf_atomic(idata: Any, path: str | os.PathLike[str]) -> Path:
    """``idata`` as NetCDF (:func:`netcdf_bytes`) to ``path`` atomically.

    The file is built in memory (it needs about its size in memory once more), so
    that a full disk or a file-size limit is an ordinary write error.
    """
    data = netcdf_bytes(idata)
    return write_bytes_atomic(path, data)


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
