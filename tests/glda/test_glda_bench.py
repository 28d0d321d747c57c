"""The quick Gaussian LDA benchmark runs and prints the summary the issue names."""

from __future__ import annotations

import json

from bayeswe.cli import main


def test_quick_bench_json(capsys) -> None:
    assert main(["bench", "gaussian-lda", "--json", "--quick"]) == 0
    out = json.loads(capsys.readouterr().out)
    summary = out["summary"]
    for key in ("alias_speedup_vs_cholesky_k100", "cholesky_tokens_per_s_d50_k20"):
        assert key in summary
    assert summary["cholesky_tokens_per_s_d50_k20"] > 0
    (setting,) = out["settings"]
    assert setting["D"] == 50 and setting["K"] == 20
    for sampler in ("naive", "cholesky", "alias", "alias_fresh_doc"):
        assert setting[sampler]["sec_per_iter"] > 0
    assert setting["naive"]["extrapolated"] is True
