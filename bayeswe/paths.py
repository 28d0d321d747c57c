"""The per-user cache directory of bayeswe (Stan toolchain, compiled models, Numba kernels).

Kept apart from :mod:`bayeswe.stan.toolchain` so that a process that only runs Numba
kernels finds their cache without importing cmdstanpy.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """``$BAYESWE_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/bayeswe`` or ``~/.cache/bayeswe``."""
    if env := os.environ.get("BAYESWE_CACHE_DIR"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bayeswe"
