"""Small helpers shared by the targets' reports."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["figure_path", "markdown_table", "verdict"]


def verdict(claim: str, holds: bool, measured: str) -> dict[str, Any]:
    """One row of a report: the paper's claim, ``reproduced``/``differs``, what we measured."""
    return {"claim": claim, "verdict": "reproduced" if holds else "differs", "measured": measured}


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table (``|`` in cells escaped)."""

    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |"]
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def figure_path(out: Path, name: str) -> Path:
    """Where a target writes its figure ``name`` (beside ``REPORT.md``)."""
    return Path(out) / name
