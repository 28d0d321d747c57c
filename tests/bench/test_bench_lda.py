import pytest
from bench_checks import check_result

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_bench_prints_one_json_object_with_the_summary(run_bench):
    result = run_bench("lda", "--quick", "--no-stan", "--budget", "0.2")
    summary = check_result(result, "lda")
    assert summary["stan_grad_speedup_vs_users_guide"] is None  # --no-stan
    assert summary["tokens_per_s_ratio_vs_tomotopy_nyt_k50"] is None  # --quick: no NYT
    assert summary["tokens_per_s_ratio_vs_tomotopy_k50"] > 0
    assert result["run"]["versions"]["tomotopy"] is not None
    ours = [r for r in result["results"] if r["tool"] == "bayeswe-sparse"]
    assert len(ours) == 2
    for row in ours:
        assert row["rate"] > 0 and row["iterations"] >= 1
        assert -10 < row["heldout_log_pred_per_token"] < 0
    # equal footing: the resumable Gibbs samplers advance by the same chunk of sweeps
    # per call, so their sweep counts are multiples of it; the lda package's sweeps are
    # timed without its initialization
    assert result["sweeps_per_call"] == 2
    gibbs = [r for r in result["results"] if r["tool"] in ("bayeswe-sparse", "tomotopy")]
    assert gibbs and all(r["iterations"] % 2 == 0 for r in gibbs)
    lda_rows = [r for r in result["results"] if r["tool"] == "lda"]
    assert lda_rows and all(r["iterations"] >= 1 and r["init_seconds"] >= 0 for r in lda_rows)
