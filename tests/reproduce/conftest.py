"""Fixtures of the ``bayeswe reproduce`` tests: the command in-process, a target's files."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
import pytest


class CliRun(NamedTuple):
    """What ``bayeswe ARGV`` did: its exit code and what it wrote to stdout and stderr."""

    code: int | str | None
    out: str
    err: str


@pytest.fixture(scope="session")
def scheduler() -> Iterator[str]:
    """The address of one local cluster that the quick grids of a test process share
    (``--scheduler``), started as ``--workers 1`` starts its own
    (:func:`bayeswe.reproduce.grid.local_cluster`).

    A run with ``--workers`` starts a cluster and a worker that imports bayeswe and loads
    its kernels and data afresh; shared, they are paid once. (The ``--workers`` path
    itself is run by ``000-table2``'s quick test and by ``test_grid.py``.)
    """
    from bayeswe.reproduce.grid import local_cluster

    cluster = local_cluster(1)
    with cluster:
        yield cluster.scheduler_address


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[[list[str]], CliRun]:
    """Run ``bayeswe ARGV`` in this process; a ``SystemExit`` gives the exit code."""
    from bayeswe import cli

    def run(argv: list[str]) -> CliRun:
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code
        captured = capsys.readouterr()
        return CliRun(code, captured.out, captured.err)

    return run


def _target_outputs(directory: Path, *files: str) -> tuple[dict[str, Any], pd.DataFrame, str]:
    for name in ("results.json", "table.csv", "REPORT.md", *files):
        assert (directory / name).stat().st_size > 0, name
    results = json.loads((directory / "results.json").read_text())
    return results, pd.read_csv(directory / "table.csv"), (directory / "REPORT.md").read_text()


@pytest.fixture
def target_outputs() -> Callable[..., tuple[dict[str, Any], pd.DataFrame, str]]:
    """``(directory, *files)`` -> results.json, table.csv and REPORT.md of a target's run.

    Checks first that those three and ``files`` (its figures) are there and not empty.
    """
    return _target_outputs
