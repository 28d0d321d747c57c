"""Yrjänäinen et al., Fig. 2 (right panel): ``RMSE_co`` against N, Zipf word frequencies.

This is the target ``001-fig2-zipf``; the left panel (uniform co-occurrences) is
``001-fig2`` and the paper's Fig. 3 (Gibbs only, ``RMSE_co`` by ``N / V`` over several
``(K, V)``) is ``001-fig3``.

**The paper.** ``K = 5``, ``V = 100``, word pairs with Zipf-Mandelbrot marginals
``p(w) ∝ 1 / (rank(w)^a + b)``, ``a = 1``, ``b = 2.7`` (eq. (18)); otherwise as the left
panel (``001-fig2``). Its text states the same findings for both panels and that
``RMSE_co ≈ O(N^-0.5)`` "also holds for the Zipf-simulated data".

**Our side.** The seeds of the uniform datasets, hence the same true embeddings, with
Zipf-Mandelbrot pairs (:func:`~bayeswe.sgns.simulate.simulate_sgns`,
``distribution="zipf"``). The fixed context words are chosen by bayeswe's ``"qr"``
rule, not the paper's last ``K``: under eq. (18) those are the rarest words, absent
from some small datasets and badly conditioned in others (measured in
:mod:`bayeswe.reproduce.yrjanainen_rmse`). N from 1,000 to 1,000,000; MAP of the
unidentified model; ``advi``, ``nuts`` and ``pg-gibbs`` on the identified model, the
estimate being the mean of their draws. The full run is the paper's grid: the four
methods on all 10 datasets at every N (about 80 CPU-minutes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bayeswe.reproduce import yrjanainen_rmse as shared
from bayeswe.reproduce.grid import Cell, CellResult

TITLE = "RMSE_co of MAP, MFVI, HMC and Gibbs against N, Zipf word frequencies"
PAPER = shared.PAPER
SOURCE = "section 4.1.2, Fig. 2 (right panel: Zipf simulation, eq. (18))"
DISTRIBUTION = "zipf"


def cells(quick: bool) -> list[Cell]:
    """N x dataset x method (see :func:`bayeswe.reproduce.yrjanainen_rmse.cells`)."""
    return shared.cells("001-fig2-zipf", DISTRIBUTION, quick)


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """One dataset, one method: ``RMSE_co`` of its estimate."""
    return shared.run_cell(params, seed)


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv``, ``rmse.png``, the paper's claims and a verdict for each."""
    return shared.report(results, out, quick=quick, distribution=DISTRIBUTION, doc=__doc__)
