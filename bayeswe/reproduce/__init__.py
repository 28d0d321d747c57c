"""``bayeswe reproduce``: regenerate the papers' tables and figures from raw data.

Each *target* regenerates one table or figure of a paper in ``../shared/seeds/`` (see
:data:`TARGETS`). A target module defines ``TITLE``, ``PAPER``, ``SOURCE`` (where in
the paper), ``cells(quick)`` (its grid of :class:`~bayeswe.reproduce.grid.Cell`),
``run_cell(params, seed)`` (one cell, a module-level function run on a Dask worker)
and ``report(results, out, quick)`` (its table, figures and the paper's numbers with a
verdict per row). :func:`~bayeswe.reproduce.run.reproduce` runs the grid
(:func:`~bayeswe.reproduce.grid.run_grid`) and writes ``DIR/TARGET/``:
``results.json``, ``table.csv``, the figures and ``REPORT.md``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["TARGETS", "UnknownTargetError", "get_target"]

#: ``bayeswe reproduce NAME``: the module of each target and its one-line description.
TARGETS: dict[str, tuple[str, str]] = {
    "001-table1": (
        "bayeswe.reproduce.yrjanainen_table1",
        "Yrjänäinen et al. Table 1: 90 % coverage of P(w ∧ v) vs N for HMC, Gibbs, Laplace, MFVI",
    ),
    "001-table2": (
        "bayeswe.reproduce.yrjanainen_table2",
        "Yrjänäinen et al. Table 2: median effective sample size vs N for HMC and Gibbs",
    ),
    "001-table3": (
        "bayeswe.reproduce.yrjanainen_table3",
        "Yrjänäinen et al. Table 3: samples and words per second of HMC and Gibbs",
    ),
    "001-fig1": (
        "bayeswe.reproduce.yrjanainen_fig1",
        "Yrjänäinen et al. Fig. 1: the posterior shell, K = 2, V = 10, unidentified vs identified",
    ),
    "001-fig2": (
        "bayeswe.reproduce.yrjanainen_fig2",
        "Yrjänäinen et al. Fig. 2, left panel: RMSE_co vs N, uniform, MAP/MFVI/HMC/Gibbs",
    ),
    "001-fig2-zipf": (
        "bayeswe.reproduce.yrjanainen_fig2_zipf",
        "Yrjänäinen et al. Fig. 2, right panel: RMSE_co vs N, Zipf word frequencies",
    ),
    "001-fig3": (
        "bayeswe.reproduce.yrjanainen_fig3",
        "Yrjänäinen et al. Fig. 3: Gibbs RMSE_co vs N/V over several (K, V)",
    ),
    "001-fig4": (
        "bayeswe.reproduce.yrjanainen_fig4",
        "Yrjänäinen et al. Fig. 4: posteriors of cosine similarities on simulated data",
    ),
    "001-table4": (
        "bayeswe.reproduce.yrjanainen_table4",
        "Yrjänäinen et al. Table 4: MovieLens ml-100k, samples per second of HMC and Gibbs",
    ),
    "001-table5": (
        "bayeswe.reproduce.yrjanainen_table5",
        "Yrjänäinen et al. Table 5: MovieLens ml-100k, hold-out log likelihood of PM, MAP, MFVI",
    ),
    "001-table6": (
        "bayeswe.reproduce.yrjanainen_table6",
        "Yrjänäinen et al. Table 6, Figs. 5-6: State of the Union (for Congress), K = 50, 100",
    ),
    "001-fig9": (
        "bayeswe.reproduce.yrjanainen_fig9",
        "Yrjänäinen et al. Fig. 9: sensitivity to which K context vectors are fixed",
    ),
    "003-table1": (
        "bayeswe.reproduce.das_table1",
        "Das et al. Table 1: topics and PMI coherence, Gaussian LDA vs LDA",
    ),
    "003-fig2": (
        "bayeswe.reproduce.das_fig2",
        "Das et al. Fig. 2: Cholesky and alias-table speed-ups of Gaussian LDA vs K",
    ),
    "003-table2": (
        "bayeswe.reproduce.das_table2",
        "Das et al. Table 2: held-out documents with words unseen in training",
    ),
    "000-table2": (
        "bayeswe.reproduce.sakaya_table2",
        "Sakaya Table 2: WS-353 Spearman correlation of variational SGNS embeddings",
    ),
    "002-fig8": (
        "bayeswe.reproduce.naidu_fig8",
        "Naidu Fig. 8: held-out log predictive vs time for collapsed Gibbs, CAVI and SVI",
    ),
}


class UnknownTargetError(ValueError):
    """A target name that is not in :data:`TARGETS`."""


def get_target(name: str) -> ModuleType:
    """The module of target ``name``."""
    if name not in TARGETS:
        raise UnknownTargetError(
            f"unknown target {name!r}; the targets are {', '.join(TARGETS)} "
            "(bayeswe reproduce --list)"
        )
    return importlib.import_module(TARGETS[name][0])
