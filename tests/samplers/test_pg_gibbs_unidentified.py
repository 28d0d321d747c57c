"""PG-Gibbs on the unidentified SGNS: every context vector free, a gauge move after each sweep.

Agreement with Stan's NUTS on the same unidentified model is checked on what does not
depend on the gauge (the 36 co-occurrence probabilities and the log density), at
``V = 6``, ``K = 2``, ``N = 600``, prior sd 0.5, as the identified sampler's agreement
test does; reproducibility (threads, resume) as for the identified sampler.

Calibration, and the power to see a wrong prior scale, are checked by the SBC of
``bayeswe sbc pg-gibbs-unidentified`` in ``tests/sbc``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np
import pytest
from scipy.special import expit

import bayeswe
from bayeswe.samplers import pg_gibbs as pg
from bayeswe.sgns import simulate_sgns


def _data(V: int, K: int, N: int, *, seed: int, prior_sd: float) -> dict[str, Any]:
    return simulate_sgns(V, K, N, seed=seed).data.stan_data(K, prior_sd=prior_sd)


def _probabilities(idata: az.InferenceData) -> np.ndarray:
    rho, alpha = idata.posterior["rho"].values, idata.posterior["alpha"].values
    p = expit(np.einsum("cdwk,cdvk->cdwv", rho, alpha))
    return p.reshape(p.shape[0], p.shape[1], -1)


def _mean_and_mcse(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ess = np.array([az.ess(p[..., j]) for j in range(p.shape[-1])])
    rhat = np.array([az.rhat(p[..., j]) for j in range(p.shape[-1])])
    return p.mean((0, 1)), p.std((0, 1)) / np.sqrt(ess), rhat


@pytest.fixture(scope="module")
def fits() -> tuple[az.InferenceData, az.InferenceData]:
    data = _data(6, 2, 600, seed=11, prior_sd=0.5)
    nuts = bayeswe.fit("sgns", data, method="nuts", seed=2, chains=4, iter_sampling=2000)
    gibbs = bayeswe.fit(
        "sgns", data, method="pg-gibbs", seed=2, chains=4, iter_warmup=200,
        iter_sampling=8000, thin=4, init="map", threads_per_chain=1,
    )  # fmt: skip
    return nuts, gibbs


def test_same_names_dims_and_coords_as_nuts(fits: tuple[az.InferenceData, ...]) -> None:
    nuts, gibbs = fits
    assert set(gibbs.posterior.data_vars) == set(nuts.posterior.data_vars) == {"rho", "alpha"}
    for name in ("rho", "alpha"):
        assert gibbs.posterior[name].dims == nuts.posterior[name].dims
    assert gibbs.attrs["model"] == "sgns" and gibbs.attrs["gauge_moves"] == 1


def test_cooccurrence_probabilities_agree_with_nuts(fits: tuple[az.InferenceData, ...]) -> None:
    """Means of the 36 probabilities within 4 Monte Carlo standard errors (max over 36
    correlated z: exceeded with probability below 0.23 % under agreement); sds within 10 %."""
    nuts, gibbs = fits
    pg_p, nuts_p = _probabilities(gibbs), _probabilities(nuts)
    m_g, se_g, rhat_g = _mean_and_mcse(pg_p)
    m_n, se_n, rhat_n = _mean_and_mcse(nuts_p)
    assert rhat_g.max() < 1.01 and rhat_n.max() < 1.01
    z = (m_g - m_n) / np.hypot(se_g, se_n)
    assert np.abs(z).max() < 4, z.round(2)
    np.testing.assert_allclose(pg_p.std((0, 1)), nuts_p.std((0, 1)), rtol=0.10)


def test_log_density_agrees_with_nuts(fits: tuple[az.InferenceData, ...]) -> None:
    nuts, gibbs = fits
    lp_g, lp_n = gibbs.sample_stats["lp"].values, nuts.sample_stats["lp"].values
    se = np.hypot(lp_g.std() / np.sqrt(az.ess(lp_g)), lp_n.std() / np.sqrt(az.ess(lp_n)))
    assert abs(lp_g.mean() - lp_n.mean()) < 4 * se


def test_the_gauge_moves_and_theta_does_not_care() -> None:
    """Turning the move off changes the draws of ``rho`` but not which run is reproducible."""
    data = _data(8, 2, 3000, seed=3, prior_sd=0.7)
    opts = {"seed": 4, "chains": 1, "iter_warmup": 5, "iter_sampling": 20, "init": "prior"}
    on = bayeswe.fit("sgns", data, method="pg-gibbs", **opts)
    again = bayeswe.fit("sgns", data, method="pg-gibbs", **opts)
    off = bayeswe.fit("sgns", data, method="pg-gibbs", gauge_moves=False, **opts)
    assert np.array_equal(on.posterior["rho"].values, again.posterior["rho"].values)
    assert not np.array_equal(on.posterior["rho"].values, off.posterior["rho"].values)
    assert off.attrs["gauge_moves"] == 0
    with pytest.raises(ValueError, match="gauge_moves must be True or False"):
        bayeswe.fit("sgns", data, method="pg-gibbs", gauge_moves="yes", **opts)


_DETERMINISM_SCRIPT = """
import hashlib
import numba
from bayeswe.samplers import pg_gibbs as pg
pg.GROUP_COST, pg.GROUP_MIN_SPLIT = 40, 0  # many stream groups: threads share them
from bayeswe.sgns import simulate_sgns
data = simulate_sgns(30, 3, 20000, seed=12).data.stan_data(3, prior_sd=0.6)
idata = pg.sample_pg_gibbs(data, seed=99, chains=2, iter_warmup=3, iter_sampling=6,
                           identified=False, init="prior")
h = hashlib.sha256()
for name in ("rho", "alpha"):
    h.update(idata.posterior[name].values.tobytes())
h.update(idata.sample_stats["lp"].values.tobytes())
print(numba.get_num_threads(), h.hexdigest())
"""


def test_same_seed_same_draws_for_any_thread_count() -> None:
    digests = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads}
        out = subprocess.run([sys.executable, "-c", _DETERMINISM_SCRIPT], env=env,
                             capture_output=True, text=True, check=True, timeout=600)  # fmt: skip
        n_threads, digest = out.stdout.split()
        assert n_threads == threads
        digests.append(digest)
    assert digests[0] == digests[1]


class _Stop(Exception):
    pass


def _digest(idata: az.InferenceData) -> str:
    h = hashlib.sha256()
    for name in ("rho", "alpha"):
        h.update(np.ascontiguousarray(idata.posterior[name].values).tobytes())
    h.update(np.ascontiguousarray(idata.sample_stats["lp"].values).tobytes())
    return h.hexdigest()


def test_resumed_run_equals_uninterrupted_run(tmp_path: Path) -> None:
    """The gauge move's stream is part of the checkpointed state."""
    data = _data(8, 2, 3000, seed=3, prior_sd=0.7)
    opts = {"iter_warmup": 6, "iter_sampling": 15, "thin": 2, "chains": 2, "init": "prior",
            "identified": False}  # fmt: skip
    reference = pg.sample_pg_gibbs(data, seed=11, **opts)
    path = tmp_path / "run.ckpt"

    def interrupt(done: int) -> None:
        if done == 13:
            raise _Stop

    with pytest.raises(_Stop):
        pg.sample_pg_gibbs(data, seed=11, checkpoint=path, checkpoint_every=5,
                           callback=interrupt, **opts)  # fmt: skip
    with np.load(path) as f:
        meta = json.loads(str(f["meta"]))
    chain0 = meta["chain_records"][0]
    assert len(chain0["rng_states"]) == 3 and meta["settings"]["gauge_moves"] is True
    resumed = pg.sample_pg_gibbs(data, seed=11, checkpoint=path, checkpoint_every=5, **opts)
    assert resumed.attrs["resumed"] == 1
    assert _digest(resumed) == _digest(reference)
    with pytest.raises(ValueError, match="another run"):
        pg.sample_pg_gibbs(data, seed=11, checkpoint=path, **{**opts, "gauge_moves": False})
