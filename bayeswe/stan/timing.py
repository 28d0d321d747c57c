"""Gradient cost of a compiled Stan program, for the benchmarks that compare two programs.

One helper for every ``bench`` that times Stan programs against each other (SGNS,
LDA, Gaussian LDA), so that they all measure the same thing the same way.
"""

from __future__ import annotations

import logging
import tempfile
from typing import Any

__all__ = ["compile_program_text", "json_ready", "log_prob_at", "time_per_gradient"]


def json_ready(data: dict[str, Any], *, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """``data`` with NumPy arrays as lists (as cmdstanpy writes JSON), without the ``drop`` keys."""
    import numpy as np

    return {
        k: (v.tolist() if isinstance(v, np.ndarray) else v)
        for k, v in data.items()
        if k not in drop
    }


def compile_program_text(text: str, file_name: str) -> Any:
    """Compile a Stan program given as text (a benchmark's peer) through the model cache.

    The source is written to ``file_name`` in a temporary folder; the executable is
    cached like any other by :func:`bayeswe.stan.toolchain.compile_model` (by name and
    source hash), so the folder can go.
    """
    from pathlib import Path

    from bayeswe.stan.toolchain import compile_model

    with tempfile.TemporaryDirectory(prefix="bayeswe-peer-") as tmp:
        source = Path(tmp) / file_name
        source.write_text(text)
        return compile_model(source)


def time_per_gradient(
    model: Any,
    data: dict[str, Any],
    inits: dict[str, Any],
    *,
    seed: int,
    iters: int,
    step: float,
    depth: int,
    metric: str | None = None,
) -> tuple[float, int]:
    """Seconds per gradient evaluation and the number of evaluations timed.

    Runs NUTS without adaptation (fixed ``step`` and ``max_treedepth=depth``) from
    ``inits`` and divides Stan's own sampling time by the number of leapfrog steps, so
    start-up, I/O and warm-up are excluded. ``metric`` is passed to cmdstanpy (e.g.
    ``"unit_e"``; ``None`` keeps Stan's default).
    """
    # Without adaptation most iterations hit max_treedepth on purpose; cmdstanpy's
    # warning about it is noise here.
    logger = logging.getLogger("cmdstanpy")
    level = logger.level
    logger.setLevel(logging.ERROR)
    extra = {} if metric is None else {"metric": metric}
    try:
        with tempfile.TemporaryDirectory(prefix="bayeswe-bench-") as out:
            fit = model.sample(
                data=data,
                chains=1,
                iter_warmup=0,
                iter_sampling=iters,
                adapt_engaged=False,
                step_size=step,
                max_treedepth=depth,
                inits=inits,
                seed=seed,
                show_progress=False,
                show_console=False,
                output_dir=out,
                **extra,
            )
            steps = int(fit.method_variables()["n_leapfrog__"].sum())
            seconds = float(fit.time[0]["sampling"])
    finally:
        logger.setLevel(level)
    return seconds / steps, steps


def log_prob_at(model: Any, params: dict[str, Any], data: dict[str, Any]) -> float:
    """The program's log density (no Jacobian) at constrained ``params``, to 16 digits."""
    frame = model.log_prob(params, data, jacobian=False, sig_figs=16)
    return float(frame["lp__"].iloc[0])
