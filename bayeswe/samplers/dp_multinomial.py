"""Collapsed Gibbs sampling for the DP mixture of multinomials:
``bayeswe.fit("dp_mixture", DPMultinomialData(...), method="cgs", ...)``.

The sampler targets ``p(z, alpha | x)`` of :class:`~bayeswe.dp.DPMultinomialData`'s
model without truncation: each cluster's category probabilities (Dirichlet prior) and
the weights are integrated out, and the partition ``z`` follows the Chinese restaurant
process. A sweep (:func:`step`) is the Gaussian sampler's
(:mod:`bayeswe.samplers.dp_mixture`): one pass of Neal's (2000) algorithm 3,
``split_merge`` SAMS proposals (Dahl 2003) and one Escobar & West (1995) update of
``alpha``, with the Dirichlet-multinomial marginal and predictive of
:mod:`bayeswe.kernels.dp_multinomial`. Options are the Gaussian sampler's
(:class:`~bayeswe.samplers.dp_mixture.DPMixtureArgs`); ``heldout`` takes count vectors.

A kept draw records, label-free: ``lp`` (``log p(x, z, alpha)``, collapsed),
``n_clusters``, ``alpha`` and, given held-out points, the log predictive density of
each given the partition, ``heldout_log_density``, and their sum ``heldout_lpd``.
Per-cluster summaries (weights ``n_k / (N + alpha)`` and the posterior mean category
probabilities ``(beta_v + c_kv) / (B + C_k)``, sorted by size) are kept for display in
their own group, ``cluster_summaries``; labels switch between draws, so diagnostics
must never be computed on them. The probabilities take ``T V`` numbers per draw.

Random streams: chain ``c`` owns a xoshiro256+ generator seeded from
``numpy.random.SeedSequence(seed, spawn_key=(c,))``.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayeswe._arviz import az
from bayeswe.corpus import BagOfWords
from bayeswe.dp.data import DPDataError, DPMultinomialData
from bayeswe.kernels import dp_mixture as gauss
from bayeswe.kernels import dp_multinomial as kern
from bayeswe.samplers.dp_options import (
    DPMixtureArgs,
    DPSampler,
    checked_alpha,
    checked_arrays,
    initial_partition,
    run_dp_cgs,
)
from bayeswe.samplers.lda_cgs import chain_stream

__all__ = [
    "DPMultinomialProblem",
    "DPMultinomialSampler",
    "DPMultinomialState",
    "init_state",
    "log_joint",
    "sample_dp_multinomial",
    "step",
]


def _points_of(bow: BagOfWords) -> kern.Points:
    return kern.make_points(bow.doc_ptr, bow.word_ids, bow.counts)


def _heldout_points(heldout: Any, V: int) -> kern.Points:
    if heldout is None:
        return kern.make_points(np.zeros(1, np.int64), np.zeros(0), np.zeros(0))
    if isinstance(heldout, BagOfWords):
        if heldout.n_words != V:
            raise ValueError(f"heldout must have {V} categories, got {heldout.n_words}")
        return _points_of(heldout)
    m = np.asarray(heldout)
    if m.ndim == 1:
        m = m[None, :]
    if (
        m.ndim != 2
        or m.shape[1] != V
        or not np.issubdtype(m.dtype, np.number)
        or not np.isfinite(m).all()
        or (m < 0).any()
        or (m != np.round(m)).any()
    ):
        raise ValueError(f"heldout must be an (M, {V}) array of non-negative integer counts")
    rows, cols = np.nonzero(m)
    ptr = np.zeros(m.shape[0] + 1, dtype=np.int64)
    np.add.at(ptr, rows + 1, 1)
    return kern.make_points(np.cumsum(ptr), cols, m[rows, cols].astype(np.int64))


@dataclass(frozen=True)
class DPMultinomialProblem:
    """The points, the priors as the kernels take them, and optional held-out points."""

    points: kern.Points
    prior: kern.Prior
    heldout: kern.Points  #: M may be 0
    n_words: int
    #: Slots of the display summaries: the data's truncation T.
    display: int

    @classmethod
    def from_data(cls, data: DPMultinomialData, heldout: Any = None) -> DPMultinomialProblem:
        V = data.n_words
        prior = kern.make_prior(data.beta, data.alpha_shape, data.alpha_rate)
        return cls(
            _points_of(data.counts), prior, _heldout_points(heldout, V), V, int(data.truncation)
        )

    @property
    def n_points(self) -> int:
        return int(self.points.length.shape[0])

    @property
    def n_heldout(self) -> int:
        return int(self.heldout.length.shape[0])

    def fingerprint(self) -> str:
        """SHA-256 of everything that defines the posterior and the records."""
        h = hashlib.sha256()
        for arr in (*self.points[:3], self.prior.beta, *self.heldout[:3]):
            h.update(np.ascontiguousarray(arr).tobytes())
        p = self.prior
        h.update(repr((p.alpha_shape, p.alpha_rate, self.n_words, self.display)).encode())
        return h.hexdigest()


@dataclass
class DPMultinomialState:
    """One chain: partition (slot ids), cluster counts, alpha and the random stream."""

    z: np.ndarray  #: int64 (N,): slot of each point
    clusters: kern.Clusters
    alpha: float
    rng_state: np.ndarray  #: uint64 (4,), xoshiro256+
    members: np.ndarray  #: int64 (N,) split-merge scratch
    side: np.ndarray  #: int64 (N,) split-merge scratch
    sweeps_done: int = 0


_CLUSTER_ARRAYS = ("n", "tokens", "words", "active", "pos", "free", "counts")


def _state_from_labels(
    problem: DPMultinomialProblem, labels: Any, alpha: float, rng: np.ndarray
) -> DPMultinomialState:
    N = problem.n_points
    z = np.array(labels, dtype=np.int64).reshape(-1)
    if z.shape != (N,) or (z < 0).any():
        raise ValueError(f"initial labels must be {N} non-negative integers")
    _, z = np.unique(z, return_inverse=True)
    z = z.astype(np.int64)
    cl = kern.new_clusters(N, problem.n_words)
    kern.build_clusters(cl, problem.points, z)
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"initial alpha must be positive and finite, got {alpha}")
    empty = np.zeros(N, dtype=np.int64)
    return DPMultinomialState(z, cl, float(alpha), rng, empty, empty.copy())


def init_state(
    problem: DPMultinomialProblem, seed: int, chain: int, init: Any
) -> DPMultinomialState:
    """Chain ``chain``'s start (see :class:`~bayeswe.samplers.dp_mixture.DPMixtureArgs`)."""
    if isinstance(init, (list, tuple)):
        init = init[chain]
    p = problem.prior
    labels, alpha = initial_partition(problem.n_points, p.alpha_shape / p.alpha_rate, init)
    return _state_from_labels(problem, labels, alpha, chain_stream(seed, chain))


def step(problem: DPMultinomialProblem, state: DPMultinomialState, split_merge: int) -> list[int]:
    """One sweep in place (Gibbs pass, split-merge proposals, alpha); ``[splits, merges]``."""
    p, cl, x = problem.prior, state.clusters, problem.points
    kern.gibbs_sweep(p, cl, x, state.z, state.alpha, state.rng_state)
    moves = [0, 0]
    for _ in range(split_merge):
        r = kern.split_merge(p, cl, x, state.z, state.alpha, state.rng_state, state.members,
                             state.side)  # fmt: skip
        if r:
            moves[0 if r > 0 else 1] += 1
    K = int(cl.counts[0])
    state.alpha = gauss.sample_alpha(
        state.alpha, K, problem.n_points, p.alpha_shape, p.alpha_rate, state.rng_state
    )
    state.sweeps_done += 1
    return moves


def log_joint(problem: DPMultinomialProblem, state: DPMultinomialState) -> float:
    """``log p(x, z, alpha)`` of the chain's state (collapsed, with all constants)."""
    return float(kern.log_joint(problem.prior, state.clusters, problem.n_points, state.alpha))


class DPMultinomialSampler(DPSampler):
    """Collapsed Gibbs chains of one DP-multinomial posterior, for
    :func:`bayeswe.samplers.driver.run_chains`."""

    name = "dp-multinomial-cgs"
    summary_name = "probabilities"
    cluster_arrays = _CLUSTER_ARRAYS
    kernels = kern

    def summary_shape(self) -> tuple[int, ...]:
        return (self.problem.n_words,)

    def summary(self, state: DPMultinomialState, slots: np.ndarray) -> np.ndarray:
        cl, prior = state.clusters, self.problem.prior
        return (prior.beta + cl.words[slots]) / (prior.beta_sum + cl.tokens[slots])[:, None]

    def sweep(self, state: DPMultinomialState) -> list[int]:
        return step(self.problem, state, self.split_merge)

    def log_joint(self, state: DPMultinomialState) -> float:
        return log_joint(self.problem, state)

    def init(self, chain: int) -> DPMultinomialState:
        return init_state(self.problem, self.seed, chain, self.init_spec)

    def load(
        self, arrays: Mapping[str, np.ndarray], record: Mapping[str, Any]
    ) -> DPMultinomialState:
        N, V = self.problem.n_points, self.problem.n_words
        S = N + 3
        got = checked_arrays(arrays, {
            "z": ((N,), np.int64), "rng_state": ((4,), np.uint64), "n": ((S,), np.int64),
            "tokens": ((S,), np.int64), "words": ((S, V), np.int32),
            "active": ((S,), np.int64), "pos": ((S,), np.int64), "free": ((S,), np.int64),
            "counts": ((2,), np.int64),
        })  # fmt: skip
        cl = kern.Clusters(**{k: got[k] for k in _CLUSTER_ARRAYS})
        z = got["z"]
        if z.min() < 0 or z.max() >= N:
            raise ValueError("cluster slots out of range")
        # the counts the partition implies, recomputed (the scratch slots excluded)
        fresh = kern.new_clusters(N, V)
        for i in range(N):
            kern.add_point(fresh, int(z[i]), self.problem.points, i)
        occupied = np.sort(cl.active[: cl.counts[0]])
        if (
            not np.array_equal(occupied, np.unique(z))
            or not np.array_equal(fresh.n[:N], cl.n[:N])
            or not np.array_equal(fresh.words[:N], cl.words[:N])
            or not np.array_equal(fresh.tokens[:N], cl.tokens[:N])
        ):
            raise ValueError("cluster sizes or counts do not follow from the partition")
        alpha = checked_alpha(record)
        empty = np.zeros(N, dtype=np.int64)
        return DPMultinomialState(
            z, cl, alpha, got["rng_state"], empty, empty.copy(),
            sweeps_done=int(record["sweeps_done"]),
        )  # fmt: skip


def _warm_up_compiler() -> None:
    """Compile the kernels on a three-point problem so that timings exclude compilation."""
    data = DPMultinomialData(np.array([[2, 0, 1], [0, 3, 0], [1, 1, 1]]), truncation=2)
    prob = DPMultinomialProblem.from_data(data, heldout=np.array([[1, 0, 2]]))
    st = init_state(prob, 0, 0, "one")
    step(prob, st, 1)
    log_joint(prob, st)
    kern.predictive_log_density(prob.prior, st.clusters, 3, 1.0, prob.heldout, np.empty(1))


def sample_dp_multinomial(
    data: DPMultinomialData,
    *,
    chains: int | None = 4,
    seed: int | None = None,
    **options: Any,
) -> az.InferenceData:
    """Sample a DP mixture of multinomials by collapsed Gibbs with split-merge moves.

    Parameters
    ----------
    data
        Count vectors and priors (:class:`~bayeswe.dp.DPMultinomialData`; its
        ``truncation`` only sets how many clusters the display summaries keep).
    chains
        Number of chains (default 4).
    seed
        Seed in ``[0, 2**32 - 1]``; ``None`` draws one.
    **options
        See :class:`~bayeswe.samplers.dp_mixture.DPMixtureArgs`; ``heldout`` is a
        :class:`~bayeswe.corpus.BagOfWords` or an ``(M, V)`` array of counts.

    Returns
    -------
    arviz.InferenceData
        As :func:`bayeswe.samplers.dp_mixture.sample_dp_mixture`'s, with
        ``cluster_summaries.probabilities`` ``(chain, draw, cluster, category)`` (posterior
        mean category probabilities) in place of ``means``; ``observed_data.count``
        and ``constant_data`` hold :meth:`~bayeswe.dp.DPMultinomialData.to_stan`'s
        fields; ``attrs["components"]`` is ``"multinomial"``. Held-out densities are
        those of the token sequences (no multinomial coefficient).

    Raises
    ------
    DPDataError
        ``data`` is not a :class:`~bayeswe.dp.DPMultinomialData`.
    ValueError
        A bad option, seed or chains, before anything runs.
    CheckpointError
        A checkpoint written for other data or settings, corrupt, or in use.
    """
    import xarray as xr

    from bayeswe.dp.models import DP_MULTINOMIAL
    from bayeswe.inference_data import to_inference_data
    from bayeswe.lda.data import COORDS_KEY

    if not isinstance(data, DPMultinomialData):
        raise DPDataError(f"expected a bayeswe.dp.DPMultinomialData, got {type(data).__name__}")
    args = DPMixtureArgs.from_options(options)
    done = run_dp_cgs(
        lambda: DPMultinomialProblem.from_data(data, args.heldout),
        DPMultinomialSampler,
        _warm_up_compiler,
        args=args,
        chains=chains,
        seed=seed,
        attrs={"model": "dp_mixture", "components": "multinomial"},
    )
    d = done.run.draws
    stan_data = {**data.to_stan(), COORDS_KEY: data.coords()}
    idata = to_inference_data(
        dataclasses.replace(DP_MULTINOMIAL, log_likelihood=()),  # no log_lik: collapsed
        done.draws,
        data=stan_data,
        sample_stats={"lp": d["lp"]},
        warmup_sample_stats={"lp": done.run.warmup_lp} if done.attrs["iter_warmup"] else None,
        attrs=done.attrs,
        library=None,
    )
    width = done.width
    weights = np.array(d["weights"])[:, :, :width]
    probs = np.array(d["probabilities"])[:, :, :width]
    summaries = xr.Dataset(
        {
            "weights": (("chain", "draw", "cluster"), weights),
            "probabilities": (("chain", "draw", "cluster", "category"), probs),
        },
        coords={
            "chain": np.arange(done.attrs["chains"]),
            "draw": np.arange(weights.shape[1]),
            "cluster": np.arange(width),
            "category": list(data.counts.vocabulary.words),
        },
    )
    idata.add_groups({"cluster_summaries": summaries}, warn_on_custom_groups=False)
    return idata
