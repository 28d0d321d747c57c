"""Small helpers shared by the targets' reports."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "docstring_section",
    "done_frame",
    "failed_cells_section",
    "figure_path",
    "finish_report",
    "markdown_table",
    "not_run",
    "pyplot",
    "save_figure",
    "verdict",
    "verdict_section",
    "what_was_run",
    "write_table",
]


def verdict(claim: str, holds: bool, measured: str) -> dict[str, Any]:
    """One row of a report: the paper's claim, ``reproduced``/``differs``, what we measured."""
    return {"claim": claim, "verdict": "reproduced" if holds else "differs", "measured": measured}


def not_run(claim: str, measured: str) -> dict[str, Any]:
    """A row whose claim this run could not check: ``not run`` and why (``measured``)."""
    return {"claim": claim, "verdict": "not run", "measured": measured}


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table (``|`` in cells escaped)."""

    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |"]
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def docstring_section(doc: str | None, start: str, stop: str | None = None) -> str:
    """The part of a target's docstring headed ``**start.**``, as one report paragraph.

    It runs from the first ``**start.**`` to the next ``**stop.**`` (without ``stop``:
    to the next ``**start.**`` or the end of ``doc``) and is returned as
    ``"**start.** "`` followed by its text, the white space around the text dropped.

    Raises
    ------
    ValueError
        ``doc`` has no ``**start.**``.
    """
    heading = f"**{start}.**"
    parts = (doc or "").split(heading)
    if len(parts) < 2:
        raise ValueError(f"the docstring has no section {heading}")
    text = parts[1] if stop is None else parts[1].split(f"**{stop}.**")[0]
    return f"{heading} {text.strip()}"


def what_was_run(doc: str | None, *headings: str) -> list[str]:
    """The ``## What was run`` section of a report: the parts ``headings`` of ``doc``.

    Each part runs from its heading to the next of ``headings``, the last to the end of
    ``doc`` (see :func:`docstring_section`); a blank line follows each.
    """
    lines = ["## What was run", ""]
    for start, stop in zip(headings, [*headings[1:], None], strict=True):
        lines += [docstring_section(doc, start, stop), ""]
    return lines


def figure_path(out: Path, name: str) -> Path:
    """Where a target writes its figure ``name`` (beside ``REPORT.md``)."""
    return Path(out) / name


def pyplot() -> ModuleType:
    """``matplotlib.pyplot`` with the non-interactive Agg backend (reports run headless)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Figure, out: Path, name: str, *, dpi: int = 110) -> Path:
    """Write ``fig`` to ``out/name`` atomically and close it, also when writing fails."""
    import matplotlib.pyplot as plt

    from bayeswe.atomic import savefig_atomic

    try:
        return savefig_atomic(fig, figure_path(out, name), dpi=dpi)
    finally:
        plt.close(fig)


def write_table(out: Path, frame: pd.DataFrame, name: str = "table.csv") -> Path:
    """Write ``frame`` as CSV without its index to ``out/name`` atomically."""
    from bayeswe.atomic import write_text_atomic

    return write_text_atomic(Path(out) / name, frame.to_csv(index=False))


def done_frame(results: Sequence[Any], columns: Sequence[str]) -> pd.DataFrame:
    """One row per finished cell, its parameters then its results, in ``columns`` only
    (missing values are NaN; no finished cell gives an empty frame with the columns)."""
    import pandas as pd

    rows = [{**r.cell.params, **r.result} for r in results if r.status == "done"]
    return pd.DataFrame(rows, columns=list(columns))


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


def finish_report(
    md: Sequence[str], verdicts: Sequence[dict[str, Any]], results: Sequence[Any], **extra: Any
) -> dict[str, Any]:
    """What a target's ``report`` returns: ``md`` followed by the verdict table and the
    failed cells as the Markdown body, the verdicts, and ``extra``."""
    lines = [*md, *verdict_section(verdicts), *failed_cells_section(results)]
    return {"markdown": "\n".join(lines) + "\n", "verdicts": verdicts, **extra}
