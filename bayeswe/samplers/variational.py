"""One protocol for bayeswe's variational approximations, and the one driver that runs them.

An approximation, in the spirit of :mod:`bayeswe.samplers.driver`'s Markov chain
protocol, is a handful of functions over a state that holds the variational
parameters (and, for the stochastic methods, their random stream):

- ``init() -> state``: the start of ``q`` (the problem, the settings and the seed
  are bound when the approximation is built);
- ``update(state) -> (state, info)``: one iteration (a coordinate-ascent sweep, or one
  pass of stochastic steps over the data); the driver keeps the returned state;
- ``objective(info)``: the ELBO the iteration evaluated, or ``None`` when it evaluated
  none;
- ``converged(trace, tol_rel_obj)``: whether the trace of objectives meets the
  convergence rule (:func:`relative_change_converged` or :func:`advi_converged`);
- ``draws(state, n, rng) -> (posterior, sample_stats)``: ``n`` independent draws from
  ``q`` as ``(draw, *shape)`` arrays, and per-draw statistics as ``(draw,)`` arrays.

:func:`optimize` owns the iteration loop (``iter`` iterations at most, stopping early
on ``tol_rel_obj``), progress (``show_progress``), the objective trace and timing;
:func:`run_variational` adds the draws from ``q`` (``draws``, from the run's seed:
``SeedSequence(seed, spawn_key=(1,))``) and the InferenceData build through
:func:`bayeswe.inference_data.to_inference_data`.

The objective trace goes to its own group, ``optimization_trace``, with dim
``iteration`` (coords: the 1-based iteration after which the objective was
evaluated) and variables ``elbo`` and ``time`` (seconds since the start, as Stan's
ADVI diagnostic file has ``iter, time_in_seconds, ELBO``). ArviZ's schema has no
group for an optimisation trace; a group of its own keeps ``sample_stats`` per draw
(every ArviZ function that reads it expects ``(chain, draw)``), round-trips through
``to_netcdf``/``from_netcdf`` as any group does, and leaves ``posterior`` to ArviZ's
summaries and plots.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from bayeswe._arviz import az
from bayeswe.options import check_float, check_int
from bayeswe.progress import Progress

__all__ = [
    "TRACE_GROUP",
    "Approximation",
    "Optimization",
    "advi_converged",
    "draws_rng",
    "optimize",
    "relative_change_converged",
    "run_variational",
    "trace_dataset",
]

#: Name of the InferenceData group holding the objective trace (dim ``iteration``).
TRACE_GROUP = "optimization_trace"

State = TypeVar("State")
Info = TypeVar("Info")


class Approximation(Protocol[State, Info]):
    """What :func:`optimize` and :func:`run_variational` need (see the module docstring)."""

    #: Short name: the method (``"cavi"``), the progress bar's label.
    name: str

    def init(self) -> State:
        """The start of ``q``."""
        ...

    def update(self, state: State) -> tuple[State, Info]:
        """One iteration."""
        ...

    def objective(self, info: Info) -> float | None:
        """The ELBO evaluated by the iteration, or ``None``."""
        ...

    def converged(self, trace: Sequence[float], tol_rel_obj: float) -> bool:
        """Whether the objective trace meets the convergence rule."""
        ...

    def draws(
        self, state: State, n: int, rng: np.random.Generator
    ) -> tuple[dict[str, NDArray[Any]], dict[str, NDArray[Any]]]:
        """``n`` draws from ``q`` (``(draw, *shape)``) and per-draw statistics (``(draw,)``)."""
        ...


def _rel_decrease(trace: Sequence[float], i: int) -> float:
    """Stan's ``rel_difference``: ``|ELBO_i - ELBO_{i-1}| / |ELBO_i|`` (``ELBO_{-1} = 0``)."""
    prev = trace[i - 1] if i > 0 else 0.0
    return abs((prev - trace[i]) / trace[i])


def relative_change_converged(trace: Sequence[float], tol_rel_obj: float) -> bool:
    """``|ELBO_t - ELBO_{t-1}| / |ELBO_t| < tol_rel_obj``: Stan's relative ELBO decrease
    over a window of one evaluation.

    The rule of the coordinate-ascent methods, whose ELBO is exact and never decreases:
    there is no noise for Stan's window (:func:`advi_converged`) to average out, and a
    window would only delay the stop. Needs two evaluations.
    """
    return len(trace) > 1 and _rel_decrease(trace, len(trace) - 1) < tol_rel_obj


def advi_converged(trace: Sequence[float], tol_rel_obj: float, *, iter: int) -> bool:
    """Stan's ADVI rule: the mean or the median of the relative ELBO decreases in a
    circular buffer of the last ``max(0.1 * iter, 2)`` evaluations is below ``tol_rel_obj``.

    The first evaluation's decrease is 1 (from Stan's start ``ELBO = 0``), strict ``<``
    as Stan's; ``tol_rel_obj = 0`` therefore never stops early. The rule of the
    stochastic methods, whose ELBO wanders from one evaluation to the next.
    """
    if not trace:
        return False
    size = int(max(0.1 * iter, 2.0))
    window = [_rel_decrease(trace, i) for i in range(max(0, len(trace) - size), len(trace))]
    return float(np.mean(window)) < tol_rel_obj or float(np.median(window)) < tol_rel_obj


@dataclass
class Optimization(Generic[State]):
    """What :func:`optimize` returns."""

    #: The final state of ``q``.
    state: State
    #: Objective values, in the order evaluated.
    trace: NDArray[np.float64]
    #: The 1-based iteration after which each value was evaluated.
    trace_iteration: NDArray[np.int64]
    #: Seconds from the start of the run to each evaluation.
    trace_time: NDArray[np.float64]
    #: Iterations run.
    iterations: int
    converged: bool
    #: Seconds in :meth:`Approximation.init` and in the iterations.
    init_time: float
    wall_time: float
    #: The info of the last iteration (``None`` when none ran).
    last_info: Any = None


def optimize(
    approx: Approximation[State, Info],
    *,
    iter: int,
    tol_rel_obj: float,
    show_progress: bool | None = None,
    state: State | None = None,
) -> Optimization[State]:
    """Run ``approx`` from ``approx.init()`` (or ``state``) for at most ``iter`` iterations.

    After each iteration that evaluates the objective, the trace is checked with
    ``approx.converged``; the run stops at the first success.

    Raises
    ------
    ValueError
        ``iter`` below 1 or ``tol_rel_obj`` negative.
    """
    check_int("iter", iter, minimum=1)
    check_float("tol_rel_obj", tol_rel_obj, low=0, open_low=False)
    start = time.perf_counter()
    if state is None:
        state = approx.init()
    init_time = time.perf_counter() - start
    trace: list[float] = []
    at: list[int] = []
    times: list[float] = []
    converged, done, info = False, 0, None
    with Progress(iter, approx.name, unit="iteration", show=show_progress) as progress:
        while done < iter:
            state, info = approx.update(state)
            done += 1
            progress.update()
            value = approx.objective(info)
            if value is None:
                continue
            trace.append(float(value))
            at.append(done)
            times.append(time.perf_counter() - start)
            if approx.converged(trace, tol_rel_obj):
                converged = True
                break
    return Optimization(
        state=state,
        trace=np.asarray(trace, dtype=np.float64),
        trace_iteration=np.asarray(at, dtype=np.int64),
        trace_time=np.asarray(times, dtype=np.float64),
        iterations=done,
        converged=converged,
        init_time=init_time,
        wall_time=time.perf_counter() - start,
        last_info=info,
    )


def draws_rng(seed: int) -> np.random.Generator:
    """The stream of the draws from ``q``: ``SeedSequence(seed, spawn_key=(1,))``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))


def trace_dataset(run: Optimization[Any], attrs: Mapping[str, Any] | None = None) -> xr.Dataset:
    """The objective trace as the ``optimization_trace`` group (dim ``iteration``)."""
    return xr.Dataset(
        {"elbo": ("iteration", run.trace), "time": ("iteration", run.trace_time)},
        coords={"iteration": run.trace_iteration},
        attrs=dict(attrs or {}),
    )


def run_variational(
    approx: Approximation[State, Info],
    *,
    spec: Any,
    data: Mapping[str, Any] | None,
    iter: int,
    tol_rel_obj: float,
    draws: int,
    seed: int,
    show_progress: bool | None = None,
    attrs: Mapping[str, Any] | Callable[[Optimization[State]], Mapping[str, Any]] | None = None,
    extra_dims: Mapping[str, Sequence[str]] | None = None,
) -> tuple[az.InferenceData, Optimization[State]]:
    """Optimise ``approx``, draw ``draws`` times from ``q`` and build the InferenceData.

    Parameters
    ----------
    approx
        The approximation.
    spec
        Model declaration (:class:`~bayeswe.model_spec.StanModelSpec`): names, dims and
        coords of the draws, as for the model's Stan fits.
    data
        The model's data (``observed_data``, ``constant_data`` and the coords).
    iter, tol_rel_obj, show_progress
        As :func:`optimize`.
    draws
        Draws from ``q`` (one chain).
    seed
        The run's seed; the draws use :func:`draws_rng`.
    attrs
        Attributes of the run, or a function of the :class:`Optimization` returning them
        (called after the draws); ``method``, ``seed``, ``iter``, ``tol_rel_obj``,
        ``draws``, ``iterations``, ``converged``, ``final_elbo``, ``init_time``,
        ``draw_time`` and ``wall_time`` (the whole run: start, iterations, draws)
        are added.
    extra_dims
        Dims of posterior variables the model does not declare (e.g. ``jj-vb``'s
        ``ard_precision``).

    Returns
    -------
    (arviz.InferenceData, Optimization)
        The InferenceData has ``posterior`` (one chain of ``draws`` draws),
        ``sample_stats`` when the approximation gives per-draw statistics, the data
        groups, and ``optimization_trace`` (see the module docstring).
    """
    from bayeswe.inference_data import _clean_attrs, to_inference_data

    check_int("draws", draws, minimum=1)
    start = time.perf_counter()
    run = optimize(approx, iter=iter, tol_rel_obj=tol_rel_obj, show_progress=show_progress)
    t0 = time.perf_counter()
    posterior, stats = approx.draws(run.state, draws, draws_rng(seed))
    draw_time = time.perf_counter() - t0
    if callable(attrs):
        attrs = attrs(run)
    all_attrs = {
        "method": approx.name,
        "seed": int(seed),
        "iter": iter,
        "tol_rel_obj": tol_rel_obj,
        "draws": draws,
        "iterations": run.iterations,
        "converged": run.converged,
        "final_elbo": float(run.trace[-1]) if run.trace.size else math.nan,
        **dict(attrs or {}),
        "init_time": run.init_time,
        "draw_time": draw_time,
        "wall_time": time.perf_counter() - start,
    }
    if extra_dims:
        spec = replace(spec, dims={**spec.dims, **{k: tuple(v) for k, v in extra_dims.items()}})
    idata = to_inference_data(
        spec,
        {name: np.asarray(value)[None] for name, value in posterior.items()},
        data=data,
        sample_stats={name: np.asarray(value)[None] for name, value in stats.items()} or None,
        attrs=all_attrs,
        library=None,
    )
    idata.add_groups({TRACE_GROUP: trace_dataset(run, _clean_attrs(all_attrs))})
    return idata, run
