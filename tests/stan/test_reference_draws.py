"""Our command-line program against real CmdStan 2.35.0 output.

The reference files (``data/cmdstan_2_35_reference``, from stan-dev/stan's test
fixtures; provenance in that folder's README) were written by CmdStan 2.35.0 on
macOS for the bernoulli example with ``seed=86520``. We run the same program
with the same data, seed, chain id and arguments.

What must agree exactly: the configuration block (apart from paths, dates and
the model's file name), the header row, and — because both programs call the
same ``stan::services`` function with the same seed and chain id — the whole
sampling path up to floating-point rounding. The reference machine's compiler
and maths library round differently from Linux gcc/glibc, so values agree to
about four significant digits and, once a rounding difference flips an
accept/reject decision, the paths separate; for chain 1 that happens after
more than 600 post-warmup draws. A wrong seed, chain id, initialisation or
adaptation setting would separate them from the first draw.

Bit-for-bit equality with CmdStan on the same platform (Linux, g++) is tested
in ``test_cmdstan_fixtures.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayeswe.stan import toolchain

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

REFERENCE = Path(__file__).parent / "data" / "cmdstan_2_35_reference"
CHAIN1 = REFERENCE / "bernoulli_cmdstan-2.35.0_seed86520_chain1.csv"
VARIES = ("start_datetime", "file = ", "model = ", "stancflags")


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model = toolchain.compile_model(REFERENCE / "bernoulli.stan")
    out = tmp_path_factory.mktemp("reference") / "bernoulli-1.csv"
    # The command line cmdstanpy gave CmdStan for the reference run.
    proc = subprocess.run(
        [
            str(model.exe_file),
            "id=1",
            "random",
            "seed=86520",
            "data",
            f"file={REFERENCE / 'bernoulli.data.json'}",
            "output",
            f"file={out}",
            "method=sample",
            "algorithm=hmc",
            "adapt",
            "engaged=1",
        ],
        capture_output=True,
        text=True,
        check=False,
        # The reference ran with one thread; cmdstanpy sets STAN_NUM_THREADS for the
        # whole test process, which would otherwise change the config block.
        env={k: v for k, v in os.environ.items() if k != "STAN_NUM_THREADS"},
    )
    assert proc.returncode == 0, proc.stderr
    return out


def config_lines(path: Path) -> list[str]:
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("#") or "Adaptation terminated" in line:
            break
        if not any(key in line for key in VARIES):
            lines.append(line)
    return lines


def test_config_block_is_cmdstans(ours: Path) -> None:
    theirs = config_lines(CHAIN1)
    mine = config_lines(ours)
    assert len(theirs) >= 35
    assert mine == theirs


def test_header_and_adaptation_agree(ours: Path) -> None:
    text_ours, text_ref = ours.read_text(), CHAIN1.read_text()
    assert pd.read_csv(ours, comment="#").columns.tolist() == (
        pd.read_csv(CHAIN1, comment="#").columns.tolist()
    )
    pattern = (
        r"# Step size = ([0-9.eE+-]+)\n"
        r"# Diagonal elements of inverse mass matrix:\n# ([0-9.eE+-]+)"
    )
    step_ours, metric_ours = map(float, re.search(pattern, text_ours).groups())
    step_ref, metric_ref = map(float, re.search(pattern, text_ref).groups())
    assert step_ours == pytest.approx(step_ref, rel=1e-3)
    assert metric_ours == pytest.approx(metric_ref, rel=1e-3)


def test_sampling_path_follows_cmdstan(ours: Path) -> None:
    mine = pd.read_csv(ours, comment="#")
    ref = pd.read_csv(CHAIN1, comment="#")
    assert mine.shape == ref.shape == (1000, 8)
    # Same tree depth, number of leapfrog steps and divergence flags, draw for
    # draw, over the first 600 draws: the same path.
    head = slice(0, 600)
    for column in ("treedepth__", "n_leapfrog__", "divergent__"):
        np.testing.assert_array_equal(mine[column][head], ref[column][head])
    np.testing.assert_allclose(mine["theta"][head], ref["theta"][head], rtol=5e-3)
    np.testing.assert_allclose(mine["lp__"][head], ref["lp__"][head], rtol=1e-3)
