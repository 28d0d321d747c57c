"""Yrjänäinen et al., Fig. 4: posteriors of cosine similarities on simulated data.

**The paper.** The first simulated dataset of section 4.1 (eqs. (16)-(17), uniform
co-occurrences) with ``K = 5``, ``V = 100``, ``N = 10^5``; the posterior of the cosine
similarity of ``rho_1`` and ``rho_2`` and of ``rho_42`` and ``rho_44`` by the Gibbs
sampler, HMC and MFVI. The paper's claims: the posteriors from HMC and the Gibbs
sampler are very similar; MFVI's differ from them drastically. It gives no numbers
and no true cosines.

**Our side.** The datasets of ``001-table1``
(:func:`~bayeswe.reproduce.yrjanainen_table1.simulated_dataset`: ``simulate_sgns``,
prior sd ``1/sqrt(K)``, anchors from the MAP by the paper's ``"last"`` rule), ten of
them (the first is the paper's figure); the identified model fitted by ``nuts`` and
``pg-gibbs`` (one chain each, 1,000 draws after 1,000 warm-up) and ``advi`` (Stan's
mean-field ADVI, 1,000 draws), all with the same anchors, as in ``001-table1``. The
two posteriors of a cosine are compared by the difference of their means in units of
HMC's sd, the ratio of their sds (method / HMC), the Kolmogorov-Smirnov distance and
R-hat with the two runs as two chains. "Very similar": ``|Δmean| <= 0.3`` HMC sd,
sd ratio in ``[0.75, 1.33]`` and KS ``<= 0.2``; "drastically different": ``|Δmean|
>= 1`` HMC sd or an sd ratio ``<= 0.5`` or ``>= 2`` (set before the runs).

*True cosines.* The likelihood is invariant under ``GL(K)``, cosines only under its
orthogonal part, which is the symmetry the prior leaves (eq. (6)); the MAP that the
anchors come from is the balanced representative (``rho^T rho = alpha^T alpha``), and
the simulated vectors are balanced too (eq. (16)), so the posterior's cosines estimate
the cosines of the simulated vectors (``truth``). The exact representative of the
truth on the slice ``alpha_I = M`` (Proposition 1: ``rho A^{-T}``, ``A = alpha_I^{-1}
M``) is a different target (``slice``): it amplifies the error of the MAP's anchors
by the condition number of the true ``alpha_I`` (on the first dataset the singular
values of ``A^{-T}`` run from 0.4 to 2.9, and the cosines of the identified model's
MAP are on average 0.38 from the slice truth's and 0.18 from the simulated
vectors'); its coverage is reported to show this. As an extension (the
paper shows no coverage of cosines), the share of all ``V (V - 1) / 2`` pairs whose
central 90 % interval holds the true cosine is given per method, beside Table 1's
coverage of ``P(w ∧ v)``; and the comparison of the two paper pairs is repeated over
300 fixed random pairs of every dataset (medians).

*Cost:* 30 cells; per dataset about 50 s for NUTS, 20 s for the Gibbs sampler and 3 s
for ADVI (``001-table1``'s cells at this setting), about 15 CPU-minutes in all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayeswe.reproduce.grid import Cell, CellResult
from bayeswe.reproduce.report import (
    finish_report,
    markdown_table,
    not_run,
    pyplot,
    save_figure,
    verdict,
    what_was_run,
    write_table,
)

TITLE = "posteriors of cosine similarities on simulated data, HMC vs Gibbs vs MFVI"
PAPER = (
    "Yrjänäinen, Boström, Magnusson, Jonasson, Posterior Sampling of Probabilistic Word Embeddings"
)
SOURCE = "section 4.1.2, Figure 4"

#: The paper's setting (Figure 4 caption): K, V, N.
SETTING: tuple[int, int, int] = (5, 100, 100_000)
#: The paper's pairs, 1-based as in its caption, and their 0-based indices.
PAPER_PAIRS: dict[str, tuple[int, int]] = {"rho_1, rho_2": (0, 1), "rho_42, rho_44": (41, 43)}
#: The paper's methods (and colours) and ours.
METHODS: dict[str, str] = {"Gibbs": "pg-gibbs", "HMC": "nuts", "MFVI": "advi"}
COLOURS: dict[str, str] = {"Gibbs": "tab:green", "HMC": "tab:blue", "MFVI": "tab:orange"}
DATASETS = 10
#: Random pairs per dataset whose posterior summaries are compared between methods.
COMPARE_PAIRS = 300
#: "Very similar" and "drastically different" (module docstring).
SIMILAR_MEAN, SIMILAR_SD, SIMILAR_KS = 0.3, (0.75, 1.33), 0.2
DIFFERENT_MEAN, DIFFERENT_SD = 1.0, (0.5, 2.0)
#: Coverage of HMC's and Gibbs's cosine intervals counted "about 90 %" within this.
COVERAGE_TOLERANCE = 5.0


def cells(quick: bool) -> list[Cell]:
    """dataset x method; quick: K = 3, V = 50, N = 5,000, one dataset, 200 draws."""
    if quick:
        (K, V, N), datasets, draws, warmup = (3, 50, 5_000), 1, 200, 200
    else:
        (K, V, N), datasets, draws, warmup = SETTING, DATASETS, 1000, 1000
    return [
        Cell(
            "001-fig4",
            {
                "K": K,
                "V": V,
                "N": N,
                "dataset": d,
                "method": method,
                "draws": draws,
                "warmup": warmup,
            },
        )
        for d in range(datasets)
        for method in METHODS.values()
    ]


def all_pairs(V: int) -> np.ndarray:
    """Every unordered pair of distinct words, ``(V (V - 1) / 2, 2)``."""
    i, j = np.triu_indices(V, k=1)
    return np.stack([i, j], axis=1)


def compare_pairs(V: int) -> np.ndarray:
    """Indices into :func:`all_pairs` of the pairs compared between methods (fixed)."""
    n = V * (V - 1) // 2
    rng = np.random.default_rng(V)
    return np.sort(rng.choice(n, size=min(COMPARE_PAIRS, n), replace=False))


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Fit one dataset by one method; cosine draws of the paper's pairs, coverage of all."""
    import time

    import arviz as az

    from bayeswe.reproduce.yrjanainen_common import pair_cosines, rounded, summarize_draws
    from bayeswe.reproduce.yrjanainen_table1 import simulated_dataset
    from bayeswe.sgns.fitting import fit_sgns
    from bayeswe.sgns.identify import identify_transform
    from bayeswe.sgns.metrics import draws_of

    K, V, N, d, method = (params[k] for k in ("K", "V", "N", "dataset", "method"))
    sim, anchors, _, sd = simulated_dataset(K, V, N, d)
    if method == "advi":
        options: dict[str, Any] = {"draws": params["draws"], "require_converged": False}
    else:
        options = {"iter_warmup": params["warmup"], "iter_sampling": params["draws"], "chains": 1}
        if method == "pg-gibbs":
            options["progress"] = False
    started = time.perf_counter()
    idata = fit_sgns(sim.data, K, method=method, anchors=anchors, prior_sd=sd, seed=seed, **options)
    wall = time.perf_counter() - started
    rho, _ = draws_of(idata)
    pairs = all_pairs(V)
    cos = pair_cosines(rho, pairs)
    true_rho, _ = identify_transform(sim.rho, sim.alpha, anchors.fixed_index, anchors.fixed_alpha)
    truth = pair_cosines(sim.rho[None], pairs)[0]
    on_slice = pair_cosines(true_rho[None], pairs)[0]
    lo, hi = np.quantile(cos, [0.05, 0.95], axis=0)
    chosen = compare_pairs(V)
    paper = {}
    for name, (a, b) in PAPER_PAIRS.items():
        if b >= V:
            continue
        k = int(np.flatnonzero((pairs[:, 0] == a) & (pairs[:, 1] == b))[0])
        paper[name] = {
            **summarize_draws(cos[:, k]),
            "ess": float(az.ess(cos[None, :, k], method="bulk")),
            "truth": float(truth[k]),
            "truth_slice": float(on_slice[k]),
            "draws": rounded(cos[:, k], 4),
        }
    return {
        "coverage90": float(np.mean((lo <= truth) & (truth <= hi))),
        "coverage90_slice": float(np.mean((lo <= on_slice) & (on_slice <= hi))),
        "pairs": int(len(pairs)),
        "paper_pairs": paper,
        "compare_mean": rounded(cos[:, chosen].mean(axis=0), 5),
        "compare_sd": rounded(cos[:, chosen].std(axis=0, ddof=1), 5),
        "draws_total": int(rho.shape[0]),
        "fit_s": wall,
    }


def _frame(results: list[CellResult]) -> pd.DataFrame:
    cols = [
        "K",
        "V",
        "N",
        "dataset",
        "method",
        "pair",
        "mean",
        "sd",
        "lower",
        "upper",
        "ess",
        "truth",
        "truth_slice",
        "coverage90",
        "coverage90_slice",
        "fit_s",
    ]
    rows = []
    for r in results:
        if r.status != "done":
            continue
        base = {
            **r.cell.params,
            **{k: r.result[k] for k in ("coverage90", "coverage90_slice", "fit_s")},
        }
        rows += [
            {**base, "pair": name, **{k: v for k, v in s.items() if k != "draws"}}
            for name, s in r.result["paper_pairs"].items()
        ]
    return pd.DataFrame(rows, columns=cols) if rows else pd.DataFrame(columns=cols)


def similar(c: dict[str, float]) -> bool:
    """The paper's "very similar" (module docstring), on :func:`compare_draws` numbers."""
    lo, hi = SIMILAR_SD
    return (
        abs(c["std_mean_diff"]) <= SIMILAR_MEAN
        and lo <= c["sd_ratio"] <= hi
        and c.get("ks", 0.0) <= SIMILAR_KS
    )


def drastic(c: dict[str, float]) -> bool:
    """The paper's "differ drastically" (module docstring)."""
    lo, hi = DIFFERENT_SD
    return abs(c["std_mean_diff"]) >= DIFFERENT_MEAN or not lo < c["sd_ratio"] < hi


def _describe(c: dict[str, float]) -> str:
    text = f"Δmean {c['std_mean_diff']:+.2f} HMC sd, sd ratio {c['sd_ratio']:.2f}"
    if "ks" in c:
        text += f", KS {c['ks']:.2f}, R-hat {c['rhat']:.3f}"
    return text


def _by(results: list[CellResult]) -> dict[tuple[int, str], dict[str, Any]]:
    return {
        (int(r.cell.params["dataset"]), r.cell.params["method"]): r.result
        for r in results
        if r.status == "done"
    }


def _paper_pair_rows(by: dict, dataset: int) -> tuple[list[list[Any]], list[dict[str, Any]]]:
    """The table of the paper's two pairs on ``dataset`` and its verdicts."""
    from bayeswe.reproduce.yrjanainen_common import compare_draws

    rows, verdicts = [], []
    for pair in PAPER_PAIRS:
        hmc = by.get((dataset, METHODS["HMC"]), {}).get("paper_pairs", {}).get(pair)
        for name, method in METHODS.items():
            s = by.get((dataset, method), {}).get("paper_pairs", {}).get(pair)
            if s is None:
                rows.append([pair, name, *["not run"] * 6, "–"])
                continue
            vs = (
                "–"
                if hmc is None or name == "HMC"
                else _describe(compare_draws(hmc["draws"], s["draws"]))
            )
            rows.append(
                [
                    pair,
                    f"{name} ({method})",
                    f"{s['mean']:.3f}",
                    f"{s['sd']:.3f}",
                    f"[{s['lower']:.3f}, {s['upper']:.3f}]",
                    f"{s['ess']:.0f}",
                    f"{s['truth']:.3f}",
                    f"{s['truth_slice']:.3f}",
                    vs,
                ]
            )
        for name, claim, test in (
            ("Gibbs", "the Gibbs sampler's posterior is very similar to HMC's", similar),
            ("MFVI", "MFVI's posterior differs drastically from HMC's", drastic),
        ):
            s = by.get((dataset, METHODS[name]), {}).get("paper_pairs", {}).get(pair)
            label = f"dataset {dataset}, cos({pair}): {claim}"
            if s is None or hmc is None:
                verdicts.append(not_run(label, "no finished cells"))
                continue
            c = compare_draws(hmc["draws"], s["draws"])
            verdicts.append(verdict(label, test(c), _describe(c)))
    return rows, verdicts


def _over_pairs(by: dict) -> tuple[dict[str, dict[str, float]], list[dict[str, Any]]]:
    """Medians over the compared pairs of every dataset, each method against HMC."""
    out: dict[str, dict[str, float]] = {}
    for name in ("Gibbs", "MFVI"):
        smd, ratio = [], []
        for (d, method), res in by.items():
            hmc = by.get((d, METHODS["HMC"]))
            if method != METHODS[name] or hmc is None:
                continue
            m0, s0 = np.asarray(hmc["compare_mean"]), np.asarray(hmc["compare_sd"])
            smd.append((np.asarray(res["compare_mean"]) - m0) / s0)
            ratio.append(np.asarray(res["compare_sd"]) / s0)
        if smd:
            out[name] = {
                "std_mean_diff": float(np.median(np.abs(np.concatenate(smd)))),
                "sd_ratio": float(np.median(np.concatenate(ratio))),
                "datasets": len(smd),
            }
    verdicts = []
    for name, claim, test in (
        (
            "Gibbs",
            "all datasets, random pairs: Gibbs's cosine posteriors very similar to HMC's (medians)",
            similar,
        ),
        (
            "MFVI",
            "all datasets, random pairs: MFVI's differ drastically from HMC's (medians)",
            drastic,
        ),
    ):
        if name not in out:
            verdicts.append(not_run(claim, "no cells"))
            continue
        c = out[name]
        verdicts.append(
            verdict(
                claim,
                test(c),
                f"median |Δmean| {c['std_mean_diff']:.2f} HMC "
                f"sd, median sd ratio {c['sd_ratio']:.2f} over "
                f"{c['datasets']} dataset(s)",
            )
        )
    return out, verdicts


def _coverage(by: dict) -> tuple[list[list[Any]], list[dict[str, Any]], dict[str, float]]:
    rows, mean = [], {}
    for name, method in METHODS.items():
        cov = [100 * res["coverage90"] for (d, m), res in sorted(by.items()) if m == method]
        on_slice = [
            100 * res["coverage90_slice"] for (d, m), res in sorted(by.items()) if m == method
        ]
        if not cov:
            rows.append([f"{name} ({method})", "not run", "not run", "0"])
            continue
        mean[name] = float(np.mean(cov))
        rows.append(
            [
                f"{name} ({method})",
                f"{np.mean(cov):.1f} ({min(cov):.1f}-{max(cov):.1f})",
                f"{np.mean(on_slice):.1f}",
                str(len(cov)),
            ]
        )
    claim_ok = (
        "extension: HMC's and Gibbs's 90 % cosine intervals hold about 90 % of the true cosines"
    )
    claim_mf = "extension: MFVI's hold fewer than HMC's and Gibbs's"
    verdicts = []
    if "HMC" in mean and "Gibbs" in mean:
        worst = max(abs(mean[n] - 90.0) for n in ("HMC", "Gibbs"))
        verdicts.append(
            verdict(
                claim_ok,
                worst <= COVERAGE_TOLERANCE,
                f"HMC {mean['HMC']:.1f} %, Gibbs {mean['Gibbs']:.1f} % (ask "
                f"within {COVERAGE_TOLERANCE:g} points of 90)",
            )
        )
    else:
        verdicts.append(not_run(claim_ok, "no cells"))
    if {"HMC", "Gibbs", "MFVI"} <= set(mean):
        verdicts.append(
            verdict(
                claim_mf,
                mean["MFVI"] < min(mean["HMC"], mean["Gibbs"]),
                f"MFVI {mean['MFVI']:.1f} % vs HMC {mean['HMC']:.1f} %, "
                f"Gibbs {mean['Gibbs']:.1f} %",
            )
        )
    else:
        verdicts.append(not_run(claim_mf, "no cells"))
    return rows, verdicts, mean


def _figure(by: dict, out: Path, setting: tuple[int, int, int]) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, pair in zip(axes[:2], PAPER_PAIRS, strict=True):
        truth = None
        for name, method in METHODS.items():
            s = by.get((0, method), {}).get("paper_pairs", {}).get(pair)
            if s is None:
                continue
            ax.hist(
                s["draws"],
                bins=40,
                density=True,
                histtype="stepfilled",
                alpha=0.45,
                color=COLOURS[name],
                label=f"{name} ({method})",
            )
            truth = s
        if truth is not None:
            ax.axvline(truth["truth"], color="k", ls="--", label="true cosine")
            ax.axvline(
                truth["truth_slice"], color="grey", ls=":", label="truth mapped on the slice"
            )
        else:
            ax.text(0.5, 0.5, "not run", ha="center", transform=ax.transAxes)
        ax.set_title(f"cos({pair}), first dataset", fontsize="medium")
        ax.set_xlabel("cosine similarity")
        ax.legend(fontsize="x-small")
    ax = axes[2]
    for j, (name, method) in enumerate(METHODS.items()):
        cov = [100 * res["coverage90"] for (d, m), res in sorted(by.items()) if m == method]
        ax.scatter([j] * len(cov), cov, color=COLOURS[name], alpha=0.7)
        if cov:
            ax.hlines(np.mean(cov), j - 0.3, j + 0.3, color=COLOURS[name])
    ax.axhline(90, color="k", lw=0.8)
    ax.set_xticks(range(len(METHODS)), list(METHODS))
    ax.set_ylabel("90 % intervals holding the true cosine (%)")
    ax.set_title("all pairs, each dataset", fontsize="medium")
    K, V, N = setting
    fig.suptitle(f"K = {K}, V = {V}, N = {N:,}", fontsize="medium")
    fig.tight_layout()
    save_figure(fig, out, "cosines.png")


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv``, ``cosines.png`` and the paper's claims, each with a verdict."""
    table = _frame(results)
    write_table(out, table)
    by = _by(results)
    done = [r for r in results if r.status == "done"]
    setting = tuple(done[0].cell.params[k] for k in ("K", "V", "N")) if done else SETTING
    _figure(by, out, setting)
    pair_rows, verdicts = _paper_pair_rows(by, 0)
    medians, more = _over_pairs(by)
    cov_rows, cov_verdicts, _ = _coverage(by)
    verdicts += more + cov_verdicts
    K, V, N = setting
    paper_note = (
        ""
        if setting == SETTING
        else (
            f" (this run: K = {K}, V = {V}, N = {N:,}; the paper's K = {SETTING[0]}, "
            f"V = {SETTING[1]}, N = {SETTING[2]:,})"
        )
    )
    md = [
        *what_was_run(__doc__, "The paper", "Our side"),
        "![Cosine posteriors of the paper's pairs and coverage of all pairs](cosines.png)",
        "",
        f"## The paper's pairs, first dataset{paper_note}",
        "",
        "Figure 4 of the paper (Gibbs green, HMC blue, MFVI orange) has no numbers. "
        "`truth`: the cosine of the simulated vectors; `slice`: that of the truth mapped onto "
        "the slice alpha_I = M (see above). `vs HMC`: the comparison of the draws with HMC's.",
        "",
        markdown_table(
            ["pair", "method", "mean", "sd", "90 % interval", "ESS", "truth", "slice", "vs HMC"],
            pair_rows,
        ),
        "",
        "## Every pair: coverage of the true cosines (extension)",
        "",
        "Share (%) of the pairs whose central 90 % interval holds the true cosine (the "
        "simulated vectors'; `slice`: the truth mapped onto the slice), mean over datasets "
        "(range).",
        "",
        markdown_table(["method", "coverage", "coverage, slice", "datasets"], cov_rows),
        "",
    ]
    return finish_report(md, verdicts, results, medians=medians)
