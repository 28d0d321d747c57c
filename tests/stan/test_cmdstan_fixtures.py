"""The bundled toolchain against real CmdStan 2.35.0 output on Linux, bit for bit.

The fixtures (``tests/fixtures/cmdstan-2.35.0``, or ``$BAYESWE_CMDSTAN_FIXTURES``;
provenance in their README) were written by a
stock CmdStan 2.35.0 built with g++ 12.2 on x86-64 Linux, driven by cmdstanpy
1.3.2: three models (bernoulli, hier_regression, corr_normal), each with
``sample`` (4 chains, 500 + 500), ``optimize`` (L-BFGS, ``jacobian=True``),
``variational`` (mean-field), ``laplace`` (at the optimize mode) and
``pathfinder``, all with ``sig_figs=18`` so that equal text means identical
doubles; plus ``bin/stansummary`` and ``bin/diagnose`` on the four sample files.

Each model is compiled here with our toolchain and run through cmdstanpy with
the seeds and arguments recorded in the fixtures (``calls.json``); the chains
run one process per chain with ``id=k``, as stock CmdStan without STAN_THREADS
runs them. Every output file must equal CmdStan's: the configuration block
line for line (paths and the date normalised), the header row, every numeric
row as text, and the comment lines in between (adaptation, step size, metric),
timings aside. The same chains run the way bayeswe runs them (all four in one
process on threads) give the same draws; only the ``num_chains``, ``id`` and
``num_threads`` lines of their configuration differ.

Our stansummary (default options and ``--sig_figs=4
--percentiles=5,25,50,75,95``) and diagnose, run on CmdStan's own sample
files, must print exactly what CmdStan's tools printed.

Finally, JSON data must read as CmdStan reads it: the wheel carries the
rapidjson 1.1.0 release, whose decimal conversion misreads some numbers (and
crashes on others), so the toolchain installs a correctly rounding one
(``bayeswe/stan/cpp/rapidjson_strtod.hpp``).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from bayeswe.stan import toolchain

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(
    os.environ.get("BAYESWE_CMDSTAN_FIXTURES", REPO / "tests" / "fixtures" / "cmdstan-2.35.0")
)
SEEDS = {"bernoulli": 4711, "hier_regression": 20261123, "corr_normal": 777}
SAMPLE_FILES = [f"sample-{k}" for k in (1, 2, 3, 4)]
OTHER_FILES = ["optimize-1", "variational-1", "laplace-1", "pathfinder-1"]
ALL_FILES = SAMPLE_FILES + OTHER_FILES
SUMMARY_OPTIONS = {
    "stansummary.txt": [],
    "stansummary_sig4_pct.txt": ["--sig_figs=4", "--percentiles=5,25,50,75,95"],
}


def fixture_text(model: str, stem: str) -> str:
    with gzip.open(FIXTURES / model / f"{stem}.csv.gz", "rt") as fh:
        return fh.read()


def test_fixtures_are_present() -> None:
    assert (FIXTURES / "calls.json").is_file(), (
        f"CmdStan 2.35.0 reference output not found at {FIXTURES} "
        "(set BAYESWE_CMDSTAN_FIXTURES to its folder)"
    )
    calls = {c["model"]: c for c in json.loads((FIXTURES / "calls.json").read_text())}
    assert {m: calls[m]["seed"] for m in SEEDS} == SEEDS


# --------------------------------------------------------------------------
# Running our toolchain as cmdstanpy ran CmdStan


def _single_csv(directory: Path) -> Path:
    (csv,) = sorted(directory.glob("*.csv"))
    return csv


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """Every output file, keyed by (model, fixture stem); "mt-sample-k" for
    the chains of the single-process, multi-threaded run."""
    out: dict[tuple[str, str], Path] = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("STAN_NUM_THREADS", raising=False)  # restored afterwards
        for model_name, seed in SEEDS.items():
            model = toolchain.compile_model(FIXTURES / model_name / f"{model_name}.stan")
            data = str(FIXTURES / model_name / f"{model_name}.data.json")
            root = tmp_path_factory.mktemp(model_name)
            common = {"data": data, "seed": seed, "sig_figs": 18}
            sampling = {"chains": 4, "iter_warmup": 500, "iter_sampling": 500}

            fit = model.sample(
                **common,
                **sampling,
                output_dir=root / "sample",
                force_one_process_per_chain=True,
                show_progress=False,
            )
            for k, csv in enumerate(fit.runset.csv_files, 1):
                out[model_name, f"sample-{k}"] = Path(csv)
            fit = model.sample(
                **common, **sampling, output_dir=root / "threads", show_progress=False
            )
            for k, csv in enumerate(fit.runset.csv_files, 1):
                out[model_name, f"mt-sample-{k}"] = Path(csv)

            # cmdstanpy leaves STAN_NUM_THREADS set by sample(); CmdStan's
            # other runs had one thread
            mp.setenv("STAN_NUM_THREADS", "1")
            mode = model.optimize(**common, jacobian=True, output_dir=root / "optimize")
            out[model_name, "optimize-1"] = _single_csv(root / "optimize")
            model.variational(**common, require_converged=False, output_dir=root / "variational")
            out[model_name, "variational-1"] = _single_csv(root / "variational")
            model.laplace_sample(**common, mode=mode, output_dir=root / "laplace")
            out[model_name, "laplace-1"] = _single_csv(root / "laplace")
            model.pathfinder(**common, output_dir=root / "pathfinder")
            out[model_name, "pathfinder-1"] = _single_csv(root / "pathfinder")
    return out


# --------------------------------------------------------------------------
# Comparing Stan CSV files

PATH_LINE = re.compile(r"^(#\s+(?:file|mode) = )(\S.*?)((?: \(Default\))?)$")
TIMING = re.compile(r"seconds|Elapsed Time")


def split_csv(text: str) -> tuple[list[str], str, list[str], list[str]]:
    """Configuration block, header row, numeric rows, later comment lines.

    Paths (data, output and mode files) and the start date are replaced by
    placeholders; timing lines are dropped.
    """
    config: list[str] = []
    header = ""
    rows: list[str] = []
    comments: list[str] = []
    for line in text.splitlines():
        if not header:
            if line.startswith("#"):
                line = PATH_LINE.sub(r"\1PATH\3", line)
                line = re.sub(r"start_datetime = .*", "start_datetime = DATE", line)
                config.append(line)
            else:
                header = line
        elif line.startswith("#"):
            if not TIMING.search(line):
                comments.append(line)
        elif line.strip():
            rows.append(line)
    return config, header, rows, comments


def first_difference(mine: list[str], theirs: list[str]) -> str:
    for i, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a != b:
            return f"row {i + 1}:\n  ours:    {a[:200]}\n  CmdStan: {b[:200]}"
    return f"{len(mine)} rows against {len(theirs)}"


@pytest.mark.parametrize("stem", ALL_FILES)
@pytest.mark.parametrize("model", list(SEEDS))
def test_output_file_is_cmdstans(ours, model: str, stem: str) -> None:
    config, header, rows, comments = split_csv(ours[model, stem].read_text())
    ref_config, ref_header, ref_rows, ref_comments = split_csv(fixture_text(model, stem))
    assert len(ref_config) >= 25 and len(ref_rows) >= 1
    assert config == ref_config
    assert header == ref_header
    assert rows == ref_rows, first_difference(rows, ref_rows)
    assert comments == ref_comments


@pytest.mark.parametrize("stem", SAMPLE_FILES)
@pytest.mark.parametrize("model", list(SEEDS))
def test_threaded_chains_are_cmdstans(ours, model: str, stem: str) -> None:
    """All four chains in one process, as bayeswe runs them: same draws."""
    config, header, rows, comments = split_csv(ours[model, f"mt-{stem}"].read_text())
    ref_config, ref_header, ref_rows, ref_comments = split_csv(fixture_text(model, stem))
    assert (header, comments) == (ref_header, ref_comments)
    assert rows == ref_rows, first_difference(rows, ref_rows)
    differing = {line.split("=")[0].strip("# ") for line in set(config) ^ set(ref_config)}
    assert differing <= {"num_chains", "id", "num_threads"}
    assert len(config) == len(ref_config)


# --------------------------------------------------------------------------
# bin/stansummary and bin/diagnose on CmdStan's own sample files


@pytest.fixture(scope="module")
def tools() -> Path:
    return toolchain.build_bundled() / "bin"


@pytest.fixture(scope="module")
def sample_csvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[str]]]:
    """Per model: a folder holding OUTPUT_DIR/<CmdStan's file names>, and those
    relative paths, so that the tools print the same paths as the fixtures."""
    out = {}
    for model in SEEDS:
        root = tmp_path_factory.mktemp(f"csv-{model}")
        names = []
        for stem in SAMPLE_FILES:
            text = fixture_text(model, stem)
            name = re.search(r"^#\s+file = (OUTPUT_DIR/\S+\.csv)$", text, re.M).group(1)
            (root / name).parent.mkdir(exist_ok=True)
            (root / name).write_text(text)
            names.append(name)
        out[model] = (root, names)
    return out


def run_tool(tool: Path, args: list[str], cwd: Path) -> str:
    proc = subprocess.run([str(tool), *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def summary_table(text: str) -> dict[str, list[str]]:
    """Rows of a stansummary console table: name -> cells, and the header."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split()[:2] == ["Mean", "MCSE"])
    table = {"": lines[start].split()}
    for line in lines[start + 1 :]:
        if line.startswith("Samples were drawn"):
            break
        if line.strip():
            name, *cells = line.split()
            table[name] = cells
    return table


def as_numbers(cells: list[str]) -> list[float]:
    return [float(c) for c in cells]


@pytest.mark.parametrize("summary", list(SUMMARY_OPTIONS))
@pytest.mark.parametrize("model", list(SEEDS))
def test_stansummary_is_cmdstans(tools, sample_csvs, model: str, summary: str) -> None:
    root, names = sample_csvs[model]
    mine = run_tool(tools / "stansummary", [*SUMMARY_OPTIONS[summary], *names], root)
    theirs = (FIXTURES / model / summary).read_text()
    table, ref_table = summary_table(mine), summary_table(theirs)
    assert list(table) == list(ref_table)  # the same rows in the same order
    assert len(ref_table) > 8
    for name, cells in ref_table.items():
        if name:
            assert as_numbers(table[name]) == pytest.approx(as_numbers(cells), nan_ok=True, rel=0)
        assert table[name] == cells, name  # printed with the same digits, too
    assert mine == theirs  # and laid out alike, header and footer included


@pytest.mark.parametrize("model", list(SEEDS))
def test_diagnose_is_cmdstans(tools, sample_csvs, model: str) -> None:
    root, names = sample_csvs[model]
    mine = run_tool(tools / "diagnose", names, root)
    assert mine == (FIXTURES / model / "diagnose.txt").read_text()


# --------------------------------------------------------------------------
# JSON numbers read as CmdStan reads them

READ_X = """\
data {
  int<lower=0> N;
  vector[N] x;
}
generated quantities {
  vector[N] y = x;
}
"""

# Text of a JSON number -> the double it denotes (Python rounds correctly).
JSON_NUMBERS = [
    "2.4703282292062327e-324",  # just below half the smallest subnormal: 0
    "2.4703282292062328e-324",  # just above: the smallest subnormal
    "4.9406564584124654e-324",
    "1.9322856371625668e-337",  # crashed rapidjson 1.1.0
    "1e-400",
    "2.2250738585072011e-308",
    "2.2250738585072012e-308",
    "1.29902954988479424618523562e-16",  # misrounded by rapidjson 1.1.0
    "9.137247320935492290297e-125",  # misrounded by rapidjson 1.1.0
    "0.1",
    "-0.30000000000000004",
    "1.7976931348623157e308",
    "-0.0",
]


@pytest.fixture(scope="module")
def read_x(tmp_path_factory: pytest.TempPathFactory) -> Path:
    stan = tmp_path_factory.mktemp("read_x") / "read_x.stan"
    stan.write_text(READ_X)
    return Path(toolchain.compile_model(stan).exe_file)


def read_json_numbers(exe: Path, numbers: list[str], tmp: Path) -> subprocess.CompletedProcess:
    data = tmp / "x.json"
    data.write_text(f'{{"N": {len(numbers)}, "x": [{", ".join(numbers)}]}}')
    out = tmp / "y.csv"
    args = ["method=sample", "algorithm=fixed_param", "num_samples=1", "data", f"file={data}"]
    args += ["output", f"file={out}", "sig_figs=18"]
    return subprocess.run([str(exe), *args], capture_output=True, text=True, check=False)


def test_installation_has_the_json_fix() -> None:
    installed = toolchain.build_bundled() / "include" / "rapidjson" / "internal" / "strtod.h"
    ours_h = Path(toolchain.__file__).parent / "cpp" / "rapidjson_strtod.hpp"
    assert installed.read_text() == ours_h.read_text()


def test_json_numbers_read_as_cmdstan_reads_them(read_x: Path, tmp_path: Path) -> None:
    proc = read_json_numbers(read_x, JSON_NUMBERS, tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in (tmp_path / "y.csv").read_text().splitlines() if ln[:1] != "#"]
    header, row = lines[0].split(","), lines[1].split(",")
    values = [float(v) for name, v in zip(header, row, strict=True) if name.startswith("y.")]
    assert values == [float(text) for text in JSON_NUMBERS]
    assert values[0] == 0.0 and values[1] == 5e-324


def test_json_number_above_double_range_is_an_error(read_x: Path, tmp_path: Path) -> None:
    proc = read_json_numbers(read_x, ["1.96874085127937292938806e310"], tmp_path)
    assert proc.returncode != 0
    assert "Number too big" in proc.stderr + proc.stdout
