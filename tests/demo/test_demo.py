"""The demo's quick mode runs end to end and writes what it says it writes."""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest

from bayeswe.demo import QUICK, run_demo

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_demo_end_to_end(tmp_path):
    lines: list[str] = []
    result = run_demo(tmp_path / "out", QUICK, progress=lines.append)
    names = {p.name for p in result.files}
    assert names == {
        "cosine_intervals.png",
        "pg_gibbs_trace.png",
        "map.nc",
        "pg_gibbs.nc",
        "advi.nc",
        "report.txt",
    }
    for p in result.files:
        assert p.is_file() and p.stat().st_size > 0
    assert not list((tmp_path / "out").glob(".*tmp"))  # no half-written files left
    assert any(line.startswith("[demo] PG-Gibbs sweep") for line in lines)
    # the report has every section, and it is what report.txt holds
    for heading in (
        "State of the Union addresses 2009-2021",
        "MAP",
        "PG-Gibbs",
        "ADVI",
        "Cosine similarity of rho vectors",
        "Nearest neighbours",
        "Hold-out log-likelihood",
    ):
        assert heading in result.report
    assert (tmp_path / "out" / "report.txt").read_text() == result.report
    # posterior draws: dims named, sizes as configured
    gibbs = az.from_netcdf(tmp_path / "out" / "pg_gibbs.nc")
    s = QUICK
    assert gibbs.posterior["rho"].dims == ("chain", "draw", "word", "dim")
    assert gibbs.posterior["rho"].shape[:2] == (s.chains, s.draws // s.thin)
    assert gibbs.posterior["rho"].shape[3] == s.K
    # intervals bracket the means; hold-out values are log-probabilities per observation
    t = result.cosine_table
    assert len(t) >= 5
    assert np.all((t["lower"] <= t["mean"]) & (t["mean"] <= t["upper"]))
    assert np.all((t["advi_lower"] <= t["advi_mean"]) & (t["advi_mean"] <= t["advi_upper"]))
    assert np.all(np.abs(t[["mean", "map", "advi_mean"]].to_numpy()) <= 1)
    assert set(result.holdout) == {
        "MAP",
        "posterior predictive (PG-Gibbs)",
        "posterior predictive (ADVI)",
    }
    # PG-Gibbs sampled the unidentified model; its draws are in the svd gauge
    assert gibbs.attrs["model"] == "sgns" and gibbs.attrs["gauge"] == "svd"
    assert "alpha_free" not in gibbs.posterior
    assert all(-np.log(2) - 1 < v < 0 for v in result.holdout.values())
    assert 0 <= result.prob_closer["PG-Gibbs"] <= 1
    for table in result.neighbours.values():
        assert table["probability"].between(0, 1).all()


def test_quick_demo_is_reproducible(tmp_path):
    """Same seed, same numbers (only the wall times differ)."""
    a = run_demo(tmp_path / "a", QUICK, progress=None)
    b = run_demo(tmp_path / "b", QUICK, progress=None)
    assert a.cosine_table.equals(b.cosine_table)
    assert a.holdout == b.holdout and a.prob_closer == b.prob_closer
    for word, table in a.neighbours.items():
        assert table.equals(b.neighbours[word])


def test_bad_settings_fail_before_running():
    import dataclasses

    import pytest

    from bayeswe.demo import DemoSettings

    with pytest.raises(ValueError, match="K must be >= 1"):
        DemoSettings(K=0)
    with pytest.raises(ValueError, match="test_fraction must be < 1"):
        dataclasses.replace(QUICK, test_fraction=1.5)
    with pytest.raises(ValueError, match="K=200 must be below vocab_size=120"):
        dataclasses.replace(QUICK, K=200)
