"""MkDocs hook: the reports of ``reproductions/*/REPORT.md`` shown on docs/reproduce.md.

``bayeswe reproduce TARGET --out reproductions`` writes ``reproductions/TARGET/``
(``REPORT.md``, ``results.json``, ``table.csv``, figures). The page holds only the
placeholder :data:`PLACEHOLDER`; each report is inlined under it with its headings moved
below the page's and its figure and file links pointing into the site, where the
target's figures, CSV and results file are copied (the cell cache ``cells/`` is not).
Quick runs are not shown: the page is for the paper's sizes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

PLACEHOLDER = "<!-- reproductions -->"
REPRODUCTIONS = "reproductions"
#: Files of a target copied into the site (``cells/`` is the resumable cache).
PUBLISHED = (".png", ".csv", ".json")
_HEADING = re.compile(r"^(#{1,4}) ", re.M)
#: ``](name)`` links to a file of the target's own folder (no scheme, no slash).
_LOCAL_LINK = re.compile(r"\]\((?![a-z]+:|/|#)([^)\s/]+)\)")


def _repo_root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def reports(root: Path) -> list[Path]:
    """The full-run reports under ``root / reproductions``, by target name."""
    found = sorted((root / REPRODUCTIONS).glob("*/REPORT.md"))
    return [p for p in found if "**Quick run**" not in p.read_text(encoding="utf-8")]


def render(root: Path) -> str:
    """Every report, headings two levels down, links into ``reproductions/TARGET/``."""
    found = reports(root)
    if not found:
        return f"No full runs in `{REPRODUCTIONS}/` yet.\n"
    parts = []
    for path in found:
        target = path.parent.name
        text = path.read_text(encoding="utf-8")
        # two levels down (the page's own sections are ##), and a blank line before
        # each heading so that none continues the paragraph above it
        text = _HEADING.sub(lambda m: "\n" + "#" * (len(m.group(1)) + 2) + " ", text)
        prefix = f"{REPRODUCTIONS}/{target}/"
        text = _LOCAL_LINK.sub(lambda m, prefix=prefix: f"]({prefix}{m.group(1)})", text)
        files = ", ".join(
            f"[{p.name}]({REPRODUCTIONS}/{target}/{p.name})" for p in _published(path.parent)
        )
        parts.append(f"{text.rstrip()}\n\nFiles: {files}.\n")
    return "\n".join(parts)


def _published(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and p.suffix in PUBLISHED)


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    root = _repo_root(config)
    for report in reports(root):
        for path in _published(report.parent):
            uri = f"{REPRODUCTIONS}/{report.parent.name}/{path.name}"
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if PLACEHOLDER not in markdown:
        return markdown
    return markdown.replace(PLACEHOLDER, render(_repo_root(config)))
