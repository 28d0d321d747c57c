"""Yrjänäinen et al., Fig. 2 (left panel): ``RMSE_co`` against N, uniform co-occurrences.

**The paper.** ``K = 5``, ``V = 100``, word pairs uniform on ``W x W`` (eq. (17));
MAP, MFVI, HMC and the Gibbs sampler; ``RMSE_co`` (eq. (12)) of each estimate against
the true embeddings, log-log against N, averaged over 10 datasets. Its text: HMC and
Gibbs alike; MFVI slower as N grows; MAP worse at small N and, with HMC and Gibbs,
very close at large N; ``RMSE_co ≈ O(N^-0.5)`` for HMC, MAP and Gibbs, not MFVI.

**Our side.** The datasets of ``001-table1`` (the paper's anchors, the last ``K``
words), N from 1,000 to 1,000,000; MAP of the unidentified model; ``advi``, ``nuts``
and ``pg-gibbs`` on the identified model, the estimate being the mean of their draws.
The full run is the paper's grid: the four methods on all 10 datasets at every N
(about 130 CPU-minutes).
The full design, the anchors and the slope fits are in
:mod:`bayeswe.reproduce.yrjanainen_rmse`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bayeswe.reproduce import yrjanainen_rmse as shared
from bayeswe.reproduce.grid import Cell, CellResult

TITLE = "RMSE_co of MAP, MFVI, HMC and Gibbs against N, uniform co-occurrences"
PAPER = shared.PAPER
SOURCE = "section 4.1.2, Fig. 2 (left panel: uniform simulation)"
DISTRIBUTION = "uniform"


def cells(quick: bool) -> list[Cell]:
    """N x dataset x method (see :func:`bayeswe.reproduce.yrjanainen_rmse.cells`)."""
    return shared.cells("001-fig2", DISTRIBUTION, quick)


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """One dataset, one method: ``RMSE_co`` of its estimate."""
    return shared.run_cell(params, seed)


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv``, ``rmse.png``, the paper's claims and a verdict for each."""
    return shared.report(results, out, quick=quick, distribution=DISTRIBUTION, doc=__doc__)
