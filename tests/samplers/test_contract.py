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

import pytest

import bayeswe
from bayeswe.glda.simulate import simulate_gaussian_lda
from bayeswe.lda.simulate import simulate_lda

STAN_MODELS = Path(__file__).resolve().parents[1] / "stan_models"
ITER_SAMPLING, THIN = 31, 3


def _cases(small_data: dict[str, Any]) -> dict[str, tuple[Any, Any, dict[str, Any]]]:
    lda = simulate_lda(n_docs=6, doc_length=10, n_words=8, n_topics=2, seed=1).data
    glda = simulate_gaussian_lda(n_docs=4, doc_length=6, n_topics=2, dim=2, seed=1)[0]
    normal = {"N": 3, "y": [1.0, 2.0, 0.5], "sigma": 1.0, "m0": 0.0, "s0": 10.0}
    return {
        "nuts": (STAN_MODELS / "normal_known_sigma.stan", normal, {}),
        "pg-gibbs": ("sgns_identified", small_data, {"init": "prior"}),
        "cgs (lda)": ("lda", lda, {}),
        "cgs (gaussian_lda)": ("gaussian_lda", glda, {}),
        "alias-mh": ("gaussian_lda", glda, {}),
    }


@pytest.mark.parametrize(
    "case", ["nuts", "pg-gibbs", "cgs (lda)", "cgs (gaussian_lda)", "alias-mh"]
)
def test_iter_sampling_and_thin_keep_as_many_draws_as_cmdstanpy(case, small_data) -> None:
    model, data, extra = _cases(small_data)[case]
    idata = bayeswe.fit(
        model, data, method=case.split()[0], seed=3, chains=2, iter_warmup=20,
        iter_sampling=ITER_SAMPLING, thin=THIN, **extra,
    )  # fmt: skip
    assert idata.posterior.sizes["chain"] == 2
    assert idata.posterior.sizes["draw"] == math.ceil(ITER_SAMPLING / THIN) == 11
