"""``bayeswe bench pg-gibbs``: PG blocked Gibbs for identified SGNS against Stan's NUTS.

**Compared.** :func:`bayeswe.samplers.pg_gibbs.sample_pg_gibbs` with the default PG
schedule (``omega="per-sweep"``) on each ``--threads`` count (default 1 and 2) and
the paper's Algorithm 1 (``omega="per-block"``) and the default schedule with Adler's
overrelaxed Gaussian steps (``overrelax``, ``--overrelax A``, default -0.5; 0 leaves it
out) on the first count, against NUTS of
``sgns_identified.stan`` (``bayeswe.fit``, one chain, one core); the precision
accumulation kernel against a BLAS product of the same shape
(:func:`gflops_measurement`); and a Congress-scale sweep (time and memory).

**Data.** ``simulate_sgns`` with the true context vectors of the last K words fixed,
on the paper's Table 3 grid: N in {5e5, 5e4}, (K, V) in {(20, 200), (10, 200),
(5, 100)}, S in {10, 1} (``--setting V,K,N,S[,DIST]`` picks settings, ``DIST``
``uniform``, the default, or ``zipf``, eq. (18)). ``--scaling``: the grid
:data:`SCALING_GRID`, the Table 3 settings at S = 1 followed by larger Zipf settings,
for the question of where Gibbs overtakes NUTS as K, V and N grow; NUTS runs "as far as
it finishes": ``--nuts-timeout SECONDS`` stops a chain that runs longer (the setting is
then recorded as unfinished for NUTS, with the iteration each stopped chain had reached;
its other seeds are not started, and Gibbs still runs). ``--nuts-jobs J`` runs J NUTS
chains (seeds) side by side, one core each, once the Gibbs runs have finished alone;
each chain's seconds per leapfrog step are recorded to show whether they slowed each
other. ``--no-per-block`` leaves out Algorithm 1. Congress scale:
V = 5000, K = 100, ~3e6 unique pairs drawn Zipf-like (:func:`_congress`).
``--quick``: the one setting (40, 3, 5e3, 1) unless ``--setting`` names others, 50
warm-up + 100 kept iterations,
Congress at V = 1000, K = 20, 1e5 pairs, 2 sweeps, the GFLOP/s workload on 32 rows, the
BLAS peak timed once.

**Equal footing.** Both samplers start at the same point, Stan's L-BFGS mode (not
timed), and run the same number of warm-up and kept iterations (``--warmup``,
default 200, and ``--draws``, default 1000; with ``S`` inner steps a Gibbs iteration
counts as ``S`` sweeps, see :func:`_setting`). The headline is ESS per second of the
**sampling phase** on both sides (NUTS's warm-up costs several times its sampling
iterations here, Gibbs's warm-up sweeps cost what its kept ones do, so dividing by
total time would compare warm-up schedules); ESS per second of the whole run is the
second figure. Timings: Gibbs from its per-sweep callback and its ``wall_time``; NUTS
from the elapsed times Stan writes in its CSV file and its ``wall_time``. Each of the
``--seeds`` (default 1, 2, 3) runs one chain on each side, and every figure is
reported as min/median/max over the seeds; a ratio is the ratio of the medians, with
the per-seed ratios' range beside it. Gibbs is compiled by an untimed 2-sweep run first.
ESS: ArviZ's bulk ESS of each of 200 random co-occurrence probabilities
``sigmoid(rho_w . alpha_v)``, median over the pairs, computed by the same function
for both samplers; beside it the median tail ESS of the same probabilities (what a
90 % interval rests on) and the ESS of the log density ``lp``, whose ESS overrelaxation
lowers while it raises the others. The headline ratio puts Gibbs on one thread against
NUTS on one core. The GFLOP/s measurement runs in its own process with every thread count set to
1 (:func:`bayeswe.bench.harness.call_in_subprocess`); each Congress run in its own
process (its own peak RSS), with all Numba threads and with each ``--threads`` count.

**Summary keys.**

* ``ess_per_s_ratio_vs_nuts`` - sampling-phase ESS per second of Gibbs (one thread,
  default schedule) over NUTS's, ratio of the medians over seeds, at K = 20, V = 200,
  N = 5e5, S = 1 when that setting ran (else the first setting run); ``None`` with
  ``--no-nuts``; ``ess_per_s_ratio_vs_nuts_min``/``_max`` - the range of the per-seed
  ratios; ``ess_per_s_ratio_vs_nuts_total_time`` - the same ratio with each side's
  whole run (warm-up included) in the denominator;
* ``ess_per_s_ratio_vs_nuts_gibbs_{T}_threads`` (``T`` the largest ``--threads``
  count) - the same with Gibbs on ``T`` threads;
* ``ess_per_s_ratio_vs_nuts_per_block`` - the same for Algorithm 1 on one thread;
* ``ratio_setting`` - the (V, K, N, S) of those ratios; ``gibbs_threads_for_headline``
  - the thread count of the first ratio; ``seeds``, ``warmup``, ``draws`` - the runs
  behind them;
* ``ess_per_s_ratio_vs_nuts_by_setting`` - ``{"V,K,N,S,DIST": ratio}`` for every
  setting, the same ratio as the headline (Gibbs on the first ``--threads`` count);
  ``None`` where NUTS did not finish; ``nuts_unfinished_settings`` - those settings;
* ``ess_per_s_ratio_vs_nuts_largest_finished`` - that ratio at the largest setting
  where every NUTS chain finished (largest by ``K V``, then ``N``), with its per-seed
  range in ``..._min``/``..._max`` and the setting in ``largest_finished_setting``;
* ``overrelax`` - ``A`` (``None`` with ``--overrelax 0``);
  ``ess_per_s_ratio_vs_nuts_overrelaxed`` with ``_min``/``_max`` - the headline ratio
  for Gibbs with overrelaxed steps (one thread), and
  ``ess_per_s_ratio_vs_nuts_overrelaxed_by_setting`` / ``..._largest_finished`` (with
  ``_min``/``_max``) as above;
* ``tail_ess_per_s_ratio_vs_nuts``, ``lp_ess_per_s_ratio_vs_nuts`` and their
  ``_overrelaxed`` forms - the headline ratio with the tail ESS of the probabilities,
  and with the ESS of ``lp``, in place of the bulk ESS (ratios of medians);
* ``congress_s_per_sweep`` - median seconds per Congress-scale sweep (all Numba
  threads; ``None`` with ``--no-congress``); ``congress_peak_gb`` - that process's peak
  resident memory in GB;
* ``gflops_fraction_of_peak`` - GFLOP/s of the accumulation kernel over a one-thread
  BLAS product of the same shape (ratio of medians).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import re
import statistics
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bayeswe.bench import harness


def _median_ess(idata: Any, pairs: np.ndarray, method: str = "bulk") -> float:
    """Median over ``pairs`` of ArviZ's ``method`` ESS of ``sigmoid(rho_w . alpha_v)``."""
    import arviz as az
    from scipy.special import expit

    rho, alpha = idata.posterior["rho"].values, idata.posterior["alpha"].values
    w, v = pairs
    p = expit(np.einsum("cdpk,cdpk->cdp", rho[:, :, w], alpha[:, :, v]))
    ess = np.array([az.ess(p[..., j], method=method) for j in range(p.shape[-1])])
    return float(np.median(ess))


def _ess_record(idata: Any, pairs: np.ndarray, sampling_s: float, wall_s: float) -> dict:
    """Bulk and tail ESS of the probabilities and the ESS of ``lp``, per second."""
    import arviz as az

    ess = _median_ess(idata, pairs)
    tail = _median_ess(idata, pairs, "tail")
    lp_ess = float(az.ess(idata.sample_stats["lp"].values))
    return {
        "ess": ess,
        "ess_per_s": ess / sampling_s,
        "ess_per_s_total": ess / wall_s,
        "tail_ess": tail,
        "tail_ess_per_s": tail / sampling_s,
        "lp_ess": lp_ess,
        "lp_ess_per_s": lp_ess / sampling_s,
    }


def _map_start(data: dict[str, Any], seed: int) -> dict[str, np.ndarray]:
    """Stan's L-BFGS mode of ``sgns_identified``: the common start of Gibbs and NUTS."""
    import bayeswe

    mode = bayeswe.fit("sgns_identified", data, method="map", seed=seed)
    return {
        "rho": mode.posterior["rho"].values[0, 0],
        "alpha_free": mode.posterior["alpha_free"].values[0, 0],
    }


#: ``--scaling``: the paper's Table 3 settings at S = 1 (uniform), then larger Zipf
#: settings (K = 50, V = 1000; K = 100, V = 2000; N up to 1e7).
SCALING_GRID: tuple[tuple[int, int, int, int, str], ...] = (
    *(
        (V, K, N, 1, "uniform")
        for N in (50_000, 500_000)
        for (K, V) in ((5, 100), (10, 200), (20, 200))
    ),
    (1000, 50, 1_000_000, 1, "zipf"),
    (1000, 50, 10_000_000, 1, "zipf"),
    (2000, 100, 10_000_000, 1, "zipf"),
)

DISTRIBUTIONS = ("uniform", "zipf")


def setting_label(V: int, K: int, N: int, S: int, dist: str) -> str:
    """``"V,K,N,S,DIST"``: the key of a setting in the summary."""
    return f"{V},{K},{N},{S},{dist}"


def parse_setting(text: str) -> tuple[int, int, int, int, str]:
    """``"V,K,N,S"`` or ``"V,K,N,S,DIST"`` (``DIST`` defaults to ``uniform``).

    Raises :class:`~bayeswe.bench.harness.BenchError` naming the problem.
    """
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (4, 5):
        raise harness.BenchError(f"--setting {text!r}: expected V,K,N,S or V,K,N,S,DIST")
    dist = parts[4] if len(parts) == 5 else "uniform"
    if dist not in DISTRIBUTIONS:
        raise harness.BenchError(f"--setting {text!r}: DIST must be one of {DISTRIBUTIONS}")
    try:
        V, K, N, S = (int(p) for p in parts[:4])
    except ValueError:
        raise harness.BenchError(f"--setting {text!r}: V, K, N and S must be integers") from None
    if min(V, K, N, S) < 1 or K >= V:
        raise harness.BenchError(f"--setting {text!r}: need V > K >= 1, N >= 1, S >= 1")
    return V, K, N, S, dist


_ELAPSED = re.compile(r"([0-9.eE+-]+) seconds \((Warm-up|Sampling)\)")
_ITERATION = re.compile(r"Iteration:\s*(\d+)\s*/\s*(\d+)")

#: Stan prints its progress every this many iterations in the benchmark's NUTS chains,
#: so that a chain stopped by the timeout says how far it got. The printing is inside
#: the timed phases, but it is one short line per 10 iterations.
NUTS_REFRESH = 10


def iterations_reached(console: str) -> int:
    """The last iteration Stan reported in ``console`` (0 when it reported none)."""
    found = _ITERATION.findall(console)
    return int(found[-1][0]) if found else 0


def stan_phase_times(output_dir: Path) -> tuple[float, float]:
    """Warm-up and sampling seconds that Stan wrote at the end of its CSV file.

    ``output_dir`` holds the CSV file of one Stan run. Raises
    :class:`~bayeswe.bench.harness.BenchError` if no CSV file there states both times.
    """
    times = {}
    for path in output_dir.glob("*.csv"):
        for line in path.read_text().splitlines():
            found = _ELAPSED.search(line) if line.startswith("#") else None
            if found:
                times[found.group(2)] = float(found.group(1))
    if set(times) != {"Warm-up", "Sampling"}:
        raise harness.BenchError(f"no elapsed times in Stan's CSV files in {output_dir}")
    return times["Warm-up"], times["Sampling"]


def gibbs_run(data: dict[str, Any], warm: int, kept: int, **options: Any) -> dict[str, Any]:
    """One PG-Gibbs chain; its total wall time and the seconds of its kept sweeps.

    ``warm`` warm-up and ``kept`` kept iterations; ``options`` go to
    :func:`~bayeswe.samplers.pg_gibbs.sample_pg_gibbs`. The sampler calls back after
    every sweep; the sampling phase runs from the end of the last warm-up sweep to the
    end of the last kept one. Returns ``idata`` (the draws), ``wall_s`` (the sampler's
    wall time), ``sampling_s`` and ``threads``.
    """
    from bayeswe.samplers.pg_gibbs import sample_pg_gibbs

    stamps: dict[int, float] = {}

    def mark(done: int) -> None:
        if done in (warm, warm + kept):
            stamps[done] = time.perf_counter()

    start = time.perf_counter()
    g = sample_pg_gibbs(data, iter_warmup=warm, iter_sampling=kept, callback=mark, **options)
    t_warm = stamps.get(warm, start)
    return {
        "idata": g,
        "wall_s": float(g.attrs["wall_time"]),
        "sampling_s": stamps[warm + kept] - t_warm,
        "threads": int(g.attrs["threads_per_chain"]),
    }


def _spread(values: Sequence[float]) -> dict[str, float]:
    return {
        "min": float(np.min(values)),
        "median": float(np.median(values)),
        "max": float(np.max(values)),
    }


def _nuts_chain(
    data: dict[str, Any],
    start: dict[str, np.ndarray],
    seed: int,
    warmup: int,
    draws: int,
    pairs: np.ndarray,
    timeout: float | None,
) -> dict[str, Any]:
    """One NUTS chain (one core) from ``start``: its ESS record and its phase times.

    Raises :class:`~bayeswe.errors.StanTimeoutError` when it runs past ``timeout``.
    ``s_per_leapfrog`` (sampling seconds over the sampling phase's leapfrog steps) is
    the cost of one gradient, which does not depend on N once every pair is present:
    it shows whether chains run side by side (``--nuts-jobs``) slowed each other.
    """
    import tempfile

    import bayeswe

    with tempfile.TemporaryDirectory(prefix="bayeswe-bench-nuts-") as tmp:
        n = bayeswe.fit(
            "sgns_identified", data, method="nuts", seed=seed, chains=1,
            iter_warmup=warmup, iter_sampling=draws, inits=start,
            output_dir=tmp, timeout=timeout, refresh=NUTS_REFRESH,
        )  # fmt: skip
        warm_s, sampling_s = stan_phase_times(Path(tmp))
    steps = n.sample_stats["n_steps"].values
    return {
        "seed": seed,
        **_ess_record(n, pairs, sampling_s, float(n.attrs["wall_time"])),
        "warmup_s": warm_s,
        "sampling_s": sampling_s,
        "wall_s": float(n.attrs["wall_time"]),
        "leapfrogs_per_draw": float(steps.mean()),
        "s_per_leapfrog": sampling_s / float(steps.sum()),
        "max_treedepth_fraction": float(np.mean(n.sample_stats["tree_depth"].values >= 10)),
    }


def _setting(
    V: int,
    K: int,
    N: int,
    S: int,
    warmup: int,
    draws: int,
    run_nuts: bool,
    seeds: Sequence[int],
    data_seed: int,
    threads: Sequence[int],
    cache: dict[tuple[int, int, int, str], dict[str, Any]],
    dist: str = "uniform",
    nuts_timeout: float | None = None,
    per_block: bool = True,
    overrelax: float = 0.0,
    nuts_jobs: int = 1,
) -> dict[str, Any]:
    """Gibbs (each thread count, and Algorithm 1) and NUTS at one setting, over ``seeds``.

    Equal footing: the same data, the same start (Stan's L-BFGS mode, untimed), the
    same number of warm-up and kept iterations on both sides (a Gibbs iteration with
    ``S`` inner steps counts as ``S`` sweeps: Gibbs keeps ``max(draws // S, 100)``
    after ``max(warmup // S, 10)``), and the same ESS function. ESS per second of the
    sampling phase is the headline (warm-up excluded on both sides: Gibbs from its
    per-sweep callback, NUTS from the elapsed times Stan writes in its CSV file); ESS
    per second of the whole run (the samplers' own ``wall_time``) is the second figure.
    Each seed is one chain on each side; the ratio's spread pairs the i-th seed of
    each side. A NUTS chain stopped by ``nuts_timeout`` marks the setting unfinished
    for NUTS (``nuts_finished`` false, no ratio); the remaining seeds are not started.
    Every stopped chain is listed in ``nuts_stopped_chains`` with the last iteration
    Stan reported (to within :data:`NUTS_REFRESH`) of its ``warmup + draws``: how far
    NUTS got in the time Gibbs was measured against.
    With ``nuts_jobs`` > 1 that many NUTS chains (one seed each, each a one-threaded
    Stan process) run at the same time, after every Gibbs run has finished alone; once
    a chain is stopped, the chains already running finish and no other is started.
    """
    from bayeswe.errors import StanTimeoutError
    from bayeswe.samplers.pg_gibbs import sample_pg_gibbs
    from bayeswe.sgns import simulate_sgns

    key = (V, K, N, dist)
    if key not in cache:  # the data, start and NUTS runs do not depend on S
        sim = simulate_sgns(V, K, N, seed=data_seed, distribution=dist)
        fixed = np.arange(V - K, V)
        data = sim.data.stan_data(K, prior_sd=1.0, fixed_index=fixed, fixed_alpha=sim.alpha[fixed])
        cache[key] = {"data": data, "start": _map_start(data, data_seed)}
    data, start = cache[key]["data"], cache[key]["start"]
    pairs = np.random.default_rng(data_seed).integers(0, V, size=(2, 200))
    kept = max(draws // S, 100)
    warm = max(warmup // S, 10)
    out: dict[str, Any] = {
        "V": V, "K": K, "N": N, "S": S, "distribution": dist, "P": int(data["P"]),
        "seeds": list(seeds),
        "gibbs_warmup": warm, "gibbs_kept": kept, "gibbs_sweeps_total": (warm + kept) * S,
    }  # fmt: skip
    common = {"chains": 1, "inner_steps": S, "inits": start}
    sample_pg_gibbs(data, seed=seeds[0], iter_warmup=0, iter_sampling=2, **common)  # compile
    sides: dict[str, list[dict[str, float]]] = {}
    runs = [(f"gibbs_t{t}", {"threads_per_chain": t}) for t in threads]
    if overrelax:
        runs.append(
            (
                f"gibbs_overrelax_t{threads[0]}",
                {"threads_per_chain": threads[0], "overrelax": overrelax},
            )
        )
    if per_block:
        runs.append(
            (
                f"gibbs_per_block_t{threads[0]}",
                {"threads_per_chain": threads[0], "omega": "per-block"},
            )
        )
    for name, options in runs:
        sides[name] = []
        for seed in seeds:
            r = gibbs_run(data, warm, kept, seed=seed, **common, **options)
            sides[name].append(
                {
                    "seed": seed,
                    **_ess_record(r["idata"], pairs, r["sampling_s"], r["wall_s"]),
                    "sampling_s": r["sampling_s"],
                    "wall_s": r["wall_s"],
                    "sweeps_per_s": kept * S / r["sampling_s"],
                    "threads": r["threads"],
                }
            )
            harness.progress({name: sides[name][-1]})
    if run_nuts:
        if "nuts" not in cache[key]:
            cache[key]["nuts"] = []
            cache[key]["nuts_stopped_chains"] = []
            stopped = threading.Event()

            def chain(seed: int) -> dict[str, Any] | int | None:
                """A finished chain's record, the iteration a stopped one reached, or None."""
                if stopped.is_set():
                    # "as far as it finishes": the other seeds would not finish either
                    return None
                try:
                    return _nuts_chain(data, start, seed, warmup, draws, pairs, nuts_timeout)
                except StanTimeoutError as exc:
                    stopped.set()
                    return iterations_reached(exc.stan_message)

            # each chain is its own single-threaded Stan process; the pool hands out the
            # seeds in order and its map returns their records in that order
            with concurrent.futures.ThreadPoolExecutor(max_workers=nuts_jobs) as pool:
                for seed, record in zip(seeds, pool.map(chain, seeds), strict=True):
                    if isinstance(record, int):
                        reached = {
                            "seed": seed,
                            "iterations_reached": record,
                            "iterations": warmup + draws,
                        }
                        cache[key]["nuts_stopped_chains"].append(reached)
                        harness.progress({"nuts_stopped": reached})
                    elif isinstance(record, dict):
                        cache[key]["nuts"].append(record)
                        harness.progress({"nuts": record})
        out["nuts_warmup"], out["nuts_draws"] = warmup, draws
        out["nuts_timeout_s"] = nuts_timeout
        out["nuts_jobs"] = nuts_jobs
        stopped_chains = cache[key]["nuts_stopped_chains"]
        out["nuts_finished"] = not stopped_chains
        # the first stopped seed, in seed order (kept for the files written before the list)
        out["nuts_stopped"] = (
            {"seed": stopped_chains[0]["seed"], "timeout_s": nuts_timeout}
            if stopped_chains
            else None
        )
        out["nuts_stopped_chains"] = stopped_chains
        if out["nuts_finished"]:
            sides["nuts"] = cache[key]["nuts"]
        else:  # the finished chains are kept for the record, but give no ratio
            out["nuts_runs_before_stop"] = cache[key]["nuts"]
    out["runs"] = sides
    kinds = ("ess_per_s", "ess_per_s_total", "tail_ess_per_s", "lp_ess_per_s")
    for name, rows in sides.items():
        for kind in (*kinds, "ess"):
            out[f"{name}_{kind}"] = _spread([r[kind] for r in rows])
    if "nuts" in sides:
        for name in sides:
            if name == "nuts":
                continue
            for kind in kinds:
                pairs_of_runs = zip(sides[name], sides["nuts"], strict=True)
                per_seed = [g[kind] / n[kind] for g, n in pairs_of_runs]
                out[f"{name}_ratio_{kind}"] = {
                    "of_medians": out[f"{name}_{kind}"]["median"] / out[f"nuts_{kind}"]["median"],
                    **{f"per_seed_{k}": v for k, v in _spread(per_seed).items()},
                }
    return out


def gflops_measurement(
    K: int = 100, rows: int = 128, pairs: int = 1024, repeats: int = 9, seed: int = 0
) -> dict[str, float]:
    """Achieved GFLOP/s of the precision accumulation against a BLAS product of the same shape.

    Workload (fixed; 1.3 GFLOP at the defaults): ``rows`` precision matrices
    ``sum_j omega_j x_j x_j'`` of ``pairs`` covariates each (``K`` wide, rows of a
    ``5000 x K`` context matrix gathered through an index, as in a Congress-scale
    sweep), accumulated by :func:`bayeswe.kernels.pg_gibbs.accumulate_rows` (a
    ``prange`` over rows, all Numba threads): ``K (K + 1)`` flops per pair (the lower
    triangle it computes; the Cholesky and solves are not counted). Reference
    ("peak"): for each row, NumPy's ``A' B`` with ``A``, ``B`` two contiguous copies
    of the weighted, gathered ``pairs x K`` covariates (two buffers, so BLAS runs a
    general DGEMM of this shape on all cores): ``2 K^2`` flops per pair. The two are
    timed alternately ``repeats`` times, so both see the same load; the GFLOP/s are
    medians, ``fraction`` is the ratio of the medians, ``fraction_min`` and
    ``fraction_max`` span the per-repeat ratios.
    """
    from bayeswe.kernels import pg_gibbs as kern

    rng = np.random.default_rng(seed)
    cov = rng.normal(size=(5000, K))
    other = rng.integers(0, cov.shape[0], size=rows * pairs).astype(np.int32)
    omega = rng.gamma(2.0, size=rows * pairs)
    kappa = rng.normal(size=rows * pairs)
    ptr = np.arange(0, rows * pairs + 1, pairs, dtype=np.int64)
    a = (np.sqrt(omega)[:, None] * cov[other]).reshape(rows, pairs, K)
    b = a.copy()
    prec = np.zeros((rows, K, K))
    out = np.empty((K, K))
    kern.accumulate_rows(prec, cov, ptr, other, omega, kappa)  # compile
    ours, blas = [], []

    def blas_products() -> None:
        for r in range(rows):
            np.matmul(a[r].T, b[r], out=out)

    for _ in range(repeats):
        prec[:] = 0.0
        t = harness.timed(kern.accumulate_rows, prec, cov, ptr, other, omega, kappa).wall_s
        ours.append(rows * pairs * K * (K + 1) / t / 1e9)
        blas.append(rows * pairs * 2 * K * K / harness.timed(blas_products).wall_s / 1e9)
    ratios = np.array(ours) / np.array(blas)
    return {
        "K": K,
        "rows": rows,
        "pairs_per_row": pairs,
        "repeats": repeats,
        "gflops": float(np.median(ours)),
        "peak_gflops_blas_same_shape": float(np.median(blas)),
        "fraction": float(np.median(ours) / np.median(blas)),
        "fraction_min": float(ratios.min()),
        "fraction_max": float(ratios.max()),
    }


def _peak_gflops(repeats: int = 5) -> float:
    """GFLOP/s of a large float64 matrix product (BLAS, all cores): median of ``repeats``."""
    a = np.random.default_rng(0).normal(size=(2000, 2000))
    a @ a
    times, _ = harness.repeat_timings(lambda: a @ a, repeats)
    return 2 * 2000**3 / statistics.median(times) / 1e9


def _congress(V: int, K: int, P: int, sweeps: int, seed: int) -> dict[str, Any]:
    """Seconds per sweep at Congress scale (run in its own process: :func:`_congress_run`)."""
    import numba

    from bayeswe.samplers.pg_gibbs import SGNSGibbsProblem, init_state, step

    rng = np.random.default_rng(seed)
    # Zipf-like: cells drawn with probability ∝ 1/((rank_w + 2.7)(rank_v + 2.7)), unique.
    weight = 1.0 / (np.arange(1, V + 1) + 2.7)
    weight /= weight.sum()
    target = rng.choice(V, size=4 * P, p=weight)
    context = rng.choice(V, size=4 * P, p=weight)
    cells = rng.permutation(np.unique(target.astype(np.int64) * V + context))[:P]
    t, c = np.divmod(np.sort(cells), V)
    n = 1 + rng.geometric(0.3, size=len(t))
    n_pos = rng.binomial(n, 0.3)
    fixed = np.arange(V - K, V)
    data = {
        "V": V, "K": K, "P": len(t), "target_word": t + 1, "context_word": c + 1,
        "n": n, "n_pos": n_pos, "lambda": 1.0, "grainsize": 0, "fixed_index": fixed + 1,
        "fixed_alpha": np.eye(K) + 0.1 * rng.normal(size=(K, K)),
    }  # fmt: skip
    del target, context, cells
    problem = SGNSGibbsProblem.from_stan_data(data)
    state = init_state(problem, seed=seed, chain=0)
    state, _ = step(problem, state)  # compile
    times = []
    for _ in range(sweeps):
        sweep = harness.timed(step, problem, state)
        state, _ = sweep.value
        times.append(sweep.wall_s)
    return {
        "V": V,
        "K": K,
        "P": int(len(t)),
        "N": int(n.sum()),
        "sweeps": sweeps,
        "s_per_sweep": float(np.median(times)),
        "s_per_sweep_all": times,
        "threads": numba.get_num_threads(),
        "omega": "per-sweep",
    }


def _congress_run(V: int, K: int, P: int, sweeps: int, seed: int, threads: int | None) -> dict:
    """:func:`_congress` in a fresh process (``threads``: its Numba/BLAS/OpenMP threads).

    ``peak_gb`` is that process's peak resident memory.
    """
    res = harness.call_in_subprocess(
        "bayeswe.bench.pg_gibbs:_congress", V, K, P, sweeps, seed, threads=threads
    )
    return {**res.value, "peak_gb": res.peak_rss_gb}


def _ratio_keys(key: str, ratio: dict[str, float] | None) -> dict[str, float | None]:
    """``key``, ``key_min``, ``key_max``: a ratio of medians and its per-seed range."""
    if ratio is None:
        return {key: None, f"{key}_min": None, f"{key}_max": None}
    return {
        key: ratio["of_medians"],
        f"{key}_min": ratio["per_seed_min"],
        f"{key}_max": ratio["per_seed_max"],
    }


def _scaling_summary(
    settings: Sequence[dict[str, Any]],
    threads: int,
    ran_nuts: bool,
    side: str = "gibbs",
    tag: str = "",
) -> dict:
    """The ratio at every setting, and at the largest one where NUTS finished.

    ``side``: the Gibbs runs compared (``gibbs`` or ``gibbs_overrelax``); ``tag`` is
    inserted into the key names (``_overrelaxed``).
    """
    by_setting: dict[str, float | None] = {}
    unfinished: list[str] = []
    finished: list[dict[str, Any]] = []
    name = f"{side}_t{threads}_ratio_ess_per_s"
    for s in settings:
        label = setting_label(s["V"], s["K"], s["N"], s["S"], s["distribution"])
        ratio = s.get(name)
        by_setting[label] = ratio["of_medians"] if ratio else None
        if ran_nuts and not s["nuts_finished"]:
            unfinished.append(label)
        elif ratio:
            finished.append(s)
    head = f"ess_per_s_ratio_vs_nuts{tag}"
    big = max(finished, key=lambda s: (s["K"] * s["V"], s["N"], -s["S"])) if finished else None
    out: dict[str, Any] = {
        f"{head}_by_setting": by_setting if ran_nuts else None,
        **_ratio_keys(f"{head}_largest_finished", big[name] if big else None),
    }
    if not tag:
        out["nuts_unfinished_settings"] = unfinished
        out["largest_finished_setting"] = (
            setting_label(big["V"], big["K"], big["N"], big["S"], big["distribution"])
            if big
            else None
        )
    return out


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench pg-gibbs`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench pg-gibbs", description=__doc__)
    harness.add_common_options(
        parser, quick="one small setting (V = 40, K = 3, N = 5e3), short runs (smoke test)"
    )
    parser.add_argument("--no-nuts", action="store_true", help="skip the Stan NUTS runs")
    parser.add_argument("--no-congress", action="store_true", help="skip the Congress-scale run")
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the simulated data and the MAP"
    )
    parser.add_argument(
        "--seeds",
        default="1,2,3",
        help="sampler seeds, comma-separated: one chain per seed on each side (default 1,2,3)",
    )
    parser.add_argument(
        "--warmup", type=int, default=200, help="warm-up iterations of both samplers (default 200)"
    )
    parser.add_argument(
        "--draws", type=int, default=1000, help="kept iterations of both samplers (default 1000)"
    )
    parser.add_argument(
        "--threads",
        default="1,2",
        help="Gibbs Numba thread counts, comma-separated (default 1,2; NUTS: 1 chain, 1 core)",
    )
    parser.add_argument("--congress-sweeps", type=int, default=3)
    parser.add_argument(
        "--setting",
        action="append",
        metavar="V,K,N,S[,DIST]",
        help="run only these settings (repeatable; DIST uniform, the default, or zipf); "
        "default: the paper's full Table 3 grid",
    )
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="the scaling grid: Table 3 at S=1, then K=50 V=1000 and K=100 V=2000 (Zipf, "
        "N up to 1e7); see SCALING_GRID",
    )
    parser.add_argument(
        "--nuts-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop a NUTS chain after this long and record its setting as unfinished",
    )
    parser.add_argument(
        "--nuts-jobs",
        type=int,
        default=1,
        metavar="J",
        help="run J NUTS chains (seeds) at a time, each on one core, after the Gibbs runs "
        "(default 1: one at a time)",
    )
    parser.add_argument(
        "--no-per-block", action="store_true", help="leave out Algorithm 1 (omega per block)"
    )
    parser.add_argument(
        "--overrelax",
        type=float,
        default=-0.5,
        metavar="A",
        help="also run Gibbs with Adler's overrelaxed Gaussian steps, overrelax=A in (-1, 1) "
        "(default -0.5; 0 leaves that side out)",
    )
    return parser


def check_args(args: argparse.Namespace) -> None:
    """The option checks :func:`run` makes, before anything runs (the CLI calls this
    while it checks arguments, so a bad one exits with status 2)."""
    if not -1.0 < args.overrelax < 1.0:
        raise harness.BenchError(f"--overrelax must be in (-1, 1), got {args.overrelax}")
    if args.nuts_timeout is not None and not args.nuts_timeout > 0:
        raise harness.BenchError(f"--nuts-timeout must be positive, got {args.nuts_timeout}")
    if args.nuts_jobs < 1:
        raise harness.BenchError(f"--nuts-jobs must be at least 1, got {args.nuts_jobs}")
    for item in args.setting or ():
        parse_setting(item)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every part of the benchmark for the options ``args``; the results with their summary."""
    import numba

    congress = (5000, 100, 3_000_000, args.congress_sweeps)
    warmup, draws = args.warmup, args.draws
    seeds = [int(s) for s in args.seeds.split(",")]
    if not -1.0 < args.overrelax < 1.0:
        raise harness.BenchError(f"--overrelax must be in (-1, 1), got {args.overrelax}")
    if args.nuts_timeout is not None and not args.nuts_timeout > 0:
        raise harness.BenchError(f"--nuts-timeout must be positive, got {args.nuts_timeout}")
    if args.nuts_jobs < 1:
        raise harness.BenchError(f"--nuts-jobs must be at least 1, got {args.nuts_jobs}")
    grid: list[tuple[int, int, int, int, str]]
    if args.setting:
        grid = [parse_setting(item) for item in args.setting]
    elif args.scaling:
        grid = list(SCALING_GRID)
    elif args.quick:
        grid = [(40, 3, 5_000, 1, "uniform")]
    else:
        grid = [
            (V, K, N, S, "uniform")
            for N in (500_000, 50_000)  # Table 3's larger N first
            for (K, V) in ((20, 200), (10, 200), (5, 100))
            for S in (10, 1)
        ]
    if args.quick:  # short runs, also on the settings given by --setting
        congress = (1000, 20, 100_000, 2)
        warmup, draws = min(warmup, 50), min(draws, 100)
    threads = sorted({min(int(t), numba.config.NUMBA_NUM_THREADS) for t in args.threads.split(",")})
    result: dict[str, Any] = {
        "gibbs_threads": threads,
        "nuts": "1 chain (1 core)"
        if args.nuts_jobs == 1
        else f"1 chain (1 core) per seed, {args.nuts_jobs} chains at a time",
    }
    # The short parts first; each part is also printed to stderr as soon as it is done.
    # One thread on both sides: on a shared machine a multi-threaded BLAS (or prange) call
    # waits for its slowest thread, and other users' processes make that reading erratic.
    gflops = harness.call_in_subprocess(
        "bayeswe.bench.pg_gibbs:gflops_measurement", rows=32 if args.quick else 128, threads=1
    )
    result["gflops"] = {**gflops.value, "threads": 1}
    result["peak_gflops_dgemm_2000"] = _peak_gflops(1 if args.quick else 5)
    harness.progress({"gflops": result["gflops"]})
    if not args.no_congress:
        V, K, P, n_sweeps = congress
        # --quick: one run, on the first thread count; else all threads, then each count
        result["congress"] = _congress_run(
            V, K, P, n_sweeps, args.seed, threads[0] if args.quick else None
        )
        result["congress_by_threads"] = {
            str(t): result["congress"] if t == result["congress"]["threads"] else
            _congress_run(V, K, P, n_sweeps, args.seed, t)
            for t in (threads[:1] if args.quick else threads)
        }  # fmt: skip
        harness.progress({"congress": result["congress_by_threads"]})
    settings: list[dict[str, Any]] = []
    result["settings"] = settings
    cache: dict[tuple[int, int, int, str], dict[str, Any]] = {}
    for V, K, N, S, dist in grid:
        settings.append(
            _setting(
                V, K, N, S, warmup, draws, not args.no_nuts, seeds, args.seed, threads, cache,
                dist=dist, nuts_timeout=args.nuts_timeout, per_block=not args.no_per_block,
                overrelax=args.overrelax, nuts_jobs=args.nuts_jobs,
            )
        )  # fmt: skip
        harness.progress(settings[-1])
    # The target setting (K = 20, V = 200, N = 5e5), with the sampler's default S=1.
    target = [
        s
        for s in settings
        if (s["V"], s["K"], s["N"], s["distribution"]) == (200, 20, 500_000, "uniform")
    ]
    chosen = [s for s in target if s["S"] == 1] or target or settings
    low, high = threads[0], threads[-1]
    summary: dict[str, Any] = {
        # Gibbs on one thread against NUTS on one core: the same hardware on both sides
        "ess_per_s_ratio_vs_nuts": None,
        "ess_per_s_ratio_vs_nuts_min": None,
        "ess_per_s_ratio_vs_nuts_max": None,
        "ess_per_s_ratio_vs_nuts_total_time": None,
        f"ess_per_s_ratio_vs_nuts_gibbs_{high}_threads": None,
        # the same with the paper's Algorithm 1 (omega="per-block"), Gibbs on one thread
        "ess_per_s_ratio_vs_nuts_per_block": None,
        "ratio_setting": {k: chosen[0][k] for k in ("V", "K", "N", "S")},
        "gibbs_threads_for_headline": low,
        "seeds": seeds,
        "warmup": warmup,
        "draws": draws,
    }
    summary.update(_scaling_summary(settings, low, not args.no_nuts))
    summary["overrelax"] = args.overrelax or None
    relaxed_scaling = _scaling_summary(
        settings, low, not args.no_nuts, "gibbs_overrelax", "_overrelaxed"
    )
    summary.update(relaxed_scaling if args.overrelax else dict.fromkeys(relaxed_scaling))
    best = chosen[0]
    finished = not args.no_nuts and best.get("nuts_finished")
    sides = {"": f"gibbs_t{low}"}
    if args.overrelax:
        sides["_overrelaxed"] = f"gibbs_overrelax_t{low}"
    summary.update(_ratio_keys("ess_per_s_ratio_vs_nuts_overrelaxed", None))
    for tag in ("", "_overrelaxed"):
        for kind in ("tail_ess_per_s", "lp_ess_per_s"):
            summary[f"{kind}_ratio_vs_nuts{tag}"] = None
    if finished:
        for tag, side in sides.items():
            summary.update(
                _ratio_keys(f"ess_per_s_ratio_vs_nuts{tag}", best[f"{side}_ratio_ess_per_s"])
            )
            for kind in ("tail_ess_per_s", "lp_ess_per_s"):
                summary[f"{kind}_ratio_vs_nuts{tag}"] = best[f"{side}_ratio_{kind}"]["of_medians"]
        summary["ess_per_s_ratio_vs_nuts_total_time"] = best[f"gibbs_t{low}_ratio_ess_per_s_total"][
            "of_medians"
        ]
        summary[f"ess_per_s_ratio_vs_nuts_gibbs_{high}_threads"] = best[
            f"gibbs_t{high}_ratio_ess_per_s"
        ]["of_medians"]
        if not args.no_per_block:
            summary["ess_per_s_ratio_vs_nuts_per_block"] = best[
                f"gibbs_per_block_t{low}_ratio_ess_per_s"
            ]["of_medians"]
    summary["congress_s_per_sweep"] = result.get("congress", {}).get("s_per_sweep")
    summary["congress_peak_gb"] = result.get("congress", {}).get("peak_gb")
    summary["gflops_fraction_of_peak"] = result["gflops"]["fraction"]
    return {"summary": summary, **result}


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    return harness.run_cli("pg-gibbs", args, lambda: run(args), argv=argv)
