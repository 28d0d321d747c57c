"""The scripts of docs/examples/ print what the docs pages show under them.

A page includes a script with ``--8<-- "docs/examples/NAME.py"`` in a ```python block,
then shows its output in the next ```text block after an "Output" line. Each such script
is run from the repository root (as the pages say to run it), and its standard output
must equal the page's, line by line (trailing spaces aside). The scripts take seeds, so
the output is exact. They read the datasets ``make data`` fetches.
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
_SHOWN = re.compile(
    r'```python\n--8<-- "(docs/examples/[\w]+\.py)"\n```\s*\nOutput[^\n]*\n(?:[^\n]+\n)*?\s*'
    r"```text\n(.*?)```",
    re.S,
)


def _scripts() -> list:
    out = []
    for page in sorted((REPO / "docs").glob("*.md")):
        for script, shown in _SHOWN.findall(page.read_text(encoding="utf-8")):
            out.append(pytest.param(script, shown, id=f"{page.name}:{Path(script).name}"))
    return out


def _printed(script: str) -> list[str]:
    """The lines ``script`` prints, run from the repository root."""
    run = subprocess.run(
        [sys.executable, script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1200,
        env=example_env(),
    )
    assert run.returncode == 0, run.stderr[-4000:]
    return lines(run.stdout)


def test_the_pages_show_the_output_of_their_scripts():
    assert sorted(p.id for p in _scripts()) == [
        "fitting.md:schools.py",
        "gaussian-lda.md:gaussian_lda_lee.py",
        "lda.md:lda_reuters.py",
        "nonparametrics.md:hdp_gaussian_lda_sim.py",
        "nonparametrics.md:nonparametrics_cgs.py",
        "nonparametrics.md:nonparametrics_dp.py",
        "nonparametrics.md:nonparametrics_multinomial.py",
        "sgns.md:evaluation.py",
        "sgns.md:sotu.py",
    ]


@pytest.mark.parametrize(("script", "shown"), _scripts())
def test_a_script_prints_what_its_page_shows(script: str, shown: str) -> None:
    assert _printed(script) == lines(shown)


def test_the_identification_table_is_what_its_script_prints() -> None:
    # docs/sgns.md shows this script's output as a table, not in a text block
    printed = _printed("docs/examples/identification.py")
    assert len(printed) == 6 and printed[0].startswith("| fixed words |")
    page = lines((REPO / "docs" / "sgns.md").read_text(encoding="utf-8"))
    start = page.index(printed[0])
    assert page[start : start + len(printed)] == printed
