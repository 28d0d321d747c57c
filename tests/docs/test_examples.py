"""The examples of README.md and docs/getting-started.md print what the pages show.

Each ```python block followed by a ```text block is run as its own Python process, and
its standard output must equal the text block line by line (trailing spaces aside).
Every random path of the examples takes a seed, so the output is exact; a change that
alters the draws of a sampler an example uses fails here until the page is updated.
The examples read the datasets that ``make data`` fetches (Reuters, Lee, GloVe).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", REPO / "docs" / "getting-started.md"]
_EXAMPLE = re.compile(r"```python\n(.*?)```\s*\n+```text\n(.*?)```", re.S)


def _examples() -> list:
    out = []
    for page in PAGES:
        for i, (code, shown) in enumerate(_EXAMPLE.findall(page.read_text(encoding="utf-8"))):
            out.append(pytest.param(code, shown, id=f"{page.name}-{i}"))
    return out


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


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
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert _lines(run.stdout) == _lines(shown)
