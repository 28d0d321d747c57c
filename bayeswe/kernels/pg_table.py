"""Exact PG(h, z) draws for integer h and small |z|: a table sampler of PG(1, 0), tilted.

``PG(h, z)`` with integer ``h`` is the sum of ``h`` independent ``PG(1, z)`` draws, and
``PG(1, z)`` has density ``cosh(z / 2) exp(-z^2 w / 2) f(w)``, with ``f`` the density of
``PG(1, 0)`` (Polson, Scott & Windle 2013, sections 2 and 4). So a ``PG(1, z)``
draw is a ``PG(1, 0)`` draw ``w`` kept with probability ``exp(-z^2 w / 2)``; the kept share
is ``1 / cosh(z / 2)``, above 0.88 for ``|z| <= 1``, the |z| of most word pairs.

``PG(1, 0)`` is drawn by a table method (Devroye 1986, chapter VIII):
``[0, x_right]`` is cut into bins of equal width; on bin ``j`` the density lies between
``lower[j]`` and ``upper[j]`` (``f`` is unimodal, so these are its values at the
bin's ends, and ``f`` at the mode for the mode's bin). A bin is chosen with probability
proportional to ``width * upper[j]`` by Walker's alias method, ``w`` uniformly in it, and
``w`` is kept when ``U * upper[j] <= f(w) exp(-z^2 w / 2)``. The bounds on ``f`` and
``1 - t <= exp(-t)`` decide most draws without summing ``f``'s series. Beyond
``x_right`` the proposal is the first term of ``f``'s second series, ``2 pi exp(-pi^2 w / 2)``,
an upper bound there because that series alternates with decreasing terms. Every draw is
exact: the only approximation is ``f``'s series summed to double precision, as in
Devroye's method.

``f(w) = 4 J(4 w)``, where ``J`` is the density of Devroye's ``J*(1)`` with two alternating
series (Polson, Scott & Windle 2013, section 4.1; both converge everywhere, each fast on
its side of ``t = 0.64``):

* ``J(x) = sum_n (-1)^n pi (n + 1/2) (2 / (pi x))^(3/2) exp(-2 (n + 1/2)^2 / x)``,
* ``J(x) = sum_n (-1)^n pi (n + 1/2) exp(-(n + 1/2)^2 pi^2 x / 2)``.

Random numbers come from a NumPy bit generator, read through its ``bitgen_t`` address, so
these draws and polyagamma's C samplers share one stream per group of pairs.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from bayeswe.kernels.pairs import alias_table

__all__ = [
    "DEFAULT_SAMPLER",
    "DEFAULT_TABLE",
    "PGTableSampler",
    "make_sampler",
    "TABLE_MAX_ABS_Z",
    "PGTable",
    "build_table",
    "density_pg1",
    "fill_pg_table",
    "pg_table",
    "proposal_alias",
]

#: The table sampler is used below this ``|z|`` only: beyond it fewer than 0.55 of the
#: ``PG(1, 0)`` draws are kept (``1 / cosh(z / 2)``) and Devroye's method is as fast.
TABLE_MAX_ABS_Z: float = 2.5

_SWITCH_J = 0.64  # where J's two series trade places (Devroye's t)
_PI2 = math.pi * math.pi


@njit(cache=True)
def density_pg1(w: float) -> float:
    """Density of ``PG(1, 0)`` at ``w``, its alternating series summed to double precision."""
    if w <= 0.0:
        return 0.0
    x = 4.0 * w
    total = 0.0
    if x <= _SWITCH_J:
        scale = math.pi * (2.0 / (math.pi * x)) ** 1.5
        for n in range(200):
            k = n + 0.5
            term = scale * k * math.exp(-2.0 * k * k / x)
            total += term if n % 2 == 0 else -term
            if term <= 1e-17 * abs(total):
                break
    else:
        for n in range(200):
            k = n + 0.5
            term = math.pi * k * math.exp(-k * k * _PI2 * x / 2.0)
            total += term if n % 2 == 0 else -term
            if term <= 1e-17 * abs(total):
                break
    return 4.0 * total


def _mode() -> float:
    """Mode of ``PG(1, 0)`` by golden-section search (the density is unimodal)."""
    a, b = 0.01, 1.0
    g = (math.sqrt(5.0) - 1.0) / 2.0
    while b - a > 1e-13:
        c, d = b - g * (b - a), a + g * (b - a)
        if density_pg1(c) > density_pg1(d):
            b = d
        else:
            a = c
    return 0.5 * (a + b)


class PGTable(NamedTuple):
    """The table of :func:`build_table`: density bounds per bin and the bins' alias table."""

    lower: np.ndarray  # f's minimum on each bin
    upper: np.ndarray  # f's maximum on each bin (times 1 + 1e-12)
    prob: np.ndarray  # alias table over the bins and the tail (last entry)
    alias: np.ndarray
    width: float  # bin width
    x_right: float  # right end of the last bin


def build_table(n_bins: int = 512, x_right: float = 2.5) -> PGTable:
    """Cut ``[0, x_right]`` into ``n_bins`` equal bins and bound ``f`` on each.

    ``f`` is unimodal, so its bounds on a bin are its values at the bin's ends, and at
    the mode for the mode's bin. The tail beyond ``x_right`` gets the proposal mass
    ``4/pi exp(-pi^2 x_right / 2)`` (about 6e-6 at the default 2.5).
    """
    if n_bins < 2 or not x_right >= 0.2:
        raise ValueError(f"need n_bins >= 2 and x_right >= 0.2, got {n_bins}, {x_right}")
    edges = np.linspace(0.0, x_right, n_bins + 1)
    at_edges = np.array([density_pg1(e) for e in edges])
    lower = np.minimum(at_edges[:-1], at_edges[1:])
    upper = np.maximum(at_edges[:-1], at_edges[1:])
    width = x_right / n_bins
    mode = _mode()
    j = int(mode / width)
    if j < n_bins:
        upper[j] = density_pg1(mode)
    # the summed series is exact to ~1e-16 relative; the margin keeps upper a bound
    upper *= 1.0 + 1e-12
    prob, alias = proposal_alias(upper, width, x_right)
    return PGTable(lower, upper, prob, alias, width, x_right)


def proposal_alias(
    upper: np.ndarray, width: float, x_right: float
) -> tuple[np.ndarray, np.ndarray]:
    """The alias table over the bins (mass ``width * upper``) and the tail beyond ``x_right``."""
    tail = 4.0 / math.pi * math.exp(-_PI2 * x_right / 2.0)
    weights = np.append(width * np.asarray(upper, dtype=np.float64), tail)
    return alias_table(weights / weights.sum())


#: The table the Gibbs sampler uses: 512 bins on ``[0, 2.5]``; about 96 % of ``PG(1, 0)``
#: proposals are decided by the bounds alone and 98 % are kept.
DEFAULT_TABLE: PGTable = build_table()


@intrinsic
def _next_double(typingctx, address):  # type: ignore[no-untyped-def]
    """``bitgen->next_double(bitgen->state)`` for the ``bitgen_t`` at ``address``.

    NumPy's ``bitgen_t`` is ``{void *state; next_uint64; next_uint32; next_double;
    next_raw}``: five pointers, ``next_double`` the fourth.
    """
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        byte_ptr = ir.IntType(8).as_pointer()
        fn_type = ir.FunctionType(ir.DoubleType(), [byte_ptr])
        slots = builder.inttoptr(args[0], byte_ptr.as_pointer())
        state = builder.load(slots)
        fn = builder.load(builder.gep(slots, [ir.Constant(ir.IntType(32), 3)]))
        return builder.call(builder.bitcast(fn, fn_type.as_pointer()), [state])

    return types.float64(address), codegen


class PGTableSampler(NamedTuple):
    """Numba functions drawing with one :class:`PGTable` (built by :func:`make_sampler`)."""

    #: ``draw(address, h, z)``: one ``PG(h, z)`` draw, integer ``h >= 1``.
    draw: Any
    #: ``fill(address, h, z, out)``: ``out[j] ~ PG(h[j], z[j])`` in order ``j = 0, 1, ...``.
    fill: Any
    table: PGTable


def make_sampler(table: PGTable) -> PGTableSampler:
    """Compile the table sampler for ``table``.

    The table's arrays are frozen into the machine code as constants (Numba treats
    closure variables so), which makes a unit draw about twice as fast as passing the
    table as an argument. ``address`` is the ``bitgen_t`` address of a NumPy bit
    generator (``bit_generator.ctypes.bit_generator.value``); it is advanced.
    """
    lower, upper, prob, alias, width, x_right = table
    n_bins = lower.shape[0]
    n_buckets = n_bins + 1

    @njit(inline="always")
    def pg1_tilted(address: int, half_z2: float) -> float:
        while True:
            u = _next_double(address) * n_buckets
            j = int(u)
            if u - j >= prob[j]:
                j = alias[j]
            if j < n_bins:
                w = width * (j + _next_double(address))
                t = half_z2 * w
                # keep w when v <= f(w) exp(-t); the bounds on f and 1 - t <= exp(-t)
                # decide most draws before the series is summed
                v = _next_double(address) * upper[j]
                if v <= lower[j] * (1.0 - t):
                    return w
                tilt = math.exp(-t)
                if v > upper[j] * tilt:
                    continue
                if v <= lower[j] * tilt or v <= density_pg1(w) * tilt:
                    return w
            else:
                # tail: proposal 2 pi exp(-pi^2 w / 2) >= f(w) on w > x_right
                w = x_right - math.log1p(-_next_double(address)) * (2.0 / _PI2)
                envelope = 2.0 * math.pi * math.exp(-_PI2 * w / 2.0)
                if _next_double(address) * envelope <= density_pg1(w) * math.exp(-half_z2 * w):
                    return w

    @njit
    def draw(address: int, h: float, z: float) -> float:
        half_z2 = 0.5 * z * z
        total = 0.0
        for _ in range(int(h)):
            total += pg1_tilted(address, half_z2)
        return total

    @njit
    def fill(address: int, h: np.ndarray, z: np.ndarray, out: np.ndarray) -> None:
        for j in range(h.shape[0]):
            out[j] = draw(address, h[j], z[j])

    return PGTableSampler(draw, fill, table)


#: The sampler of :data:`DEFAULT_TABLE`, the one the Gibbs sampler uses.
DEFAULT_SAMPLER: PGTableSampler = make_sampler(DEFAULT_TABLE)
#: ``pg_table(address, h, z)``: one ``PG(h, z)`` draw (integer ``h``) with the default table.
pg_table = DEFAULT_SAMPLER.draw
#: ``fill_pg_table(address, h, z, out)``: the draws of :data:`pg_table` for arrays, in order.
fill_pg_table = DEFAULT_SAMPLER.fill
