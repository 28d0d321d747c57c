"""One protocol for bayeswe's Markov chain samplers, and the one driver that runs them.

A sampler, in the spirit of BlackJAX, is a pair of functions over a state that
holds everything a chain needs to continue, its random streams included:

- ``init(chain) -> state``: the start of chain ``chain`` (the problem, the
  settings and the seed are bound when the sampler is built);
- ``step(state) -> (state, info)``: one sweep. The state is either immutable
  (PG-Gibbs) or owned by the chain and updated in place (the collapsed Gibbs
  samplers, whose count arrays are too large to copy every sweep); either way the
  driver keeps the returned one.

:class:`ChainSampler` adds what the driver needs to keep draws and checkpoints:
``record`` (the values of a kept sweep, laid out by ``layout``), ``lp`` (the log
density the info reports), ``tally`` (per-sweep counts summed over the run), and
``dump``/``load`` (the state as arrays plus a JSON record, and back).

:func:`run_chains` owns everything the samplers would otherwise each repeat:
chains and their order, warm-up / kept sweeps / thinning (cmdstanpy's
``iter_warmup``, ``iter_sampling``, ``thin``: ``ceil(iter_sampling / thin)`` kept
draws per chain, the first post-warm-up sweep first), chains run in parallel threads
(``parallel_chains``) and Numba threads per chain (``threads_per_chain``), the
progress bar, non-finite checks, interrupts, checkpoint and resume (one run per
checkpoint under a lock, the run's fingerprint and settings compared, atomic writes,
kept draws in a memory-mapped file verified block by block on resume), and timing.
Chains never share a stream, so the draws depend on the seed and the settings only,
not on ``parallel_chains`` or ``threads_per_chain``, and a resumed run continues
exactly where the uninterrupted one would be.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
from numpy.typing import DTypeLike, NDArray

from bayeswe.errors import CheckpointError, NonFiniteStateError
from bayeswe.options import check_int
from bayeswe.progress import Progress
from bayeswe.progress import resolve as progress_resolve
from bayeswe.samplers.checkpoint import (
    DrawsDigests,
    check_checkpoint_path,
    checkpoint_lock,
    create_draws_file,
    open_draws_file,
    read_checkpoint,
    write_npz_atomic,
)

__all__ = [
    "CHECKPOINT_VERSION",
    "ChainRun",
    "ChainSampler",
    "RunOptions",
    "Schedule",
    "draws_path",
    "run_chains",
]

#: Most sweeps parallel chains run between two synchronisations (progress updates).
_BLOCK = 20

#: Layout of the checkpoints :func:`run_chains` writes (``meta["version"]``).
CHECKPOINT_VERSION = 4

State = TypeVar("State")
Info = TypeVar("Info")


class ChainSampler(Protocol[State, Info]):
    """What :func:`run_chains` needs of a sampler (see the module docstring)."""

    #: Short name: the progress bar's label and the checkpoint's ``sampler`` record.
    name: str
    #: Name -> (shape, dtype) of every value a kept sweep records.
    layout: Mapping[str, tuple[tuple[int, ...], DTypeLike]]

    def init(self, chain: int) -> State:
        """The initial state of chain ``chain``."""
        ...

    def step(self, state: State) -> tuple[State, Info]:
        """One sweep of one chain."""
        ...

    def record(self, state: State, info: Info) -> Mapping[str, Any]:
        """The values a kept sweep stores, as declared by :attr:`layout`."""
        ...

    def lp(self, info: Info) -> float | None:
        """The log density after the sweep (checked for finiteness, kept for warm-up).

        ``None`` for a sweep that is neither warm-up nor kept, when the sampler did not
        compute it (LDA's collapsed log joint costs a pass over the count matrices);
        every warm-up and kept sweep must report one.
        """
        ...

    def tally(self, info: Info) -> Mapping[str, int]:
        """Counts of the sweep that the run sums per chain (may be empty)."""
        ...

    def dump(self, state: State) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        """The state as arrays and a JSON-able record, for a checkpoint."""
        ...

    def load(self, arrays: Mapping[str, NDArray[Any]], record: Mapping[str, Any]) -> State:
        """The state :meth:`dump` wrote."""
        ...


@dataclass(frozen=True)
class Schedule:
    """Warm-up sweeps, kept sweeps and thinning, named as in cmdstanpy."""

    iter_warmup: int
    iter_sampling: int
    thin: int = 1

    def __post_init__(self) -> None:
        check_int("iter_warmup", self.iter_warmup, minimum=0)
        check_int("iter_sampling", self.iter_sampling, minimum=1)
        check_int("thin", self.thin, minimum=1)

    @property
    def total(self) -> int:
        """Sweeps in the run."""
        return self.iter_warmup + self.iter_sampling

    @property
    def n_keep(self) -> int:
        """Kept draws per chain: ``ceil(iter_sampling / thin)``."""
        return -(-self.iter_sampling // self.thin)

    def kept_index(self, t: int) -> int | None:
        """The draw that sweep ``t`` (0-based) fills, or ``None`` if it is not kept."""
        s = t - self.iter_warmup
        return s // self.thin if s >= 0 and s % self.thin == 0 else None

    def kept_before(self, done: int) -> int:
        """Kept draws among the first ``done`` sweeps."""
        s = done - self.iter_warmup
        return 0 if s <= 0 else min(self.n_keep, -(-s // self.thin))


@dataclass(frozen=True)
class RunOptions:
    """How a run executes; none of these changes the draws.

    Attributes
    ----------
    parallel_chains
        Chains stepped at the same time, each in its own thread (the kernels release
        the GIL); 1 steps them one after another.
    threads_per_chain
        Numba threads each chain's kernels may use (``None``: Numba's current
        setting).
    checkpoint
        File holding the run's state; if it exists the run resumes from it. Kept
        draws then live in ``<checkpoint>.draws.npy`` (:func:`draws_path`).
    checkpoint_every
        Sweeps between checkpoint writes (the last sweep is always written).
    callback
        Called as ``callback(sweeps_done)`` after each sweep of all chains.
    show_progress
        As :mod:`bayeswe.progress`'s ``show``.
    """

    parallel_chains: int = 1
    threads_per_chain: int | None = None
    checkpoint: str | os.PathLike[str] | None = None
    checkpoint_every: int = 100
    callback: Callable[[int], None] | None = None
    show_progress: bool | None = None


@dataclass
class ChainRun(Generic[State]):
    """What :func:`run_chains` returns."""

    #: Name -> ``(chain, draw, *shape)`` array of every recorded value (read-only map
    #: of the draws file when the run was checkpointed).
    draws: dict[str, NDArray[Any]]
    #: ``(chain, iter_warmup)``: the log density after every warm-up sweep.
    warmup_lp: NDArray[np.float64]
    #: Name -> ``(chain,)`` sums of :meth:`ChainSampler.tally` over every sweep.
    totals: dict[str, NDArray[np.int64]]
    #: Name -> the first sweep (1-based) whose tally was non-zero, or ``None``.
    first_nonzero: dict[str, int | None]
    #: The chains' final states.
    states: list[State]
    #: Seconds from start to end of the run (earlier sessions of a resumed run included).
    wall_time: float
    #: Seconds spent in ``step``, summed over chains (likewise).
    sweep_time: float
    #: Whether the run continued from a checkpoint.
    resumed: bool
    #: The parallel chains and Numba threads per chain actually used.
    parallel_chains: int = 1
    threads_per_chain: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


def draws_path(checkpoint: Path) -> Path:
    """The memory-mapped kept draws of the run checkpointed at ``checkpoint``."""
    return checkpoint.with_name(checkpoint.name + ".draws.npy")


class _Layout:
    """Every recorded value side by side in one float64 row per kept draw.

    One flat ``(chain, draw, row)`` array (in memory, or the checkpoint's draws file)
    holds them all, so one file and one set of block digests cover the draws; each
    value is a view into it. Integer values up to 2**53 round-trip exactly.
    """

    def __init__(self, layout: Mapping[str, tuple[tuple[int, ...], DTypeLike]]) -> None:
        self.items: list[tuple[str, tuple[int, ...], np.dtype, int, int]] = []
        offset = 0
        for name, (shape, dtype) in layout.items():
            shape = tuple(int(s) for s in shape)
            size = int(np.prod(shape, dtype=np.int64))
            self.items.append((name, shape, np.dtype(dtype), offset, size))
            offset += size
        self.width = offset

    def views(self, flat: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
        c, d = flat.shape[:2]
        return {
            name: flat[:, :, off : off + size].reshape(c, d, *shape)
            for name, shape, _, off, size in self.items
        }

    def typed(self, flat: NDArray[np.float64]) -> dict[str, NDArray[Any]]:
        out = {}
        for (name, _, dtype, _, _), view in zip(self.items, self.views(flat).values(), strict=True):
            out[name] = view if dtype == np.float64 else view.astype(dtype)
        return out


def check_run_options(args: Any) -> None:
    """Validate the options every Markov chain sampler's arguments share: cmdstanpy's
    ``iter_warmup``, ``iter_sampling`` and ``thin``, and the driver's
    ``parallel_chains``, ``threads_per_chain``, ``checkpoint_every``, ``callback`` and
    ``show_progress`` (``None`` passes: the default). ``ValueError`` names a bad one."""
    check_int("iter_warmup", args.iter_warmup, minimum=0)
    check_int("iter_sampling", args.iter_sampling, minimum=1)
    check_int("thin", args.thin, minimum=1)
    check_int("parallel_chains", args.parallel_chains, minimum=1)
    check_int("threads_per_chain", args.threads_per_chain, minimum=1)
    check_int("checkpoint_every", args.checkpoint_every, minimum=1)
    if args.callback is not None and not callable(args.callback):
        raise ValueError("callback must be callable")
    progress_resolve(args.show_progress)


def _check_chains(chains: Any) -> int:
    check_int("chains", chains, minimum=1)
    return int(chains)


def run_chains(
    sampler: ChainSampler[State, Info],
    *,
    chains: int,
    schedule: Schedule,
    seed: int,
    fingerprint: str,
    settings: Mapping[str, Any],
    options: RunOptions = RunOptions(),
) -> ChainRun[State]:
    """Run ``chains`` chains of ``sampler`` through ``schedule``.

    Parameters
    ----------
    sampler
        The sampler, with its problem, settings and seed bound.
    chains
        Number of chains.
    schedule
        Warm-up, kept sweeps and thinning.
    seed
        The run's seed (recorded, and compared on resume).
    fingerprint
        A digest of the data (compared on resume).
    settings
        Every option that changes the draws (JSON-able; compared on resume).
    options
        How the run executes (:class:`RunOptions`).

    Raises
    ------
    CheckpointError
        The checkpoint path cannot be a file, another run holds it, or the checkpoint
        is corrupt or was written for other data, settings or chains.
    NonFiniteStateError
        A chain's log density became NaN or infinite.
    KeyboardInterrupt
        Passed on, with a note saying which sweep the checkpoint (if any) holds.
    """
    import numba

    chains = _check_chains(chains)
    check_int("parallel_chains", options.parallel_chains, minimum=1)
    check_int("checkpoint_every", options.checkpoint_every, minimum=1)
    if options.threads_per_chain is not None:
        check_int("threads_per_chain", options.threads_per_chain, minimum=1)
    layout = _Layout(sampler.layout)
    shape = (chains, schedule.n_keep, layout.width)
    run_meta = {
        "sampler": sampler.name,
        "version": CHECKPOINT_VERSION,
        "fingerprint": fingerprint,
        "seed": int(seed),
        "chains": chains,
        "iter_warmup": schedule.iter_warmup,
        "iter_sampling": schedule.iter_sampling,
        "thin": schedule.thin,
        "settings": dict(settings),
    }
    # Refuse an impossible checkpoint path before any work.
    path = None if options.checkpoint is None else check_checkpoint_path(options.checkpoint)
    parallel = min(int(options.parallel_chains), chains)
    threads = (
        numba.get_num_threads()
        if options.threads_per_chain is None
        else min(int(options.threads_per_chain), numba.config.NUMBA_NUM_THREADS)
    )

    with contextlib.ExitStack() as stack:
        if path is not None:
            # One run per checkpoint, locked before any start is computed: a second run
            # fails at once instead of interleaving its writes with this one's.
            stack.enter_context(checkpoint_lock(path))
        run = _Session(sampler, layout, schedule, chains, run_meta, path, shape)
        run.start()
        run.loop(parallel, threads, options, stack)
        return run.result(parallel, threads)


class _Session:
    """The mutable bookkeeping of one :func:`run_chains` call."""

    def __init__(
        self,
        sampler: ChainSampler[Any, Any],
        layout: _Layout,
        schedule: Schedule,
        chains: int,
        run_meta: dict[str, Any],
        path: Path | None,
        shape: tuple[int, int, int],
    ) -> None:
        self.sampler = sampler
        self.layout = layout
        self.schedule = schedule
        self.chains = chains
        self.run_meta = run_meta
        self.path = path
        self.shape = shape
        self.digests = DrawsDigests(axis=1)
        self.totals: dict[str, NDArray[np.int64]] = {}
        self.first: dict[str, int | None] = {}
        self.done = 0
        self.saved = 0
        self.wall_before = 0.0
        self.sweep_before = 0.0
        self.sweep_time = np.zeros(chains)
        self.resumed = False
        self.halt = threading.Event()
        self.tally_lock = threading.Lock()

    # ------------------------------------------------------------------ start

    def start(self) -> None:
        path, chains = self.path, self.chains
        self.resumed = path is not None and path.exists()
        if self.resumed:
            self._resume()
            return
        self.states = [self.sampler.init(c) for c in range(chains)]
        self.warmup_lp = np.zeros((chains, self.schedule.iter_warmup))
        if path is None:
            self.flat: NDArray[np.float64] = np.zeros(self.shape)
        else:
            self.flat = create_draws_file(draws_path(path), self.shape)

    def _resume(self) -> None:
        path = self.path
        assert path is not None
        arrays, meta = read_checkpoint(
            path, kind=self.sampler.name, version=CHECKPOINT_VERSION, required=("warmup_lp",)
        )
        mismatch = {k: (meta.get(k), v) for k, v in self.run_meta.items() if meta.get(k) != v}
        if mismatch:
            raise CheckpointError(
                f"checkpoint {path} was written for another run: {mismatch}", path=path
            )
        try:
            done = int(meta["sweep"])
            if not 0 <= done <= self.schedule.total:
                raise ValueError(f"sweep {done}")
            self.wall_before = float(meta["wall_time"])
            self.sweep_before = float(meta["sweep_time"])
            self.totals = {k: np.asarray(v, dtype=np.int64) for k, v in meta["totals"].items()}
            self.first = {k: (None if v is None else int(v)) for k, v in meta["first"].items()}
            records = meta["chain_records"]
            if len(records) != self.chains:
                raise ValueError(f"{len(records)} chain records")
            self.states = []
            for c in range(self.chains):
                prefix = f"chain{c}."
                own = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
                self.states.append(self.sampler.load(own, records[c]))
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(
                f"checkpoint {path} has a malformed meta record: {exc}", path=path
            ) from None
        self.warmup_lp = np.array(arrays["warmup_lp"], dtype=np.float64)
        if self.warmup_lp.shape != (self.chains, self.schedule.iter_warmup):
            raise CheckpointError(f"checkpoint {path} has a malformed warm-up trace", path=path)
        self.flat = open_draws_file(draws_path(path), self.shape, checkpoint=path)
        self.digests = DrawsDigests(meta.get("draws_digests"), axis=1)
        changed = self.digests.mismatches(self.flat)
        if changed or self.digests.rows != self.schedule.kept_before(done):
            raise CheckpointError(
                f"draws file {draws_path(path)} does not hold the draws checkpoint {path} "
                f"recorded: kept draws {changed or 'count'} differ (it was changed, or "
                "belongs to another run)",
                path=path,
            )
        self.done = self.saved = done

    # ------------------------------------------------------------------ loop

    def _step(self, c: int, threads: int) -> tuple[Any, Any, float]:
        import numba

        numba.set_num_threads(threads)  # thread-local: each worker sets its own
        t0 = time.perf_counter()
        state, info = self.sampler.step(self.states[c])
        return state, info, time.perf_counter() - t0

    def loop(
        self, parallel: int, threads: int, options: RunOptions, stack: contextlib.ExitStack
    ) -> None:
        import numba

        sampler, schedule = self.sampler, self.schedule
        views = self.layout.views(self.flat)
        old_threads = numba.get_num_threads()
        stack.callback(numba.set_num_threads, old_threads)
        pool = ThreadPoolExecutor(parallel) if parallel > 1 else None
        if pool is not None:
            stack.callback(pool.shutdown, wait=True, cancel_futures=True)
        bar = stack.enter_context(
            Progress(schedule.total, sampler.name, show=options.show_progress)
        )
        bar.update(self.done)
        self.started = time.perf_counter()
        try:
            t = self.done
            while t < schedule.total:
                if pool is None or options.callback is not None:
                    # the callback sees every sweep of all chains
                    end = t + 1
                    if pool is None:
                        results = [self._step(c, threads) for c in range(self.chains)]
                    else:
                        results = list(
                            pool.map(lambda c: self._step(c, threads), range(self.chains))
                        )
                    kept = schedule.kept_index(t)
                    for c, (state, info, seconds) in enumerate(results):
                        self.states[c] = state
                        self.sweep_time[c] += seconds
                        self._account(c, t, state, info, kept, views)
                else:
                    # Parallel chains run blocks of sweeps between the points where they
                    # must agree (checkpoints, the end): a barrier after every sweep idles
                    # a worker whenever the other is descheduled or its sweep is longer.
                    end = self._block_end(t, options)
                    try:
                        futures = [
                            pool.submit(self._block, c, t, end, threads, views)
                            for c in range(self.chains)
                        ]
                        for future in futures:
                            future.result()
                    except BaseException:
                        self.halt.set()  # the other chains stop at their next sweep
                        raise
                self.done = end
                if self.path is not None and (
                    self.done % options.checkpoint_every == 0 or self.done == schedule.total
                ):
                    self.save()
                if options.callback is not None:
                    options.callback(self.done)
                bar.update(end - t)
                t = end
        except KeyboardInterrupt as exc:
            if self.path is not None:
                exc.add_note(
                    f"{sampler.name}: interrupted; checkpoint {self.path} holds sweep "
                    f"{self.saved} of {schedule.total}; run again to resume"
                )
            raise

    def _block_end(self, t: int, options: RunOptions) -> int:
        end = min(t + _BLOCK, self.schedule.total)
        if self.path is not None:
            end = min(end, (t // options.checkpoint_every + 1) * options.checkpoint_every)
        return end

    def _block(self, c: int, start: int, end: int, threads: int, views: dict[str, Any]) -> None:
        """Sweeps ``start`` to ``end`` of chain ``c`` (in a worker thread)."""
        for t in range(start, end):
            if self.halt.is_set():
                return
            state, info, seconds = self._step(c, threads)
            self.states[c] = state
            self.sweep_time[c] += seconds
            self._account(c, t, state, info, self.schedule.kept_index(t), views)

    def _account(
        self, c: int, t: int, state: Any, info: Any, kept: int | None, views: dict[str, Any]
    ) -> None:
        value = self.sampler.lp(info)
        if value is None:
            if t < self.schedule.iter_warmup or kept is not None:
                raise TypeError(
                    f"{self.sampler.name}: no log density for warm-up or kept sweep {t + 1}"
                )
            lp = 0.0  # not computed for this sweep: nothing to check or keep
        else:
            lp = float(value)
        if not math.isfinite(lp):
            last = "" if self.path is None else f"; checkpoint {self.path} keeps the last save"
            raise NonFiniteStateError(
                f"{self.sampler.name}: chain {c} went non-finite in sweep {t + 1} (log "
                f"density {lp}); start from other values or check the data's scale{last}",
                chain=c,
                sweep=t + 1,
            )
        with self.tally_lock:  # chains may account concurrently (blocks of sweeps)
            for name, count in self.sampler.tally(info).items():
                if name not in self.totals:
                    self.totals[name] = np.zeros(self.chains, dtype=np.int64)
                    self.first.setdefault(name, None)
                self.totals[name][c] += int(count)
                if count and (self.first[name] is None or t + 1 < self.first[name]):
                    self.first[name] = t + 1
        if t < self.schedule.iter_warmup:
            self.warmup_lp[c, t] = lp
        elif kept is not None:
            for name, value in self.sampler.record(state, info).items():
                views[name][c, kept] = value

    # ------------------------------------------------------------------ checkpoint

    def save(self) -> None:
        assert self.path is not None
        arrays: dict[str, NDArray[Any]] = {"warmup_lp": self.warmup_lp}
        records = []
        for c, state in enumerate(self.states):
            own, record = self.sampler.dump(state)
            arrays.update({f"chain{c}.{k}": v for k, v in own.items()})
            records.append(record)
        meta = {
            **self.run_meta,
            "sweep": self.done,
            "wall_time": self.wall_before + time.perf_counter() - self.started,
            "sweep_time": self.sweep_before + float(self.sweep_time.sum()),
            "totals": {k: v.tolist() for k, v in self.totals.items()},
            "first": dict(self.first),
            "draws_digests": self.digests.update(self.flat, self.schedule.kept_before(self.done)),
            "chain_records": records,
        }
        # Draws up to ``done`` reach the disk before the state that says they are there;
        # draws written after it are recomputed identically on resume.
        self.flat.flush()
        write_npz_atomic(self.path, arrays, meta)
        self.saved = self.done

    # ------------------------------------------------------------------ result

    def result(self, parallel: int, threads: int) -> ChainRun[Any]:
        wall = self.wall_before + time.perf_counter() - self.started
        flat = self.flat
        if self.path is not None:
            # Hand out a read-only map: a later run on this path creates a new file (a
            # new inode) and never writes into the one these results view.
            flat.flush()
            del flat
            self.flat = np.load(draws_path(self.path), mmap_mode="r")
        return ChainRun(
            draws=self.layout.typed(self.flat),
            warmup_lp=self.warmup_lp,
            totals=self.totals,
            first_nonzero=self.first,
            states=self.states,
            wall_time=wall,
            sweep_time=self.sweep_before + float(self.sweep_time.sum()),
            resumed=self.resumed,
            parallel_chains=parallel,
            threads_per_chain=threads,
        )


#: The tally of a sampler that counts nothing.
NO_TALLY: Mapping[str, int] = {}
