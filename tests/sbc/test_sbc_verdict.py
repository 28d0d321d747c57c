"""The SBC verdict is earned: no "calibrated" from a test without the power to say so."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bayeswe import cli
from bayeswe.sbc import SBCResult, uniformity_test
from bayeswe.sbc.run import MIN_POWER, NOT_ENOUGH


def _result(p_spike: bool, power: dict[str, float]) -> SBCResult:
    ranks = np.tile(np.arange(100), 2)[:, None]  # uniform ranks: p = 1
    if p_spike:
        ranks = np.repeat([0, 99], 100)[:, None]  # all in the outer bins: p ~ 0
    return SBCResult(
        case=None, seed=0, ranks=ranks, n_draws=99, test=uniformity_test(ranks, 99),
        level=0.01, power=power, wall_time_s=0.0, workers=1,
    )  # fmt: skip


def test_no_rejection_at_low_power_is_no_verdict() -> None:
    low = _result(False, {"sd_x1.25": 0.9, "sd_x0.8": MIN_POWER - 0.01, "shift_0.25sd": 0.95})
    assert low.verdict == NOT_ENOUGH and "sd_x0.8" in low.verdict_note
    high = _result(False, {"sd_x1.25": 0.9, "sd_x0.8": MIN_POWER, "shift_0.25sd": 0.95})
    assert high.verdict == "calibrated" and high.verdict_note == ""
    # a rejection keeps its verdict at any power: its false-alarm rate is the level
    assert _result(True, {"sd_x1.25": 0.0}).verdict == "miscalibrated"


def test_ten_replications_print_no_calibrated_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["sbc", "lda-cgs", "-R", "10", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "calibrated" not in captured.out and NOT_ENOUGH in captured.out
    assert "power 0.00 < 0.8" in captured.err
    summary = json.loads((tmp_path / "lda-cgs" / "results.json").read_text())["summary"]
    assert summary["verdict"] == NOT_ENOUGH and summary["min_power"] < MIN_POWER
