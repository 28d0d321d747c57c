"""Which sampler is off on 80 points? The DP mixture by collapsed Gibbs, blocked Gibbs
with and without label swaps, and NUTS.

On 80 points from three well-separated Gaussian clusters, Stan's NUTS on
``models/dp_mixture.stan`` and bayeswe's collapsed Gibbs sampler (Neal's algorithm 3
with split-merge moves, ``method="cgs"``) disagree by more than their Monte Carlo errors
allow in the held-out density at the smaller clusters. Two samplers cannot say which of
them is wrong, so this study adds a third that shares neither's machinery, in two
variants:

* **blocked Gibbs** (Ishwaran and James 2001, section 5.2) on the same truncated
  stick-breaking model as the Stan program: ``z | w, mu, Sigma`` per point,
  ``v_k | z, alpha ~ Beta(1 + n_k, alpha + sum_{j>k} n_j)``, ``(mu_k, Sigma_k) | z`` from
  their Normal-inverse-Wishart posterior, ``alpha | v ~ Gamma(a + T - 1,
  b - sum log(1 - v_k))``; plain NumPy, written here;
* the same with **label swaps** each sweep (:func:`_swap_labels`): Metropolis proposals
  to exchange two components' positions among the sticks. Without them a cluster of many
  points never changes stick (its points would have to move one by one through a
  near-empty component), and under a truncated stick-breaking prior the expected weight
  of a cluster depends on its stick: ``E[w_k | z]`` is ``n_k / (N + alpha)``, the
  Chinese restaurant's, only averaged over the orders. A sampler frozen in one order
  therefore misweights the clusters in every weight-dependent quantity, the predictive
  density among them, while its chains can agree with each other;
* **collapsed Gibbs**, ``bayeswe.fit("dp_mixture", data, method="cgs")``: the
  untruncated DP, weights integrated out;
* **NUTS**, ``bayeswe.fit("dp_mixture", data, method="nuts")`` at the same truncation,
  started from ``initial_values`` (clusters in the first sticks by decreasing size).

Compared on label-free quantities: the posterior mean number of occupied clusters, of
``alpha``, and the log posterior predictive density of held-out points (the three
clusters' centres, a point beside the smallest cluster and one between clusters), each
with its Monte Carlo standard error (ArviZ, so autocorrelation counts). The results file
holds each sampler's estimates and the pairwise ``z``, the difference over the root sum
of squared MCSEs. (On the 7 points of ``tests/dp/test_dp_kernels.py`` the collapsed
sampler matches the exact, enumerated predictive, and so did blocked Gibbs without
swaps when tried: there, points move between sticks easily.)

Run from the repository root (about 6 minutes on two cores)::

    python benchmarks/studies/dp_stick_order.py
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np
from scipy.special import gammaln

import bayeswe
from bayeswe.bench import harness
from bayeswe.dp import initial_values, log_pointwise_predictive, mixture_log_density
from bayeswe.dp.simulate import simulate_dp_mixture


def _stick_weights(v: np.ndarray) -> np.ndarray:
    """Weights of the T - 1 stick proportions ``v``, the last stick taking the rest."""
    rest = np.concatenate([[1.0], np.cumprod(1.0 - v)])
    return np.concatenate([v, [1.0]]) * rest


def _inverse_wishart(rng: np.random.Generator, nu: np.ndarray, psi: np.ndarray) -> np.ndarray:
    """One draw per component of ``IW(nu_k, psi_k)``: ``(T, P, P)``, by Bartlett's
    decomposition of the Wishart draw of the inverse (Stan's ``inv_wishart``)."""
    T, P, _ = psi.shape
    chol = np.linalg.cholesky(np.linalg.inv(psi))  # L L' = psi^-1
    A = np.zeros((T, P, P))
    for i in range(P):
        A[:, i, i] = np.sqrt(rng.chisquare(nu - i))
        A[:, i, :i] = rng.standard_normal((T, i))
    LA = chol @ A
    return np.linalg.inv(LA @ np.swapaxes(LA, 1, 2))


def _log_stick_prior(counts: np.ndarray, alpha: float) -> float:
    """``log p(z | alpha)`` of the truncated stick-breaking prior, the sticks integrated
    out: ``sum_{k<T} log B(1 + n_k, alpha + m_k) / B(1, alpha)``, ``m_k = sum_{j>k} n_j``.
    """
    after = counts[::-1].cumsum()[::-1][1:]  # m_k for k < T
    n = counts[:-1]
    return float(
        np.sum(
            np.log(alpha) + gammaln(1 + n) + gammaln(alpha + after) - gammaln(1 + alpha + n + after)
        )
    )


def _swap_labels(z: np.ndarray, alpha: float, T: int, rng: np.random.Generator) -> np.ndarray:
    """``T`` Metropolis proposals to swap the labels of two components (points, and with
    them the parameters redrawn next), on ``p(z | alpha, y)`` with sticks, means and
    covariances integrated out: the likelihood does not change, so the ratio is the
    stick prior's. Papaspiliopoulos and Roberts (2008) and Hastie, Liverani and
    Richardson (2015) use such moves because nothing else moves a cluster between sticks.
    """
    counts = np.bincount(z, minlength=T)
    current = _log_stick_prior(counts, alpha)
    perm = np.arange(T)
    for _ in range(T):
        j, k = rng.choice(T, size=2, replace=False)
        if counts[j] == counts[k]:
            continue
        proposed = counts.copy()
        proposed[[j, k]] = proposed[[k, j]]
        new = _log_stick_prior(proposed, alpha)
        if np.log(rng.random()) < new - current:
            counts, current = proposed, new
            perm[[j, k]] = perm[[k, j]]
    inverse = np.empty(T, dtype=np.int64)
    inverse[perm] = np.arange(T)
    return inverse[z]


def blocked_gibbs(
    data: dict[str, Any], *, warmup: int, draws: int, seed: int, swaps: bool = False
) -> dict[str, np.ndarray]:
    """One chain of the truncated blocked Gibbs sampler; ``(draws, ...)`` arrays.

    ``swaps``: add the label-swap moves of :func:`_swap_labels` each sweep.
    """
    rng = np.random.default_rng(seed)
    y, T = np.asarray(data["y"]), int(data["T"])
    N, P = y.shape
    mu0, kappa0, nu0, psi0 = data["mu0"], data["kappa0"], data["nu0"], data["Psi0"]
    a, b = data["alpha_shape"], data["alpha_rate"]
    alpha = 1.0
    z = rng.integers(0, T, size=N)
    out: dict[str, list[Any]] = {"w": [], "mu": [], "Sigma": [], "alpha": [], "n_occupied": []}
    for sweep in range(warmup + draws):
        if swaps:
            z = _swap_labels(z, alpha, T, rng)
        counts = np.bincount(z, minlength=T)
        # (mu_k, Sigma_k) | z: the Normal-inverse-Wishart posterior of each component
        onehot = np.zeros((N, T))
        onehot[np.arange(N), z] = 1.0
        sums = onehot.T @ y
        mean = sums / np.maximum(counts, 1)[:, None]
        centred = y[:, None, :] - mean[None, :, :]  # (N, T, P)
        scatter = np.einsum("nt,ntp,ntq->tpq", onehot, centred, centred)
        kappa_n = kappa0 + counts
        m_n = (kappa0 * mu0 + sums) / kappa_n[:, None]
        d = mean - mu0
        psi_n = (
            psi0
            + scatter
            + (kappa0 * counts / kappa_n)[:, None, None] * (d[:, :, None] * d[:, None, :])
        )
        Sigma = _inverse_wishart(rng, nu0 + counts, psi_n)
        L = np.linalg.cholesky(Sigma / kappa_n[:, None, None])
        mu = m_n + np.einsum("tpq,tq->tp", L, rng.standard_normal((T, P)))
        # v | z, alpha and alpha | v
        after = counts[::-1].cumsum()[::-1]  # sum_{j >= k} n_j
        v = rng.beta(1.0 + counts[:-1], alpha + after[1:])
        v = np.clip(v, 1e-300, 1.0 - 1e-16)
        alpha = rng.gamma(a + T - 1, 1.0 / (b - np.log1p(-v).sum()))
        w = _stick_weights(v)
        # z | w, mu, Sigma
        chol = np.linalg.cholesky(Sigma)
        diff = y[:, None, :] - mu[None, :, :]  # (N, T, P)
        sol = np.linalg.solve(chol[None], diff[..., None])[..., 0]
        logdet = np.log(np.diagonal(chol, axis1=-2, axis2=-1)).sum(-1)
        with np.errstate(divide="ignore"):
            logp = np.log(w) - logdet - 0.5 * (sol**2).sum(-1)
        z = np.argmax(logp + rng.gumbel(size=logp.shape), axis=1)
        if sweep >= warmup:
            for name, value in (("w", w), ("mu", mu), ("Sigma", Sigma), ("alpha", alpha)):
                out[name].append(value)
            out["n_occupied"].append(np.unique(z).size)
    return {k: np.asarray(v) for k, v in out.items()}


def _arviz(fn: Any, x: np.ndarray) -> float:
    """ArviZ's ``fn`` (ess, mcse, rhat) of ``(chain, draw)`` draws of a scalar."""
    dataset = az.convert_to_dataset({"x": np.asarray(x, dtype=np.float64)})
    return float(fn(dataset)["x"].values)


def _mean_and_mcse(x: np.ndarray) -> tuple[float, float]:
    """Mean over ``(chain, draw)`` and ArviZ's MCSE of it."""
    return float(x.mean()), _arviz(az.mcse, x)


def _estimates(n_occupied, alpha, log_density) -> dict[str, Any]:
    lpd, se = log_pointwise_predictive(log_density)
    return {
        "n_occupied": _mean_and_mcse(n_occupied),
        "alpha": _mean_and_mcse(alpha),
        "lpd": [(float(m), float(s)) for m, s in zip(lpd, se, strict=True)],
        "ess_bulk_n_occupied": _arviz(az.ess, n_occupied),
    }


def _z(one: tuple[float, float], other: tuple[float, float]) -> float:
    return (one[0] - other[0]) / float(np.hypot(one[1], other[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=80)
    parser.add_argument("--truncation", type=int, default=30)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--gibbs-warmup", type=int, default=2000)
    parser.add_argument("--gibbs-draws", type=int, default=20000)
    parser.add_argument("--nuts-warmup", type=int, default=1000)
    parser.add_argument("--nuts-draws", type=int, default=1000)
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/studies/dp_stick_order.json")
    )
    args = parser.parse_args()
    facts = harness.start_run()
    sim = simulate_dp_mixture(n_points=args.points, truncation=args.truncation, seed=args.seed)
    data = sim.data
    stan = data.to_stan()
    y = np.asarray(stan["y"])
    labels = np.asarray(sim.labels)
    sizes = np.bincount(labels)
    smallest = int(np.argmin(np.where(sizes > 0, sizes, np.inf)))
    centres = np.array([y[labels == k].mean(0) for k in range(sizes.size) if sizes[k]])
    spread = float(np.sqrt(np.var(y[labels == smallest], axis=0).sum()))
    beside = centres[list(np.flatnonzero(sizes)).index(smallest)] + [2.0 * spread, 0.0]
    held = np.vstack([centres, beside, centres.mean(0)])

    runs: dict[str, Any] = {}
    t0 = time.perf_counter()
    cgs = bayeswe.fit(
        "dp_mixture", data, method="cgs", seed=args.seed, chains=args.chains,
        iter_warmup=args.gibbs_warmup, iter_sampling=args.gibbs_draws, heldout=held,
    )  # fmt: skip
    post = cgs.posterior
    runs["collapsed_gibbs"] = _estimates(
        post["n_clusters"].values, post["alpha"].values, post["heldout_log_density"].values
    ) | {"wall_s": time.perf_counter() - t0}

    for name, swaps in (("blocked_gibbs", False), ("blocked_gibbs_swaps", True)):
        t0 = time.perf_counter()
        chains = [
            blocked_gibbs(stan, warmup=args.gibbs_warmup, draws=args.gibbs_draws,
                          seed=args.seed + c, swaps=swaps)
            for c in range(args.chains)
        ]  # fmt: skip
        bg = {k: np.stack([c[k] for c in chains]) for k in chains[0]}
        log_density = mixture_log_density(bg["w"], bg["mu"], bg["Sigma"], held)
        runs[name] = _estimates(bg["n_occupied"], bg["alpha"], log_density) | {
            "wall_s": time.perf_counter() - t0,
            "leftover_mean": float(bg["w"][..., -1].mean()),
        }

    t0 = time.perf_counter()
    nuts = bayeswe.fit(
        "dp_mixture", data, method="nuts", seed=args.seed, chains=args.chains,
        iter_warmup=args.nuts_warmup, iter_sampling=args.nuts_draws, adapt_delta=0.95,
        inits=initial_values(data, seed=args.seed, chains=args.chains), show_progress=False,
    )  # fmt: skip
    npost = nuts.posterior
    runs["nuts"] = _estimates(
        npost["n_occupied"].values,
        npost["alpha"].values,
        mixture_log_density(npost["w"].values, npost["mu"].values, npost["Sigma"].values, held),
    ) | {
        "wall_s": time.perf_counter() - t0,
        "divergences": int(nuts.sample_stats["diverging"].values.sum()),
        "leftover_mean": float(npost["leftover"].mean()),
        "rhat_n_occupied": _arviz(az.rhat, npost["n_occupied"].values),
    }

    z: dict[str, Any] = {}
    names = list(runs)
    for i, one in enumerate(names):
        for other in names[i + 1 :]:
            a, b = runs[one], runs[other]
            z[f"{one}-{other}"] = {
                "n_occupied": _z(a["n_occupied"], b["n_occupied"]),
                "alpha": _z(a["alpha"], b["alpha"]),
                "lpd": [_z(p, q) for p, q in zip(a["lpd"], b["lpd"], strict=True)],
            }
    out = {
        "study": "dp-stick-order",
        "summary": {
            "z": z,
            "max_abs_z": {
                pair: max(abs(v["n_occupied"]), abs(v["alpha"]), *map(abs, v["lpd"]))
                for pair, v in z.items()
            },
        },
        "settings": vars(args)
        | {
            "output": str(args.output),
            "cluster_sizes": sizes.tolist(),
            "held_out": held.tolist(),
        },  # fmt: skip
        "samplers": runs,
        "run": harness.finish_run(facts),
    }
    harness.write_json_atomic(args.output, out)
    print(json.dumps(out["summary"], indent=1))
    for name, r in runs.items():
        print(name, {k: r[k] for k in ("n_occupied", "alpha")}, [round(m, 4) for m, _ in r["lpd"]])


if __name__ == "__main__":
    main()
