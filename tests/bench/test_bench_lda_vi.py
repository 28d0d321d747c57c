"""``bayeswe bench lda-vi``: CAVI and SVI against gensim and scikit-learn."""

from __future__ import annotations

import pytest
from bench_checks import check_result

from bayeswe.bench.lda_vi import TOOLS

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_run_times_and_scores_every_tool(run_bench) -> None:
    out = run_bench("lda-vi", "--quick")
    keys = {
        "cavi_speed_ratio_vs_sklearn_batch",
        "svi_speed_ratio_vs_gensim",
        "svi_speed_ratio_vs_sklearn_online",
        "svi_heldout_minus_gensim",
        "cavi_heldout_minus_sklearn_batch",
    } | {f"heldout_{t}" for t in TOOLS}
    summary = check_result(out, "lda-vi", keys)
    rows = {r["tool"]: r for r in out["results"]}
    assert set(rows) == set(TOOLS)
    for row in rows.values():
        assert row["passes"] >= 1 and row["train_seconds"] > 0
        assert row["token_visits_per_s"] == pytest.approx(
            row["train_tokens"] * row["passes"] / row["train_seconds"]
        )
        # a log predictive per token over V = 500 words: between uniform and certain
        assert -6.3 < row["heldout_log_pred_per_token"] < 0
    rate = {t: r["token_visits_per_s"] for t, r in rows.items()}
    held = {t: r["heldout_log_pred_per_token"] for t, r in rows.items()}
    assert summary["cavi_speed_ratio_vs_sklearn_batch"] == pytest.approx(
        rate["bayeswe-cavi"] / rate["sklearn-batch"]
    )
    assert summary["svi_speed_ratio_vs_gensim"] == pytest.approx(
        rate["bayeswe-svi"] / rate["gensim"]
    )
    assert summary["svi_heldout_minus_gensim"] == pytest.approx(
        held["bayeswe-svi"] - held["gensim"]
    )
