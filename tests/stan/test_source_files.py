"""An empty or non-UTF-8 Stan program, or a non-UTF-8 JSON data file, is refused before
any compile: a typed error naming the file and the problem (the CLI: one line, exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

import bayeswe
from bayeswe import cli
from bayeswe.errors import StanDataError, StanSourceError
from bayeswe.model_spec import read_data
from bayeswe.stan import toolchain
from bayeswe.stan.program_info import program_info

GOOD = b"parameters { real y; }\nmodel { y ~ normal(0, 1); }\n"

PROGRAMS = {
    "empty.stan": (b"", "holds no code (an empty file)"),
    "blank.stan": (b"\n  \n", "holds no code (4 bytes)"),
    "comments.stan": (b"// to do\n/* a\n model */\n", "holds no code"),
    "latin1.stan": (GOOD.replace(b"}\n", b"} // caf\xe9\n", 1), "byte 0xe9 at offset 29 (line 1)"),
}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for name, (content, _) in PROGRAMS.items():
        (tmp_path / name).write_bytes(content)
    (tmp_path / "good.stan").write_bytes(GOOD)
    (tmp_path / "data.json").write_text("{}")
    (tmp_path / "latin1.json").write_bytes(b'{"N": 2,\n "word": "caf\xe9"}')
    (tmp_path / "empty.json").write_bytes(b"")
    return tmp_path


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bayeswe: error: fit: "), err
    return int(info.value.code), lines[0]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_a_program_that_cannot_be_one_is_refused_before_any_compile(
    name: str, files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stan_file = files / name
    expected = PROGRAMS[name][1]
    code, line = _cli(
        ["fit", str(stan_file), str(files / "data.json"), "--method", "nuts",
         "--output", str(files / "fit.nc")],
        capsys,
    )  # fmt: skip
    assert code == cli.EXIT_USAGE and str(stan_file) in line and expected in line
    for call in (
        lambda: bayeswe.fit(str(stan_file), {}, method="nuts"),
        lambda: toolchain.compile_model(stan_file),
        lambda: program_info(stan_file),
    ):
        with pytest.raises(StanSourceError, match=expected.replace("(", r"\(").replace(")", r"\)")):
            call()
    # nothing was compiled: no executable for it in the model cache
    assert not list((toolchain.cache_dir() / "models").glob(f"{stan_file.stem}-*"))
    assert not (files / "fit.nc").exists()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("latin1.json", "is not UTF-8 text: byte 0xe9 at offset 22 (line 2)"),
        ("empty.json", "is empty: expected a JSON object"),
    ],
)
def test_a_data_file_that_is_not_utf8_json_is_named(
    name: str, expected: str, files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = files / name
    code, line = _cli(
        ["fit", str(files / "good.stan"), str(data), "--method", "nuts",
         "--output", str(files / "fit.nc")],
        capsys,
    )  # fmt: skip
    assert code == cli.EXIT_USAGE and name in line and expected in line
    with pytest.raises(StanDataError, match=name):
        read_data(data)
