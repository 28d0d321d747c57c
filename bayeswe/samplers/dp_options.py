"""What the DP-mixture collapsed Gibbs samplers (Gaussian and multinomial components)
share: their options (:class:`DPMixtureArgs` and its defaults), the driver's sampler
(:class:`DPSampler`, which each component family completes) and the run
(:func:`run_dp_cgs`); used by :mod:`bayeswe.samplers.dp_mixture` and
:mod:`bayeswe.samplers.dp_multinomial`."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe.options import build_options, check_choice, check_int, check_seed
from bayeswe.samplers.checkpoint import checked_arrays
from bayeswe.samplers.driver import check_run_options

__all__ = [
    "DEFAULT_SCHEDULE",
    "INITS",
    "SPLIT_MERGE",
    "DPInfo",
    "DPMixtureArgs",
    "DPRun",
    "DPSampler",
    "checked_arrays",
    "run_dp_cgs",
]

#: Initial partitions: every point in one cluster (default), or each in its own.
INITS: tuple[str, ...] = ("one", "singletons")

#: Split-merge proposals per sweep (each costs O(n P^2) for the n points of the two
#: clusters it touches, at most one Gibbs pass's worth).
SPLIT_MERGE = 3

#: Defaults of ``iter_warmup``, ``iter_sampling`` and ``thin``.
DEFAULT_SCHEDULE: tuple[int, int, int] = (500, 1000, 1)


@dataclass(frozen=True, kw_only=True)
class DPMixtureArgs:
    """Options of ``method="cgs"`` for ``dp_mixture``; ``None`` means the default here.

    Attributes
    ----------
    iter_warmup
        Sweeps discarded first (default 500).
    iter_sampling
        Sweeps after warm-up (default 1000); every ``thin``-th is kept, starting with the
        first: ``ceil(iter_sampling / thin)`` draws per chain, as in cmdstanpy.
    thin
        Keep one sweep in ``thin`` (default 1).
    split_merge
        Split-merge proposals per sweep (default 3; 0: Gibbs moves only).
    init
        ``"one"`` (all points in one cluster, default), ``"singletons"``, or a mapping
        ``{"z": labels, "alpha": value}`` (labels: ``N`` non-negative integers; either key
        may be left out), or a list of such mappings, one per chain. ``alpha`` starts at
        the prior mean unless given.
    heldout
        ``(M, P)`` points not in the data (for multinomial data: an ``(M, V)`` array
        of counts or a ``BagOfWords``): each draw records the log predictive density
        of each given the partition (``heldout_log_density``) and their sum.
    parallel_chains
        Chains run at the same time, in threads (default ``min(chains, os.cpu_count())``).
        The draws do not depend on it.
    threads_per_chain
        Accepted and validated, without effect: a chain's kernels are sequential.
    checkpoint, checkpoint_every, callback, show_progress
        As for every bayeswe sampler (see :class:`bayeswe.samplers.driver.RunOptions`).
    """

    iter_warmup: int | None = None
    iter_sampling: int | None = None
    thin: int | None = None
    split_merge: int | None = None
    init: Any = None
    heldout: Any = None
    parallel_chains: int | None = None
    threads_per_chain: int | None = None
    checkpoint: str | os.PathLike[str] | None = None
    checkpoint_every: int | None = None
    callback: Callable[[int], None] | None = None
    show_progress: bool | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> DPMixtureArgs:
        """Build and validate (``ValueError`` naming an unknown option or a bad value)."""
        return build_options(cls, "cgs", options)

    def validate(self) -> None:
        check_run_options(self)
        check_int("split_merge", self.split_merge, minimum=0)
        if isinstance(self.init, str) or self.init is None:
            check_choice("init", self.init, INITS)
        elif not isinstance(self.init, (Mapping, list, tuple)):
            raise ValueError(f"init must be one of {INITS}, a mapping or a list of mappings")


@dataclass(frozen=True)
class DPRun:
    """A finished DP-mixture run, ready for its InferenceData."""

    #: The problem the chains ran on (its ``display`` caps the summaries' cluster axis).
    problem: Any
    #: The driver's output (:class:`bayeswe.samplers.driver.ChainRun`).
    run: Any
    #: The label-free posterior draws: ``n_clusters``, ``alpha`` and, with held-out
    #: points, ``heldout_log_density`` and ``heldout_lpd``.
    draws: dict[str, Any]
    #: The run's settings and counts, as the InferenceData's ``attrs``.
    attrs: dict[str, Any]
    #: The width of the summaries' cluster axis: the most clusters any draw had, at
    #: most ``problem.display``.
    width: int


def run_dp_cgs(
    make_problem: Callable[[], Any],
    make_sampler: Callable[..., Any],
    warm_up: Callable[[], None],
    *,
    args: DPMixtureArgs,
    chains: Any,
    seed: Any,
    attrs: Mapping[str, Any],
) -> DPRun:
    """Check ``chains`` and ``seed``, build the problem (``make_problem()``), compile the
    kernels (``warm_up()``), run the chains of ``make_sampler(problem, seed=, init=,
    split_merge=)`` through the driver and collect what both samplers report. ``attrs``
    (the model's own, e.g. ``components``) lead the returned ``attrs``."""
    from bayeswe.samplers.driver import RunOptions, Schedule, run_chains

    chains = 4 if chains is None else chains
    check_int("chains", chains, minimum=1)
    chains = int(chains)
    seed = check_seed("seed", seed)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    if isinstance(args.init, (list, tuple)) and len(args.init) != chains:
        raise ValueError(f"init lists {len(args.init)} starts for {chains} chains")
    given = (args.iter_warmup, args.iter_sampling, args.thin)
    schedule = Schedule(
        *(d if g is None else int(g) for g, d in zip(given, DEFAULT_SCHEDULE, strict=True))
    )
    split_merge = SPLIT_MERGE if args.split_merge is None else int(args.split_merge)
    init = "one" if args.init is None else args.init
    problem = make_problem()
    warm_up()
    sampler = make_sampler(problem, seed=seed, init=init, split_merge=split_merge)
    init_setting = init if isinstance(init, str) else "given"
    run = run_chains(
        sampler,
        chains=chains,
        schedule=schedule,
        seed=seed,
        fingerprint=problem.fingerprint(),
        settings={"split_merge": split_merge, "init": init_setting},
        options=RunOptions(
            parallel_chains=args.parallel_chains or min(chains, os.cpu_count() or 1),
            checkpoint=args.checkpoint,
            checkpoint_every=100 if args.checkpoint_every is None else int(args.checkpoint_every),
            callback=args.callback,
            show_progress=args.show_progress,
        ),
    )
    d = run.draws
    draws: dict[str, Any] = {"n_clusters": d["n_clusters"], "alpha": d["alpha"]}
    if "heldout_log_density" in d:
        draws["heldout_log_density"] = d["heldout_log_density"]
        draws["heldout_lpd"] = np.asarray(d["heldout_log_density"]).sum(axis=-1)
    all_attrs = {
        **attrs,
        "method": "cgs",
        "init": init_setting,
        "seed": seed,
        "chains": chains,
        "iter_warmup": schedule.iter_warmup,
        "iter_sampling": schedule.iter_sampling,
        "thin": schedule.thin,
        "split_merge": split_merge,
        "parallel_chains": run.parallel_chains,
        "threads_per_chain": 1,
        "wall_time": run.wall_time,
        "sweep_time": float(run.totals["sweep_ns"].sum()) / 1e9,
        "splits_accepted": int(run.totals["splits"].sum()),
        "merges_accepted": int(run.totals["merges"].sum()),
        "resumed": bool(run.resumed),
    }
    width = min(max(1, int(np.asarray(d["n_clusters"]).max())), problem.display)
    return DPRun(problem, run, draws, all_attrs, width)


@dataclass(frozen=True)
class DPInfo:
    """What one sweep of a DP-mixture sampler reports."""

    lp: float
    n_clusters: int
    alpha: float
    splits: int
    merges: int
    sweep_ns: int


def initial_partition(n_points: int, alpha: float, init: Any) -> tuple[Any, float]:
    """Labels and ``alpha`` of a chain's start from its ``init`` (see :class:`DPMixtureArgs`;
    a list's element is picked by the caller); ``alpha`` is the given default unless the
    mapping names one."""
    if init is None or init == "one":
        return np.zeros(n_points, dtype=np.int64), alpha
    if init == "singletons":
        return np.arange(n_points, dtype=np.int64), alpha
    labels = np.asarray(init.get("z", np.zeros(n_points, dtype=np.int64)))
    return labels, float(init.get("alpha", alpha))


class DPSampler:
    """The driver's sampler (:class:`bayeswe.samplers.driver.ChainSampler`) for a
    DP-mixture collapsed Gibbs posterior; each component family's subclass gives its
    sweep, log density, start and checkpoint loading, and the display summary of a
    cluster (``summary_name``, of shape :meth:`summary_shape`)."""

    name: str
    #: The per-cluster display array: ``"means"`` or ``"probabilities"``.
    summary_name: str
    #: The cluster arrays a checkpoint holds.
    cluster_arrays: tuple[str, ...]
    #: The family's kernel module (its ``predictive_log_density`` scores held-out points).
    kernels: Any

    def __init__(self, problem: Any, *, seed: int, init: Any, split_merge: int) -> None:
        self.problem = problem
        self.seed = int(seed)
        self.init_spec = init
        self.split_merge = int(split_merge)
        T, M = problem.display, problem.n_heldout
        self.layout: dict[str, tuple[tuple[int, ...], Any]] = {
            "lp": ((), np.float64),
            "n_clusters": ((), np.int64),
            "alpha": ((), np.float64),
            "weights": ((T,), np.float64),
            self.summary_name: ((T, *self.summary_shape()), np.float64),
        }
        if M:
            self.layout["heldout_log_density"] = ((M,), np.float64)

    # -- the component family's parts
    def summary_shape(self) -> tuple[int, ...]:
        """The shape of one cluster's display summary."""
        raise NotImplementedError

    def summary(self, state: Any, slots: Any) -> Any:
        """The display summaries of the clusters in ``slots``, one row each."""
        raise NotImplementedError

    def heldout_log_density(self, state: Any) -> Any:
        """The log predictive density of each held-out point given the state."""
        prob = self.problem
        dens = np.empty(prob.n_heldout)
        self.kernels.predictive_log_density(prob.prior, state.clusters, prob.n_points,
                                            state.alpha, prob.heldout, dens)  # fmt: skip
        return dens

    def sweep(self, state: Any) -> list[int]:
        """One sweep in place; ``[splits, merges]`` accepted."""
        raise NotImplementedError

    def log_joint(self, state: Any) -> float:
        """The collapsed log joint density of the state."""
        raise NotImplementedError

    def init(self, chain: int) -> Any:
        raise NotImplementedError

    def load(self, arrays: Mapping[str, Any], record: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    # -- shared
    def step(self, state: Any) -> tuple[Any, DPInfo]:
        t0 = time.perf_counter_ns()
        splits, merges = self.sweep(state)
        ns = time.perf_counter_ns() - t0
        n_clusters = int(state.clusters.counts[0])
        return state, DPInfo(self.log_joint(state), n_clusters, state.alpha, splits, merges, ns)

    def record(self, state: Any, info: DPInfo) -> dict[str, Any]:
        cl, prob = state.clusters, self.problem
        T = prob.display
        slots = cl.active[: cl.counts[0]]
        order = slots[np.argsort(-cl.n[slots], kind="stable")][:T]
        weights = np.full(T, np.nan)
        weights[: order.size] = cl.n[order] / (prob.n_points + state.alpha)
        summary = np.full((T, *self.summary_shape()), np.nan)
        summary[: order.size] = self.summary(state, order)
        out = {"lp": info.lp, "n_clusters": info.n_clusters, "alpha": info.alpha,
               "weights": weights, self.summary_name: summary}  # fmt: skip
        if prob.n_heldout:
            out["heldout_log_density"] = self.heldout_log_density(state)
        return out

    def lp(self, info: DPInfo) -> float:
        return info.lp

    def tally(self, info: DPInfo) -> dict[str, int]:
        return {"splits": info.splits, "merges": info.merges, "sweep_ns": info.sweep_ns}

    def dump(self, state: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        arrays = {"z": state.z, "rng_state": state.rng_state}
        arrays.update({name: getattr(state.clusters, name) for name in self.cluster_arrays})
        # JSON writes a float's shortest repr, which reads back to the same double
        return arrays, {"sweeps_done": int(state.sweeps_done), "alpha": float(state.alpha)}


def checked_alpha(record: Mapping[str, Any]) -> float:
    """A checkpoint's ``alpha``, positive and finite."""
    alpha = float(record["alpha"])
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha {alpha}")
    return alpha
