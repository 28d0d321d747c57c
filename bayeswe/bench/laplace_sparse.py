"""``bench laplace-sparse``: the parts of ``method="laplace-sparse"`` on real SOTU data.

**Measured.** For each size and each solver of
:mod:`bayeswe.samplers.laplace_sparse` (``sparse-cholesky``, ``dense``,
``block-diagonal``): wall seconds of the Hessian (or, for ``block-diagonal``, its
diagonal blocks), of the factorisation and of 1000 draws (standard normals,
triangular solves, the mode added; no ``lp``), and the peak resident memory of the
process that did them (a fresh subprocess per solver and size,
:func:`bayeswe.bench.harness.call_in_subprocess`; the interpreter and the loaded
mode are included). Before a solver runs, its memory is predicted
(:func:`~bayeswe.samplers.laplace_sparse.predict_memory`: the exact ``nnz`` of ``H``,
the factor's fill from a block-level symbolic factorisation or its dense bound); a
solver predicted to need more than 80 % of the machine's memory is recorded as not
run, with the prediction. The sparse solver's draws are timed with SuperLU's own
solves and with ``scipy.sparse.linalg.spsolve_triangular``.

**Data.** The State of the Union addresses (:func:`bayeswe.datasets.load_sotu`), the
``V`` most frequent words (``build_vocabulary(max_size=V)``), window 5, one negative
per positive (``sgns_data``, seed 1). Sizes ``V = 200, K = 10`` (every solver fits),
``V = 1000, K = 50`` and ``V = 5000, K = 100``; ``--quick``: ``V = 60, K = 3``. The mode
is computed once per size in its own subprocess: anchors (pivoted-QR rule) from the MAP
of ``sgns``, then the MAP of ``sgns_identified`` from there, both by
:func:`bayeswe.samplers.sgns_map.sgns_map` (Stan's L-BFGS runs out of memory at
``V = 5000, K = 100``: its autodiff tape needs about 23 GB), capped at ``--map-iter``
iterations (the result records whether they converged; the timings of the later parts
do not depend on it, though an unconverged point may not be positive definite, which
is then recorded).

**Equal footing.** There is no peer to race: the three solvers of one size share the
same data and mode, each runs alone in a fresh one-thread process, and the same 1000
draws are timed for each (the memory figures include the interpreter).

**Summary keys.** ``laplace_sparse_seconds_v{V}_k{K}`` and
``laplace_sparse_peak_gb_v{V}_k{K}`` (the default solver: Hessian + factor + draws; None
when it could not run), ``dense_hessian_gb_v{V}_k{K}`` (what a dense ``H`` would take),
``nnz_hessian_*``, ``nnz_factor_*`` (actual when the sparse solver ran, else predicted),
``map_seconds_*`` (the identified MAP), ``map_peak_gb_*`` (peak memory of the process
that found both MAPs) and ``map_error_*`` (None, or why the MAP failed: then no solver
runs and only the predictions are recorded), and per solver ``{solver}_seconds_*``,
``{solver}_peak_gb_*``, ``{solver}_predicted_gb_*`` (dashes as underscores), plus
``sparse_draw_seconds_triangular_*``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bayeswe.bench import harness

__all__ = ["SIZES", "QUICK_SIZES", "build_parser", "main", "run"]

SIZES: tuple[tuple[int, int], ...] = ((200, 10), (1000, 50), (5000, 100))
QUICK_SIZES: tuple[tuple[int, int], ...] = ((60, 3),)
DRAWS = 1000
#: A solver predicted to need more than this share of physical memory is not run.
MEMORY_SHARE = 0.8


def _key(V: int, K: int) -> str:
    return f"v{V}_k{K}"


def _data_path(path: str) -> str:
    """The data-only file (last K words as anchors) written before the MAPs."""
    return path.removesuffix(".npz") + "-data.npz"


def prepare(V: int, K: int, seed: int, map_iter: int, path: str) -> dict[str, Any]:
    """Build the data, find the mode and save both to ``path`` (``.npz``); in a subprocess."""
    from bayeswe.corpus import build_vocabulary, sgns_data
    from bayeswe.datasets import load_sotu
    from bayeswe.samplers.laplace_sparse import laplace_parts
    from bayeswe.samplers.sgns_map import sgns_map
    from bayeswe.sgns.identify import (
        DEFAULT_ANCHOR_RULE,
        check_anchors,
        choose_anchor_words,
        identify_transform,
        word_counts,
    )

    sotu = load_sotu()
    vocab = build_vocabulary(sotu.documents, max_size=V)
    data = sgns_data(sotu.documents, vocab, window=5, negatives=1, seed=1)
    # The memory predictions need only the pattern: saved before the MAPs, which can fail
    # (Stan's autodiff of the sgns MAP needs about 23 GB at V = 5000, K = 100).
    last = np.arange(data.V - K, data.V)
    provisional = data.stan_data(K, fixed_index=last, fixed_alpha=np.eye(K))
    np.savez(_data_path(path), **{k: np.asarray(v) for k, v in provisional.items()
                                  if k != "vocabulary"})  # fmt: skip
    # Both MAPs by bayeswe's optimizer: Stan's autodiff tape for the sgns MAP needs about
    # 23 GB at V = 5000, K = 100 (measured: the process was killed), ours O(P + V K).
    t0 = time.perf_counter()
    plain = sgns_map(data.stan_data(K), seed=seed, max_iter=map_iter)
    index = choose_anchor_words(plain.alpha, K, DEFAULT_ANCHOR_RULE, counts=word_counts(data),
                                seed=seed)  # fmt: skip
    index, matrix = check_anchors(np.asarray(index, dtype=np.int64), plain.alpha[index],
                                  V=data.V, K=K)  # fmt: skip
    anchors_s = time.perf_counter() - t0
    stan = data.stan_data(K, fixed_index=index, fixed_alpha=matrix)
    rho, alpha = identify_transform(plain.rho, plain.alpha, index, matrix)
    free = np.setdiff1d(np.arange(data.V), index)
    # only the MAP runs here (block-diagonal needs no memory to speak of)
    start = {"rho": rho, "alpha_free": alpha[free]}
    parts = laplace_parts(stan, seed=seed, solver="block-diagonal", draws=1, inits=start,
                          optimizer="bayeswe", map_options={"max_iter": map_iter})  # fmt: skip
    np.savez(
        path,
        rho=parts.rho,
        alpha_free=parts.alpha_free,
        **{k: np.asarray(v) for k, v in stan.items() if k != "vocabulary"},
    )
    return {"V": data.V, "P": int(data.P), "N": int(data.total),
            "anchors_map_seconds": anchors_s, "map_seconds": parts.map_seconds,
            "sgns_map_converged": plain.converged, "sgns_map_iterations": plain.iterations,
            "sgns_map_message": plain.message}  # fmt: skip


def measure(path: str, solver: str, draws: int, seed: int) -> dict[str, Any]:
    """Time the Hessian, the factor and ``draws`` draws of one solver; in a subprocess."""
    from bayeswe.samplers import laplace_sparse as ls

    saved = np.load(path)
    stan = {k: saved[k] for k in saved.files if k not in ("rho", "alpha_free")}
    stan = {k: (v.item() if v.ndim == 0 else v) for k, v in stan.items()}
    mode = {"rho": saved["rho"], "alpha_free": saved["alpha_free"]}
    try:
        parts = ls.laplace_parts(stan, seed=seed, solver=solver, mode=mode, draws=draws)
    except ls.HessianNotPositiveDefiniteError as err:
        return {"solver": solver, "error": str(err)}
    t0 = time.perf_counter()
    ls.draw(parts, draws, seed=seed)
    draw_s = time.perf_counter() - t0
    out = {
        "solver": solver,
        "hessian_seconds": parts.hessian_seconds,
        "factor_seconds": parts.factor_seconds,
        "draw_seconds": draw_s,
        "seconds": parts.hessian_seconds + parts.factor_seconds + draw_s,
        "nnz_hessian": parts.problem.nnz_hessian if parts.hessian is not None else 0,
        "nnz_factor": parts.factor.nnz,
        "predicted_gb": parts.predicted["total_bytes"] / 1e9,
    }
    if solver == "sparse-cholesky":
        eps = np.random.default_rng(seed).standard_normal((parts.mean.size, 64))
        t0 = time.perf_counter()
        parts.factor.transform(eps, how="superlu")
        out["superlu_64_draws_seconds"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        parts.factor.transform(eps, how="triangular")
        out["triangular_64_draws_seconds"] = time.perf_counter() - t0
    return out


def _predict(path: str, solver: str, draws: int) -> dict[str, Any]:
    from bayeswe.samplers import laplace_sparse as ls

    saved = np.load(path)
    stan = {k: saved[k] for k in saved.files if k not in ("rho", "alpha_free")}
    stan = {k: (v.item() if v.ndim == 0 else v) for k, v in stan.items()}
    return ls.predict_memory(stan, solver, draws=draws)


def run(*, quick: bool = False, seed: int = 1, map_iter: int = 1000) -> dict[str, Any]:
    """Every size and solver (see the module docstring)."""
    from bayeswe.samplers.laplace_sparse import SOLVERS

    limit = MEMORY_SHARE * os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    summary: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for V, K in QUICK_SIZES if quick else SIZES:
            key = _key(V, K)
            path = str(Path(tmp) / f"{key}.npz")
            n = (2 * V - K) * K
            summary[f"dense_hessian_gb_{key}"] = n * n * 8 / 1e9
            try:
                prep = harness.call_in_subprocess(
                    "bayeswe.bench.laplace_sparse:prepare", V, K, seed, map_iter, path, threads=1
                )
                map_error = None
                summary[f"map_seconds_{key}"] = prep.value["map_seconds"]
                summary[f"map_peak_gb_{key}"] = prep.peak_rss_gb
                harness.progress({"size": key, **prep.value})
            except harness.BenchSubprocessError as err:
                map_error = "MAP failed: " + str(err).strip().splitlines()[-1][-300:]
                summary[f"map_seconds_{key}"] = None
                summary[f"map_peak_gb_{key}"] = None
                harness.progress({"size": key, "error": map_error})
            summary[f"map_error_{key}"] = map_error
            for solver in SOLVERS:
                name = solver.replace("-", "_")
                need = _predict(path if map_error is None else _data_path(path), solver, DRAWS)
                row: dict[str, Any] = {"size": key, "V": V, "K": K, "solver": solver,
                                       "predicted": need}  # fmt: skip
                if map_error is not None:
                    row["not_run"] = map_error
                elif need["total_bytes"] > limit:
                    row["not_run"] = f"predicted {need['total_bytes'] / 1e9:.3g} GB"
                else:
                    res = harness.call_in_subprocess(
                        "bayeswe.bench.laplace_sparse:measure", path, solver, DRAWS, seed,
                        threads=1,
                    )  # fmt: skip
                    row.update(res.value, peak_gb=res.peak_rss_gb)
                rows.append(row)
                harness.progress(row)
                ran = "seconds" in row
                summary[f"{name}_seconds_{key}"] = row.get("seconds")
                summary[f"{name}_peak_gb_{key}"] = row.get("peak_gb")
                summary[f"{name}_predicted_gb_{key}"] = need["total_bytes"] / 1e9
                if solver == "sparse-cholesky":
                    summary[f"laplace_sparse_seconds_{key}"] = row.get("seconds")
                    summary[f"laplace_sparse_peak_gb_{key}"] = row.get("peak_gb")
                    summary[f"nnz_hessian_{key}"] = need["nnz_hessian"]
                    summary[f"nnz_factor_{key}"] = row["nnz_factor"] if ran else need["nnz_factor"]
                    summary[f"sparse_draw_seconds_triangular_{key}"] = (
                        row["triangular_64_draws_seconds"] * DRAWS / 64 if ran else None
                    )
    return {
        "summary": summary,
        "settings": {
            "corpus": "SOTU",
            "window": 5,
            "negatives": 1,
            "draws": DRAWS,
            "seed": seed,
            "map_iter": map_iter,
            "threads": 1,
            "memory_limit_gb": limit / 1e9,
        },  # fmt: skip
        "results": rows,
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bench laplace-sparse`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench laplace-sparse", description=__doc__)
    harness.add_common_options(parser, quick="V = 60, K = 3 only (seconds)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--map-iter", type=int, default=1000,
                        help="L-BFGS iteration cap of each MAP (1000)")  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    if args.map_iter < 1:
        raise SystemExit("--map-iter must be >= 1")
    return harness.run_cli(
        "laplace-sparse",
        args,
        lambda: run(quick=args.quick, seed=args.seed, map_iter=args.map_iter),
        argv=argv,
        peers=("scipy",),
    )
