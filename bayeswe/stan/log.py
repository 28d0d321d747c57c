"""cmdstanpy's log: off unless asked for.

cmdstanpy logs each chain's start and end at INFO ("Chain [1] start processing"), and a
failed run at ERROR with an error text guessed from the exit status (``os.strerror(70)``
is "Communication error on send"). bayeswe turns every failure into a typed error that
carries Stan's own message, so its commands keep cmdstanpy quiet; ``--verbose`` shows
everything. Worker processes (SBC's, a reproduction's Dask workers) are set the same way.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

__all__ = ["QUIET", "VERBOSE", "cmdstanpy_log", "level_for", "set_cmdstanpy_level"]

#: Level that silences cmdstanpy (above CRITICAL: nothing it logs passes).
QUIET = logging.CRITICAL + 1
#: Level of ``--verbose``: cmdstanpy's INFO lines and above.
VERBOSE = logging.INFO


def level_for(verbose: bool) -> int:
    return VERBOSE if verbose else QUIET


def set_cmdstanpy_level(level: int) -> int:
    """Set cmdstanpy's logger level; the previous one.

    cmdstanpy configures its logger on first use (level DEBUG, a stderr handler at
    INFO), which would undo a level set before; it is configured here first.
    """
    from cmdstanpy.utils import get_logger

    logger = get_logger()
    previous = logger.level
    logger.setLevel(level)
    return previous


@contextlib.contextmanager
def cmdstanpy_log(verbose: bool) -> Iterator[None]:
    """cmdstanpy's log shown (``verbose``) or off inside the block; restored after."""
    previous = set_cmdstanpy_level(level_for(verbose))
    try:
        yield
    finally:
        set_cmdstanpy_level(previous)
