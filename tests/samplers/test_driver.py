"""The Markov chain driver (:mod:`bayeswe.samplers.driver`) on samplers whose every sweep
is known in advance, so that each of its promises is checked exactly.

``Counter`` adds a per-chain random increment drawn from the chain's own stream to its
value every sweep; what each kept draw must hold follows from the seed alone.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bayeswe.errors import CheckpointError, NonFiniteStateError
from bayeswe.samplers.driver import RunOptions, Schedule, draws_path, run_chains


class Counter:
    """Chain ``c``: ``x <- x + u`` with ``u`` uniform from ``PCG64(SeedSequence(seed, (c,)))``;
    it records ``x``, the sweep count and a 2-vector; its info's ``lp`` is ``-x``."""

    name = "counter"
    layout = {"x": ((), np.float64), "sweep": ((), np.int64), "pair": ((2,), np.float64)}

    def __init__(self, seed: int, nan_at: int | None = None) -> None:
        self.seed = seed
        self.nan_at = nan_at

    def init(self, chain: int) -> dict[str, Any]:
        bg = np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=(chain,)))
        return {"x": 0.0, "sweep": 0, "rng": bg.state}

    def step(self, state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float]]:
        bg = np.random.PCG64(0)
        bg.state = state["rng"]
        x = state["x"] + np.random.Generator(bg).random()
        sweep = state["sweep"] + 1
        lp = math.nan if sweep == self.nan_at else -x
        return {"x": x, "sweep": sweep, "rng": bg.state}, {"lp": lp, "odd": sweep % 2}

    def record(self, state: dict[str, Any], info: dict[str, float]) -> dict[str, Any]:
        return {"x": state["x"], "sweep": state["sweep"], "pair": [state["x"], -state["x"]]}

    def lp(self, info: dict[str, float]) -> float:
        return info["lp"]

    def tally(self, info: dict[str, float]) -> dict[str, int]:
        return {"odd": int(info["odd"])}

    def dump(self, state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        return {"x": np.array(state["x"])}, {"sweep": state["sweep"], "rng": state["rng"]}

    def load(self, arrays: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
        return {"x": float(arrays["x"]), "sweep": int(record["sweep"]), "rng": record["rng"]}


def expected_path(seed: int, chain: int, sweeps: int) -> np.ndarray:
    """``x`` after each of ``sweeps`` sweeps of chain ``chain``."""
    gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(chain,))))
    return np.cumsum([gen.random() for _ in range(sweeps)])


def run(schedule: Schedule, *, seed: int = 3, chains: int = 3, **options: Any) -> Any:
    return run_chains(
        Counter(seed, options.pop("nan_at", None)),
        chains=chains,
        schedule=schedule,
        seed=seed,
        fingerprint="f",
        settings={"a": 1},
        options=RunOptions(**options),
    )


@given(
    warmup=st.integers(0, 7),
    sampling=st.integers(1, 12),
    thin=st.integers(1, 5),
)
def test_kept_sweeps_are_cmdstanpys(warmup: int, sampling: int, thin: int) -> None:
    """Sweeps ``warmup + 1, warmup + 1 + thin, ...`` are kept: ``ceil(sampling / thin)``."""
    s = Schedule(warmup, sampling, thin)
    out = run(s, chains=2)
    assert s.n_keep == math.ceil(sampling / thin)
    expected_sweeps = warmup + 1 + thin * np.arange(s.n_keep)
    for c in range(2):
        path = expected_path(3, c, warmup + sampling)
        np.testing.assert_array_equal(out.draws["sweep"][c], expected_sweeps)
        np.testing.assert_array_equal(out.draws["x"][c], path[expected_sweeps - 1])
        np.testing.assert_array_equal(out.draws["pair"][c, :, 1], -path[expected_sweeps - 1])
        np.testing.assert_array_equal(out.warmup_lp[c], -path[:warmup])
    assert out.draws["sweep"].dtype == np.int64
    assert [s.kept_before(d) for d in range(s.total + 1)][-1] == s.n_keep
    # sweeps 1, 3, 5, ... are odd: the tally counts them per chain, from sweep 1
    assert out.totals["odd"].tolist() == [(s.total + 1) // 2] * 2
    assert out.first_nonzero["odd"] == 1


def test_parallel_chains_do_not_change_the_draws() -> None:
    s = Schedule(3, 10, 2)
    one, three = run(s, parallel_chains=1), run(s, parallel_chains=3, threads_per_chain=1)
    for name in one.draws:
        np.testing.assert_array_equal(one.draws[name], three.draws[name])
    assert three.parallel_chains == 3 and three.threads_per_chain == 1


def test_a_non_finite_log_density_names_the_chain_and_sweep() -> None:
    with pytest.raises(NonFiniteStateError, match="chain 0 went non-finite in sweep 5") as info:
        run(Schedule(2, 6), nan_at=5)
    assert info.value.sweep == 5 and info.value.chain == 0


class _Stop(Exception):
    pass


def _stop_at(n: int) -> Any:
    def callback(done: int) -> None:
        if done == n:
            raise _Stop

    return callback


class LazyCounter(Counter):
    """A Counter that reports no log density on the sweeps given (as LDA's cgs does on
    sweeps it neither keeps nor spends in warm-up)."""

    def __init__(self, seed: int, silent: set[int]) -> None:
        super().__init__(seed)
        self.silent = silent

    def step(self, state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float]]:
        state, info = super().step(state)
        return state, {**info, "sweep": state["sweep"]}

    def lp(self, info: dict[str, float]) -> float | None:
        return None if info["sweep"] in self.silent else info["lp"]


def test_a_log_density_may_be_missing_only_where_it_is_neither_warm_up_nor_kept() -> None:
    s = Schedule(2, 6, 3)  # sweeps 1-2 warm-up, 3 and 6 kept; 4, 5, 7, 8 neither
    quiet = run_chains(LazyCounter(3, {4, 5, 7, 8}), chains=1, schedule=s, seed=3,
                       fingerprint="f", settings={})  # fmt: skip
    full = run(s, chains=1)
    np.testing.assert_array_equal(quiet.draws["x"], full.draws["x"])
    np.testing.assert_array_equal(quiet.warmup_lp, full.warmup_lp)
    for silent, sweep in (({2}, 2), ({6}, 6)):
        with pytest.raises(TypeError, match=f"no log density for warm-up or kept sweep {sweep}"):
            run_chains(LazyCounter(3, silent), chains=1, schedule=s, seed=3, fingerprint="f",
                       settings={})  # fmt: skip


def test_resume_continues_exactly_and_a_finished_run_is_returned_again(tmp_path: Path) -> None:
    s = Schedule(4, 20, 3)
    straight = run(s)
    path = tmp_path / "c.ckpt"
    with pytest.raises(_Stop):
        run(s, checkpoint=path, checkpoint_every=5, callback=_stop_at(17))
    resumed = run(s, checkpoint=path, checkpoint_every=5)
    assert resumed.resumed and not straight.resumed
    for name in straight.draws:
        np.testing.assert_array_equal(resumed.draws[name], straight.draws[name])
    np.testing.assert_array_equal(resumed.warmup_lp, straight.warmup_lp)
    assert resumed.totals["odd"].tolist() == straight.totals["odd"].tolist()
    again = run(s, checkpoint=path)
    np.testing.assert_array_equal(again.draws["x"], straight.draws["x"])
    # the draws handed out are a read-only view of the finished file
    assert not again.draws["x"].flags.writeable
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [".c.ckpt.lock", "c.ckpt", "c.ckpt.draws.npy"]


def test_a_checkpoint_of_other_settings_or_a_tampered_draws_file_is_refused(tmp_path: Path) -> None:
    s = Schedule(2, 12)
    path = tmp_path / "c.ckpt"
    with pytest.raises(_Stop):
        run(s, checkpoint=path, checkpoint_every=4, callback=_stop_at(10))
    with pytest.raises(CheckpointError, match="another run.*seed"):
        run(s, seed=4, checkpoint=path)
    with pytest.raises(CheckpointError, match="another run.*thin"):
        run(Schedule(2, 12, 2), checkpoint=path)
    flat = np.load(draws_path(path), mmap_mode="r+")
    flat[1, 2, 0] += 1.0
    flat.flush()
    del flat
    with pytest.raises(CheckpointError, match=r"kept draws \[\(0, 6\)\] differ"):
        run(s, checkpoint=path)


def test_an_interrupt_passes_on_with_what_the_checkpoint_holds(tmp_path: Path) -> None:
    path = tmp_path / "c.ckpt"

    def interrupt(done: int) -> None:
        if done == 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as info:
        run(Schedule(2, 10), checkpoint=path, checkpoint_every=3, callback=interrupt)
    assert info.value.__notes__ == [
        f"counter: interrupted; checkpoint {path} holds sweep 6 of 12; run again to resume"
    ]


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        (lambda: Schedule(-1, 5), "iter_warmup"),
        (lambda: Schedule(0, 0), "iter_sampling"),
        (lambda: Schedule(0, 5, 0), "thin"),
    ],
)
def test_a_bad_schedule_is_refused(schedule: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        schedule()


@pytest.mark.parametrize("option", ["parallel_chains", "threads_per_chain", "checkpoint_every"])
def test_bad_run_options_are_refused_before_any_sweep(option: str) -> None:
    with pytest.raises(ValueError, match=option):
        run(Schedule(0, 2), **{option: 0})
