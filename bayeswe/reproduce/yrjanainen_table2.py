"""Yrjänäinen et al., Table 2: median effective sample size of HMC and the Gibbs sampler.

**The paper.** Data simulated from eqs. (16)-(17) (uniform co-occurrences, signal to
noise 1) with ``K = 5``, ``V = 100`` and ``N`` in ``{1K, 2K, 5K, 20K, 50K}``; the
identified model; HMC (Stan's NUTS) and the Pólya-Gamma Gibbs sampler, 1,000 draws
after a burn-in of 1,000; the median ESS "as defined via the autocorrelation (Gelman
et al., 2013)". The paper does not say over which quantities the median is taken, nor
whether it averages over datasets (Table 1 averages over 10; Table 2's caption does
not say so), nor the Gibbs sampler's ``S`` for this table.

**Our side.** The datasets of ``001-table1``
(:func:`~bayeswe.reproduce.yrjanainen_table1.simulated_dataset`: ``simulate_sgns``,
prior sd ``1/sqrt(K)``, anchors from the MAP by the paper's ``"last"`` rule), three
per ``N``; ``nuts`` and ``pg-gibbs`` (``S = 1``, bayeswe's default, which continues
each inner chain instead of restarting it), one chain each, 1,000 draws after 1,000
warm-up iterations, both started at the same point: the MAP of ``sgns`` mapped onto
the identified slice (Proposition 1), without jitter. ESS is ArviZ's bulk ESS
(rank-normalised split-chain ESS, the successor of Gelman et al.'s). Our first column
is the median over every free parameter (``rho`` and ``alpha_free``,
``V K + (V - K) K`` scalars); the second the median over the ``V^2`` co-occurrence
probabilities ``P(w ∧ v) = sigmoid(rho_w . alpha_v)``. Each is the mean over the
three datasets of the per-dataset medians (each in ``table.csv``).

**Rows not in the paper: no conditioning.** The same samplers on the *unidentified*
``sgns`` (every context vector free), as ``fit_sgns(identification="posthoc")`` runs
them: ``pg-gibbs-posthoc`` (PG-Gibbs with its gauge move after every sweep) and
``nuts-posthoc``, one chain each, 1,000 + 1,000, both started at the same point, the
MAP of ``sgns`` itself (the same ``rho @ alpha.T`` as the identified rows' start).
Single coordinates of an unidentified draw are not identified, so these rows report
the ESS of what does not depend on the gauge: ``P(w ∧ v)`` and the log joint density,
and of the Gram matrices ``rho rho^T`` and ``alpha alpha^T`` (median over their
upper triangles), which depend on the gauge only through rotations, under which the
posterior is invariant. Cost per effective draw is fitting seconds over the median
ESS of ``P(w ∧ v)``, against identified ``pg-gibbs`` on the same dataset.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from bayeswe.reproduce.grid import Cell, CellResult
from bayeswe.reproduce.report import (
    done_frame,
    finish_report,
    markdown_table,
    pyplot,
    save_figure,
    verdict,
    what_was_run,
    write_table,
)

TITLE = "median effective sample size of HMC and the Gibbs sampler against N"
PAPER = (
    "Yrjänäinen, Boström, Magnusson, Jonasson, Posterior Sampling of Probabilistic Word Embeddings"
)
SOURCE = "section 4.1.2, Table 2"

SIZES: tuple[int, ...] = (1_000, 2_000, 5_000, 20_000, 50_000)
SETTING: tuple[int, int] = (5, 100)
#: The paper's rows: method -> median ESS out of 1,000 draws at SIZES (Table 2, typed).
PAPER_TABLE: dict[str, tuple[float, ...]] = {
    "HMC": (886.6, 913.8, 931.6, 964.3, 993.7),
    "Gibbs": (579.8, 327.9, 207.0, 286.9, 547.7),
}
#: Our method for each of the paper's.
METHODS: dict[str, str] = {"HMC": "nuts", "Gibbs": "pg-gibbs"}
#: Samplers of the unidentified model (rows not in the paper): cell method -> sampler.
POSTHOC: dict[str, str] = {"pg-gibbs-posthoc": "pg-gibbs", "nuts-posthoc": "nuts"}
DATASETS = 3
#: "Near nominal" for the HMC row: the paper's lowest is 88.7 % of the draws.
NOMINAL_SHARE = 0.85


def cells(quick: bool) -> list[Cell]:
    """N x dataset x method at K = 5, V = 100; quick: K = 2, V = 10, two sizes, one dataset."""
    if quick:
        (K, V), sizes, datasets, draws, warmup = (2, 10), (1_000, 5_000), 1, 200, 200
    else:
        (K, V), sizes, datasets, draws, warmup = SETTING, SIZES, DATASETS, 1000, 1000
    return [
        Cell(
            "001-table2",
            {
                "K": K,
                "V": V,
                "N": N,
                "dataset": d,
                "method": method,
                "draws": draws,
                "warmup": warmup,
            },
        )  # fmt: skip
        for N in sizes
        for d in range(datasets)
        for method in (*METHODS.values(), *POSTHOC)
    ]


def identified_problem(
    K: int, V: int, N: int, dataset: int
) -> tuple[Any, dict[str, Any], dict[str, np.ndarray]]:
    """``(sim, stan_data, start)`` of a ``001-table1`` dataset for ``sgns_identified``.

    ``start`` is the dataset's MAP of ``sgns`` moved onto the slice ``alpha[I] = M``
    (Proposition 1): the same start for every sampler, so that neither pays for a
    worse one in its warm-up.
    """
    from bayeswe.reproduce.yrjanainen_table1 import simulated_dataset
    from bayeswe.sgns.identify import identify_transform

    sim, anchors, mode, sd = simulated_dataset(K, V, N, dataset)
    data = sim.data.stan_data(
        K, prior_sd=sd, fixed_index=anchors.fixed_index, fixed_alpha=anchors.fixed_alpha
    )
    rho, alpha = identify_transform(
        mode.posterior["rho"].values[0, 0],
        mode.posterior["alpha"].values[0, 0],
        anchors.fixed_index,
        anchors.fixed_alpha,
    )
    free = np.setdiff1d(np.arange(V), anchors.fixed_index)
    return sim, data, {"rho": rho, "alpha_free": alpha[free]}


def median_ess(idata: Any) -> dict[str, float]:
    """Medians of ArviZ's bulk ESS over ``rho`` and ``alpha_free`` of an identified fit, and
    its :func:`invariant_ess` (``P(w ∧ v)``, the log density, the Gram matrices)."""
    import arviz as az

    ess = az.ess(idata.posterior, var_names=["rho", "alpha_free"], method="bulk")
    params = np.concatenate([ess[name].values.ravel() for name in ("rho", "alpha_free")])
    return {
        "ess_params": float(np.median(params)),
        "ess_params_min": float(np.min(params)),
        **invariant_ess(idata),
    }


def ess_bound(draws: int) -> float:
    """ArviZ's cap on the ESS of ``draws`` draws, ``draws * log10(draws)``."""
    return draws * math.log10(draws)


def invariant_ess(idata: Any) -> dict[str, float]:
    """Bulk ESS of gauge-free quantities: ``P(w ∧ v)``, the log density, the Gram matrices."""
    import arviz as az
    import xarray as xr

    from bayeswe.sgns.metrics import cooccurrence_probability

    post = idata.posterior
    rho = post["rho"].transpose("chain", "draw", "word", "dim").values
    alpha = post["alpha"].transpose("chain", "draw", "word", "dim").values
    upper = np.triu_indices(rho.shape[-2])
    grams = {
        name: np.einsum("cdwk,cdvk->cdwv", m, m)[:, :, upper[0], upper[1]]
        for name, m in (("rho", rho), ("alpha", alpha))
    }
    data = xr.Dataset(
        {
            "p": (("chain", "draw", "w", "v"), cooccurrence_probability(rho, alpha)),
            "gram_rho": (("chain", "draw", "pair"), grams["rho"]),
            "gram_alpha": (("chain", "draw", "pair"), grams["alpha"]),
        }
    )
    ess = az.ess(data, method="bulk")
    stats = idata.sample_stats
    lp = stats["lp"] if "lp" in stats else stats["lp__"]
    return {
        "ess_p": float(np.median(ess["p"].values)),
        "ess_p_min": float(np.min(ess["p"].values)),
        "ess_gram_rho": float(np.median(ess["gram_rho"].values)),
        "ess_gram_alpha": float(np.median(ess["gram_alpha"].values)),
        "ess_lp": float(az.ess(lp.values, method="bulk")),
    }


def _posthoc_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """An unidentified sampler from the dataset's MAP of ``sgns``; gauge-free ESS."""
    import time

    import bayeswe
    from bayeswe.reproduce.yrjanainen_table1 import simulated_dataset

    K, V, N, d = params["K"], params["V"], params["N"], params["dataset"]
    sim, _, mode, sd = simulated_dataset(K, V, N, d)
    start = {name: mode.posterior[name].values[0, 0] for name in ("rho", "alpha")}
    sampler = POSTHOC[params["method"]]
    options: dict[str, Any] = {"iter_warmup": params["warmup"], "iter_sampling": params["draws"],
                               "inits": start}  # fmt: skip
    if sampler == "pg-gibbs":
        options["show_progress"] = False
    started = time.perf_counter()
    idata = bayeswe.fit("sgns", sim.data.stan_data(K, prior_sd=sd), method=sampler, seed=seed,
                        chains=1, **options)  # fmt: skip
    wall = time.perf_counter() - started
    out: dict[str, Any] = {
        **invariant_ess(idata),
        "ess_params": float("nan"),
        "draws": int(idata.posterior.sizes["draw"]),
        "chains": int(idata.posterior.sizes["chain"]),
        "P": int(sim.data.P),
        "fit_s": wall,
    }
    if sampler == "nuts":
        stats = idata.sample_stats
        out["divergences"] = int(stats["diverging"].values.sum())
        out["leapfrogs_per_draw"] = float(stats["n_steps"].values.mean())
    return out


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Simulate the cell's dataset, sample it from the common start, measure the ESS."""
    import time

    import bayeswe

    if params["method"] in POSTHOC:
        return _posthoc_cell(params, seed)
    K, V, N, d = params["K"], params["V"], params["N"], params["dataset"]
    sim, data, start = identified_problem(K, V, N, d)
    options: dict[str, Any] = {"iter_warmup": params["warmup"], "iter_sampling": params["draws"],
                               "inits": start}  # fmt: skip
    if params["method"] == "pg-gibbs":
        options["show_progress"] = False
    started = time.perf_counter()
    idata = bayeswe.fit("sgns_identified", data, method=params["method"], seed=seed, chains=1,
                        **options)  # fmt: skip
    wall = time.perf_counter() - started
    out: dict[str, Any] = {
        **median_ess(idata),
        "draws": int(idata.posterior.sizes["draw"]),
        "chains": int(idata.posterior.sizes["chain"]),
        "P": int(sim.data.P),
        "fit_s": wall,
    }
    if params["method"] == "nuts":
        stats = idata.sample_stats
        out["divergences"] = int(stats["diverging"].values.sum())
        out["leapfrogs_per_draw"] = float(stats["n_steps"].values.mean())
    return out


_COLUMNS = ["K", "V", "N", "dataset", "method", "draws", "ess_params", "ess_params_min",
            "ess_p", "ess_p_min", "ess_lp", "ess_gram_rho", "ess_gram_alpha", "P",
            "fit_s"]  # fmt: skip


def _row_verdict(paper_name: str, ours: dict[int, float], other: dict[int, float],
                 draws: int) -> dict[str, Any]:  # fmt: skip
    """The paper's claim for a method's row, checked on one of our median ESS columns."""
    sizes = sorted(ours)
    if not sizes:
        return {"verdict": "not run", "why": "no finished cells"}
    share = {n: ours[n] / draws for n in sizes}
    spread = f"{min(share.values()):.0%}-{max(share.values()):.0%} of {draws} draws"
    if paper_name == "HMC":
        ok = min(share.values()) >= NOMINAL_SHARE
        return {"verdict": "reproduced" if ok else "differs",
                "why": f"median ESS {spread} over N (claim: near nominal, 89-99 % in the "
                       f"paper; we ask >= {NOMINAL_SHARE:.0%} at every N)"}  # fmt: skip
    both = [n for n in sizes if n in other]
    if not both:
        return {"verdict": "not run", "why": "no HMC cell at the same N to compare with"}
    below = [n for n in both if ours[n] < other[n]]
    ratios = ", ".join(f"{n:,}: {ours[n] / other[n]:.2f}" for n in both)
    return {"verdict": "reproduced" if len(below) == len(both) else "differs",
            "why": f"median ESS {spread}; Gibbs/HMC at each N: {ratios} (claim: below HMC at "
                   "every N, 21-58 % of nominal in the paper)"}  # fmt: skip


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv``, ``ess.png`` and the table beside the paper's, per row a verdict."""
    plt = pyplot()
    table = done_frame(results, _COLUMNS)
    write_table(out, table)
    grouped = table.groupby(["K", "V", "method", "N"])
    mean = grouped[["ess_params", "ess_p", "draws"]].mean()
    count = grouped.size()
    ours_settings = {(int(k), int(v)) for k, v in zip(table.K, table.V, strict=True)}
    settings = [SETTING, *sorted(ours_settings - {SETTING})]
    lines: list[str] = []
    verdicts: list[dict[str, Any]] = []
    fig, axes = plt.subplots(1, len(settings), squeeze=False, figsize=(4.6 * len(settings), 3.6))
    for ax, (K, V) in zip(axes[0], settings, strict=True):
        sizes = sorted(set(SIZES if (K, V) == SETTING else ())
                       | {int(n) for n in table.N[(table.K == K) & (table.V == V)]})  # fmt: skip
        header = ["method", "source", *[f"{n:,}" for n in sizes]]
        rows = []
        per_method: dict[str, dict[str, dict[int, float]]] = {}
        draws = 1000
        for paper_name, method in METHODS.items():
            ours = {col: {} for col in ("ess_params", "ess_p")}
            for n in sizes:
                if (K, V, method, n) in mean.index:
                    for col in ours:
                        ours[col][n] = float(mean.loc[(K, V, method, n), col])
                    draws = int(mean.loc[(K, V, method, n), "draws"])
            per_method[paper_name] = ours
            paper = dict(zip(SIZES, PAPER_TABLE[paper_name], strict=True)) if (K, V) == SETTING \
                else {}  # fmt: skip
            rows.append([paper_name, "paper", *[f"{paper[n]:.1f}" if n in paper else "–"
                                                for n in sizes]])  # fmt: skip
            for col, what in (("ess_params", "parameters"), ("ess_p", "P(w ∧ v)")):
                rows.append([f"{paper_name} ({method}), {what}", "ours",
                             *[f"{ours[col][n]:.1f} ({int(count.loc[(K, V, method, n)])})"
                               if n in ours[col] else "not run" for n in sizes]])  # fmt: skip
        for j, paper_name in enumerate(METHODS):
            # The paper does not say what its median is over: both of ours are checked.
            for col, what in (("ess_params", "parameters"), ("ess_p", "P(w ∧ v)")):
                ours = per_method[paper_name][col]
                v = _row_verdict(paper_name, ours, per_method["HMC"][col], draws)
                verdicts.append(verdict(f"K = {K}, V = {V}, {paper_name}, median over {what}",
                                        v["verdict"] == "reproduced", v["why"]))  # fmt: skip
                if v["verdict"] == "not run":
                    verdicts[-1]["verdict"] = "not run"
            for col, ls in (("ess_params", "-"), ("ess_p", ":")):
                points = per_method[paper_name][col]
                if points:
                    ax.plot(list(points), list(points.values()), marker="o", ls=ls,
                            color=f"C{j}", label=f"{paper_name} ours, "
                            f"{'parameters' if col == 'ess_params' else 'P(w, v)'}")  # fmt: skip
            if (K, V) == SETTING:
                ax.plot(SIZES, PAPER_TABLE[paper_name], ls="--", marker="x", color=f"C{j}",
                        alpha=0.6, label=f"{paper_name} paper")  # fmt: skip
        ax.axhline(draws, color="k", lw=0.8, label="draws kept")
        ax.set_xscale("log")
        ax.legend(fontsize="x-small")
        ax.set_title(f"K = {K}, V = {V}")
        ax.set_xlabel("N")
        lines += [f"### K = {K}, V = {V}", "", markdown_table(header, rows), ""]
    axes[0][0].set_ylabel("median bulk ESS")
    fig.tight_layout()
    save_figure(fig, out, "ess.png")
    md = [
        *what_was_run(__doc__, "Our side"),
        "![Median ESS against N](ess.png)",
        "",
        "## Median ESS: the paper's Table 2 and ours",
        "",
        "Ours: mean over the finished datasets of each dataset's median bulk ESS (their "
        "number in brackets), over the parameters and over the co-occurrence "
        "probabilities. `not run`: cells this run did not include.",
        "",
        *lines,
        *_posthoc_section(table),
    ]
    return finish_report(md, verdicts, results)


def _posthoc_section(table: Any) -> list[str]:
    """The unidentified samplers' gauge-free ESS beside the identified ones', by N."""
    new = table[table.method.isin(list(POSTHOC))]
    if new.empty:
        return []
    rows = []
    methods = ["pg-gibbs", "pg-gibbs-posthoc", "nuts", "nuts-posthoc"]
    columns = ("ess_p", "ess_lp", "ess_gram_rho", "ess_gram_alpha", "fit_s")
    mean = table.groupby(["K", "V", "N", "method"])[list(columns)].mean()
    count = table.groupby(["K", "V", "N", "method"]).size()
    for (K, V, N, method), row in mean.iterrows():
        if method not in methods:
            continue
        cells = [f"{row[c]:.0f}" if np.isfinite(row[c]) else "–" for c in columns[:-1]]
        rows.append([f"{K} x {V}", f"{int(N):,}", method, f"{int(count.loc[(K, V, N, method)])}",
                     *cells, f"{row['fit_s']:.1f}"])  # fmt: skip
    return [
        "## Without conditioning: the unidentified samplers",
        "",
        "Median bulk ESS of 1,000 draws (mean over the datasets run) of what does not "
        "depend on the gauge, beside the identified samplers on the same datasets. "
        "`–`: not recorded by the run that computed the cell. Fitting seconds are wall "
        "times under the load of the run that computed each cell: the cost per "
        "effective draw is compared side by side in `bayeswe bench sgns-identification`.",
        "",
        markdown_table(
            [
                "K x V",
                "N",
                "method",
                "datasets",
                "P(w ∧ v)",
                "log density",
                "rho rho^T",
                "alpha alpha^T",
                "fit s",
            ],
            rows,
        ),  # fmt: skip
        "",
    ]
