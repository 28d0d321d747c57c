"""``laplace-sparse``: the exact sparse Hessian of ``sgns_identified`` and its three solvers.

* the Hessian equals central differences of a NumPy gradient of eq. (5) + eq. (6);
* each solver's draws are ``T eps`` with ``T T' = H^-1`` exactly (sparse, dense) or
  ``blockdiag(H_bb)^-1`` exactly (block-diagonal); SuperLU's factor is ``P L D L' P'``;
* against Stan's ``laplace`` at the same mode: the same mode, Stan's ``log_q__`` is the
  quadratic form of our ``H`` (Stan's H is a finite-difference one), its draws have
  covariance ``H^-1`` and agree with ours in mean and variance (z-tests);
* bad input raises typed errors before the MAP.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

import bayeswe
from bayeswe.errors import StanDataError
from bayeswe.samplers import laplace_sparse as ls
from bayeswe.sgns import simulate_sgns
from bayeswe.sgns.models import SGNS_IDENTIFIED

V, K = 8, 2
#: Bonferroni-style bound for z-scores of a few hundred entries (two-sided 1e-6 each).
Z_MAX = 5.0
#: L-BFGS run to its precision limit, so that Stan's laplace, started at our mode,
#: stops where it starts (Stan's default tolerances leave the mode ~1e-5 loose).
TIGHT = {"tol_obj": 1e-14, "tol_rel_obj": 1.0, "tol_grad": 1e-12, "tol_rel_grad": 10.0,
         "tol_param": 1e-14}  # fmt: skip


def _data() -> tuple[dict[str, Any], Any]:
    sim = simulate_sgns(V, K, 3000, seed=3)
    fixed = np.arange(V - K, V)
    stan = sim.data.stan_data(K, prior_sd=1.0, fixed_index=fixed, fixed_alpha=sim.alpha[fixed])
    return stan, sim


def _neg_log_post_grad(theta: np.ndarray, problem: ls.LaplaceProblem, data: Any) -> np.ndarray:
    """Gradient of -(eq. (5) + eq. (6)) in NumPy, variables as in ``H``."""
    rho = theta[: V * K].reshape(V, K)
    alpha = problem.full_alpha(theta[V * K :].reshape(-1, K))
    x = np.einsum("pk,pk->p", rho[data.target], alpha[data.context])
    resid = data.n / (1.0 + np.exp(-x)) - data.n_pos
    g_rho, g_alpha = rho / problem.prior_sd**2, alpha / problem.prior_sd**2
    np.add.at(g_rho, data.target, resid[:, None] * alpha[data.context])
    np.add.at(g_alpha, data.context, resid[:, None] * rho[data.target])
    return np.concatenate([g_rho.ravel(), g_alpha[problem.free_index].ravel()])


@pytest.fixture(scope="module")
def setup() -> dict[str, Any]:
    stan, sim = _data()
    problem = ls.LaplaceProblem.from_stan_data(stan)
    parts = ls.laplace_parts(stan, seed=11, solver="sparse-cholesky", map_options=TIGHT)
    return {"stan": stan, "sim": sim, "problem": problem, "parts": parts}


def test_hessian_equals_finite_differences_of_the_gradient() -> None:
    stan, sim = _data()
    problem = ls.LaplaceProblem.from_stan_data(stan)
    # Anywhere, not only at the mode: the true embeddings.
    rho, alpha_free = sim.rho, sim.alpha[problem.free_index]
    H = ls.hessian(stan, rho, alpha_free)
    dense = H.toarray()
    theta = np.concatenate([rho.ravel(), alpha_free.ravel()])
    h = 1e-5
    fd = np.array(
        [
            (_neg_log_post_grad(theta + h * e, problem, sim.data)
             - _neg_log_post_grad(theta - h * e, problem, sim.data)) / (2 * h)
            for e in np.eye(theta.size)
        ]
    )  # fmt: skip
    # central differences: truncation ~h^2 |f'''| ~ 1e-8, rounding ~1e-16 |g| / h ~ 1e-9
    assert np.abs(dense - fd).max() <= 1e-6 * np.abs(dense).max()
    assert np.array_equal(dense, dense.T)
    # blocks: rho-rho and alpha-alpha between different vectors are zero (eqs. (32)-(33));
    # one dense K x K block per vector and two per (target, free context) pair
    free = np.isin(sim.data.context, problem.free_index)
    pairs = {(w, c) for w, c in zip(sim.data.target[free], sim.data.context[free], strict=True)}
    assert H.nnz == K * K * (2 * V - K + 2 * len(pairs)) == problem.nnz_hessian
    rr = dense[: V * K, : V * K].reshape(V, K, V, K)
    off = ~np.eye(V, dtype=bool)
    assert np.all(rr.transpose(0, 2, 1, 3)[off] == 0)


def test_sparse_factor_reproduces_H_and_every_solver_its_covariance(setup) -> None:
    parts, problem = setup["parts"], setup["problem"]
    H = parts.hessian.toarray()
    f = parts.factor
    n = H.shape[0]
    P = sp.csc_matrix((np.ones(n), (np.arange(n), f.perm)), shape=(n, n))  # (P y)[i] = y[perm[i]]
    rebuilt = (P @ f.L @ sp.diags(f.d) @ f.L.T @ P.T).toarray()
    assert np.abs(rebuilt - H).max() <= 1e-10 * np.abs(H).max()
    cov = np.linalg.inv(H)
    eye = np.eye(n)
    for how in ("superlu", "triangular"):
        T = f.transform(eye, how=how)
        assert np.abs(T @ T.T - cov).max() <= 1e-10 * np.abs(cov).max(), how
    dense = ls.factorize(parts.hessian, "dense")
    T = dense.transform(eye)
    assert np.abs(T @ T.T - cov).max() <= 1e-10 * np.abs(cov).max()
    # block-diagonal: exactly the inverse of each vector's own block, zero elsewhere
    blocks = ls._diagonal_blocks(problem, parts.rho, parts.alpha_free)
    nb = problem.n_blocks
    for b in range(nb):
        sl = slice(b * K, (b + 1) * K)
        assert np.array_equal(blocks[b], H[sl, sl])
    T = ls.factorize(None, "block-diagonal", blocks=blocks).transform(eye)
    got = T @ T.T
    want = np.zeros_like(H)
    for b in range(nb):
        sl = slice(b * K, (b + 1) * K)
        want[sl, sl] = np.linalg.inv(H[sl, sl])
    assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max()


def test_draws_have_covariance_H_inverse_when_the_ordering_is_not_an_involution() -> None:
    """A fill-reducing ordering is generally not its own inverse; a factor that applied
    ``P'`` where ``P`` belongs would pass at sizes where it happens to be one."""
    V_, K_ = 40, 3
    sim = simulate_sgns(V_, K_, 20_000, seed=5)
    fixed = np.arange(V_ - K_, V_)
    stan = sim.data.stan_data(K_, prior_sd=1.0, fixed_index=fixed, fixed_alpha=sim.alpha[fixed])
    parts = ls.laplace_parts(stan, seed=2, solver="sparse-cholesky", optimizer="bayeswe")
    f = parts.factor
    n = parts.hessian.shape[0]
    assert not np.array_equal(f.perm[f.perm], np.arange(n))
    P = sp.csc_matrix((np.ones(n), (np.arange(n), f.perm)), shape=(n, n))
    H = parts.hessian.toarray()
    rebuilt = (P @ f.L @ sp.diags(f.d) @ f.L.T @ P.T).toarray()
    assert np.abs(rebuilt - H).max() <= 1e-10 * np.abs(H).max()
    cov = np.linalg.inv(H)
    for how in ("superlu", "triangular"):
        T = f.transform(np.eye(n), how=how)
        assert np.abs(T @ T.T - cov).max() <= 1e-9 * np.abs(cov).max(), how


def _stan_mode(output_dir: Path) -> dict[str, np.ndarray]:
    import cmdstanpy

    mle = cmdstanpy.from_csv(str(output_dir / "mode"))
    return {k: np.asarray(mle.stan_variable(k)) for k in ("rho", "alpha_free")}


def test_agrees_with_stan_laplace(setup, tmp_path: Path) -> None:
    stan, parts, problem = setup["stan"], setup["parts"], setup["problem"]
    draws = 4000
    start = {"rho": parts.rho, "alpha_free": parts.alpha_free}
    ref = bayeswe.fit(SGNS_IDENTIFIED, stan, method="laplace", seed=5, inits=start,
                      draws=draws, output_dir=str(tmp_path), sig_figs=18, **TIGHT)  # fmt: skip
    mode = _stan_mode(tmp_path)
    assert np.abs(mode["rho"] - parts.rho).max() <= 1e-6
    assert np.abs(mode["alpha_free"] - parts.alpha_free).max() <= 1e-6

    rho = ref.posterior["rho"].values[0]
    alpha_free = ref.posterior["alpha_free"].values[0]
    theta = np.concatenate([rho.reshape(draws, -1), alpha_free.reshape(draws, -1)], axis=1)
    dev = theta - parts.mean
    H = parts.hessian.toarray()
    # Stan's log_q__ = -z'z / 2 with z = L^-1 (theta - mode), L L' = H_fd^-1: the quadratic
    # form of its finite-difference Hessian, which ours must match to its accuracy.
    quad = -0.5 * np.einsum("di,ij,dj->d", dev, H, dev)
    lq = ref.sample_stats["lp_approx"].values[0]
    assert np.abs(lq - quad).max() <= 1e-5 * np.abs(quad).max()  # measured 3e-7
    # Stan's log_p__ and our lp differ by a constant at most.
    ours_lp = problem.log_density(rho, alpha_free)
    diff = ref.sample_stats["lp"].values[0] - ours_lp
    assert np.ptp(diff) <= 1e-8 * np.abs(ours_lp).max()

    # sample covariance of Stan's draws vs H^-1: Var(S_ij) = (S_ii S_jj + S_ij^2) / (n - 1)
    cov = np.linalg.inv(H)
    S = np.cov(theta, rowvar=False)
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / (draws - 1))
    assert np.max(np.abs(S - cov) / se) <= Z_MAX

    # our draws vs Stan's: means and variances, two-sample z-tests per coordinate
    ours = ls.sample_laplace_sparse(
        stan, seed=7, draws=draws, mode={"rho": parts.rho, "alpha_free": parts.alpha_free}
    )
    mine = np.concatenate(
        [ours.posterior["rho"].values[0].reshape(draws, -1),
         ours.posterior["alpha_free"].values[0].reshape(draws, -1)], axis=1,
    )  # fmt: skip
    var = np.diag(cov)
    z_mean = (mine.mean(0) - theta.mean(0)) / np.sqrt(2 * var / draws)
    z_var = (mine.var(0, ddof=1) - theta.var(0, ddof=1)) / np.sqrt(2 * 2 * var**2 / (draws - 1))
    assert np.abs(z_mean).max() <= Z_MAX
    assert np.abs(z_var).max() <= Z_MAX
    # and our lp is Stan's log density of our draws (same constant as above)
    lp = ours.sample_stats["lp"].values[0]
    assert np.allclose(lp, problem.log_density(ours.posterior["rho"].values[0],
                                               ours.posterior["alpha_free"].values[0]))  # fmt: skip


def test_output_layout_and_same_seed_same_draws(setup) -> None:
    stan, parts = setup["stan"], setup["parts"]
    mode = {"rho": parts.rho, "alpha_free": parts.alpha_free}
    a = ls.sample_laplace_sparse(stan, seed=3, draws=50, mode=mode, solver="block-diagonal")
    b = ls.sample_laplace_sparse(stan, seed=3, draws=50, mode=mode, solver="block-diagonal")
    c = ls.sample_laplace_sparse(stan, seed=4, draws=50, mode=mode, solver="block-diagonal")
    assert np.array_equal(a.posterior["rho"].values, b.posterior["rho"].values)
    assert not np.array_equal(a.posterior["rho"].values, c.posterior["rho"].values)
    post = a.posterior
    assert post["rho"].dims == ("chain", "draw", "word", "dim")
    assert post["alpha_free"].dims == ("chain", "draw", "free_word", "dim")
    assert post["rho"].shape == (1, 50, V, K)
    fixed = np.asarray(stan["fixed_index"]) - 1
    assert np.all(post["alpha"].values[0][:, fixed] == np.asarray(stan["fixed_alpha"]))
    assert a.attrs["method"] == "laplace-sparse" and a.attrs["solver"] == "block-diagonal"
    # eps: SeedSequence(seed, spawn_key=(1,)), draw after draw
    eps = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(1,))).standard_normal(
        (50, parts.mean.size)
    )
    assert np.allclose(a.sample_stats["lp_approx"].values[0], -0.5 * np.sum(eps**2, axis=1))


def test_same_shape_as_stans_laplace(setup) -> None:
    """Groups, variables (in order), dims, statistics and Stan's run attrs as ``laplace``."""
    stan = setup["stan"]
    ours = bayeswe.fit("sgns_identified", stan, method="laplace-sparse", seed=11, draws=20)
    theirs = bayeswe.fit("sgns_identified", stan, method="laplace", seed=11, draws=20)
    assert ours.groups() == theirs.groups()
    for group in ours.groups():
        assert list(ours[group].data_vars) == list(theirs[group].data_vars), group
        for name in ours[group].data_vars:
            assert ours[group][name].dims == theirs[group][name].dims, (group, name)
            assert ours[group][name].shape == theirs[group][name].shape, (group, name)
    # Stan's run attrs, but for the compiler and the library that produced the draws
    stan_only = {"toolchain", "inference_library", "inference_library_version"}
    assert set(theirs.attrs) - stan_only <= set(ours.attrs)
    assert ours.attrs["jacobian"] == theirs.attrs["jacobian"] == 1
    assert ours.attrs["stan_version"] == theirs.attrs["stan_version"]


def test_errors_are_typed_and_come_before_the_map(setup, tmp_path: Path) -> None:
    stan, sim = setup["stan"], setup["sim"]
    with pytest.raises(ValueError, match="chains"):
        ls.sample_laplace_sparse(stan, seed=1, chains=2)
    with pytest.raises(ValueError, match="solver"):
        ls.sample_laplace_sparse(stan, seed=1, solver="qr")
    with pytest.raises(ValueError, match="does not take"):
        ls.sample_laplace_sparse(stan, seed=1, iter_sampling=10)
    out = tmp_path / "map"
    with pytest.raises(ls.HessianMemoryError, match="block-diagonal"):
        ls.sample_laplace_sparse(stan, seed=1, max_memory_gb=1e-6,
                                 map_options={"output_dir": str(out)})  # fmt: skip
    assert not out.exists() or not any(out.iterdir())  # the MAP never ran
    broken = {k: v for k, v in stan.items() if k != "n_pos"}
    with pytest.raises(StanDataError, match="n_pos"):
        ls.sample_laplace_sparse(broken, seed=1)
    with pytest.raises(ValueError, match="shape"):
        ls.sample_laplace_sparse(stan, seed=1, mode={"rho": sim.rho[:3], "alpha_free": sim.rho})
    # the true embeddings are not the mode, and H is indefinite there
    free = np.setdiff1d(np.arange(V), np.asarray(stan["fixed_index"]) - 1)
    truth = {"rho": sim.rho, "alpha_free": sim.alpha[free]}
    for solver in ("sparse-cholesky", "dense"):
        with pytest.raises(ls.HessianNotPositiveDefiniteError, match="not positive definite"):
            ls.sample_laplace_sparse(stan, seed=1, mode=truth, solver=solver)
