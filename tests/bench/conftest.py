"""Fixtures of the benchmark tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def run_bench(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    """Run ``bayeswe bench NAME ARGS --json --output FILE``; the printed object.

    Also checks that stdout holds nothing but that object and that the file holds the
    very same text.
    """
    from bayeswe.cli import main

    def run(name: str, *args: str) -> dict[str, Any]:
        out_file = tmp_path / f"{name}.json"
        assert main(["bench", name, *args, "--json", "--output", str(out_file)]) == 0
        text = capsys.readouterr().out
        assert out_file.read_text() == text
        return json.loads(text)

    return run
