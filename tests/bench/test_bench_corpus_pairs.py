"""The quick pair-extraction benchmark runs and prints the documented JSON keys."""

from __future__ import annotations

import json

from bayeswe.bench.corpus_pairs import main, synthetic_corpus


def test_quick_bench_json(capsys):
    assert main(["--json", "--quick"]) == 0
    out = json.loads(capsys.readouterr().out)
    summary = out["summary"]
    for key in (
        "seconds_1e7_tokens",
        "peak_rss_gb_1e7_tokens",
        "extra_rss_gb_1e7_tokens",
        "unique_pairs_1e7",
        "speedup_vs_numpy_unique",
        "memory_ratio_vs_numpy_unique",
    ):
        assert key in summary
    # window 2, one negative each: 4 positives per interior token of a 1000-token document
    assert summary["observations_1e7"] == 2 * 200 * (4 * 1000 - 6)
    assert {r["kind"] for r in out["runs"]} == {"baseline", "bayeswe", "numpy-unique"}
    # the peer counts the same positives
    peer = [r for r in out["runs"] if r["kind"] == "numpy-unique"]
    assert peer[-1]["positives"] == summary["observations_1e7"] // 2


def test_synthetic_corpus_is_seeded():
    a, pa = synthetic_corpus(5000, 50, seed=3)
    b, pb = synthetic_corpus(5000, 50, seed=3)
    assert (a == b).all() and (pa == pb).all() and pa[-1] == 5000
