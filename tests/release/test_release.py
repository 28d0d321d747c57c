"""The release: ``python -m build`` makes an sdist and a wheel that ``twine check`` passes,
and the wheel, installed in a fresh virtual environment, builds the toolchain and fits a
Stan program with no checkout present.

Kept light for ``make test``: the build runs without isolation (setuptools, ``build`` and
``twine`` come from the ``dev`` extra), and the fresh environment takes the wheel's
dependencies from this one's site-packages through a ``.pth`` file instead of downloading
them; bayeswe itself is imported from the wheel only (an editable install of the checkout
is a finder in this environment's site directory, which a ``.pth`` path does not run).
The toolchain and compiled models come from the per-user cache that the rest of the suite
fills (the cache key is the toolchain's and the program's content, not their location).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

# Builds the site / a wheel: the full suite only (`make test`), not `make test-fast`.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
#: What `python -m build` reads: the package, the Stan programs it links to, the metadata.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "bayeswe", "models")


def _version() -> str:
    text = (REPO / "bayeswe" / "_version.py").read_text(encoding="utf-8")
    return re.search(r'__version__ = "([^"]+)"', text).group(1)


def _run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """sdist and wheel built from a copy of the checkout's build inputs (the build writes
    ``*.egg-info`` beside its sources, which must not land in the checkout)."""
    tmp = tmp_path_factory.mktemp("release")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.nbi", "*.nbc")
            shutil.copytree(path, src / name, symlinks=True, ignore=ignore)
        else:
            shutil.copy2(path, src / name)
    out = tmp / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)])
    return out


def test_build_makes_an_sdist_and_a_wheel_that_twine_accepts(dist: Path) -> None:
    version = _version()
    wheel = dist / f"bayeswe-{version}-py3-none-any.whl"
    sdist = dist / f"bayeswe-{version}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in dist.iterdir())
    proc = _run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)])
    assert proc.stdout.count("PASSED") == 2, proc.stdout


def test_the_wheel_and_the_sdist_hold_the_stan_programs_and_the_toolchain_sources(
    dist: Path,
) -> None:
    version = _version()
    needed = {f"bayeswe/models/{p.name}" for p in (REPO / "models").glob("*.stan")}
    needed |= {
        f"bayeswe/stan/{p.relative_to(REPO / 'bayeswe' / 'stan')}"
        for p in (REPO / "bayeswe" / "stan").rglob("*")
        if p.suffix in (".cpp", ".hpp", ".in")
    }
    assert len(needed) > 8
    names = set(zipfile.ZipFile(dist / f"bayeswe-{version}-py3-none-any.whl").namelist())
    assert needed <= names, sorted(needed - names)
    metadata = zipfile.ZipFile(dist / f"bayeswe-{version}-py3-none-any.whl").read(
        f"bayeswe-{version}.dist-info/METADATA"
    )
    assert f"Version: {version}".encode() in metadata
    assert b"bayeswe = bayeswe.cli:main" in zipfile.ZipFile(
        dist / f"bayeswe-{version}-py3-none-any.whl"
    ).read(f"bayeswe-{version}.dist-info/entry_points.txt")
    with tarfile.open(dist / f"bayeswe-{version}.tar.gz") as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert needed <= members, sorted(needed - members)


#: Run inside the fresh environment: bayeswe from the wheel, a Stan program shipped in it.
FIT = """
import json, sys
from importlib.resources import files
import bayeswe
program = files("bayeswe") / "models" / "beta_bernoulli.stan"
y = [1, 0, 0, 1, 0, 0, 0, 0, 0, 0]
idata = bayeswe.fit(str(program), {"N": len(y), "y": y, "a": 1.0, "b": 1.0},
                    method="nuts", seed=1, chains=1, iter_warmup=300, iter_sampling=600)
print(json.dumps({"file": bayeswe.__file__, "version": bayeswe.__version__,
                  "theta": float(idata.posterior["theta"].mean())}))
"""


def test_the_wheel_installs_and_fits_in_a_fresh_environment(dist: Path, tmp_path: Path) -> None:
    version = _version()
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    fresh_site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
        ).stdout.strip()
    )
    # The dependencies: this environment's site-packages, as plain paths.
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (fresh_site / "_bayeswe_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    wheel = dist / f"bayeswe-{version}-py3-none-any.whl"
    # --ignore-installed: the bayeswe that the .pth paths show (an editable install of
    # the checkout) is neither uninstalled nor taken for this one
    _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", "--ignore-installed", "--quiet", str(wheel)]
    )  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    work = tmp_path / "elsewhere"  # no checkout here or above
    work.mkdir()
    bayeswe_cli = venv / "bin" / "bayeswe"
    assert bayeswe_cli.is_file()
    _run([str(bayeswe_cli), "toolchain", "build"], cwd=work, env=env, timeout=1800)
    proc = _run([str(python), "-c", FIT], cwd=work, env=env, timeout=1800)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(result["file"]).is_relative_to(fresh_site), result["file"]
    assert result["version"] == version
    # Beta(1 + 2, 1 + 8): posterior mean 0.25, sd 0.12; 600 draws put the mean within 0.05
    assert abs(result["theta"] - 0.25) < 0.05, result
