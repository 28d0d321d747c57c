"""The Numba cache of bayeswe's kernels is keyed by their source, not by the checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bayeswe
from bayeswe.kernels import lda_cgs
from bayeswe.kernels.cache import kernel_cache_dir, source_digest
from bayeswe.paths import cache_dir

PACKAGE = Path(bayeswe.__file__).resolve().parent

# Calls one cached kernel in a fresh interpreter and prints the cache's hits and misses.
_CALL = """
import numpy as np
from bayeswe.kernels import lda_cgs
assert lda_cgs.__file__.startswith({root!r}), lda_cgs.__file__
tok_ptr, word, z = np.array([0, 3]), np.array([0, 1, 0]), np.array([0, 1, 1])
n_dk, n_wk, n_k = np.zeros((1, 2), np.int64), np.zeros((2, 2), np.int64), np.zeros(2, np.int64)
lda_cgs.counts_from_assignments(tok_ptr, word, z, n_dk, n_wk, n_k)
assert n_k.tolist() == [1, 2]
stats = lda_cgs.counts_from_assignments.stats
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
"""


def _copy_package(to: Path) -> Path:
    shutil.copytree(PACKAGE, to / "bayeswe", ignore=shutil.ignore_patterns("__pycache__"))
    return to


def _hits_and_misses(root: Path, cache: Path) -> tuple[int, int]:
    env = {**os.environ, "PYTHONPATH": str(root), "BAYESWE_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", _CALL.format(root=str(root))],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    hits, misses = done.stdout.split()
    return int(hits), int(misses)


def test_kernels_live_in_the_cache_directory_of_their_source() -> None:
    path = Path(lda_cgs.counts_from_assignments._cache._cache_path)
    assert path.parent == kernel_cache_dir()
    assert kernel_cache_dir().parent == cache_dir() / "numba"
    assert kernel_cache_dir().name == source_digest(PACKAGE / "kernels")


def test_the_digest_follows_every_kernel_module(tmp_path: Path) -> None:
    copy = _copy_package(tmp_path) / "bayeswe" / "kernels"
    assert source_digest(copy) == source_digest(PACKAGE / "kernels")
    common = copy / "glda" / "common.py"
    common.write_text(common.read_text() + "\n# edited\n")
    assert source_digest(copy) != source_digest(PACKAGE / "kernels")


@pytest.mark.slow
def test_a_second_checkout_of_the_same_source_loads_instead_of_compiling(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _copy_package(tmp_path / "first")
    second = _copy_package(tmp_path / "second")
    assert _hits_and_misses(first, cache) == (0, 1)
    assert _hits_and_misses(second, cache) == (1, 0)
    # An edit of another kernel module (one the called kernel does not use) still
    # moves every kernel to a fresh directory: compiled again, not loaded.
    common = second / "bayeswe" / "kernels" / "glda" / "common.py"
    common.write_text(common.read_text() + "\n# edited\n")
    assert _hits_and_misses(second, cache) == (0, 1)
    assert len(list((cache / "numba").iterdir())) == 2
