"""The Stan-program benchmarks (sgns-stan, lda-stan, gaussian-lda-stan) at their quick size."""

from __future__ import annotations

import ast
import inspect
import math
from pathlib import Path

import pytest
from bench_checks import check_result

from bayeswe.bench import harness, sgns_stan

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

needs_paper = pytest.mark.skipif(
    not sgns_stan.DEFAULT_PAPER_TEXT.is_file(), reason="the paper's text is not in the seeds"
)


def test_paper_text_is_found_relative_to_the_repository() -> None:
    root = harness.repository_root()
    assert (root / "bayeswe" / "__init__.py").is_file()
    assert sgns_stan.DEFAULT_PAPER_TEXT == root.parent / "shared" / "seeds" / (
        "001_6485a91dd1270a1a.txt"
    )
    # no absolute path written into the module
    strings = [
        node.value
        for node in ast.walk(ast.parse(inspect.getsource(sgns_stan)))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    assert not [s for s in strings if s.startswith("/")]


def test_missing_paper_text_is_a_typed_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(sgns_stan.PaperTextNotFoundError, match="--paper-text"):
        sgns_stan.main(["--quick", "--json", "--paper-text", str(tmp_path / "none.txt")])
    monkeypatch.setattr(sgns_stan, "DEFAULT_PAPER_TEXT", tmp_path / "seeds" / "paper.txt")
    with pytest.raises(sgns_stan.PaperTextNotFoundError, match="pass --paper-text PATH"):
        sgns_stan.find_paper_text()
    assert issubclass(sgns_stan.PaperTextNotFoundError, FileNotFoundError)
    given = tmp_path / "paper.txt"
    given.write_text("x")
    assert sgns_stan.find_paper_text(given) == given


@needs_paper
def test_sgns_stan_quick(run_bench) -> None:
    out = run_bench("sgns-stan", "--quick")
    summary = check_result(out, "sgns-stan")
    assert out["settings"]["V"] == 15 and out["settings"]["repeats"] == 1
    assert summary["grad_speedup_vs_listing2"] == pytest.approx(
        summary["grad_time_us_listing2"] / summary["grad_time_us_sgns_identified"]
    )
    assert summary["lp_abs_diff_at_start"] < 1e-8 * abs(summary["lp_at_start"])
    assert out["run"]["versions"]["stan_toolchain"]["built"] is True


def test_lda_stan_quick(run_bench) -> None:
    out = run_bench("lda-stan", "--quick")
    summary = check_result(out, "lda-stan")
    assert summary["grad_time_us_lda"] > 0 and summary["sampler_step_us"] >= 0
    assert len(summary["grad_speedup_per_repeat"]) == 1
    assert abs(summary["lp_gap_error"]) < 1e-6
    assert out["sizes"]["n_docs"] == 10


def test_gaussian_lda_stan_quick(run_bench) -> None:
    out = run_bench("gaussian-lda-stan", "--quick")
    summary = check_result(out, "gaussian-lda-stan")
    assert out["settings"]["quick"] is True
    assert summary["grad_speedup_vs_per_token"] > 0
    assert summary["lp_abs_diff_at_start"] < 1e-8 * max(1.0, abs(summary["lp_at_start"]))
    assert summary["nuts_wall_s"] >= summary["nuts_stan_wall_s"] * 0.5
    assert math.isfinite(summary["nuts_min_ess_bulk_mu"])
