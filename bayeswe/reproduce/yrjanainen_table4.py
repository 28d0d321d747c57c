"""Yrjänäinen et al., Table 4: samples per second of HMC and the Gibbs sampler on MovieLens.

**The paper.** MovieLens (section 4.2), ``V = 603``; (a) ``K = 20``, ``N = 5e4``;
(b) ``K = 100``, ``N = 1e6``; samples per second of HMC (Stan's NUTS) and of the Gibbs
sampler (``S = 10``, TensorFlow, 100 vectors at once), and words per second (samples
per second times ``V``: 0.8333 x 603 = 502.5). HMC at ``K = 100`` "did not finish
before a time limit" (printed as ``< 0.0069*``; the limit is not stated). The text:
for ``K = 20`` "HMC is still competitive", but its "efficiency drastically drops as
dimensionalities and dataset size increase", while the Gibbs sampler's "performance
is still acceptable".

**Our side.** The MovieLens data and training sets of ``001-table5``
(:func:`~bayeswe.reproduce.yrjanainen_realdata.training_and_holdout`, dataset 0:
about ``N`` observations drawn from the nine tenths not held out), prior sd 1, the
paper's anchors (the last K words) fixed at the MAP of ``sgns``
(:func:`~bayeswe.samplers.sgns_map.sgns_map`, at most ``MAP_ITER`` iterations), and
every sampler started at that MAP on the identified slice (not timed). As in
``001-table3``: ``nuts`` and ``pg-gibbs`` with ``S = 10`` (the paper's) and ``S = 1``
(bayeswe's default), one chain on one core each, samples per second = kept draws /
seconds of the sampling phase (NUTS: Stan's own timer; Gibbs: its per-sweep
callback, after an untimed two-sweep run that compiles it), words per second =
samples per second x ``V``. Iterations: ``K = 20``: 100 warm-up and 100 kept for
both samplers; ``K = 100``: NUTS the same, Gibbs 10 warm-up and 30 kept (one Gibbs
iteration at ``S = 10`` takes seconds there, and its rate does not depend on the
run's length). NUTS runs under a time limit (``NUTS_LIMIT_S``, Stan's console
printing every iteration): a run that hits it is recorded as not finished with the
iterations it completed, and its samples per second as below ``max(1, kept draws
done) / limit``, as the paper marks its unfinished run. Every cell runs alone on the
cluster and records the one-minute load average at its start and end.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from bayeswe.reproduce.grid import Cell, CellResult
from bayeswe.reproduce.report import (
    done_frame,
    finish_report,
    markdown_table,
    not_run,
    pyplot,
    save_figure,
    verdict,
    what_was_run,
    write_table,
)
from bayeswe.reproduce.yrjanainen_table3 import faster, nuts_statistics, timed_gibbs_run

TITLE = "MovieLens ml-100k: samples and words per second of HMC and the Gibbs sampler"
PAPER = (
    "Yrjänäinen, Boström, Magnusson, Jonasson, Posterior Sampling of Probabilistic Word Embeddings"
)
SOURCE = "section 4.2, Table 4"

#: (K, N) of Table 4 (a) and (b); V = 603 in both.
SETTINGS: tuple[tuple[int, int], ...] = ((20, 50_000), (100, 1_000_000))
#: The paper's (samples/s, words/s): (K, N) -> method -> values (typed).
PAPER_RATES: dict[tuple[int, int], dict[str, tuple[float, float]]] = {
    (20, 50_000): {"HMC": (0.8333, 502.5), "Gibbs": (0.278, 167.5)},
    (100, 1_000_000): {"HMC": (0.0069, 4.19), "Gibbs": (0.0267, 16.15)},
}
#: Paper values printed as upper bounds of an unfinished run ("< 0.0069*").
PAPER_UNFINISHED: frozenset[tuple[tuple[int, int], str]] = frozenset({((100, 1_000_000), "HMC")})
INNER_STEPS: tuple[int, ...] = (10, 1)
PAPER_S = 10
PRIOR_SD = 1.0
ANCHOR_RULE = "last"
MAP_ITER = 1000
#: NUTS's time limit (seconds): K -> limit. At K = 20, NUTS did 127 of its 200 iterations
#: in an hour on this machine under a load of 6-8 (about half a core); alone (load about
#: 1), the 200 took 2,047 s: 252 leapfrog steps per draw at 38 ms per gradient.
NUTS_LIMIT_S: dict[int, int] = {20: 3600, 100: 1800}
#: (warm-up, kept) iterations: K -> method -> (warmup, draws).
ITERATIONS: dict[int, dict[str, tuple[int, int]]] = {
    20: {"nuts": (100, 100), "pg-gibbs": (100, 100)},
    100: {"nuts": (100, 100), "pg-gibbs": (10, 30)},
}


def cells(quick: bool) -> list[Cell]:
    """(K, N) x sampler, each alone on the cluster.

    Quick: V = 33 (movies with >= 300 ratings), K = 2, N = 5,000, and a NUTS run at
    V = 603, K = 10 under a 1-second limit that it cannot meet (the unfinished path).
    """
    # (data and start, NUTS limit, NUTS iterations, Gibbs iterations or None)
    if quick:
        plan = [({"K": 2, "N": 5_000, "min_ratings": 300, "map_iter": 100}, 120, (30, 30),
                 (30, 30)),
                ({"K": 10, "N": 20_000, "min_ratings": 50, "map_iter": 50}, 1, (100, 100),
                 None)]  # fmt: skip
    else:
        plan = [({"K": K, "N": N, "min_ratings": 50, "map_iter": MAP_ITER}, NUTS_LIMIT_S[K],
                 ITERATIONS[K]["nuts"], ITERATIONS[K]["pg-gibbs"])
                for K, N in SETTINGS]  # fmt: skip
    out = []
    for base, limit, (warmup, draws), gibbs in plan:
        nuts = {**base, "method": "nuts", "S": None, "warmup": warmup, "draws": draws,
                "limit_s": limit}  # fmt: skip
        out.append(Cell("001-table4", nuts, exclusive=True))
        if gibbs is not None:
            out += [Cell("001-table4", {**base, "method": "pg-gibbs", "S": S, "warmup": gibbs[0],
                                        "draws": gibbs[1], "limit_s": None}, exclusive=True)
                    for S in INNER_STEPS]  # fmt: skip
    return out


def unfinished_bound(kept_done: int, limit_s: float) -> float:
    """Samples per second of a run stopped at ``limit_s``: below ``max(1, kept) / limit``."""
    return max(1, int(kept_done)) / float(limit_s)


def _time_nuts(data: dict[str, Any], start: dict[str, np.ndarray], params: dict[str, Any],
               seed: int) -> dict[str, Any]:  # fmt: skip
    import bayeswe
    from bayeswe.bench.pg_gibbs import iterations_reached, stan_phase_times
    from bayeswe.errors import StanTimeoutError

    warmup, draws, limit = params["warmup"], params["draws"], params["limit_s"]
    with tempfile.TemporaryDirectory(prefix="bayeswe-reproduce-nuts-") as tmp:
        try:
            idata = bayeswe.fit("sgns_identified", data, method="nuts", seed=seed, chains=1,
                                iter_warmup=warmup, iter_sampling=draws, inits=start,
                                output_dir=tmp, refresh=1, timeout=limit)  # fmt: skip
        except StanTimeoutError as exc:
            done = iterations_reached(exc.stan_message)
            kept = max(0, done - warmup)
            return {"finished": False, "iterations_done": done, "draws_kept": kept,
                    "total_s": float(limit), "threads": 1,
                    "samples_per_s": unfinished_bound(kept, limit)}  # fmt: skip
        warmup_s, sampling_s = stan_phase_times(Path(tmp))
    kept = int(idata.posterior.sizes["draw"])
    return {
        "finished": True,
        "iterations_done": warmup + draws,
        "draws_kept": kept,
        "warmup_s": warmup_s,
        "sampling_s": sampling_s,
        "total_s": float(idata.attrs["wall_time"]),
        "samples_per_s": kept / sampling_s,
        **nuts_statistics(idata),
    }


def _time_gibbs(data: dict[str, Any], start: dict[str, np.ndarray], params: dict[str, Any],
                seed: int) -> dict[str, Any]:  # fmt: skip
    run = timed_gibbs_run(data, start, params, seed)
    kept = int(run["idata"].posterior.sizes["draw"])
    return {
        "finished": True,
        "iterations_done": params["warmup"] + params["draws"],
        "draws_kept": kept,
        "warmup_s": run["wall_s"] - run["sampling_s"],
        "sampling_s": run["sampling_s"],
        "total_s": run["wall_s"],
        "samples_per_s": kept / run["sampling_s"],
        "threads": run["threads"],
    }


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Build the cell's training set and start (not timed), then time one sampler."""
    from bayeswe.reproduce import yrjanainen_realdata as real

    K, N = params["K"], params["N"]
    train, _ = real.training_and_holdout(real.movielens_pairs(params["min_ratings"]), N, 0)
    start = real.identified_start(
        train, K, prior_sd=PRIOR_SD, rule=ANCHOR_RULE, seed=real.data_seed(5, 0, N),
        max_iter=params["map_iter"],
    )  # fmt: skip
    load_start = os.getloadavg()[0]
    timer = _time_nuts if params["method"] == "nuts" else _time_gibbs
    timed = timer(start.stan_data, start.start, params, seed)
    return {
        **timed,
        "words_per_s": timed["samples_per_s"] * train.V,
        "V": train.V,
        "N_train": train.total,
        "P": train.P,
        "load_start": load_start,
        "load_end": os.getloadavg()[0],
    }


_COLUMNS = ["K", "N", "V", "method", "S", "warmup", "draws", "limit_s", "finished",
            "iterations_done", "draws_kept", "samples_per_s", "words_per_s", "sampling_s",
            "total_s", "N_train", "P", "threads", "load_start", "load_end",
            "leapfrogs_per_draw", "step_size", "divergences"]  # fmt: skip


def _label(method: str, S: Any) -> str:
    return "HMC (nuts)" if method == "nuts" else f"Gibbs (pg-gibbs, S = {int(S)})"


def _shown(rate: float, finished: bool, digits: int = 4) -> str:
    return f"{rate:.{digits}f}" if finished else f"< {rate:.{digits}f}*"


def _ms_per_gradient(samples_per_s: float, leapfrogs_per_draw: float) -> float:
    """Milliseconds per gradient of a NUTS run with this rate and trajectory length."""
    return 1000 / (samples_per_s * leapfrogs_per_draw)


def _nuts_cost(nuts: dict[str, Any], paper_rate: float) -> str:
    """Where a finished NUTS run's time went, against what the paper's rate needs."""
    ours = _ms_per_gradient(nuts["rate"], nuts["leapfrogs"])
    needed = _ms_per_gradient(paper_rate, nuts["leapfrogs"])
    return (f"NUTS took {nuts['leapfrogs']:.0f} leapfrog steps per draw (step size "
            f"{nuts['step_size']:.4f}) at {ours:.1f} ms per gradient; the paper's "
            f"{paper_rate:.4f} samples/s at this trajectory length needs "
            f"{needed:.1f} ms per gradient, {ours / needed:.1f}x faster "
            "gradients or as many times fewer steps per draw")  # fmt: skip


def _verdicts(rates: dict[tuple[int, int], dict[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    hmc, gibbs = _label("nuts", None), _label("pg-gibbs", PAPER_S)
    out = []
    key = SETTINGS[0]
    claim = (f"K = {key[0]}, N = {key[1]:,}: HMC competitive, faster than Gibbs S = 10 (paper "
             "0.8333 vs 0.278 samples/s)")  # fmt: skip
    got = rates.get(key, {})
    if hmc in got and gibbs in got:
        h, g = got[hmc], got[gibbs]
        if h["finished"]:
            said = faster(h["rate"], g["rate"])
            measured = f"ours HMC {h['rate']:.4f}, Gibbs {g['rate']:.4f} samples/s: {said}"
            if said != "HMC" and np.isfinite(h["leapfrogs"]):
                measured += "; " + _nuts_cost(h, PAPER_RATES[key]["HMC"][0])
            out.append(verdict(claim, said == "HMC", measured))
        else:
            measured = (f"ours HMC did not finish {h['total']:.0f} s (< {h['rate']:.4f} "
                        f"samples/s), Gibbs {g['rate']:.4f} samples/s")  # fmt: skip
            out.append(verdict(claim, False, measured))
    else:
        out.append(not_run(claim, "HMC or Gibbs not run"))
    key = SETTINGS[1]
    claim = (f"K = {key[0]}, N = {key[1]:,}: HMC does not finish in the time limit (< 0.0069* "
             "samples/s) while Gibbs S = 10 runs (0.0267 samples/s)")  # fmt: skip
    got = rates.get(key, {})
    if hmc in got and gibbs in got:
        h, g = got[hmc], got[gibbs]
        measured = (
            f"ours HMC {'finished' if h['finished'] else 'did not finish'} in "
            f"{h['total']:.0f} s ({_shown(h['rate'], h['finished'])} samples/s, "
            f"{h['iterations']} iterations), Gibbs {g['rate']:.4f} samples/s"
        )
        out.append(verdict(claim, not h["finished"] or h["rate"] < g["rate"], measured))
    else:
        out.append(not_run(claim, "HMC or Gibbs not run"))
    claim = ("HMC's rate drops far more than Gibbs's from (a) to (b) (paper: HMC by a factor > "
             "120, Gibbs by 10)")  # fmt: skip
    a, b = rates.get(SETTINGS[0], {}), rates.get(SETTINGS[1], {})
    if all(m in r for m in (hmc, gibbs) for r in (a, b)):
        drop_h = a[hmc]["rate"] / b[hmc]["rate"]
        drop_g = a[gibbs]["rate"] / b[gibbs]["rate"]
        if not a[hmc]["finished"]:
            # (a)'s rate is itself an upper bound: the drop is not measured
            out.append(not_run(claim, f"HMC did not finish (a); Gibbs dropped by {drop_g:.1f}"))
        else:
            # an unfinished (b) gives an upper bound on its rate: the drop is a lower bound
            sign = "" if b[hmc]["finished"] else ">= "
            out.append(verdict(claim, drop_h > drop_g, f"HMC dropped by {sign}{drop_h:.1f}, "
                                                       f"Gibbs by {drop_g:.1f}"))  # fmt: skip
    else:
        out.append(not_run(claim, "a setting not run"))
    return out


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv``, ``rates.png`` and Table 4 beside the paper's, per row a verdict."""
    plt = pyplot()
    table = done_frame(results, _COLUMNS)
    write_table(out, table)
    rates: dict[tuple[int, int], dict[str, dict[str, Any]]] = {}
    for r in table.itertuples():
        rates.setdefault((int(r.K), int(r.N)), {})[_label(r.method, r.S)] = {
            "rate": float(r.samples_per_s), "words": float(r.words_per_s),
            "finished": bool(r.finished), "total": float(r.total_s),
            "iterations": int(r.iterations_done), "leapfrogs": float(r.leapfrogs_per_draw),
            "step_size": float(r.step_size)}  # fmt: skip
    keys = [*SETTINGS, *sorted(set(rates) - set(SETTINGS))]
    labels = [_label("nuts", None), *(_label("pg-gibbs", S) for S in INNER_STEPS)]
    rows = []
    for key in keys:
        K, N = key
        for j, lab in enumerate(labels):
            paper = PAPER_RATES.get(key, {}).get(("HMC", "Gibbs")[j]) if j < 2 else None
            done = (key, ("HMC", "Gibbs")[min(j, 1)]) not in PAPER_UNFINISHED
            ours = rates.get(key, {}).get(lab)
            rows.append([
                K, f"{N:,}", lab,
                _shown(paper[0], done) if paper else "–",
                _shown(paper[1], done, 2) if paper else "–",
                _shown(ours["rate"], ours["finished"]) if ours else "not run",
                _shown(ours["words"], ours["finished"], 2) if ours else "not run",
                (f"{ours['iterations']} in {ours['total']:.0f} s" if ours else "–"),
            ])  # fmt: skip
    header = ["K", "N", "method", "paper samples/s", "paper words/s", "ours samples/s",
              "ours words/s", "ours iterations (whole run)"]  # fmt: skip
    verdicts = _verdicts(rates)

    fig, ax = plt.subplots(figsize=(7.5, 4.4))
    x = np.arange(len(keys))
    for j, lab in enumerate(labels):
        got = [rates.get(k, {}).get(lab) for k in keys]
        ys = [g["rate"] if g else np.nan for g in got]
        bars = ax.bar(x + (j - 1) * 0.27, ys, width=0.27, color=f"C{j}", label=f"{lab} ours")
        for bar, g in zip(bars, got, strict=True):
            if g and not g["finished"]:
                bar.set_hatch("//")  # an upper bound: the run hit the time limit
    for j, name in enumerate(("HMC", "Gibbs")):
        ys = [PAPER_RATES[k][name][0] if k in PAPER_RATES else np.nan for k in keys]
        ax.scatter(x + (j - 1) * 0.27, ys, marker="x", color="k", zorder=3,
                   label="paper" if j == 0 else None)  # fmt: skip
    ax.set_yscale("log")
    ax.set_ylabel("samples per second (hatched: upper bound, time limit)")
    ax.set_xticks(x, [f"K = {K}\nN = {N:,}" for K, N in keys])
    ax.legend(fontsize="x-small")
    fig.tight_layout()
    save_figure(fig, out, "rates.png")
    loads = table[["load_start", "load_end"]].to_numpy(dtype=float)
    md = [
        *what_was_run(__doc__, "The paper", "Our side"),
        "**Machine.** Absolute rates depend on the machine (CPU and load in the header; "
        "one-minute load during the cells: "
        + (f"{loads.min():.2f}-{loads.max():.2f}" if len(loads) else "–")
        + "). The paper's machine and time limit are not stated and its Gibbs sampler "
        "ran batched TensorFlow operations; ours runs one Numba thread. `*`: the run hit "
        "its time limit, and the rate shown is an upper bound.",
        "",
        "![Samples per second](rates.png)",
        "",
        "## Samples and words per second: the paper's Table 4 and ours",
        "",
        markdown_table(header, rows),
        "",
        *_trajectories(table),
    ]
    return finish_report(md, verdicts, results)


_TRAJECTORY_HEADER = ["K", "N", "step size", "leapfrogs per draw", "divergences",
                      "ms per gradient", "paper's rate needs (ms per gradient)"]  # fmt: skip


def _trajectories(table: Any) -> list[str]:
    """NUTS's cost per draw in its finished runs, and what the paper's rate would need."""
    nuts = table[(table.method == "nuts") & table.finished.astype(bool)]
    if nuts.empty:
        return []
    rows = []
    for r in nuts.sort_values(["K", "N"]).itertuples():
        paper = PAPER_RATES.get((int(r.K), int(r.N)), {}).get("HMC")
        needs = f"{_ms_per_gradient(paper[0], r.leapfrogs_per_draw):.1f}" if paper else "–"
        rows.append([int(r.K), f"{int(r.N):,}", f"{r.step_size:.4f}",
                     f"{r.leapfrogs_per_draw:.1f}", int(r.divergences),
                     f"{_ms_per_gradient(r.samples_per_s, r.leapfrogs_per_draw):.1f}",
                     needs])  # fmt: skip
    return [
        "## NUTS's cost per draw",
        "",
        "Each NUTS draw costs its leapfrog steps, one gradient each (at most 1,023, Stan's "
        "default maximum tree depth of 10), with the step size adapted in the warm-up. "
        "The last column is the time per gradient at which our trajectory length would "
        "give the paper's samples per second. The paper reports neither its step size nor "
        "its trajectory length, so which of the two made its run faster is not known.",
        "",
        markdown_table(_TRAJECTORY_HEADER, rows),
        "",
    ]
