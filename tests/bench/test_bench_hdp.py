"""``bayeswe bench hdp``: the HDP-LDA sampler against tomotopy's HDPModel."""

import pytest
from bench_checks import check_result

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_bench_prints_one_json_object_with_the_summary(run_bench):
    result = run_bench("hdp", "--quick", "--iterations", "4", "--chunk", "2")
    summary = check_result(result, "hdp")
    assert summary["tokens_per_s_ratio_vs_tomotopy_hdp"] > 0
    assert set(summary["live_topics"]) == {"bayeswe", "tomotopy"}
    assert result["run"]["versions"]["tomotopy"] is not None
    rows = result["results"]
    assert {(r["tool"], r["setting"]) for r in rows} == {
        (tool, setting) for tool in ("bayeswe", "tomotopy") for setting in ("defaults", "many")
    }
    assert all(r["iterations"] == 4 and r["rate"] > 0 for r in rows)
