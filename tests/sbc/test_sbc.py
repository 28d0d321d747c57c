"""Simulation-based calibration: the rank machinery, the reduced SBC of the samplers, power.

The full runs (1,000 replications per sampler, ``bayeswe sbc all -R 1000``) are in the
documentation; here every exact sampler gets 200 replications, tested at family level
0.1 % (Bonferroni over its statistics), and deliberately wrong samplers must fail.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayeswe import cli
from bayeswe.sbc import SBCResult, power, rank_of, run_sbc, uniformity_test
from bayeswe.sbc.cases import N_DRAWS, SGNS_STATS

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

REPS = 200
SEED = 20261125


# ----------------------------------------------------------------------- machinery


def test_rank_counts_draws_below_and_breaks_ties_uniformly() -> None:
    rng = np.random.default_rng(0)
    draws = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0], [4.0, 5.0]])
    truth = np.array([2.5, 5.0])
    ranks = np.array([rank_of(truth, draws, rng) for _ in range(5000)])
    assert (ranks[:, 0] == 2).all()  # two draws below, no tie
    # all four draws tie with the truth: the rank is uniform on 0..4
    counts = np.bincount(ranks[:, 1], minlength=5)
    assert stats.chisquare(counts).pvalue > 1e-3 and counts.sum() == 5000


def test_uniformity_test_is_the_chi_square_of_ten_bins() -> None:
    ranks = np.column_stack([np.arange(100), np.repeat([0, 99], 50)])  # uniform; two spikes
    test = uniformity_test(ranks, n_draws=99, bins=10)
    assert test.counts[0].tolist() == [10] * 10
    assert test.counts[1].tolist() == [50] + [0] * 8 + [50]
    assert test.p_values[0] == pytest.approx(1.0)
    expected = stats.chisquare(test.counts[1]).pvalue
    assert test.p_values[1] == pytest.approx(expected, rel=1e-12)
    assert test.family_p_value == pytest.approx(min(1.0, 2 * expected), rel=1e-12)
    with pytest.raises(ValueError, match="ranks must lie"):
        uniformity_test(ranks + 1, n_draws=99)
    with pytest.raises(ValueError, match="equal bins"):
        uniformity_test(np.minimum(ranks, 98), n_draws=98)


def test_power_is_the_level_under_the_null_and_grows_with_replications() -> None:
    null = power(replications=200, n_draws=99, n_statistics=1, level=0.05, simulations=20000)
    # Monte Carlo sd of the rejection rate is 0.0015; the chi-square p-value is approximate
    assert abs(null - 0.05) < 0.01
    small = power(replications=200, n_draws=99, n_statistics=20, level=0.01, sd_ratio=1.25)
    large = power(replications=1000, n_draws=99, n_statistics=20, level=0.01, sd_ratio=1.25)
    assert small < 0.5 < 0.95 < large
    shifted = power(replications=1000, n_draws=99, n_statistics=20, level=0.01, shift=0.25)
    assert shifted > 0.9


# ------------------------------------------------------------------ exact samplers


@pytest.mark.parametrize(
    "sampler",
    [
        "pg-gibbs-unidentified",
        "lda-cgs",
        "lda-cgs-dense",
        "glda-cgs",
        "glda-alias-mh",
        "glda-alias-mh-document",
        "glda-alias-mh-frozen",
        "dp-mixture-cgs",
        "dp-multinomial-cgs",
        "hdp-lda-cgs",
        "hdp-lda-cgs-resample",
        "hdp-lda-cgs-split-merge",
        "hdp-gaussian-lda-cgs",
        pytest.param("hdp-lda-alias-mh", marks=pytest.mark.slow),  # ~7 s; R=1000 committed
    ],
)
def test_exact_samplers_are_calibrated(sampler: str) -> None:
    result = run_sbc(sampler, replications=REPS, seed=SEED)
    assert result.ranks.shape == (REPS, len(result.case.statistics))
    assert result.ranks.min() >= 0 and result.ranks.max() <= N_DRAWS
    assert result.test.family_p_value > 1e-3, dict(
        zip(result.case.statistics, result.test.p_values.round(5), strict=True)
    )


# ------------------------------------------------------- power: wrong samplers fail


@pytest.mark.parametrize(
    ("sampler", "replications", "worst"),
    [
        # the unidentified SGNS sampler's prior sd 1.3x the one the data were drawn with
        ("pg-gibbs-unidentified-lambda-x1.3", 200, None),  # p 3e-4 at 100
        # the sampler's document prior alpha 4x the one the data were drawn with
        ("lda-cgs-alpha-x4", 200, "log_p_z"),
        # alias-MH with tables frozen and the MH ratio of log-densities (p 2e-19 at 50)
        ("glda-alias-mh-log-ratio", 50, None),
        # the sampler's inverse-Wishart scale Psi 2x the prior's (p 4e-6 at 200)
        ("glda-cgs-psi-x2", 200, "log_p_v_given_z"),
    ],
)
def test_wrong_samplers_fail(sampler: str, replications: int, worst: str | None) -> None:
    result = run_sbc(sampler, replications=replications, seed=SEED)
    assert result.test.family_p_value < 1e-4
    if worst is not None:
        assert result.summary()["worst_statistic"] == worst


@pytest.mark.parametrize(
    ("update", "replications"),
    [
        # eta ~ Beta(alpha, N) instead of Beta(alpha + 1, N) in Escobar-West's update
        # (family p 5e-12 at 100 replications)
        ("escobar_west_beta_off_by_one", 100),
        # the two-component gamma mixture replaced by its first component (p 0.06 at
        # 100, 3e-10 at 200)
        ("escobar_west_no_mixture", 200),
    ],
)
def test_dp_mixture_with_a_wrong_alpha_update_fails(update, replications, monkeypatch) -> None:
    """The wrong updates live in tests/sbc/dp_faulty.py, not in the production kernels."""
    import dp_faulty

    from bayeswe.sbc import cases

    name = f"dp-mixture-cgs-{update}"
    case = cases.SBCCase(name, "DP mixture, wrong alpha update", cases.DP_STATS)
    monkeypatch.setitem(
        cases.BROKEN, name, (case, cases.dp_replication(getattr(dp_faulty, update)))
    )
    result = run_sbc(name, replications=replications, seed=SEED)  # in this process: workers=1
    assert result.test.family_p_value < 1e-4, result.test.p_values


def test_dp_multinomial_with_an_unnormalized_predictive_fails(monkeypatch) -> None:
    """A Gibbs pass whose predictive lacks ``lgamma(B + C) - lgamma(B + C + L)``
    (``dp_faulty.gibbs_sweep_unnormalized``, test-only) fails SBC. (A pass scoring a
    point's tokens as independent given its cluster does not, at 200 replications:
    family p = 1.0; the enumeration in tests/dp/test_dp_multinomial_kernels.py
    catches that one.)"""
    import dp_faulty

    from bayeswe.sbc import cases

    name = "dp-multinomial-cgs-unnormalized"
    case = cases.SBCCase(name, "DP multinomial, predictive not normalized", cases.DPM_STATS)
    run = cases.dp_multinomial_replication(dp_faulty.gibbs_sweep_unnormalized)
    monkeypatch.setitem(cases.BROKEN, name, (case, run))
    # family p-value 7e-17 at 100 replications: 100 suffice
    result = run_sbc(name, replications=100, seed=SEED)
    assert result.test.family_p_value < 1e-4, result.test.p_values


@pytest.mark.parametrize("resample", [False, True])
def test_a_wrong_hdp_lda_sampler_fails(resample: bool, monkeypatch) -> None:
    """One table per (document, topic) instead of eq. (40)'s table counts
    (``hdp_faulty.minimal_path_step``, a test-only sweep) is caught at 200 replications."""
    import hdp_faulty

    from bayeswe.sbc import cases

    name = "hdp-lda-cgs-resample" if resample else "hdp-lda-cgs"
    case = cases.CASES[name][0]
    wrong = dataclasses.replace(case, name=name + "-minimal-path")
    run = cases._hdp_lda(resample, step=hdp_faulty.minimal_path_step)
    monkeypatch.setitem(cases.BROKEN, wrong.name, (wrong, run))
    result = run_sbc(wrong.name, replications=200, seed=SEED)
    assert result.test.family_p_value < 1e-4


def test_a_wrong_infinite_gaussian_lda_sampler_fails(monkeypatch) -> None:
    """One table per (document, topic) instead of eq. (40)'s table counts
    (``hdp_glda_faulty.minimal_path_step``, a test-only sweep) is caught at 50 replications
    (family p 4e-34)."""
    import hdp_glda_faulty

    from bayeswe.sbc import cases

    case = cases.CASES["hdp-gaussian-lda-cgs"][0]
    wrong = dataclasses.replace(case, name="hdp-gaussian-lda-cgs-minimal-path")
    run = cases._hdp_glda(step=hdp_glda_faulty.minimal_path_step)
    monkeypatch.setitem(cases.BROKEN, wrong.name, (wrong, run))
    result = run_sbc(wrong.name, replications=50, seed=SEED)
    assert result.test.family_p_value < 1e-4


def test_ranks_do_not_depend_on_the_number_of_workers() -> None:
    one = run_sbc("glda-alias-mh", replications=12, seed=5, workers=1)
    two = run_sbc("glda-alias-mh", replications=12, seed=5, workers=2)
    np.testing.assert_array_equal(one.ranks, two.ranks)
    other = run_sbc("glda-alias-mh", replications=12, seed=6, workers=1)
    assert not np.array_equal(one.ranks, other.ranks)


# ---------------------------------------------------------------------- command


def test_command_writes_ranks_histogram_and_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sbc"
    code = cli.main(["sbc", "advi-meanfield", "pg-gibbs-per-block", "-R", "20", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == ["advi-meanfield", "pg-gibbs-per-block"]
    for name, approximate in (("advi-meanfield", True), ("pg-gibbs-per-block", False)):
        directory = out / name
        assert sorted(p.name for p in directory.iterdir()) == [
            "histogram.png",
            "ranks.csv",
            "results.json",
        ]
        ranks = pd.read_csv(directory / "ranks.csv", index_col="replication")
        assert list(ranks.columns) == list(SGNS_STATS) and len(ranks) == 20
        assert ranks.to_numpy().min() >= 0 and ranks.to_numpy().max() <= N_DRAWS
        record = json.loads((directory / "results.json").read_text())
        summary = record["summary"]
        assert summary["sampler"] == name and summary["approximate"] is approximate
        assert summary["replications"] == 20 and summary["statistics"] == len(SGNS_STATS)
        assert summary["verdict"] in ("miscalibrated", "not enough replications")
        assert set(record["p_values"]) == set(SGNS_STATS)
        assert record["run"]["command"] and record["run"]["versions"]
        assert (directory / "histogram.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["sbc"], "name one or more samplers"),
        (["sbc", "hmc"], "unknown sampler(s) hmc"),
        (["sbc", "lda-cgs", "-R", "5"], "--replications must be >= 10"),
        (["sbc", "lda-cgs", "--workers", "0"], "--workers must be >= 1"),
        (["sbc", "lda-cgs", "--seed", "-1"], "--seed must be in"),
        (["sbc", "--list", "lda-cgs"], "--list takes no sampler names"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bayeswe: error: sbc: ") and message in err[0]


def test_implied_sd_ratio_inverts_the_outer_share() -> None:
    rng = np.random.default_rng(3)
    for c in (0.8, 1.0, 1.25):
        # ranks of N(0, 1) truths among 99 N(0, c^2) draws
        truth = rng.standard_normal(20000)
        ranks = rng.binomial(N_DRAWS, stats.norm.cdf(truth / c))[:, None]
        result = SBCResult(
            case=None, seed=0, ranks=ranks, n_draws=N_DRAWS,
            test=uniformity_test(ranks, N_DRAWS), level=0.01, power={}, wall_time_s=0.0,
            workers=1,
        )  # fmt: skip
        assert result.implied_sd_ratio == pytest.approx(c, abs=0.04)
