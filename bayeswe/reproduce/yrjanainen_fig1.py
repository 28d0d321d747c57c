"""Yrjänäinen et al., Fig. 1: the posterior "shell" of a word vector, K = 2, V = 10.

**The paper.** Data simulated from eqs. (16)-(17) with ``K = 2``, ``V = 10``,
``N = 2·10^4``; Stan's HMC on the unidentified model (left panel) and on the model with
the ``K`` context vectors ``alpha_I`` fixed at a MAP estimate (right panel). The
draws of ``(rho_{1,1}, rho_{1,2})`` lie on a circular shell, symmetric around the
origin with a posterior mean of zero, in the unidentified model; fixing ``alpha_I``
removes the symmetry and the posterior mean is nonzero (section 4.1.1). The paper
gives no numbers for this figure, nor its number of chains or draws.

**Our side.** Datasets of ``001-table1``
(:func:`~bayeswe.reproduce.yrjanainen_table1.simulated_dataset`: ``simulate_sgns``,
prior sd ``1/sqrt(K)``, the anchors taken from the MAP of ``sgns`` by the paper's
``"last"`` rule) at ``K = 2``, ``V = 10``, ``N = 2·10^4``; ten datasets, the figure
shows the first. Each dataset is fitted by Stan's NUTS twice: ``sgns`` (not
identified, Stan's random starts) and ``sgns_identified`` (the anchors fixed, chains
started at the MAP mapped onto the identified slice, bayeswe's default), four chains
of 1,000 draws after 1,000 warm-up iterations each. The shell is measured on the
draws of ``rho_1`` (the first word, as in the paper) in polar coordinates: the
*mean resultant length* ``R = |mean of (cos θ, sin θ)|`` of the draws' angles θ
(0: angles spread evenly around the circle; 1: one direction), the sd of the angles
around their circular mean, the mean and sd of the radius ``|rho_1|``, the ratio of
angular spread along the circle (mean radius x angular sd) to radial spread
(``arc/radial``), and ``|mean of rho_1| / mean |rho_1|`` (0: the posterior mean at
the centre of the shell). ``R`` is also given as its median over all ``V`` words.
For the identified fit the true ``rho_1`` mapped into the anchors' frame
(Proposition 1) is drawn, with its squared Mahalanobis distance from the draws.

*Cost:* 20 cells of 15-20 s (four chains of 2,000 iterations; measured on dataset 0
under a load of 3 on 2 cores), about 5 CPU-minutes in all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

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

TITLE = "the posterior shell of a word vector, K = 2, V = 10, unidentified vs identified"
PAPER = (
    "Yrjänäinen, Boström, Magnusson, Jonasson, Posterior Sampling of Probabilistic Word Embeddings"
)
SOURCE = "section 4.1.1, Figure 1"

#: The paper's setting (Figure 1 caption): K, V, N.
SETTING: tuple[int, int, int] = (2, 10, 20_000)
#: The two panels: model -> what the paper shows.
MODELS: dict[str, str] = {
    "sgns": "left: not identified",
    "sgns_identified": "right: alpha_I fixed at the MAP",
}
DATASETS = 10
#: The word whose vector is plotted (0-based; the paper's rho_1).
WORD = 0
#: Draws of rho_1 kept in results.json for the figure (evenly thinned).
PLOT_DRAWS = 1000
#: Thresholds of the verdicts: "spread around the circle" and "one direction".
SPREAD_R, CONCENTRATED_R = 0.25, 0.9
#: "The mean at the centre" and "the mean on the shell", |mean| / mean radius.
CENTRED, OFF_CENTRE = 0.25, 0.9
#: Angular spread along the shell at least this many times the radial spread.
SHELL_RATIO = 5.0


def cells(quick: bool) -> list[Cell]:
    """dataset x model; quick: the first dataset, four chains of 150 draws."""
    K, V, N = SETTING
    if quick:
        datasets, chains, draws, warmup = 1, 4, 150, 150
    else:
        datasets, chains, draws, warmup = DATASETS, 4, 1000, 1000
    return [
        Cell(
            "001-fig1",
            {
                "K": K,
                "V": V,
                "N": N,
                "dataset": d,
                "model": model,
                "chains": chains,
                "draws": draws,
                "warmup": warmup,
            },
        )
        for d in range(datasets)
        for model in MODELS
    ]


def shell_stats(points: ArrayLike) -> dict[str, float]:
    """Polar summary of two-dimensional draws ``(S, 2)`` (see the module docstring)."""
    x = np.asarray(points, dtype=np.float64)
    radius = np.hypot(x[:, 0], x[:, 1])
    unit = np.exp(1j * np.arctan2(x[:, 1], x[:, 0]))
    mean_unit = unit.mean()
    # deviations from the circular mean, wrapped into (-pi, pi]
    deviation = np.angle(unit * np.conj(mean_unit / abs(mean_unit)))
    angle_sd = float(deviation.std(ddof=1))
    radial_sd = float(radius.std(ddof=1))
    return {
        "resultant": float(abs(mean_unit)),
        "angle_sd_deg": float(np.degrees(angle_sd)),
        "mean_radius": float(radius.mean()),
        "radial_sd": radial_sd,
        "arc_to_radial": float(radius.mean() * angle_sd / radial_sd),
        "mean_to_radius": float(np.linalg.norm(x.mean(axis=0)) / radius.mean()),
    }


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Fit one dataset by NUTS on one model; the shell's numbers and rho_1's draws."""
    import time

    from bayeswe.reproduce.yrjanainen_common import rounded
    from bayeswe.reproduce.yrjanainen_table1 import simulated_dataset
    from bayeswe.sgns.fitting import fit_sgns
    from bayeswe.sgns.identify import identify_transform
    from bayeswe.sgns.metrics import draws_of

    K, V, N, d = params["K"], params["V"], params["N"], params["dataset"]
    sim, anchors, _, sd = simulated_dataset(K, V, N, d)
    identified = params["model"] == "sgns_identified"
    started = time.perf_counter()
    idata = fit_sgns(
        sim.data,
        K,
        method="nuts",
        identified=identified,
        anchors=anchors if identified else None,
        prior_sd=sd,
        seed=seed,
        chains=params["chains"],
        iter_warmup=params["warmup"],
        iter_sampling=params["draws"],
    )
    wall = time.perf_counter() - started
    rho, _ = draws_of(idata)
    word = rho[:, WORD, :]
    keep = np.linspace(0, len(word) - 1, min(PLOT_DRAWS, len(word))).round().astype(int)
    out: dict[str, Any] = {
        **shell_stats(word),
        "resultant_all_words": float(
            np.median([shell_stats(rho[:, w])["resultant"] for w in range(V)])
        ),
        "draws_total": int(len(word)),
        "divergences": int(idata.sample_stats["diverging"].values.sum()),
        "fixed_words": [int(i) for i in anchors.fixed_index] if identified else [],
        "points": rounded(word[keep], 4),
        "fit_s": wall,
    }
    if identified:
        # The identified parameters are unique, so the truth has one representation in
        # the anchors' frame (Proposition 1): there it can be compared with the draws.
        true_rho, _ = identify_transform(
            sim.rho, sim.alpha, anchors.fixed_index, anchors.fixed_alpha
        )
        truth = true_rho[WORD]
        gap = truth - word.mean(axis=0)
        out["truth"] = rounded(truth, 6)
        out["truth_d2"] = float(gap @ np.linalg.solve(np.cov(word.T), gap))
    return out


_COLUMNS = [
    "K",
    "V",
    "N",
    "dataset",
    "model",
    "chains",
    "draws",
    "resultant",
    "angle_sd_deg",
    "mean_radius",
    "radial_sd",
    "arc_to_radial",
    "mean_to_radius",
    "resultant_all_words",
    "truth_d2",
    "divergences",
    "fit_s",
]


def _claims(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The paper's four statements about Figure 1, each checked on every dataset."""
    left = table[table.model == "sgns"]
    right = table[table.model == "sgns_identified"]

    def span(frame: pd.DataFrame, col: str, fmt: str = ".2f") -> str:
        return f"{frame[col].min():{fmt}}-{frame[col].max():{fmt}}"

    rows = []
    n = f"{len(left)} dataset(s)"
    if len(left):
        ok = bool((left.resultant < SPREAD_R).all() and (left.arc_to_radial > SHELL_RATIO).all())
        rows.append(
            verdict(
                "Left: the draws of rho_1 lie on a circular shell",
                ok,
                f"mean resultant length R {span(left, 'resultant')} (ask < {SPREAD_R}), "
                f"angular sd {span(left, 'angle_sd_deg', '.0f')} deg, angular/radial spread "
                f"{span(left, 'arc_to_radial', '.1f')} (ask > {SHELL_RATIO:g}) over {n}",
            )
        )
        rows.append(
            verdict(
                "Left: symmetric around the origin, posterior mean zero",
                bool((left.mean_to_radius < CENTRED).all()),
                f"|mean rho_1| / mean |rho_1| {span(left, 'mean_to_radius')} (ask < {CENTRED}) "
                f"over {n}",
            )
        )
    else:
        rows += [
            not_run(c, "no finished cells")
            for c in (
                "Left: the draws of rho_1 lie on a circular shell",
                "Left: symmetric around the origin, posterior mean zero",
            )
        ]
    n = f"{len(right)} dataset(s)"
    if len(right):
        rows.append(
            verdict(
                "Right: fixing alpha_I eliminates the symmetry",
                bool((right.resultant > CONCENTRATED_R).all()),
                f"R {span(right, 'resultant')} (ask > {CONCENTRATED_R}), angular sd "
                f"{span(right, 'angle_sd_deg', '.0f')} deg over {n}",
            )
        )
        rows.append(
            verdict(
                "Right: the posterior mean is nonzero",
                bool((right.mean_to_radius > OFF_CENTRE).all()),
                f"|mean rho_1| / mean |rho_1| {span(right, 'mean_to_radius')} (ask > {OFF_CENTRE}) "
                f"over {n}",
            )
        )
    else:
        rows += [
            not_run(c, "no finished cells")
            for c in (
                "Right: fixing alpha_I eliminates the symmetry",
                "Right: the posterior mean is nonzero",
            )
        ]
    return rows


def _figure(results: list[CellResult], out: Path) -> None:
    plt = pyplot()
    first = {
        r.cell.params["model"]: r
        for r in results
        if r.status == "done" and r.cell.params["dataset"] == 0
    }
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.4))
    extent = (
        max([float(np.abs(np.asarray(r.result["points"])).max()) for r in first.values()] + [1.0])
        * 1.1
    )
    for ax, (model, what) in zip(axes, MODELS.items(), strict=True):
        ax.set_title(f"{model} ({what})", fontsize="medium")
        if model in first:
            res = first[model].result
            pts = np.asarray(res["points"])
            ax.scatter(pts[:, 0], pts[:, 1], s=4, alpha=0.35, color="C0", label="draws")
            m = pts.mean(axis=0)
            ax.scatter(
                [m[0]],
                [m[1]],
                marker="x",
                s=120,
                color="red",
                linewidths=2.5,
                label="posterior mean",
                zorder=3,
            )
            if "truth" in res:
                ax.scatter(
                    [res["truth"][0]],
                    [res["truth"][1]],
                    marker="*",
                    s=140,
                    color="k",
                    label=r"true $\rho_1$, anchors' frame",
                    zorder=3,
                )
            ax.legend(fontsize="x-small", loc="lower right")
        else:
            ax.text(0.5, 0.5, "not run", ha="center", transform=ax.transAxes)
        ax.set_xlim(-extent, extent)
        ax.set_ylim(-extent, extent)
        ax.set_aspect("equal")
        ax.axhline(0, color="grey", lw=0.5)
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_xlabel(r"$\rho_{1,1}$")
        ax.set_ylabel(r"$\rho_{1,2}$")
    K, V, N = SETTING
    fig.suptitle(f"K = {K}, V = {V}, N = {N:,}, first dataset, Stan NUTS", fontsize="medium")
    fig.tight_layout()
    save_figure(fig, out, "shell.png")


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv``, ``shell.png`` (the paper's two panels) and a verdict per claim."""
    table = done_frame(results, _COLUMNS)
    write_table(out, table)
    _figure(results, out)
    verdicts = _claims(table)
    header = [
        "dataset",
        "model",
        "R",
        "angular sd (deg)",
        "mean |rho_1|",
        "sd |rho_1|",
        "angular/radial",
        "|mean| / mean |rho_1|",
        "R, median over words",
        "truth d²",
        "divergences",
    ]
    rows = [
        [
            int(r.dataset),
            r.model,
            f"{r.resultant:.3f}",
            f"{r.angle_sd_deg:.1f}",
            f"{r.mean_radius:.3f}",
            f"{r.radial_sd:.3f}",
            f"{r.arc_to_radial:.1f}",
            f"{r.mean_to_radius:.3f}",
            f"{r.resultant_all_words:.3f}",
            "–" if pd.isna(r.truth_d2) else f"{r.truth_d2:.2f}",
            int(r.divergences),
        ]
        for r in table.sort_values(["dataset", "model"]).itertuples()
    ]
    K, V, N = SETTING
    md = [
        *what_was_run(__doc__, "The paper", "Our side"),
        "![The shell: rho_1 draws, not identified (left) and identified (right)](shell.png)",
        "",
        f"## The shell in numbers (K = {K}, V = {V}, N = {N:,})",
        "",
        "The paper's Figure 1 has no numbers: its claims are the rows of the verdict "
        "table. `truth d²`: squared Mahalanobis distance of the true rho_1 in the "
        "anchors' frame from the identified draws (chi-square with 2 degrees of freedom "
        "if the truth were a draw: 90 % below 4.61).",
        "",
        markdown_table(header, rows),
        "",
    ]
    return finish_report(md, verdicts, results)
