"""Progress reporting of long loops, and a CLI that starts without library notices."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bayeswe
from bayeswe import progress
from bayeswe.lda.simulate import simulate_lda


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_when_not_a_terminal():
    out = io.StringIO()
    with progress.Progress(4, "cgs", show=True, stream=out, every=0.0) as bar:
        for _ in range(4):
            bar.update(1)
    lines = out.getvalue().splitlines()
    assert len(lines) == 4
    assert lines[1].startswith("cgs: 2/4 sweeps (50%), ")
    assert "sweeps/s" in lines[1] and "s left" in lines[1]
    assert lines[-1].startswith("cgs: 4/4 sweeps (100%)")


def test_plain_lines_are_periodic():
    out = io.StringIO()
    bar = progress.Progress(1000, "run", show=True, stream=out, every=3600.0)
    for _ in range(1000):
        bar.update(1)
    # one hour between lines: only the final line is written
    assert out.getvalue().splitlines() == [out.getvalue().splitlines()[-1]]
    assert out.getvalue().startswith("run: 1000/1000 sweeps (100%)")


def test_bar_on_a_terminal():
    out = _Terminal()
    with progress.Progress(10, "pg-gibbs", show=True, stream=out) as bar:
        bar.update(10)
    text = out.getvalue()
    # tqdm's bar: description, count of total, rate (the bar is removed when done)
    assert "pg-gibbs:" in text and "/10 [" in text and "sweep/s]" in text


@pytest.mark.parametrize("show", [False, None])
def test_quiet_unless_asked(show):
    out = io.StringIO()
    with progress.Progress(5, "x", show=show, stream=out, every=0.0) as bar:
        bar.update(5)
    assert out.getvalue() == ""


def test_process_default_turns_none_on():
    out = io.StringIO()
    progress.set_default(True)
    try:
        with progress.Progress(2, "x", show=None, stream=out, every=0.0) as bar:
            bar.update(2)
    finally:
        progress.set_default(None)
    assert out.getvalue().startswith("x: 2/2 sweeps")


def test_bad_progress_value():
    with pytest.raises(ValueError, match="progress must be True, False or None"):
        progress.resolve("yes")


def test_sampler_reports_and_draws_do_not_depend_on_it(capsys):
    sim = simulate_lda(n_docs=6, doc_length=20, n_words=12, n_topics=2, seed=3)
    kw = dict(method="cgs", seed=11, chains=2, iter_sampling=20, iter_warmup=10, thin=5)
    quiet = bayeswe.fit("lda", sim.data, show_progress=False, **kw)
    assert capsys.readouterr().err == ""
    loud = bayeswe.fit("lda", sim.data, show_progress=True, **kw)
    err = capsys.readouterr().err
    # capsys's stderr is not a terminal: plain lines, the last one at 100 %; a sweep is
    # one of every chain (10 warm-up + 20 sampling)
    assert "lda-cgs: 30/30 sweeps (100%)" in err
    np.testing.assert_array_equal(quiet.posterior["phi"].values, loud.posterior["phi"].values)
    with pytest.raises(ValueError, match="progress"):
        bayeswe.fit("lda", sim.data, show_progress="always", **kw)


def test_cli_start_prints_no_library_notice(tmp_path: Path):
    # ArviZ 0.23 prints its refactor notice once a day, remembered in a stamp file in
    # the user cache: a fresh cache directory makes it due.
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cli")}
    done = subprocess.run(
        [sys.executable, "-m", "bayeswe.cli", "bench", "--help"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "usage: bayeswe bench" in done.stdout
    assert done.stderr == ""
    # the notice was due: without bayeswe's filter, importing ArviZ prints it
    env["XDG_CACHE_HOME"] = str(tmp_path / "raw")
    raw = subprocess.run(
        [sys.executable, "-c", "import arviz"], env=env, capture_output=True, text=True
    )
    assert "ArviZ is undergoing a major refactor" in raw.stderr
