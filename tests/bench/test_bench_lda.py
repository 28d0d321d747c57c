import json

from bayeswe.bench import lda as bench


def test_quick_bench_prints_one_json_object_with_the_summary(capsys):
    assert bench.main(["--quick", "--json", "--no-stan", "--budget", "0.2"]) == 0
    result = json.loads(capsys.readouterr().out)
    summary = result["summary"]
    for key in (
        "tokens_per_s_ratio_vs_tomotopy_k50",
        "tokens_per_s_ratio_vs_tomotopy_k200",
        "stan_grad_speedup_vs_users_guide",
    ):
        assert key in summary
    ours = [r for r in result["results"] if r["tool"] == "bayeswe-sparse"]
    assert len(ours) == 2
    for row in ours:
        assert row["rate"] > 0 and row["iterations"] >= 1
        assert -10 < row["heldout_log_pred_per_token"] < 0
