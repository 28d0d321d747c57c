"""``bayeswe bench sgns-identification``: post hoc gauge against MAP anchors."""

from __future__ import annotations

import pytest
from bench_checks import check_result

from bayeswe.bench.sgns_identification import SIDES

TAG = "k2_v10_n2000"
KEYS = {
    f"cost_per_ess_ratio_{TAG}",
    f"cost_per_ess_ratio_{TAG}_sd",
    f"coverage_anchors_{TAG}",
    f"coverage_posthoc_{TAG}",
    "cost_per_ess_ratio_median",
    "cost_per_ess_ratio_max",
    "loglik_cost_per_ess_ratio_median",
    "nomove_cost_per_ess_ratio_median",
}


def test_quick_run_measures_every_side(run_bench) -> None:
    out = run_bench("sgns-identification", "--quick")
    summary = check_result(out, "sgns-identification", KEYS)
    rows = out["results"]
    assert [r["side"] for r in rows] == list(SIDES)
    for row in rows:
        assert 0.0 <= row["coverage90"] <= 1.0
        assert row["s_per_ess_p"] == pytest.approx(row["sampler_cpu_s"] / row["ess_p_median"])
    anchors, posthoc, plain = rows
    ratio = posthoc["s_per_ess_p"] / anchors["s_per_ess_p"]
    assert summary["cost_per_ess_ratio_median"] == pytest.approx(ratio)
    assert summary["nomove_cost_per_ess_ratio_median"] == pytest.approx(
        plain["s_per_ess_p"] / posthoc["s_per_ess_p"]
    )
    assert out["settings"]["draws"] == 200 and out["settings"]["datasets"] == [0]


def test_bad_dataset_count_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from bayeswe.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["bench", "sgns-identification", "--datasets", "0"])
    assert stop.value.code == 2
    assert "--datasets: must be a positive integer" in capsys.readouterr().err
