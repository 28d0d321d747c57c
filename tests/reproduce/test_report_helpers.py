"""The report helpers shared by the targets: exact outputs on small inputs."""

from __future__ import annotations

import struct
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from bayeswe.errors import OutputError
from bayeswe.reproduce.report import (
    docstring_section,
    finish_report,
    not_run,
    pyplot,
    save_figure,
    what_was_run,
    write_table,
)

DOC = """Title line.

**The paper.** Its claim,
over two lines.

**Substitution.**   Another corpus.

**Our side.** What we ran.

A second paragraph.
"""


def test_docstring_section_runs_from_its_heading_to_stop_or_the_end() -> None:
    assert docstring_section(DOC, "The paper", "Substitution") == (
        "**The paper.** Its claim,\nover two lines."
    )
    assert docstring_section(DOC, "Substitution", "Our side") == "**Substitution.** Another corpus."
    assert docstring_section(DOC, "Our side") == "**Our side.** What we ran.\n\nA second paragraph."
    # a stop that is not there: to the end
    assert docstring_section(DOC, "Our side", "Budget") == docstring_section(DOC, "Our side")
    # without stop, a repeated heading ends the section
    assert docstring_section("**A.** one **A.** two", "A") == "**A.** one"


def test_docstring_section_without_its_heading_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"no section \*\*Budget\.\*\*"):
        docstring_section(DOC, "Budget")
    with pytest.raises(ValueError, match="no section"):
        docstring_section(None, "Our side")


def test_what_was_run_quotes_each_part_up_to_the_next() -> None:
    assert what_was_run(DOC, "The paper", "Our side") == [
        "## What was run",
        "",
        "**The paper.** Its claim,\nover two lines.\n\n**Substitution.**   Another corpus.",
        "",
        "**Our side.** What we ran.\n\nA second paragraph.",
        "",
    ]
    assert what_was_run(DOC, "Substitution", "Our side")[2:4] == [
        "**Substitution.** Another corpus.",
        "",
    ]


def test_not_run_is_a_verdict_row() -> None:
    assert not_run("a claim", "no cells") == {
        "claim": "a claim",
        "verdict": "not run",
        "measured": "no cells",
    }


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_save_figure_writes_the_png_and_closes_the_figure(tmp_path: Path) -> None:
    plt = pyplot()
    assert plt.get_backend().lower() == "agg"
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [1, 0])
    path = save_figure(fig, tmp_path / "out", "f.png", dpi=50)
    assert path == tmp_path / "out" / "f.png"
    assert _png_size(path) == (100, 50)  # inches x dpi
    assert not plt.fignum_exists(fig.number)
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["f.png"]  # no temporary file
    fig = plt.figure(figsize=(1, 1))
    save_figure(fig, tmp_path, "default.png")
    assert _png_size(tmp_path / "default.png") == (110, 110)  # dpi 110 unless told


def test_save_figure_closes_the_figure_when_writing_fails(tmp_path: Path) -> None:
    plt = pyplot()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    fig = plt.figure()
    with pytest.raises(OutputError):
        save_figure(fig, blocker, "f.png")  # the directory is a file
    assert not plt.fignum_exists(fig.number)
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]


def test_write_table_writes_exactly_the_frame(tmp_path: Path) -> None:
    frame = pd.DataFrame({"K": [5, 10], "method": ["nuts", "pg-gibbs"], "rate": [0.5, None]})
    assert write_table(tmp_path, frame) == tmp_path / "table.csv"
    assert (tmp_path / "table.csv").read_text() == "K,method,rate\n5,nuts,0.5\n10,pg-gibbs,\n"
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "table.csv"), frame)
    write_table(tmp_path, frame.head(1), "other.csv")
    assert (tmp_path / "other.csv").read_text() == "K,method,rate\n5,nuts,0.5\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.csv", "table.csv"]


def test_finish_report_appends_the_verdicts_and_the_failed_cells() -> None:
    verdicts = [{"claim": "a | b", "verdict": "reproduced", "measured": "1.0"}]
    done = SimpleNamespace(status="done", cell=SimpleNamespace(params={"K": 1}), error=None)
    failed = SimpleNamespace(status="failed", cell=SimpleNamespace(params={"K": 2}),
                             error="Traceback\nValueError: bad\n")  # fmt: skip
    out = finish_report(["# Body", ""], verdicts, [done, failed], medians={"x": 1})
    assert out == {
        "markdown": "# Body\n\n## Verdict per row\n\n| row | verdict | measured |\n|---|---|---|\n"
        "| a \\| b | reproduced | 1.0 |\n\n## Failed cells\n\n- {'K': 2}: `ValueError: bad`\n",
        "verdicts": verdicts,
        "medians": {"x": 1},
    }
    assert finish_report([], [], [done])["markdown"] == (
        "## Verdict per row\n\n| row | verdict | measured |\n|---|---|---|\n\n"
    )


def test_the_header_names_the_code_that_computed_reused_cells() -> None:
    from bayeswe.reproduce.grid import Cell, CellResult
    from bayeswe.reproduce.run import _computed_elsewhere

    def result(i: int, at: dict | None, *, cached: bool = True) -> CellResult:
        return CellResult(Cell("t", {"i": i}), 0, "done", {}, cached=cached,
                          extra={"computed_at": at})  # fmt: skip

    here, there = "c" * 40, "d" * 40
    assert _computed_elsewhere([result(0, {"commit": here, "dirty": False})], here) == ""
    # cells this run computed are this run's, whatever its state
    assert _computed_elsewhere([result(0, {"commit": None, "dirty": True}, cached=False)],
                               None) == ""  # fmt: skip
    results = [
        result(0, {"commit": here, "dirty": False}),
        result(1, {"commit": there, "dirty": False}),
        result(2, {"commit": there, "dirty": False}),
        result(3, None),
        result(4, {"commit": None, "dirty": True}),
    ]
    assert _computed_elsewhere(results, here) == (
        " Reused cells computed by other code than this commit: 1 by an unrecorded commit,"
        " 2 by commit dddddddddddd, 1 by uncommitted code."
    )


def test_done_frame_keeps_finished_cells_and_the_given_columns() -> None:
    from bayeswe.reproduce.grid import Cell, CellResult
    from bayeswe.reproduce.report import done_frame

    results = [
        CellResult(Cell("t", {"K": 2, "N": 10}), 0, "done", {"x": 1.5, "extra": "dropped"}),
        CellResult(Cell("t", {"K": 3, "N": 10}), 0, "failed", None, "boom"),
        CellResult(Cell("t", {"K": 4, "N": 20}), 0, "done", {}),
    ]
    frame = done_frame(results, ["K", "N", "x"])
    assert list(frame.columns) == ["K", "N", "x"]
    assert frame["K"].tolist() == [2, 4] and frame["x"].tolist()[0] == 1.5
    assert pd.isna(frame["x"].tolist()[1])
    empty = done_frame(results[1:2], ["K", "x"])
    assert list(empty.columns) == ["K", "x"] and len(empty) == 0
