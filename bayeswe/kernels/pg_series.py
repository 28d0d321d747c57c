"""PG(h, z) draws in bounded time for large h: the gamma series, its tail moment-matched.

``PG(h, z)`` is the weighted sum of independent gammas (Polson, Scott & Windle 2013,
definition 1)::

    PG(h, z) = sum_{k >= 1} G_k / d_k,   G_k ~ Gamma(h, 1),   d_k = 2 pi^2 (k - 1/2)^2 + z^2 / 2.

The exact samplers cost time that grows with ``h`` (Devroye's and the table method sum
``h`` draws of ``PG(1, z)``; polyagamma's alternate sampler grows as fast), and
polyagamma's saddle-point sampler, whose cost is flat, does not return for some ``z``
once ``h`` is in the hundreds of millions. For large ``h`` this module draws the first
:data:`SERIES_TERMS` terms exactly and replaces the rest ``R = sum_{k > K} G_k / d_k``
by one gamma with ``R``'s mean ``h S_1`` and variance ``h S_2`` (``S_n = sum_{k > K}
d_k^-n``). So the draw has exactly the mean and the variance of ``PG(h, z)``; its
third cumulant is ``2 h (S_2^2 / S_1 - S_3)`` short of ``PG``'s, which moves its
skewness by at most ``0.047 / sqrt(h)`` over all ``z`` (worst near ``|z| = 400``; at
``z = 0`` by ``4e-9 / sqrt(h)``), i.e. by at most ``1.9e-4`` from the shape where the
Gibbs sampler starts using it (:data:`~bayeswe.kernels.pg_gibbs.SERIES_MIN_H`). This
is an approximation and is named so wherever the samplers are described.

The cost is ``K + 1`` gamma draws whatever ``h`` and ``z``: each is Marsaglia and
Tsang's (2000) rejection method, which keeps more than 95 % of its proposals for shapes
of 1 and more (all shapes here are at least ``h``).

``S_1`` and ``S_2`` over all ``k`` have closed forms (the mean and the variance of
``PG(1, z)``); the tail sums are those minus the first ``K`` terms.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bayeswe.kernels.pg_table import _next_double

__all__ = ["SERIES_TERMS", "fill_pg_series", "pg1_moments", "pg_series"]

#: Terms of the gamma series drawn exactly; the rest is one moment-matched gamma.
SERIES_TERMS: int = 16

_TWO_PI2 = 2.0 * math.pi * math.pi


@njit(cache=True)
def pg1_moments(z: float) -> tuple[float, float]:
    """Mean ``tanh(|z|/2) / (2|z|)`` and variance of ``PG(1, z)``, stable for all ``z``.

    The variance is ``(2 tanh(a/2) - a / cosh^2(a/2)) / (4 a^3)`` with ``a = |z|``; below
    ``a = 0.1`` that difference cancels, and its Taylor series in ``u = a / 2`` is used
    (``1/24 - u^2/30 + 17 u^4/840 - 31 u^6/2835``, next term below ``1e-12``).
    """
    a = abs(z)
    if a < 1e-8:
        mean = 0.25
    else:
        mean = math.tanh(0.5 * a) / (2.0 * a)
    if a < 0.1:
        u2 = 0.25 * a * a
        var = 1.0 / 24.0 + u2 * (-1.0 / 30.0 + u2 * (17.0 / 840.0 - u2 * (31.0 / 2835.0)))
    else:
        half = 0.5 * a
        sech2 = 0.0 if half > 350.0 else 1.0 / (math.cosh(half) ** 2)
        var = (2.0 * math.tanh(half) - a * sech2) / (4.0 * a * a * a)
    return mean, var


@njit(cache=True, inline="always")
def _std_normal(address: int) -> float:
    """One standard normal by the Box-Muller transform (the sine half is not used)."""
    u = 1.0 - _next_double(address)  # in (0, 1]
    v = _next_double(address)
    return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * v)


@njit(cache=True)
def _gamma(address: int, shape: float) -> float:
    """``Gamma(shape, 1)``, ``shape >= 1``, by Marsaglia and Tsang's (2000) method."""
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = _std_normal(address)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = _next_double(address)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return d * v
        if u > 0.0 and math.log(u) < 0.5 * x2 + d * (1.0 - v + math.log(v)):
            return d * v


@njit(cache=True)
def pg_series(address: int, h: float, z: float) -> float:
    """One draw of ``PG(h, z)``, ``h >= 1``: :data:`SERIES_TERMS` exact gamma terms and
    a gamma with the tail's mean and variance (see the module docstring).

    ``address`` is the ``bitgen_t`` address of a NumPy bit generator; it is advanced.
    """
    half_z2 = 0.5 * z * z
    s1, s2 = pg1_moments(z)
    total = 0.0
    for k in range(SERIES_TERMS):
        m = k + 0.5
        d = _TWO_PI2 * m * m + half_z2
        total += _gamma(address, h) / d
        s1 -= 1.0 / d
        s2 -= 1.0 / (d * d)
    # the tail: mean h s1 and variance h s2 give shape h s1^2 / s2 (at least h) and
    # scale s2 / s1
    return total + _gamma(address, h * s1 * s1 / s2) * (s2 / s1)


@njit(cache=True)
def fill_pg_series(address: int, h: np.ndarray, z: np.ndarray, out: np.ndarray) -> None:
    """``out[j] ~`` :func:`pg_series` ``(h[j], z[j])`` in order ``j = 0, 1, ...``."""
    for j in range(h.shape[0]):
        out[j] = pg_series(address, h[j], z[j])
