"""The cache of the toolchain and compiled models: damaged entries are rebuilt, read-only works.

Each test works on its own cache directory (``BAYESWE_CACHE_DIR``) holding a link to
the real toolchain installation and a copy of a compiled model, so nothing of the
user's cache is touched and no toolchain is rebuilt.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bayeswe.errors import ToolchainError
from bayeswe.stan import toolchain

REPO = Path(__file__).resolve().parents[2]
BERNOULLI = REPO / "models" / "beta_bernoulli.stan"
DATA = {"N": 10, "y": [0, 1, 0, 0, 0, 0, 0, 0, 0, 1], "a": 1.0, "b": 1.0}


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache: the real toolchain (linked) and a compiled Bernoulli model (copied)."""
    model = toolchain.compile_model(BERNOULLI)
    real = toolchain.current().path
    root = tmp_path / "cache"
    (root / "models").mkdir(parents=True)
    (root / real.name).symlink_to(real, target_is_directory=True)
    model_dir = Path(model.exe_file).parent
    shutil.copytree(model_dir, root / "models" / model_dir.name)
    monkeypatch.setenv("BAYESWE_CACHE_DIR", str(root))
    return root


def _exe(cache: Path) -> Path:
    (model_dir,) = (cache / "models").glob("beta_bernoulli-*")
    return model_dir / "beta_bernoulli"


def _run_bernoulli(cache: Path) -> dict[str, float]:
    """Compile (from the cache) and sample in a fresh process, as a new user session would."""
    code = (
        "import json, sys\n"
        "from bayeswe.stan import toolchain\n"
        f"m = toolchain.compile_model({str(BERNOULLI)!r})\n"
        f"fit = m.sample(data={DATA!r}, chains=1, iter_warmup=200, iter_sampling=400, seed=3,"
        " show_progress=False)\n"
        "print(json.dumps({'exe': m.exe_file, 'mean': float(fit.stan_variable('theta').mean())}))\n"
    )
    env = dict(os.environ, BAYESWE_CACHE_DIR=str(cache))
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("damage", ["empty", "missing"])
def test_a_damaged_cached_executable_is_rebuilt_once(cache: Path, damage: str) -> None:
    exe = _exe(cache)
    if damage == "empty":
        exe.write_bytes(b"")
    else:
        exe.unlink()
    model = toolchain.compile_model(BERNOULLI)
    assert Path(model.exe_file) == exe and exe.stat().st_size > 10_000
    fit = model.sample(data=DATA, chains=1, iter_warmup=200, iter_sampling=400, seed=3)
    # Beta(1 + 2, 1 + 8) posterior: mean 3/12
    assert abs(fit.stan_variable("theta").mean() - 0.25) < 0.05
    mtime = exe.stat().st_mtime_ns
    toolchain.compile_model(BERNOULLI)  # now intact: reused, not rebuilt
    assert exe.stat().st_mtime_ns == mtime


@contextlib.contextmanager
def _read_only(*dirs: Path) -> Iterator[None]:
    """Directories no process may create files in (root ignores modes: it gets chattr +i)."""
    root = os.geteuid() == 0
    for d in dirs:
        if root:
            subprocess.run(["chattr", "+i", str(d)], check=True)
        else:
            d.chmod(0o555)
    try:
        for d in dirs:  # the premise of the test: nothing can be created there
            with pytest.raises(OSError):
                (d / ".probe").touch()
        yield
    finally:
        for d in dirs:
            if root:
                subprocess.run(["chattr", "-i", str(d)], check=True)
            else:
                d.chmod(0o755)


def test_a_read_only_cache_holding_toolchain_and_model_works(cache: Path) -> None:
    model_dir = _exe(cache).parent
    with _read_only(cache, cache / "models", model_dir):
        out = _run_bernoulli(cache)
    assert Path(out["exe"]) == _exe(cache)
    assert abs(out["mean"] - 0.25) < 0.05
    assert not list(cache.glob(".*.lock"))  # no lock was taken


def test_a_read_only_cache_without_the_model_says_why_it_cannot_build(cache: Path) -> None:
    shutil.rmtree(_exe(cache).parent)
    with _read_only(cache, cache / "models"), pytest.raises(ToolchainError) as info:
        toolchain.compile_model(BERNOULLI)
    assert str(cache) in str(info.value) and "BAYESWE_CACHE_DIR" in str(info.value)
