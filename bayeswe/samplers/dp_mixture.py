"""Collapsed Gibbs sampling for the DP mixture of Gaussians:
``bayeswe.fit("dp_mixture", data, method="cgs", ...)``.

The sampler targets ``p(z, alpha | y)`` of :class:`~bayeswe.dp.DPMixtureData`'s model
without truncation: the cluster parameters and the weights are integrated out, and the
partition ``z`` follows the Chinese restaurant process. It is the posterior of
``models/dp_mixture.stan`` (same NIW prior, same ``alpha ~ Gamma(alpha_shape,
alpha_rate)``) in the limit of a large truncation ``T``; the Stan twin at a ``T`` whose
leftover stick mass is small agrees with it on every label-free quantity.

A sweep (:func:`step`) is: one pass of Neal's (2000) algorithm 3 over the points,
``split_merge`` sequentially-allocated split-merge proposals (Dahl 2003), and one
Escobar & West (1995) update of ``alpha``; the kernels are in
:mod:`bayeswe.kernels.dp_mixture`. :class:`DPMixtureSampler` puts this on the protocol
of :mod:`bayeswe.samplers.driver`; :func:`sample_dp_mixture` runs it.

What a kept draw records, all label-free: ``lp`` (``log p(y, z, alpha)``, collapsed),
``n_clusters`` (occupied clusters), ``alpha`` and, given held-out points, the log
predictive density of each of them given the partition, ``heldout_log_density``, and
their sum ``heldout_lpd``. Per-cluster summaries (weights ``n_k / (N + alpha)`` and
posterior means, sorted by size) are kept for display in their own group,
``cluster_summaries``: cluster labels switch from draw to draw, so diagnostics must
never be computed on them.

Random streams: chain ``c`` owns a xoshiro256+ generator seeded from
``numpy.random.SeedSequence(seed, spawn_key=(c,))``; the draws do not depend on how
many threads run the chains.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe._arviz import az
from bayeswe.dp.data import DPDataError, DPMixtureData, DPMultinomialData
from bayeswe.kernels import dp_mixture as kern
from bayeswe.samplers.dp_options import (
    DEFAULT_SCHEDULE,
    INITS,
    SPLIT_MERGE,
    DPMixtureArgs,
    DPSampler,
    checked_alpha,
    checked_arrays,
    initial_partition,
    run_dp_cgs,
)
from bayeswe.samplers.lda_cgs import chain_stream

__all__ = [
    "DEFAULT_SCHEDULE",
    "INITS",
    "SPLIT_MERGE",
    "DPMixtureArgs",
    "DPMixtureProblem",
    "DPMixtureSampler",
    "DPMixtureState",
    "init_state",
    "sample_dp_mixture",
    "step",
]


@dataclass(frozen=True)
class DPMixtureProblem:
    """The points, the priors as the kernels take them, and optional held-out points."""

    y: np.ndarray  #: (N, P) C-contiguous
    prior: kern.Prior
    heldout: np.ndarray  #: (M, P), M may be 0
    #: Slots of the display summaries (weights, means): the data's truncation T.
    display: int

    @classmethod
    def from_data(cls, data: DPMixtureData, heldout: Any = None) -> DPMixtureProblem:
        P = data.dim
        if heldout is None:
            held = np.zeros((0, P))
        else:
            held = np.array(heldout, dtype=np.float64)
            if held.ndim == 1 and P == 1:
                held = held[:, None]
            if held.ndim != 2 or held.shape[1] != P or not np.isfinite(held).all():
                raise ValueError(f"heldout must be a finite (M, {P}) array, got {held.shape}")
        prior = kern.make_prior(
            data.mu0, data.Psi0, data.kappa0, data.nu0, data.alpha_shape, data.alpha_rate
        )
        y = np.ascontiguousarray(data.points, dtype=np.float64)
        return cls(y, prior, np.ascontiguousarray(held), int(data.truncation))

    @property
    def n_points(self) -> int:
        return int(self.y.shape[0])

    @property
    def n_heldout(self) -> int:
        return int(self.heldout.shape[0])

    def fingerprint(self) -> str:
        """SHA-256 of everything that defines the posterior and the records."""
        h = hashlib.sha256()
        p = self.prior
        for arr in (self.y, p.mu0, p.L0, self.heldout):
            h.update(np.ascontiguousarray(arr).tobytes())
        h.update(repr((p.kappa0, p.nu0, p.alpha_shape, p.alpha_rate, self.display)).encode())
        return h.hexdigest()


@dataclass
class DPMixtureState:
    """One chain: partition (slot ids), cluster statistics, alpha and the random stream.

    Updated in place by :func:`step`.
    """

    z: np.ndarray  #: int64 (N,): slot of each point
    clusters: kern.Clusters
    alpha: float
    rng_state: np.ndarray  #: uint64 (4,), xoshiro256+
    members: np.ndarray  #: int64 (N,) split-merge scratch
    side: np.ndarray  #: int64 (N,) split-merge scratch
    sweeps_done: int = 0


_CLUSTER_ARRAYS = ("n", "mu", "L", "logdet", "active", "pos", "free", "counts")


def _state_from_labels(
    problem: DPMixtureProblem, labels: np.ndarray, alpha: float, rng: np.ndarray
) -> DPMixtureState:
    N, P = problem.y.shape
    z = np.array(labels, dtype=np.int64).reshape(-1)
    if z.shape != (N,) or (z < 0).any():
        raise ValueError(f"initial labels must be {N} non-negative integers")
    _, z = np.unique(z, return_inverse=True)  # labels 0..K-1, first-seen order irrelevant
    z = z.astype(np.int64)
    cl = kern.new_clusters(N, P)
    kern.build_clusters(problem.prior, cl, problem.y, z)
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"initial alpha must be positive and finite, got {alpha}")
    empty = np.zeros(N, dtype=np.int64)
    return DPMixtureState(z, cl, float(alpha), rng, empty, empty.copy())


def init_state(problem: DPMixtureProblem, seed: int, chain: int, init: Any) -> DPMixtureState:
    """Chain ``chain``'s start (see :class:`DPMixtureArgs`' ``init``)."""
    if isinstance(init, (list, tuple)):
        init = init[chain]
    p = problem.prior
    labels, alpha = initial_partition(problem.n_points, p.alpha_shape / p.alpha_rate, init)
    return _state_from_labels(problem, labels, alpha, chain_stream(seed, chain))


def step(problem: DPMixtureProblem, state: DPMixtureState, split_merge: int) -> list[int]:
    """One sweep in place (Gibbs pass, split-merge proposals, alpha); the moves accepted.

    Returns ``[splits, merges]`` accepted.
    """
    p, cl, y = problem.prior, state.clusters, problem.y
    if not kern.gibbs_sweep(p, cl, y, state.z, state.alpha, state.rng_state):
        raise FloatingPointError("a cluster's covariance factor lost positive definiteness")
    moves = [0, 0]
    for _ in range(split_merge):
        r = kern.split_merge(p, cl, y, state.z, state.alpha, state.rng_state, state.members,
                             state.side)  # fmt: skip
        if r:
            moves[0 if r > 0 else 1] += 1
    K = int(cl.counts[0])
    state.alpha = kern.sample_alpha(
        state.alpha, K, problem.n_points, p.alpha_shape, p.alpha_rate, state.rng_state
    )
    state.sweeps_done += 1
    return moves


def log_joint(problem: DPMixtureProblem, state: DPMixtureState) -> float:
    """``log p(y, z, alpha)`` of the chain's state (collapsed, with all constants)."""
    return float(kern.log_joint(problem.prior, state.clusters, problem.n_points, state.alpha))


class DPMixtureSampler(DPSampler):
    """Collapsed Gibbs chains of one DP-mixture posterior, for
    :func:`bayeswe.samplers.driver.run_chains`."""

    name = "dp-mixture-cgs"
    summary_name = "means"
    cluster_arrays = _CLUSTER_ARRAYS
    kernels = kern

    def summary_shape(self) -> tuple[int, ...]:
        return (self.problem.y.shape[1],)

    def summary(self, state: DPMixtureState, slots: np.ndarray) -> np.ndarray:
        return state.clusters.mu[slots]

    def sweep(self, state: DPMixtureState) -> list[int]:
        return step(self.problem, state, self.split_merge)

    def log_joint(self, state: DPMixtureState) -> float:
        return log_joint(self.problem, state)

    def init(self, chain: int) -> DPMixtureState:
        return init_state(self.problem, self.seed, chain, self.init_spec)

    def load(self, arrays: Mapping[str, np.ndarray], record: Mapping[str, Any]) -> DPMixtureState:
        N, P = self.problem.y.shape
        S = N + 3
        got = checked_arrays(arrays, {
            "z": ((N,), np.int64), "rng_state": ((4,), np.uint64), "n": ((S,), np.int64),
            "mu": ((S, P), np.float64), "L": ((S, P, P), np.float64),
            "logdet": ((S,), np.float64), "active": ((S,), np.int64),
            "pos": ((S,), np.int64), "free": ((S,), np.int64), "counts": ((2,), np.int64),
        })  # fmt: skip
        cl = kern.Clusters(**{k: got[k] for k in _CLUSTER_ARRAYS}, work=np.zeros((4, P)))
        occupied = np.sort(cl.active[: cl.counts[0]])
        if not np.array_equal(occupied, np.unique(got["z"])) or not np.array_equal(
            np.bincount(got["z"], minlength=N),
            cl.n[:N],  # the last 3: split-merge scratch
        ):
            raise ValueError("cluster sizes do not follow from the partition")
        alpha = checked_alpha(record)
        empty = np.zeros(N, dtype=np.int64)
        return DPMixtureState(
            got["z"], cl, alpha, got["rng_state"], empty, empty.copy(),
            sweeps_done=int(record["sweeps_done"]),
        )  # fmt: skip


def _warm_up_compiler() -> None:
    """Compile the kernels on a three-point problem so that timings exclude compilation."""
    data = DPMixtureData(np.array([[0.0, 0.0], [1.0, 0.5], [3.0, 2.0]]), truncation=2)
    prob = DPMixtureProblem.from_data(data, heldout=np.zeros((1, 2)))
    st = init_state(prob, 0, 0, "one")
    step(prob, st, 1)
    log_joint(prob, st)
    kern.predictive_log_density(prob.prior, st.clusters, 3, 1.0, prob.heldout, np.empty(1))


def _spec() -> Any:
    """The ``dp_mixture`` declaration with the sampler's variables' dims and no log_lik."""
    import dataclasses

    from bayeswe.dp.models import DP_MIXTURE

    dims = {"heldout_log_density": ("heldout",)}
    return dataclasses.replace(DP_MIXTURE, dims=dims, log_likelihood=())


def sample_dp_mixture(
    data: DPMixtureData | DPMultinomialData,
    *,
    chains: int | None = 4,
    seed: int | None = None,
    **options: Any,
) -> az.InferenceData:
    """Sample a DP mixture of Gaussians by collapsed Gibbs with split-merge moves.

    Parameters
    ----------
    data
        Points and priors (:class:`~bayeswe.dp.DPMixtureData`; its ``truncation`` only
        sets how many clusters the display summaries keep). A
        :class:`~bayeswe.dp.DPMultinomialData` runs
        :func:`bayeswe.samplers.dp_multinomial.sample_dp_multinomial` instead.
    chains
        Number of chains (default 4).
    seed
        Seed in ``[0, 2**32 - 1]``; ``None`` draws one. With the options it determines
        every draw.
    **options
        See :class:`DPMixtureArgs`: ``iter_warmup``, ``iter_sampling``, ``thin``,
        ``split_merge``, ``init``, ``heldout``, ``parallel_chains``,
        ``threads_per_chain``, ``checkpoint``, ``checkpoint_every``, ``callback``,
        ``show_progress``.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``n_clusters``, ``alpha`` and (with ``heldout``)
        ``heldout_lpd`` and ``heldout_log_density`` ``(chain, draw, heldout)``, all
        label-free; ``sample_stats.lp``: collapsed ``log p(y, z, alpha)``;
        ``warmup_sample_stats.lp``; ``cluster_summaries`` (for display only; labels
        switch): ``weights`` ``(chain, draw, cluster)`` (``n_k / (N + alpha)``, largest
        first) and ``means`` ``(chain, draw, cluster, dim)``, NaN beyond a draw's
        clusters, the cluster axis as long as the most clusters any draw had (at most
        the data's truncation); ``observed_data``/``constant_data`` as NUTS gives them.
        ``attrs``: ``model``, ``method``, ``seed``, ``chains``, ``iter_warmup``,
        ``iter_sampling``, ``thin``, ``split_merge``, ``parallel_chains``,
        ``wall_time``, ``sweep_time``, ``splits_accepted``, ``merges_accepted``,
        ``resumed``.

    Raises
    ------
    DPDataError
        ``data`` is not a :class:`~bayeswe.dp.DPMixtureData`.
    ValueError
        A bad option, seed or chains, before anything runs.
    CheckpointError
        A checkpoint written for other data or settings, corrupt, or in use.
    """
    import xarray as xr

    from bayeswe.inference_data import to_inference_data

    if isinstance(data, DPMultinomialData):
        # the data pick the components: Dirichlet-multinomial clusters
        from bayeswe.samplers.dp_multinomial import sample_dp_multinomial

        return sample_dp_multinomial(data, chains=chains, seed=seed, **options)
    if not isinstance(data, DPMixtureData):
        raise DPDataError(
            "method 'cgs' for dp_mixture takes bayeswe.dp.DPMixtureData or "
            f"DPMultinomialData, got {type(data).__name__}"
        )
    args = DPMixtureArgs.from_options(options)
    done = run_dp_cgs(
        lambda: DPMixtureProblem.from_data(data, args.heldout),
        DPMixtureSampler,
        _warm_up_compiler,
        args=args,
        chains=chains,
        seed=seed,
        attrs={"model": "dp_mixture"},
    )
    d = done.run.draws
    idata = to_inference_data(
        _spec(),
        done.draws,
        data=data.to_stan(),
        sample_stats={"lp": d["lp"]},
        warmup_sample_stats={"lp": done.run.warmup_lp} if done.attrs["iter_warmup"] else None,
        attrs=done.attrs,
        library=None,
    )
    width = done.width
    weights = np.array(d["weights"])[:, :, :width]
    means = np.array(d["means"])[:, :, :width]
    summaries = xr.Dataset(
        {
            "weights": (("chain", "draw", "cluster"), weights),
            "means": (("chain", "draw", "cluster", "dim"), means),
        },
        coords={
            "chain": np.arange(done.attrs["chains"]),
            "draw": np.arange(weights.shape[1]),
            "cluster": np.arange(width),
            "dim": idata.posterior.coords["dim"].values
            if "dim" in idata.posterior.coords
            else np.arange(done.problem.y.shape[1]),
        },
    )
    idata.add_groups({"cluster_summaries": summaries}, warn_on_custom_groups=False)
    return idata
