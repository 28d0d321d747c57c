"""What a Stan program declares: its data and output variables, from ``stanc``.

:func:`bayeswe.fit` fits any Stan file without a Python declaration. What it
needs to know about the program comes from the ``stanc`` of the toolchain in
use (:mod:`bayeswe.stan.toolchain`), before anything is compiled:

* ``stanc --info`` gives every data input and every output variable
  (parameters, transformed parameters, generated quantities) with its base type
  (``int``, ``real``, ``complex`` or a tuple) and its number of array axes;
* the program as ``stanc`` prints it (comments stripped, includes inlined, one
  statement per line) gives each top-level declaration, from which the size
  expressions of every axis are read (``vector<lower=0>[J] sigma`` -> ``("J",)``).

Size expressions that use only integer literals, earlier scalar ``int`` data and
``+ - * / %/% %``, ``min``, ``max``, ``size``, ``rows``, ``cols`` and
``num_elements`` are evaluated against the data (:meth:`StanVariable.shape`), so
that a wrong shape is reported before Stan runs; any other axis is left to Stan.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bayeswe.errors import StanCompileError, ToolchainError
from bayeswe.stan.source import read_stan_source

__all__ = [
    "OUTPUT_BLOCKS",
    "ProgramInfo",
    "StanVariable",
    "evaluate_size",
    "parse_declarations",
    "program_info",
    "stanc_path",
]

#: Blocks whose top-level variables are written to Stan's output, in output order.
OUTPUT_BLOCKS: tuple[str, ...] = ("parameters", "transformed parameters", "generated quantities")

_STANC_TIMEOUT = 120  # seconds; stanc takes milliseconds, this only guards against a hang

# Number of axes each (non-array) type adds, and how its bracketed sizes map to them.
_SCALAR_TYPES = frozenset({"int", "real", "complex"})
_VECTOR_TYPES = frozenset(
    {
        "vector",
        "row_vector",
        "simplex",
        "unit_vector",
        "sum_to_zero_vector",
        "ordered",
        "positive_ordered",
        "complex_vector",
        "complex_row_vector",
    }
)
_MATRIX_TYPES = frozenset(
    {
        "matrix",
        "complex_matrix",
        "column_stochastic_matrix",
        "row_stochastic_matrix",
        "sum_to_zero_matrix",
        "cholesky_factor_cov",  # [M] is square, [M, N] is not
    }
)
_SQUARE_TYPES = frozenset({"cov_matrix", "corr_matrix", "cholesky_factor_corr"})
_TYPES = _SCALAR_TYPES | _VECTOR_TYPES | _MATRIX_TYPES | _SQUARE_TYPES | {"tuple"}
_BLOCKS = (
    "functions",
    "data",
    "transformed data",
    "parameters",
    "transformed parameters",
    "model",
    "generated quantities",
)
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class StanVariable:
    """One data input or output variable of a Stan program.

    Attributes
    ----------
    name
        Name in the program.
    block
        ``"data"`` or one of :data:`OUTPUT_BLOCKS`.
    type
        Base type from ``stanc --info``: ``"int"``, ``"real"``, ``"complex"``
        or ``"tuple"``.
    ndim
        Number of axes (array axes plus vector/matrix axes; a complex number
        counts as a scalar).
    sizes
        The Stan expression giving the size of each axis, e.g. ``("J", "K + 1")``,
        or ``None`` when the declaration could not be read.
    declaration
        The declaration as ``stanc`` prints it, e.g. ``vector<lower=0>[J] sigma``,
        for messages; empty when not found.
    components
        For tuples: the ``stanc --info`` entries of the tuple's components.
    """

    name: str
    block: str
    type: str
    ndim: int
    sizes: tuple[str, ...] | None = None
    declaration: str = ""
    components: tuple[Mapping[str, Any], ...] = ()

    def shape(
        self, ints: Mapping[str, int], arrays: Mapping[str, Any] | None = None
    ) -> tuple[int | None, ...]:
        """Sizes of the axes given the program's scalar ``int`` data.

        Parameters
        ----------
        ints
            Values of the scalar ``int`` data fields (and any other known integers).
        arrays
            Values of array data fields, for ``size(x)``, ``rows(x)`` and the like.

        Returns
        -------
        tuple
            One entry per axis: its size, or ``None`` where the size expression
            cannot be evaluated here (it is then left to Stan).
        """
        if self.sizes is None:
            return (None,) * self.ndim
        return tuple(evaluate_size(expr, ints, arrays) for expr in self.sizes)

    def describe(self) -> str:
        """The declaration for messages, or the name and block if it was not read."""
        return self.declaration or f"{self.name} ({self.block})"


@dataclass(frozen=True)
class ProgramInfo:
    """The variables a Stan program declares.

    Attributes
    ----------
    stan_file
        The program.
    info
        The JSON printed by ``stanc --info`` (what
        :meth:`cmdstanpy.CmdStanModel.src_info` returns).
    inputs
        The data fields, in declaration order.
    outputs
        The output variables (parameters, transformed parameters, generated
        quantities), in output order.
    """

    stan_file: Path
    info: Mapping[str, Any]
    inputs: Mapping[str, StanVariable]
    outputs: Mapping[str, StanVariable]

    @property
    def name(self) -> str:
        """The program's file name without ``.stan`` (cmdstanpy's model name)."""
        return self.stan_file.stem


def stanc_path() -> Path:
    """The ``stanc`` binary of the toolchain in use (building the bundled one if needed).

    Raises
    ------
    ToolchainError
        If the installation has no ``bin/stanc``.
    """
    from bayeswe.stan.toolchain import current

    bin_dir = current().path / "bin"
    for name in ("stanc", "stanc.exe"):
        if (bin_dir / name).is_file():
            return bin_dir / name
    raise ToolchainError(f"no stanc binary in {bin_dir}")


_CACHE: dict[tuple[str, str], ProgramInfo] = {}


def program_info(stan_file: str | Path) -> ProgramInfo:
    """Read a program's variables with ``stanc`` (memoized by the program's source hash).

    ``#include`` directives are resolved relative to the program's directory,
    as cmdstanpy does when it compiles.

    Raises
    ------
    FileNotFoundError
        If ``stan_file`` does not exist.
    StanSourceError
        If the file is empty or not UTF-8 text (before stanc runs).
    StanCompileError
        If ``stanc`` rejects the program; ``stan_message`` holds its message.
    """
    stan_file = Path(stan_file)
    source = read_stan_source(stan_file)  # FileNotFoundError, StanSourceError
    key = (str(stan_file.resolve()), hashlib.sha256(source.encode("utf-8")).hexdigest())
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    stanc = stanc_path()
    include = ["--include-paths", str(stan_file.resolve().parent)]
    info = json.loads(_run_stanc([str(stanc), "--info", *include, str(stan_file)], stan_file))
    canonical = _run_stanc(
        [
            str(stanc),
            "--auto-format",
            "--canonicalize",
            "deprecations,includes,parentheses,braces,strip-comments",
            "--max-line-length",
            "1000000",
            *include,
            str(stan_file),
        ],
        stan_file,
    )
    result = _program_info(stan_file, info, parse_declarations(canonical))
    _CACHE[key] = result
    return result


def _run_stanc(cmd: list[str], stan_file: Path) -> str:
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=_STANC_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ToolchainError(f"could not run stanc ({' '.join(cmd)}): {exc}") from exc
    if proc.returncode != 0:
        raise StanCompileError(
            f"Stan program {stan_file} did not compile",
            stan_message=(proc.stderr or proc.stdout),
            command=cmd,
        )
    return proc.stdout


def _program_info(
    stan_file: Path, info: Mapping[str, Any], declared: Mapping[str, Mapping[str, Any]]
) -> ProgramInfo:
    def variable(name: str, block: str, entry: Mapping[str, Any]) -> StanVariable:
        kind = entry.get("type")
        ndim = int(entry.get("dimensions", 0))
        components: tuple[Mapping[str, Any], ...] = ()
        if isinstance(kind, list):
            components = tuple(kind)
            kind = "tuple"
        decl = declared.get(block, {}).get(name)
        sizes = None
        text = ""
        if decl is not None:
            text = decl["declaration"]
            # A declaration read differently from stanc's own count of axes is not trusted.
            if decl["sizes"] is not None and len(decl["sizes"]) == ndim:
                sizes = tuple(decl["sizes"])
        return StanVariable(name, block, str(kind), ndim, sizes, text, components)

    inputs = {n: variable(n, "data", e) for n, e in dict(info.get("inputs", {})).items()}
    outputs = {
        n: variable(n, block, e)
        for block in OUTPUT_BLOCKS
        for n, e in dict(info.get(block, {})).items()
    }
    return ProgramInfo(stan_file=stan_file, info=info, inputs=inputs, outputs=outputs)


# --------------------------------------------------------------------------- declarations


def parse_declarations(canonical: str) -> dict[str, dict[str, dict[str, Any]]]:
    """Top-level declarations of each block of a program printed by ``stanc``.

    Parameters
    ----------
    canonical
        The program as ``stanc --auto-format --canonicalize ...,strip-comments``
        prints it (no comments; statements of a block at brace depth one).

    Returns
    -------
    dict
        ``{block: {name: {"sizes": (expr, ...) | None, "declaration": text}}}``;
        ``sizes`` lists the array sizes, then the vector/matrix sizes, as Stan
        expressions; ``None`` for tuples and for anything not understood.
    """
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for block, body in _blocks(canonical).items():
        found: dict[str, dict[str, Any]] = {}
        for statement in _statements(body):
            for name, sizes, text in _declaration(statement):
                found[name] = {"sizes": sizes, "declaration": text}
        out[block] = found
    return out


def _blocks(source: str) -> dict[str, str]:
    """Bodies of the top-level blocks, by block name."""
    blocks: dict[str, str] = {}
    i, n = 0, len(source)
    while i < n:
        j = source.find("{", i)
        if j < 0:
            break
        header = " ".join(source[i:j].split())
        end = _matching(source, j)
        if header in _BLOCKS:
            blocks[header] = source[j + 1 : end]
        i = end + 1
    return blocks


def _matching(text: str, start: int) -> int:
    """Index of the bracket closing the one at ``start`` (strings skipped), or ``len``."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    stack = [pairs[text[start]]]
    i = start + 1
    while i < len(text):
        c = text[i]
        if c == '"':
            close = text.find('"', i + 1)
            i = len(text) if close < 0 else close + 1
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i
        i += 1
    return len(text)


def _statements(body: str) -> list[str]:
    """Statements at the top level of a block body; compound statements are skipped."""
    statements: list[str] = []
    start = 0
    i = 0
    while i < len(body):
        c = body[i]
        if c == '"':
            close = body.find('"', i + 1)
            i = len(body) if close < 0 else close + 1
        elif c in "([":
            i = _matching(body, i) + 1
        elif c == "{":
            # for/while/if bodies and nested blocks hold no output declarations
            i = _matching(body, i) + 1
            start = i
        elif c == ";":
            statements.append(" ".join(body[start:i].split()))
            i += 1
            start = i
        else:
            i += 1
    return [s for s in statements if s]


def _declaration(statement: str) -> list[tuple[str, tuple[str, ...] | None, str]]:
    """``(name, sizes, text)`` for each variable a statement declares; [] if not a declaration."""
    s = statement
    array_sizes: list[str] = []
    if s.startswith("array["):
        close = _matching(s, len("array"))
        array_sizes = _split_top(s[len("array") + 1 : close])
        s = s[close + 1 :].lstrip()
    match = _IDENT.match(s)
    if match is None or match.group(0) not in _TYPES:
        return []
    kind = match.group(0)
    rest = s[match.end() :]
    if kind == "tuple":
        if not rest.startswith("("):
            return []
        rest = rest[_matching(rest, 0) + 1 :]
        type_sizes: list[str] | None = None
    else:
        rest = rest.lstrip()
        if rest.startswith("<"):
            rest = rest[_angle_end(rest) + 1 :].lstrip()
        brackets: list[str] = []
        if rest.startswith("["):
            close = _matching(rest, 0)
            brackets = _split_top(rest[1:close])
            rest = rest[close + 1 :]
        type_sizes = _type_sizes(kind, brackets)
    names: list[str] = []
    for part in _split_top(rest):
        name = _IDENT.match(part.strip())
        if name is None:
            return []
        names.append(name.group(0))
    head = statement[: len(statement) - len(rest)].strip()
    sizes = None if type_sizes is None else (*array_sizes, *type_sizes)
    return [(name, sizes, f"{head} {name}") for name in names]


def _type_sizes(kind: str, brackets: list[str]) -> list[str] | None:
    if kind in _SCALAR_TYPES:
        return [] if not brackets else None
    if kind in _VECTOR_TYPES:
        return brackets if len(brackets) == 1 else None
    if kind in _SQUARE_TYPES:
        return brackets * 2 if len(brackets) == 1 else None
    if kind == "cholesky_factor_cov" and len(brackets) == 1:
        return brackets * 2
    return brackets if len(brackets) == 2 else None


def _angle_end(text: str) -> int:
    """Index of the ``>`` closing a type constraint that starts at ``text[0] == "<"``."""
    i = 1
    while i < len(text):
        c = text[i]
        if c in "([":
            i = _matching(text, i) + 1
            continue
        if c == ">":
            return i
        i += 1
    return len(text) - 1


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets, dropping ``= initial value`` parts' commas too."""
    parts: list[str] = []
    start = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c in "([{":
            i = _matching(text, i) + 1
            continue
        if c == '"':
            close = text.find('"', i + 1)
            i = len(text) if close < 0 else close + 1
            continue
        if c == ",":
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


# --------------------------------------------------------------------------- sizes


def evaluate_size(
    expr: str, ints: Mapping[str, int], arrays: Mapping[str, Any] | None = None
) -> int | None:
    """Value of a Stan size expression, or ``None`` if it cannot be evaluated here.

    Parameters
    ----------
    expr
        A Stan integer expression, e.g. ``"J"``, ``"K + 1"``, ``"N %/% 2"``.
    ints
        Known integer variables.
    arrays
        Known array variables, for ``size``, ``num_elements``, ``rows`` and ``cols``.

    Examples
    --------
    >>> evaluate_size("2 * (K - 1)", {"K": 4})
    6
    >>> evaluate_size("K2", {"K": 4}) is None
    True
    """
    try:
        tree = ast.parse(expr.replace("%/%", "//"), mode="eval")
    except SyntaxError:
        return None
    try:
        value = _eval(tree.body, ints, arrays or {})
    except (KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    return value if isinstance(value, int) else None


def _eval(node: ast.AST, ints: Mapping[str, int], arrays: Mapping[str, Any]) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        value = ints[node.id]
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(node.id)
        return value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _eval(node.operand, ints, arrays)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        a = _eval(node.left, ints, arrays)
        b = _eval(node.right, ints, arrays)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, (ast.Div, ast.FloorDiv)):
            # Stan's integer division truncates toward zero (C++), unlike Python's //.
            return int(math.copysign(abs(a) // abs(b), a * b)) if b else a // b
        if isinstance(node.op, ast.Mod):
            return int(math.fmod(a, b)) if b else a % b
        raise ValueError("operator")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        name = node.func.id
        if name in ("min", "max") and len(node.args) == 2:
            args = [_eval(a, ints, arrays) for a in node.args]
            return min(args) if name == "min" else max(args)
        if name in ("size", "num_elements", "rows", "cols") and len(node.args) == 1:
            arg = node.args[0]
            if not isinstance(arg, ast.Name):
                raise ValueError("argument")
            import numpy as np

            shape = np.shape(arrays[arg.id])
            if name == "num_elements":
                return int(np.prod(shape, dtype=np.int64))
            if name == "cols":
                return int(shape[1]) if len(shape) == 2 else 1
            if not shape:
                raise ValueError("scalar")
            return int(shape[0])
    raise ValueError("expression")
