"""Input files checked before any compile: a Stan program or a JSON data file must be
UTF-8 text, and a Stan program must hold some code.

stanc accepts an empty program (it compiles and samples, then fails with no draws),
and a byte that is not UTF-8 reaches the user as a bare ``UnicodeDecodeError`` with no
file name; both are refused here, naming the file and the problem in one line.
"""

from __future__ import annotations

import re
from pathlib import Path

from bayeswe.errors import StanSourceError

__all__ = ["decode_utf8", "read_stan_source"]

#: Comments of a Stan program (``#`` comments are obsolete but still strip nothing else).
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*|#[^\n]*", re.DOTALL)


def decode_utf8(data: bytes, path: str | Path, what: str) -> str:
    """``data`` (the bytes of the file ``path``) as text, or ``ValueError`` naming both.

    The message gives the first offending byte, its offset and its line, e.g. ``Stan
    program m.stan is not UTF-8 text: byte 0xe9 at offset 41 (line 3)``.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(
            f"{what} {path} is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start} (line {line}); save it as UTF-8"
        ) from None


def read_stan_source(stan_file: str | Path) -> str:
    """The text of a Stan program, refused before stanc runs if it cannot be one.

    Raises
    ------
    FileNotFoundError
        If ``stan_file`` does not exist.
    StanSourceError
        If the file is not UTF-8 text, or holds no code (empty, blank, comments only).
    """
    stan_file = Path(stan_file)
    if not stan_file.is_file():
        raise FileNotFoundError(f"Stan program not found: {stan_file}")
    data = stan_file.read_bytes()
    try:
        text = decode_utf8(data, stan_file, "Stan program")
    except ValueError as exc:
        raise StanSourceError(str(exc)) from None
    if not _COMMENTS.sub("", text).strip():
        size = f"{len(data)} bytes" if data else "an empty file"
        raise StanSourceError(
            f"Stan program {stan_file} holds no code ({size}): nothing to compile"
        )
    return text
