"""Kernels of the Pólya-Gamma blocked Gibbs sampler for SGNS (Algorithm 1, App. F/G).

Conditionally on the context vectors, each target vector ``rho_w`` is the
coefficient vector of a Bayesian logistic regression whose covariates are the
context vectors ``x_u = alpha_{v_u}`` of its unique pairs ``u``, with binomial
counts ``(n_pos_u, n_u)`` (eq. (5)) and prior ``N(0, lambda^2 I)`` (eq. (6)); and
vice versa. With ``omega_u ~ PG(n_u, x_u' beta)`` (Polson, Scott and Windle,
2013) the conditional of ``beta`` is Gaussian with precision
``P = X' Omega X + lambda^-2 I`` and mean ``P^-1 X' kappa``, ``kappa_u = n_pos_u - n_u / 2``.

A *block* is the set of vectors updated together (all ``rho_w``, or all free
``alpha_v``). Its pairs are stored in CSR form: the ``i``-th updated vector is row
``rows[i]`` of the block's matrix and owns block pairs ``ptr[i]:ptr[i + 1]``;
``other[j]`` is the row of the other block's matrix that is the covariate of block
pair ``j``. Every kernel is parallel over the vectors of a block (``prange``) and
each vector's arithmetic is serial, so the results are bitwise identical for any
number of threads. The update kernels take their random numbers (``omega`` and
the standard normals ``eps``) as inputs; :func:`polya_gamma_groups` draws ``omega``
with the table sampler of :mod:`bayeswe.kernels.pg_table` or polyagamma's C samplers
(:func:`pg_method`), one bit generator per group of pairs.

Arrays: matrices are C-contiguous ``float64`` ``(rows, K)``; ``rows``, ``ptr`` are
``int64``; ``other`` is ``int32`` or ``int64``; per-pair vectors are ``float64``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from bayeswe.kernels.pg_series import pg_series
from bayeswe.kernels.pg_table import TABLE_MAX_ABS_Z, pg_table

__all__ = [
    "block_linear_predictor",
    "accumulate_precision",
    "accumulate_rows",
    "block_update",
    "cholesky_lower",
    "gaussian_from_precision",
    "log_joint",
    "pair_log_likelihood_by_row",
    "polya_gamma_groups",
    "pg_method",
    "HAVE_NATIVE_PG",
]


@njit(cache=True, inline="always")
def _dot(a: np.ndarray, b: np.ndarray) -> float:
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k] * b[k]
    return s


@njit(parallel=True, cache=True)
def block_linear_predictor(
    beta: np.ndarray, covariates: np.ndarray, rows: np.ndarray, ptr: np.ndarray, other: np.ndarray
) -> np.ndarray:
    """Linear predictors ``x_u' beta`` of every block pair (the PG tilting of eq. (5)).

    Parameters
    ----------
    beta
        ``(R, K)`` matrix of the block being updated.
    covariates
        ``(R', K)`` matrix of the other block (its rows are the ``x_u``).
    rows, ptr, other
        CSR structure of the block (see the module docstring).

    Returns
    -------
    numpy.ndarray
        ``eta[j] = beta[rows[i]] . covariates[other[j]]`` for the pairs ``j`` of row ``i``.
    """
    eta = np.empty(ptr[-1], dtype=np.float64)
    for i in prange(rows.shape[0]):
        b = beta[rows[i]]
        for j in range(ptr[i], ptr[i + 1]):
            eta[j] = _dot(b, covariates[other[j]])
    return eta


#: Reassociation lets LLVM vectorize the dot products of the Cholesky factorization and
#: of the precision accumulation. The order of operations is then fixed at compile
#: time (it does not depend on threads); the results differ from a plain loop only
#: in the last bits.
_FAST = {"reassoc", "contract", "nsz", "arcp"}

#: Pairs per chunk of the precision accumulation.
CHUNK: int = 64


@njit(cache=True, fastmath=_FAST)
def cholesky_lower(a: np.ndarray) -> bool:
    """In-place lower Cholesky factor of the symmetric positive definite ``a``.

    Only the lower triangle of ``a`` is read; on return it holds ``L`` with
    ``L L' = a`` (the strict upper triangle is left untouched). Returns False if a
    pivot is not positive (``a`` not numerically positive definite).
    """
    K = a.shape[0]
    for j in range(K):
        d = a[j, j]
        for k in range(j):
            d -= a[j, k] * a[j, k]
        if not d > 0.0:
            return False
        d = math.sqrt(d)
        a[j, j] = d
        aj = a[j]
        for i in range(j + 1, K):
            ai = a[i]
            s = ai[j]
            for k in range(j):
                s -= ai[k] * aj[k]
            ai[j] = s / d
    return True


@njit(cache=True, fastmath=_FAST)
def _syrk_lower_chunk(prec: np.ndarray, work: np.ndarray, m: int) -> None:
    """``prec[r, c] += sum_q work[r, q] work[c, q]`` for ``c <= r``, ``q < m``.

    Register-blocked: each 4 x 4 block of ``prec`` is accumulated in 16 scalars over the
    ``m`` columns of 4 + 4 rows of ``work`` (8 loads for 16 multiply-adds, against 2
    for 1 in a plain dot product), then added once. Rows beyond the last multiple of
    4 use plain dot products.
    """
    K = work.shape[0]
    K4 = K - K % 4
    for r0 in range(0, K4, 4):
        w0, w1, w2, w3 = work[r0], work[r0 + 1], work[r0 + 2], work[r0 + 3]
        p0, p1, p2, p3 = prec[r0], prec[r0 + 1], prec[r0 + 2], prec[r0 + 3]
        for b0 in range(0, r0 + 1, 4):
            v0, v1, v2, v3 = work[b0], work[b0 + 1], work[b0 + 2], work[b0 + 3]
            a00 = a01 = a02 = a03 = a10 = a11 = a12 = a13 = 0.0
            a20 = a21 = a22 = a23 = a30 = a31 = a32 = a33 = 0.0
            for q in range(m):
                x0, x1, x2, x3 = w0[q], w1[q], w2[q], w3[q]
                y0, y1, y2, y3 = v0[q], v1[q], v2[q], v3[q]
                a00 += x0 * y0
                a01 += x0 * y1
                a02 += x0 * y2
                a03 += x0 * y3
                a10 += x1 * y0
                a11 += x1 * y1
                a12 += x1 * y2
                a13 += x1 * y3
                a20 += x2 * y0
                a21 += x2 * y1
                a22 += x2 * y2
                a23 += x2 * y3
                a30 += x3 * y0
                a31 += x3 * y1
                a32 += x3 * y2
                a33 += x3 * y3
            # the diagonal block (b0 == r0) adds its lower triangle only
            p0[b0] += a00
            p1[b0] += a10
            p1[b0 + 1] += a11
            p2[b0] += a20
            p2[b0 + 1] += a21
            p2[b0 + 2] += a22
            p3[b0] += a30
            p3[b0 + 1] += a31
            p3[b0 + 2] += a32
            p3[b0 + 3] += a33
            if b0 < r0:
                p0[b0 + 1] += a01
                p0[b0 + 2] += a02
                p0[b0 + 3] += a03
                p1[b0 + 2] += a12
                p1[b0 + 3] += a13
                p2[b0 + 3] += a23
    for r in range(K4, K):
        wr = work[r]
        pr = prec[r]
        for c in range(r + 1):
            wc = work[c]
            acc = 0.0
            for q in range(m):
                acc += wr[q] * wc[q]
            pr[c] += acc


@njit(cache=True, fastmath=_FAST)
def accumulate_precision(
    prec: np.ndarray,
    b: np.ndarray,
    covariates: np.ndarray,
    other: np.ndarray,
    omega: np.ndarray,
    kappa: np.ndarray,
    start: int,
    stop: int,
    work: np.ndarray,
) -> None:
    """Add ``sum_j omega_j x_j x_j'`` (lower triangle) to ``prec``, ``sum_j kappa_j x_j`` to ``b``.

    Pairs ``j`` in ``start:stop``, ``x_j = covariates[other[j]]``. App. G's
    ``O(n_u K^2)`` term. The pairs are taken in chunks of :data:`CHUNK`: the rows
    ``sqrt(omega_j) x_j`` of a chunk are stored transposed in ``work`` (``K x CHUNK``)
    and added to ``prec`` by a register-blocked SYRK (:func:`_syrk_lower_chunk`),
    instead of one read-modify-write of ``prec`` per pair.
    """
    K = covariates.shape[1]
    for c0 in range(start, stop, CHUNK):
        m = min(CHUNK, stop - c0)
        for q in range(m):
            x = covariates[other[c0 + q]]
            sw = math.sqrt(omega[c0 + q])
            kq = kappa[c0 + q]
            for r in range(K):
                work[r, q] = sw * x[r]
                b[r] += kq * x[r]
        _syrk_lower_chunk(prec, work, m)


@njit(parallel=True, cache=True)
def accumulate_rows(
    prec: np.ndarray,
    covariates: np.ndarray,
    ptr: np.ndarray,
    other: np.ndarray,
    omega: np.ndarray,
    kappa: np.ndarray,
) -> None:
    """:func:`accumulate_precision` for every row ``i`` into ``prec[i]``, parallel over rows.

    The accumulation step of :func:`block_update` alone (used to measure its GFLOP/s).
    """
    K = covariates.shape[1]
    for i in prange(ptr.shape[0] - 1):
        b = np.zeros(K)
        work = np.empty((K, CHUNK))
        accumulate_precision(prec[i], b, covariates, other, omega, kappa, ptr[i], ptr[i + 1], work)


@njit(cache=True, inline="always")
def _forward_solve(chol: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``z`` with ``L z = b`` (``L`` lower triangular)."""
    K = b.shape[0]
    z = np.empty(K)
    for i in range(K):
        s = b[i]
        for k in range(i):
            s -= chol[i, k] * z[k]
        z[i] = s / chol[i, i]
    return z


@njit(cache=True, inline="always")
def _back_solve(chol: np.ndarray, z: np.ndarray, out: np.ndarray) -> None:
    """``out`` with ``L' out = z``."""
    K = z.shape[0]
    for i in range(K - 1, -1, -1):
        s = z[i]
        for k in range(i + 1, K):
            s -= chol[k, i] * out[k]
        out[i] = s / chol[i, i]


@njit(cache=True)
def gaussian_from_precision(chol: np.ndarray, b: np.ndarray, eps: np.ndarray, out: np.ndarray):
    """Draw ``N(P^-1 b, P^-1)`` given the lower Cholesky factor ``L`` of ``P``; no inverse.

    With ``P = L L'``: solve ``L z = b``, then ``L' beta = z + eps``, so that
    ``beta = P^-1 b + L'^-1 eps`` and ``Cov(L'^-1 eps) = (L L')^-1`` (App. F, eqs.
    (34)-(36), written for the precision instead of the covariance).
    """
    z = _forward_solve(chol, b)
    for i in range(z.shape[0]):
        z[i] += eps[i]
    _back_solve(chol, z, out)


@njit(cache=True)
def overrelaxed_from_precision(
    chol: np.ndarray,
    b: np.ndarray,
    eps: np.ndarray,
    current: np.ndarray,
    relax: float,
    out: np.ndarray,
):
    """Adler's overrelaxed step for ``N(m, P^-1)``, ``m = P^-1 b``, from ``current``.

    ``out = m + relax (current - m) + sqrt(1 - relax^2) L'^-1 eps`` with ``P = L L'``:
    for ``-1 < relax < 1`` a reversible kernel that leaves ``N(m, P^-1)`` invariant
    (Adler, 1981; Neal, 1998), so it may replace the exact draw of a Gibbs step. A
    negative ``relax`` moves to the other side of the mean, which suppresses the
    random walk of a Gibbs chain between strongly coupled blocks. Written as
    ``out = L'^-1 ((1 - relax) L^-1 b + sqrt(1 - relax^2) eps) + relax current``.
    """
    s = math.sqrt(1.0 - relax * relax)
    z = _forward_solve(chol, b)
    for i in range(z.shape[0]):
        z[i] = (1.0 - relax) * z[i] + s * eps[i]
    _back_solve(chol, z, out)
    for i in range(z.shape[0]):
        out[i] += relax * current[i]


@njit(parallel=True, cache=True)
def block_update(
    beta: np.ndarray,
    covariates: np.ndarray,
    rows: np.ndarray,
    ptr: np.ndarray,
    other: np.ndarray,
    kappa: np.ndarray,
    omega: np.ndarray,
    eps: np.ndarray,
    prior_precision: float,
    relax: float = 0.0,
) -> int:
    """Draw every vector of a block from its PG-augmented Gaussian conditional (Alg. 1).

    For row ``i`` (vector ``beta[rows[i]]``) with pairs ``u``:
    ``P = sum_u omega_u x_u x_u' + prior_precision I``, ``b = sum_u kappa_u x_u`` and
    ``beta ~ N(P^-1 b, P^-1)`` through the Cholesky factor of ``P``. A row without
    pairs gets ``P = prior_precision I``: a draw from the prior.

    Parameters
    ----------
    beta
        ``(R, K)`` block matrix, updated in place at rows ``rows``.
    covariates
        ``(R', K)`` other block.
    rows, ptr, other
        CSR structure of the block.
    kappa
        ``n_pos - n / 2`` per block pair.
    omega
        PG draws per block pair.
    eps
        ``(len(rows), K)`` standard normal draws.
    prior_precision
        ``lambda^-2``.
    relax
        0 (default): the exact draw. In ``(-1, 0)``: Adler's overrelaxed step from the
        current vector (:func:`overrelaxed_from_precision`), also invariant.

    Returns
    -------
    int
        Number of rows whose precision matrix failed to factor (left unchanged).
    """
    K = beta.shape[1]
    failed = np.zeros(rows.shape[0], dtype=np.int64)
    for i in prange(rows.shape[0]):
        prec = np.zeros((K, K))
        b = np.zeros(K)
        work = np.empty((K, CHUNK))
        accumulate_precision(prec, b, covariates, other, omega, kappa, ptr[i], ptr[i + 1], work)
        for r in range(K):
            prec[r, r] += prior_precision
        if cholesky_lower(prec):
            out = np.empty(K)
            if relax == 0.0:
                gaussian_from_precision(prec, b, eps[i], out)
            else:
                overrelaxed_from_precision(prec, b, eps[i], beta[rows[i]], relax, out)
            beta[rows[i], :] = out
        else:
            failed[i] = 1
    return int(failed.sum())


@njit(cache=True, inline="always")
def _log1p_exp(x: float) -> float:
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


@njit(parallel=True, cache=True)
def pair_log_likelihood_by_row(
    rho: np.ndarray,
    alpha: np.ndarray,
    offsets: np.ndarray,
    context: np.ndarray,
    n: np.ndarray,
    n_pos: np.ndarray,
) -> np.ndarray:
    """Eq. (5) summed over the pairs of each target word (pairs sorted by target).

    ``n_pos x - n log(1 + e^x)`` with ``x = rho_w . alpha_v``; one entry per target
    word, each summed serially so the result does not depend on the thread count.
    """
    V = offsets.shape[0] - 1
    out = np.zeros(V)
    for w in prange(V):
        s = 0.0
        for p in range(offsets[w], offsets[w + 1]):
            x = _dot(rho[w], alpha[context[p]])
            s += n_pos[p] * x - n[p] * _log1p_exp(x)
        out[w] = s
    return out


@njit(cache=True)
def log_joint(
    rho: np.ndarray,
    alpha: np.ndarray,
    free_rows: np.ndarray,
    offsets: np.ndarray,
    context: np.ndarray,
    n: np.ndarray,
    n_pos: np.ndarray,
    prior_precision: float,
) -> float:
    """Log joint density of the identified model as Stan's ``lp__`` (eqs. (5)-(6)).

    Likelihood eq. (5) plus ``-0.5 lambda^-2 (|rho|^2 + |alpha_free|^2)``: the
    normal prior without its constant, as ``~ normal(0, lambda)`` adds it in
    ``models/sgns_identified.stan``. Summed in a fixed order.
    """
    per_word = pair_log_likelihood_by_row(rho, alpha, offsets, context, n, n_pos)
    total = 0.0
    for w in range(per_word.shape[0]):
        total += per_word[w]
    sq = 0.0
    for w in range(rho.shape[0]):
        sq += _dot(rho[w], rho[w])
    for i in range(free_rows.shape[0]):
        sq += _dot(alpha[free_rows[i]], alpha[free_rows[i]])
    return total - 0.5 * prior_precision * sq


# ----------------------------------------------------------------------------- PG draws
#
# The polyagamma package's compiled module exports
# ``double pgm_random_polyagamma(bitgen_t *, double h, double z, sampler_t method)``.
# Calling it from Numba draws the PG variables of each stream group inside ``prange``
# without the GIL. The ``bitgen_t *`` of a NumPy bit generator is passed as an integer
# address (same calling convention as a pointer on the 64-bit platforms we support).

#: ``sampler_t`` values of polyagamma's C API (``polyagamma/_polyagamma.pxd``: GAMMA,
#: DEVROYE, ALTERNATE, SADDLE, HYBRID). GAMMA truncates an infinite sum and HYBRID
#: switches to a normal approximation for large h: neither is used. DEVROYE and
#: ALTERNATE are exact methods; SADDLE samples an approximation of the PG density
#: (Windle, Polson and Scott 2014, "alternate and approximate techniques"), which
#: improves as h grows. Each of the three is wrong somewhere in polyagamma 2.0.2
#: (moment tests, 2e4-2e5 draws):
#: ALTERNATE at small |z| for h >= 2 (mean off by 5-39 standard errors at h = 4, z = 0),
#: SADDLE for h <= 5 and, at every h, from |z| ~ 28 on (mean 2.75 times too large),
#: DEVROYE from |z| ~ 180 on (mean 64-3200 times too large). So each draw goes to a
#: sampler inside the region where it passed: :func:`pg_method`. ALTERNATE's bias is
#: reported upstream (zoj613/polyagamma#133, open), traced there to a wrong constant in
#: the right-hand branch of its bounding kernel; with 1e6 draws at h = 6 to 20 its mean
#: is 14-40 standard errors too large for |z| <= 1, the |z| of most SGNS pairs.
PG_DEVROYE: int = 1
PG_ALTERNATE: int = 2
PG_SADDLE: int = 3
#: Not a polyagamma value: the exact table sampler of :mod:`bayeswe.kernels.pg_table`
#: (integer h, |z| < :data:`~bayeswe.kernels.pg_table.TABLE_MAX_ABS_Z`), two to three
#: times as fast per unit of h as Devroye's method at |z| <= 1.
PG_TABLE: int = -3
#: Not a polyagamma value: pick the sampler per draw (:func:`pg_method`).
PG_AUTO: int = -1
#: Not a polyagamma value: the bounded-time gamma-series approximation of
#: :mod:`bayeswe.kernels.pg_series` (exact mean and variance).
PG_SERIES: int = -4

#: From this shape on the saddle-point sampler is cheaper than Devroye's method (whose
#: cost grows as h). It samples Windle, Polson and Scott's (2014) saddle-point
#: approximation of the PG density, not PG itself: its mean and variance agree with
#: PG's within the Monte Carlo error of 2e6 draws (about 2e-5 and 2e-3 relative) at
#: every h from 24 to 65536 and |z| up to 20 measured; below h = 24 its mean is off.
SADDLE_MIN_H: float = 24.0
#: From this shape on every draw (but the point mass) is the gamma-series approximation
#: :data:`PG_SERIES`, whose cost does not grow with h: polyagamma's saddle-point
#: sampler does not return for some z once h is in the hundreds of millions, and its
#: alternate sampler, like Devroye's method, costs time proportional to h.
SERIES_MIN_H: float = 65536.0
#: The saddle-point sampler is used below this |z| only (it fails from |z| ~ 28).
SADDLE_MAX_ABS_Z: float = 20.0
#: Devroye's method is used below this |z| only (it fails from |z| ~ 180).
DEVROYE_MAX_ABS_Z: float = 150.0
#: From this |z| on, PG(h, z)'s relative sd ``1 / sqrt(h |z|)`` is below the double
#: precision epsilon: the draw is its mean ``h / (2 |z|)``, taken without a random number
#: (polyagamma's alternate sampler does not return from |z| ~ 1e60).
POINT_MASS_ABS_Z: float = 1e32
#: Not a polyagamma value: the point mass above.
PG_POINT_MASS: int = -2


@njit(cache=True, inline="always")
def pg_method(h: float, z: float) -> int:
    """Cheapest sampler for ``PG(h, z)`` where it is correct, in time bounded for every h.

    Cost per draw (one thread, polyagamma 2.0.2): Devroye's method sums ``h`` exact
    ``PG(1, z)`` draws, about 40-60 ns per unit of ``h`` at ``|z| <= 1`` (up to 80
    at ``|z| = 3``); the saddle-point sampler costs a flat 650-900 ns and is cheaper
    from ``h ~ 22``. For ``h < 24`` and ``|z|`` below
    :data:`~bayeswe.kernels.pg_table.TABLE_MAX_ABS_Z`, the table sampler
    (:data:`PG_TABLE`, ours) replaces Devroye's method: it also sums ``h`` exact
    ``PG(1, z)`` draws, at 17-25 ns each for ``|z| <= 1``. Both need an
    integer ``h`` (the pair counts are). Beyond :data:`SADDLE_MAX_ABS_Z` (``h >= 24``)
    or :data:`DEVROYE_MAX_ABS_Z` (``h < 24``) the alternate sampler is used: the only
    one of polyagamma's three that passes the moment tests at large ``|z|`` (see the
    note above :data:`PG_DEVROYE`). From :data:`SERIES_MIN_H` on, whatever ``z``, the
    gamma-series approximation (:data:`PG_SERIES`), about 2 microseconds a draw.
    Exact: the table, Devroye's and the alternate sampler; approximations with the
    moments checked: the saddle-point sampler and the gamma series.
    """
    if abs(z) >= POINT_MASS_ABS_Z:
        return PG_POINT_MASS
    if h >= SERIES_MIN_H:
        return PG_SERIES
    if h < SADDLE_MIN_H and abs(z) < TABLE_MAX_ABS_Z:
        return PG_TABLE
    if h >= SADDLE_MIN_H:
        return PG_SADDLE if abs(z) < SADDLE_MAX_ABS_Z else PG_ALTERNATE
    return PG_DEVROYE if abs(z) < DEVROYE_MAX_ABS_Z else PG_ALTERNATE


def _load_pgm() -> object | None:
    import ctypes

    try:
        import polyagamma._polyagamma as mod

        func = ctypes.CDLL(mod.__file__).pgm_random_polyagamma
    except (ImportError, OSError, AttributeError):
        return None
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    func.restype = ctypes.c_double
    func.argtypes = (ctypes.c_uint64, ctypes.c_double, ctypes.c_double, ctypes.c_int)
    return func


_pgm_random_polyagamma = _load_pgm()

#: True when polyagamma's C sampler can be called from Numba (else the Python API is used).
HAVE_NATIVE_PG: bool = _pgm_random_polyagamma is not None

if HAVE_NATIVE_PG:

    @njit(parallel=True, cache=False)
    def polya_gamma_groups(
        bitgens: np.ndarray,
        group_ptr: np.ndarray,
        h: np.ndarray,
        z: np.ndarray,
        method: int,
        out: np.ndarray,
    ) -> None:
        """``out[j] ~ PG(h[j], z[j])``; group ``g`` (pairs ``group_ptr[g]:group_ptr[g+1]``,
        in order) draws from the bit generator at address ``bitgens[g]``, exclusively.

        ``method`` is polyagamma's ``sampler_t``, :data:`PG_TABLE` or :data:`PG_SERIES`
        for every draw, or
        :data:`PG_AUTO`: :func:`pg_method` per draw. Parallel over groups; each group's draws are
        serial, so the result does not depend on the thread count.
        """
        for g in prange(bitgens.shape[0]):
            addr = bitgens[g]
            for j in range(group_ptr[g], group_ptr[g + 1]):
                m = pg_method(h[j], z[j]) if method == PG_AUTO else method
                if m == PG_POINT_MASS:
                    out[j] = h[j] / (2.0 * abs(z[j]))
                elif m == PG_TABLE:
                    out[j] = pg_table(addr, h[j], z[j])
                elif m == PG_SERIES:
                    out[j] = pg_series(addr, h[j], z[j])
                else:
                    out[j] = _pgm_random_polyagamma(addr, h[j], z[j], m)

else:  # pragma: no cover - exercised only without the compiled symbol

    def polya_gamma_groups(*args: object) -> None:
        raise RuntimeError("polyagamma's C sampler is not available")
