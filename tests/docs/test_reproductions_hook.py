"""docs/hooks/reproductions.py: the full runs' reports inlined into docs/reproduce.md."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _hook():
    path = REPO / "docs" / "hooks" / "reproductions.py"
    spec = importlib.util.spec_from_file_location("docs_hook_reproductions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _target(root: Path, name: str, report: str) -> Path:
    folder = root / "reproductions" / name
    (folder / "cells").mkdir(parents=True)
    (folder / "REPORT.md").write_text(report, encoding="utf-8")
    (folder / "fig.png").write_bytes(b"png")
    (folder / "results.json").write_text("{}", encoding="utf-8")
    (folder / "cells" / "abc.json").write_text("{}", encoding="utf-8")
    return folder


def test_render_moves_headings_down_rewrites_links_and_skips_quick_runs(tmp_path: Path) -> None:
    hook = _hook()
    assert hook.render(tmp_path) == "No full runs in `reproductions/` yet.\n"
    _target(tmp_path, "001-x", "# 001-x: title\n\nRun facts.\n## Table\n\n![f](fig.png) "
            "[paper](https://example.org/a.png) [page](#table)\n")  # fmt: skip
    _target(tmp_path, "002-y", "# 002-y\n\n**Quick run** (reduced grid)\n")
    text = hook.render(tmp_path)
    assert "002-y" not in text
    assert text.startswith("\n### 001-x: title\n\nRun facts.\n\n#### Table\n")
    assert "![f](reproductions/001-x/fig.png)" in text
    assert "(https://example.org/a.png)" in text and "(#table)" in text
    # the published files: not the cell cache
    assert text.rstrip().endswith(
        "Files: [fig.png](reproductions/001-x/fig.png), "
        "[results.json](reproductions/001-x/results.json)."
    )


def test_every_committed_report_is_a_full_run_at_a_clean_commit() -> None:
    hook = _hook()
    page = (REPO / "docs" / "reproduce.md").read_text(encoding="utf-8")
    assert hook.PLACEHOLDER in page
    reports = hook.reports(REPO)
    folders = sorted(p.parent for p in (REPO / "reproductions").glob("*/REPORT.md"))
    assert [p.parent for p in reports] == folders  # no quick run committed
    for folder in folders:
        record = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        assert record["quick"] is False and record["cells_failed"] == 0
        assert record["run"]["commit"] and record["run"]["dirty"] is False
        assert not (folder / "cells").exists() or not any((folder / "cells").iterdir())
