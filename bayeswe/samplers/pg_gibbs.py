"""Pólya-Gamma blocked Gibbs sampler for the identified SGNS model (Algorithm 1).

The target is exactly ``models/sgns_identified.stan``: likelihood eq. (5), prior
``N(0, lambda^2)`` on every entry of ``rho`` and of the free rows of ``alpha``,
the ``K`` rows ``alpha[fixed_index] = fixed_alpha`` constant (section 2,
Propositions 1-2). One sweep draws all ``rho_w`` given ``alpha`` and then all free
``alpha_v`` given ``rho``; within a block every vector is an independent Bayesian
logistic regression, drawn with Pólya-Gamma augmentation (kernels in
:mod:`bayeswe.kernels.pg_gibbs`).

Differences from the paper's Algorithm 1, both deliberate: the inner chain of
``S = inner_steps`` omega/beta steps continues from the current vector instead of
restarting from ``N(0, 1/K)`` each sweep (a restart makes each sweep a valid Gibbs
step only as ``S -> infinity``; continuing is valid for every ``S >= 1``), and the
initial values are the MAP (default) or a draw from the model's prior, not ``N(0, 1/K)``.

Random streams
--------------
Every block's vectors are split into *groups* of consecutive vectors of about equal
PG cost (:func:`_groups`: a multiple of :data:`GROUP_MULTIPLE` groups of about
:data:`GROUP_COST` cost units, so that 1, 2, 4 or 8 threads share them evenly); the
split depends on the data only. Group ``g`` of block
``b`` of chain ``c`` owns the stream ``PCG64(SeedSequence(seed, spawn_key=(c, b, g)))``
and draws from it, at each inner step, the PG variables of its pairs in order and
then the standard normals of its vectors. The PG draws run in Numba, in a ``prange``
over groups, each with its own bit generator: most with the table sampler of
:mod:`bayeswe.kernels.pg_table`, the others with the ``polyagamma`` package's C
sampler (``pgm_random_polyagamma``); the Gaussian updates run in a ``prange`` over
vectors. No stream is shared and no draw depends on scheduling, so the same seed
gives bitwise identical draws whatever the number of threads. Without the C symbol,
the Python API of ``polyagamma`` draws the same variables (serially). The samplers
are exact, except polyagamma's saddle-point sampler (``24 <= h < 65536``, an
approximation of the PG density) and, from ``h = 65536`` on, a gamma series with the
exact mean and variance (:mod:`bayeswe.kernels.pg_series`): :func:`pg_methods`.

A sampler is a :class:`GibbsState` (matrices, sweep count, stream states), an
:class:`GibbsInfo` and :func:`step`, which returns a new state.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from polyagamma import random_polyagamma

from bayeswe._arviz import az
from bayeswe.errors import SamplerWarning
from bayeswe.kernels import pg_gibbs as kern
from bayeswe.kernels.pg_series import fill_pg_series
from bayeswe.kernels.pg_table import TABLE_MAX_ABS_Z, fill_pg_table
from bayeswe.options import build_options, check_choice, check_int, magnitude_problem
from bayeswe.progress import resolve as progress_resolve

__all__ = [
    "GROUP_COST",
    "GROUP_MULTIPLE",
    "GROUP_MIN_SPLIT",
    "GibbsInfo",
    "GibbsState",
    "PGGibbsArgs",
    "PG_METHOD_NAMES",
    "SGNSGibbsProblem",
    "init_state",
    "pg_methods",
    "polya_gamma",
    "sample_pg_gibbs",
    "step",
]

#: Target PG cost per random-stream group, in units of one PG(1, z) draw (a pair of
#: count ``n`` costs ``min(n, 24)``: Devroye's method below 24, the saddle point above).
#: Fixed: with :data:`GROUP_MULTIPLE` it decides the streams.
GROUP_COST: int = 1 << 15
#: The number of groups of a block is a multiple of this (unless it has fewer vectors), so
#: that the static schedule of ``prange`` gives every thread the same share of the cost.
GROUP_MULTIPLE: int = 8
#: A block costing less than this is one group: too little work to share between threads,
#: and each group costs a bit generator restored per sweep (about 15 us).
GROUP_MIN_SPLIT: int = GROUP_COST // 8

_RHO, _ALPHA, _INIT, _GAUGE = 0, 1, 2, 3

#: Values of the ``omega`` option (see :class:`PGGibbsArgs`).
OMEGA_SCHEDULES: tuple[str, ...] = ("per-sweep", "per-block")


_METHODS = {
    "auto": kern.PG_AUTO,
    "devroye": kern.PG_DEVROYE,
    "saddle": kern.PG_SADDLE,
    "table": kern.PG_TABLE,
    "series": kern.PG_SERIES,
}
#: The name of each sampler code that :func:`pg_methods` returns (polyagamma's names,
#: ``"table"`` for :mod:`bayeswe.kernels.pg_table`, ``"point mass"`` for ``h / (2|z|)``).
PG_METHOD_NAMES: dict[int, str] = {v: k for k, v in _METHODS.items() if k != "auto"} | {
    kern.PG_ALTERNATE: "alternate",
    kern.PG_POINT_MASS: "point mass",
}
#: Samplers that sum ``h`` draws of ``PG(1, z)``, so need integer ``h``.
_INTEGER_H = (kern.PG_DEVROYE, kern.PG_TABLE)


def pg_methods(h: NDArray[np.float64], z: NDArray[np.float64]) -> NDArray[np.int32]:
    """The sampler :func:`bayeswe.kernels.pg_gibbs.pg_method` picks for each draw.

    The cheapest for each ``h`` where it is correct, each in time bounded for every
    ``h``: for ``h < 24`` (integers) the table sampler of
    :mod:`bayeswe.kernels.pg_table` for ``|z| < 2.5`` and polyagamma's Devroye method
    for ``|z| < 150``; polyagamma's saddle-point sampler (an approximation whose mean
    and variance match PG's within 2e6-draw Monte Carlo error) from ``h = 24`` on for
    ``|z| < 20``; its alternate sampler beyond those ``|z|``; from ``h = 65536`` on,
    whatever ``z``, the gamma series of :mod:`bayeswe.kernels.pg_series` (exact mean
    and variance, skewness within ``0.05 / sqrt(h)``).
    polyagamma's default "hybrid" switches to a *normal approximation* for large
    ``h`` (skewness 0, against PG's ``2 / sqrt(h)`` near ``z = 0``; frequent word
    pairs have large ``n``); its "alternate" sampler fails the moment tests at small ``|z|``,
    "saddle" at small ``h`` and from ``|z| ~ 28``, "devroye" from ``|z| ~ 180``.
    """
    h = np.asarray(h, dtype=np.float64)
    big = np.abs(np.asarray(z, dtype=np.float64))
    choice = np.where(
        h >= kern.SERIES_MIN_H,
        kern.PG_SERIES,
        np.where(
            h >= kern.SADDLE_MIN_H,
            np.where(big < kern.SADDLE_MAX_ABS_Z, kern.PG_SADDLE, kern.PG_ALTERNATE),
            np.where(
                big < TABLE_MAX_ABS_Z,
                kern.PG_TABLE,
                np.where(big < kern.DEVROYE_MAX_ABS_Z, kern.PG_DEVROYE, kern.PG_ALTERNATE),
            ),
        ),
    )
    return np.where(big >= kern.POINT_MASS_ABS_Z, kern.PG_POINT_MASS, choice).astype(np.int32)


def polya_gamma(
    h: NDArray[np.float64],
    z: NDArray[np.float64],
    rng: np.random.Generator,
    out: NDArray[np.float64] | None = None,
    *,
    native: bool | None = None,
    method: str = "auto",
) -> NDArray[np.float64]:
    """Draw ``omega_j ~ PG(h_j, z_j)`` (Polson et al. 2013), each in bounded time.

    Parameters
    ----------
    h
        Shapes (here the pair counts ``n_u``): positive; integers where a sampler that
        sums ``PG(1, z)`` draws is used (``h < 24`` for ``"auto"``, all for
        ``"devroye"`` and ``"table"``).
    z
        Tilts (here the linear predictors ``x_u' beta``).
    rng
        The stream; its bit generator is advanced.
    out
        Optional contiguous output array.
    native
        Call polyagamma's C function from Numba (True), its Python API (False),
        or the former when available (None). Both draw ``j = 0, 1, ...`` in order
        from the same bit generator with the same method, so they give the same
        draws (checked by the tests).
    method
        ``"auto"`` (the cheapest sampler per draw, :func:`pg_methods`; what the
        Gibbs sampler uses), ``"devroye"``, ``"saddle"`` (the saddle-point
        approximation, moments within Monte Carlo error for ``24 <= h < 65536``;
        biased for small ``h`` in polyagamma 2.0.2, and refused from ``h = 65536`` on,
        where it may not return), ``"table"`` (:mod:`bayeswe.kernels.pg_table`;
        ``|z| < 2.5`` only) or ``"series"`` (:mod:`bayeswe.kernels.pg_series`;
        ``h >= 1``) for every draw.

    Returns
    -------
    numpy.ndarray
        The draws; ``E[omega] = h / (2 z) tanh(z / 2)``.
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {sorted(_METHODS)}, got {method!r}")
    h = np.ascontiguousarray(h, dtype=np.float64)
    z = np.ascontiguousarray(z, dtype=np.float64)
    if out is None:
        out = np.empty(h.shape, dtype=np.float64)
    if not out.size:
        return out
    methods = pg_methods(h, z) if method == "auto" else np.full(h.size, _METHODS[method])
    summed = np.isin(methods, _INTEGER_H)
    if not np.all(h[summed] == np.floor(h[summed])):
        raise ValueError(
            "Devroye's method and the table sampler need integer shapes h "
            "(h < 24 for method='auto')"
        )
    if method == "table" and not np.all(np.abs(z) < TABLE_MAX_ABS_Z):
        raise ValueError(f"method='table' needs |z| < {TABLE_MAX_ABS_Z}")
    if method == "saddle" and not np.all(h < kern.SERIES_MIN_H):
        raise ValueError(f"method='saddle' needs h < {kern.SERIES_MIN_H:g}")
    if method == "series" and not np.all(h >= 1.0):
        raise ValueError("method='series' needs h >= 1")
    if native is None:
        native = kern.HAVE_NATIVE_PG
    if native:
        address = np.array([rng.bit_generator.ctypes.bit_generator.value], dtype=np.uint64)
        group = np.array([0, h.size], dtype=np.int64)
        kern.polya_gamma_groups(address, group, h, z, _METHODS[method], out)
        return out
    address = rng.bit_generator.ctypes.bit_generator.value
    # Python API, one call per run of pairs with the same method. polyagamma 2.0.2 fills
    # an array from its last element, so each run is passed reversed to keep the order.
    change = np.flatnonzero(np.diff(methods)) + 1
    for a, b in zip(np.r_[0, change], np.r_[change, h.size], strict=True):
        if methods[a] == kern.PG_POINT_MASS:
            out[a:b] = h[a:b] / (2.0 * np.abs(z[a:b]))
            continue
        if methods[a] == kern.PG_TABLE:
            fill_pg_table(address, h[a:b], z[a:b], out[a:b])
            continue
        if methods[a] == kern.PG_SERIES:
            fill_pg_series(address, h[a:b], z[a:b], out[a:b])
            continue
        part = np.empty(b - a)
        random_polyagamma(
            h[a:b][::-1].copy(), z[a:b][::-1].copy(), out=part,
            method=PG_METHOD_NAMES[methods[a]], random_state=rng, disable_checks=True,
        )  # fmt: skip
        out[a:b] = part[::-1]
    return out


# --------------------------------------------------------------------------- problem


@dataclass(frozen=True, eq=False)
class _Block:
    """CSR structure of one block (see :mod:`bayeswe.kernels.pg_gibbs`) and its groups."""

    rows: NDArray[np.int64]
    ptr: NDArray[np.int64]
    other: NDArray[np.int32]
    n: NDArray[np.float64]
    kappa: NDArray[np.float64]
    #: group ``g`` holds rows ``group_ptr[g]:group_ptr[g + 1]`` (indices into ``rows``)
    group_ptr: NDArray[np.int64]
    #: the block's pairs as indices of the data's pairs (the rho block: 0..P-1)
    pair_index: NDArray[np.int64]

    @property
    def group_pair_ptr(self) -> NDArray[np.int64]:
        """Group ``g`` holds block pairs ``group_pair_ptr[g]:group_pair_ptr[g + 1]``."""
        return self.ptr[self.group_ptr]

    @property
    def n_groups(self) -> int:
        return len(self.group_ptr) - 1


def _groups(ptr: NDArray[np.int64], n: NDArray[np.float64]) -> NDArray[np.int64]:
    """Split rows into consecutive groups of about equal PG cost (at least one row each).

    Row cost: ``sum_u min(n_u, 24)`` over its pairs (what Devroye's method costs; the
    saddle-point sampler costs about as much as 24 units) plus one for its Gaussian
    draw. The number of groups is a multiple of :data:`GROUP_MULTIPLE` near
    ``total / GROUP_COST`` (fewer if there are fewer rows; one below
    :data:`GROUP_MIN_SPLIT`); boundaries are placed at equal quantiles of the
    cumulative cost.
    """
    rows = len(ptr) - 1
    if rows == 0:
        return np.zeros(1, dtype=np.int64)
    unit = np.minimum(n, kern.SADDLE_MIN_H)
    cum_pairs = np.concatenate([[0.0], np.cumsum(unit)])
    cost = np.diff(cum_pairs[ptr]) + 1.0
    cum = np.cumsum(cost)
    wanted = GROUP_MULTIPLE * max(1, math.ceil(cum[-1] / (GROUP_MULTIPLE * GROUP_COST)))
    n_groups = 1 if cum[-1] < GROUP_MIN_SPLIT else min(wanted, rows)
    # group g ends after the first row whose cumulative cost reaches (g + 1) / n_groups
    ends = np.searchsorted(cum, cum[-1] * np.arange(1, n_groups) / n_groups) + 1
    bounds = np.unique(np.concatenate([[0], ends, [rows]]))
    return bounds.astype(np.int64)


def _block(rows, pair_index, counts, other_all, n_all, n_pos_all) -> _Block:
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    n = np.ascontiguousarray(n_all[pair_index], dtype=np.float64)
    return _Block(
        rows=np.ascontiguousarray(rows, dtype=np.int64),
        ptr=ptr,
        other=np.ascontiguousarray(other_all[pair_index], dtype=np.int32),
        n=n,
        kappa=np.ascontiguousarray(n_pos_all[pair_index], dtype=np.float64) - 0.5 * n,
        group_ptr=_groups(ptr, n),
        pair_index=np.ascontiguousarray(pair_index, dtype=np.int64),
    )


@dataclass(frozen=True, eq=False)
class SGNSGibbsProblem:
    """The identified SGNS posterior in the layout the kernels use.

    Build it with :meth:`from_stan_data` from the data of ``sgns_identified``
    (what :meth:`bayeswe.sgns.SGNSData.stan_data` returns with fixed words).
    """

    stan_data: Mapping[str, Any]
    V: int
    K: int
    prior_sd: float
    target: NDArray[np.int32]
    context: NDArray[np.int32]
    n: NDArray[np.float64]
    n_pos: NDArray[np.float64]
    target_offsets: NDArray[np.int64]
    fixed_index: NDArray[np.int64]
    fixed_alpha: NDArray[np.float64]
    free_index: NDArray[np.int64]
    blocks: tuple[_Block, _Block]

    @property
    def identified(self) -> bool:
        """``K`` context vectors fixed (``sgns_identified``) or none (``sgns``)."""
        return len(self.fixed_index) > 0

    @property
    def model(self) -> Any:
        """The Stan declaration of the target: ``sgns_identified`` or ``sgns``."""
        from bayeswe.sgns.models import SGNS, SGNS_IDENTIFIED

        return SGNS_IDENTIFIED if self.identified else SGNS

    @classmethod
    def from_stan_data(
        cls, data: Mapping[str, Any], *, identified: bool = True
    ) -> SGNSGibbsProblem:
        """Validate the data (1-based indices, as for Stan) and build the blocks.

        ``identified=True``: data of ``sgns_identified`` (``K`` fixed context vectors);
        ``identified=False``: data of the unidentified ``sgns``, every context vector
        free (``fixed_index`` is then empty).

        Raises
        ------
        bayeswe.errors.StanDataError
            A missing or misshapen field (the model declaration's check).
        bayeswe.sgns.SGNSDataError, bayeswe.sgns.IdentificationError
            Bad pairs or fixed words.
        """
        from bayeswe.sgns.data import SGNSData, SGNSDataError
        from bayeswe.sgns.identify import check_anchors
        from bayeswe.sgns.models import SGNS, SGNS_IDENTIFIED

        fields = (SGNS_IDENTIFIED if identified else SGNS).validate(data)
        V, K = int(fields["V"]), int(fields["K"])
        vocab = data.get("vocabulary")
        sgns = SGNSData(
            V if vocab is None else [str(w) for w in vocab],
            np.asarray(fields["target_word"]) - 1,
            np.asarray(fields["context_word"]) - 1,
            fields["n"],
            fields["n_pos"],
        )
        if identified:
            fixed_index, fixed_alpha = check_anchors(
                np.asarray(fields["fixed_index"]) - 1, fields["fixed_alpha"], V=V, K=K
            )
        else:
            fixed_index, fixed_alpha = np.zeros(0, dtype=np.int64), np.zeros((0, K))
        prior_sd = float(fields["lambda"])
        if not (math.isfinite(prior_sd) and prior_sd > 0):
            raise SGNSDataError(f"lambda must be positive and finite, got {prior_sd}")
        if (issue := magnitude_problem("lambda (the prior sd)", prior_sd)) is not None:
            raise SGNSDataError(issue)
        if sgns.P == 0:
            raise SGNSDataError("the data hold no (target, context) pairs: nothing to fit")
        is_free = np.ones(V, dtype=bool)
        is_free[fixed_index] = False
        free_index = np.flatnonzero(is_free).astype(np.int64)

        target, context = sgns.target, sgns.context
        n = sgns.n.astype(np.float64)
        n_pos = sgns.n_pos.astype(np.float64)
        t_off = np.asarray(sgns.target_offsets, dtype=np.int64)
        rho_block = _block(np.arange(V), np.arange(sgns.P), np.diff(t_off), context, n, n_pos)
        c_off = np.asarray(sgns.context_offsets, dtype=np.int64)
        order = np.asarray(sgns.context_order, dtype=np.int64)
        counts = np.diff(c_off)
        pairs = np.concatenate([order[c_off[v] : c_off[v + 1]] for v in free_index] or [order[:0]])
        alpha_block = _block(free_index, pairs, counts[free_index], target, n, n_pos)
        return cls(
            stan_data=data,
            V=V,
            K=K,
            prior_sd=prior_sd,
            target=target,
            context=context,
            n=n,
            n_pos=n_pos,
            target_offsets=t_off,
            fixed_index=fixed_index,
            fixed_alpha=fixed_alpha,
            free_index=free_index,
            blocks=(rho_block, alpha_block),
        )

    @property
    def prior_precision(self) -> float:
        """``lambda^-2``."""
        return 1.0 / self.prior_sd**2

    def fingerprint(self) -> str:
        """SHA-256 of everything that defines the posterior (checked on resume)."""
        h = hashlib.sha256()
        for arr in (
            self.target,
            self.context,
            self.n,
            self.n_pos,
            self.fixed_index,
            self.fixed_alpha,
        ):
            h.update(np.ascontiguousarray(arr).tobytes())
        groups = (GROUP_COST, GROUP_MULTIPLE, GROUP_MIN_SPLIT)
        h.update(repr((self.V, self.K, self.prior_sd, groups)).encode())
        return h.hexdigest()

    def log_joint(self, rho: NDArray[np.float64], alpha: NDArray[np.float64]) -> float:
        """Log joint density as Stan's ``lp__`` (eqs. (5)-(6), prior constants dropped)."""
        return float(
            kern.log_joint(
                rho,
                alpha,
                self.free_index,
                self.target_offsets,
                self.context,
                self.n,
                self.n_pos,
                self.prior_precision,
            )
        )

    def full_alpha(self, alpha_free: Any) -> NDArray[np.float64]:
        """``V x K`` context matrix from its free rows and the fixed ones."""
        alpha = np.zeros((self.V, self.K))
        alpha[self.free_index] = alpha_free
        alpha[self.fixed_index] = self.fixed_alpha
        return alpha


# --------------------------------------------------------------------------- state / step


@dataclass(frozen=True, eq=False)
class GibbsState:
    """State of one chain: the matrices, the sweeps done and the states of its streams.

    ``rng_states[b][g]`` is the ``PCG64`` state (a dict) of group ``g`` of block
    ``b`` (0: ``rho``, 1: ``alpha``); an unidentified problem has a third entry, the
    one stream of its gauge moves (:func:`gauge_move`).
    """

    rho: NDArray[np.float64]
    alpha: NDArray[np.float64]
    sweep: int
    rng_states: tuple[tuple[dict[str, Any], ...], ...]


@dataclass(frozen=True)
class GibbsInfo:
    """What happened in one sweep."""

    #: log joint density after the sweep (Stan's ``lp__`` convention)
    lp: float
    #: vectors whose precision matrix did not factor (kept unchanged; should be 0)
    failed: int


def _stream(seed: int, *key: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


#: Seeds the throw-away initial state of restored bit generators (``PCG64()`` without a
#: seed would read OS entropy, 40 us per group and sweep).
_PLACEHOLDER_SEED = np.random.SeedSequence(0)


def _generator(state: dict[str, Any]) -> np.random.Generator:
    bg = np.random.PCG64(_PLACEHOLDER_SEED)
    bg.state = state
    return np.random.Generator(bg)


class _Streams(threading.local):
    """Each thread's reusable generators, set to a state's streams for one block.

    A state keeps its streams as bit-generator states (plain dicts, so that a step never
    changes the state it is given); making a PCG64 for each costs more than the block
    update of a small problem, so each thread keeps the objects, and the addresses of
    their C bit generators, and loads a state into them."""

    def __init__(self) -> None:
        self.generators: list[np.random.Generator] = []
        self.addresses = np.zeros(0, dtype=np.uint64)

    def load(
        self, states: Sequence[dict[str, Any]]
    ) -> tuple[list[np.random.Generator], NDArray[np.uint64]]:
        """Generators at ``states`` (valid until the next call in this thread) and their
        bit generators' addresses."""
        n = len(states)
        if len(self.generators) < n:
            self.generators += [_generator(s) for s in states[len(self.generators) :]]
            self.addresses = np.array(
                [g.bit_generator.ctypes.bit_generator.value for g in self.generators],
                dtype=np.uint64,
            )
        for g, s in zip(self.generators, states, strict=False):
            g.bit_generator.state = s
        return self.generators[:n], self.addresses[:n]


_STREAMS = _Streams()


def init_state(
    problem: SGNSGibbsProblem,
    *,
    seed: int,
    chain: int,
    rho: NDArray[np.float64] | None = None,
    alpha: NDArray[np.float64] | None = None,
) -> GibbsState:
    """Initial state of chain ``chain``: given matrices, or a draw from the prior (eq. (6)).

    Parameters
    ----------
    problem
        The posterior.
    seed, chain
        Define the chain's streams (``spawn_key=(chain, block, group)``; the prior
        draw uses ``(chain, 2)``).
    rho, alpha
        Initial ``V x K`` matrices; ``alpha``'s fixed rows are overwritten with
        ``fixed_alpha``. Missing ones are drawn from the prior.
    """
    V, K = problem.V, problem.K
    init_rng = _stream(seed, chain, _INIT)
    draw_rho = init_rng.standard_normal((V, K)) * problem.prior_sd
    draw_alpha = init_rng.standard_normal((V, K)) * problem.prior_sd
    rho0 = draw_rho if rho is None else np.array(rho, dtype=np.float64)
    alpha0 = draw_alpha if alpha is None else np.array(alpha, dtype=np.float64)
    for name, m in (("rho", rho0), ("alpha", alpha0)):
        if m.shape != (V, K) or not np.all(np.isfinite(m)):
            raise ValueError(f"initial {name} must be a finite {V} x {K} matrix, got {m.shape}")
    alpha0[problem.fixed_index] = problem.fixed_alpha
    states = tuple(
        tuple(
            _stream(seed, chain, b, g).bit_generator.state
            for g in range(problem.blocks[b].n_groups)
        )
        for b in (_RHO, _ALPHA)
    )
    if not problem.identified:
        states = (*states, (_stream(seed, chain, _GAUGE).bit_generator.state,))
    return GibbsState(np.ascontiguousarray(rho0), np.ascontiguousarray(alpha0), 0, states)


def gauge_move(
    rho: NDArray[np.float64],
    alpha: NDArray[np.float64],
    prior_sd: float,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """An exact move of the unidentified posterior along its ridge of equal likelihood.

    The likelihood depends on ``rho @ alpha.T`` only, so it is unchanged by ``rho ->
    rho A^-T``, ``alpha -> alpha A`` for every invertible ``A`` (eq. (7)); only the
    prior tells points of that ridge apart. Blocked Gibbs moves along it slowly: each
    block's conditional is narrow (the likelihood pins ``rho`` given ``alpha``) while
    the ridge is as wide as the prior. This move draws the position on the ridge
    directly, in two group moves, each of which leaves the posterior invariant
    (generalized Gibbs, Liu and Sabatti 2000):

    1. a rotation ``Q`` drawn from the Haar measure on ``O(K)`` (the posterior is
       rotation invariant, the prior being spherical);
    2. a scaling ``A = diag(c)``, ``c_k > 0``: with ``R_k = |rho[:, k]|^2`` and
       ``S_k = |alpha[:, k]|^2``, the action has Jacobian 1, so under the Haar
       measure ``dc/c`` the conditional of ``u_k = c_k^2`` is proportional to
       ``u^-1 exp(-(S_k u + R_k / u) / (2 lambda^2))``: a generalized inverse
       Gaussian with ``p = 0``, drawn exactly.

    Together they reach every ``A = Q D`` of ``GL(K)`` up to rotations. Cost:
    ``O(V K^2)``, nothing beside a sweep.
    """
    K = rho.shape[1]
    z = rng.standard_normal((K, K))
    q, r = np.linalg.qr(z)
    q = q * np.where(np.diag(r) < 0, -1.0, 1.0)  # Haar: fix the signs of QR's factor
    rho = rho @ q
    alpha = alpha @ q
    scale2 = prior_sd**2
    r_k = np.einsum("vk,vk->k", rho, rho) / scale2
    s_k = np.einsum("vk,vk->k", alpha, alpha) / scale2
    # u = sqrt(R/S) e^y with y of density proportional to exp(-w cosh y), w = sqrt(R S)
    y = _cosh_exponential(np.sqrt(r_k * s_k), rng)
    c = (r_k / s_k) ** 0.25 * np.exp(0.5 * y)
    return np.ascontiguousarray(rho / c), np.ascontiguousarray(alpha * c)


def _cosh_exponential(w: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.float64]:
    """One draw per entry of ``w > 0`` from the density proportional to ``exp(-w cosh y)``.

    ``log`` of a generalized inverse Gaussian with ``p = 0``. Rejection from
    ``N(0, 1/w)``, which dominates because ``cosh y - 1 >= y^2 / 2``; the acceptance
    probability ``exp(-w (cosh y - 1 - y^2 / 2))`` tends to 1 as ``w`` grows (here
    ``w`` is about ``V`` when the columns have the prior's scale) and
    falls as ``w`` shrinks below 1, which slows the loop but keeps the draw exact.
    """
    w = np.asarray(w, dtype=np.float64)
    out = np.empty_like(w)
    todo = np.arange(w.size)
    while todo.size:
        ww = w[todo]
        y = rng.standard_normal(todo.size) / np.sqrt(ww)
        log_accept = -ww * (np.cosh(y) - 1.0 - 0.5 * y * y)
        ok = np.log(rng.random(todo.size)) < log_accept
        out[todo[ok]] = y[ok]
        todo = todo[~ok]
    return out


def _update_block(
    block: _Block,
    beta: NDArray[np.float64],
    covariates: NDArray[np.float64],
    rngs: Sequence[np.random.Generator],
    addresses: NDArray[np.uint64],
    inner_steps: int,
    prior_precision: float,
    native: bool,
    omega_given: NDArray[np.float64] | None = None,
    relax: float = 0.0,
) -> tuple[int, NDArray[np.float64]]:
    # addresses: the C bit generators of rngs, for the native PG draws. omega_given: the
    # first inner step uses these PG variables (drawn for the other block in this sweep)
    # instead of drawing new ones.
    K = beta.shape[1]
    omega = np.empty(len(block.n)) if omega_given is None else omega_given
    eps = np.empty((len(block.rows), K))
    gp, gpp = block.group_ptr, block.group_pair_ptr
    failed = 0
    for step_no in range(inner_steps):
        draw = omega_given is None or step_no > 0
        eta = kern.block_linear_predictor(beta, covariates, block.rows, block.ptr, block.other)
        # Each group: its pairs' PG draws, then its rows' normals, from its own stream.
        if native and draw:
            kern.polya_gamma_groups(addresses, gpp, block.n, eta, kern.PG_AUTO, omega)
        for g, rng in enumerate(rngs):
            if not native and draw:
                p0, p1 = gpp[g], gpp[g + 1]
                polya_gamma(block.n[p0:p1], eta[p0:p1], rng, out=omega[p0:p1], native=False)
            eps[gp[g] : gp[g + 1]] = rng.standard_normal((gp[g + 1] - gp[g], K))
        failed += kern.block_update(
            beta,
            covariates,
            block.rows,
            block.ptr,
            block.other,
            block.kappa,
            omega,
            eps,
            prior_precision,
            relax,
        )
    return failed, omega


def step(
    problem: SGNSGibbsProblem,
    state: GibbsState,
    *,
    inner_steps: int = 1,
    native: bool | None = None,
    omega_per_sweep: bool = True,
    overrelax: float = 0.0,
    gauge_moves: bool = True,
) -> tuple[GibbsState, GibbsInfo]:
    """One sweep: every ``rho_w`` given ``alpha``, then every free ``alpha_v`` given ``rho``.

    For the unidentified model (no fixed context vectors) the sweep ends with
    :func:`gauge_move` unless ``gauge_moves=False``.

    With ``omega_per_sweep=False`` this is Algorithm 1 of the paper: each block draws
    the PG variables of its pairs afresh (given the current vectors), then its vectors.
    With ``omega_per_sweep=True`` (the sampler's default) the ``alpha`` block's first
    step reuses the PG variables the ``rho`` block drew in this sweep. Both are
    systematic-scan Gibbs samplers of the augmented posterior ``p(rho, alpha, omega |
    y)`` (``omega`` given both sides is ``PG(n_u, rho_w . alpha_v)``; each side given
    the other and ``omega`` is Gaussian), so both leave it invariant; the second draws
    half as many PG variables per sweep, which are most of a sweep's cost.

    Parameters
    ----------
    problem
        The posterior.
    state
        Current state (not modified).
    inner_steps
        ``S``: omega/beta steps per vector per sweep (each a valid Gibbs step).
    native
        Draw PG variables by calling polyagamma's C sampler from Numba, in parallel
        over the groups (True), or through its Python API (False); ``None``: the
        former when available. Both give the same draws.
    omega_per_sweep
        Draw the PG variables once per sweep (True, the default, as the sampler's
        ``omega="per-sweep"``) or once per block (False, the paper's Algorithm 1);
        see above.
    overrelax
        ``a`` of Adler's overrelaxed Gaussian step (0: the exact draw); see the
        ``overrelax`` option of :class:`PGGibbsArgs`.

    Returns
    -------
    (GibbsState, GibbsInfo)
    """
    rho = state.rho.copy()
    alpha = state.alpha.copy()
    new_states = []
    failed = 0
    if native is None:
        native = kern.HAVE_NATIVE_PG
    omega = None
    for b, (beta, cov) in enumerate(((rho, alpha), (alpha, rho))):
        rngs, addresses = _STREAMS.load(state.rng_states[b])
        block = problem.blocks[b]
        given = omega[block.pair_index] if (omega_per_sweep and b == _ALPHA) else None
        f, omega = _update_block(
            block, beta, cov, rngs, addresses, inner_steps, problem.prior_precision, native,
            given, overrelax,
        )  # fmt: skip
        failed += f
        new_states.append(tuple(r.bit_generator.state for r in rngs))
    if not problem.identified:
        # Every sweep ends with a move along the ridge; its stream's state is the last one
        # (it advances only when the move is on).
        (g,), _ = _STREAMS.load(state.rng_states[-1])
        if gauge_moves:
            rho, alpha = gauge_move(rho, alpha, problem.prior_sd, g)
        new_states.append((g.bit_generator.state,))
    new = GibbsState(rho, alpha, state.sweep + 1, tuple(new_states))
    return new, GibbsInfo(lp=problem.log_joint(rho, alpha), failed=failed)


# --------------------------------------------------------------------------- arguments


@dataclass(frozen=True, kw_only=True)
class PGGibbsArgs:
    """Options of ``method="pg-gibbs"``; ``None`` means the default shown.

    Attributes
    ----------
    iter_warmup
        Sweeps discarded before the kept ones (default 200).
    iter_sampling
        Sweeps after warm-up (default 1000); every ``thin``-th is kept, starting with
        the first, so ``ceil(iter_sampling / thin)`` draws per chain, as in cmdstanpy.
    thin
        Keep one sweep in ``thin`` (default 1).
    inner_steps
        The paper's ``S`` (default 1).
    omega
        When the Pólya-Gamma variables are drawn: ``"per-sweep"`` (default) draws
        them for the ``rho`` block and lets the ``alpha`` block's first step reuse
        them; ``"per-block"`` draws them afresh for each block, as the paper's
        Algorithm 1 does. Both are exact Gibbs samplers of the augmented posterior
        (see :func:`step`). Per sweep, ``"per-sweep"`` draws half as many PG
        variables, which are most of a sweep's cost (``bayeswe bench pg-gibbs-profile``);
        ``bayeswe bench pg-gibbs`` measures both schedules' ESS per second.
    overrelax
        ``a`` in ``(-1, 1)``, default 0: each vector's Gaussian step is Adler's
        overrelaxed step ``m + a (beta - m) + sqrt(1 - a^2) L'^-1 eps`` from its current
        value ``beta`` instead of the exact draw ``m + L'^-1 eps`` (``a = 0``). Every
        ``a`` leaves the conditional, and so the posterior, invariant. A negative ``a``
        (e.g. -0.5) moves each vector to the other side of its conditional mean, which
        cuts the random walk between the coupled ``rho`` and ``alpha`` blocks: the
        bulk and tail ESS of co-occurrence probabilities per sweep rise, at no extra
        cost per sweep, while the log joint's ESS falls as ``a`` approaches -1
        (``bayeswe bench pg-gibbs --overrelax`` measures both).
    init
        ``"map"`` (default; every chain starts at the MAP of ``sgns_identified``
        found by Stan's L-BFGS with the run's seed, as ``bayeswe.sgns.fit_sgns``
        does), ``"prior"`` (each chain its own prior draw), or values as for
        ``inits``. From the prior, chains can settle in secondary modes of the
        identified posterior, far below the main one.
    inits
        Initial values as for Stan (so that ``fit_sgns`` can pass its MAP start): a
        mapping with ``"rho"`` (``V x K``) and ``"alpha"`` (``V x K``) or
        ``"alpha_free"`` (``(V - K) x K``), or a list of such mappings, one per chain.
    parallel_chains
        Chains stepped at the same time, each in its own thread (default 1: one
        after another; each chain's kernels are already parallel). The draws do not
        depend on it.
    threads_per_chain
        Numba threads and PG threads of each chain (default: Numba's current
        setting). The draws do not depend on it.
    checkpoint
        File holding the run's state; if it exists the run resumes from it. The kept
        draws then live in ``<checkpoint>.draws.npy`` beside it, a memory-mapped array
        filled as the run goes (so they need not fit in memory, and a checkpoint
        writes only the current state, not every draw again).
    checkpoint_every
        Sweeps between checkpoint writes (default 100; the end is always written).
    gauge_moves
        Unidentified model only (``bayeswe.fit("sgns", ..., method="pg-gibbs")``): end
        every sweep with :func:`gauge_move`, an exact draw of the position along the
        ridge of equal likelihood (default True). Without it the blocked sweeps
        cross that ridge by a slow random walk; the co-occurrence probabilities are
        unaffected in distribution either way.
    callback
        Called as ``callback(sweeps_done)`` after each sweep of all chains.
    show_progress
        Report sweeps done, rate and time left on standard error (see
        :mod:`bayeswe.progress`; default: the process default, off in the library and
        on in the ``bayeswe`` command line). Does not change the draws.
    """

    iter_warmup: int | None = None
    iter_sampling: int | None = None
    thin: int | None = None
    inner_steps: int | None = None
    omega: str | None = None
    overrelax: float | None = None
    init: Any = None
    inits: Any = None
    parallel_chains: int | None = None
    threads_per_chain: int | None = None
    checkpoint: str | os.PathLike[str] | None = None
    checkpoint_every: int | None = None
    gauge_moves: bool | None = None
    callback: Callable[[int], None] | None = None
    show_progress: bool | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> PGGibbsArgs:
        """Build and validate (``ValueError`` for an unknown option or a bad value)."""
        return build_options(cls, "pg-gibbs", options)

    def validate(self) -> None:
        for name, minimum in (
            ("iter_warmup", 0),
            ("iter_sampling", 1),
            ("thin", 1),
            ("inner_steps", 1),
            ("parallel_chains", 1),
            ("threads_per_chain", 1),
            ("checkpoint_every", 1),
        ):
            check_int(name, getattr(self, name), minimum=minimum)
        check_choice("omega", self.omega, OMEGA_SCHEDULES)
        if self.overrelax is not None:
            a = self.overrelax
            if isinstance(a, bool) or not isinstance(a, (int, float, np.floating, np.integer)):
                raise ValueError(f"overrelax must be a number in (-1, 1), got {a!r}")
            if not -1.0 < float(a) < 1.0:
                raise ValueError(f"overrelax must be in (-1, 1), got {a!r}")
        init = self.init
        if not (init is None or (isinstance(init, str) and init in ("prior", "map"))):
            _check_values("init", init)
        if self.inits is not None:
            if init is not None:
                raise ValueError("give init or inits, not both")
            _check_values("inits", self.inits)
        if self.gauge_moves is not None and not isinstance(self.gauge_moves, (bool, np.bool_)):
            raise ValueError(f"gauge_moves must be True or False, got {self.gauge_moves!r}")
        if self.callback is not None and not callable(self.callback):
            raise ValueError("callback must be callable")
        progress_resolve(self.show_progress)

    def settings(self) -> dict[str, Any]:
        """The options that define the draws (compared on resume)."""
        init = self.init if isinstance(self.init, str) or self.init is None else "given"
        if self.inits is not None:
            init = "given"
        return {
            "iter_warmup": 200 if self.iter_warmup is None else int(self.iter_warmup),
            "iter_sampling": 1000 if self.iter_sampling is None else int(self.iter_sampling),
            "thin": 1 if self.thin is None else int(self.thin),
            "inner_steps": 1 if self.inner_steps is None else int(self.inner_steps),
            "omega": "per-sweep" if self.omega is None else self.omega,
            "overrelax": 0.0 if self.overrelax is None else float(self.overrelax),
            "init": init or "map",
        }


def _check_values(name: str, value: Any) -> None:
    if isinstance(value, Mapping) or (
        isinstance(value, list) and value and all(isinstance(i, Mapping) for i in value)
    ):
        return
    raise ValueError(
        f"{name} must be 'prior', 'map', a mapping or a list of mappings"
        if name == "init"
        else f"{name} must be a mapping or a list of mappings, got {type(value).__name__}"
    )


# --------------------------------------------------------------------------- driver


def _initial_matrices(
    problem: SGNSGibbsProblem, init: Any, chains: int, seed: int
) -> list[tuple[Any, Any]]:
    if init == "prior":
        return [(None, None)] * chains
    if init is None or init == "map":
        from bayeswe.stan.fitting import fit_stan

        mode = fit_stan(problem.model, problem.stan_data, method="map", seed=seed)
        rho = mode.posterior["rho"].values[0, 0]
        alpha = mode.posterior["alpha"].values[0, 0]
        return [(rho, alpha)] * chains
    inits = [init] * chains if isinstance(init, Mapping) else list(init)
    if len(inits) != chains:
        raise ValueError(f"initial values list {len(inits)} mappings for {chains} chains")
    out = []
    for i in inits:
        if "rho" not in i or not ("alpha" in i or "alpha_free" in i):
            raise ValueError("initial values need 'rho' and 'alpha' or 'alpha_free'")
        if "alpha" in i:
            alpha = np.asarray(i["alpha"], dtype=float)
        else:
            free = np.asarray(i["alpha_free"], dtype=float)
            if free.shape != (len(problem.free_index), problem.K):
                raise ValueError(f"initial alpha_free has shape {free.shape}")
            alpha = problem.full_alpha(free)
        rho = np.asarray(i["rho"], dtype=float)
        for name, value in (("rho", rho), ("alpha", alpha)):
            if not np.isfinite(value).all():
                raise ValueError(f"initial {name} holds NaN or infinite values")
            largest = float(np.abs(value).max(initial=0.0))
            if largest > 1.0 and (issue := magnitude_problem(f"initial max |{name}|", largest)):
                raise ValueError(f"{issue}; start on the prior's scale or at the MAP")
        out.append((rho, alpha))
    return out


class PGGibbsSampler:
    """PG-Gibbs chains of one posterior, for :func:`bayeswe.samplers.driver.run_chains`.

    ``init`` starts chain ``c`` at :func:`init_state` from the run's starting values
    (the MAP, computed once on the first call, a prior draw, or given values); ``step``
    is :func:`step` with the run's settings; a kept sweep records ``rho``, ``alpha``
    and the log joint ``lp``.
    """

    name = "pg-gibbs"

    def __init__(
        self, problem: SGNSGibbsProblem, settings: Mapping[str, Any], seed: int, chains: int,
        init: Any,
    ) -> None:  # fmt: skip
        self.problem = problem
        self.settings = settings
        self.seed = int(seed)
        self.chains = chains
        self._init = init
        self._starts: list[tuple[Any, Any]] | None = None
        V, K = problem.V, problem.K
        self.layout = {
            "rho": ((V, K), np.float64),
            "alpha": ((V, K), np.float64),
            "lp": ((), np.float64),
        }

    def init(self, chain: int) -> GibbsState:
        if self._starts is None:
            self._starts = _initial_matrices(self.problem, self._init, self.chains, self.seed)
        rho, alpha = self._starts[chain]
        return init_state(self.problem, seed=self.seed, chain=chain, rho=rho, alpha=alpha)

    def step(self, state: GibbsState) -> tuple[GibbsState, GibbsInfo]:
        s = self.settings
        return step(
            self.problem,
            state,
            inner_steps=s["inner_steps"],
            omega_per_sweep=s["omega"] == "per-sweep",
            overrelax=s["overrelax"],
            gauge_moves=s.get("gauge_moves", False),
        )

    def record(self, state: GibbsState, info: GibbsInfo) -> dict[str, Any]:
        return {"rho": state.rho, "alpha": state.alpha, "lp": info.lp}

    def lp(self, info: GibbsInfo) -> float:
        return info.lp

    def tally(self, info: GibbsInfo) -> dict[str, int]:
        return {"failed": info.failed}

    def dump(self, state: GibbsState) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        record = {"sweep": state.sweep, "rng_states": [list(b) for b in state.rng_states]}
        return {"rho": state.rho, "alpha": state.alpha}, record

    def load(self, arrays: Mapping[str, NDArray[Any]], record: Mapping[str, Any]) -> GibbsState:
        V, K = self.problem.V, self.problem.K
        rho, alpha = np.array(arrays["rho"]), np.array(arrays["alpha"])
        if rho.shape != (V, K) or alpha.shape != (V, K):
            raise ValueError(f"state matrices {rho.shape}, {alpha.shape}; need {(V, K)}")
        if not (np.isfinite(rho).all() and np.isfinite(alpha).all()):
            raise ValueError("a non-finite state")
        states = tuple(tuple(b) for b in record["rng_states"])
        return GibbsState(rho, alpha, int(record["sweep"]), states)


def sample_pg_gibbs(
    data: Mapping[str, Any],
    *,
    seed: int,
    chains: int | None = None,
    identified: bool = True,
    **options: Any,
) -> az.InferenceData:
    """Sample the SGNS posterior by PG blocked Gibbs (Algorithm 1).

    Parameters
    ----------
    data
        Data of ``sgns_identified`` (as for ``bayeswe.fit("sgns_identified", ...)``),
        or of ``sgns`` with ``identified=False``.
    identified
        The identified model (``K`` context vectors fixed) or the unidentified one,
        every context vector free, each sweep followed by a :func:`gauge_move`
        (option ``gauge_moves``). The latter's draws of ``rho`` and ``alpha`` wander
        along the orbit of equivalent embeddings; what does not depend on the gauge
        (``rho @ alpha.T``, co-occurrence probabilities, the log likelihood) is
        sampled as usual, and :mod:`bayeswe.sgns.gauge` maps each draw to a
        canonical gauge.
    seed
        Seed in ``[0, 2**32 - 1]``; with the options it determines every draw.
    chains
        Number of chains (default 4).
    **options
        See :class:`PGGibbsArgs`.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``rho``, ``alpha`` (fixed rows included) with dims
        ``(chain, draw, word, dim)`` and, identified, ``alpha_free`` ``(chain, draw,
        free_word, dim)``, as a Stan fit of the same model; ``sample_stats``: ``lp``,
        the log joint density of each kept sweep (Stan's ``lp__`` convention);
        ``warmup_sample_stats``: ``lp`` of every warm-up sweep;
        ``attrs``: ``method``, ``iter_warmup``, ``iter_sampling``, ``thin``,
        ``inner_steps``, ``seed``, ``parallel_chains``, ``threads_per_chain``,
        ``wall_time``, ``sweep_time``, ``init``, ``resumed``.

    Raises
    ------
    ValueError
        Bad options.
    CheckpointError
        A checkpoint written for other data or settings, corrupt, or in use.
    """
    from bayeswe.inference_data import to_inference_data
    from bayeswe.samplers.driver import RunOptions, Schedule, run_chains

    args = PGGibbsArgs.from_options(options)
    chains = 4 if chains is None else chains
    check_int("chains", chains, minimum=1)
    chains = int(chains)
    settings = args.settings()
    schedule = Schedule(settings.pop("iter_warmup"), settings.pop("iter_sampling"),
                        settings.pop("thin"))  # fmt: skip
    problem = SGNSGibbsProblem.from_stan_data(data, identified=identified)
    if identified and args.gauge_moves is not None:
        raise ValueError(
            "gauge_moves applies to the unidentified model only (fixed context vectors "
            "break the symmetry the move follows)"
        )
    if not identified:
        settings["gauge_moves"] = True if args.gauge_moves is None else bool(args.gauge_moves)
    sampler = PGGibbsSampler(
        problem, settings, int(seed), chains, args.init if args.inits is None else args.inits
    )
    run = run_chains(
        sampler,
        chains=chains,
        schedule=schedule,
        seed=int(seed),
        fingerprint=problem.fingerprint(),
        settings=settings,
        options=RunOptions(
            parallel_chains=1 if args.parallel_chains is None else int(args.parallel_chains),
            threads_per_chain=args.threads_per_chain,
            checkpoint=args.checkpoint,
            checkpoint_every=100 if args.checkpoint_every is None else int(args.checkpoint_every),
            callback=args.callback,
            show_progress=args.show_progress,
        ),
    )
    failed = int(run.totals["failed"].sum())
    if failed:
        warnings.warn(
            f"pg-gibbs: {failed} precision matrices failed to factor (first in sweep "
            f"{run.first_nonzero['failed']}); those vectors kept their previous values, so "
            "the draws are not from the posterior. Rescale the data or start closer to the "
            "mode.",
            SamplerWarning,
            stacklevel=2,
        )
    attrs = {
        "model": problem.model.name,
        "method": "pg-gibbs",
        "iter_warmup": schedule.iter_warmup,
        "iter_sampling": schedule.iter_sampling,
        "thin": schedule.thin,
        "inner_steps": settings["inner_steps"],
        "omega": settings["omega"],
        "overrelax": settings["overrelax"],
        "init": settings["init"],
        "seed": int(seed),
        "parallel_chains": run.parallel_chains,
        "threads_per_chain": run.threads_per_chain,
        "wall_time": run.wall_time,
        "sweep_time": run.sweep_time,
        "resumed": bool(run.resumed),
        "failed_factorizations": failed,
        "pg_sampler": (
            "polyagamma C sampler from Numba" if kern.HAVE_NATIVE_PG else "polyagamma Python API"
        )
        + " (Devroye, exact, for h < 24; saddle-point approximation for 24 <= h < 65536; "
        "moment-matched gamma series from h = 65536); one stream per chain, block, group",
    }
    posterior = {"rho": run.draws["rho"], "alpha": run.draws["alpha"]}
    if identified:
        posterior["alpha_free"] = run.draws["alpha"][:, :, problem.free_index]
    else:
        attrs["gauge_moves"] = settings["gauge_moves"]
    return to_inference_data(
        problem.model,
        posterior,
        data=data,
        sample_stats={"lp": run.draws["lp"]},
        warmup_sample_stats={"lp": run.warmup_lp} if schedule.iter_warmup else None,
        attrs=attrs,
        library=None,
    )
