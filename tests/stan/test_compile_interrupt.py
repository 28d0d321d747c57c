"""Ctrl-C, SIGTERM or SIGKILL during a model compile stops the compiler too, not only bayeswe.

A real compile of a program no cache holds: ``bayeswe fit`` runs in a subprocess,
the signal goes to that process alone (as ``kill`` or a job manager sends it; a
terminal's Ctrl-C would reach the whole foreground group) once ``g++`` is running,
and afterwards no process may still be working on the program and nothing of it is
left in the model cache.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bayeswe.stan import toolchain

pytestmark = [
    pytest.mark.slow,  # a compile must get as far as the C++ compiler
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc"),
]

COMPILERS = ("cc1plus", "g++", "c++", "clang")


def _processes_of(tag: str) -> dict[int, list[str]]:
    """Live processes whose command line mentions ``tag`` (pid -> argv)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if any(tag in arg for arg in argv):
            found[int(entry.name)] = [a for a in argv if a]
    return found


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


#: signal -> (exit status of ``bayeswe``, last line of its stderr or None)
OUTCOMES = {
    signal.SIGINT: (130, "bayeswe: interrupted"),
    signal.SIGTERM: (128 + signal.SIGTERM, None),
    signal.SIGKILL: (-signal.SIGKILL, None),
}


@pytest.mark.parametrize("sig", list(OUTCOMES), ids=lambda s: s.name)
def test_a_signal_during_a_compile_leaves_no_compiler_running(
    tmp_path: Path, sig: signal.Signals
) -> None:
    toolchain.ensure_cmdstan()  # a toolchain build is not what is interrupted here
    tag = f"interrupted_{os.getpid()}_{time.time_ns()}"
    program = tmp_path / f"{tag}.stan"
    program.write_text(f"parameters {{ real y; }}\nmodel {{ y ~ normal(0, 1); }}  // {tag}\n")
    (tmp_path / "data.json").write_text("{}")
    cmd = [sys.executable, "-m", "bayeswe.cli", "fit", str(program), str(tmp_path / "data.json"),
           "--method", "nuts", "--output", str(tmp_path / "fit.nc")]  # fmt: skip
    # A suite started in the background (`make test &`, nohup, some CI runners) has
    # SIGINT ignored, and a child keeps an ignored signal (Python then installs no
    # KeyboardInterrupt handler): give the child the default, as a user's terminal does.
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:

        def compiling() -> bool:
            return any(
                Path(argv[0]).name.startswith(COMPILERS)
                for argv in _processes_of(tag).values()
                if argv
            )

        assert _wait_for(compiling, 240), "the C++ compiler never started"
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    status, last_line = OUTCOMES[sig]
    assert proc.returncode == status, err
    if last_line is not None:
        assert err.strip().splitlines()[-1] == last_line
    stopped = _wait_for(lambda: not _processes_of(tag), 15)
    assert stopped, f"still running after {sig.name}: {_processes_of(tag)}"
    assert not (tmp_path / "fit.nc").exists()
    cleaned = _wait_for(lambda: not list((toolchain.cache_dir() / "models").glob(f"{tag}-*")), 10)
    assert cleaned, list((toolchain.cache_dir() / "models").glob(f"{tag}-*"))
