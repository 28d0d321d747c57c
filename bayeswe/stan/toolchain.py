"""Find or build a CmdStan installation, and compile Stan programs with a cache.

A real CmdStan (``$CMDSTAN``, then the newest ``~/.cmdstan/cmdstan-*``) takes
precedence. Without one, bayeswe builds a *CmdStan-compatible installation* from
the Stan 2.35.0 C++ library, ``stanc`` and ``libtbb`` shipped in the httpstan
4.13.0 wheel, plus bayeswe's own command-line program (``cpp/``), into
``<cache>/cmdstan-2.35.0-bayeswe``; cmdstanpy is then pointed at it.

The cache directory is ``$BAYESWE_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/bayeswe`` or ``~/.cache/bayeswe``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cmdstanpy

from bayeswe.errors import StanCompileError, ToolchainError
from bayeswe.paths import cache_dir
from bayeswe.stan.source import read_stan_source

STAN_VERSION = "2.35.0"
HTTPSTAN_VERSION = "4.13.0"
INSTALL_NAME = f"cmdstan-{STAN_VERSION}-bayeswe"
STAMP_FILE = "bayeswe-toolchain.json"

_CPP_DIR = Path(__file__).parent / "cpp"
_MAKEFILE_TEMPLATE = Path(__file__).parent / "makefile.in"


@dataclass(frozen=True)
class Toolchain:
    """The CmdStan installation in use.

    Attributes
    ----------
    kind
        ``"real"`` for a CmdStan installed by the user, ``"bundled"`` for the
        one bayeswe builds from the httpstan wheel.
    path
        Its directory (what ``cmdstanpy.set_cmdstan_path`` receives).
    version
        CmdStan version, e.g. ``"2.35.0"``.
    toolchain_id
        Changes whenever compiled models must be rebuilt (part of their cache key).
    """

    kind: str
    path: Path
    version: str
    toolchain_id: str

    def as_dict(self) -> dict[str, str]:
        return {
            "kind": self.kind,
            "path": str(self.path),
            "version": self.version,
            "toolchain_id": self.toolchain_id,
        }


_current: Toolchain | None = None


def _httpstan_dir() -> Path:
    # Located without importing httpstan: importing it pulls in its web server.
    spec = importlib.util.find_spec("httpstan")
    if spec is None or spec.origin is None:
        raise ToolchainError(
            f"httpstan=={HTTPSTAN_VERSION} is not installed; it carries the Stan C++ library "
            f"(pip install httpstan=={HTTPSTAN_VERSION})."
        )
    found = importlib.metadata.version("httpstan")
    if found != HTTPSTAN_VERSION:
        raise ToolchainError(
            f"bayeswe's bundled toolchain needs httpstan=={HTTPSTAN_VERSION} "
            f"(Stan {STAN_VERSION}); found httpstan {found}."
        )
    return Path(spec.origin).parent


def _cmdstan_version(path: Path) -> str | None:
    makefile = path / "makefile"
    if not makefile.is_file():
        return None
    for line in makefile.read_text(errors="replace").splitlines():
        if line.startswith("CMDSTAN_VERSION :="):
            return line.split(":=", 1)[1].strip()
    return None


def find_real_cmdstan() -> Path | None:
    """A user-installed CmdStan, found as cmdstanpy finds it, or None."""
    env = os.environ.get("CMDSTAN")
    if env:
        path = Path(env).expanduser()
        if _cmdstan_version(path) and not (path / STAMP_FILE).exists():
            return path
        return None
    home = Path.home() / ".cmdstan"
    if home.is_dir():

        def version_key(p: Path) -> tuple[int, ...]:
            digits = p.name.removeprefix("cmdstan-").split("-")[0].split(".")
            return tuple(int(d) for d in digits if d.isdigit())

        candidates = [
            p
            for p in home.glob("cmdstan-*")
            if _cmdstan_version(p) and not (p / STAMP_FILE).exists()
        ]
        if candidates:
            return max(candidates, key=version_key)
    return None


def _bundled_id() -> str:
    """Hash of everything that goes into the bundled installation.

    The wheel's location is not part of it: the installation holds copies of
    what it needs, so it outlives the virtual environment it was built from.
    """
    h = hashlib.sha256()
    h.update(STAN_VERSION.encode())
    h.update(HTTPSTAN_VERSION.encode())
    h.update(_compiler().encode())
    for f in sorted(_CPP_DIR.glob("*")) + [_MAKEFILE_TEMPLATE]:
        if f.is_file():
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return "bayeswe-" + h.hexdigest()[:16]


def _compiler() -> str:
    return os.environ.get("CXX", "g++")


def bundled_path() -> Path:
    return cache_dir() / INSTALL_NAME


def _read_stamp(path: Path) -> dict[str, str]:
    try:
        return json.loads((path / STAMP_FILE).read_text())
    except (OSError, ValueError):
        return {}


@contextlib.contextmanager
def _lock(name: str) -> Iterator[None]:
    """Inter-process lock, so concurrent first uses build things only once."""
    path = cache_dir() / f".{name}.lock"
    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        fh = open(path, "a")  # noqa: SIM115 - closed below, after the unlock
    except OSError as exc:
        raise ToolchainError(
            f"cannot build into the cache {cache_dir()} (lock file {path}: {exc.strerror}); "
            "make it writable or point BAYESWE_CACHE_DIR at a writable directory"
        ) from exc
    with fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def build_bundled(
    *, force: bool = False, progress: Callable[[str], None] | None = None, jobs: int = 2
) -> Path:
    """Build (or reuse) the CmdStan-compatible installation from the httpstan wheel.

    The installation is assembled in a temporary directory and renamed into
    place only when complete, so an interrupted build leaves nothing behind.

    Parameters
    ----------
    force
        Rebuild even if an up-to-date installation exists.
    progress
        Called with each line of build output (``None``: silent).
    jobs
        Parallel compile jobs (``make -j``).
    """
    httpstan_dir = _httpstan_dir()
    toolchain_id = _bundled_id()
    target = bundled_path()
    # A complete installation is used without the lock, so that a read-only shared
    # cache (a cluster's software directory) works: the lock is only taken to build.
    if not force and _read_stamp(target).get("toolchain_id") == toolchain_id:
        return target
    with _lock("toolchain"):
        if not force and _read_stamp(target).get("toolchain_id") == toolchain_id:
            return target
        say = progress or (lambda line: None)
        tmp = target.with_name(target.name + f".tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            _assemble(tmp, httpstan_dir, toolchain_id)
            say(f"Building {INSTALL_NAME} in {target} (a few minutes, once) ...")
            _run_make(tmp, ["-j", str(jobs), "build"], say)
            (tmp / STAMP_FILE).write_text(
                json.dumps(
                    {
                        "toolchain_id": toolchain_id,
                        "stan_version": STAN_VERSION,
                        "httpstan": str(httpstan_dir),
                    },
                    indent=2,
                )
            )
            old = target.with_name(target.name + f".old-{os.getpid()}")
            if target.exists():
                target.rename(old)
            tmp.rename(target)
            shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        say(f"Done: {target}")
        return target


def _assemble(root: Path, httpstan_dir: Path, toolchain_id: str) -> None:
    for sub in ("bin", "build", "src", "lib"):
        (root / sub).mkdir(parents=True)
    shutil.copy2(httpstan_dir / "stanc", root / "bin" / "stanc")
    (root / "bin" / "stanc").chmod(0o755)
    # Headers and libraries are copied (about 190 MB) so that the installation
    # and the models compiled with it outlive the virtual environment holding
    # httpstan: a new environment or a fresh CI clone reuses them.
    for lib in (httpstan_dir / "lib").iterdir():
        shutil.copy2(lib, root / "lib" / lib.name, follow_symlinks=True)
    shutil.copytree(httpstan_dir / "include", root / "include", symlinks=True)
    # The wheel's rapidjson 1.1.0 misreads some JSON numbers that CmdStan's
    # newer copy reads right; cpp/rapidjson_strtod.hpp replaces that conversion.
    strtod = root / "include" / "rapidjson" / "internal" / "strtod.h"
    strtod.rename(strtod.with_name("strtod_rapidjson_1_1_0.h"))
    shutil.copy2(_CPP_DIR / "rapidjson_strtod.hpp", strtod)
    for src in _CPP_DIR.iterdir():
        if src.suffix in {".cpp", ".hpp"}:
            shutil.copy2(src, root / "src" / src.name)
    (root / "build" / "stan_pch.hpp").write_text("#include <stan/model/model_header.hpp>\n")
    makefile = (
        _MAKEFILE_TEMPLATE.read_text()
        .replace("@HTTPSTAN_VERSION@", HTTPSTAN_VERSION)
        .replace("@TOOLCHAIN_ID@", toolchain_id)
        .replace("@CXX@", _compiler())
    )
    (root / "makefile").write_text(makefile)


@contextlib.contextmanager
def _process_group(cmd: list[str], **popen: Any) -> Iterator[subprocess.Popen[str]]:
    """``Popen(cmd)`` in a session of its own, killed with all its children on exit.

    A compile is ``make`` -> ``stanc``, ``g++`` -> ``cc1plus``: killing ``make`` alone
    (or nothing, as cmdstanpy does on Ctrl-C) leaves the compilers running. The group
    is terminated when the block ends with the process still running, for any
    reason (Ctrl-C in the parent included: the group does not get the terminal's
    SIGINT, so the parent must stop it). SIGTERM to the parent, whose default action
    would end it at once and skip that clean-up, exits with status 143 after it.
    """
    proc = subprocess.Popen(cmd, start_new_session=True, text=True, **popen)
    try:
        with _exit_on_sigterm():
            yield proc
    finally:
        if proc.poll() is None:
            _kill_group(proc)


@contextlib.contextmanager
def _exit_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into ``SystemExit(143)`` in this block, so ``finally`` clauses run.

    Only where Python can install a handler (the main thread) and only over the default
    disposition: a handler the application installed is left alone.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return

    def terminate(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    """SIGTERM to the process group of ``proc`` (its session leader), SIGKILL after 5 s."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        # the leader is gone; the rest of its group (compilers) may not be yet
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        break


def _run_make(cwd: Path, args: list[str], say: Callable[[str], None]) -> None:
    cmd = [os.environ.get("MAKE", "make"), *args]
    with _process_group(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as proc:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("---"):
                say(line.rstrip())
        returncode = proc.wait()
    if returncode != 0:
        raise ToolchainError(
            f"Building the bundled CmdStan failed ({' '.join(cmd)} in {cwd}):\n"
            + "".join(lines[-60:])
        )


def ensure_cmdstan(progress: Callable[[str], None] | None = None) -> Path:
    """Return the CmdStan directory in use, building the bundled one if needed.

    Also points cmdstanpy at it (``cmdstanpy.set_cmdstan_path``).
    """
    return current(progress).path


def current(progress: Callable[[str], None] | None = None) -> Toolchain:
    """The toolchain in use (found, or built on first use)."""
    global _current
    if _current is not None and _current.path.is_dir():
        return _current
    real = find_real_cmdstan()
    if real is not None:
        version = _cmdstan_version(real) or "unknown"
        tc = Toolchain("real", real, version, f"cmdstan-{version}-{real}")
    else:
        path = build_bundled(progress=progress)
        tc = Toolchain("bundled", path, STAN_VERSION, _read_stamp(path)["toolchain_id"])
    cmdstanpy.set_cmdstan_path(str(tc.path))
    _current = tc
    return tc


def toolchain_info() -> dict[str, str]:
    """kind / path / version / toolchain_id of the toolchain in use."""
    return current().as_dict()


def model_cache_key(stan_file: Path, toolchain: Toolchain) -> str:
    h = hashlib.sha256()
    h.update(stan_file.read_bytes())
    h.update(toolchain.toolchain_id.encode())
    return h.hexdigest()[:20]


def compile_model(stan_file: str | Path) -> cmdstanpy.CmdStanModel:
    """Compile a Stan program, reusing a cached executable when the source is unchanged.

    Executables live in ``<cache>/models/<name>-<hash>/``, keyed by a hash of
    the Stan source and of the toolchain, so an edited program recompiles and
    an unchanged one does not. (Programs with ``#include`` are keyed on the
    main file only.)

    Raises
    ------
    StanSourceError
        The file is empty or not UTF-8 text (nothing is compiled).
    StanCompileError
        stanc or the C++ compiler rejected the program; ``stan_message`` holds
        their output.
    """
    stan_file = Path(stan_file)
    read_stan_source(stan_file)  # empty or not UTF-8: refused before any compile
    tc = current()
    name = stan_file.stem
    final = cache_dir() / "models" / f"{name}-{model_cache_key(stan_file, tc)}"
    exe = final / name
    if not _usable_executable(exe):
        with _lock("models"):
            if not _usable_executable(exe):
                # a missing or empty executable (a crash, a full disk, a cleaned-up
                # cache) is rebuilt once from the program
                shutil.rmtree(final, ignore_errors=True)
                _compile_into(stan_file, final)
        if not _usable_executable(exe):
            raise ToolchainError(f"compiling {stan_file} left no usable executable at {exe}")
    return cmdstanpy.CmdStanModel(stan_file=str(final / stan_file.name), exe_file=str(exe))


def _usable_executable(exe: Path) -> bool:
    try:
        st = exe.stat()
    except OSError:
        return False
    return exe.is_file() and st.st_size > 0 and os.access(exe, os.X_OK)


#: cmdstanpy's compile, run by :func:`_compile_with_cmdstanpy` in a child process.
_COMPILE_SCRIPT = """
import logging
import os
import shutil
import signal
import sys
import threading
import time
import cmdstanpy

orphaned = threading.Event()

def stop_when_orphaned(parent, workdir):
    # The parent killed outright (SIGKILL, OOM) cannot stop this process group: it does
    # so itself, and removes the half-built directory the parent would have removed.
    while os.getppid() == parent:
        time.sleep(0.5)
    orphaned.set()
    os.killpg(0, signal.SIGTERM)  # this process ignores it (on_sigterm)
    time.sleep(1.0)
    shutil.rmtree(workdir, ignore_errors=True)
    os._exit(1)

def on_sigterm(signum, _frame):
    if not orphaned.is_set():  # the parent stopping the group
        os._exit(128 + signum)

signal.signal(signal.SIGTERM, on_sigterm)
watcher = threading.Thread(
    target=stop_when_orphaned, args=(int(sys.argv[3]), os.path.dirname(sys.argv[2])), daemon=True
)
watcher.start()
logging.getLogger("cmdstanpy").disabled = True  # the parent shows the failure, if any
cmdstanpy.set_cmdstan_path(sys.argv[1])
try:
    cmdstanpy.CmdStanModel(stan_file=sys.argv[2])
except ValueError as exc:
    sys.stderr.write(str(exc))
    sys.exit(3)
finally:
    if orphaned.is_set():
        watcher.join()  # it ends the process once the directory is gone
"""


def _compile_with_cmdstanpy(stan_file: Path, copy: Path) -> None:
    """Compile ``copy`` (of ``stan_file``) as cmdstanpy does, in a process group of its own.

    In-process, cmdstanpy leaves ``make`` and the compilers running when Ctrl-C
    interrupts it; here the whole group is stopped (:func:`_process_group`) and the
    ``KeyboardInterrupt`` goes on; SIGTERM likewise, and a parent killed outright is
    noticed by the child, which stops its group itself. cmdstanpy's log of the compile
    is kept for a failure.
    """
    cmd = [sys.executable, "-c", _COMPILE_SCRIPT, str(current().path), str(copy), str(os.getpid())]
    with _process_group(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        _out, err = proc.communicate()
    if proc.returncode == 3:
        raise StanCompileError(f"Stan program {stan_file} did not compile", stan_message=err)
    if proc.returncode != 0:
        raise ToolchainError(
            f"compiling {stan_file} failed (exit status {proc.returncode}): "
            + (err.strip().splitlines() or ["no message"])[-1]
        )


def _compile_into(stan_file: Path, final: Path) -> None:
    tmp = final.with_name(final.name + f".tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        shutil.copy2(stan_file, tmp / stan_file.name)
        _compile_with_cmdstanpy(stan_file, tmp / stan_file.name)
        for leftover in tmp.glob("*.hpp"):
            leftover.unlink()
        tmp.rename(final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
