"""``bayeswe compare``: a method that fails is reported with its reason, and the run exits 1.

The comparison still prints every other method's row (the failure is a result), then
one ``bayeswe: error:`` line naming each failed method, its exception type and message.
"""

from __future__ import annotations

import json
import math

import pytest

from bayeswe import cli
from bayeswe.errors import MethodFailedError

# One observation of four words: ADVI full-rank's step-size search fails on it
# (Stan: "All proposed step-sizes failed"), MAP does not.
FAILING = ["compare", "sgns", "--V", "4", "--K", "1", "--N", "1", "--methods", "advi-fullrank,map"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("json_output", [False, True])
def test_a_failed_method_exits_1_and_says_why(
    json_output: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run([*FAILING, "--quiet"] + (["--json"] if json_output else []), capsys)
    assert code == cli.EXIT_RUN_ERROR
    if json_output:
        rows = {r["method"]: r for r in json.loads(out)["results"]}
        assert rows["map"]["error"] is None and rows["map"]["rmse_co"] is not None
        reason = rows["advi-fullrank"]["error"]
    else:
        row = next(line for line in out.splitlines() if line.startswith("advi-fullrank"))
        reason = row.split("failed: ", 1)[1]
        assert any(line.startswith("map ") for line in out.splitlines())
    # the exception type and Stan's reason, not a bare "failed:"
    assert reason.startswith("StanRuntimeError: ") and "step-sizes failed" in reason
    errors = [line for line in err.splitlines() if line.startswith("bayeswe: error: ")]
    assert len(errors) == 1 and err.splitlines()[-1] == errors[0]
    assert "1 of 2 methods failed: advi-fullrank: StanRuntimeError:" in errors[0]
    assert "Traceback" not in err


def test_lda_compare_raises_after_its_table_when_a_method_failed() -> None:
    from bayeswe.lda.compare import MethodResult, _raise_if_failed

    ok = MethodResult("cgs", 1.0, 10, 0.1, 0.2, 0.9, -3.0)
    bad = MethodResult.failed("advi", 0.5, "StanRuntimeError: adapt_eta: step-sizes failed")
    _raise_if_failed([ok])
    with pytest.raises(MethodFailedError, match=r"1 of 2 methods failed: advi: StanRuntime"):
        _raise_if_failed([ok, bad])
    assert math.isnan(bad.hellinger_mean)
