"""Output files: whole or not at all, readable by others as the umask says, symlinks kept.

The failure cases run the real writers (h5netcdf/h5py for NetCDF) in a child process
under a file-size limit (``RLIMIT_FSIZE``): the kernel refuses to grow the file
(``EFBIG``) exactly where a full disk would refuse it (``ENOSPC``).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import arviz as az
import numpy as np
import pytest

from bayeswe.atomic import netcdf_bytes, write_netcdf_atomic, write_text_atomic
from bayeswe.errors import OutputError

REPO = Path(__file__).resolve().parents[1]


def _idata() -> az.InferenceData:
    rng = np.random.default_rng(0)
    return az.from_dict(
        posterior={"x": rng.normal(size=(4, 500, 50)), "k": rng.integers(0, 9, size=(4, 500))},
        sample_stats={"lp": rng.normal(size=(4, 500))},
        attrs={"method": "test"},
    )


@pytest.fixture
def umask() -> object:
    """Set the umask for a test and restore it afterwards."""
    old = os.umask(0o022)
    os.umask(old)

    def set_mask(mask: int) -> None:
        os.umask(mask)

    yield set_mask
    os.umask(old)


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_new_files_get_the_umask_permissions(tmp_path: Path, umask, mask: int) -> None:
    """As ``open(path, "w")`` would give: 0666 without the umask's bits (not 0600)."""
    umask(mask)
    text = write_text_atomic(tmp_path / "a" / "report.md", "x")
    nc = write_netcdf_atomic(_idata(), tmp_path / "fit.nc")
    for path in (text, nc):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path, umask) -> None:
    umask(0o022)
    path = tmp_path / "results.json"
    path.write_text("old")
    path.chmod(0o640)
    write_text_atomic(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and path.read_text() == "new"


def test_a_symlink_is_kept_and_its_target_written(tmp_path: Path) -> None:
    target = tmp_path / "store" / "fit.nc"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "fit.nc"
    link.symlink_to(target)
    write_netcdf_atomic(_idata(), link)
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert az.from_netcdf(target).posterior["x"].shape == (4, 500, 50)
    # a dangling link: the file is created where it points
    dangling = tmp_path / "report.md"
    dangling.symlink_to(tmp_path / "store" / "report.md")
    write_text_atomic(dangling, "text")
    assert dangling.is_symlink() and (tmp_path / "store" / "report.md").read_text() == "text"
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == ["fit.nc", "report.md"]


def test_netcdf_round_trip_as_arviz_writes_it(tmp_path: Path) -> None:
    """The in-memory NetCDF reads back as the same InferenceData; numbers are compressed."""
    idata = _idata()
    path = write_netcdf_atomic(idata, tmp_path / "fit.nc")
    back = az.from_netcdf(path)
    assert set(back.groups()) == set(idata.groups())
    for group in idata.groups():
        for name, var in getattr(idata, group).data_vars.items():
            np.testing.assert_array_equal(getattr(back, group)[name].values, var.values)
    assert back.attrs["method"] == "test"
    assert back.posterior["x"].encoding.get("zlib") or back.posterior["x"].encoding.get(
        "compression"
    )
    idata.to_netcdf(str(tmp_path / "by_arviz.nc"))
    ours, theirs = len(netcdf_bytes(idata)), (tmp_path / "by_arviz.nc").stat().st_size
    assert abs(ours - theirs) < 0.02 * theirs  # compressed as arviz compresses
    ds = idata.posterior
    path = write_netcdf_atomic(ds, tmp_path / "posterior.nc")
    import xarray as xr

    with xr.open_dataset(path, engine="h5netcdf") as got:
        np.testing.assert_array_equal(got["x"].values, ds["x"].values)


_LIMITED = textwrap.dedent(
    """
    import resource, sys
    from pathlib import Path
    import arviz as az, numpy as np
    from bayeswe.atomic import write_netcdf_atomic, write_text_atomic
    from bayeswe.errors import OutputError

    idata = az.from_dict(posterior={"x": np.random.default_rng(0).normal(size=(4, 1000, 50))})
    resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, resource.RLIM_INFINITY))
    for write, name in ((lambda p: write_netcdf_atomic(idata, p), "fit.nc"),
                        (lambda p: write_text_atomic(p, "x" * 200_000), "report.md")):
        try:
            write(Path(sys.argv[1]) / name)
        except OutputError as exc:
            print(type(exc).__name__, exc.path, exc, sep="|")
        else:
            print("no error")
    """
)


def test_a_file_size_limit_is_an_output_error_not_a_crash(tmp_path: Path) -> None:
    """NetCDF through HDF5 and plain text past ``ulimit -f``: an OutputError naming the
    file, the previous file kept, no temporary file, and the process ends normally
    (h5py's clean-up used to crash it with SIGSEGV after the error was caught)."""
    (tmp_path / "fit.nc").write_text("the previous fit")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == [
        f"OutputError|{tmp_path / 'fit.nc'}|cannot write {tmp_path / 'fit.nc'}: File too large",
        f"OutputError|{tmp_path / 'report.md'}|cannot write {tmp_path / 'report.md'}: "
        "File too large",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fit.nc"]
    assert (tmp_path / "fit.nc").read_text() == "the previous fit"


def test_an_unwritable_directory_is_an_output_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only directories")
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="cannot write"):
            write_text_atomic(out / "a.txt", "x")
    finally:
        out.chmod(0o700)
