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


_BENCH_SCRIPT = """
import sys
from bayeswe import cli
from bayeswe.bench import BENCHMARKS
parser = cli.build_parser()
loaded = sorted(m for m in sys.modules if m in {mod for mod, _ in BENCHMARKS.values()})
print("before", len(loaded), "scipy.stats" in sys.modules)
args = parser.parse_args(["bench", "lda", "--quick"])
loaded = sorted(m for m in sys.modules if m in {mod for mod, _ in BENCHMARKS.values()})
print("after", ",".join(loaded), args.where, args.func is not None)
"""


def test_the_cli_imports_a_benchmark_module_only_when_that_benchmark_is_asked_for() -> None:
    # Building every benchmark's options at start-up made each command about 2 s slower.
    done = subprocess.run(
        [sys.executable, "-c", _BENCH_SCRIPT], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "before 0 False",
        "after bayeswe.bench.lda bench lda True",
    ]
