"""Importing bayeswe (and starting its CLI) does not import ArviZ: ArviZ loads on first use."""

from __future__ import annotations

import subprocess
import sys

_SCRIPT = """
import sys
import bayeswe, bayeswe.cli, bayeswe.samplers.pg_gibbs, bayeswe.sgns.fitting
assert "arviz" not in sys.modules, "arviz imported by bayeswe"
from bayeswe._arviz import az
print(az.InferenceData.__name__, "arviz" in sys.modules)
"""


def test_arviz_is_imported_on_first_use_only() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["InferenceData", "True"]
