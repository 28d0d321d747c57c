"""A toy cell for testing grids: seeded draws, an optional failure and delay."""

from __future__ import annotations

import time
from typing import Any

import numpy as np


def toy_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Draws of ``N(params["mean"], 1)``; raises if ``params["fail"]``; sleeps ``sleep`` s.

    ``marker`` and ``start_marker`` name append-only files that get the cell's ``i`` when
    it finishes and when it starts, so a test can see which cells ran, and how often.
    """
    start_marker = params.get("start_marker")
    if start_marker is not None:
        with open(start_marker, "a") as fh:
            fh.write(f"{params['i']}\n")
    time.sleep(float(params.get("sleep", 0.0)))
    marker = params.get("marker")
    if marker is not None:
        with open(marker, "a") as fh:
            fh.write(f"{params['i']}\n")
    if params.get("fail"):
        raise RuntimeError(f"cell {params['i']} was told to fail")
    rng = np.random.default_rng(seed)
    return {"i": params["i"], "draws": (params.get("mean", 0.0) + rng.normal(size=3)).tolist()}
