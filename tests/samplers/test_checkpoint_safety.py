"""Nothing lost, nothing silent: checkpoints, full disks, concurrent runs, extreme values.

Each case is one way a user's run can lose or corrupt results, checked end to end on
the real samplers: truncated, corrupt or foreign checkpoint and draws files, a second
run on the same checkpoint, a full disk (emulated with ``RLIMIT_FSIZE`` in a child
process, which makes the kernel refuse to grow a file exactly as a full disk does:
``EFBIG`` instead of ``ENOSPC``), results that must not change when a later run reuses
the path, impossible checkpoint paths, extreme hyperparameters and empty data.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bayeswe
from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.errors import CheckpointError, StanDataError
from bayeswe.glda import GaussianLDAData, GaussianLDADataError
from bayeswe.lda import LDAData, LDADataError
from bayeswe.samplers.checkpoint import DrawsDigests, checkpoint_lock, write_npz_atomic
from bayeswe.samplers.pg_gibbs import sample_pg_gibbs
from bayeswe.sgns import SGNSData, SGNSDataError

RUN = {"chains": 2, "iter_warmup": 4, "iter_sampling": 10, "thin": 2, "init": "prior"}
REPO = Path(__file__).resolve().parents[2]


def _values(idata: Any) -> dict[str, np.ndarray]:
    return {k: np.array(idata.posterior[k].values) for k in ("rho", "alpha")} | {
        "lp": np.array(idata.sample_stats["lp"].values)
    }


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in a)


class _Stop(Exception):
    pass


def _stop_at(sweep: int) -> Any:
    def callback(done: int) -> None:
        if done == sweep:
            raise _Stop

    return callback


@pytest.fixture
def make_tiny() -> Any:
    """Gaussian LDA data: 2 documents of 5 word types with 2-d vectors."""

    def make() -> GaussianLDAData:
        rng = np.random.default_rng(0)
        vocab = Vocabulary(tuple(f"w{i}" for i in range(10)))
        corpus = BagOfWords.from_token_ids([range(5), range(5, 10)], vocab)
        vectors = rng.normal(size=(10, 2))
        return GaussianLDAData(corpus, vectors, n_topics=2, mu0=np.zeros(2), Psi=np.eye(2))

    return make


@pytest.fixture
def interrupted(small_data: dict[str, Any], tmp_path: Path) -> Path:
    """A pg-gibbs run checkpointed at sweep 10 (5 draws kept) and stopped at 12."""
    path = tmp_path / "run.ckpt"
    with pytest.raises(_Stop):
        sample_pg_gibbs(
            small_data, seed=5, checkpoint=path, checkpoint_every=5, callback=_stop_at(12), **RUN
        )
    return path


# ----------------------------------------------------------------------------- draws file


def test_truncated_draws_file_is_refused(small_data, interrupted: Path) -> None:
    draws = interrupted.with_name("run.ckpt.draws.npy")
    with open(draws, "r+b") as f:
        f.truncate(draws.stat().st_size - 8)
    with pytest.raises(CheckpointError, match="truncated") as info:
        sample_pg_gibbs(small_data, seed=5, checkpoint=interrupted, **RUN)
    assert info.value.path == interrupted


def test_draws_file_of_another_run_is_refused(small_data, interrupted: Path, tmp_path) -> None:
    """Same shape, other draws (another seed): the digest of the last kept rows differs."""
    other = tmp_path / "other" / "run.ckpt"
    with pytest.raises(_Stop):
        sample_pg_gibbs(
            small_data, seed=6, checkpoint=other, checkpoint_every=5, callback=_stop_at(12), **RUN
        )
    shutil.copy(other.with_name("run.ckpt.draws.npy"), interrupted.with_name("run.ckpt.draws.npy"))
    with pytest.raises(CheckpointError, match="does not hold the draws"):
        sample_pg_gibbs(small_data, seed=5, checkpoint=interrupted, **RUN)


def test_draws_file_changed_in_the_middle_is_refused(small_data, interrupted: Path) -> None:
    """Same size, one value changed in the first kept draw (not the last): refused, the
    changed rows named."""
    draws_path = interrupted.with_name("run.ckpt.draws.npy")
    draws = np.load(draws_path, mmap_mode="r+")
    draws[1, 0, 5] += 1.0  # chain 1, first kept draw, an entry of rho
    draws.flush()
    del draws
    with pytest.raises(CheckpointError, match=r"kept draws \[\(0, 3\)\] differ") as info:
        sample_pg_gibbs(small_data, seed=5, checkpoint=interrupted, **RUN)
    assert info.value.path == interrupted


def test_draws_digests_cover_every_block() -> None:
    """Per-block digests: incremental updates equal a fresh digest, and a change in any
    block (not only the last) is found and located."""
    rng = np.random.default_rng(0)
    draws = rng.normal(size=(2, 2, 200, 3, 2))
    grown = DrawsDigests()
    for rows in (10, 64, 100, 130):
        record = grown.update(draws, rows)
    assert record == DrawsDigests().update(draws, 130)
    assert len(record["digests"]) == 3
    restored = DrawsDigests(record)
    assert restored.mismatches(draws) == []
    draws[1, 0, 70, 2, 0] = 0.5
    draws[0, 0, 129, 0, 0] = 0.5
    assert restored.mismatches(draws) == [(64, 128), (128, 130)]
    draws[0, 1, 150, 0, 0] = 0.5  # beyond the recorded rows: not checked
    assert restored.mismatches(draws) == [(64, 128), (128, 130)]


def test_a_symlinked_checkpoint_stays_a_symlink(small_data, tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "run.ckpt").write_bytes(b"")
    link = tmp_path / "run.ckpt"
    link.symlink_to(store / "run.ckpt")
    (store / "run.ckpt").unlink()  # a dangling link: the run creates its target
    reference = _values(sample_pg_gibbs(small_data, seed=5, **RUN))
    with pytest.raises(_Stop):
        sample_pg_gibbs(
            small_data, seed=5, checkpoint=link, checkpoint_every=5, callback=_stop_at(12), **RUN
        )
    assert link.is_symlink() and (store / "run.ckpt").stat().st_size > 0
    resumed = _values(sample_pg_gibbs(small_data, seed=5, checkpoint=link, **RUN))
    assert link.is_symlink() and _same(resumed, reference)


def test_draws_file_of_another_shape_is_refused(small_data, interrupted: Path) -> None:
    np.save(interrupted.with_name("run.ckpt.draws.npy"), np.zeros((2, 2, 5, 8, 2)))
    with pytest.raises(CheckpointError, match="another run"):
        sample_pg_gibbs(small_data, seed=5, checkpoint=interrupted, **RUN)


def test_lost_draws_file_is_refused(small_data, interrupted: Path) -> None:
    interrupted.with_name("run.ckpt.draws.npy").unlink()
    with pytest.raises(CheckpointError, match="lost its draws file"):
        sample_pg_gibbs(small_data, seed=5, checkpoint=interrupted, **RUN)


def test_intact_checkpoint_resumes_to_the_uninterrupted_draws(small_data, interrupted) -> None:
    """The control of the cases above: untouched files resume bit for bit."""
    reference = _values(sample_pg_gibbs(small_data, seed=5, **RUN))
    assert _same(
        _values(sample_pg_gibbs(small_data, seed=5, checkpoint=interrupted, **RUN)), reference
    )


# ----------------------------------------------------------------------------- checkpoint file


def _garbage(path: Path) -> None:
    path.write_bytes(b"not a checkpoint at all\n" * 10)


def _halved(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _single_array(path: Path) -> None:
    with open(path, "wb") as f:
        np.save(f, np.zeros(3))


def _other_sampler(path: Path) -> None:
    write_npz_atomic(path, {"x": np.zeros(2)}, {"sampler": "gaussian-lda", "version": 3})


def _old_layout(path: Path) -> None:
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files if k != "meta"}
    write_npz_atomic(path, arrays, {"sampler": "pg-gibbs", "version": 3})


def _non_finite_state(path: Path) -> None:
    import json

    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files if k != "meta"}
        meta = json.loads(str(f["meta"]))
    arrays["chain0.rho"][0, 0] = np.nan
    write_npz_atomic(path, arrays, meta)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (_garbage, "corrupt or not a checkpoint"),
        (_halved, "corrupt or not a checkpoint"),
        (_empty, "empty"),
        (_single_array, "single array"),
        (_other_sampler, "written by 'gaussian-lda'"),
        (_old_layout, "layout version 3"),
        (_non_finite_state, "non-finite state"),
    ],
)
def test_damaged_checkpoint_is_one_typed_error(small_data, interrupted, damage, message) -> None:
    damage(interrupted)
    with pytest.raises(CheckpointError, match=message) as info:
        sample_pg_gibbs(small_data, seed=5, checkpoint=interrupted, **RUN)
    assert str(interrupted) in str(info.value) and info.value.path == interrupted


def test_checkpoint_of_other_settings_is_refused(small_data, interrupted) -> None:
    with pytest.raises(CheckpointError, match="written for another run"):
        sample_pg_gibbs(small_data, seed=5, checkpoint=interrupted, **{**RUN, "thin": 1})


@pytest.mark.parametrize("where", ["directory", "parent is a file"])
def test_impossible_checkpoint_path_fails_before_any_work(small_data, tmp_path, where) -> None:
    """Checked before the MAP start (``init="map"``) and before any sweep."""
    if where == "directory":
        path = tmp_path / "ckpt"
        path.mkdir()
        match = "is a directory"
    else:
        (tmp_path / "file").write_text("x")
        path = tmp_path / "file" / "run.ckpt"
        match = "is a file, not a directory"
    calls: list[int] = []
    with pytest.raises(CheckpointError, match=match):
        bayeswe.fit(
            "sgns_identified", small_data, method="pg-gibbs", seed=1, checkpoint=path,
            callback=calls.append, iter_warmup=2, iter_sampling=2,
        )  # fmt: skip
    assert calls == []


# ----------------------------------------------------------------------------- aliasing, locks


def test_results_do_not_change_when_a_later_run_reuses_the_path(small_data, tmp_path) -> None:
    """A finished run's draws view its file read-only; a new run makes a new file."""
    path = tmp_path / "run.ckpt"
    first = sample_pg_gibbs(small_data, seed=1, checkpoint=path, **RUN)
    kept = _values(first)
    assert not first.posterior["rho"].values.flags.writeable
    path.unlink()  # the user starts over at the same path with another seed
    second = sample_pg_gibbs(small_data, seed=2, checkpoint=path, **RUN)
    assert _same(_values(first), kept)
    assert not _same(_values(second), kept)


def test_a_second_run_on_a_locked_checkpoint_fails_at_once(small_data, tmp_path) -> None:
    path = tmp_path / "run.ckpt"
    with checkpoint_lock(path), pytest.raises(CheckpointError, match="in use by another run"):
        sample_pg_gibbs(small_data, seed=1, checkpoint=path, **RUN)
    assert not path.exists()
    # released: the same run now goes through
    sample_pg_gibbs(small_data, seed=1, checkpoint=path, **RUN)


def test_the_lock_holds_across_processes(small_data, tmp_path) -> None:
    path = tmp_path / "run.ckpt"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from pathlib import Path
            from bayeswe.samplers.checkpoint import checkpoint_lock
            with checkpoint_lock(Path({str(path)!r})):
                print("locked", flush=True)
                sys.stdin.readline()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(CheckpointError, match="in use by another run"):
            sample_pg_gibbs(small_data, seed=1, checkpoint=path, **RUN)
    finally:
        holder.communicate("\n", timeout=60)
    sample_pg_gibbs(small_data, seed=1, checkpoint=path, **RUN)  # the holder has exited


def test_gaussian_lda_checkpoints_are_locked_and_checked(make_tiny, tmp_path) -> None:
    data = make_tiny()
    path = tmp_path / "glda.ckpt"
    kw = {"method": "cgs", "seed": 1, "chains": 1, "iter_sampling": 4, "iter_warmup": 2}
    with checkpoint_lock(path), pytest.raises(CheckpointError, match="in use"):
        bayeswe.fit("gaussian_lda", data, checkpoint=path, **kw)
    bayeswe.fit("gaussian_lda", data, checkpoint=path, **kw)
    _halved(path)
    with pytest.raises(CheckpointError, match="corrupt"):
        bayeswe.fit("gaussian_lda", data, checkpoint=path, **kw)
    pg_path = tmp_path / "pg.ckpt"
    write_npz_atomic(pg_path, {"x": np.zeros(1)}, {"sampler": "pg-gibbs", "version": 3})
    with pytest.raises(CheckpointError, match="written by 'pg-gibbs'"):
        bayeswe.fit("gaussian_lda", data, checkpoint=pg_path, **kw)
    (tmp_path / "dir.ckpt").mkdir()
    with pytest.raises(CheckpointError, match="is a directory"):
        bayeswe.fit("gaussian_lda", data, checkpoint=tmp_path / "dir.ckpt", **kw)


# ----------------------------------------------------------------------------- full disk

_CHILD = """
import resource, signal, sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from conftest import identified_data
from bayeswe.errors import OutputError
from bayeswe.samplers.pg_gibbs import sample_pg_gibbs

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write fails with EFBIG instead
data = identified_data(8, 2, 3000, seed=3)
path = Path({path!r})

def fill_disk(done):
    if done == {full_at}:
        resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, resource.RLIM_INFINITY))

if {full_at} == 0:
    fill_disk(0)
try:
    sample_pg_gibbs(data, seed=5, checkpoint=path, checkpoint_every=5, callback=fill_disk,
                    **{run!r})
except OutputError as exc:
    print("OutputError", exc.path)
    print(exc)
else:
    print("no error")
"""


def _run_child(path: Path, *, full_at: int, limit: int) -> list[str]:
    code = _CHILD.format(
        tests=str(Path(__file__).parent), path=str(path), full_at=full_at, limit=limit, run=RUN
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_full_disk_when_the_draws_file_is_made(tmp_path) -> None:
    """The draws file's blocks are reserved up front: no room is an error before any sweep
    (not a SIGBUS later), naming the file, and nothing is left under its name."""
    path = tmp_path / "run.ckpt"
    out = _run_child(path, full_at=0, limit=1000)
    assert out[0] == f"OutputError {path.with_name('run.ckpt.draws.npy')}", out
    assert "cannot reserve" in out[1]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".run.ckpt.lock"]


def test_full_disk_mid_run_keeps_the_last_good_checkpoint(small_data, tmp_path) -> None:
    """The disk fills after the checkpoint of sweep 5: the save at sweep 10 fails with an
    OutputError naming the checkpoint; the one of sweep 5 stays and resumes exactly."""
    path = tmp_path / "run.ckpt"
    out = _run_child(path, full_at=6, limit=1000)
    assert out[0] == f"OutputError {path}", out
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".run.ckpt.lock", "run.ckpt", "run.ckpt.draws.npy",
    ]  # fmt: skip
    with np.load(path) as f:
        import json

        assert json.loads(str(f["meta"]))["sweep"] == 5
    reference = _values(sample_pg_gibbs(small_data, seed=5, **RUN))
    resumed = sample_pg_gibbs(small_data, seed=5, checkpoint=path, **RUN)
    assert resumed.attrs["resumed"] and _same(_values(resumed), reference)


# ----------------------------------------------------------------------------- values


@pytest.mark.parametrize("prior_sd", [1e-200, 1e200, 1e-31, 1e31])
def test_extreme_prior_sd_is_refused_up_front(small_data, prior_sd) -> None:
    data = SGNSData(4, [0, 1, 2], [1, 2, 3], [3, 3, 3], [1, 2, 0])
    with pytest.raises(SGNSDataError, match="prior_sd .* outside the supported range"):
        data.stan_data(2, prior_sd=prior_sd)
    raw = {**small_data, "lambda": prior_sd}
    for method in ("pg-gibbs", "nuts"):
        with pytest.raises((SGNSDataError, StanDataError), match="lambda"):
            bayeswe.fit("sgns_identified", raw, method=method, seed=1)


def test_prior_sd_at_the_edges_of_the_range_runs(small_data) -> None:
    for prior_sd in (1e-30, 1e30):
        idata = sample_pg_gibbs({**small_data, "lambda": prior_sd}, seed=1, **RUN)
        assert np.isfinite(idata.sample_stats["lp"].values).all()


@pytest.mark.parametrize("scale", [1e155, 1e31])
def test_extreme_embeddings_are_refused(make_tiny, scale) -> None:
    data = make_tiny()
    with pytest.raises(GaussianLDADataError, match="embedding.* outside the supported range"):
        GaussianLDAData(
            data.corpus, data.embeddings * scale, n_topics=2, mu0=np.zeros(2), Psi=np.eye(2)
        )


@pytest.mark.parametrize(("name", "value"), [("alpha", 1e-200), ("beta", 1e200)])
def test_extreme_lda_priors_are_refused(name, value) -> None:
    corpus = BagOfWords.from_token_ids([[0, 1], [1, 2]], Vocabulary(("a", "b", "c")))
    with pytest.raises(LDADataError, match=f"{name} .* outside the supported range"):
        LDAData(corpus, 2, **{name: value})


@pytest.mark.parametrize("scale", [1e31, 1e155])
def test_extreme_initial_values_are_refused(small_data, scale) -> None:
    rho = np.full((8, 2), scale)
    alpha = np.zeros((8, 2))
    with pytest.raises(ValueError, match="initial max \\|rho\\|"):
        sample_pg_gibbs(small_data, seed=1, init={"rho": rho, "alpha": alpha}, chains=1)
    with pytest.raises(ValueError, match="NaN"):
        sample_pg_gibbs(small_data, seed=1, init={"rho": rho * np.nan, "alpha": alpha}, chains=1)


def test_a_far_but_allowed_start_gives_finite_draws(small_data) -> None:
    """From 1e30 the PG draws meet |z| ~ 1e60 (polyagamma's samplers never return or
    return wrong means there; see ``bayeswe.kernels.pg_gibbs.pg_method``): the chain's
    log density stays finite and climbs back towards the posterior."""
    rho = np.full((8, 2), 1e30)
    alpha = rho.copy()
    alpha[6:] = small_data["fixed_alpha"]
    idata = sample_pg_gibbs(
        small_data, seed=1, chains=1, iter_warmup=0, iter_sampling=6,
        init={"rho": rho, "alpha": alpha},
    )  # fmt: skip
    lp = idata.sample_stats["lp"].values[0]
    assert np.isfinite(lp).all() and np.all(np.diff(lp) > 0)


def test_data_without_pairs_or_tokens_is_an_error_for_every_method(small_data) -> None:
    empty = SGNSData(4, [], [], [], [])
    with pytest.raises(SGNSDataError, match="no \\(target, context\\) pairs"):
        empty.stan_data(2)
    raw = {
        **small_data,
        "P": 0,
        "target_word": [],
        "context_word": [],
        "n": [],
        "n_pos": [],
    }
    for method in ("nuts", "advi", "map", "pg-gibbs"):
        with pytest.raises((StanDataError, SGNSDataError), match="no \\(target, context\\) pairs"):
            bayeswe.fit("sgns_identified", raw, method=method, seed=1)
    lda = {"D": 2, "V": 3, "K": 2, "N": 2, "doc": [1, 2], "word": [1, 2], "count": [0, 0],
           "alpha": [0.5, 0.5], "beta": 0.1}  # fmt: skip
    with pytest.raises(StanDataError, match="no tokens"):
        bayeswe.fit("lda", lda, method="nuts", seed=1)


# ------------------------------------------------------------------- interrupts, crashes

_SIGNAL_CHILD = """
import signal, sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from conftest import identified_data
from bayeswe.samplers.pg_gibbs import sample_pg_gibbs

data = identified_data(8, 2, 3000, seed=3)
# A job started with & by a non-interactive shell (CI scripts, nohup) inherits SIGINT
# ignored, and Python then installs no KeyboardInterrupt handler: put back the one an
# interactive Ctrl-C meets.
signal.signal(signal.SIGINT, signal.default_int_handler)

def stop(done):
    if done == 12:
        # raise() delivers to this (the main) thread before it returns, so the handler
        # runs inside this callback
        signal.raise_signal(signal.{signal})

sample_pg_gibbs(data, seed=5, checkpoint=Path({path!r}), checkpoint_every=5, callback=stop,
                **{run!r})
print("not stopped")
"""


@pytest.mark.parametrize(("sig", "returncode"), [("SIGINT", -2), ("SIGKILL", -9)])
def test_a_run_stopped_by_a_signal_resumes_to_the_uninterrupted_draws(
    tmp_path: Path, sig: str, returncode: int, make_data: Any
) -> None:
    """Ctrl-C (KeyboardInterrupt) or a kill -9 at sweep 12: the checkpoint of sweep 10 is
    intact, the lock is free again, and resuming gives the draws of an uninterrupted run.
    (Python ends an uncaught KeyboardInterrupt by SIGINT itself: status -2.)"""
    path = tmp_path / "run.ckpt"
    code = _SIGNAL_CHILD.format(
        tests=str(Path(__file__).parent), path=str(path), signal=sig, run=RUN
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == returncode, done.stderr[-2000:]
    assert "not stopped" not in done.stdout
    if sig == "SIGINT":
        # the interrupt passes on, with a note saying what the checkpoint holds
        last = done.stderr.rstrip().splitlines()[-2:]
        assert last[0] == "KeyboardInterrupt", last
        assert last[1].startswith("pg-gibbs: interrupted; checkpoint ") and "holds sweep" in last[1]
    data = make_data(8, 2, 3000, seed=3)
    resumed = sample_pg_gibbs(data, seed=5, checkpoint=path, checkpoint_every=5, **RUN)
    assert resumed.attrs["resumed"]
    straight = sample_pg_gibbs(data, seed=5, **RUN)
    assert _same(_values(resumed), _values(straight))
