"""The variational driver (bayeswe.samplers.variational): iterations, Stan's convergence
rules, the trace's group and dim, the draws and their seed, the netCDF round trip."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import arviz as az
import numpy as np
import pytest

from bayeswe.corpus import BagOfWords, Vocabulary
from bayeswe.lda import LDAData
from bayeswe.samplers import variational as vi
from bayeswe.samplers.lda_vi import CAVI, SVI, CAVIArgs, SVIArgs
from bayeswe.sgns.models import SGNS


class Halving:
    """A deterministic toy: the ELBO ``-1 - 2**-t`` after iteration ``t``; ``q = N(t, 1)``
    on a scalar. Every ``every``-th iteration evaluates the ELBO."""

    name = "halving"

    def __init__(self, every: int = 1) -> None:
        self.every = every

    def init(self) -> int:
        return 0

    def update(self, state: int) -> tuple[int, float | None]:
        t = state + 1
        return t, (-1.0 - 2.0**-t) if t % self.every == 0 else None

    def objective(self, info: float | None) -> float | None:
        return info

    def converged(self, trace: Sequence[float], tol_rel_obj: float) -> bool:
        return vi.relative_change_converged(trace, tol_rel_obj)

    def draws(self, state: int, n: int, rng: np.random.Generator):
        return {"rho": state + rng.standard_normal((n, 2, 1))}, {"lp_approx": np.zeros(n)}


def _rel(t: int) -> float:
    """Relative change of the toy's ELBO from iteration t - 1 to t."""
    return abs(2.0**-t - 2.0 ** -(t - 1)) / (1.0 + 2.0**-t)


def test_stops_at_the_first_iteration_whose_relative_change_is_below_tol() -> None:
    tol = 1e-3
    expected = next(t for t in range(2, 60) if _rel(t) < tol)
    run = vi.optimize(Halving(), iter=100, tol_rel_obj=tol)
    assert run.converged and run.iterations == expected == run.trace.size
    np.testing.assert_array_equal(run.trace_iteration, np.arange(1, expected + 1))
    assert run.trace[-1] == -1.0 - 2.0**-expected


def test_runs_iter_iterations_when_not_converged_and_tol_zero_never_stops() -> None:
    run = vi.optimize(Halving(), iter=7, tol_rel_obj=0.1**9)
    assert not run.converged and run.iterations == 7 and run.trace.size == 7
    run = vi.optimize(Halving(), iter=80, tol_rel_obj=0.0)
    assert not run.converged and run.iterations == 80


def test_the_trace_holds_only_the_evaluated_iterations() -> None:
    run = vi.optimize(Halving(every=3), iter=10, tol_rel_obj=0.0)
    assert run.iterations == 10
    np.testing.assert_array_equal(run.trace_iteration, [3, 6, 9])
    assert np.all(np.diff(run.trace_time) >= 0)


def test_relative_change_is_stans_strict_rule() -> None:
    assert not vi.relative_change_converged([-10.0], 1.0)
    # |(-10) - (-9)| / |-9| = 1/9
    assert not vi.relative_change_converged([-10.0, -9.0], 1 / 9)
    assert vi.relative_change_converged([-10.0, -9.0], np.nextafter(1 / 9, np.inf))


def test_advi_rule_is_the_mean_or_median_of_a_window_of_relative_decreases() -> None:
    # iter=30: window max(3, 2) = 3; decreases: 1 (from Stan's start 0), 0.5, 0.25, 0.2
    trace = [-1.0, -2.0, -1.6, -2.0]
    decreases = [abs((p - c) / c) for p, c in zip([0.0, *trace[:-1]], trace, strict=True)]
    np.testing.assert_allclose(decreases, [1.0, 0.5, 0.25, 0.2], rtol=1e-15)
    for n in range(1, 5):
        window = decreases[max(0, n - 3) : n]
        low = min(np.mean(window), np.median(window))
        assert not vi.advi_converged(trace[:n], low, iter=30)
        assert vi.advi_converged(trace[:n], np.nextafter(low, np.inf), iter=30)
    # iter=10: window 2 (the minimum)
    low = min(np.mean(decreases[2:]), np.median(decreases[2:]))
    assert not vi.advi_converged(trace, low, iter=10)
    assert vi.advi_converged(trace, np.nextafter(low, np.inf), iter=10)
    assert not vi.advi_converged([], 1.0, iter=10)


def test_bad_iter_and_tol_raise() -> None:
    with pytest.raises(ValueError, match="iter"):
        vi.optimize(Halving(), iter=0, tol_rel_obj=0.1)
    with pytest.raises(ValueError, match="tol_rel_obj"):
        vi.optimize(Halving(), iter=5, tol_rel_obj=-1.0)


def _sgns_data() -> dict:
    return {"V": 2, "K": 1, "P": 1, "target_word": [1], "context_word": [2], "n": [3],
            "n_pos": [2], "lambda": 1.0, "grainsize": 1}  # fmt: skip


def test_inference_data_layout_draws_and_seed(tmp_path: Path) -> None:
    idata, run = vi.run_variational(
        Halving(), spec=SGNS, data=_sgns_data(), iter=100, tol_rel_obj=1e-3, draws=7, seed=4
    )
    assert idata.posterior["rho"].shape == (1, 7, 2, 1)
    assert idata.posterior["rho"].dims == ("chain", "draw", "word", "dim")
    assert idata.sample_stats["lp_approx"].shape == (1, 7)
    trace = idata[vi.TRACE_GROUP]
    assert trace["elbo"].dims == ("iteration",) and trace["time"].dims == ("iteration",)
    np.testing.assert_array_equal(trace["elbo"].values, run.trace)
    attrs = idata.attrs
    assert (attrs["iterations"], attrs["converged"], attrs["draws"]) == (run.iterations, 1, 7)
    assert attrs["final_elbo"] == run.trace[-1] and attrs["method"] == "halving"
    assert attrs["wall_time"] >= attrs["draw_time"] + attrs["init_time"]
    # draws from SeedSequence(seed, spawn_key=(1,)), the state's mean
    expected = run.iterations + vi.draws_rng(4).standard_normal((7, 2, 1))
    np.testing.assert_array_equal(idata.posterior["rho"].values[0], expected)
    again, _ = vi.run_variational(
        Halving(), spec=SGNS, data=_sgns_data(), iter=100, tol_rel_obj=1e-3, draws=7, seed=4
    )
    np.testing.assert_array_equal(again.posterior["rho"].values, idata.posterior["rho"].values)
    other, _ = vi.run_variational(
        Halving(), spec=SGNS, data=_sgns_data(), iter=100, tol_rel_obj=1e-3, draws=7, seed=5
    )
    assert not np.array_equal(other.posterior["rho"].values, idata.posterior["rho"].values)
    # the trace group round-trips through netCDF; ArviZ's summaries read the posterior
    path = tmp_path / "fit.nc"
    az.to_netcdf(idata, path)
    back = az.from_netcdf(path)
    assert vi.TRACE_GROUP in back.groups()
    np.testing.assert_array_equal(back[vi.TRACE_GROUP]["elbo"].values, run.trace)
    np.testing.assert_array_equal(back[vi.TRACE_GROUP]["iteration"].values, run.trace_iteration)
    summary = az.summary(back, var_names=["rho"], kind="stats")
    assert summary.shape == (2, 4)


@pytest.fixture(scope="module")
def tiny() -> LDAData:
    vocab = Vocabulary(tuple(f"w{i}" for i in range(5)))
    docs = [[0, 0, 1, 2], [3, 4, 4, 4, 1], [2, 2, 0], [4, 3, 3, 1, 0, 0]]
    return LDAData(BagOfWords.from_token_ids(docs, vocab), n_topics=3, alpha=0.4, beta=0.3)


def test_cavi_and_svi_through_the_driver_count_iterations_and_draws(tiny: LDAData) -> None:
    from bayeswe.lda.models import LDA, stan_data

    args = CAVIArgs(iter=3, tol_rel_obj=0.0, init="random")
    idata, run = vi.run_variational(
        CAVI(tiny, args, 2), spec=LDA, data=stan_data(tiny), iter=3, tol_rel_obj=0.0,
        draws=5, seed=2,
    )  # fmt: skip
    assert run.iterations == 3 and idata[vi.TRACE_GROUP]["elbo"].size == 3
    assert idata.posterior["phi"].shape == (1, 5, 3, 5)
    assert list(idata.posterior["word"].values) == [f"w{i}" for i in range(5)]
    svi_args = SVIArgs(iter=4, batch_size=2, init="random")
    svi, run = vi.run_variational(
        SVI(tiny, svi_args, 2), spec=LDA, data=stan_data(tiny), iter=4, tol_rel_obj=0.0,
        draws=6, seed=2,
    )  # fmt: skip
    assert run.iterations == 4 and run.state.t == 4 * 2
    np.testing.assert_array_equal(svi[vi.TRACE_GROUP]["iteration"].values, [1, 2, 3, 4])
    assert svi.posterior["theta"].shape == (1, 6, 4, 3)
