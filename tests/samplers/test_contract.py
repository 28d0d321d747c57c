"""What every Markov chain method of ``bayeswe.fit`` shares: cmdstanpy's option names and
its rounding of kept draws.

``iter_sampling=31, thin=3`` keeps ``ceil(31 / 3) = 11`` draws per chain for NUTS (Stan
itself) and for every bayeswe sampler, under the same option names, and the warm-up
length given is the one recorded.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bayeswe
from bayeswe.dp import simulate_dp_mixture, simulate_dp_multinomial, simulate_hdp_lda
from bayeswe.glda.simulate import simulate_gaussian_lda
from bayeswe.lda.simulate import simulate_lda

STAN_MODELS = Path(__file__).resolve().parents[1] / "stan_models"
ITER_SAMPLING, THIN = 31, 3


def _cases(small_data: dict[str, Any]) -> dict[str, tuple[Any, Any, dict[str, Any]]]:
    lda = simulate_lda(n_docs=6, doc_length=10, n_words=8, n_topics=2, seed=1).data
    glda = simulate_gaussian_lda(n_docs=4, doc_length=6, n_topics=2, dim=2, seed=1)[0]
    dp = simulate_dp_mixture(n_points=30, seed=1).data
    hdp = simulate_hdp_lda(n_docs=6, doc_length=10, n_words=8, truncation=4, seed=1).data
    dpm = simulate_dp_multinomial(n_points=20, n_words=6, doc_length=8, seed=1).data
    normal = {"N": 3, "y": [1.0, 2.0, 0.5], "sigma": 1.0, "m0": 0.0, "s0": 10.0}
    return {
        "nuts": (STAN_MODELS / "normal_known_sigma.stan", normal, {}),
        "pg-gibbs": ("sgns_identified", small_data, {"init": "prior"}),
        "cgs (lda)": ("lda", lda, {}),
        "cgs (gaussian_lda)": ("gaussian_lda", glda, {}),
        "alias-mh": ("gaussian_lda", glda, {}),
        "cgs (dp_mixture)": ("dp_mixture", dp, {"heldout": [[0.0, 0.0], [5.0, -5.0]]}),
        "cgs (dp_mixture, multinomial)": ("dp_mixture", dpm, {"heldout": [[1, 0, 2, 0, 0, 1]]}),
        "cgs (hdp_lda)": ("hdp_lda", hdp, {"resample_concentrations": True, "split_merge": 2}),
        "cgs (hdp_gaussian_lda)": ("hdp_gaussian_lda", glda, {"resample_concentrations": True}),
        "alias-mh (hdp_lda)": ("hdp_lda", hdp, {"rebuild_every": 2}),
    }


@pytest.mark.parametrize(
    "case",
    [
        "nuts",
        "pg-gibbs",
        "cgs (lda)",
        "cgs (gaussian_lda)",
        "alias-mh",
        "cgs (dp_mixture)",
        "cgs (dp_mixture, multinomial)",
        "cgs (hdp_lda)",
        "cgs (hdp_gaussian_lda)",
        "alias-mh (hdp_lda)",
    ],
)
def test_iter_sampling_and_thin_keep_as_many_draws_as_cmdstanpy(case, small_data) -> None:
    model, data, extra = _cases(small_data)[case]
    idata = bayeswe.fit(
        model, data, method=case.split()[0], seed=3, chains=2, iter_warmup=20,
        iter_sampling=ITER_SAMPLING, thin=THIN, **extra,
    )  # fmt: skip
    assert idata.posterior.sizes["chain"] == 2
    assert idata.posterior.sizes["draw"] == math.ceil(ITER_SAMPLING / THIN) == 11


# ----------------------------------------------------------- the driver's promises

#: The bayeswe Markov chain samplers, all run by :func:`bayeswe.samplers.driver.run_chains`.
SAMPLERS = [
    "pg-gibbs",
    "cgs (lda)",
    "cgs (gaussian_lda)",
    "alias-mh",
    "cgs (dp_mixture)",
    "cgs (dp_mixture, multinomial)",
    "cgs (hdp_lda)",
    "cgs (hdp_gaussian_lda)",
    "alias-mh (hdp_lda)",
]
RUN = {"chains": 2, "iter_warmup": 4, "iter_sampling": 9, "thin": 2}


def _fit(case: str, small_data: dict[str, Any], **options: Any) -> Any:
    model, data, extra = _cases(small_data)[case]
    return bayeswe.fit(model, data, method=case.split()[0], seed=7, **RUN, **extra, **options)


def _draws(idata: Any) -> dict[str, Any]:
    """Every kept value and statistic, by group and name."""
    return {
        (group, name): idata[group][name].values
        for group in ("posterior", "sample_stats", "warmup_sample_stats")
        for name in idata[group].data_vars
    }


def _assert_same(a: Any, b: Any) -> None:
    da, db = _draws(a), _draws(b)
    assert da.keys() == db.keys()
    for key, value in da.items():
        assert value.shape == db[key].shape and (value == db[key]).all(), key


@pytest.mark.parametrize("case", SAMPLERS)
def test_same_seed_same_draws_whatever_the_threads(case, small_data) -> None:
    """Chains own their streams: neither chains in parallel nor Numba threads change a draw."""
    one = _fit(case, small_data, parallel_chains=1, threads_per_chain=1)
    two = _fit(case, small_data, parallel_chains=2, threads_per_chain=2)
    _assert_same(one, two)
    other_seed = bayeswe.fit(
        *_cases(small_data)[case][:2], method=case.split()[0], seed=8, **RUN,
        **_cases(small_data)[case][2],
    )  # fmt: skip
    # another seed, other draws (not necessarily another lp: a chain may hold one
    # partition throughout, as Gaussian LDA's does on these well-separated data)
    mine, theirs = _draws(one), _draws(other_seed)
    assert any(not np.array_equal(value, theirs[key]) for key, value in mine.items())


class _Stop(Exception):
    pass


@pytest.mark.parametrize("case", SAMPLERS)
def test_a_run_stopped_and_resumed_equals_the_uninterrupted_run(case, small_data, tmp_path) -> None:
    straight = _fit(case, small_data)
    path = tmp_path / "run.ckpt"

    def stop(done: int) -> None:
        if done == 8:  # after the checkpoint of sweep 6, in the kept sweeps
            raise _Stop

    with pytest.raises(_Stop):
        _fit(case, small_data, checkpoint=path, checkpoint_every=3, callback=stop)
    resumed = _fit(case, small_data, checkpoint=path, checkpoint_every=3)
    assert resumed.attrs["resumed"]
    _assert_same(resumed, straight)


@pytest.mark.parametrize("case", SAMPLERS)
def test_the_output_has_the_documented_groups_dims_and_coords(case, small_data) -> None:
    idata = _fit(case, small_data)
    assert {"posterior", "sample_stats", "warmup_sample_stats"} <= set(idata.groups())
    kept = math.ceil(RUN["iter_sampling"] / RUN["thin"])
    for group, draws in (("posterior", kept), ("sample_stats", kept), ("warmup_sample_stats", 4)):
        assert dict(idata[group].sizes)["chain"] == 2
        assert idata[group].sizes["draw"] == draws, group
    assert idata.sample_stats["lp"].dims == ("chain", "draw")
    assert idata.warmup_sample_stats["lp"].dims == ("chain", "draw")
    for name, var in idata.posterior.data_vars.items():
        assert var.dims[:2] == ("chain", "draw"), name
        for dim in var.dims[2:]:
            # every dim is labelled, and the labels are the ones the data carry
            assert dim in idata.posterior.coords, (name, dim)
    for key in ("method", "seed", "iter_warmup", "iter_sampling", "thin", "wall_time",
                "sweep_time", "parallel_chains"):  # fmt: skip
        assert key in idata.attrs, key
    assert idata.attrs["iter_warmup"] == 4 and idata.attrs["iter_sampling"] == 9
