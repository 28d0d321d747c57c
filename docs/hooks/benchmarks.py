"""MkDocs hook: docs/benchmarks.md, generated from the results files.

``benchmarks/results/*.json`` holds the runs the page's headline cites;
``benchmarks/results/archive/*.json`` the exploratory runs (studies cite them), listed and
not rendered. ``benchmarks/headline.toml`` says which comparisons the headline shows, in
words; every number is read from the results files when the site is built.

The page holds the placeholder :data:`PLACEHOLDER`, which becomes:

- the headline table, one comparison a row (what against which peer, the ratio, the
  setting, the results file, the date);
- one short section per benchmark: its help line, its figure where it has one (drawn by
  :func:`draw_figures` at build time), its results files with their run facts, and each
  file's summary and command in a collapsed block;
- the list of archived runs.

Every results file is published beside the page (``benchmarks/results/NAME.json``).

A second placeholder, :data:`MIXING_PLACEHOLDER`, becomes one table per number of topics
that sets every archived ``gaussian-lda-mixing`` run side by side: each alias-MH setting of
each file in a row, with its run settings and headline ratios over cgs read from the
file's ``summary`` and ``settings``.

A third, :data:`HDP_PLACEHOLDER` (on the HDP-LDA page), becomes the table of
``benchmarks/results/hdp.json``: one row per corpus and setting, its per-seed records
averaged (:func:`hdp_rows`).

A fourth, :data:`IGLDA_PLACEHOLDER`, becomes the table of the infinite Gaussian LDA
study files ``benchmarks/studies/hdp_gaussian_lda_*.json`` (:func:`render_iglda_study`).

A fifth, :data:`CHAINS_PLACEHOLDER`, becomes the table of the HDP-LDA diagnosability
study files ``benchmarks/studies/hdp_chains*.json`` (``bayeswe bench hdp-chains``;
:func:`render_chains_study`).

A sixth, :data:`REFACTOR_PLACEHOLDER` (on the contributing page), becomes the table of the
sampler-speed study of the protocol refactor, ``benchmarks/studies/refactor_speed*.json``
(``benchmarks/studies/refactor_speed.py``; :func:`render_refactor_study`).

A seventh, :data:`STICK_PLACEHOLDER` (on the nonparametrics page), becomes the table of
the DP-mixture samplers compared on 80 points, ``benchmarks/studies/dp_stick_order*.json``
(``benchmarks/studies/dp_stick_order.py``; :func:`render_stick_order_study`).

An eighth, :data:`TWIN_PLACEHOLDER` (on the nonparametrics page), becomes the tables of
NUTS on the HDP-LDA Stan twin against the collapsed sampler,
``benchmarks/studies/hdp_twin_agreement*.json``
(``benchmarks/studies/hdp_twin_agreement.py``; :func:`render_twin_study`).

:data:`EXACT_PLACEHOLDER` becomes the table of the HDP-LDA samplers against enumerated
posteriors, ``benchmarks/studies/hdp_exactness*.json`` (:func:`render_exactness_study`),
and :data:`HELDOUT_PLACEHOLDER` the held-out table of longer ``bayeswe bench hdp`` runs
kept as studies, ``benchmarks/studies/hdp_reuters*.json`` (:func:`render_heldout_study`).
:data:`SPLIT_PLACEHOLDER` becomes the tables of HDP-LDA's split-merge moves against token
moves alone, ``benchmarks/studies/hdp_split_merge*.json``
(``benchmarks/studies/hdp_split_merge.py``; :func:`render_split_merge_study`).
:data:`DRIFT_PLACEHOLDER` becomes the table of NYT chains started between and beyond the
benchmark's starts, ``benchmarks/studies/hdp_nyt_drift*.json``
(``benchmarks/studies/hdp_nyt_drift.py``; :func:`render_drift_study`).

A results file that is not a JSON object with a ``summary``, a headline row whose file
or key is missing, or a cited file that is archived fails the build.
"""

from __future__ import annotations

import ast
import json
import math
import shlex
import statistics
import tempfile
import tomllib
from pathlib import Path
from typing import Any

PLACEHOLDER = "<!-- benchmark-results -->"
MIXING_PLACEHOLDER = "<!-- gaussian-lda-mixing-runs -->"
MIXING_PREFIX = "gaussian_lda_mixing"
HDP_PLACEHOLDER = "<!-- hdp-bench-results -->"
HDP_FILE = "hdp.json"
IGLDA_PLACEHOLDER = "<!-- hdp-gaussian-lda-lee-study -->"
STUDIES = Path("benchmarks") / "studies"
IGLDA_GLOB = "hdp_gaussian_lda_*.json"
#: The corpora of the infinite Gaussian LDA study, by the name its files record.
IGLDA_CORPORA = {"lee": "Lee", "newsgroups": "mini 20 Newsgroups"}
CHAINS_PLACEHOLDER = "<!-- hdp-chains-study -->"
CHAINS_GLOB = "hdp_chains*.json"
REFACTOR_PLACEHOLDER = "<!-- refactor-speed-study -->"
REFACTOR_GLOB = "refactor_speed*.json"
STICK_PLACEHOLDER = "<!-- dp-stick-order-study -->"
STICK_GLOB = "dp_stick_order*.json"
TWIN_PLACEHOLDER = "<!-- hdp-twin-study -->"
TWIN_GLOB = "hdp_twin_agreement*.json"
EXACT_PLACEHOLDER = "<!-- hdp-exactness-study -->"
EXACT_GLOB = "hdp_exactness*.json"
HELDOUT_PLACEHOLDER = "<!-- hdp-heldout-study -->"
HELDOUT_GLOB = "hdp_reuters*.json"
SPLIT_PLACEHOLDER = "<!-- hdp-split-merge-study -->"
SPLIT_GLOB = "hdp_split_merge*.json"
DRIFT_PLACEHOLDER = "<!-- hdp-nyt-drift-study -->"
DRIFT_GLOB = "hdp_nyt_drift*.json"
SPARSITY_PLACEHOLDER = "<!-- hdp-document-sparsity-study -->"
SPARSITY_GLOB = "hdp_document_sparsity*.json"
NOT_RECORDED = "not recorded"
RESULTS = Path("benchmarks") / "results"
ARCHIVE = RESULTS / "archive"
HEADLINE = Path("benchmarks") / "headline.toml"
#: Where the results files and figures are published in the site.
SITE_RESULTS = "benchmarks/results"
SITE_FIGURES = "benchmarks/figures"


class ResultsError(Exception):
    """A results file, or a headline row, that cannot be rendered."""


def _repo_root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def benchmark_names(repo_root: Path) -> dict[str, tuple[str, str]]:
    """``bayeswe.bench.BENCHMARKS`` (name -> module, help line), read without importing."""
    init = repo_root / "bayeswe" / "bench" / "__init__.py"
    if not init.is_file():
        return {}
    for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
        target = getattr(node, "target", None) or (getattr(node, "targets", None) or [None])[0]
        if isinstance(target, ast.Name) and target.id == "BENCHMARKS":
            value = ast.literal_eval(node.value)
            if isinstance(value, dict):
                return {k: tuple(v) for k, v in value.items()}
    return {}


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


def format_ratio(value: float) -> str:
    """A ratio to three significant figures, trailing zeros kept: 1.00, 9.30, 29.5, 796."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: str, rows: list[list[str]]) -> list[str]:
    """Markdown lines of a table: ``header`` (a ``| a | b |`` line), its rule, the rows."""
    width = header.count("|") - 1
    return [header, "|" + "---|" * width] + ["| " + " | ".join(map(_cell, r)) + " |" for r in rows]


def _study_table(repo_root: Path, glob: str, header: str, rows: Any) -> str:
    """One table of the rows (``rows(path)``) of every ``benchmarks/studies/<glob>``."""
    paths = sorted((Path(repo_root) / STUDIES).glob(glob))
    if not paths:
        return f"No `{glob}` in `{STUDIES}/`.\n"
    return "\n".join(_table(header, [r for path in paths for r in rows(path)])) + "\n"


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


def _run(result: dict[str, Any]) -> dict[str, Any]:
    return result.get("run") if isinstance(result.get("run"), dict) else {}


def _date(run: dict[str, Any], result: dict[str, Any]) -> str | None:
    for value in (run.get("date"), run.get("started_utc"), result.get("started")):
        if value:
            return str(value)
    return None


def _day(result: dict[str, Any]) -> str:
    date = _date(_run(result), result)
    return date[:10] if date else NOT_RECORDED


def _commit(run: dict[str, Any]) -> str:
    if run.get("commit"):
        return f"`{str(run['commit'])[:7]}`"
    if run.get("dirty"):
        return "uncommitted tree"
    return NOT_RECORDED


def _cpu(run: dict[str, Any], result: dict[str, Any]) -> str:
    cpu = run.get("cpu") or run.get("cpu_model")
    count = run.get("cpus_available") or run.get("cpu_count") or result.get("cpus")
    text = format_value(cpu) if cpu is not None else NOT_RECORDED
    return text + (f" ({count} cores)" if count else "")


def _load(run: dict[str, Any], result: dict[str, Any]) -> str:
    load = run.get("load_average_start") or result.get("load_average_at_start")
    if isinstance(run.get("load"), dict):
        load = load or run["load"].get("start")
    if isinstance(load, list | tuple) and load:
        return format_value(load[0])
    return format_value(load) if load is not None else NOT_RECORDED


# --------------------------------------------------------------------------- headline


def load_headline(path: Path) -> list[dict[str, Any]]:
    try:
        rows = tomllib.loads(path.read_text(encoding="utf-8")).get("comparison", [])
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ResultsError(f"{path}: {exc}") from exc
    for row in rows:
        missing = {"benchmark", "what", "peer", "measure", "file", "setting"} - set(row)
        if missing or ("key" in row) == ("numerator" in row):
            raise ResultsError(f"{path}: row {row} needs {sorted(missing) or 'key or numerator'}")
    return rows


def _summary_number(result: dict[str, Any], key: str, where: str) -> float:
    value = result["summary"].get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ResultsError(f"{where}: summary key {key!r} is not a number ({value!r})")
    return float(value)


def headline_ratio(row: dict[str, Any], result: dict[str, Any]) -> tuple[float, str]:
    """The row's ratio and its cell text (with the range over seeds where given)."""
    where = row["file"]
    if "key" in row:
        ratio = _summary_number(result, row["key"], where)
    else:
        den = _summary_number(result, row["denominator"], where)
        ratio = _summary_number(result, row["numerator"], where) / den
    text = f"**{format_ratio(ratio)}×**"
    if row.get("low") and row.get("high"):
        low = _summary_number(result, row["low"], where)
        high = _summary_number(result, row["high"], where)
        text += f" ({format_ratio(low)}–{format_ratio(high)})"
    return ratio, text


def headline_setting(row: dict[str, Any], result: dict[str, Any]) -> str:
    try:
        return row["setting"].format(**result)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ResultsError(f"{row['file']}: setting {row['setting']!r}: {exc!r}") from exc


def render_headline(rows: list[dict[str, Any]], results_dir: Path) -> str:
    lines = [
        "| bayeswe against its peer | measure | ratio | setting | results file |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        path = results_dir / row["file"]
        if not path.is_file():
            archived = results_dir / "archive" / row["file"]
            where = "is archived" if archived.is_file() else "does not exist"
            raise ResultsError(f"headline: {row['file']} {where} (cite files of {results_dir})")
        result = load_result(path)
        _, ratio = headline_ratio(row, result)
        stem = row["file"].removesuffix(".json")
        lines.append(
            f"| {row['what']} against {row['peer']} | {row['measure']} | {ratio} | "
            f"{_cell(headline_setting(row, result))} "
            f"| [{stem}](#{_anchor(row['file'])}), {_day(result)} |"
        )
    return "\n".join(lines)


def _anchor(name: str) -> str:
    return "file-" + name.removesuffix(".json").replace("_", "-")


# --------------------------------------------------------------------------- sections


def _summary_block(path: Path, result: dict[str, Any]) -> list[str]:
    run = _run(result)
    command = _command(run)
    rows = _flatten(result["summary"])
    out = ["", f'??? info "`{path.name}`: summary ({len(rows)} keys) and command"', ""]
    body = [
        f"Command: `{_cell(command)}`" if command else "Command not recorded.",
        "",
        f"[The whole file]({SITE_RESULTS}/{path.name}) holds the per-setting records.",
        "",
        "| summary key | value |",
        "|---|---|",
        *[f"| `{_cell(k)}` | {_cell(format_value(v))} |" for k, v in rows],
    ]
    if not rows:
        body.append("| (empty summary) | |")
    return out + ["    " + line if line else "" for line in body]


def render_section(
    name: str, help_line: str, paths: list[Path], figures: dict[str, list[str]]
) -> str:
    lines = [f"## `bayeswe bench {name}`", ""]
    if help_line:
        lines += [help_line.replace("%%", "%")[0].upper() + help_line.replace("%%", "%")[1:]]
        lines += [""]
    for figure in figures.get(name, []):
        lines += [f"![{name}]({SITE_FIGURES}/{figure})", ""]
    lines += ["| results file | date | commit | CPU | load at start |", "|---|---|---|---|---|"]
    for path in paths:
        result = load_result(path)
        run = _run(result)
        lines.append(
            f'| <span id="{_anchor(path.name)}"></span>[`{path.name}`]'
            f"({SITE_RESULTS}/{path.name}) | {_day(result)} | {_commit(run)} "
            f"| {_cell(_cpu(run, result))} | {_load(run, result)} |"
        )
    for path in paths:
        lines += _summary_block(path, load_result(path))
    return "\n".join(lines) + "\n"


def render_archive(archive_dir: Path, names: list[str]) -> str:
    files = sorted(Path(archive_dir).glob("*.json"))
    if not files:
        return ""
    lines = [
        "## Archived runs",
        "",
        f"{len(files)} exploratory runs are kept in `benchmarks/results/archive/`: the",
        "Studies pages and model pages cite them. They are listed here, not rendered.",
        "",
        f'??? note "The {len(files)} archived results files"',
        "",
        "    | results file | benchmark | date |",
        "    |---|---|---|",
    ]
    for path in files:
        result = load_result(path)
        lines.append(
            f"    | [`{path.name}`]({SITE_RESULTS}/archive/{path.name}) "
            f"| `{_benchmark_of(path, result, names)}` | {_day(result)} |"
        )
    return "\n".join(lines) + "\n"


def render_page(repo_root: Path, figures: dict[str, list[str]] | None = None) -> str:
    """The generated part of docs/benchmarks.md."""
    results_dir = repo_root / RESULTS
    registry = benchmark_names(repo_root)
    names = list(registry)
    rows = load_headline(repo_root / HEADLINE)
    files = sorted(results_dir.glob("*.json"))
    if not files:
        return f"No results files in `{RESULTS}/`.\n"
    groups: dict[str, list[Path]] = {}
    for path in files:
        groups.setdefault(_benchmark_of(path, load_result(path), names), []).append(path)
    parts = [render_headline(rows, results_dir), ""]
    cited = {row["file"] for row in rows}
    uncited = sorted(p.name for p in files if p.name not in cited)
    if uncited:
        raise ResultsError(
            f"{RESULTS}: {', '.join(uncited)} not cited by {HEADLINE}; "
            f"cite them or move them to {ARCHIVE}/"
        )
    order = list(dict.fromkeys([row["benchmark"] for row in rows] + sorted(groups)))
    for name in order:
        if name in groups:
            help_line = registry.get(name, ("", ""))[1]
            parts.append(render_section(name, help_line, groups[name], figures or {}))
    parts.append(render_archive(repo_root / ARCHIVE, names))
    return "\n".join(parts)


# --------------------------------------------------------------------------- figures


def _pg_gibbs_figure(results_dir: Path, out: Path) -> bool:
    """Bulk ESS per second of PG-Gibbs over NUTS against N, with the range over seeds."""
    points = []
    for path in sorted(results_dir.glob("pg_gibbs*.json")):
        s = load_result(path)["summary"]
        setting = s.get("ratio_setting") or {}
        if s.get("ess_per_s_ratio_vs_nuts") is None or "N" not in setting:
            continue
        points.append((setting["N"], s, setting))
    if len(points) < 2:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points.sort(key=lambda p: p[0])
    fig, ax = plt.subplots(figsize=(7, 3.2), dpi=110)
    for key, label, marker in (
        ("ess_per_s_ratio_vs_nuts", "exact Gibbs", "o"),
        ("ess_per_s_ratio_vs_nuts_overrelaxed", "overrelaxed Gibbs", "s"),
    ):
        xs, ys, lo, hi = [], [], [], []
        for n, s, _ in points:
            if s.get(key) is None:
                continue
            xs.append(n)
            ys.append(s[key])
            lo.append(s[key] - s.get(f"{key}_min", s[key]))
            hi.append(s.get(f"{key}_max", s[key]) - s[key])
        ax.errorbar(xs, ys, yerr=[lo, hi], marker=marker, capsize=3, label=label)
    ax.axhline(1, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    first = points[0][2]
    ax.set_xlabel(f"N (co-occurrences), K = {first.get('K')}, V = {first.get('V')}")
    ax.set_ylabel("bulk ESS/s ÷ NUTS's")
    ax.set_title("PG-Gibbs against NUTS: median and range over seeds", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return True


def _sgns_approx_figure(results_dir: Path, out: Path) -> bool:
    """90 % interval coverage of the co-occurrence probabilities against N, per method."""
    path = results_dir / "sgns_approx.json"
    if not path.is_file():
        return False
    result = load_result(path)
    s, sizes = result["summary"], (result.get("settings") or {}).get("sizes") or []
    methods = sorted(
        {k.split("_coverage90_co_n")[0] for k in s if "_coverage90_co_n" in k},
        key=lambda m: (m != "pg_gibbs", m),
    )
    if not sizes or not methods:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2), dpi=110, sharey=True)
    for ax, what, title in zip(
        axes, ("co", "cos"), ("co-occurrence probabilities", "cosine similarities"), strict=True
    ):
        for method in methods:
            ys = [s.get(f"{method}_coverage90_{what}_n{n}") for n in sizes]
            ax.plot(sizes, ys, marker="o", label=method.replace("_", "-"))
        ax.axhline(0.9, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_xlabel("N")
        ax.set_title(f"coverage of 90 % intervals: {title}", fontsize=9)
    axes[0].set_ylabel("share of true values inside")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return True


#: benchmark -> (figure file, drawing function)
FIGURES = {
    "pg-gibbs": ("pg_gibbs_vs_n.png", _pg_gibbs_figure),
    "sgns-approx": ("sgns_approx_coverage.png", _sgns_approx_figure),
}


def draw_figures(results_dir: Path, out_dir: Path) -> dict[str, list[str]]:
    """Draw every figure whose files are there; benchmark -> figure file names."""
    drawn: dict[str, list[str]] = {}
    for name, (filename, draw) in FIGURES.items():
        if draw(results_dir, out_dir / filename):
            drawn.setdefault(name, []).append(filename)
    return drawn


# --------------------------------------------------------------------------- mixing runs


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
    # a start made with block moves that the windows leave out says so
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
    parts = []
    for K in sorted(rows):
        parts += [f"**K = {K}**", "", *_table(MIXING_HEADER, rows[K]), ""]
    return "\n".join(parts)


# --------------------------------------------------------------------------- HDP-LDA


def _mean_sd(values: list[float], digits: int = 3) -> str:
    if not values:
        return "–"
    mean = sum(values) / len(values)
    if len(values) < 2:
        return f"{mean:.{digits}f}"
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def _mean_range(values: list[float]) -> str:
    if not values:
        return "–"
    mean = sum(values) / len(values)
    return f"{format_ratio(mean)} ({format_ratio(min(values))}–{format_ratio(max(values))})"


HDP_HEADER = (
    "| corpus | setting (α0, γ, start) | iterations × seeds | live topics: ours, tomotopy "
    "| tokens/s ÷ tomotopy's (min–max) | held-out: ours | tomotopy | gensim "
    "| ours − tomotopy | ours − gensim | gensim's time to its score ÷ ours (min–max) |"
)


def hdp_rows(path: Path) -> list[list[str]]:
    """One row of table cells per corpus and setting of a ``bayeswe bench hdp`` file:
    means over its seeds (held-out scores and differences ± their sd over seeds, nats
    per held-out token; ratios with their range), read from the per-seed records."""
    result = load_result(path)
    groups: dict[tuple[str, str], dict[str, dict[int, dict[str, Any]]]] = {}
    for r in result.get("results") or []:
        key = (str(r["corpus"]), str(r["setting"]))
        groups.setdefault(key, {}).setdefault(r["tool"], {})[int(r["seed"])] = r
    rows = []
    for (corpus, setting), tools in groups.items():
        ours, tomo, gens = (tools.get(t, {}) for t in ("bayeswe", "tomotopy", "gensim"))
        seeds = sorted(ours)
        first = ours[seeds[0]]
        live = [f"{sum(d[s]['live_topics'] for s in seeds) / len(seeds):.0f}" for d in (ours, tomo)]
        held = [[d[s]["heldout"] for s in seeds if s in d] for d in (ours, tomo, gens)]
        reach = [
            gens[s]["seconds"] / gens[s]["bayeswe_seconds_to_this_heldout"]
            for s in seeds
            if s in gens and gens[s].get("bayeswe_seconds_to_this_heldout")
        ]
        rows.append(
            [
                corpus,
                f"`{setting}` ({format_value(first['alpha0'])}, "
                f"{format_value(first['gamma'])}, {first['initial_topics']})",
                f"{first['iterations']} × {len(seeds)}",
                ", ".join(live),
                _mean_range([ours[s]["rate"] / tomo[s]["rate"] for s in seeds]),
                *(_mean_sd(h) for h in held),
                _mean_sd([ours[s]["heldout"] - tomo[s]["heldout"] for s in seeds]),
                _mean_sd([ours[s]["heldout"] - gens[s]["heldout"] for s in seeds if s in gens]),
                _mean_range(reach) + (f" ({len(reach)}/{len(gens)} seeds)" if gens else ""),
            ]
        )
    return rows


def render_hdp(results_dir: Path) -> str:
    """The table of ``benchmarks/results/hdp.json`` (see :func:`hdp_rows`)."""
    path = Path(results_dir) / HDP_FILE
    if not path.is_file():
        return f"No `{HDP_FILE}` in `{Path(results_dir).name}/`.\n"
    lines = _table(HDP_HEADER, hdp_rows(path))
    result = load_result(path)
    lines += ["", f"From [`{HDP_FILE}`](benchmarks.md#{_anchor(HDP_FILE)}), {_day(result)}."]
    return "\n".join(lines) + "\n"


def _last(values: list[Any]) -> Any:
    return values[-1] if values else None


def iglda_rows(path: Path) -> list[list[str]]:
    """Rows of one infinite Gaussian LDA study file: each HDP chain, then finite Gaussian
    LDA and word LDA at the HDP's median number of topics (last recorded sweep; held-out
    log density per token averaged over the kept sweeps). The Gaussian models' cells
    name the topics' prior degrees of freedom."""
    study = json.loads(path.read_text(encoding="utf-8"))
    nu = f"ν = {study['prior']['nu']:g}"
    moves = study["prior"].get("split_merge_per_sweep", 0)
    corpus = IGLDA_CORPORA[study.get("corpus", {}).get("name", "lee")]
    with_moves = f", {moves} split-merge proposals per sweep" if moves else ""
    rows = []
    for chain in study["hdp"]["chains"]:
        rows.append(
            [
                corpus,
                f"infinite Gaussian LDA, {nu}",
                f"{chain['initial_topics']} topic"
                + ("" if chain["initial_topics"] == 1 else "s")
                + with_moves,
                str(_last(chain["sweep"])),
                str(_last(chain["n_topics"])),
                f"{_last(chain['lp']):,.0f}",
                f"{chain['heldout_mean_kept']:.1f}",
                f"{chain['npmi']['mean']:.2f}",
                f"{chain['cpu_s']:.0f}",
                f"`{path.name}`",
            ]
        )
    glda, lda = study["gaussian_lda"], study["lda"]
    rows.append(
        [
            corpus,
            f"Gaussian LDA, K = {glda['K']}, {nu}",
            "the sampler's default",
            str(_last(glda["sweep"])),
            str(glda["K"]),
            f"{_last(glda['lp']):,.0f}",
            f"{glda['heldout_mean_kept']:.1f}",
            f"{glda['npmi']['mean']:.2f}",
            f"{glda['cpu_s']:.0f}",
            f"`{path.name}`",
        ]
    )
    rows.append(
        [corpus, f"word LDA, K = {lda['K']}", "the sampler's default", "-", str(lda["K"]), "-", "-",
         f"{lda['npmi']['mean']:.2f}", "-", f"`{path.name}`"]
    )  # fmt: skip
    return rows


IGLDA_HEADER = (
    "| corpus | model | start | sweeps | topics at the end | `lp` at the end "
    "| held-out log density per token | NPMI of the 10 top words | CPU s | file |"
)


def render_iglda_study(repo_root: Path) -> str:
    """The table of every ``benchmarks/studies/hdp_gaussian_lda_*.json``."""
    return _study_table(repo_root, IGLDA_GLOB, IGLDA_HEADER, iglda_rows)


CHAINS_HEADER = (
    "| sampler | corpus | starts (topics) | warm-up + kept | R-hat of the live topics "
    "| least bulk ESS (scalar) | live topics by chain | log joint per token by chain "
    "| wall s | diagnosable | file |"
)
#: Each side's log joint, compared across its own chains only: ours ``lp`` (the collapsed
#: log joint, divided here by the training tokens), tomotopy's ``ll_per_word``.
_LOG_JOINT = {"bayeswe": "lp", "tomotopy": "ll_per_word"}


def chains_rows(path: Path) -> list[list[str]]:
    """One row per side of a ``bench hdp-chains`` file; the corpus cell names fixed
    concentrations, our sampler's cell its split-merge proposals (files without these
    keys: resampled, none)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    corpus = data["summary"]["corpus"]
    if data.get("concentrations") == "fixed":
        corpus += f", α0 = {data['alpha0']:g} and γ = {data['gamma']:g} fixed"
    rows = []
    for side, prefix in (("bayeswe", ""), ("tomotopy", "peer_")):
        d = data[side]
        # files written before the per-chain means were kept show a dash
        log_joint = d.get("mean_by_chain", {}).get(_LOG_JOINT[side])
        if log_joint is None:
            log_joint_cell = "–"
        else:
            per = data["train_tokens"] if side == "bayeswe" else 1
            log_joint_cell = ", ".join(f"{x / per:.3f}" for x in log_joint)
        worst = min(d["ess_bulk"], key=d["ess_bulk"].get)
        # tomotopy's own iterations when the run gave it fewer (--peer-warmup/--peer-draws)
        warmup = data.get(f"{prefix}warmup", data["warmup"])
        draws = data.get(f"{prefix}draws", data["draws"])
        sampler = side
        if d.get("split_merge"):
            sampler += (f", {d['split_merge']} split-merge proposals per sweep "
                        f"({d['split_merge_accepted']} accepted)")  # fmt: skip
        rows.append([
            sampler, corpus, ", ".join(map(str, data["starts"][side])),
            f"{warmup} + {draws}", f"{d['rhat_n_topics']:.3f}",
            f"{d['ess_bulk_min']:.0f} (`{worst}`)",
            ", ".join(f"{x:g}" for x in d["live_topics_by_chain"]), log_joint_cell,
            f"{d['wall_s']:.0f}",
            "yes" if d["diagnosable"] else "no", f"`{path.name}`",
        ])  # fmt: skip
    return rows


def render_chains_study(repo_root: Path) -> str:
    """The table of every ``benchmarks/studies/hdp_chains*.json``."""
    return _study_table(repo_root, CHAINS_GLOB, CHAINS_HEADER, chains_rows)


REFACTOR_HEADER = (
    "| benchmark | sampler, setting | before (median pair) | after (median pair) "
    "| after / before (median) | range over repeats | within 3 % | file |"
)

#: Row labels of the refactor study's metrics: name -> (benchmark, sampler and setting).
_REFACTOR_LABELS = {
    "pg_gibbs": ("pg-gibbs-profile", "PG-Gibbs, sweeps per s"),
    "glda_cholesky": ("gaussian-lda", "cgs (Cholesky), tokens per s"),
    "glda_alias_document": ("gaussian-lda", "alias-MH document scan, tokens per s"),
    "glda_alias_fresh_doc": ("gaussian-lda", "alias-MH fresh-document scan, tokens per s"),
    "glda_alias": ("gaussian-lda", "alias-MH word scan, tokens per s"),
    "lda_sparse": ("lda", "cgs sparse, tokens per s"),
    "lda_dense": ("lda", "cgs dense, tokens per s"),
}


def _refactor_label(metric: str) -> tuple[str, str]:
    """``(benchmark, sampler and setting)`` of a metric such as ``glda_alias_k20_tokens_per_s``."""
    stem = metric.removesuffix("_tokens_per_s").removesuffix("_sweeps_per_s")
    base, _, k = stem.rpartition("_k")
    if not base or not k.isdigit():
        base, k = stem, ""
    bench, label = _REFACTOR_LABELS.get(base, ("?", metric))
    return bench, label + (f", K = {k}" if k else "")


def refactor_rows(path: Path) -> list[list[str]]:
    """One row per metric of a refactor-speed study file: the two speeds of the median
    pair (the repeat whose ratio is the lower median of the paired ratios, so the three
    numbers agree; each side's own median would mix repeats of different machine load),
    the median ratio and the range of the ratios over the repeats."""
    study = json.loads(path.read_text(encoding="utf-8"))
    summary, tolerance = study["summary"], study["summary"]["tolerance"]
    pairs: dict[str, dict[int, dict[str, float]]] = {}
    for run in study["runs"]:
        for metric, value in run["speeds"].items():
            pairs.setdefault(metric, {}).setdefault(run["repeat"], {})[run["side"]] = value
    rows = []
    for metric, ratio in summary["speed_ratio_new_over_old"].items():
        bench, label = _refactor_label(metric)
        by_ratio = sorted(pairs[metric].values(), key=lambda p: p["new"] / p["old"])
        middle = by_ratio[(len(by_ratio) - 1) // 2]
        rows.append([
            f"`{bench}`", label, f"{middle['old']:,.4g}", f"{middle['new']:,.4g}",
            f"{ratio:.3f}",
            f"{summary['speed_ratio_min'][metric]:.3f}–{summary['speed_ratio_max'][metric]:.3f}",
            "yes" if ratio >= tolerance else "**no**", f"`{path.name}`",
        ])  # fmt: skip
    return rows


def render_refactor_study(repo_root: Path) -> str:
    """The table of every ``benchmarks/studies/refactor_speed*.json``."""
    return _study_table(repo_root, REFACTOR_GLOB, REFACTOR_HEADER, refactor_rows)


_STICK_SAMPLERS = {
    "collapsed_gibbs": "collapsed Gibbs (`cgs`)",
    "blocked_gibbs": "blocked Gibbs, truncated",
    "blocked_gibbs_swaps": "blocked Gibbs, truncated, with label swaps",
    "nuts": "NUTS (`dp_mixture.stan`)",
}


def _estimate(pair: list[float], digits: int) -> str:
    return f"{pair[0]:.{digits}f} ± {pair[1]:.{digits}f}"


def stick_order_header(path: Path) -> str:
    """The header of a stick-order study file's table: one column per held-out point."""
    study = json.loads(path.read_text(encoding="utf-8"))
    sizes = [n for n in study["settings"]["cluster_sizes"] if n]
    points = [f"centre of the {n}" for n in sizes]
    points += [f"beside the {min(sizes)}", "between the clusters"]
    return (
        "| sampler | occupied clusters | alpha | "
        + " | ".join(f"log density, {p}" for p in points)
        + " | largest abs z against collapsed Gibbs | wall s | file |"
    )


def stick_order_rows(path: Path) -> list[list[str]]:
    """One row per sampler of a stick-order study file: posterior means ± MCSE, the
    largest ``|z|`` against the collapsed sampler over every estimate, wall time."""
    study = json.loads(path.read_text(encoding="utf-8"))
    z_against = {}
    for pair, z in study["summary"]["max_abs_z"].items():
        one, other = pair.split("-")
        if "collapsed_gibbs" in (one, other):
            z_against[other if one == "collapsed_gibbs" else one] = z
    rows = []
    for name, run in study["samplers"].items():
        rows.append([
            _STICK_SAMPLERS.get(name, name), _estimate(run["n_occupied"], 3),
            _estimate(run["alpha"], 3), *(_estimate(lpd, 4) for lpd in run["lpd"]),
            f"{z_against[name]:.1f}" if name in z_against else "-", f"{run['wall_s']:.0f}",
            f"`{path.name}`",
        ])  # fmt: skip
    return rows


def render_stick_order_study(repo_root: Path) -> str:
    """The table of every ``benchmarks/studies/dp_stick_order*.json``."""
    paths = sorted((Path(repo_root) / STUDIES).glob(STICK_GLOB))
    if not paths:
        return f"No `{STICK_GLOB}` in `{STUDIES}/`.\n"
    return (
        "\n\n".join(
            "\n".join(_table(stick_order_header(path), stick_order_rows(path))) for path in paths
        )
        + "\n"
    )


_TWIN_RUNS = {
    "nuts": "NUTS, Stan's random starts",
    "nuts_ordered_start": "NUTS, started from collapsed Gibbs, topics ordered",
}
TWIN_HEADER = (
    "| quantity | collapsed Gibbs (`cgs`) | "
    + " | ".join(f"{label} | z" for label in _TWIN_RUNS.values())
    + " |"
)
TWIN_RUN_HEADER = (
    "| run | wall s | divergences | trees at depth 10 | mean leftover | "
    "R-hat of occupied topics | bulk ESS of occupied topics | largest topic's stick, by chain "
    "| file |"
)


def _twin_mean(stat: dict[str, float], digits: int) -> str:
    return f"{stat['mean']:.{digits}f} ± {stat['mcse']:.{digits}f}"


def _twin_label(name: str) -> str:
    """``n_occupied`` and ``beta_(j)`` in words; ``p(w | d)`` as it is."""
    if name == "n_occupied":
        return "occupied topics"
    if name.startswith("beta_("):
        j = int(name[len("beta_(") : -1])
        return f"top-level weight, {j}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(j, 'th') } largest"
    return name


def twin_rows(path: Path) -> list[list[str]]:
    """One row per label-free quantity of a twin-agreement study file: the collapsed
    sampler's mean ± MCSE, and each NUTS run's with its ``z`` against it."""
    study = json.loads(path.read_text(encoding="utf-8"))
    runs, z = study["samplers"], study["summary"]["z_vs_cgs"]
    rows = []
    for name, ref in runs["collapsed_gibbs"]["statistics"].items():
        digits = 2 if name == "n_occupied" else 5 if ref["mean"] < 0.01 else 4
        row = [_twin_label(name), _twin_mean(ref, digits)]
        for run in _TWIN_RUNS:
            row += [_twin_mean(runs[run]["statistics"][name], digits), f"{z[run][name]:+.1f}"]
        rows.append(row)
    return rows


def twin_run_rows(path: Path) -> list[list[str]]:
    """One row per NUTS run of a twin-agreement study file: its cost and diagnostics."""
    study = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for name, label in _TWIN_RUNS.items():
        run = study["samplers"][name]
        occupied = run["statistics"]["n_occupied"]
        sticks = [int(max(range(len(c)), key=c.__getitem__)) + 1 for c in
                  run["largest_topic_stick_by_chain"]]  # fmt: skip
        rows.append([
            label, f"{run['wall_s']:.0f}", str(run["divergences"]),
            f"{100 * run['max_depth_share']:.0f} %", f"{run['leftover_mean']:.1e}",
            f"{occupied['rhat']:.2f}", f"{occupied['ess_bulk']:.0f}",
            ", ".join(map(str, sticks)), f"`{path.name}`",
        ])  # fmt: skip
    return rows


def render_twin_study(repo_root: Path) -> str:
    """The two tables of every ``benchmarks/studies/hdp_twin_agreement*.json``."""
    paths = sorted((Path(repo_root) / STUDIES).glob(TWIN_GLOB))
    if not paths:
        return f"No `{TWIN_GLOB}` in `{STUDIES}/`.\n"
    tables = []
    for path in paths:
        commit = json.loads(path.read_text(encoding="utf-8"))["run"].get("commit") or "?"
        tables.append(f"`{path.name}` (commit `{commit[:12]}`):")
        tables.append("\n".join(_table(TWIN_HEADER, twin_rows(path))))
        tables.append("\n".join(_table(TWIN_RUN_HEADER, twin_run_rows(path))))
    return "\n\n".join(tables) + "\n"


EXACT_HEADER = (
    "| corpus | exact mean number of topics | bayeswe `cgs` | z | tomotopy `HDPModel` | z | file |"
)


def exactness_rows(path: Path) -> list[list[str]]:
    """One row per enumerated corpus: the exact mean and each sampler's mean ± MCSE, z."""
    study = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for name, case in study["cases"].items():
        row = [name, f"{case['exact_mean_topics']:.4f}"]
        for tool in ("bayeswe", "tomotopy"):
            row += [_twin_mean(case[tool], 4), f"{case[tool]['z']:+.1f}"]
        rows.append([*row, f"`{path.name}`"])
    return rows


def render_exactness_study(repo_root: Path) -> str:
    """The table of every ``benchmarks/studies/hdp_exactness*.json``."""
    return _study_table(repo_root, EXACT_GLOB, EXACT_HEADER, exactness_rows)


HELDOUT_HEADER = (
    "| corpus | repeated documents | setting | iterations | seeds | bayeswe held-out "
    "| tomotopy held-out | difference | live topics, bayeswe / tomotopy | file |"
)


def heldout_rows(path: Path) -> list[list[str]]:
    """One row per (corpus, setting) of a ``bench hdp`` results file: whether documents
    repeating an earlier one were dropped (files without ``repeat_cosine`` kept them), each
    Gibbs sampler's held-out score (mean ± sd over seeds), the paired difference, the
    live topics."""
    study = json.loads(path.read_text(encoding="utf-8"))

    def repeats(corpus: str) -> str:
        if study.get("repeat_cosine") is None:
            return "kept"
        dropped = study["summary"]["by_corpus"][corpus]["repeated_docs_dropped"]
        return f"{dropped} dropped (cosine ≥ {study['repeat_cosine']:g})"

    groups: dict[tuple[str, str], dict[str, dict[int, dict[str, Any]]]] = {}
    for row in study["results"]:
        if row["tool"] in ("bayeswe", "tomotopy") and row.get("heldout") is not None:
            key = (row["corpus"], row["setting"])
            groups.setdefault(key, {}).setdefault(row["tool"], {})[row["seed"]] = row

    def spread(values: list[float]) -> str:
        sd = statistics.stdev(values) if len(values) > 1 else float("nan")
        return f"{sum(values) / len(values):.3f} ± {sd:.3f}"

    rows = []
    for (corpus, setting), tools in groups.items():
        ours, theirs = tools.get("bayeswe", {}), tools.get("tomotopy", {})
        seeds = sorted(set(ours) & set(theirs))
        if not seeds:
            continue
        live = [sum(t[s]["live_topics"] for s in seeds) / len(seeds) for t in (ours, theirs)]
        rows.append([
            corpus, repeats(corpus), f"`{setting}`", str(ours[seeds[0]]["iterations"]),
            str(len(seeds)),
            spread([ours[s]["heldout"] for s in seeds]),
            spread([theirs[s]["heldout"] for s in seeds]),
            spread([ours[s]["heldout"] - theirs[s]["heldout"] for s in seeds]),
            f"{live[0]:.0f} / {live[1]:.0f}", f"`{path.name}`",
        ])  # fmt: skip
    return rows


def render_heldout_study(repo_root: Path) -> str:
    """The held-out table of ``benchmarks/results/hdp.json`` (the benchmark's run) and of
    every ``benchmarks/studies/hdp_reuters*.json`` (longer runs), one row per setting."""
    root = Path(repo_root)
    paths = [p for p in [root / RESULTS / HDP_FILE] if p.exists()]
    paths += sorted((root / STUDIES).glob(HELDOUT_GLOB))
    if not paths:
        return f"No `{HDP_FILE}` in `{RESULTS}/` and no `{HELDOUT_GLOB}` in `{STUDIES}/`.\n"
    return "\n".join(_table(HELDOUT_HEADER, [r for p in paths for r in heldout_rows(p)])) + "\n"


SPLIT_SIM_HEADER = (
    "| proposals per sweep | launch scans | seeds | accepted per proposal "
    "| R-hat of `n_topics`, worst seed | bulk ESS of `n_topics` | bulk ESS of `lp` "
    "| ESS/s of `n_topics` | ESS/s of `lp` | sweep seconds | file |"
)
SPLIT_NYT_HEADER = (
    "| start (topics) | launch scans | proposals | splits accepted | merges accepted "
    "| topics every 50 sweeps | token moves, s per sweep | split-merge, s per sweep | file |"
)


def split_merge_sim_rows(path: Path) -> list[list[str]]:
    """One row per arm (proposals per sweep and restricted scans of each launch, from
    keys ``split_merge_P`` and ``split_merge_P_scans_T``): over the seeds, the mean
    acceptance, the worst R-hat of ``n_topics``, and mean ± sd of bulk ESS, ESS per
    second and sweep time."""
    study = json.loads(path.read_text(encoding="utf-8"))

    def spread(values: list[float], digits: int) -> str:
        sd = statistics.stdev(values) if len(values) > 1 else float("nan")
        return f"{statistics.fmean(values):.{digits}f} ± {sd:.{digits}f}"

    rows = []
    for key, seeds in study["sim"].items():
        accepted = [r["accepted_per_proposal"] for r in seeds]
        proposals, _, scans = key.removeprefix("split_merge_").partition("_scans_")
        rows.append([
            proposals, scans or "0", str(len(seeds)),
            "–" if None in accepted else f"{statistics.fmean(accepted):.4f}",
            f"{max(r['rhat']['n_topics'] for r in seeds):.3f}",
            spread([r["ess_bulk"]["n_topics"] for r in seeds], 0),
            spread([r["ess_bulk"]["lp"] for r in seeds], 0),
            spread([r["ess_per_s"]["n_topics"] for r in seeds], 1),
            spread([r["ess_per_s"]["lp"] for r in seeds], 1),
            spread([r["sweep_s"] for r in seeds], 1), f"`{path.name}`",
        ])  # fmt: skip
    return rows


def split_merge_nyt_rows(path: Path) -> list[list[str]]:
    """One row per NYT chain: proposals, moves accepted, topics, seconds per sweep."""
    study = json.loads(path.read_text(encoding="utf-8"))
    return [
        [
            str(c["initial_topics"]),
            str(c.get("scans", 0)),
            f"{c['proposals']:,}",
            str(c["splits_accepted"]),
            str(c["merges_accepted"]),
            ", ".join(map(str, c["n_topics_every_50"])),
            f"{c['token_sweep_s_per_sweep']:.3f}",
            f"{c['moves_s_per_sweep']:.3f}",
            f"`{path.name}`",
        ]
        for c in study.get("nyt", {}).get("chains", [])
    ]


def render_split_merge_study(repo_root: Path) -> str:
    """The simulated-corpus table and the NYT table of every
    ``benchmarks/studies/hdp_split_merge*.json``."""
    paths = sorted((Path(repo_root) / STUDIES).glob(SPLIT_GLOB))
    if not paths:
        return f"No `{SPLIT_GLOB}` in `{STUDIES}/`.\n"
    sim = [r for p in paths for r in split_merge_sim_rows(p)]
    nyt = [r for p in paths for r in split_merge_nyt_rows(p)]
    tables = ["\n".join(_table(SPLIT_SIM_HEADER, sim))]
    if nyt:
        tables.append("On NYT:\n\n" + "\n".join(_table(SPLIT_NYT_HEADER, nyt)))
    return "\n\n".join(tables) + "\n"


DRIFT_HEADER = (
    "| start (topics) | live topics, every draw | log joint per token, first and last draw "
    "| sweeps | α0, γ (fixed) | file |"
)


def drift_rows(path: Path) -> list[list[str]]:
    """One row per chain of a ``hdp_nyt_drift`` file: its topics at each draw, and its
    log joint per training token at the first and last draw."""
    study = json.loads(path.read_text(encoding="utf-8"))
    return [
        [
            str(c["initial_topics"]),
            ", ".join(map(str, c["n_topics"])),
            f"{c['lp_per_token'][0]:.3f} → {c['lp_per_token'][-1]:.3f}",
            f"{study['sweeps']:,} (a draw every {study['every']})",
            f"{study['alpha0']:g}, {study['gamma']:g}",
            f"`{path.name}`",
        ]
        for c in study["chains"]
    ]


SPARSITY_HEADER = (
    "| setting | sampler | α0, γ | live topics | topics per document "
    "| log p(w ∣ z) per token | held-out, one state | held-out, last state: near duplicates "
    "/ the rest | seeds | file |"
)


def sparsity_rows(path: Path) -> list[list[str]]:
    """One row per arm of a ``hdp_document_sparsity`` file: over its seeds, mean ± sd of
    each record's figures at the first and the last recorded iteration, and of the last
    state's held-out score on the documents with a near duplicate and on the rest."""
    study = json.loads(path.read_text(encoding="utf-8"))

    def spread(arm: dict, key: str, at: int, digits: int) -> str:
        return _mean_sd([c["records"][at][key] for c in arm["chains"]], digits)

    rows = []
    for arm in study["arms"]:
        cells = [
            f"{spread(arm, key, 0, d)} → {spread(arm, key, -1, d)}"
            for key, d in (
                ("live_topics", 0), ("topics_per_document", 1),
                ("word_term_per_token", 3), ("heldout", 3),
            )
        ]  # fmt: skip
        split = " / ".join(
            _mean_sd([c["last"][key] for c in arm["chains"]])
            for key in ("heldout_near_duplicates", "heldout_rest")
        )
        rows.append([
            f"`{arm['setting']}`", arm["tool"], f"{arm['alpha0']:g}, {arm['gamma']:g}", *cells,
            split, str(len(arm["chains"])), f"`{path.name}`",
        ])  # fmt: skip
    return rows


def render_sparsity_study(repo_root: Path) -> str:
    """The table of every ``benchmarks/studies/hdp_document_sparsity*.json``."""
    return _study_table(repo_root, SPARSITY_GLOB, SPARSITY_HEADER, sparsity_rows)


def render_drift_study(repo_root: Path) -> str:
    """The chains of every ``benchmarks/studies/hdp_nyt_drift*.json``."""
    return _study_table(repo_root, DRIFT_GLOB, DRIFT_HEADER, drift_rows)


# --------------------------------------------------------------------------- MkDocs events

_FIGURE_DIR: dict[str, Any] = {}


def on_files(files: Any, config: Any) -> Any:
    """Publish every results file and the figures drawn from them."""
    from mkdocs.structure.files import File

    root = _repo_root(config)
    for directory, uri in ((root / RESULTS, SITE_RESULTS), (root / ARCHIVE, SITE_RESULTS)):
        prefix = uri if directory == root / RESULTS else f"{uri}/archive"
        for path in sorted(directory.glob("*.json")):
            files.append(File.generated(config, f"{prefix}/{path.name}", abs_src_path=str(path)))
    tmp = tempfile.TemporaryDirectory(prefix="bayeswe-figures-")
    _FIGURE_DIR["tmp"] = tmp  # kept until the next build replaces it
    try:
        drawn = draw_figures(root / RESULTS, Path(tmp.name))
    except ResultsError as exc:
        from mkdocs.exceptions import PluginError

        raise PluginError(str(exc)) from exc
    _FIGURE_DIR["drawn"] = drawn
    for names in drawn.values():
        for name in names:
            path = Path(tmp.name) / name
            files.append(File.generated(config, f"{SITE_FIGURES}/{name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    placeholders = (
        PLACEHOLDER, MIXING_PLACEHOLDER, HDP_PLACEHOLDER, IGLDA_PLACEHOLDER, CHAINS_PLACEHOLDER,
        REFACTOR_PLACEHOLDER, STICK_PLACEHOLDER, TWIN_PLACEHOLDER, EXACT_PLACEHOLDER,
        HELDOUT_PLACEHOLDER, SPLIT_PLACEHOLDER, DRIFT_PLACEHOLDER, SPARSITY_PLACEHOLDER,
    )  # fmt: skip
    if not any(p in markdown for p in placeholders):
        return markdown
    root = _repo_root(config)
    try:
        if PLACEHOLDER in markdown:
            page_text = render_page(root, _FIGURE_DIR.get("drawn", {}))
            markdown = markdown.replace(PLACEHOLDER, page_text)
        if MIXING_PLACEHOLDER in markdown:
            markdown = markdown.replace(MIXING_PLACEHOLDER, render_mixing(root / ARCHIVE))
        if HDP_PLACEHOLDER in markdown:
            markdown = markdown.replace(HDP_PLACEHOLDER, render_hdp(root / RESULTS))
        if IGLDA_PLACEHOLDER in markdown:
            markdown = markdown.replace(IGLDA_PLACEHOLDER, render_iglda_study(root))
        if CHAINS_PLACEHOLDER in markdown:
            markdown = markdown.replace(CHAINS_PLACEHOLDER, render_chains_study(root))
        if REFACTOR_PLACEHOLDER in markdown:
            markdown = markdown.replace(REFACTOR_PLACEHOLDER, render_refactor_study(root))
        if STICK_PLACEHOLDER in markdown:
            markdown = markdown.replace(STICK_PLACEHOLDER, render_stick_order_study(root))
        if TWIN_PLACEHOLDER in markdown:
            markdown = markdown.replace(TWIN_PLACEHOLDER, render_twin_study(root))
        if EXACT_PLACEHOLDER in markdown:
            markdown = markdown.replace(EXACT_PLACEHOLDER, render_exactness_study(root))
        if HELDOUT_PLACEHOLDER in markdown:
            markdown = markdown.replace(HELDOUT_PLACEHOLDER, render_heldout_study(root))
        if SPLIT_PLACEHOLDER in markdown:
            markdown = markdown.replace(SPLIT_PLACEHOLDER, render_split_merge_study(root))
        if DRIFT_PLACEHOLDER in markdown:
            markdown = markdown.replace(DRIFT_PLACEHOLDER, render_drift_study(root))
        if SPARSITY_PLACEHOLDER in markdown:
            markdown = markdown.replace(SPARSITY_PLACEHOLDER, render_sparsity_study(root))
    except ResultsError as exc:
        from mkdocs.exceptions import PluginError

        raise PluginError(str(exc)) from exc
    return markdown
