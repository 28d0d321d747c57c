"""Tests of the bin/stansummary and bin/diagnose utilities.

The two C++ programs (bayeswe/stan/cpp/stansummary.cpp, diagnose.cpp), as the
toolchain builds them into the bundled installation's ``bin/``, are
run on the Stan CSV fixtures in tests/stan/data.  Expected values are
computed here from the fixture draws with numpy, re-implementing Stan's
estimators (order-statistic quantiles, Geyer ESS, split R-hat) in Python so
that the programs are checked against an independent computation.

The fixtures were written by this module; to regenerate them run
``python tests/stan/test_csv_tools.py``.
"""

from __future__ import annotations

import csv
import io
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[2]

NORMAL = [DATA / "normal-1.csv", DATA / "normal-2.csv"]
SAMPLER_COLUMNS = [
    "lp__",
    "accept_stat__",
    "stepsize__",
    "treedepth__",
    "n_leapfrog__",
    "divergent__",
    "energy__",
]
MODEL_NAMES = ["theta", "mu[1]", "mu[2]", "m[2,1]", "c"]

# summarize() mirrors cmdstanpy's read_csv call, deprecated option included
pytestmark = pytest.mark.filterwarnings("ignore:The 'float_precision' argument")


# --------------------------------------------------------------------------
# Building and running the tools


@pytest.fixture(scope="session")
def tools() -> dict[str, Path]:
    """The programs as the toolchain built them from bayeswe/stan/cpp."""
    from bayeswe.stan import toolchain

    bin_dir = toolchain.build_bundled() / "bin"
    return {name: bin_dir / name for name in ("stansummary", "diagnose")}


def run(tool: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([str(tool), *map(str, args)], capture_output=True, text=True)


def summarize(tools, tmp_path, files, *options) -> pd.DataFrame:
    """Run stansummary the way cmdstanpy 1.3.2 does; read its CSV the same way."""
    out = tmp_path / "summary.csv"
    proc = run(
        tools["stansummary"],
        *(options or ("--percentiles= 5,50,95", "--sig_figs=6")),
        f"--csv_filename={out}",
        *files,
    )
    assert proc.returncode == 0, proc.stderr
    with open(out, "rb") as fd:
        return pd.read_csv(
            fd,
            delimiter=",",
            header=0,
            index_col=0,
            comment="#",
            float_precision="high",
        )


def raw_rows(path: Path) -> dict[str, list[str]]:
    """The summary CSV as text cells, to check the printed precision."""
    lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    return {row[0]: row[1:] for row in rows}


# --------------------------------------------------------------------------
# Independent reading of the fixtures and reference statistics


def read_stan_csv(path: Path) -> dict:
    """Header, rows and timing of a Stan CSV file, parsed with plain Python.

    Rows before a '# Adaptation terminated' line are warmup rows; files
    without that line (non-sampling methods) have no warmup.
    """
    names, before, after, adapted, sampling = None, [], [], False, 0.0
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            adapted |= "Adaptation terminated" in line
            m = re.search(r"([0-9.eE+-]+) seconds \(Sampling\)", line)
            sampling += float(m.group(1)) if m else 0.0
        elif line.strip():
            if names is None:
                names = line.split(",")
            else:
                (after if adapted else before).append([float(v) for v in line.split(",")])
    rows = after if adapted else before
    return {
        "names": names,
        "warmup": np.array(before if adapted else []),
        "draws": np.array(rows),
        "sampling_time": sampling,
    }


def column(files, name: str) -> list[np.ndarray]:
    """Per-chain draws of one column of the fixture files."""
    chains = []
    for f in files:
        parsed = read_stan_csv(f)
        chains.append(parsed["draws"][:, parsed["names"].index(name)])
    return chains


def stan_quantile(x: np.ndarray, p: float) -> float:
    """Stan's chains::quantile: an order statistic, no interpolation.

    Lower tail: the ceil(n p)-th smallest draw; upper tail: the
    ceil(n (1 - p))-th largest (boost tail_quantile, cache = all draws).
    """
    s = np.sort(x)
    n = len(s)
    if p < 0.5:
        return s[math.ceil(n * p) - 1]
    return s[n - math.ceil(n * (1.0 - p))]


def autocovariance(x: np.ndarray) -> np.ndarray:
    """Biased (1/N) autocovariance at every lag, computed directly."""
    d = x - x.mean()
    n = len(x)
    return np.array([np.dot(d[: n - k], d[k:]) / n for k in range(n)])


def stan_ess(chains: list[np.ndarray]) -> float:
    """Multi-chain ESS with Geyer's initial monotone sequence (Stan 2.35)."""
    m = len(chains)
    n = min(len(c) for c in chains)
    if n < 4:
        return math.nan
    if all(np.all(c == c[0]) for c in chains):
        return math.nan
    acov = np.array([autocovariance(c) for c in chains])
    means = np.array([c.mean() for c in chains])
    mean_var = np.mean(acov[:, 0] * n / (n - 1))
    var_plus = mean_var * (n - 1) / n + (np.var(means, ddof=1) if m > 1 else 0)
    rho = np.zeros(n)
    rho[0] = even = 1.0
    rho[1] = odd = 1 - (mean_var - acov[:, 1].mean()) / var_plus
    s = 1
    while s < n - 4 and even + odd > 0:
        even = 1 - (mean_var - acov[:, s + 1].mean()) / var_plus
        odd = 1 - (mean_var - acov[:, s + 2].mean()) / var_plus
        if even + odd >= 0:
            rho[s + 1], rho[s + 2] = even, odd
        s += 2
    max_s = s
    if even > 0:
        rho[max_s + 1] = even
    for s in range(1, max_s - 2, 2):
        if rho[s + 1] + rho[s + 2] > rho[s - 1] + rho[s]:
            rho[s + 1] = rho[s + 2] = (rho[s - 1] + rho[s]) / 2
    total = m * n
    tau = -1 + 2 * rho[:max_s].sum() + rho[max_s + 1]
    return min(total / tau, total * math.log10(total))


def split_rhat(chains: list[np.ndarray]) -> float:
    """Gelman-Rubin R-hat on chains split in halves (middle draw dropped)."""
    n = min(len(c) for c in chains)
    half = n // 2
    second = n - half
    halves = [h for c in chains for h in (c[:half], c[second : second + half])]
    if all(np.all(h == halves[0][0]) for h in halves):
        return math.nan
    between = half * np.var([h.mean() for h in halves], ddof=1)
    within = np.mean([np.var(h, ddof=1) for h in halves])
    return math.sqrt((between / within + half - 1) / half)


def ebfmi(energy: np.ndarray) -> float:
    return np.sum(np.diff(energy) ** 2) / np.sum((energy - energy.mean()) ** 2)


def assert_printed(printed: float, expected: float, sig: int = 6) -> None:
    """printed is expected rounded to sig significant digits."""
    if math.isnan(expected):
        assert math.isnan(printed)
        return
    bound = 0.5 * 10 ** (1 - sig) * abs(expected) * 1.0001
    assert abs(printed - expected) <= bound, (printed, expected)


# --------------------------------------------------------------------------
# stansummary


def test_summary_layout(tools, tmp_path):
    df = summarize(tools, tmp_path, NORMAL)
    header = (tmp_path / "summary.csv").read_text().splitlines()[0]
    assert header == "name,Mean,MCSE,StdDev,5%,50%,95%,N_Eff,N_Eff/s,R_hat"
    assert list(df.index) == SAMPLER_COLUMNS + MODEL_NAMES


def test_summary_matches_numpy(tools, tmp_path):
    df = summarize(tools, tmp_path, NORMAL)
    time = sum(read_stan_csv(f)["sampling_time"] for f in NORMAL)
    for name, label in [("theta", "theta"), ("mu.1", "mu[1]"), ("m.2.1", "m[2,1]")]:
        chains = column(NORMAL, name)
        x = np.concatenate(chains)
        row = df.loc[label]
        ess = stan_ess(chains)
        assert_printed(row["Mean"], x.mean())
        assert_printed(row["StdDev"], x.std(ddof=1))
        assert_printed(row["MCSE"], x.std(ddof=1) / math.sqrt(ess))
        assert_printed(row["N_Eff"], ess)
        assert_printed(row["N_Eff/s"], ess / time)
        assert_printed(row["R_hat"], split_rhat(chains))
        for pct in (5, 50, 95):
            q = stan_quantile(x, pct / 100)
            assert_printed(row[f"{pct}%"], q)
            # the same estimand as numpy's, up to the neighbouring draw
            lo = np.quantile(x, pct / 100, method="lower")
            hi = np.quantile(x, pct / 100, method="higher")
            assert lo <= q <= hi


def test_summary_autocorrelated_column_has_lower_ess(tools, tmp_path):
    df = summarize(tools, tmp_path, NORMAL)
    # mu[1] is AR(1) with phi = 0.8 in the fixtures, theta is iid
    assert df.loc["mu[1]", "N_Eff"] < 0.5 * df.loc["theta", "N_Eff"]


def test_summary_sig_figs(tools, tmp_path):
    summarize(tools, tmp_path, NORMAL, "--sig_figs=3", "--percentiles=50")
    cells = raw_rows(tmp_path / "summary.csv")
    mean = cells["theta"][0]
    assert len(mean.lstrip("-").replace(".", "").lstrip("0")) <= 3
    df = summarize(tools, tmp_path, NORMAL, "--sig_figs=12")
    x = np.concatenate(column(NORMAL, "theta"))
    assert_printed(df.loc["theta", "Mean"], x.mean(), sig=12)


def test_summary_rhat_well_mixed_and_shifted(tools, tmp_path):
    mixed = summarize(tools, tmp_path, NORMAL)
    for name in MODEL_NAMES[:-1]:
        assert abs(mixed.loc[name, "R_hat"] - 1) < 0.05
    shifted = summarize(tools, tmp_path, [NORMAL[0], DATA / "shifted-2.csv"])
    assert shifted.loc["theta", "R_hat"] > 2
    assert abs(shifted.loc["mu[2]", "R_hat"] - 1) < 0.05
    assert_printed(
        shifted.loc["theta", "R_hat"],
        split_rhat(column([NORMAL[0], DATA / "shifted-2.csv"], "theta")),
    )


def test_summary_constant_column(tools, tmp_path):
    row = summarize(tools, tmp_path, NORMAL).loc["c"]
    # as in CmdStan, StdDev is chains::sd's rounding noise (0 or ~1e-16)
    assert row["Mean"] == 3 and abs(row["StdDev"]) < 1e-12
    assert row[["MCSE", "N_Eff", "N_Eff/s", "R_hat"]].isna().all()


def test_summary_single_chain(tools, tmp_path):
    df = summarize(tools, tmp_path, NORMAL[:1])
    chain = column(NORMAL[:1], "theta")
    assert_printed(df.loc["theta", "Mean"], chain[0].mean())
    assert_printed(df.loc["theta", "N_Eff"], stan_ess(chain))
    assert_printed(df.loc["theta", "R_hat"], split_rhat(chain))


def test_summary_drops_saved_warmup_of_thinned_run(tools, tmp_path):
    path = DATA / "thinned-1.csv"
    parsed = read_stan_csv(path)
    # 100 warmup iterations thinned by 3 leave 34 rows, all with theta = 100
    assert len(parsed["warmup"]) == 34 and len(parsed["draws"]) == 100
    df = summarize(tools, tmp_path, [path])
    theta = column([path], "theta")[0]
    assert_printed(df.loc["theta", "Mean"], theta.mean())
    assert df.loc["theta", "95%"] < 10


def test_summary_variational_skips_mean_row(tools, tmp_path):
    path = DATA / "variational.csv"
    draws = read_stan_csv(path)["draws"]
    assert draws[0, -1] == 50  # the mean row, deliberately unlike the draws
    df = summarize(tools, tmp_path, [path])
    assert list(df.index) == ["lp__", "log_p__", "log_g__", "theta"]
    assert_printed(df.loc["theta", "Mean"], draws[1:, -1].mean())
    assert_printed(df.loc["theta", "StdDev"], draws[1:, -1].std(ddof=1))
    assert np.isnan(df.loc["theta", "N_Eff/s"])  # no sampling time


def test_summary_optimize_reports_the_estimate(tools, tmp_path):
    path = DATA / "optimize.csv"
    draws = read_stan_csv(path)["draws"]
    df = summarize(tools, tmp_path, [path])
    assert df.loc["theta", "Mean"] == draws[-1, -1]
    assert np.isnan(df.loc["theta", "StdDev"])


def test_summary_pathfinder_uses_all_rows(tools, tmp_path):
    path = DATA / "pathfinder.csv"
    draws = read_stan_csv(path)["draws"]
    df = summarize(tools, tmp_path, [path])
    assert list(df.index) == ["lp_approx__", "lp__", "theta"]
    assert_printed(df.loc["theta", "Mean"], draws[:, -1].mean())


def test_cmdstanpy_row_selection(tools, tmp_path):
    df = summarize(tools, tmp_path, NORMAL)
    mask = [x == "lp__" or not x.endswith("__") for x in df.index]
    assert list(df[mask].index) == ["lp__"] + MODEL_NAMES


@pytest.mark.parametrize(
    "options",
    [
        ["--percentiles= 10,90"],  # one argv token, as cmdstanpy passes it
        ["--percentiles=", "10,90"],
        ["--percentiles=10,90"],
        ["-p", "10,90"],
    ],
)
def test_summary_percentile_spellings(tools, tmp_path, options):
    out = tmp_path / "s.csv"
    proc = run(tools["stansummary"], *options, "-s", "4", "-c", out, *NORMAL)
    assert proc.returncode == 0, proc.stderr
    header = out.read_text().splitlines()[0]
    assert header == "name,Mean,MCSE,StdDev,10%,90%,N_Eff,N_Eff/s,R_hat"


def test_summary_console_table(tools):
    proc = run(tools["stansummary"], *NORMAL)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "Inference for Stan model: normal_model" in text
    assert "2 chains: each with iter=(200,200); warmup=(0,0); thin=(1,1)" in text
    assert "Sampling took (0.012, 0.013) seconds, 0.025 seconds total" in text
    assert re.search(r"Mean\s+MCSE\s+StdDev\s+5%\s+50%\s+95%\s+N_Eff\s+N_Eff/s\s+R_hat", text)
    assert re.search(r"^theta\s", text, re.M)
    assert re.search(r"^energy__\s", text, re.M)
    assert "Samples were drawn using hmc with nuts." in text


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.csv"], "missing.csv"),
        ([], "no Stan CSV files"),
        (["--bogus", NORMAL[0]], "unknown option"),
        (["--percentiles=95,5", NORMAL[0]], "increasing"),
        (["--sig_figs=0", NORMAL[0]], "sig_figs"),
        ([NORMAL[0], DATA / "variational.csv"], "do not match"),
    ],
)
def test_summary_errors(tools, args, message):
    proc = run(tools["stansummary"], *args)
    assert proc.returncode != 0
    assert message in proc.stderr


def test_summary_rejects_rows_that_do_not_match_the_header(tools, tmp_path):
    lines = NORMAL[0].read_text().splitlines(keepends=True)
    first_draw = next(i for i, ln in enumerate(lines) if ln[0].isdigit() or ln[0] == "-")
    bad = tmp_path / "bad.csv"
    bad.write_text("".join(lines[:first_draw]) + "1,2,3\n")
    proc = run(tools["stansummary"], bad)
    assert proc.returncode != 0
    assert "12 column names but 3 values" in proc.stderr


# --------------------------------------------------------------------------
# diagnose


def test_diagnose_clean_run(tools):
    proc = run(tools["diagnose"], *NORMAL)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert text.startswith(f"Processing csv files: {NORMAL[0]}, {NORMAL[1]}")
    assert "Treedepth satisfactory for all transitions." in text
    assert "No divergent transitions found." in text
    assert "E-BFMI satisfactory." in text
    assert "Effective sample size satisfactory." in text
    assert "Split R-hat values satisfactory all parameters." in text
    assert text.endswith("Processing complete, no problems detected.\n")


def test_diagnose_sampler_problems(tools):
    path = DATA / "problems-1.csv"
    parsed = read_stan_csv(path)
    names, draws = parsed["names"], parsed["draws"]
    divergent = int(draws[:, names.index("divergent__")].sum())
    hits = int((draws[:, names.index("treedepth__")] >= 10).sum())
    low = ebfmi(draws[:, names.index("energy__")])
    assert (divergent, hits) == (12, 7) and low < 0.3

    proc = run(tools["diagnose"], path)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "12 of 200 (6%) transitions ended with a divergence." in text
    assert "7 of 200 (3.5%) transitions hit the maximum treedepth limit of 10" in text
    assert f"The E-BFMI, {low:.2g}, of chain 1 is below" in text
    assert "no problems detected" not in text
    assert text.endswith("Processing complete.\n")


def test_diagnose_high_rhat(tools):
    proc = run(tools["diagnose"], NORMAL[0], DATA / "shifted-2.csv")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "The following parameters had split R-hat greater than 1.05:\n  theta\n" in text
    assert "No divergent transitions found." in text
    assert text.endswith("Processing complete.\n")


def test_diagnose_non_hmc_output(tools):
    proc = run(tools["diagnose"], DATA / "pathfinder.csv")
    assert proc.returncode == 0, proc.stderr
    # no sampler columns, so only the ESS and R-hat checks run
    assert "Checking sampler" not in proc.stdout
    assert "E-BFMI" not in proc.stdout
    assert "Effective sample size satisfactory." in proc.stdout
    assert "Processing complete" in proc.stdout


def test_diagnose_missing_file(tools):
    proc = run(tools["diagnose"], NORMAL[0], "nope.csv")
    assert proc.returncode != 0
    assert "nope.csv" in proc.stderr


# --------------------------------------------------------------------------
# Fixture generation (run this file as a script to rewrite tests/stan/data)


def _config(method_lines: str, model: str = "normal_model", chain: int = 1) -> str:
    return (
        "# stan_version_major = 2\n"
        "# stan_version_minor = 35\n"
        "# stan_version_patch = 0\n"
        f"# model = {model}\n"
        "# start_datetime = 2024-06-01 12:00:00 UTC\n" + method_lines + f"# id = {chain}\n"
        "# data\n"
        "#   file = normal.data.json\n"
        "# init = 2 (Default)\n"
        "# random\n"
        "#   seed = 1234\n"
        "# output\n"
        f"#   file = {model}-{chain}.csv\n"
        "#   diagnostic_file =  (Default)\n"
        "#   refresh = 100 (Default)\n"
        "#   sig_figs = -1 (Default)\n"
        "#   profile_file = profile.csv (Default)\n"
        "#   save_cmdstan_config = false (Default)\n"
        "# num_threads = 1 (Default)\n"
        "# stanc_version = stanc3 v2.35.0\n"
        "# stancflags = \n"
    )


def _sample_config(
    num_samples=200, num_warmup=1000, save_warmup=False, thin=1, max_depth=10
) -> str:
    def arg(value, default):
        return f"{value}" + (" (Default)" if value == default else "")

    return (
        "# method = sample (Default)\n"
        "#   sample\n"
        f"#     num_samples = {arg(num_samples, 1000)}\n"
        f"#     num_warmup = {arg(num_warmup, 1000)}\n"
        f"#     save_warmup = {arg(str(save_warmup).lower(), 'false')}\n"
        f"#     thin = {arg(thin, 1)}\n"
        "#     adapt\n"
        "#       engaged = true (Default)\n"
        "#       gamma = 0.05 (Default)\n"
        "#       delta = 0.8 (Default)\n"
        "#       kappa = 0.75 (Default)\n"
        "#       t0 = 10 (Default)\n"
        "#       init_buffer = 75 (Default)\n"
        "#       term_buffer = 50 (Default)\n"
        "#       window = 25 (Default)\n"
        "#       save_metric = false (Default)\n"
        "#     algorithm = hmc (Default)\n"
        "#       hmc\n"
        "#         engine = nuts (Default)\n"
        "#           nuts\n"
        f"#             max_depth = {arg(max_depth, 10)}\n"
        "#         metric = diag_e (Default)\n"
        "#         metric_file =  (Default)\n"
        "#         stepsize = 1 (Default)\n"
        "#         stepsize_jitter = 0 (Default)\n"
        "#     num_chains = 1 (Default)\n"
    )


def _fmt(x) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.6g}"


def _rows(matrix: np.ndarray) -> str:
    return "".join(",".join(_fmt(v) for v in row) + "\n" for row in matrix)


def _adaptation(stepsize: float, n_params: int) -> str:
    return (
        "# Adaptation terminated\n"
        f"# Step size = {stepsize:g}\n"
        "# Diagonal elements of inverse mass matrix:\n"
        "# " + ", ".join(["0.53"] * n_params) + "\n"
    )


def _timing(warmup: float, sampling: float) -> str:
    return (
        "# \n"
        f"#  Elapsed Time: {warmup:g} seconds (Warm-up)\n"
        f"#                {sampling:g} seconds (Sampling)\n"
        f"#                {warmup + sampling:g} seconds (Total)\n"
        "# \n"
    )


HMC_HEADER = (
    "lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,"
    "energy__,theta,mu.1,mu.2,m.2.1,c"
)


def _ar1(rng, n, phi, mean, sd):
    x = np.empty(n)
    x[0] = rng.normal()
    for i in range(1, n):
        x[i] = phi * x[i - 1] + math.sqrt(1 - phi**2) * rng.normal()
    return mean + sd * x


def _hmc_draws(rng, n, stepsize, theta_mean=1.0):
    theta = rng.normal(theta_mean, 0.5, n)
    mu1 = _ar1(rng, n, 0.8, -2.0, 1.0)
    mu2 = rng.normal(3.0, 2.0, n)
    m21 = rng.normal(0.0, 1.0, n)
    lp = -0.5 * ((theta - theta_mean) / 0.5) ** 2 - 0.5 * m21**2
    treedepth = rng.integers(1, 3, n)
    return np.column_stack(
        [
            lp,
            rng.uniform(0.6, 1.0, n),
            np.full(n, stepsize),
            treedepth,
            2**treedepth - 1,
            np.zeros(n),
            -lp + rng.chisquare(2, n) / 2,
            theta,
            mu1,
            mu2,
            m21,
            np.full(n, 3.0),
        ]
    )


def _write(name: str, text: str) -> None:
    (DATA / name).write_text(text)


def write_fixtures() -> None:
    rng = np.random.default_rng(20240601)
    DATA.mkdir(parents=True, exist_ok=True)
    hmc_files = [
        ("normal-1.csv", 1, 0.93, 1.0, (0.011, 0.012)),
        ("normal-2.csv", 2, 0.88, 1.0, (0.010, 0.013)),
        ("shifted-2.csv", 2, 0.90, 6.0, (0.010, 0.013)),
    ]
    for name, chain, stepsize, theta_mean, (warm, samp) in hmc_files:
        draws = _hmc_draws(rng, 200, stepsize, theta_mean)
        _write(
            name,
            _config(_sample_config(), chain=chain)
            + HMC_HEADER
            + "\n"
            + _adaptation(stepsize, 5)
            + _rows(draws)
            + _timing(warm, samp),
        )

    # divergences, tree depth hits and slowly wandering energy (low E-BFMI)
    draws = _hmc_draws(rng, 200, 0.2)
    draws[rng.choice(200, 12, replace=False), 5] = 1
    hits = rng.choice(200, 7, replace=False)
    draws[hits, 3], draws[hits, 4] = 10, 1023
    draws[:, 6] = 20 + np.cumsum(rng.normal(0, 1, 200))
    _write(
        "problems-1.csv",
        _config(_sample_config())
        + HMC_HEADER
        + "\n"
        + _adaptation(0.2, 5)
        + _rows(draws)
        + _timing(0.02, 0.05),
    )

    # saved warmup with thinning: ceil(100 / 3) = 34 warmup rows
    warmup = _hmc_draws(rng, 34, 0.5)
    warmup[:, 7] = 100.0
    draws = _hmc_draws(rng, 100, 0.5)
    _write(
        "thinned-1.csv",
        _config(_sample_config(num_samples=300, num_warmup=100, save_warmup=True, thin=3))
        + HMC_HEADER
        + "\n"
        + _rows(warmup)
        + _adaptation(0.5, 5)
        + _rows(draws)
        + _timing(0.003, 0.009),
    )

    theta = rng.normal(2.0, 1.0, 300)
    log_p = -0.5 * (theta - 2.0) ** 2
    vb = np.column_stack([np.zeros(300), log_p, log_p + rng.normal(0, 0.1, 300), theta])
    _write(
        "variational.csv",
        _config(
            "# method = variational\n"
            "#   variational\n"
            "#     algorithm = meanfield (Default)\n"
            "#       meanfield\n"
            "#     iter = 10000 (Default)\n"
            "#     grad_samples = 1 (Default)\n"
            "#     elbo_samples = 100 (Default)\n"
            "#     eta = 1 (Default)\n"
            "#     adapt\n"
            "#       engaged = true (Default)\n"
            "#       iter = 50 (Default)\n"
            "#     tol_rel_obj = 0.01 (Default)\n"
            "#     eval_elbo = 100 (Default)\n"
            "#     output_samples = 300\n"
        )
        + "lp__,log_p__,log_g__,theta\n"
        "# Stepsize adaptation complete.\n"
        "# eta = 1\n"
        "0,0,0,50\n" + _rows(vb),
    )

    _write(
        "optimize.csv",
        _config(
            "# method = optimize\n"
            "#   optimize\n"
            "#     algorithm = lbfgs (Default)\n"
            "#       lbfgs\n"
            "#         init_alpha = 0.001 (Default)\n"
            "#     jacobian = false (Default)\n"
            "#     iter = 2000 (Default)\n"
            "#     save_iterations = true\n"
        )
        + "lp__,theta\n"
        + _rows(np.array([[-12.5, 0.3], [-3.25, 1.7], [-0.018, 2.00125]])),
    )

    theta = rng.normal(2.0, 1.0, 100)
    lp = -0.5 * (theta - 2.0) ** 2
    _write(
        "pathfinder.csv",
        _config(
            "# method = pathfinder\n"
            "#   pathfinder\n"
            "#     num_draws = 100\n"
            "#     num_paths = 4 (Default)\n"
        )
        + "lp_approx__,lp__,theta\n"
        + _rows(np.column_stack([lp + rng.normal(0, 0.1, 100), lp, theta])),
    )


if __name__ == "__main__":
    write_fixtures()
    sys.exit(0)
