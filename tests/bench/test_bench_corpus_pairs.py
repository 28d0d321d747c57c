"""The quick pair-extraction benchmark runs and prints the documented JSON keys."""

from __future__ import annotations

import pytest
from bench_checks import check_result

from bayeswe.bench.corpus_pairs import synthetic_corpus

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_bench_json(run_bench):
    out = run_bench("corpus-pairs", "--quick")
    summary = check_result(out, "corpus-pairs")
    assert summary["n_tokens"] == summary["small_n_tokens"] == 200_000
    for key in ("seconds_1e7_tokens", "peer_seconds_1e7_tokens", "speedup_vs_numpy_unique"):
        assert summary[key] > 0, key
    # each side ran in its own process, above the baseline process's memory
    assert 0 < summary["extra_rss_gb_1e7_tokens"] < summary["peak_rss_gb_1e7_tokens"] < 2
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
