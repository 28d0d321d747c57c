"""Experiment grids on Dask: cells cached on disk by a hash of their inputs.

A *cell* is one independent unit of an experiment (dataset x method x setting x seed),
given by a target name and JSON-able parameters. :func:`run_grid` runs the cells of a
grid through ``dask.distributed``: a :class:`~distributed.LocalCluster` of ``workers``
processes with one thread each (BLAS, OpenMP, Numba and Stan threads pinned to 1 so
that cells do not fight over cores), or an existing cluster at ``scheduler``.

* Each finished cell is written at once to ``<out>/cells/<key>.json`` (atomically), so
  an interrupted run loses only the cells that were running; the next run reads the
  finished ones back and redoes only the rest. Failed cells are recorded with their
  error and retried by the next run; the others go on.
* A cell's seed is derived from the target's seed and the cell's key
  (:meth:`Cell.seed`), never from the order cells finish or the number of workers, so
  the results do not depend on either.
* Cells marked ``exclusive`` (timing-sensitive: samples/s, speed-ups) run after the
  others, one at a time, with nothing else running on the cluster.

With ``--scheduler`` the workers run on other machines (``dask scheduler`` on one,
``dask worker ADDRESS --nthreads 1`` on each); results travel back to this process,
which alone writes the output directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bayeswe.atomic import write_json_atomic

__all__ = ["Cell", "CellResult", "GridError", "finished_cells", "run_grid", "THREAD_VARIABLES"]

#: Environment variables that pin a worker's thread pools to one thread.
THREAD_VARIABLES: tuple[str, ...] = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
    "STAN_NUM_THREADS",
)

CELL_FILE_VERSION = 1


class GridError(ValueError):
    """Bad grid arguments (workers, scheduler, duplicate cells)."""


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Cell:
    """One independent unit of a grid: its target and the parameters that define it."""

    target: str
    params: Mapping[str, Any]
    #: Timing-sensitive: run alone, after the other cells.
    exclusive: bool = False
    #: Take the seed of the cell with these parameters instead of this cell's own: a fit
    #: that repeats another's for longer starts where it started. ``params`` still name it.
    seed_params: Mapping[str, Any] | None = None

    @property
    def key(self) -> str:
        """Hash of the target and parameters: the cell's name on disk."""
        text = _canonical({"target": self.target, "params": dict(self.params)})
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    def seed(self, base_seed: int) -> int:
        """The cell's seed: ``SeedSequence(base_seed, spawn_key=(hash of key,))``; the key
        of :attr:`seed_params` when given."""
        key = self.key if self.seed_params is None else Cell(self.target, self.seed_params).key
        spawn = int(key[:8], 16)
        state = np.random.SeedSequence(int(base_seed), spawn_key=(spawn,)).generate_state(1)
        return int(state[0])


@dataclass
class CellResult:
    """What a cell returned (``result``) or why it failed (``error``)."""

    cell: Cell
    seed: int
    status: str  # "done" or "failed"
    result: dict[str, Any] | None = None
    error: str | None = None
    wall_s: float = float("nan")
    cached: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": CELL_FILE_VERSION,
            "key": self.cell.key,
            "target": self.cell.target,
            "params": dict(self.cell.params),
            "exclusive": self.cell.exclusive,
            "seed": self.seed,
            "status": self.status,
            "result": self.result,
            "error": self.error,
            "wall_s": self.wall_s,
            **self.extra,
        }


def _run_cell(
    func: Callable[[dict[str, Any], int], dict[str, Any]],
    params: dict,
    seed: int,
    log_level: int = logging.CRITICAL + 1,
):
    """Run one cell in a worker; never raises (a failure is a result).

    ``log_level``: cmdstanpy's in the worker (off by default: a failure is recorded
    with its traceback, and the workers' log would bury the progress bar).
    """
    from bayeswe.stan.log import set_cmdstanpy_level

    set_cmdstanpy_level(log_level)
    started = time.perf_counter()
    try:
        result = func(dict(params), seed)
        status, error = "done", None
        json.dumps(result, default=float)  # a result that cannot be stored is a failure
    except Exception:  # noqa: BLE001 - recorded, the grid goes on
        result, status, error = None, "failed", traceback.format_exc(limit=8)
    return status, result, error, time.perf_counter() - started


def _cell_path(out: Path, cell: Cell) -> Path:
    return out / "cells" / f"{cell.key}.json"


def _read_done(out: Path, cell: Cell, seed: int) -> CellResult | None:
    path = _cell_path(out, cell)
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError):
        return None  # absent or unreadable: the cell is redone
    if (
        stored.get("version") != CELL_FILE_VERSION
        or stored.get("status") != "done"
        or stored.get("seed") != seed
        or stored.get("params") != json.loads(_canonical(dict(cell.params)))
    ):
        return None
    # cell files written before the commit was recorded have no "computed_at"
    extra = {"computed_at": stored.get("computed_at")}
    return CellResult(cell, seed, "done", stored.get("result"), None, stored.get("wall_s", 0.0),
                      cached=True, extra=extra)  # fmt: skip


def finished_cells(
    cells: Sequence[Cell], *, out: str | os.PathLike[str], base_seed: int
) -> list[CellResult]:
    """The cells of ``cells`` that earlier runs finished in ``out``, in the order of ``cells``.

    Nothing is run and nothing is written: a report can be made from a grid that was
    interrupted or run piecemeal, its unfinished cells left out.
    """
    out_dir = Path(out)
    found = (_read_done(out_dir, cell, cell.seed(base_seed)) for cell in cells)
    return [result for result in found if result is not None]


@contextlib.contextmanager
def _pinned_threads() -> Iterator[None]:
    """Worker processes inherit one-thread pools from the environment at spawn."""
    saved = {k: os.environ.get(k) for k in THREAD_VARIABLES}
    os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def local_cluster(workers: int = 1) -> Any:
    """A started :class:`~distributed.LocalCluster` of ``workers`` one-thread processes.

    Its workers' Numba, BLAS and OpenMP pools are pinned to one thread (they read the
    counts when they start, and a nanny restarts a worker with its own environment, so the
    pins hold for the cluster's life while this process keeps its own counts). There is no
    worker TTL: the scheduler would restart a worker that has sent no heartbeat for that
    long, and after a suspension (a laptop's, a stopped job's) every worker is that late,
    so the cells in progress would start again from scratch. A local worker that dies is
    still noticed, by its nanny and its closed connection. The caller closes the cluster
    (it is a context manager).
    """
    import dask
    from distributed import LocalCluster

    with _pinned_threads(), dask.config.set({"distributed.scheduler.worker-ttl": None}):
        return LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )


@contextlib.contextmanager
def _client(workers: int | None, scheduler: str | None) -> Iterator[Any]:
    from distributed import Client

    if scheduler is not None:
        with Client(scheduler) as client:
            yield client
        return
    with local_cluster(workers or 1) as cluster, Client(cluster) as client:
        yield client


def run_grid(
    cells: Sequence[Cell],
    func: Callable[[dict[str, Any], int], dict[str, Any]],
    *,
    out: str | os.PathLike[str],
    base_seed: int,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    on_result: Callable[[CellResult], None] | None = None,
    computed_at: Mapping[str, Any] | None = None,
    verbose: bool = False,
) -> list[CellResult]:
    """Run every unfinished cell of ``cells``; all results, in the order of ``cells``.

    ``func(params, seed)`` must be a module-level function (it is pickled to the
    workers) returning a JSON-able dict. Finished cells already in ``out/cells`` are
    not run again. Failures are returned (``status == "failed"``, with the traceback)
    and do not stop the grid. ``computed_at`` (e.g. ``{"commit": ..., "dirty": ...}``)
    is stored with each cell this call computes, so a report rendered later from the
    cell cache can say which code computed its cells. cmdstanpy's log is off in the
    workers unless ``verbose``.

    Raises
    ------
    GridError
        ``workers`` below 1, both ``workers`` and ``scheduler``, or two cells with the
        same key.
    """
    if workers is not None and scheduler is not None:
        raise GridError("give either workers (a local cluster) or a scheduler address, not both")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise GridError(f"workers must be a positive integer, got {workers!r}")
    keys = [c.key for c in cells]
    if len(set(keys)) != len(keys):
        raise GridError("two cells of the grid have the same target and parameters")
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, CellResult] = {}
    todo: list[Cell] = []
    for cell in cells:
        seed = cell.seed(base_seed)
        done = _read_done(out_dir, cell, seed)
        if done is None:
            todo.append(cell)
        else:
            results[cell.key] = done
    bar = _progress_bar(len(cells), len(results), progress)

    def record(cell: Cell, outcome: tuple[str, Any, Any, float]) -> None:
        status, result, error, wall = outcome
        extra = {"computed_at": None if computed_at is None else dict(computed_at)}
        res = CellResult(cell, cell.seed(base_seed), status, result, error, wall, extra=extra)
        write_json_atomic(_cell_path(out_dir, cell), res.to_dict())
        results[cell.key] = res
        bar.done(status)
        if on_result is not None:
            on_result(res)

    try:
        if todo:
            from distributed import as_completed

            from bayeswe.stan.log import level_for

            log_level = level_for(verbose)

            with _client(workers, scheduler) as client:
                shared = [c for c in todo if not c.exclusive]
                futures = {
                    client.submit(_run_cell, func, dict(c.params), c.seed(base_seed), log_level,
                                  key=f"{c.target}-{c.key}", pure=False): c
                    for c in shared
                }  # fmt: skip
                for future in as_completed(futures):
                    record(futures[future], future.result())
                for cell in (c for c in todo if c.exclusive):
                    # alone on the cluster: nothing else is submitted until it returns
                    future = client.submit(_run_cell, func, dict(cell.params),
                                           cell.seed(base_seed), log_level,
                                           pure=False)  # fmt: skip
                    record(cell, future.result())
    finally:
        bar.close()
    return [results[c.key] for c in cells]


class _progress_bar:  # noqa: N801 - a small context-free helper, named as a function
    """Cells done/failed and the ETA (tqdm on a terminal, silent otherwise)."""

    def __init__(self, total: int, cached: int, progress: bool | None) -> None:
        import sys

        from tqdm.auto import tqdm

        show = sys.stderr.isatty() if progress is None else progress
        self.failed = 0
        self.bar = tqdm(total=total, initial=cached, disable=not show, unit="cell",
                        desc="cells", leave=True)  # fmt: skip

    def done(self, status: str) -> None:
        if status == "failed":
            self.failed += 1
            self.bar.set_postfix(failed=self.failed)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
