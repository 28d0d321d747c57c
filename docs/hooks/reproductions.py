"""MkDocs hook: the full runs of ``reproductions/*/`` on the site.

``bayeswe reproduce TARGET --out reproductions`` writes ``reproductions/TARGET/``
(``REPORT.md``, ``results.json``, ``table.csv``, figures). docs/reproduce.md holds the
placeholder :data:`PLACEHOLDER`, which becomes one table of every full run: the target,
what it regenerates, its verdict counts, its cells and their summed fitting time, and a
link to the target's own page. That page, ``reproduce/TARGET.md``, is generated from the
report with its figure and file links pointing into the site (each figure opens full
size), and listed in the navigation under the Reproduce page. The target's figures, CSV
and results file are copied into the site (the cell cache ``cells/`` is not). Quick runs
are not shown: the pages are for the papers' sizes.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

PLACEHOLDER = "<!-- reproductions -->"
REPRODUCTIONS = "reproductions"
#: The page of a target's report: ``reproduce/TARGET.md``.
PAGES = "reproduce"
#: The navigation entry whose page holds the placeholder; the reports are listed under it.
NAV_PAGE = "reproduce.md"
#: Files of a target copied into the site (``cells/`` is the resumable cache).
PUBLISHED = (".png", ".csv", ".json")
VERDICTS = ("reproduced", "differs", "not run")
_HEADING = re.compile(r"^(#{1,4}) ", re.M)
#: ``](name)`` links to a file of the target's own folder (no scheme, no slash).
_LOCAL_LINK = re.compile(r"\]\((?![a-z]+:|/|#)([^)\s/]+)\)")
#: ``![alt](src)``: a figure, made a link to itself so that it opens full size.
_IMAGE = re.compile(r"(?<!\[)!\[([^\]]*)\]\(([^)\s]+)\)")


def _repo_root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def reports(root: Path) -> list[Path]:
    """The full-run reports under ``root / reproductions``, by target name."""
    found = sorted((root / REPRODUCTIONS).glob("*/REPORT.md"))
    return [p for p in found if "**Quick run**" not in p.read_text(encoding="utf-8")]


def _published(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and p.suffix in PUBLISHED)


def report_page(path: Path) -> str:
    """The page of one report: its text with links into ``reproductions/TARGET/`` (from
    ``reproduce/TARGET.md``), each figure a link to itself, and the list of its files."""
    target = path.parent.name
    text = path.read_text(encoding="utf-8")
    # a blank line before each heading, so that none continues the paragraph above it
    text = _HEADING.sub(lambda m: "\n" + m.group(1) + " ", text).lstrip("\n")
    prefix = f"../{REPRODUCTIONS}/{target}/"
    text = _LOCAL_LINK.sub(lambda m: f"]({prefix}{m.group(1)})", text)
    text = _IMAGE.sub(lambda m: f"[![{m.group(1)}]({m.group(2)})]({m.group(2)})", text)
    files = ", ".join(f"[{p.name}]({prefix}{p.name})" for p in _published(path.parent))
    # no table of contents beside a report: its tables get the width
    return f"---\nhide:\n  - toc\n---\n\n{text.rstrip()}\n\nFiles: {files}.\n"


def _results(path: Path) -> dict[str, Any]:
    results = path.parent / "results.json"
    if not results.is_file():
        return {}
    return json.loads(results.read_text(encoding="utf-8"))


def verdict_counts(record: dict[str, Any]) -> Counter:
    return Counter(v.get("verdict") for v in record.get("verdicts") or [])


def cells_hours(record: dict[str, Any]) -> float | None:
    """The cells' own wall time summed, in hours (``cells_wall_s``, or the cells')."""
    seconds = record.get("cells_wall_s")
    if seconds is None:
        walls = [c.get("wall_s") for c in record.get("cells") or []]
        walls = [float(w) for w in walls if isinstance(w, int | float)]
        seconds = sum(walls) if walls else None
    return None if seconds is None else seconds / 3600


def _paper(record: dict[str, Any]) -> str:
    """ "Yrjänäinen et al., Table 1" from the record's paper and source."""
    authors = (record.get("paper") or "").split(",")
    author = authors[0].strip()
    if len(authors) > 2:
        author += " et al."
    where = (record.get("source") or "").split(",")[-1].strip()
    return ", ".join(part for part in (author, where) if part)


def _hours(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.1f}" if value >= 0.1 else "< 0.1"


def render_table(root: Path) -> str:
    """One row per full run: target (a link to its page), paper, what, verdicts, cost."""
    found = reports(root)
    if not found:
        return f"No full runs in `{REPRODUCTIONS}/` yet.\n"
    lines = [
        "| target | paper | what it regenerates | reproduced / differs / not run "
        "| cells | fitting time (h) |",
        "|---|---|---|---|---|---|",
    ]
    for path in found:
        target = path.parent.name
        record = _results(path)
        counts = verdict_counts(record)
        cells = record.get("cells_selected") or record.get("cells_done")
        title = (record.get("title") or "").replace("|", "\\|")
        verdicts = " / ".join(str(counts[v]) for v in VERDICTS)
        lines.append(
            f"| [`{target}`]({PAGES}/{target}.md) | {_paper(record)} | {title} "
            f"| {verdicts} | {cells if cells is not None else '–'} "
            f"| {_hours(cells_hours(record))} |"
        )
    return "\n".join(lines) + "\n"


def on_config(config: Any) -> Any:
    """List every report page under the Reproduce entry of the navigation."""
    root = _repo_root(config)
    pages = [{p.parent.name: f"{PAGES}/{p.parent.name}.md"} for p in reports(root)]
    nav = config.get("nav") or []
    for index, entry in enumerate(nav):
        if isinstance(entry, dict):
            (title, value), *_ = entry.items()
            if value == NAV_PAGE and pages:
                nav[index] = {title: [{"Overview": NAV_PAGE}, *pages]}
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    root = _repo_root(config)
    for report in reports(root):
        target = report.parent.name
        files.append(File.generated(config, f"{PAGES}/{target}.md", content=report_page(report)))
        for path in _published(report.parent):
            uri = f"{REPRODUCTIONS}/{target}/{path.name}"
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if PLACEHOLDER not in markdown:
        return markdown
    return markdown.replace(PLACEHOLDER, render_table(_repo_root(config)))
