"""A toy cell for testing grids: seeded draws, an optional failure and delay."""

from __future__ import annotations

import time
from typing import Any

import numpy as np


def toy_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Draws of ``N(params["mean"], 1)``; raises if ``params["fail"]``; sleeps ``sleep`` s."""
    time.sleep(float(params.get("sleep", 0.0)))
    marker = params.get("marker")
    if marker is not None:
        # lets a test see which cells ran in this process (an append-only file)
        with open(marker, "a") as fh:
            fh.write(f"{params['i']}\n")
    if params.get("fail"):
        raise RuntimeError(f"cell {params['i']} was told to fail")
    rng = np.random.default_rng(seed)
    return {"i": params["i"], "draws": (params.get("mean", 0.0) + rng.normal(size=3)).tolist()}
