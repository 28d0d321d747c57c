"""``bayeswe fit`` and ``bayeswe summary`` from the shell, for every registered model and a
foreign ``.stan`` file.

Each fit runs ``python -m bayeswe.cli`` in a subprocess on a small JSON data file, and
the netCDF file it writes is read back: the draws kept (``ceil(iter_sampling / thin)``
for every Markov chain method), the names and coords, and what ``bayeswe summary``
prints. Bad arguments are refused in one line with exit status 2 before anything runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np
import pytest

from bayeswe import cli
from bayeswe.cli_fit import build_data, summary_table
from bayeswe.dp import simulate_dp_mixture, simulate_hdp_lda
from bayeswe.glda.simulate import simulate_gaussian_lda
from bayeswe.lda.simulate import simulate_lda
from bayeswe.sgns.simulate import simulate_sgns

REPO = Path(__file__).resolve().parents[2]
NORMAL = REPO / "tests" / "stan_models" / "normal_known_sigma.stan"


def _json(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


@pytest.fixture(scope="module")
def data_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small JSON data file of every registered model and of the normal program."""
    root = tmp_path_factory.mktemp("data")
    lda = simulate_lda(n_docs=6, doc_length=10, n_words=8, n_topics=2, seed=1).data
    glda = simulate_gaussian_lda(n_docs=4, doc_length=6, n_topics=2, dim=2, seed=1)[0]
    sgns = simulate_sgns(6, 2, 2000, seed=1)
    fixed = np.arange(4, 6)
    hdp = simulate_hdp_lda(n_docs=8, doc_length=10, n_words=8, truncation=6, seed=2).data
    mixture = simulate_dp_mixture(n_points=20, dim=2, truncation=8, seed=3).data
    files = {
        "hdp_lda": hdp.to_stan(),
        "dp_mixture": mixture.to_stan(),
        "lda": {**lda.to_stan(), "vocabulary": list(lda.corpus.vocabulary.words)},
        "lda_users_guide": lda.to_stan_tokens(),
        "gaussian_lda": glda.to_stan(),
        "sgns": sgns.data.stan_data(2),
        "sgns_identified": sgns.data.stan_data(2, fixed_index=fixed, fixed_alpha=sgns.alpha[fixed]),
        "normal": {"N": 3, "y": [1.0, 2.0, 0.5], "sigma": 1.0, "m0": 0.0, "s0": 10.0},
    }
    out = {}
    for name, values in files.items():
        out[name] = root / f"{name}.json"
        out[name].write_text(json.dumps({k: _json(v) for k, v in values.items()}))
    return out


def bayeswe(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bayeswe.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=900,
    )


def fit(model: str | Path, data: Path, out: Path, *options: str) -> az.InferenceData:
    done = bayeswe("fit", model, data, "--output", out, *options)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"wrote {out}" in done.stderr.splitlines()[-1]
    return az.from_netcdf(str(out))


# ----------------------------------------------------------------- every registered model


@pytest.mark.slow
def test_lda_cgs_keeps_ceil_of_iter_sampling_over_thin(data_files, tmp_path) -> None:
    out = tmp_path / "lda.nc"
    idata = fit("lda", data_files["lda"], out, "--method", "cgs", "--chains", "2",
                "--iter-warmup", "5", "--iter-sampling", "31", "--thin", "3", "--seed", "1",
                "-o", "algorithm=dense")  # fmt: skip
    post = idata.posterior
    assert dict(post["phi"].sizes) == {"chain": 2, "draw": 11, "topic": 2, "word": 8}
    assert list(post["word"].values) == [f"w{v}" for v in range(8)]
    assert idata.attrs["seed"] == 1 and idata.attrs["algorithm"] == "dense"
    summary = bayeswe("summary", out, "--vars", "theta")
    assert summary.returncode == 0, summary.stderr
    lines = summary.stdout.splitlines()
    assert lines[0] == "Inference for lda by cgs: 2 chain(s), 11 draw(s) each, 22 in all; seed 1."
    assert lines[2].split() == ["Mean", "MCSE", "StdDev", "5%", "50%", "95%", "ESS_bulk", "R_hat"]
    assert lines[3].startswith("theta[0, 0] ")  # --vars: only the variables asked for
    assert sum(line.startswith("theta[") for line in lines) == 6 * 2


@pytest.mark.slow
def test_lda_users_guide_by_stan(data_files, tmp_path) -> None:
    idata = fit("lda_users_guide", data_files["lda_users_guide"], tmp_path / "ug.nc",
                "--method", "nuts", "--chains", "1", "--iter-warmup", "50",
                "--iter-sampling", "20", "--seed", "5")  # fmt: skip
    assert idata.attrs["method"] == "nuts"
    assert dict(idata.posterior["phi"].sizes) == {"chain": 1, "draw": 20, "topic": 2, "word": 8}
    table = summary_table(idata, ["lp__", "phi"])
    assert table.splitlines()[3].startswith("lp__ ")
    assert sum(line.startswith("phi[") for line in table.splitlines()) == 2 * 8


@pytest.mark.slow
def test_gaussian_lda_cgs(data_files, tmp_path) -> None:
    idata = fit("gaussian_lda", data_files["gaussian_lda"], tmp_path / "g.nc",
                "--method", "cgs", "--chains", "1", "--iter-warmup", "3",
                "--iter-sampling", "4", "--seed", "2")  # fmt: skip
    assert dict(idata.posterior["mu"].sizes) == {"chain": 1, "draw": 4, "topic": 2, "dim": 2}
    assert idata.attrs["iter_sampling"] == 4 and idata.attrs["iter_warmup"] == 3


@pytest.mark.slow
def test_hdp_lda_cgs_with_a_start_per_chain(data_files, tmp_path) -> None:
    idata = fit("hdp_lda", data_files["hdp_lda"], tmp_path / "h.nc", "--method", "cgs",
                "--chains", "2", "--iter-warmup", "3", "--iter-sampling", "4", "--thin", "1",
                "--seed", "2", "-o", "initial_topics=[1, 5]")  # fmt: skip
    assert dict(idata.posterior["n_topics"].sizes) == {"chain": 2, "draw": 4}
    assert json.loads(idata.attrs["initial_topics"]) == [1, 5]


@pytest.mark.slow
def test_dp_mixture_cgs(data_files, tmp_path) -> None:
    idata = fit("dp_mixture", data_files["dp_mixture"], tmp_path / "d.nc", "--method", "cgs",
                "--chains", "1", "--iter-warmup", "3", "--iter-sampling", "4",
                "--seed", "2")  # fmt: skip
    assert dict(idata.posterior["n_clusters"].sizes) == {"chain": 1, "draw": 4}


@pytest.mark.slow
def test_sgns_jj_vb(data_files, tmp_path) -> None:
    idata = fit("sgns", data_files["sgns"], tmp_path / "s.nc", "--method", "jj-vb",
                "--iter", "20", "--draws", "10", "--seed", "3")  # fmt: skip
    assert dict(idata.posterior["rho"].sizes) == {"chain": 1, "draw": 10, "word": 6, "dim": 2}
    assert idata.attrs["iter"] == 20 and idata.attrs["wall_time"] > 0


@pytest.mark.slow
def test_sgns_identified_pg_gibbs(data_files, tmp_path) -> None:
    idata = fit("sgns_identified", data_files["sgns_identified"], tmp_path / "p.nc",
                "--method", "pg-gibbs", "--chains", "2", "--iter-warmup", "3",
                "--iter-sampling", "31", "--thin", "3", "-o", "init=prior",
                "--seed", "4")  # fmt: skip
    assert dict(idata.posterior["alpha_free"].sizes) == {
        "chain": 2, "draw": 11, "free_word": 4, "dim": 2,
    }  # fmt: skip


@pytest.mark.slow
def test_a_foreign_stan_file_by_nuts(data_files, tmp_path) -> None:
    out = tmp_path / "n.nc"
    idata = fit(NORMAL, data_files["normal"], out, "--method", "nuts", "--chains", "2",
                "--iter-warmup", "200", "--iter-sampling", "301", "--thin", "3", "--seed", "6",
                "--dims", '{"log_lik": ["obs"]}')  # fmt: skip
    assert dict(idata.posterior["log_lik"].sizes) == {"chain": 2, "draw": 101, "obs": 3}
    # conjugate posterior of mu: mean 3.5 / 3.01, sd 3.01 ** -0.5 (0.58); 202 draws
    assert abs(float(idata.posterior["mu"].mean()) - 3.5 / 3.01) < 0.3
    summary = bayeswe("summary", out)
    assert summary.returncode == 0, summary.stderr
    rows = {line.split()[0]: line.split()[1:] for line in summary.stdout.splitlines()[3:] if line}
    assert "lp__" in rows and "mu" in rows and "log_lik[0]" in rows
    assert abs(float(rows["mu"][0]) - 3.5 / 3.01) < 0.3
    assert float(rows["mu"][2]) == pytest.approx(3.01**-0.5, rel=0.3)  # StdDev


# ----------------------------------------------------------------- refused before running


def test_lda_json_becomes_the_data_object_of_the_samplers(data_files) -> None:
    from bayeswe.lda import LDAData

    stan = json.loads(data_files["lda"].read_text())
    data = build_data("lda", "cgs", stan)
    assert isinstance(data, LDAData) and data.n_topics == 2
    again = data.to_stan()
    for key in ("doc", "word", "count"):
        np.testing.assert_array_equal(again[key], stan[key])
    assert build_data("lda", "nuts", stan) is stan


def test_hdp_lda_and_dp_mixture_json_become_the_data_objects_of_their_samplers(
    data_files,
) -> None:
    from bayeswe.dp import DPMixtureData, HDPLDAData

    for model, cls in (("hdp_lda", HDPLDAData), ("dp_mixture", DPMixtureData)):
        stan = json.loads(data_files[model].read_text())
        data = build_data(model, "cgs", stan)
        assert isinstance(data, cls), model
        for key, value in data.to_stan().items():  # every field back as it was
            np.testing.assert_array_equal(value, stan[key], err_msg=f"{model} {key}")
        assert build_data(model, "nuts", stan) is stan


def _bad(data_files: dict[str, Path], tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    lda, out = str(data_files["lda"]), str(tmp_path / "x.nc")
    common = [lda, "--output", out]
    return {
        "unknown method": (["fit", "lda", *common, "--method", "hmc"], "--method must be one of"),
        "unknown model": (["fit", "nosuch", *common, "--method", "nuts"], "unknown model"),
        "sampler for another model": (
            ["fit", "lda", *common, "--method", "pg-gibbs"], "is for model(s) sgns_identified",
        ),
        "no such program": (["fit", "none.stan", *common, "--method", "nuts"], "not found"),
        "sampler for a program": (
            ["fit", str(NORMAL), *common, "--method", "cgs"], "registered models only",
        ),
        "bad thin": (["fit", "lda", *common, "--method", "cgs", "--thin", "0"], "thin must be"),
        "unknown option": (
            ["fit", "lda", *common, "--method", "cgs", "-o", "adapt_delta=0.9"],
            "does not take option(s) adapt_delta",
        ),
        "malformed option": (["fit", "lda", *common, "--method", "cgs", "-o", "x"], "NAME=VALUE"),
        "chains of an optimiser": (
            ["fit", "lda", *common, "--method", "cavi", "--chains", "2"], "--chains must be 1",
        ),
        "bad seed": (["fit", "lda", *common, "--method", "cgs", "--seed", "-1"], "seed"),
        "missing data file": (
            ["fit", "lda", "no.json", "--output", out, "--method", "cgs"], "cannot read",
        ),
        "data of another model": (
            ["fit", "sgns", *common, "--method", "jj-vb"], "data field(s) missing",
        ),
        "dims of a registered model": (
            ["fit", "lda", *common, "--method", "nuts", "--dims", "{}"], ".stan file only",
        ),
        "no fit file": (["summary", str(tmp_path / "none.nc")], "no such fit file"),
        "not a fit file": (["summary", lda], "is not a netCDF file"),
    }  # fmt: skip


def test_bad_arguments_exit_2_in_one_line(data_files, tmp_path, capsys) -> None:
    for name, (argv, message) in _bad(data_files, tmp_path).items():
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2, name
        assert len(err.splitlines()) == 1 and err.startswith("bayeswe: error: "), (name, err)
        assert message in err, (name, err)
        assert not (tmp_path / "x.nc").exists()


def test_a_bad_argument_from_the_shell(data_files, tmp_path) -> None:
    done = bayeswe("fit", "lda", data_files["lda"], "--method", "cgs", "--iter-sampling", "0",
                   "--output", tmp_path / "x.nc")  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "bayeswe: error: fit: iter_sampling must be >= 1, got 0\n"
