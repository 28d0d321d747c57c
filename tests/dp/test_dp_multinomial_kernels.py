"""The DP-multinomial kernels: bookkeeping, the Dirichlet-multinomial predictive, exactness.

As for the Gaussian kernels, the strongest check is exact enumeration: for five count
vectors the posterior over all 52 set partitions (CRP prior times Dirichlet-multinomial
marginals) is computed from scratch, and each move of the sampler, alone or combined,
must visit the partitions with those frequencies within Monte Carlo error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from bayeswe.kernels import dp_mixture as gauss
from bayeswe.kernels import dp_multinomial as kern
from bayeswe.samplers.lda_cgs import chain_stream

BETA = np.array([0.4, 0.7, 0.3, 0.9])


def _points(counts: np.ndarray) -> kern.Points:
    rows, cols = np.nonzero(counts)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=counts.shape[0]))])
    return kern.make_points(ptr, cols, counts[rows, cols])


def _counts(N: int, seed: int, length: tuple[int, int] = (2, 6)) -> np.ndarray:
    """Count vectors from two well-apart multinomials (random lengths)."""
    rng = np.random.default_rng(seed)
    phi = np.array([[0.6, 0.3, 0.05, 0.05], [0.05, 0.1, 0.5, 0.35]])
    lab = rng.integers(2, size=N)
    return np.stack([rng.multinomial(rng.integers(*length, endpoint=True), phi[k]) for k in lab])


def _log_marginal(x: np.ndarray, beta: np.ndarray = BETA) -> float:
    """Dirichlet-multinomial marginal of the token sequences of rows ``x``, from scratch."""
    if x.shape[0] == 0:
        return 0.0
    c = x.sum(axis=0)
    return float(
        gammaln(beta.sum())
        - gammaln(beta.sum() + c.sum())
        + (gammaln(beta + c) - gammaln(beta)).sum()
    )


def _check_bookkeeping(cl: kern.Clusters, x: np.ndarray, z: np.ndarray) -> None:
    N = x.shape[0]
    K = int(cl.counts[0])
    active = np.sort(cl.active[:K])
    assert np.array_equal(active, np.unique(z))
    assert (cl.pos[cl.active[:K]] == np.arange(K)).all()
    free = cl.free[: cl.counts[1]]
    assert K + free.size == N and not set(free) & set(active)
    assert (cl.pos[free] == -1).all()
    assert (cl.words[free] == 0).all() and (cl.n[free] == 0).all() and (cl.tokens[free] == 0).all()
    for k in active:
        members = x[z == k]
        assert cl.n[k] == members.shape[0]
        assert np.array_equal(cl.words[k], members.sum(axis=0))
        assert cl.tokens[k] == members.sum()


def test_counts_equal_a_recomputation_after_many_moves() -> None:
    N = 40
    x = _counts(N, seed=1)
    pts = _points(x)
    prior = kern.make_prior(BETA, 2.0, 1.5)
    cl = kern.new_clusters(N, 4)
    z = np.zeros(N, dtype=np.int64)
    kern.build_clusters(cl, pts, z)
    rng = chain_stream(11, 0)
    members, side = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
    alpha, moves = 1.0, {1: 0, -1: 0, 0: 0}
    for _ in range(300):
        kern.gibbs_sweep(prior, cl, pts, z, alpha, rng)
        for _ in range(3):
            moves[kern.split_merge(prior, cl, pts, z, alpha, rng, members, side)] += 1
        alpha = gauss.sample_alpha(alpha, int(cl.counts[0]), N, 2.0, 1.5, rng)
    assert moves[1] > 0 and moves[-1] > 0  # both kinds of move were accepted
    _check_bookkeeping(cl, x, z)
    labels = np.unique(z)
    direct = (
        stats.gamma(2.0, scale=1 / 1.5).logpdf(alpha)
        + labels.size * np.log(alpha) + gammaln(alpha) - gammaln(alpha + N)
        + sum(gammaln((z == k).sum()) + _log_marginal(x[z == k]) for k in labels)
    )  # fmt: skip
    assert kern.log_joint(prior, cl, N, alpha) == pytest.approx(direct, rel=1e-12)


def test_predictive_is_the_ratio_of_marginals_and_the_held_out_mixture() -> None:
    x = np.array([[3, 0, 1, 0], [2, 1, 0, 0], [0, 0, 4, 2], [1, 0, 0, 0]])
    pts = _points(x)
    prior = kern.make_prior(BETA, 2.0, 1.5)
    cl = kern.new_clusters(4, 4)
    z = np.array([0, 0, 1, 1], dtype=np.int64)
    kern.build_clusters(cl, pts, z)
    new = np.array([[2, 0, 0, 1], [0, 0, 0, 5]])
    held = _points(new)
    for k, members in ((z[0], x[:2]), (z[2], x[2:])):
        for r in range(2):
            got = kern.log_predictive(prior, cl, k, held, r)
            want = _log_marginal(np.vstack([members, new[r]])) - _log_marginal(members)
            assert got == pytest.approx(want, rel=1e-12)
        assert kern.cluster_log_marginal(prior, cl, k) == pytest.approx(
            _log_marginal(members), rel=1e-12
        )
    empty = int(cl.free[cl.counts[1] - 1])
    assert kern.log_predictive(prior, cl, empty, held, 1) == pytest.approx(
        _log_marginal(new[1:2]), rel=1e-12
    )
    # held-out density: sum_k n_k/(N+alpha) m(S_k + x)/m(S_k) + alpha/(N+alpha) m({x})
    alpha = 0.7
    out = np.empty(2)
    kern.predictive_log_density(prior, cl, 4, alpha, held, out)
    for r in range(2):
        terms = [
            np.log(2) + _log_marginal(np.vstack([x[:2], new[r]])) - _log_marginal(x[:2]),
            np.log(2) + _log_marginal(np.vstack([x[2:], new[r]])) - _log_marginal(x[2:]),
            np.log(alpha) + _log_marginal(new[r : r + 1]),
        ]
        assert out[r] == pytest.approx(np.logaddexp.reduce(terms) - np.log(4 + alpha), rel=1e-12)


# --------------------------------------------------------------- exact enumeration


def _set_partitions(n: int) -> list[tuple[int, ...]]:
    """Every partition of ``range(n)`` as a restricted-growth string."""
    out = [(0,)]
    for _ in range(1, n):
        out = [p + (k,) for p in out for k in range(max(p) + 2)]
    return out


def _canonical(z: np.ndarray) -> tuple[int, ...]:
    seen: dict[int, int] = {}
    return tuple(seen.setdefault(int(k), len(seen)) for k in z)


def _exact_posterior(x: np.ndarray, alpha: float | None, a: float, b: float):
    """Posterior over partitions at fixed ``alpha`` or with ``alpha ~ Gamma(a, b)``
    integrated out (trapezoid rule on log alpha); also ``E[alpha | x]``."""
    parts = _set_partitions(x.shape[0])
    N = x.shape[0]
    K = np.array([max(p) + 1 for p in parts])
    lab = [np.array(p) for p in parts]
    w = np.array(
        [sum(gammaln((q == k).sum()) + _log_marginal(x[q == k]) for k in range(q.max() + 1))
         for q in lab]
    )  # fmt: skip
    if alpha is not None:
        logp = w + K * np.log(alpha)
        p = np.exp(logp - logp.max())
        return parts, p / p.sum(), alpha
    la = np.linspace(-14, 8, 20001)
    al = np.exp(la)
    base = a * la - b * al + gammaln(al) - gammaln(al + N)
    joint = base[None, :] + K[:, None] * la[None, :] + w[:, None]
    dens = np.exp(joint - joint.max())
    mass = np.trapezoid(dens, la, axis=1)
    e_alpha = np.trapezoid((dens * al[None]).sum(axis=0), la) / mass.sum()
    return parts, mass / mass.sum(), e_alpha


def _batch_se(v: np.ndarray, batches: int = 50) -> np.ndarray:
    m = v[: v.shape[0] // batches * batches].reshape(batches, -1, *v.shape[1:]).mean(axis=1)
    return m.std(axis=0, ddof=1) / np.sqrt(batches)


def run_chain(x, prior, *, gibbs, sm, alpha, resample, sweeps, seed, sweep=None):
    """Partitions and alphas of one chain; ``sweep`` replaces :func:`kern.gibbs_sweep`."""
    N = x.shape[0]
    pts = _points(x)
    cl = kern.new_clusters(N, x.shape[1])
    z = np.zeros(N, dtype=np.int64)
    kern.build_clusters(cl, pts, z)
    rng = chain_stream(seed, 0)
    members, side = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
    zs = np.empty((sweeps, N), dtype=np.int64)
    alphas = np.empty(sweeps)
    gibbs_sweep = kern.gibbs_sweep if sweep is None else sweep
    for t in range(sweeps):
        if gibbs:
            gibbs_sweep(prior, cl, pts, z, alpha, rng)
        for _ in range(sm):
            kern.split_merge(prior, cl, pts, z, alpha, rng, members, side)
        if resample:
            alpha = gauss.sample_alpha(
                alpha, int(cl.counts[0]), N, prior.alpha_shape, prior.alpha_rate, rng
            )
        zs[t] = z
        alphas[t] = alpha
    _check_bookkeeping(cl, x, z)
    return zs, alphas


#: Five count vectors, overlapping enough that many of the 52 partitions have mass.
ENUM_X = np.array([[2, 1, 0, 0], [1, 1, 1, 0], [0, 1, 2, 1], [0, 0, 1, 2], [1, 0, 0, 1]])
ENUM_A, ENUM_B, ENUM_ALPHA = 2.0, 1.5, 0.8


def partition_z_scores(zs: np.ndarray, alpha: float | None) -> tuple[np.ndarray, float, float]:
    """z-scores of the visit frequencies, total variation distance, ``E[alpha | x]``."""
    parts, exact, e_alpha = _exact_posterior(ENUM_X, alpha, ENUM_A, ENUM_B)
    index = {p: i for i, p in enumerate(parts)}
    hit = np.zeros((zs.shape[0], len(parts)))
    hit[np.arange(zs.shape[0]), [index[_canonical(z)] for z in zs]] = 1.0
    freq = hit.mean(axis=0)
    z_scores = (freq - exact) / np.maximum(_batch_se(hit), 1e-4)
    return z_scores, 0.5 * np.abs(freq - exact).sum(), e_alpha


@pytest.mark.parametrize(
    ("gibbs", "sm", "resample"),
    [(True, 0, False), (False, 2, False), (True, 1, True)],
    ids=["gibbs-only", "split-merge-only", "all-moves-alpha-resampled"],
)
def test_partition_frequencies_match_the_enumerated_posterior(gibbs, sm, resample) -> None:
    prior = kern.make_prior(BETA, ENUM_A, ENUM_B)
    zs, alphas = run_chain(ENUM_X, prior, gibbs=gibbs, sm=sm, alpha=ENUM_ALPHA,
                           resample=resample, sweeps=60_000, seed=21)  # fmt: skip
    z_scores, tv, e_alpha = partition_z_scores(zs, None if resample else ENUM_ALPHA)
    # 52 partitions: |z| < 4.5 for all of them fails a correct sampler with prob ~ 4e-4
    assert np.abs(z_scores).max() < 4.5, np.abs(z_scores).max()
    assert tv < 0.02
    if resample:
        assert abs(alphas.mean() - e_alpha) < 4.0 * _batch_se(alphas[:, None])[0]


def test_a_gibbs_pass_with_independent_token_predictives_fails_the_enumeration(
    monkeypatch,
) -> None:
    """Scoring a point's tokens as independent given the cluster (no rising factorial)
    is caught by the check above, at the same run length. The wrong pass lives in
    tests/sbc/dp_faulty.py."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "sbc"))
    import dp_faulty

    prior = kern.make_prior(BETA, ENUM_A, ENUM_B)
    zs, _ = run_chain(ENUM_X, prior, gibbs=True, sm=0, alpha=ENUM_ALPHA, resample=False,
                      sweeps=60_000, seed=21,
                      sweep=dp_faulty.gibbs_sweep_independent_tokens)  # fmt: skip
    z_scores, tv, _ = partition_z_scores(zs, ENUM_ALPHA)
    assert np.abs(z_scores).max() > 10 and tv > 0.05
