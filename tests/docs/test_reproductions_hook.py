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


def test_each_report_gets_a_page_with_links_into_the_site(tmp_path: Path) -> None:
    hook = _hook()
    assert hook.render_table(tmp_path) == "No full runs in `reproductions/` yet.\n"
    folder = _target(tmp_path, "001-x", "# 001-x: title\n\nRun facts.\n## Table\n\n![f](fig.png) "
                     "[paper](https://example.org/a.png) [page](#table)\n")  # fmt: skip
    _target(tmp_path, "002-y", "# 002-y\n\n**Quick run** (reduced grid)\n")
    assert [p.parent.name for p in hook.reports(tmp_path)] == ["001-x"]
    text = hook.report_page(folder / "REPORT.md")
    assert text.startswith("---\nhide:\n  - toc\n---\n\n# 001-x: title\n\nRun facts.\n\n## Table\n")
    # a figure links to its own file, so that it opens full size
    fig = "../reproductions/001-x/fig.png"
    assert f"[![f]({fig})]({fig})" in text
    assert "(https://example.org/a.png)" in text and "(#table)" in text
    # the published files: not the cell cache
    assert text.rstrip().endswith(
        f"Files: [fig.png]({fig}), [results.json](../reproductions/001-x/results.json)."
    )


def test_the_overview_counts_verdicts_and_cost(tmp_path: Path) -> None:
    hook = _hook()
    folder = _target(tmp_path, "001-x", "# 001-x\n")
    record = {
        "title": "coverage | against N",
        "paper": "Yrjänäinen, Boström, Magnusson, Posterior Sampling",
        "source": "section 4.1.2, Table 1",
        "cells_selected": 12,
        "cells": [{"wall_s": 1800.0}, {"wall_s": 5400.0}, {"wall_s": None}],
        "verdicts": [{"verdict": "reproduced"}] * 3 + [{"verdict": "differs"}],
    }
    (folder / "results.json").write_text(json.dumps(record), encoding="utf-8")
    rows = hook.render_table(tmp_path).splitlines()
    assert rows[2] == (
        "| [`001-x`](reproduce/001-x.md) | Yrjänäinen et al., Table 1 "
        "| coverage \\| against N | 3 / 1 / 0 | 12 | 2.0 |"
    )
    record["cells_wall_s"] = 180.0  # the summed wall time, where the record has it
    (folder / "results.json").write_text(json.dumps(record), encoding="utf-8")
    assert hook.render_table(tmp_path).splitlines()[2].endswith("| 12 | < 0.1 |")
    config = {
        "config_file_path": str(tmp_path / "mkdocs.yml"),
        "nav": [{"Home": "index.md"}, {"Reproducing the papers": "reproduce.md"}],
    }
    hook.on_config(config)
    assert config["nav"][1] == {
        "Reproducing the papers": [{"Overview": "reproduce.md"}, {"001-x": "reproduce/001-x.md"}]
    }


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
