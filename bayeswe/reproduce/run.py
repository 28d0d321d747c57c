"""Run a target's grid and write its results, table, figures and report."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bayeswe.atomic import write_json_atomic, write_text_atomic
from bayeswe.reproduce import get_target
from bayeswe.reproduce.grid import Cell, CellResult, GridError, finished_cells, run_grid

__all__ = ["DEFAULT_SEED", "finished_selection", "parse_only", "reproduce", "select_cells"]

#: The seed of every target unless told otherwise; each cell's seed derives from it.
DEFAULT_SEED = 20261125


def parse_only(items: Sequence[str]) -> dict[str, list[str]]:
    """``["K=5", "dataset=0,1"]`` -> ``{"K": ["5"], "dataset": ["0", "1"]}``."""
    out: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise GridError(f"--only takes KEY=VALUE[,VALUE...], got {item!r}")
        out.setdefault(key.strip(), []).extend(v.strip() for v in values.split(","))
    return out


def select_cells(cells: Sequence[Cell], only: Mapping[str, Sequence[str]] | None) -> list[Cell]:
    """The cells whose parameters match ``only`` (see :func:`reproduce`)."""
    if not only:
        return list(cells)
    known = set().union(*(c.params for c in cells)) if cells else set()
    unknown = sorted(set(only) - known)
    if unknown:
        raise GridError(f"no cell has parameter(s) {unknown}; they have {sorted(known)}")
    chosen = [
        c for c in cells if all(str(c.params.get(k)) in set(map(str, v)) for k, v in only.items())
    ]
    if not chosen:
        raise GridError(f"no cell matches {dict(only)}")
    return chosen


def finished_selection(cells: Sequence[Cell], directory: Path, seed: int) -> list[CellResult]:
    """The cells of the selection that earlier runs finished in ``directory`` (not empty)."""
    results = finished_cells(cells, out=directory, base_seed=seed)
    if not results:
        raise GridError(
            f"--finished-only: none of the {len(cells)} selected cells has finished in "
            f"{directory / 'cells'}"
        )
    return results


def reproduce(
    target: str,
    *,
    quick: bool = False,
    out: str | os.PathLike[str] = "reproductions",
    workers: int | None = None,
    scheduler: str | None = None,
    seed: int = DEFAULT_SEED,
    only: Mapping[str, Sequence[str]] | None = None,
    progress: bool | None = None,
    argv: Sequence[str] | None = None,
    finished_only: bool = False,
    verbose: bool = False,
) -> Path:
    """Run ``target``'s grid (finished cells are reused) and write ``out/target/``.

    Returns the directory. ``results.json`` holds every cell (parameters, seed, status,
    result or error, wall time) and the run's facts (command, commit, versions, CPU,
    load); ``table.csv``, the figures and ``REPORT.md`` come from the target's report.

    ``only`` restricts the grid to the cells whose parameter ``key`` is one of the given
    values (compared as text), e.g. ``{"K": ["5"], "dataset": ["0", "1"]}``: the rest
    are reported as not run. A key that no cell has is an error.

    ``verbose`` shows cmdstanpy's log of the workers (off by default).

    ``finished_only`` runs nothing: the report is made from the selected cells that
    earlier runs finished in ``out`` (an interrupted grid, or one run piecemeal with
    several ``only`` selections), and the rest are reported as not run.

    Raises
    ------
    GridError
        ``finished_only`` and no selected cell has finished in ``out``.
    """
    from bayeswe.bench import harness

    module = get_target(target)
    cells = select_cells(module.cells(quick), only)
    started = harness.start_run(argv if argv is not None else sys.argv[1:])
    directory = Path(out) / target
    results: list[CellResult]
    if finished_only:
        results = finished_selection(cells, directory, seed)
    else:
        results = run_grid(
            cells,
            module.run_cell,
            out=directory,
            base_seed=seed,
            workers=workers,
            scheduler=scheduler,
            progress=progress,
            computed_at={"commit": started.get("commit"), "dirty": started.get("dirty")},
            verbose=verbose,
        )
    facts = harness.finish_run(started)
    report = module.report(results, directory, quick=quick)
    summary = {
        "target": target,
        "title": module.TITLE,
        "paper": module.PAPER,
        "source": module.SOURCE,
        "quick": quick,
        "seed": seed,
        "only": {k: list(v) for k, v in (only or {}).items()},
        "finished_only": finished_only,
        "cells_selected": len(cells),
        "workers": workers,
        "scheduler": scheduler,
        "cells_done": sum(r.status == "done" for r in results),
        "cells_failed": sum(r.status == "failed" for r in results),
        "cells_reused": sum(r.cached for r in results),
        "cells_wall_s": round(sum(r.wall_s for r in results if math.isfinite(r.wall_s)), 3),
        "verdicts": report.get("verdicts", []),
        "run": facts,
        "cells": [r.to_dict() for r in results],
    }
    write_json_atomic(directory / "results.json", summary)
    header = [
        f"# {target}: {module.TITLE}",
        "",
        f"Paper: {module.PAPER}, {module.SOURCE}.",
        "",
        f"Regenerated by `{_command(target, quick, only, finished_only)}` "
        f"(seed {seed}) at commit {facts.get('commit') or 'unknown'}"
        f"{' (uncommitted changes)' if facts.get('dirty') else ''}; "
        f"CPU {facts.get('cpu_model') or 'unknown'} ({facts.get('cpus_available')} available), "
        f"load average {facts.get('load_average_start')} at the start and "
        f"{facts.get('load_average_end')} at the end; {facts.get('duration_s')} s. "
        f"Cells: {summary['cells_done']} done{_reused(summary)}, "
        f"{summary['cells_failed']} failed; their own wall time summed: "
        f"{summary['cells_wall_s']:,.0f} s.{_computed_elsewhere(results, facts.get('commit'))}",
        "",
    ]
    if finished_only:
        unfinished = len(cells) - len(results)
        rest = (
            f", and the other {unfinished:,} are reported as not run."
            if unfinished
            else ", and none is reported as not run."
        )
        header += [
            f"**Made from finished cells only** (`--finished-only`): {len(results):,} of the "
            f"{len(cells):,} selected cells had finished; this run computed none{rest}",
            "",
        ]
    if quick:
        header += ["**Quick run** (reduced grid, for tests): not the paper's sizes.", ""]
    header.append("")
    write_text_atomic(directory / "REPORT.md", "\n".join(header) + report["markdown"])
    return directory


def _command(
    target: str, quick: bool, only: Mapping[str, Sequence[str]] | None, finished_only: bool
) -> str:
    """The ``bayeswe reproduce`` command that selects what the report shows."""
    words = ["bayeswe", "reproduce", target]
    words += ["--quick"] if quick else []
    words += [f"--only {key}={','.join(map(str, values))}" for key, values in (only or {}).items()]
    words += ["--finished-only"] if finished_only else []
    return " ".join(words)


def _reused(summary: Mapping[str, Any]) -> str:
    """How many done cells an earlier run of the same grid finished (the cell cache)."""
    n = summary["cells_reused"]
    return f" ({n} of them finished by an earlier run and reused)" if n else ""


def _computed_elsewhere(results: Sequence[CellResult], commit: str | None) -> str:
    """Which code computed the reused cells, where it was not this run's commit."""
    counts: dict[str, int] = {}
    for r in results:
        if r.status != "done" or not r.cached:
            continue
        at = r.extra.get("computed_at") or {}
        if commit is not None and at.get("commit") == commit:
            continue
        if at.get("commit"):
            name = f"commit {at['commit'][:12]}"
        elif at.get("dirty"):
            name = "uncommitted code"
        else:  # cell files from before the commit was recorded, or outside git
            name = "an unrecorded commit"
        counts[name] = counts.get(name, 0) + 1
    if not counts:
        return ""
    parts = ", ".join(f"{n} by {name}" for name, n in sorted(counts.items()))
    return f" Reused cells computed by other code than this commit: {parts}."
