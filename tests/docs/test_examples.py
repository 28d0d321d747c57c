"""The examples of README.md and docs/getting-started.md, and the `bayeswe compare` tables
of docs/sgns.md and docs/lda.md, are what their code prints.

Each ```python block followed by a ```text block is run as its own Python process, and
its standard output must equal the text block line by line (trailing spaces aside).
Every random path of the examples takes a seed, so the output is exact; a change that
alters the draws of a sampler an example uses fails here until the page is updated.
The examples read the datasets that ``make data`` fetches (Reuters, Lee, GloVe).

NumPy's OpenBLAS picks its kernels for the CPU it runs on, and kernels for different
CPUs round a matrix product's last bits differently: that moves the MAP start of the
identified SGNS fits a little, and a NUTS chain started a little elsewhere gives other
draws (the getting-started example prints another ESS with OpenBLAS's Sandy Bridge
kernels than with its Haswell ones, on the same CPU). The pages show the
output of the Haswell kernels, which every x86-64 CPU with AVX2 runs, and the runs here
ask for them (``OPENBLAS_CORETYPE``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from page_output import example_env, lines

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", REPO / "docs" / "getting-started.md"]
_EXAMPLE = re.compile(r"```python\n(.*?)```\s*\n+```text\n(.*?)```", re.S)


def _examples() -> list:
    out = []
    for page in PAGES:
        for i, (code, shown) in enumerate(_EXAMPLE.findall(page.read_text(encoding="utf-8"))):
            out.append(pytest.param(code, shown, id=f"{page.name}-{i}"))
    return out


def test_the_pages_hold_their_examples():
    # README: SGNS, LDA, Gaussian LDA; getting started: a first fit
    assert [p.id for p in _examples()] == [
        "README.md-0", "README.md-1", "README.md-2", "getting-started.md-0",
    ]  # fmt: skip


@pytest.mark.parametrize(("code", "shown"), _examples())
def test_an_example_prints_what_its_page_shows(code: str, shown: str, tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env=example_env(),
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert lines(run.stdout) == lines(shown)


# The `bayeswe compare` tables of docs/sgns.md and docs/lda.md: every column but the
# timings (wall seconds and the rates derived from them) must be what the command prints.
_COMPARE = re.compile(r"This is\s+`(bayeswe compare [^`]+)`[^`]*?```text\n(.*?)```", re.S)
_TIMED_COLUMNS = {"wall s", "draws/s", "ESS/s"}


def _untimed(text: str) -> list[list[str]]:
    rows, timed = [], []
    for line in lines(text):
        if line.startswith("method "):
            header = re.split(r"\s{2,}", line.strip())
            timed = [i for i, name in enumerate(header) if name in _TIMED_COLUMNS]
            rows.append(header)
        elif timed and line and not line.startswith("-"):
            cells = line.replace(" %", "%").split()  # "88.6 %" is one cell
            rows.append([c for i, c in enumerate(cells) if i not in timed])
        else:
            rows.append([line])
    return rows


def _compare_commands() -> list:
    out = []
    for name in ("sgns.md", "lda.md"):
        for command, shown in _COMPARE.findall((REPO / "docs" / name).read_text("utf-8")):
            out.append(pytest.param(command, shown, id=f"{name}:{command}"))
    return out


def test_both_compare_tables_are_found():
    assert [p.id for p in _compare_commands()] == [
        "sgns.md:bayeswe compare sgns --V 50 --iter-warmup 200 --iter-sampling 200 --quiet",
        "lda.md:bayeswe compare lda --methods cgs,cavi,svi,map --quiet",
    ]


@pytest.mark.parametrize(("command", "shown"), _compare_commands())
def test_a_compare_table_is_what_the_command_prints(
    command: str, shown: str, tmp_path: Path
) -> None:
    argv = [sys.executable, "-m", "bayeswe.cli", *command.split()[1:]]
    run = subprocess.run(
        argv, cwd=tmp_path, capture_output=True, text=True, timeout=1200, env=example_env()
    )
    assert run.returncode == 0, run.stderr[-4000:]
    printed, page = _untimed(run.stdout), _untimed(shown)
    assert any(len(row) > 5 for row in page)  # the method rows were parsed
    assert printed == page
