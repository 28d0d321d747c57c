"""Yrjänäinen et al., Table 3: samples per second of HMC and the Gibbs sampler.

**The paper.** One dataset simulated from eqs. (16)-(17) (uniform co-occurrences) for
each of ``N`` in ``{5e4, 5e5}`` and ``K x V`` in ``{5 x 100, 10 x 200, 20 x 200}``;
samples per second of HMC (Stan's NUTS, one core) and of the Gibbs sampler (Python and
TensorFlow, 100 word vectors updated at once, Appendix F) "for S = 10": ``S`` is the
number of Pólya-Gamma iterations of Algorithm 1, the inner omega/beta steps taken for
each vector in each sweep, so one Gibbs sample costs ten inner steps per vector.
"Words per second is samples per second normalized by V": the table's numbers are
samples/s *times* ``V`` (e.g. 17.700 -> 1769.9 at ``V = 100``; two rows, 942.4 and
478.0, do not fit the product of their own samples/s, 952.4 and 477.2). The paper does
not state the iteration counts or whether warm-up is in the time.

**Our side.** Dataset 0 of each setting as in ``001-table1``
(:func:`~bayeswe.reproduce.yrjanainen_table1.simulated_dataset`: prior sd
``1/sqrt(K)``, anchors from the MAP by the ``"last"`` rule). ``nuts`` and ``pg-gibbs``
with ``S = 10`` (the paper's) and ``S = 1`` (bayeswe's default: our inner chain
continues from the current vector, which is a valid Gibbs step at any ``S``; the
paper restarts it), one chain each, on one core each (the grid pins Numba, BLAS and
Stan to one thread; the paper's Gibbs ran batched TensorFlow operations). Equal
footing: both start at the same point (the MAP of ``sgns`` moved onto the identified
slice, not timed) and run the same number of iterations, 100 warm-up and 200 kept
(``--quick``: 50 and 50 on small data); a Gibbs iteration is one sample, i.e. ``S``
inner steps per vector. Samples per second = kept draws / seconds of the sampling
phase (NUTS: the time Stan writes in its CSV file; Gibbs: from its per-sweep
callback, after an untimed two-sweep run that compiles it); the second rate divides by
the whole run (warm-up included). Words per second = samples per second x ``V``, as
the paper's numbers are, computed rather than timed. Every cell runs alone on the
cluster; each records the one-minute load average at its start and end.
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

TITLE = "samples and words per second of HMC and the Gibbs sampler"
PAPER = (
    "Yrjänäinen, Boström, Magnusson, Jonasson, Posterior Sampling of Probabilistic Word Embeddings"
)
SOURCE = "section 4.1.2, Table 3"

SIZES: tuple[int, ...] = (50_000, 500_000)
SETTINGS: tuple[tuple[int, int], ...] = ((5, 100), (10, 200), (20, 200))
#: The paper's samples/s: (N, K, V) -> (HMC, Gibbs with S = 10) (Table 3, typed).
PAPER_SAMPLES: dict[tuple[int, int, int], tuple[float, float]] = {
    (50_000, 5, 100): (17.700, 3.333),
    (50_000, 10, 200): (4.762, 2.467),
    (50_000, 20, 200): (2.802, 2.233),
    (500_000, 5, 100): (2.951, 2.900),
    (500_000, 10, 200): (2.386, 2.880),
    (500_000, 20, 200): (0.506, 0.733),
}
#: The paper's words/s, typed as printed (not recomputed).
PAPER_WORDS: dict[tuple[int, int, int], tuple[float, float]] = {
    (50_000, 5, 100): (1769.9, 333.3),
    (50_000, 10, 200): (942.4, 493.3),
    (50_000, 20, 200): (560.4, 446.7),
    (500_000, 5, 100): (295.1, 290.0),
    (500_000, 10, 200): (478.0, 576.0),
    (500_000, 20, 200): (101.2, 146.7),
}
#: The Gibbs sampler's inner steps: the paper's S first (the one the verdicts use).
INNER_STEPS: tuple[int, ...] = (10, 1)
PAPER_S = 10
#: Rates within this factor of each other are a tie (the paper's N = 5e5, 5 x 100 row).
TIE = 1.10
WARMUP, DRAWS = 100, 200
QUICK_WARMUP, QUICK_DRAWS = 50, 50


def cells(quick: bool) -> list[Cell]:
    """(N, K, V) x sampler, each alone on the cluster; quick: K = 3, V = 30, two small N."""
    if quick:
        grid, warmup, draws = [(N, 3, 30) for N in (2_000, 20_000)], QUICK_WARMUP, QUICK_DRAWS
    else:
        grid, warmup, draws = [(N, K, V) for N in SIZES for K, V in SETTINGS], WARMUP, DRAWS
    samplers = [("nuts", None), *(("pg-gibbs", S) for S in INNER_STEPS)]
    return [
        Cell(
            "001-table3",
            {"N": N, "K": K, "V": V, "method": method, "S": S, "warmup": warmup, "draws": draws},
            exclusive=True,
        )  # fmt: skip
        for N, K, V in grid
        for method, S in samplers
    ]


def words_per_second(samples_per_s: float, V: int) -> float:
    """Table 3's words per second: samples per second times ``V`` (module docstring)."""
    return samples_per_s * V


def faster(hmc: float, gibbs: float, *, tie: float = TIE) -> str:
    """``"HMC"``, ``"Gibbs"`` or ``"tie"`` (rates within a factor ``tie``) for two rates."""
    if hmc > tie * gibbs:
        return "HMC"
    if gibbs > tie * hmc:
        return "Gibbs"
    return "tie"


def _time_nuts(data: dict[str, Any], start: dict[str, np.ndarray], params: dict[str, Any],
               seed: int) -> dict[str, Any]:  # fmt: skip
    import bayeswe
    from bayeswe.bench.pg_gibbs import stan_phase_times

    with tempfile.TemporaryDirectory(prefix="bayeswe-reproduce-nuts-") as tmp:
        idata = bayeswe.fit("sgns_identified", data, method="nuts", seed=seed, chains=1,
                            iter_warmup=params["warmup"], iter_sampling=params["draws"],
                            inits=start, output_dir=tmp)  # fmt: skip
        warmup_s, sampling_s = stan_phase_times(Path(tmp))
    return {
        "draws_kept": int(idata.posterior.sizes["draw"]),
        "warmup_s": warmup_s,
        "sampling_s": sampling_s,
        "total_s": float(idata.attrs["wall_time"]),
        **nuts_statistics(idata),
    }


def nuts_statistics(idata: Any) -> dict[str, Any]:
    """Mean leapfrog steps per draw and step size, divergences, and ``threads`` (1) of a
    NUTS run."""
    stats = idata.sample_stats
    return {
        "leapfrogs_per_draw": float(stats["n_steps"].values.mean()),
        "step_size": float(stats["step_size"].values.mean()),
        "divergences": int(stats["diverging"].values.sum()),
        "threads": 1,
    }


def timed_gibbs_run(data: dict[str, Any], start: dict[str, np.ndarray], params: dict[str, Any],
                    seed: int) -> dict[str, Any]:  # fmt: skip
    """One PG-Gibbs chain from ``start`` with ``params``' ``S``, ``warmup`` and ``draws``,
    timed by :func:`~bayeswe.bench.pg_gibbs.gibbs_run` (whose result it returns)."""
    from bayeswe.bench.pg_gibbs import gibbs_run
    from bayeswe.samplers.pg_gibbs import sample_pg_gibbs

    # One thread whatever the worker's Numba setting: NUTS runs on one core.
    common = {"chains": 1, "inner_steps": params["S"], "inits": start, "show_progress": False,
              "threads_per_chain": 1}  # fmt: skip
    # Numba loads or compiles the kernels on the first call: not part of the rate.
    sample_pg_gibbs(data, seed=seed, iter_warmup=0, iter_sampling=2, **common)
    return gibbs_run(data, params["warmup"], params["draws"], seed=seed, **common)


def _time_gibbs(data: dict[str, Any], start: dict[str, np.ndarray], params: dict[str, Any],
                seed: int) -> dict[str, Any]:  # fmt: skip
    run = timed_gibbs_run(data, start, params, seed)
    return {
        "draws_kept": int(run["idata"].posterior.sizes["draw"]),
        "warmup_s": run["wall_s"] - run["sampling_s"],
        "sampling_s": run["sampling_s"],
        "total_s": run["wall_s"],
        "threads": run["threads"],
    }


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Simulate the cell's dataset and time one sampler on it from the common start."""
    from bayeswe.reproduce.yrjanainen_table2 import identified_problem

    K, V, N = params["K"], params["V"], params["N"]
    sim, data, start = identified_problem(K, V, N, 0)
    load_start = os.getloadavg()[0]
    timed = (_time_nuts if params["method"] == "nuts" else _time_gibbs)(data, start, params, seed)
    rate = timed["draws_kept"] / timed["sampling_s"]
    return {
        **timed,
        "samples_per_s": rate,
        "samples_per_s_total": timed["draws_kept"] / timed["total_s"],
        "words_per_s": words_per_second(rate, V),
        "P": int(sim.data.P),
        "load_start": load_start,
        "load_end": os.getloadavg()[0],
    }


_COLUMNS = ["N", "K", "V", "method", "S", "warmup", "draws", "samples_per_s",
            "samples_per_s_total", "words_per_s", "sampling_s", "total_s", "P", "threads",
            "load_start", "load_end", "leapfrogs_per_draw", "step_size",
            "divergences"]  # fmt: skip


def _label(method: str, S: Any) -> str:
    return "HMC (nuts)" if method == "nuts" else f"Gibbs (pg-gibbs, S = {int(S)})"


def _setting_verdict(key: tuple[int, int, int], ours: dict[str, float]) -> dict[str, Any]:
    """Is the faster sampler at ``key`` the paper's? ``ours``: label -> samples/s."""
    N, K, V = key
    claim = f"N = {N:,}, K x V = {K} x {V}"
    hmc, gibbs = ours.get(_label("nuts", None)), ours.get(_label("pg-gibbs", PAPER_S))
    if key in PAPER_SAMPLES:
        p_hmc, p_gibbs = PAPER_SAMPLES[key]
        said = faster(p_hmc, p_gibbs)
        claim += f": {said} faster" if said != "tie" else ": HMC and Gibbs within 10 %"
        claim += f" (paper HMC/Gibbs {p_hmc / p_gibbs:.2f})"
    else:
        said = None
        claim += ": no paper row (quick setting)"
    if hmc is None or gibbs is None:
        return not_run(claim, "HMC or Gibbs (S = 10) not run")
    got = faster(hmc, gibbs)
    measured = f"ours HMC/Gibbs (S = {PAPER_S}) {hmc / gibbs:.2f}: {got}"
    s1 = ours.get(_label("pg-gibbs", 1))
    if s1 is not None:
        measured += f"; HMC/Gibbs (S = 1) {hmc / s1:.2f}: {faster(hmc, s1)}"
    if said is None:
        return {"claim": claim, "verdict": "no paper row", "measured": measured}
    return verdict(claim, got == said, measured)


def _trend_verdicts(rates: dict[tuple[int, int, int], dict[str, float]]) -> list[dict[str, Any]]:
    """The paper's text: Gibbs overtakes HMC at the two largest settings; HMC wins small ones."""
    out = []
    h, g = _label("nuts", None), _label("pg-gibbs", PAPER_S)
    ratio = {k: r[h] / r[g] for k, r in rates.items() if h in r and g in r}
    large = [(500_000, 10, 200), (500_000, 20, 200)]
    claim = "Gibbs outperforms HMC on the two largest settings (N = 5e5, 10 x 200 and 20 x 200)"
    if all(k in ratio for k in large):
        out.append(verdict(claim, all(faster(ratio[k], 1.0) == "Gibbs" for k in large),
                           "; ".join(f"{k[1]} x {k[2]}: HMC/Gibbs {ratio[k]:.2f}"
                                     for k in large)))  # fmt: skip
    else:
        out.append(not_run(claim, "not both settings run"))
    claim = "Gibbs gains on HMC as data and model grow (HMC/Gibbs falls from the smallest to " \
        "the largest setting)"  # fmt: skip
    if len(ratio) >= 2:
        keys = sorted(ratio, key=lambda k: (k[0] * k[1] * k[2], k))
        small, big = keys[0], keys[-1]
        out.append(verdict(claim, ratio[big] < ratio[small],
                           f"HMC/Gibbs {ratio[small]:.2f} at N = {small[0]:,}, {small[1]} x "
                           f"{small[2]}; {ratio[big]:.2f} at N = {big[0]:,}, {big[1]} x "
                           f"{big[2]} (paper: 5.31 to 0.69)"))  # fmt: skip
    else:
        out.append(not_run(claim, "fewer than two settings"))
    return out


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv``, ``rates.png`` and the table beside the paper's, per row a verdict."""
    plt = pyplot()
    table = done_frame(results, _COLUMNS)
    write_table(out, table)
    rates: dict[tuple[int, int, int], dict[str, dict[str, float]]] = {}
    for r in table.itertuples():
        rates.setdefault((int(r.N), int(r.K), int(r.V)), {})[_label(r.method, r.S)] = {
            "sampling": float(r.samples_per_s), "total": float(r.samples_per_s_total),
            "words": float(r.words_per_s)}  # fmt: skip
    keys = [*PAPER_SAMPLES, *sorted(set(rates) - set(PAPER_SAMPLES))]
    labels = [_label("nuts", None), *(_label("pg-gibbs", S) for S in INNER_STEPS)]
    sampling = {k: {lab: v["sampling"] for lab, v in rates.get(k, {}).items()} for k in keys}
    per_setting = {k: _setting_verdict(k, sampling[k]) for k in keys}
    rows = []
    for k in keys:
        N, K, V = k
        for j, lab in enumerate(labels):
            paper = PAPER_SAMPLES.get(k)
            is_paper_row = paper is not None and j < 2
            ours = rates.get(k, {}).get(lab)
            rows.append([
                f"{N:,}", f"{K} x {V}", lab,
                f"{paper[j]:.3f}" if is_paper_row else "–",
                f"{PAPER_WORDS[k][j]:.1f}" if is_paper_row else "–",
                f"{ours['sampling']:.3f}" if ours else "not run",
                f"{ours['total']:.3f}" if ours else "not run",
                f"{ours['words']:.1f}" if ours else "not run",
                per_setting[k]["verdict"] if j < 2 else "–",
            ])  # fmt: skip
    header = ["N", "K x V", "method", "paper samples/s", "paper words/s", "ours samples/s",
              "ours samples/s (whole run)", "ours words/s", "verdict (who is faster)"]  # fmt: skip
    verdicts = [per_setting[k] for k in keys] + _trend_verdicts(
        {k: v for k, v in sampling.items() if v}
    )

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6))
    x = np.arange(len(keys))
    names = [f"{N:.0e}\n{K}x{V}".replace("e+0", "e") for N, K, V in keys]
    for j, lab in enumerate(labels):
        ys = [sampling[k].get(lab, np.nan) for k in keys]
        left.bar(x + (j - 1) * 0.27, ys, width=0.27, color=f"C{j}", label=f"{lab} ours")
    for j in range(2):
        ys = [PAPER_SAMPLES[k][j] if k in PAPER_SAMPLES else np.nan for k in keys]
        left.scatter(x + (j - 1) * 0.27, ys, marker="x", color="k", zorder=3,
                     label="paper" if j == 0 else None)  # fmt: skip
    left.set_yscale("log")
    left.set_ylabel("samples per second (sampling phase)")
    left.set_xticks(x, names, fontsize="small")
    left.legend(fontsize="x-small", ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    for j, S in enumerate(INNER_STEPS):
        g = _label("pg-gibbs", S)
        ys = [sampling[k][labels[0]] / sampling[k][g] if labels[0] in sampling[k]
              and g in sampling[k] else np.nan for k in keys]  # fmt: skip
        right.plot(x, ys, marker="o", color=f"C{j + 1}", label=f"ours, Gibbs S = {S}")
    paper_ratio = [PAPER_SAMPLES[k][0] / PAPER_SAMPLES[k][1] if k in PAPER_SAMPLES else np.nan
                   for k in keys]  # fmt: skip
    right.plot(x, paper_ratio, marker="x", ls="--", color="k", label="paper (S = 10)")
    right.axhline(1.0, color="k", lw=0.8)
    right.set_yscale("log")
    right.set_ylabel("HMC samples/s over Gibbs samples/s")
    right.set_xticks(x, names, fontsize="small")
    right.legend(fontsize="x-small", ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    fig.tight_layout()
    save_figure(fig, out, "rates.png")
    loads = table[["load_start", "load_end"]].to_numpy()
    md = [
        *what_was_run(__doc__, "The paper", "Our side"),
        "**Machine.** Absolute rates depend on the machine (CPU and load in the header; "
        "one-minute load during the cells: "
        + (f"{loads.min():.2f}-{loads.max():.2f}" if len(loads) else "–")
        + "). The paper's machine is not stated and its Gibbs sampler ran batched "
        "TensorFlow operations; ours runs one Numba thread. The verdicts therefore "
        "compare who is faster at each setting, not the rates themselves.",
        "",
        "![Samples per second](rates.png)",
        "",
        "## Samples and words per second: the paper's Table 3 and ours",
        "",
        markdown_table(header, rows),
        "",
        *_trajectories(table),
    ]
    return finish_report(md, verdicts, results)


_TRAJECTORY_HEADER = ["N", "K x V", "warm-up", "step size", "leapfrogs per draw", "divergences",
                      "leapfrogs per second"]  # fmt: skip


def _trajectories(table: Any) -> list[str]:
    """NUTS's cost per draw: its adapted step size and leapfrog steps per kept draw."""
    nuts = table[table.method == "nuts"]
    if nuts.empty:
        return []
    rows = [[f"{int(r.N):,}", f"{int(r.K)} x {int(r.V)}", int(r.warmup),
             f"{r.step_size:.4f}", f"{r.leapfrogs_per_draw:.1f}", int(r.divergences),
             f"{r.samples_per_s * r.leapfrogs_per_draw:,.0f}"]
            for r in nuts.sort_values(["N", "K", "V"]).itertuples()]  # fmt: skip
    return [
        "## NUTS's cost per draw",
        "",
        "Each NUTS draw costs its leapfrog steps (one gradient each; at most 1,023, Stan's "
        "default maximum tree depth of 10). The step size is the one adapted in the "
        "warm-up; a small one makes long trajectories, so the rate falls with the "
        "leapfrog steps per draw, not only with the cost of a gradient.",
        "",
        markdown_table(_TRAJECTORY_HEADER, rows),
        "",
    ]
