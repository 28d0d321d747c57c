"""``bayeswe bench dp-mixture``: collapsed Gibbs vs NUTS on dp_mixture.stan."""

from __future__ import annotations

import numpy as np
import pytest
from bench_checks import check_result

from bayeswe.bench.dp_mixture import QUANTITIES, start_labels
from bayeswe.dp import initial_values, simulate_dp_mixture

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

KEYS = {
    "ess_per_s_ratio_vs_nuts",
    "ess_per_s_ratio_vs_nuts_min",
    "ess_per_s_ratio_vs_nuts_max",
    *(f"ess_per_s_ratio_vs_nuts_{q}" for q in QUANTITIES),
    "ess_per_s_cgs",
    "ess_per_s_nuts",
    "wall_s_cgs",
    "wall_s_nuts",
    "z_n_clusters_max_abs",
    "z_alpha_max_abs",
    "leftover_mean_max",
    "setting",
}


def test_start_labels_are_the_clusters_of_the_k_means_start() -> None:
    sim = simulate_dp_mixture(n_points=60, seed=2)
    start = initial_values(sim.data, seed=1, chains=1)[0]
    labels = start_labels(sim.data, start)
    # well-separated clusters: the start's partition is the true one, up to labels
    pairs = {(int(a), int(b)) for a, b in zip(labels, sim.labels, strict=True)}
    assert len(pairs) == sim.n_clusters == np.unique(labels).size


def test_quick_run_reports_both_sides(run_bench) -> None:
    out = run_bench("dp-mixture", "--quick")
    summary = check_result(out, "dp-mixture", KEYS)
    (row,) = out["results"]
    assert summary["ess_per_s_ratio_vs_nuts"] == pytest.approx(row["ratio"])
    for side in ("nuts", "cgs"):
        assert set(row[side]["ess"]) == set(QUANTITIES)
        assert row[side]["ess_per_s_min"] == pytest.approx(
            min(row[side]["ess"].values()) / row["wall_s"][side]
        )
    assert summary["setting"] == {"points": 40, "truncation": 6, "chains": 2, "warmup": 50,
                                  "draws": 50, "seeds": [1]}  # fmt: skip
