"""Checkpoint files of bayeswe's own samplers: whole or not at all, one run at a time.

A checkpoint is an ``.npz`` holding the samplers' state arrays and a JSON ``meta``
record (layout version, the run's fingerprint, the sweep reached). This module gives
the samplers the pieces that make resuming safe:

- :func:`check_checkpoint_path` refuses a path that can never be a checkpoint (a
  directory, a parent that is a file) before any work is done;
- :func:`checkpoint_lock` holds an exclusive lock beside the checkpoint for the whole
  run, so a second run on the same path fails at once instead of interleaving writes;
- :func:`write_npz_atomic` writes the new checkpoint beside the old one and renames it
  into place (:func:`bayeswe.atomic.atomic_path`), so a crash or a full disk leaves the
  last good checkpoint; a full disk raises :class:`~bayeswe.errors.OutputError`;
- :func:`read_checkpoint` turns every way a file can be unreadable (empty, truncated,
  not an ``.npz``, another sampler's, another layout) into one
  :class:`~bayeswe.errors.CheckpointError` naming the file;
- :func:`create_draws_file` / :func:`open_draws_file` keep large draw arrays in a
  memory-mapped ``.npy`` beside the checkpoint. Its blocks are reserved when it is
  created (``posix_fallocate``), so a full disk is an error at creation, never a
  ``SIGBUS`` in the middle of a run; it is created under a temporary name and renamed,
  so a new run never reuses the inode of a file an earlier run's results still map;
  on resume its size and shape are checked, and its content against the per-block
  digests the checkpoint recorded (:class:`DrawsDigests`), every kept row.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bayeswe.atomic import atomic_path
from bayeswe.errors import CheckpointError, OutputError

__all__ = [
    "check_checkpoint_path",
    "checked_arrays",
    "checkpoint_lock",
    "create_draws_file",
    "lock_path",
    "open_draws_file",
    "read_checkpoint",
    "rows_digest",
    "DrawsDigests",
    "write_npz_atomic",
]


def check_checkpoint_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a :class:`~pathlib.Path`, if it can hold a checkpoint file.

    Raises
    ------
    CheckpointError
        ``path`` is a directory, or an ancestor of it is a file.
    """
    path = Path(path)
    if path.is_dir():
        raise CheckpointError(f"checkpoint {path} is a directory, not a file", path=path)
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise CheckpointError(
                    f"checkpoint {path}: {parent} is a file, not a directory", path=path
                )
            break
    return path


def lock_path(path: Path) -> Path:
    """The lock file of the checkpoint at ``path`` (hidden, beside it)."""
    return path.with_name(f".{path.name}.lock")


@contextlib.contextmanager
def checkpoint_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the checkpoint's lock file for the block.

    The lock is released when the block ends or the process dies, so a crashed run
    never leaves a stale lock. The lock file stays (removing it would let a third
    run lock a different inode than the second).

    Raises
    ------
    CheckpointError
        Another run (in this or another process) holds the lock.
    OutputError
        The lock file cannot be created.
    """
    import fcntl

    lock = lock_path(path)
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise OutputError(f"cannot create the lock file {lock}: {exc.strerror}", path=lock) from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CheckpointError(
                f"checkpoint {path} is in use by another run (lock {lock} is held); "
                "wait for it to finish or use another checkpoint path",
                path=path,
            ) from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def write_npz_atomic(path: Path, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """Write ``arrays`` and JSON ``meta`` as an ``.npz`` at ``path``, atomically.

    The file is written next to ``path``, synced, and renamed into place (atomic on
    POSIX), so an interrupted run or a full disk leaves either the previous
    checkpoint or the new one, never a half-written file.

    Raises
    ------
    OutputError
        The disk is full or the directory cannot be written (``path`` is named).
    """
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, meta=np.array(json.dumps(meta)), **arrays)


def read_checkpoint(
    path: Path, *, kind: str, version: int, required: tuple[str, ...] = ()
) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
    """The arrays and the ``meta`` record of the checkpoint at ``path``.

    Parameters
    ----------
    kind
        The sampler that must have written it (``meta["sampler"]``).
    version
        The layout version it must have.
    required
        Array names it must hold.

    Raises
    ------
    CheckpointError
        The file is empty, truncated or not an ``.npz`` checkpoint, was written by
        another sampler or layout version, or lacks an array; the message names it.
    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CheckpointError(f"cannot read checkpoint {path}: {exc.strerror}", path=path) from exc
    if size == 0:
        raise CheckpointError(f"checkpoint {path} is empty (0 bytes)", path=path)
    try:
        loaded = np.load(path, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise CheckpointError(
                f"checkpoint {path} is a single array, not a checkpoint (.npz)", path=path
            )
        with loaded as f:
            if "meta" not in f.files:
                raise CheckpointError(f"checkpoint {path} has no meta record", path=path)
            meta = json.loads(str(f["meta"]))
            arrays = {k: f[k] for k in f.files if k != "meta"}
    except CheckpointError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        raise CheckpointError(
            f"checkpoint {path} is corrupt or not a checkpoint: {type(exc).__name__}: {exc}",
            path=path,
        ) from exc
    if not isinstance(meta, dict):
        raise CheckpointError(f"checkpoint {path} has a malformed meta record", path=path)
    if meta.get("sampler") != kind:
        raise CheckpointError(
            f"checkpoint {path} was written by {meta.get('sampler')!r}, not {kind!r}", path=path
        )
    if meta.get("version") != version:
        raise CheckpointError(
            f"checkpoint {path} has layout version {meta.get('version')!r}; this bayeswe "
            f"reads version {version}",
            path=path,
        )
    missing = [name for name in required if name not in arrays]
    if missing:
        raise CheckpointError(f"checkpoint {path} lacks the arrays {missing}", path=path)
    return arrays, meta


def create_draws_file(path: Path, shape: tuple[int, ...]) -> np.memmap:
    """A new zero-filled float64 ``.npy`` at ``path``, memory-mapped for writing.

    The blocks are reserved up front and the file appears under ``path`` only once
    complete, as a new inode: a read-only map an earlier run handed out keeps its data.

    Raises
    ------
    OutputError
        The disk cannot hold the file (``path`` is named).
    """
    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float64))}
    header.update(fortran_order=False, shape=tuple(int(s) for s in shape))
    nbytes = int(np.prod(shape, dtype=np.int64)) * 8
    try:
        with atomic_path(path) as tmp:
            with open(tmp, "r+b") as f:
                np.lib.format.write_array_header_1_0(f, header)
                offset = f.tell()
                if nbytes:
                    os.posix_fallocate(f.fileno(), 0, offset + nbytes)
    except OutputError as exc:
        raise OutputError(
            f"cannot reserve {nbytes / 2**20:.1f} MiB for the draws file {path}: {exc}", path=path
        ) from exc.__cause__
    return np.memmap(path, dtype=np.float64, mode="r+", offset=offset, shape=tuple(shape))


def open_draws_file(path: Path, shape: tuple[int, ...], *, checkpoint: Path) -> np.memmap:
    """Map the draws file of ``checkpoint`` for writing, after checking it.

    Raises
    ------
    CheckpointError
        The file is missing, is not a float64 ``.npy``, has another shape, or is
        shorter than its header says (truncated).
    """
    try:
        with open(path, "rb") as f:
            major, _ = np.lib.format.read_magic(f)
            fmt = np.lib.format
            reader = {1: fmt.read_array_header_1_0, 2: fmt.read_array_header_2_0}
            file_shape, fortran, dtype = reader[major](f)
            offset = f.tell()
            size = os.fstat(f.fileno()).st_size
    except FileNotFoundError:
        raise CheckpointError(
            f"checkpoint {checkpoint} has lost its draws file {path}", path=checkpoint
        ) from None
    except (OSError, ValueError, KeyError) as exc:
        raise CheckpointError(
            f"draws file {path} of checkpoint {checkpoint} is corrupt: {exc}", path=checkpoint
        ) from exc
    if dtype != np.float64 or fortran or tuple(file_shape) != tuple(shape):
        raise CheckpointError(
            f"draws file {path} holds {dtype} {tuple(file_shape)}; checkpoint {checkpoint} "
            f"needs float64 {tuple(shape)}: it belongs to another run",
            path=checkpoint,
        )
    needed = offset + int(np.prod(shape, dtype=np.int64)) * 8
    if size < needed:
        raise CheckpointError(
            f"draws file {path} of checkpoint {checkpoint} is truncated: {size} bytes of {needed}",
            path=checkpoint,
        )
    return np.memmap(path, dtype=np.float64, mode="r+", offset=offset, shape=tuple(shape))


def rows_digest(*rows: NDArray[Any]) -> str:
    """A BLAKE2b digest of the bytes of ``rows`` (to tie a draws file to its checkpoint)."""
    h = hashlib.blake2b(digest_size=16)
    for r in rows:
        h.update(np.ascontiguousarray(r, dtype=np.float64).tobytes())
    return h.hexdigest()


class DrawsDigests:
    """Digests of the kept rows of a draws array, in blocks of :attr:`BLOCK` rows.

    The rows are indexed along ``axis``; block ``b`` covers rows ``b * BLOCK`` to
    ``(b + 1) * BLOCK`` (fewer in the last). :meth:`update` rehashes only the blocks
    that gained rows since its last call, so a checkpoint costs at most ``BLOCK``
    rows of hashing more than the rows it adds; :meth:`mismatches` rehashes them all,
    so that a resumed run notices a change anywhere in the file, not only its end.
    """

    BLOCK: int = 64

    def __init__(self, record: Mapping[str, Any] | None = None, *, axis: int = 2) -> None:
        self.axis = axis
        self.rows = 0 if record is None else int(record["rows"])
        self.digests: list[str] = [] if record is None else [str(d) for d in record["digests"]]

    def _block(self, draws: NDArray[Any], b: int, rows: int) -> str:
        index = [slice(None)] * draws.ndim
        index[self.axis] = slice(b * self.BLOCK, min((b + 1) * self.BLOCK, rows))
        return rows_digest(draws[tuple(index)])

    def update(self, draws: NDArray[Any], rows: int) -> dict[str, Any]:
        """Digest the first ``rows`` rows; the record to store in the checkpoint."""
        keep = min(self.rows, rows) // self.BLOCK  # blocks complete at the last call
        n_blocks = -(-rows // self.BLOCK)
        self.digests = self.digests[:keep] + [
            self._block(draws, b, rows) for b in range(keep, n_blocks)
        ]
        self.rows = rows
        return {"rows": rows, "block": self.BLOCK, "digests": list(self.digests)}

    def mismatches(self, draws: NDArray[Any]) -> list[tuple[int, int]]:
        """The row ranges ``(start, stop)`` whose content differs from the record."""
        bad = []
        for b, recorded in enumerate(self.digests):
            if self._block(draws, b, self.rows) != recorded:
                bad.append((b * self.BLOCK, min((b + 1) * self.BLOCK, self.rows)))
        return bad


def checked_arrays(
    arrays: Mapping[str, Any], expected: Mapping[str, tuple[tuple[int, ...], Any]]
) -> dict[str, Any]:
    """A checkpoint's state arrays, each checked against its expected shape and dtype."""
    if set(arrays) != set(expected):
        raise ValueError(f"state arrays {sorted(arrays)}; need {sorted(expected)}")
    got = {}
    for name, (shape, dtype) in expected.items():
        a = np.array(arrays[name])
        if a.shape != shape or a.dtype != dtype:
            raise ValueError(f"state array {name} is {a.dtype}{a.shape}; need {shape}")
        got[name] = a
    return got
