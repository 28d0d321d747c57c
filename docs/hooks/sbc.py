"""MkDocs hook: the SBC table of docs/sbc.md, generated from ``docs/sbc-results/*/results.json``.

Each directory of ``docs/sbc-results`` is what ``bayeswe sbc NAME --out docs/sbc-results``
wrote; the page holds only the placeholder :data:`PLACEHOLDER`. A results file without a
``summary`` fails the build.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PLACEHOLDER = "<!-- sbc-results -->"
RESULTS = Path("docs") / "sbc-results"


def _p(value: float) -> str:
    return f"{value:.2g}" if value >= 1e-3 else f"{value:.1e}"


def render(results_dir: Path) -> str:
    files = sorted(results_dir.glob("*/results.json"))
    if not files:
        return f"No SBC results in `{results_dir}`.\n"
    rows = [
        "| sampler | kind | replications | statistics | family p | worst statistic (p) "
        "| power: sd x1.25 / x0.8 / shift 0.25 sd | outer-bin share (implied sd ratio) "
        "| verdict at 1 % |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    runs = []
    for path in files:
        record = json.loads(path.read_text(encoding="utf-8"))
        s = record.get("summary")
        if not isinstance(s, dict):
            from mkdocs.exceptions import PluginError

            raise PluginError(f"{path}: no summary")
        kind = "approximate" if s["approximate"] else "exact"
        rows.append(
            f"| [{s['sampler']}](sbc-results/{path.parent.name}/histogram.png) | {kind} "
            f"| {s['replications']} | {s['statistics']} | {_p(s['family_p_value'])} "
            f"| {s['worst_statistic']} ({_p(s['min_p_value'])}) "
            f"| {s['power_sd_x1.25']:.2f} / {s['power_sd_x0.8']:.2f} / "
            f"{s['power_shift_0.25sd']:.2f} | {s['outer_share']:.3f} "
            f"({s['implied_sd_ratio']:.2f}) | {s['verdict']} |"
        )
        run = record.get("run") or {}
        runs.append(
            f"- `{s['sampler']}`: `{run.get('command', 'not recorded')}`, commit "
            f"`{(run.get('commit') or 'not recorded')[:12]}`, {run.get('started_utc', '')}, "
            f"{run.get('cpu_model', '')}, {record.get('wall_time_s', '?')} s"
        )
    return "\n".join(rows) + "\n\nRuns:\n\n" + "\n".join(runs) + "\n"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if PLACEHOLDER not in markdown:
        return markdown
    root = Path(config["config_file_path"]).resolve().parent
    return markdown.replace(PLACEHOLDER, render(root / RESULTS))
