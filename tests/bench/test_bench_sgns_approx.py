"""``bayeswe bench sgns-approx``: interval coverage and width of the approximations."""

from __future__ import annotations

import numpy as np
import pytest
from bench_checks import check_result

from bayeswe.bench.sgns_approx import METHODS, _cosines, _intervals, summarize

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def _keys(sizes: tuple[int, ...]) -> set[str]:
    keys = {"laplace_sparse_width_ratio_co_vs_stan_laplace", "failed_fits"}
    for method in METHODS:
        m = method.replace("-", "_")
        keys |= {f"{m}_coverage90_{w}_n{n}" for w in ("co", "cos") for n in sizes}
        if method != "pg-gibbs":
            keys |= {f"{m}_width_ratio_{w}_vs_pg_gibbs" for w in ("co", "cos")}
    return keys


def test_quick_run_scores_every_method(run_bench) -> None:
    out = run_bench("sgns-approx", "--quick")
    summary = check_result(out, "sgns-approx", _keys((2_000, 20_000)))
    assert summary["failed_fits"] == 0
    rows = out["results"]
    assert {r["method"] for r in rows} == set(METHODS) and len(rows) == 2 * len(METHODS)
    for row in rows:
        assert 0.0 <= row["coverage90_co"] <= 1.0 and 0.0 <= row["coverage90_cos"] <= 1.0
        if row["method"] == "pg-gibbs":  # the reference against itself
            assert row["width_ratio_co_vs_pg_gibbs"] == row["width_ratio_cos_vs_pg_gibbs"] == 1.0
    # the summary is the mean over seeds of the rows (one seed here)
    for row in rows:
        key = f"{row['method'].replace('-', '_')}_coverage90_co_n{row['N']}"
        assert summary[key] == pytest.approx(row["coverage90_co"])
    # Stan's Laplace and ours approximate the same Gaussian: widths within 15 %
    assert 0.85 < summary["laplace_sparse_width_ratio_co_vs_stan_laplace"] < 1.15


def test_intervals_and_cosines_are_exact() -> None:
    values = np.arange(1.0, 101.0)[:, None] * np.ones((1, 2))
    lo, hi = _intervals(values)
    # inverted-CDF quantiles at 0.05 and 0.95 of 1..100
    assert lo.tolist() == [5.0, 5.0] and hi.tolist() == [95.0, 95.0]
    rho = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    np.testing.assert_allclose(_cosines(rho), [0.0, 1 / np.sqrt(2), 1 / np.sqrt(2)])


def test_summary_averages_over_seeds_and_takes_median_ratios() -> None:
    rows = [
        {"method": "jj-vb", "N": 10, "seed": s, "coverage90_co": c, "coverage90_cos": c,
         "width_ratio_co_vs_pg_gibbs": r, "width_ratio_cos_vs_pg_gibbs": r}
        for s, c, r in ((0, 0.8, 0.5), (1, 0.9, 0.7), (2, 0.7, 0.9))
    ] + [{"method": "advi", "N": 10, "seed": 0, "error": "boom"}]  # fmt: skip
    summary = summarize(rows, (10,))
    assert summary["jj_vb_coverage90_co_n10"] == pytest.approx(0.8)
    assert summary["jj_vb_width_ratio_co_vs_pg_gibbs"] == pytest.approx(0.7)
    assert summary["advi_coverage90_co_n10"] is None and summary["failed_fits"] == 1
