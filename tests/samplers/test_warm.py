"""``bayeswe toolchain kernels``: every sampler method's kernels are compiled ahead.

The Makefile's ``toolchain`` step runs the command before the tests, so every task
runs (and must succeed) on each ``make test``; these tests check what it covers and
its arguments.
"""

from __future__ import annotations

import pytest

from bayeswe.fit import SAMPLER_METHODS
from bayeswe.samplers.warm import _DATA, _MCMC, TASKS


def test_every_sampler_method_of_every_model_is_compiled() -> None:
    fitted = {(model, method) for fits in TASKS.values() for model, _, method, _ in fits}
    wanted = {(model, method) for method, models in SAMPLER_METHODS.items() for model in models}
    assert wanted <= fitted, sorted(wanted - fitted)
    # both component families of the DP mixture and both scans of alias-mh
    data_sets = {data for fits in TASKS.values() for _, data, _, _ in fits}
    assert data_sets == set(_DATA)
    scans = {opts.get("scan") for fits in TASKS.values() for *_, opts in fits}
    assert {"word", "document"} <= scans


def test_short_chains_go_to_exactly_the_methods_that_take_them() -> None:
    """The tasks give ``iter_warmup`` and ``iter_sampling`` to the methods whose
    documented defaults have them, and to no other (which would reject them)."""
    from bayeswe.method_options import DEFAULTS

    for fits in TASKS.values():
        for model, _, method, _ in fits:
            takes = DEFAULTS[(method, model)].get("iter_warmup") is not None
            assert takes == (method in _MCMC), (method, model)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["toolchain", "kernels", "--jobs", "0"], "--jobs must be at least 1, got 0"),
        (["toolchain", "info", "--jobs", "2"], "--jobs goes with 'kernels' only"),
    ],
)
def test_bad_jobs_exit_2_before_anything_runs(argv, message, capsys) -> None:
    from bayeswe.cli import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("bayeswe: error:") and message in err


def test_the_sbc_power_checks_wrong_sweeps_are_compiled_too() -> None:
    """The faulty alias-MH kernel (one general kernel for every MH variant) has a task;
    the task runs here in-process, from Numba's cache after ``make toolchain``."""
    from bayeswe.samplers.warm import OTHER_TASKS
    from bayeswe.sbc import faulty_glda

    OTHER_TASKS["sbc power checks: faulty gaussian_lda alias-mh"]()
    # one compiled signature serves every scan, density and MH variant
    assert len(faulty_glda._sweep.signatures) == 1
