"""Yrjänäinen et al., Fig. 3: Gibbs ``RMSE_co`` by ``N / V`` over several ``(K, V)``.

**The paper.** Data simulated from eqs. (16)-(17) (uniform co-occurrences, signal to
noise 1) for the ``(K, V)`` of Table 1, ``{5, 10, 20} x {100, 200}``; the Pólya-Gamma
Gibbs sampler on the model identified by fixing the last ``K`` context vectors at the
MAP; ``RMSE_co`` (eq. (12)) between the posterior mean and the true embeddings,
log-log against ``N / V``, averaged over 10 datasets. The figure prints no values.
Its text (section 4.1.2): the pattern is log-linear once N is large, for every K and
V; the slope is close to -0.5 for every ``(K, V)``; and "the increase in RMSE_co given
an increase in V was very close to 1, implying a convergence rate of O(N^0.5/V)".

**Reading the V claim.** The exponent as printed cannot be meant (``N^0.5 / V`` grows
with N). The figure's axis, ``N / V``, is the reading we check: at equal ``N / V`` the
curves of ``V = 100`` and ``V = 200`` coincide (their ratio "very close to 1"), i.e.
``RMSE_co ≈ c (N / V)^-0.5``. The asymptotics agree: each word is in about ``N / V``
of the pairs, so the posterior sd of ``ρ_w · α_v`` shrinks as ``sqrt(V / N)``. At fixed
N this makes ``RMSE_co`` grow as ``V^0.5``; we also report that exponent (a literal
``1 / V`` would be ``V^1``). The ``V = 200`` curve is compared, at its own ``N / V``,
with the log-log line fitted to the ``V = 100`` curve (in the full grid every such
``N / V``, 2,500 and 5,000, lies inside the fitted range, 500 to 10,000).

**Our side.** The datasets of ``001-table1``
(:func:`~bayeswe.reproduce.yrjanainen_table1.simulated_dataset`: the same seeds, the
paper's last-``K`` anchors, prior sd ``1/sqrt(K)``) at Table 1's sizes, N = 1,000 to
1,000,000 (Fig. 3 states none); ``pg-gibbs``, one chain started at the MAP, estimate
the mean of its draws: the cells of ``001-fig2``
(:func:`~bayeswe.reproduce.yrjanainen_rmse.run_cell`). Slopes are least-squares fits
of ``log RMSE_co`` on ``log N`` over ``N >= 5 V^2``, as in ``001-fig2``; "log-linear"
is checked on the local slopes between the three largest sizes.

**Run length.** The full run is the paper's grid of 6 settings x 9 sizes x 10
datasets. Fig. 3 does not state its draws; its Table 2 runs 1,000 draws after 1,000
warm-up, which would take about 4.6 CPU-hours here: 27.6 CPU-minutes per dataset (one
cell timed per (K, V, N)), 60 % of it at N = 500,000 and 1,000,000, three quarters of
that with ``V = 200`` (the sampler's cost grows with the distinct pairs, up to
``V^2``). We run :data:`DRAWS` (250) draws after as many warm-up sweeps (the report's
header gives the cells' summed wall time). It costs little: on four cells,
(K, V, N) = (5, 200, 10^6), (20, 100, 10^4), (10, 200, 10^5) and (5, 100, 2,000), the
``RMSE_co`` of 250 draws after 250 (two runs) differed from that of 1,000 after 1,000
by at most 0.5 %, and the two runs from each other by at most 0.3 %. The report counts
the datasets of every mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayeswe.reproduce import yrjanainen_rmse as shared
from bayeswe.reproduce.grid import Cell, CellResult
from bayeswe.reproduce.report import (
    docstring_section,
    finish_report,
    markdown_table,
    not_run,
    pyplot,
    save_figure,
    verdict,
    write_table,
)
from bayeswe.reproduce.yrjanainen_table1 import SETTINGS, SIZES

__all__ = [
    "PAPER",
    "PAPER_CLAIMS",
    "SETTINGS",
    "SIZES",
    "SOURCE",
    "TITLE",
    "cells",
    "claim_rows",
    "collapse_ratios",
    "report",
    "run_cell",
]

TITLE = "RMSE_co of the Gibbs sampler by N / V over several (K, V)"
PAPER = shared.PAPER
SOURCE = "section 4.1.2, Fig. 3 (Gibbs, uniform simulation) and the text beside it"
METHOD = "pg-gibbs"
DATASETS = 10
#: Draws and warm-up sweeps of the default full run (the paper's Table 2: 1,000 each).
DRAWS = 250
#: Quick grid: one K, two V, sizes spanning both log-linear regimes (N >= 5 V^2).
QUICK_SETTINGS: tuple[tuple[int, int], ...] = ((2, 10), (2, 20))
QUICK_SIZES: tuple[int, ...] = (2_000, 10_000, 20_000)
#: The paper's statements about Fig. 3 (section 4.1.2), quoted; our verdict rows.
PAPER_CLAIMS: dict[str, str] = {
    "loglinear": "a loglinear pattern in RMSE_co emerges once N is sufficiently large. This "
    "is consistent across different values of V and K",
    "slope": "For all combinations of K and V, numerical estimates of C were close to -0.5",
    "V": "the increase in RMSE_co given an increase in V was very close to 1, implying a "
    "convergence rate of O(N^0.5/V)",
}


def cells(quick: bool) -> list[Cell]:
    """(K, V) x N x dataset, Gibbs only.

    Quick: ``K = 2``, ``V`` 10 and 20, three sizes, two datasets, 100 draws after 100
    warm-up.
    """
    if quick:
        settings, sizes, datasets, draws = QUICK_SETTINGS, QUICK_SIZES, 2, 100
    else:
        settings, sizes, datasets, draws = SETTINGS, SIZES, DATASETS, DRAWS
    common = {"distribution": "uniform", "method": METHOD, "draws": draws, "warmup": draws}
    return [
        Cell("001-fig3", {**common, "K": K, "V": V, "N": N, "dataset": d})
        for K, V in settings
        for N in sizes
        for d in range(datasets)
    ]


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """One dataset: ``RMSE_co`` of the Gibbs posterior mean (``001-fig2``'s cell)."""
    return shared.run_cell(params, seed)


def _means(table: pd.DataFrame, K: int, V: int) -> dict[int, tuple[float, int]]:
    """N -> (mean RMSE_co over the finished datasets, their number)."""
    part = table[(table.K == K) & (table.V == V)]
    return {int(n): (float(g["rmse_co"].mean()), len(g)) for n, g in part.groupby("N") if len(g)}


def _fit(means: dict[int, tuple[float, int]], V: int) -> tuple[float, float, list[int]] | None:
    """Slope, intercept (of log RMSE_co on log N) and sizes over ``N >= 5 V^2``."""
    sizes = shared.slope_sizes(list(means), V)
    if len(sizes) < 2:
        return None
    slope, intercept = np.polyfit(np.log(sizes), [math.log(means[n][0]) for n in sizes], 1)
    return float(slope), float(intercept), sizes


def collapse_ratios(
    small: dict[int, float], large: dict[int, float], v_small: int, v_large: int
) -> dict[float, float]:
    """``RMSE_co`` of ``V = v_large`` over the fitted ``V = v_small`` line, at equal ``N / V``.

    ``small`` and ``large`` map N to mean ``RMSE_co``. The ``v_small`` line is the
    log-log fit over its ``N >= 5 V^2``; the ratios are at the ``N / V`` of
    ``v_large``'s sizes in its own such range. Empty when either has fewer than two
    sizes there.
    """
    fit_sizes = shared.slope_sizes(list(small), v_small)
    ours = shared.slope_sizes(list(large), v_large)
    if len(fit_sizes) < 2 or len(ours) < 2:
        return {}
    x = np.log(np.asarray(fit_sizes, dtype=float) / v_small)
    slope, intercept = np.polyfit(x, [math.log(small[n]) for n in fit_sizes], 1)
    return {
        n / v_large: float(large[n] / math.exp(intercept + slope * math.log(n / v_large)))
        for n in ours
    }


def _pairs(settings: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """``(K, V_small, V_large)`` for each K with two V among ``settings``."""
    out = []
    for K in sorted({k for k, _ in settings}):
        vs = sorted(v for k, v in settings if k == K)
        out += [(K, vs[0], vs[-1])] if len(vs) > 1 else []
    return out


def _growth_claim(K: int, v1: int, v2: int) -> str:
    return f"K = {K}, V = {v1} -> {v2}: RMSE_co increases with V at fixed N"


def _collapse_claim(K: int, v1: int, v2: int) -> str:
    return f"K = {K}, V = {v1} -> {v2}: " + PAPER_CLAIMS["V"] + " (read: equal at equal N/V)"


def claim_rows(settings: Sequence[tuple[int, int]]) -> list[str]:
    """The verdict rows: log-linearity and slope per ``(K, V)``, then the V claims per K."""
    rows = []
    for K, V in settings:
        rows += [f"K = {K}, V = {V}: log-linear once N is sufficiently large",
                 f"K = {K}, V = {V}: slope close to -0.5"]  # fmt: skip
    for K, v1, v2 in _pairs(settings):
        rows += [_growth_claim(K, v1, v2), _collapse_claim(K, v1, v2)]
    return rows


def _setting_verdicts(means: dict[int, tuple[float, int]], K: int, V: int) -> list[dict]:
    """Log-linear at the top of the range, and the fitted slope, for one ``(K, V)``."""
    linear, slope = claim_rows([(K, V)])
    tol = shared.SLOPE_TOLERANCE
    out = []
    top = sorted(means)[-3:]
    if len(top) < 3:
        out.append(not_run(linear, "fewer than three sizes finished"))
    else:
        local = [shared.loglog_slope(top[i : i + 2], [means[n][0] for n in top[i : i + 2]])
                 for i in range(2)]  # fmt: skip
        out.append(verdict(linear, abs(local[1] - local[0]) <= tol,
                           f"local slopes N = {top[0]:,}-{top[1]:,}: {local[0]:.3f}, "
                           f"{top[1]:,}-{top[2]:,}: {local[1]:.3f} (we ask them within {tol} "
                           "of each other)"))  # fmt: skip
    fitted = _fit(means, V)
    if fitted is None:
        out.append(not_run(slope, f"fewer than two sizes with N >= {shared.PAIRS_FOR_SLOPE} V^2"))
    else:
        value, _, sizes = fitted
        out.append(verdict(slope, abs(value - shared.PAPER_SLOPE) <= tol,
                           f"fitted slope {value:.3f} over N = {sizes[0]:,}-{sizes[-1]:,} "
                           f"(we ask within -0.5 ± {tol})"))  # fmt: skip
    return out


def _v_verdicts(
    small: dict[int, tuple[float, int]], large: dict[int, tuple[float, int]], K: int, v1: int,
    v2: int,
) -> list[dict]:  # fmt: skip
    """At fixed N: growth with V and its exponent; at equal N/V: the ratio to 1."""
    out = []
    common = [n for n in shared.slope_sizes(list(large), v2) if n in small]
    claim = _growth_claim(K, v1, v2)
    if not common:
        out.append(not_run(claim, f"no N >= {shared.PAIRS_FOR_SLOPE} V^2 with both V finished"))
    else:
        ratio = {n: large[n][0] / small[n][0] for n in common}
        exponent = {n: math.log(r) / math.log(v2 / v1) for n, r in ratio.items()}
        out.append(verdict(claim, all(r > 1 for r in ratio.values()),
                           f"RMSE_co(V = {v2}) / RMSE_co(V = {v1}) at "
                           + ", ".join(f"N = {n:,}: {r:.3f} (exponent of V "
                                       f"{exponent[n]:.2f})" for n, r in ratio.items())
                           + " (we ask > 1; equal at equal N/V means exponent 0.5, a literal "
                           "1/V means 1)"))  # fmt: skip
    claim = _collapse_claim(K, v1, v2)
    ratios = collapse_ratios({n: m[0] for n, m in small.items()},
                             {n: m[0] for n, m in large.items()}, v1, v2)  # fmt: skip
    if not ratios:
        out.append(not_run(claim, f"fewer than two sizes with N >= {shared.PAIRS_FOR_SLOPE} "
                           "V^2 for one of the V"))  # fmt: skip
    else:
        worst = max(abs(r - 1) for r in ratios.values())
        out.append(verdict(claim, worst <= shared.CLOSE,
                           f"RMSE_co(V = {v2}) over the fitted V = {v1} line at "
                           + ", ".join(f"N/V = {x:,.0f}: {r:.3f}" for x, r in ratios.items())
                           + f" (we ask each within {shared.CLOSE:.0%} of 1)"))  # fmt: skip
    return out


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv``, ``rmse.png`` (by N and by N / V), the paper's claims, a verdict each."""
    plt = pyplot()
    table = shared.frame(results)
    table.insert(table.columns.get_loc("N") + 1, "N_over_V", table.N / table.V)
    write_table(out, table)
    ours = {(int(k), int(v)) for k, v in zip(table.K, table.V, strict=True)}
    settings = [*SETTINGS, *sorted(ours - set(SETTINGS))]
    means = {s: _means(table, *s) for s in settings}
    sizes = sorted(set(SIZES) | {int(n) for n in table.N})
    header = ["K", "V", "source", *[f"{n:,}" for n in sizes], "slope"]
    rows: list[list[str]] = []
    verdicts: list[dict[str, Any]] = []
    fig, (by_n, by_nv) = plt.subplots(1, 2, figsize=(10, 4))
    ks = sorted({k for k, _ in settings})
    for K, V in settings:
        m = means[(K, V)]
        fitted = _fit(m, V)
        paper = "≈ -0.5" if (K, V) in SETTINGS else "–"
        rows.append([str(K), str(V), "paper", *["–"] * len(sizes), paper])
        rows.append([str(K), str(V), "ours",
                     *[f"{m[n][0]:.4f} ({m[n][1]})" if n in m else "not run" for n in sizes],
                     f"{fitted[0]:.3f}" if fitted else "–"])  # fmt: skip
        verdicts += _setting_verdicts(m, K, V)
        if m:
            n = np.array(sorted(m), dtype=float)
            y = [m[int(x)][0] for x in n]
            style = {"color": f"C{ks.index(K)}", "marker": "o", "ms": 3,
                     "ls": "-" if V == min(v for k, v in settings if k == K) else "--",
                     "label": f"K = {K}, V = {V}"}  # fmt: skip
            by_n.plot(n, y, **style)
            by_nv.plot(n / V, y, **style)
    for K, v1, v2 in _pairs(settings):
        verdicts += _v_verdicts(means[(K, v1)], means[(K, v2)], K, v1, v2)
    done = [(n / V, m[n][0]) for (K, V), m in means.items() for n in m]
    if done:
        x_max, y_at = max(done)
        x = np.array([min(x for x, _ in done), x_max])
        by_nv.plot(x, y_at * (x / x_max) ** shared.PAPER_SLOPE, "k:", lw=0.8, label="slope -0.5")
        for ax in (by_n, by_nv):
            ax.set_xscale("log")
            ax.set_yscale("log")
    by_n.set_xlabel("N")
    by_n.set_ylabel("RMSE_co (eq. 12), Gibbs")
    by_n.set_title("by N: grows with V")
    by_nv.set_xlabel("N / V")
    by_nv.set_title("by N / V (the paper's Fig. 3)")
    if by_nv.get_legend_handles_labels()[0]:
        by_nv.legend(fontsize="x-small")
    fig.tight_layout()
    save_figure(fig, out, "rmse.png")
    md = [
        "## What was run",
        "",
        docstring_section(__doc__, "Our side", "Run length"),
        "",
        docstring_section(__doc__, "Reading the V claim", "Our side"),
        "",
        docstring_section(__doc__, "Run length"),
        "",
        "",  # two blank lines: the reports have always had them here
        "![RMSE_co by N and by N / V](rmse.png)",
        "",
        "## RMSE_co of the Gibbs sampler: the paper's Fig. 3 and ours",
        "",
        "The paper's Fig. 3 is a log-log plot without printed values; its text gives the "
        "slope (`paper` rows). Ours: mean `RMSE_co` over the finished datasets (their "
        "number in brackets), by N (`N / V` is N divided by the row's V). `not run`: cells "
        "this run did not include (`--only`, or an interrupted run), as the paper marks its "
        "unfinished runs. `slope`: least-squares slope of log RMSE_co on log N over "
        f"N >= {shared.PAIRS_FOR_SLOPE} V^2.",
        "",
        markdown_table(header, rows),
        "",
        "## The paper's claims",
        "",
        "Section 4.1.2, about Figs. 2 and 3:",
        "",
        *[f"- {key}: “{text}”" for key, text in PAPER_CLAIMS.items()],
        "",
    ]
    return finish_report(md, verdicts, results)
