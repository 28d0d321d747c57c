"""``bayeswe bench laplace-sparse``: every solver timed at a small size, memory predicted."""

from __future__ import annotations

import pytest
from bench_checks import check_result

from bayeswe.bench.laplace_sparse import QUICK_SIZES
from bayeswe.samplers.laplace_sparse import SOLVERS

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_run_times_every_solver(run_bench) -> None:
    out = run_bench("laplace-sparse", "--quick")
    ((V, K),) = QUICK_SIZES
    key = f"v{V}_k{K}"
    keys = {f"{p}_{key}" for p in ("laplace_sparse_seconds", "laplace_sparse_peak_gb",
                                   "dense_hessian_gb", "nnz_hessian", "nnz_factor",
                                   "map_seconds", "map_peak_gb", "map_error",
                                   "sparse_draw_seconds_triangular")}  # fmt: skip
    for solver in SOLVERS:
        name = solver.replace("-", "_")
        keys |= {f"{name}_seconds_{key}", f"{name}_peak_gb_{key}", f"{name}_predicted_gb_{key}"}
    summary = check_result(out, "laplace-sparse", keys)
    assert summary[f"map_error_{key}"] is None
    n = (2 * V - K) * K
    assert summary[f"dense_hessian_gb_{key}"] == n * n * 8 / 1e9
    rows = {r["solver"]: r for r in out["results"]}
    assert set(rows) == set(SOLVERS)
    for row in rows.values():
        assert row["seconds"] > 0 and row["peak_gb"] > 0, row
        assert row["seconds"] >= row["factor_seconds"]
    # the sparse factor's fill was predicted exactly (block-level symbolic factorisation)
    assert (
        rows["sparse-cholesky"]["nnz_factor"] == rows["sparse-cholesky"]["predicted"]["nnz_factor"]
    )
    assert summary[f"nnz_hessian_{key}"] == rows["sparse-cholesky"]["nnz_hessian"]
