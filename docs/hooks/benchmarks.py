"""MkDocs hook: the benchmark tables of docs/benchmarks.md, generated from the results files.

Every ``benchmarks/results/*.json`` file becomes one section: which benchmark wrote it,
the command that ran it (``run.command``; older files say "command not recorded"), the
date, commit and machine facts when the file records them, and its ``summary`` as a
table. The page holds only the placeholder :data:`PLACEHOLDER`; no figure is typed by hand.

A second placeholder, :data:`MIXING_PLACEHOLDER` (docs/gaussian-lda.md), becomes one
table per number of topics that sets every ``gaussian-lda-mixing`` run side by side:
each alias-MH setting of each file in a row, with its run settings and headline ratios
over cgs read from the file's ``summary`` and ``settings``.

A results file that is not a JSON object with a ``summary`` fails the build.
"""

from __future__ import annotations

import ast
import json
import math
import shlex
from pathlib import Path
from typing import Any

PLACEHOLDER = "<!-- benchmark-results -->"
MIXING_PLACEHOLDER = "<!-- gaussian-lda-mixing-runs -->"
MIXING_PREFIX = "gaussian_lda_mixing"
NOT_RECORDED = "not recorded"


class ResultsError(Exception):
    """A results file that cannot be rendered."""


def _repo_root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def benchmark_names(repo_root: Path) -> list[str]:
    """The keys of ``bayeswe.bench.BENCHMARKS``, read without importing bayeswe."""
    init = repo_root / "bayeswe" / "bench" / "__init__.py"
    if not init.is_file():
        return []
    for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
        target = getattr(node, "target", None) or (getattr(node, "targets", None) or [None])[0]
        if isinstance(target, ast.Name) and target.id == "BENCHMARKS":
            value = node.value
            if isinstance(value, ast.Dict):
                return [k.value for k in value.keys if isinstance(k, ast.Constant)]
    return []


def _benchmark_of(path: Path, result: dict[str, Any], names: list[str]) -> str:
    run = result.get("run") if isinstance(result.get("run"), dict) else {}
    for value in (run.get("benchmark"), result.get("benchmark")):
        if isinstance(value, str) and value:
            return value
    # Older files: the longest registered name whose file form starts the file name.
    stem = path.stem
    matches = [
        n
        for n in names
        if stem == n.replace("-", "_") or stem.startswith(n.replace("-", "_") + "_")
    ]
    return max(matches, key=len) if matches else stem


def format_value(value: Any) -> str:
    """One table cell: numbers rounded for reading, nested values flattened."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value != 0 and abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(format_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {format_value(v)}" for k, v in value.items())
    return str(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _flatten(summary: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in summary.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            rows.extend(_flatten(value, name + "."))
        else:
            rows.append((name, value))
    return rows


def _command(run: dict[str, Any]) -> str | None:
    command = run.get("command")
    if isinstance(command, list | tuple):
        return shlex.join(str(part) for part in command)
    if isinstance(command, str) and command:
        return command
    return None


def load_result(path: Path) -> dict[str, Any]:
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: not readable as JSON ({exc})") from exc
    if not isinstance(result, dict) or not isinstance(result.get("summary"), dict):
        raise ResultsError(f"{path}: no 'summary' object")
    return result


def _date(run: dict[str, Any], result: dict[str, Any]) -> str | None:
    for value in (run.get("date"), run.get("started_utc"), result.get("started")):
        if value:
            return str(value)
    return None


def _commit(run: dict[str, Any]) -> str:
    if run.get("commit"):
        return f"`{run['commit']}`"
    if run.get("dirty"):
        return "none (the run was made from a tree with uncommitted changes)"
    return NOT_RECORDED


def _run_facts(run: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """Machine facts: the harness's ``run`` keys, or the few older files recorded."""
    facts: list[str] = []
    cpu = run.get("cpu") or run.get("cpu_model")
    if cpu is not None or run.get("cpu_count") is not None:
        count = run.get("cpus_available") or run.get("cpu_count")
        text = format_value(cpu) if cpu is not None else "CPU"
        facts.append(f"- CPU: {_cell(text)}" + (f" ({count} available)" if count else ""))
    load = run.get("load")
    if load is None and (run.get("load_average_start") or run.get("load_average_end")):
        load = {"start": run.get("load_average_start"), "end": run.get("load_average_end")}
    if load is not None:
        facts.append(f"- load average: {_cell(format_value(load))}")
    if run.get("duration_s") is not None:
        facts.append(f"- duration: {format_value(run['duration_s'])} s")
    if run.get("python"):
        facts.append(f"- Python: {_cell(format_value(run['python']))}")
    if run.get("versions") is not None:
        facts.append(f"- versions: {_cell(format_value(run['versions']))}")
    if not run:
        if result.get("cpus") is not None:
            facts.append(f"- CPUs: {format_value(result['cpus'])}")
        for key, label in (
            ("load_average_at_start", "load average at start"),
            ("load_average_at_end", "load average at end"),
        ):
            if result.get(key) is not None:
                facts.append(f"- {label}: {format_value(result[key])}")
    return facts


def _table(rows: list[tuple[str, Any]]) -> list[str]:
    table = ["| summary key | value |", "|---|---|"]
    table += [f"| `{_cell(k)}` | {_cell(format_value(v))} |" for k, v in rows]
    if not rows:
        table.append("| (empty summary) | |")
    return table


def _records_table(records: list[dict[str, Any]]) -> list[str]:
    """A list of flat-ish records as a table; wide records are transposed (one column each)."""
    flat = [dict(_flatten(r)) for r in records]
    columns: list[str] = []
    for row in flat:
        columns.extend(k for k in row if k not in columns)
    if len(columns) > 12 and len(flat) <= 8:
        head = "| field | " + " | ".join(str(i + 1) for i in range(len(flat))) + " |"
        lines = [head, "|---" * (len(flat) + 1) + "|"]
        for col in columns:
            cells = " | ".join(_cell(format_value(row.get(col))) for row in flat)
            lines.append(f"| `{_cell(col)}` | {cells} |")
        return lines
    lines = ["| " + " | ".join(f"`{_cell(c)}`" for c in columns) + " |"]
    lines.append("|---" * len(columns) + "|")
    for row in flat:
        lines.append("| " + " | ".join(_cell(format_value(row.get(c))) for c in columns) + " |")
    return lines


def _details(result: dict[str, Any]) -> list[str]:
    """Collapsed tables of the per-setting records and of embedded results."""
    out: list[str] = []
    for key, value in result.items():
        if key in ("summary", "run"):
            continue
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            out += ["", f'??? info "`{key}`: {len(value)} rows"', ""]
            out += ["    " + line for line in _records_table(value)]
        elif isinstance(value, dict) and isinstance(value.get("summary"), dict):
            name = value.get("benchmark", key)
            out += ["", f'??? info "`{key}`: the summary of `{name}` run within it"', ""]
            out += ["    " + line for line in _table(_flatten(value["summary"]))]
    return out


def render_file(path: Path, names: list[str]) -> str:
    """The section of one results file: facts, the summary table, then the details."""
    result = load_result(path)
    run = result.get("run") if isinstance(result.get("run"), dict) else {}
    benchmark = _benchmark_of(path, result, names)
    command = _command(run)
    date = _date(run, result)
    facts = [
        f"- benchmark: `{benchmark}`",
        f"- command: `{command}`" if command else "- command: command not recorded",
        f"- date: {date}" if date else f"- date: {NOT_RECORDED}",
        f"- commit: {_commit(run)}",
        *_run_facts(run, result),
    ]
    table = _table(_flatten(result["summary"]))
    return "\n".join([f"### `{path.name}`", "", *facts, "", *table, *_details(result), ""])


def render_results(results_dir: Path, repo_root: Path | None = None) -> str:
    """Markdown for every ``*.json`` file of ``results_dir``, grouped by benchmark."""
    names = benchmark_names(repo_root) if repo_root is not None else []
    files = sorted(Path(results_dir).glob("*.json"))
    if not files:
        return f"No results files in `{Path(results_dir).name}/`.\n"
    groups: dict[str, list[Path]] = {}
    for path in files:
        groups.setdefault(_benchmark_of(path, load_result(path), names), []).append(path)
    overview = ["| results file | benchmark | date | command |", "|---|---|---|---|"]
    for benchmark, paths in sorted(groups.items()):
        for path in paths:
            result = load_result(path)
            run = result.get("run") if isinstance(result.get("run"), dict) else {}
            date = _date(run, result) or NOT_RECORDED
            command = _command(run)
            overview.append(
                f"| `{path.name}` | `{benchmark}` | {date} | "
                + (f"`{_cell(command)}`" if command else "command not recorded")
                + " |"
            )
    parts = ["\n".join(overview), ""]
    for benchmark, paths in sorted(groups.items()):
        parts.append(f"## `bayeswe bench {benchmark}`\n")
        parts.extend(render_file(path, names) for path in paths)
    return "\n".join(parts)


def mixing_variant(side: dict[str, Any], K: int) -> str:
    """The ``--variants`` spec of an alias-MH side at ``K`` topics, from the settings its
    records hold: ``2:W`` (scan by word), ``16:F`` (frozen tables), ``2:K`` (the paper's
    scan, tables rebuilt after K uses; ``2:50`` after 50), ``2:K:5`` (and at age 5), a
    trailing ``:D`` for the fresh document term."""
    steps = side.get("mh_steps")
    rebuild = side.get("rebuild_every")
    if side.get("scan") == "word" or rebuild == "word":
        spec = f"{steps}:W"
    elif rebuild == "frozen":
        spec = f"{steps}:F"
    else:
        spec = f"{steps}:{'K' if rebuild in (None, K) else rebuild}"
        if side.get("max_table_age") is not None:
            spec += f":{side['max_table_age']}"
    return spec + (":D" if side.get("fresh_doc") else "")


def _ratio_cells(summary: dict[str, Any], key: str, n_seeds: int | None) -> list[str]:
    """Median with the seeds where the ratio counts, min-max, pooled."""
    counted = summary.get(f"{key}_seeds")
    of = f" ({format_value(counted)}/{n_seeds})" if n_seeds is not None else ""
    low, high = summary.get(f"{key}_min"), summary.get(f"{key}_max")
    if low is None or high is None:
        spread = "–"
    elif format_value(low) == format_value(high):
        spread = format_value(low)  # one seed counted
    else:
        spread = f"{format_value(low)}–{format_value(high)}"
    return [format_value(summary.get(key)) + of, spread, format_value(summary.get(f"{key}_pooled"))]


def per_sweep_pooled(records: list[dict[str, Any]], name: str) -> float | None:
    """Log-joint effective draws per sweep, alias-MH's over cgs's, each pooled over the
    windows of the seeds where the file's ratio counts (``None`` if none)."""
    sums = {name: [0.0, 0.0], "cgs": [0.0, 0.0]}
    for record in records:
        if record.get(f"{name}_ess_per_cpu_s_ratio_vs_cgs") is None:
            continue
        for side, (ess, sweeps) in sums.items():
            sums[side] = [ess + record[side]["ess"], sweeps + record[side]["window_sweeps"]]
    (ess_a, sweeps_a), (ess_c, sweeps_c) = sums[name], sums["cgs"]
    if not (sweeps_a and sweeps_c and ess_c):
        return None
    return (ess_a / sweeps_a) / (ess_c / sweeps_c)


def _start(settings: dict[str, Any]) -> str:
    seconds = settings.get("shared_start_cpu_s") or 0
    if not seconds:
        return "k-means"
    method = settings.get("shared_start_method") or "cgs"
    text = f"{method}, {format_value(float(seconds))} s"
    # files before --shared-start-type-moves made the start with the windows' block moves
    moves = settings.get("shared_start_type_moves")
    if moves is not None and moves != (settings.get("type_moves") or 0):
        text += f", {format_value(moves)} block-move pass{'es' if moves != 1 else ''}"
    return text


def mixing_rows(results_dir: Path) -> dict[int, list[list[str]]]:
    """Every alias-MH side of every ``gaussian_lda_mixing*.json`` file, by K: one row of
    table cells each, in file order."""
    rows: dict[int, list[list[str]]] = {}
    for path in sorted(Path(results_dir).glob(f"{MIXING_PREFIX}*.json")):
        result = load_result(path)
        summary, settings = result["summary"], result.get("settings") or {}
        seeds = settings.get("seeds")
        n_seeds = len(seeds) if isinstance(seeds, list) else seeds
        budgets = settings.get("budgets_cpu_s") or {}
        moves = summary.get("type_moves", settings.get("type_moves"))
        sides: dict[tuple[int, str], dict[str, Any]] = {}
        records: dict[int, list[dict[str, Any]]] = {}
        for record in result.get("results") or []:
            records.setdefault(int(record["K"]), []).append(record)
            for name, value in record.items():
                if isinstance(value, dict) and "mh_steps" in value:
                    sides.setdefault((int(record["K"]), name), value)
        for (K, name), side in sorted(sides.items()):
            prefix = "" if name == "alias" else f"{name}_"
            burn_in, window = (budgets.get(str(K)) or [None, None])[:2]
            rows.setdefault(K, []).append(
                [
                    f"`{path.stem.removeprefix(MIXING_PREFIX + '_')}`",
                    _cell(str(summary.get("corpus", "–"))),
                    format_value(moves),
                    _start(settings),
                    f"{format_value(burn_in)} + {format_value(window)}",
                    f"`{mixing_variant(side, K)}`",
                    format_value(summary.get(f"{prefix}sweep_speed_ratio_k{K}")),
                    *_ratio_cells(summary, f"{name}_ess_per_cpu_s_ratio_vs_cgs_k{K}", n_seeds),
                    format_value(per_sweep_pooled(records[K], name)),
                    *_ratio_cells(
                        summary, f"{name}_heldout_ess_per_cpu_s_ratio_vs_cgs_k{K}", n_seeds
                    ),
                    format_value(summary.get(f"{prefix}level_gap_sd_k{K}")),
                ]
            )
    return rows


MIXING_HEADER = (
    "| run | corpus | block moves | shared start (CPU s) | burn-in + window (CPU s) "
    "| setting | sweeps per CPU-s ÷ cgs's | log joint: median (seeds counted) | min–max "
    "| pooled | pooled per sweep | held-out: median (seeds counted) | min–max | pooled "
    "| level gap (cgs sds) |"
)


def render_mixing(results_dir: Path) -> str:
    """One table per K of every gaussian-lda-mixing run (see :func:`mixing_rows`)."""
    rows = mixing_rows(results_dir)
    if not rows:
        return f"No `{MIXING_PREFIX}*.json` files in `{Path(results_dir).name}/`.\n"
    width = MIXING_HEADER.count("|") - 1
    parts = []
    for K in sorted(rows):
        parts += [f"**K = {K}**", "", MIXING_HEADER, "|" + "---|" * width]
        parts += ["| " + " | ".join(cells) + " |" for cells in rows[K]]
        parts.append("")
    return "\n".join(parts)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if PLACEHOLDER not in markdown and MIXING_PLACEHOLDER not in markdown:
        return markdown
    root = _repo_root(config)
    results = root / "benchmarks" / "results"
    try:
        if PLACEHOLDER in markdown:
            markdown = markdown.replace(PLACEHOLDER, render_results(results, root))
        if MIXING_PLACEHOLDER in markdown:
            markdown = markdown.replace(MIXING_PLACEHOLDER, render_mixing(results))
    except ResultsError as exc:
        from mkdocs.exceptions import PluginError

        raise PluginError(str(exc)) from exc
    return markdown
