"""cmdstanpy's log is off in the CLI unless ``--verbose``: no "Chain [1] start processing"
lines, and no "Communication error on send" (cmdstanpy's reading of exit status 70)
beside bayeswe's own message. Stan's reason for a failure is in that message."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from bayeswe.reproduce.grid import _run_cell
from bayeswe.stan.log import QUIET, VERBOSE, cmdstanpy_log

# ADVI full-rank fails on one observation of four words (Stan exits with status 70)
FAILING = ["compare", "sgns", "--V", "4", "--K", "1", "--N", "1", "--methods", "advi-fullrank,map"]


def _bayeswe(*argv: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "bayeswe.cli", *argv]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)


def test_a_failing_compare_shows_bayeswes_message_only() -> None:
    done = _bayeswe(*FAILING)
    assert done.returncode == 1, done.stderr
    assert "cmdstanpy" not in done.stderr and "Communication error" not in done.stderr
    assert "Chain [1]" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("bayeswe: error: ") and "All proposed step-sizes failed" in last


def test_verbose_shows_cmdstanpy_log() -> None:
    done = _bayeswe(*FAILING, "--quiet", "--verbose")
    assert "cmdstanpy - INFO - Chain [1] start processing" in done.stderr
    before = _bayeswe("--verbose", *FAILING, "--quiet")  # before the command too
    assert "cmdstanpy - INFO" in before.stderr


def test_stans_reason_follows_its_heading() -> None:
    # the prior sd is far below the data's scale: L-BFGS stops, with its reason on the
    # line after "Optimization terminated with error:"
    done = _bayeswe("compare", "sgns", "--V", "4", "--K", "1", "--N", "50", "--prior-sd",
                    "1e-9", "--methods", "map", "--quiet")  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "cmdstanpy" not in done.stderr
    assert "Optimization terminated with error: Line search failed" in done.stderr


def _cmdstanpy_level(params: dict, seed: int) -> dict:
    return {"level": logging.getLogger("cmdstanpy").level}


@pytest.mark.parametrize("level", [QUIET, VERBOSE])
def test_reproduction_cells_set_cmdstanpy_log(level: int) -> None:
    # what a Dask worker runs for each cell
    status, result, error, _ = _run_cell(_cmdstanpy_level, {}, 1, level)
    assert status == "done" and result == {"level": level}, error


def test_the_log_level_is_restored_after_a_command() -> None:
    from cmdstanpy.utils import get_logger

    before = get_logger().level
    with cmdstanpy_log(False):
        assert get_logger().level == QUIET
    assert get_logger().level == before
