"""Small helpers shared by the targets' reports."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["failed_cells_section", "figure_path", "markdown_table", "verdict", "verdict_section"]


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


def verdict_section(verdicts: Sequence[dict[str, Any]]) -> list[str]:
    """The ``## Verdict per row`` section of a report: claim, verdict, what we measured."""
    rows = [[v["claim"], v["verdict"], v["measured"]] for v in verdicts]
    return ["## Verdict per row", "", markdown_table(["row", "verdict", "measured"], rows), ""]


def failed_cells_section(results: Sequence[Any]) -> list[str]:
    """``## Failed cells`` with each failed cell's parameters and last error line; none: ``[]``."""
    failed = [r for r in results if r.status != "done"]
    if not failed:
        return []
    return ["## Failed cells", ""] + [
        f"- {r.cell.params}: `{(r.error or '').strip().splitlines()[-1]}`" for r in failed
    ]
