"""Laplace approximation of the identified SGNS posterior with the exact sparse Hessian.

Section 3.1 (eq. (13)) and Appendices B and D: ``theta ~ N(theta_MAP, H^-1)`` with
``H`` the Hessian of the negative log posterior of ``models/sgns_identified.stan`` at
its mode. Stan's ``laplace`` (``bayeswe.fit(..., method="laplace")``) forms a dense
``H`` by finite differences of gradients; here ``H`` is exact and assembled sparse from
the pairs (:mod:`bayeswe.kernels.laplace_sparse`: one ``K x K`` block per vector and
per co-occurring (target, free context) pair, every other block zero).

``theta = (rho, alpha_free)``, ``rho`` row-major then ``alpha_free`` row-major; the
``K`` fixed rows of ``alpha`` are constants (section 2), so the identified posterior
has a proper Gaussian approximation (the unidentified one has a singular ``H``).

Steps (:func:`laplace_parts`, :func:`sample_laplace_sparse`):

1. the MAP of ``sgns_identified`` by Stan's L-BFGS (``method="map"``), by
   :func:`bayeswe.samplers.sgns_map.sgns_map` (``optimizer="bayeswe"``, for sizes where
   Stan's autodiff tape does not fit in memory), or a given ``mode``;
2. ``H`` at the mode (:func:`hessian`);
3. a factor of ``H`` by one of three solvers (:data:`SOLVERS`):

   * ``"sparse-cholesky"`` (default, exact): SuperLU (``scipy.sparse.linalg.splu``)
     with a minimum-degree ordering of ``H + H'``, no row pivoting
     (``diag_pivot_thresh=0``) and symmetric mode, which for a symmetric positive
     definite ``H`` is a Cholesky factorisation ``P' H P = L D L'`` (``U = D L'``,
     both checked); draws ``x = mode + P L^-T D^-1/2 eps``;
   * ``"dense"`` (exact; small problems and reference): ``numpy.linalg.cholesky``;
   * ``"block-diagonal"`` (**an approximation**): only each vector's own ``K x K``
     diagonal block of ``H`` is kept, so every cross-covariance between two vectors
     (``rho_w`` with ``alpha_c``, and through them ``rho_w`` with ``rho_w'``) is
     dropped and the marginal variances are those of the conditional
     ``p(rho_w | everything else)``: smaller than the Laplace marginals. It scales
     to any ``V`` (memory ``(2V - K) K^2``); use it when the factor does not fit;
4. ``draws`` draws from ``N(mode, H^-1)``, standard normals from
   ``default_rng(SeedSequence(seed, spawn_key=(1,)))`` in draw order, so the same seed
   gives the same draws whatever the thread count.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.typing import NDArray

from bayeswe._arviz import az
from bayeswe.errors import BayesweError, SamplerError
from bayeswe.kernels import laplace_sparse as kern
from bayeswe.memory import peak_rss_gb
from bayeswe.options import build_options, check_choice, check_float, check_int

__all__ = [
    "OPTIMIZERS",
    "SOLVERS",
    "BlockDiagonalFactor",
    "DenseFactor",
    "HessianMemoryError",
    "HessianNotPositiveDefiniteError",
    "LaplaceParts",
    "LaplaceProblem",
    "LaplaceSparseArgs",
    "SparseCholeskyFactor",
    "check_options",
    "dense_hessian",
    "draw",
    "factorize",
    "hessian",
    "laplace_parts",
    "predict_memory",
    "sample_laplace_sparse",
]

#: The solvers of ``method="laplace-sparse"`` (see the module docstring).
SOLVERS: tuple[str, ...] = ("sparse-cholesky", "dense", "block-diagonal")

#: Block patterns with at most this many vectors get a symbolic estimate of the
#: factor's fill (a SuperLU factorisation of the ``nb x nb`` block pattern); larger ones
#: the dense bound. The estimate costs up to ``nb^3 / 3`` flops.
SYMBOLIC_MAX_BLOCKS: int = 4000

#: Draws transformed per batch (bounds the memory of the standard normals).
DRAW_BATCH: int = 64


class HessianMemoryError(BayesweError, MemoryError):
    """The predicted memory of ``H``, its factor and the draws exceeds ``max_memory_gb``."""


class HessianNotPositiveDefiniteError(SamplerError):
    """``H`` is not positive definite at the point given (not a strict local mode)."""


# --------------------------------------------------------------------------- problem


@dataclass(frozen=True, eq=False)
class LaplaceProblem:
    """The pairs of ``sgns_identified`` data and the block pattern of ``H``.

    Build it with :meth:`from_stan_data`. Pairs are sorted by target (``t_*``);
    ``c_*`` lists, for each free word ``free_index[j]``, its pairs as context.
    Block ``b < V`` is ``rho_b``, block ``V + j`` is ``alpha_free[j]``.
    """

    V: int
    K: int
    prior_sd: float
    fixed_index: NDArray[np.int64]
    fixed_alpha: NDArray[np.float64]
    free_index: NDArray[np.int64]
    n: NDArray[np.float64]
    n_pos: NDArray[np.float64]
    t_ptr: NDArray[np.int64]
    t_context: NDArray[np.int64]
    t_free: NDArray[np.uint8]
    t_slot: NDArray[np.int64]
    c_ptr: NDArray[np.int64]
    c_pair: NDArray[np.int64]
    c_target: NDArray[np.int64]
    c_slot: NDArray[np.int64]
    bptr: NDArray[np.int64]
    brow: NDArray[np.int64]
    diag_slot: NDArray[np.int64]

    @classmethod
    def from_stan_data(cls, data: Mapping[str, Any]) -> LaplaceProblem:
        """Validate ``sgns_identified`` data (1-based, as for Stan) and build the pattern.

        Raises
        ------
        bayeswe.errors.StanDataError
            A missing or misshapen field.
        bayeswe.sgns.SGNSDataError, bayeswe.sgns.IdentificationError
            Bad pairs, ``lambda`` or fixed words.
        """
        from bayeswe.samplers.pg_gibbs import SGNSGibbsProblem

        # The Gibbs problem validates exactly what this method needs (the model's
        # declaration, the pairs, the anchors) and sorts the pairs both ways.
        g = SGNSGibbsProblem.from_stan_data(data)
        V, K = g.V, g.K
        nf = len(g.free_index)
        nb = V + nf
        free_pos = np.full(V, -1, dtype=np.int64)
        free_pos[g.free_index] = np.arange(nf)
        t_ptr = np.ascontiguousarray(g.target_offsets, dtype=np.int64)
        t_context = np.ascontiguousarray(g.context, dtype=np.int64)
        t_target = np.repeat(np.arange(V, dtype=np.int64), np.diff(t_ptr))
        alpha_block = g.blocks[1]
        c_ptr = np.ascontiguousarray(alpha_block.ptr, dtype=np.int64)
        c_pair = np.ascontiguousarray(alpha_block.pair_index, dtype=np.int64)
        c_target = np.ascontiguousarray(alpha_block.other, dtype=np.int64)
        c_block = V + np.repeat(np.arange(nf, dtype=np.int64), np.diff(c_ptr))

        # Symmetric block pattern: the diagonal, and (rho_w, alpha_c) both ways for
        # each pair with a free context; keys col * nb + row sort it as CSC.
        is_free = free_pos[t_context] >= 0
        tw, tc = t_target[is_free], V + free_pos[t_context[is_free]]
        diag = np.arange(nb, dtype=np.int64)
        keys = np.unique(np.concatenate([diag * nb + diag, tw * nb + tc, tc * nb + tw]))
        bcol, brow = np.divmod(keys, nb)
        bptr = np.zeros(nb + 1, dtype=np.int64)
        np.cumsum(np.bincount(bcol, minlength=nb), out=bptr[1:])
        diag_slot = np.searchsorted(keys, diag * nb + diag) - bptr[:-1]
        t_slot = np.zeros(len(t_context), dtype=np.int64)
        t_slot[is_free] = np.searchsorted(keys, tw * nb + tc) - bptr[tw]
        c_slot = np.searchsorted(keys, c_block * nb + c_target) - bptr[c_block]
        return cls(
            V=V,
            K=K,
            prior_sd=g.prior_sd,
            fixed_index=g.fixed_index,
            fixed_alpha=g.fixed_alpha,
            free_index=np.ascontiguousarray(g.free_index, dtype=np.int64),
            n=np.ascontiguousarray(g.n, dtype=np.float64),
            n_pos=np.ascontiguousarray(g.n_pos, dtype=np.float64),
            t_ptr=t_ptr,
            t_context=t_context,
            t_free=is_free.astype(np.uint8),
            t_slot=t_slot,
            c_ptr=c_ptr,
            c_pair=c_pair,
            c_target=c_target,
            c_slot=np.ascontiguousarray(c_slot, dtype=np.int64),
            bptr=bptr,
            brow=np.ascontiguousarray(brow, dtype=np.int64),
            diag_slot=np.ascontiguousarray(diag_slot, dtype=np.int64),
        )

    @property
    def n_blocks(self) -> int:
        """``V + V_free``: the number of ``K``-vectors in ``theta``."""
        return self.V + len(self.free_index)

    @property
    def n_params(self) -> int:
        """Length of ``theta``: ``(2V - K) K``."""
        return self.n_blocks * self.K

    @property
    def nnz_hessian(self) -> int:
        """Stored entries of ``H`` (both triangles): ``K^2`` per non-zero block."""
        return int(self.K * self.K * self.bptr[-1])

    @property
    def prior_precision(self) -> float:
        return 1.0 / self.prior_sd**2

    def full_alpha(self, alpha_free: NDArray[np.float64]) -> NDArray[np.float64]:
        """``(..., V, K)`` context vectors from the free rows and the fixed ones."""
        alpha_free = np.asarray(alpha_free, dtype=np.float64)
        out = np.empty((*alpha_free.shape[:-2], self.V, self.K))
        out[..., self.free_index, :] = alpha_free
        out[..., self.fixed_index, :] = self.fixed_alpha
        return out

    def check_point(self, rho: Any, alpha_free: Any) -> tuple[NDArray, NDArray]:
        """``rho`` (``V x K``) and ``alpha_free`` (``(V - K) x K``) as finite float arrays."""
        rho = np.ascontiguousarray(rho, dtype=np.float64)
        alpha_free = np.ascontiguousarray(alpha_free, dtype=np.float64)
        for name, value, shape in (
            ("rho", rho, (self.V, self.K)),
            ("alpha_free", alpha_free, (len(self.free_index), self.K)),
        ):
            if value.shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {value.shape}")
            if not np.isfinite(value).all():
                raise ValueError(f"{name} holds NaN or infinite values")
        return rho, alpha_free

    def log_density(self, rho: NDArray, alpha_free: NDArray) -> NDArray[np.float64]:
        """Stan's ``lp__`` of draws ``(draws, V, K)`` and ``(draws, V - K, K)``."""
        alpha = self.full_alpha(alpha_free)
        return kern.log_joint_draws(
            rho, alpha, self.free_index, self.t_ptr, self.t_context, self.n, self.n_pos,
            self.prior_precision,
        )  # fmt: skip


def _problem(data: Mapping[str, Any] | LaplaceProblem) -> LaplaceProblem:
    return data if isinstance(data, LaplaceProblem) else LaplaceProblem.from_stan_data(data)


# --------------------------------------------------------------------------- Hessian


def _hessian(problem: LaplaceProblem, rho: NDArray, alpha_free: NDArray) -> sp.csc_matrix:
    K, n = problem.K, problem.n_params
    nnz = problem.nnz_hessian
    idx = np.int32 if max(nnz, n + 1) < 2**31 else np.int64
    indptr = np.empty(n + 1, dtype=idx)
    indices = np.empty(nnz, dtype=idx)
    kern.csc_structure(problem.bptr, problem.brow, K, indptr, indices)
    values = np.empty(nnz)
    kern.hessian_values(
        rho, problem.full_alpha(alpha_free), problem.t_ptr, problem.t_context,
        problem.t_slot, problem.t_free, problem.c_ptr, problem.c_pair, problem.c_target,
        problem.c_slot, problem.free_index, problem.n, problem.n_pos, problem.bptr,
        problem.diag_slot, problem.prior_precision, values,
    )  # fmt: skip
    H = sp.csc_matrix((values, indices, indptr), shape=(n, n))
    H.has_sorted_indices = True
    return H


def hessian(data: Mapping[str, Any] | LaplaceProblem, rho: Any, alpha_free: Any) -> sp.csc_matrix:
    """Exact Hessian of the negative log posterior of ``sgns_identified`` (App. B).

    Parameters
    ----------
    data
        Data of ``sgns_identified`` (or a :class:`LaplaceProblem` built from it).
    rho, alpha_free
        The point: ``V x K`` and ``(V - K) x K`` (Stan's parameters).

    Returns
    -------
    scipy.sparse.csc_matrix
        ``(2V - K) K`` square, symmetric, variables ``rho`` row-major then
        ``alpha_free`` row-major; every non-zero ``K x K`` block stored dense (sorted
        indices, no duplicates). Its inverse at the mode is the covariance of eq. (13).
    """
    problem = _problem(data)
    rho, alpha_free = problem.check_point(rho, alpha_free)
    return _hessian(problem, rho, alpha_free)


def dense_hessian(
    data: Mapping[str, Any] | LaplaceProblem, rho: Any, alpha_free: Any
) -> NDArray[np.float64]:
    """:func:`hessian` as a dense array (small problems, tests)."""
    return hessian(data, rho, alpha_free).toarray()


def _diagonal_blocks(problem: LaplaceProblem, rho: NDArray, alpha_free: NDArray) -> NDArray:
    return kern.diagonal_blocks(
        rho, problem.full_alpha(alpha_free), problem.t_ptr, problem.t_context,
        problem.c_ptr, problem.c_pair, problem.c_target, problem.free_index, problem.n,
        problem.prior_precision,
    )  # fmt: skip


# --------------------------------------------------------------------------- factors


@dataclass(frozen=True, eq=False)
class SparseCholeskyFactor:
    """``P' H P = L D L'`` from SuperLU without row pivoting (``perm_r == perm_c``).

    ``lu`` is SuperLU's object (``Pr H Pc = L U`` with ``Pr = Pc'``), ``L`` unit lower
    triangular, ``d`` the pivots (``U = D L'``), ``perm`` the column permutation.
    """

    lu: Any
    L: sp.csc_matrix
    U: sp.csc_matrix
    d: NDArray[np.float64]
    perm: NDArray[np.int64]

    @property
    def nnz(self) -> int:
        """Entries of ``L`` (its lower triangle with the diagonal)."""
        return int(self.L.nnz)

    def transform(self, eps: NDArray[np.float64], *, how: str = "superlu") -> NDArray:
        """``P L^-T D^-1/2 eps`` for standard normals ``eps`` (``n x m``): ``N(0, H^-1)``.

        ``how="superlu"``: SuperLU's own solves of ``H x = P L D^1/2 eps`` (its
        ``L`` solve undoes the product exactly in exact arithmetic);
        ``how="triangular"``: ``scipy.sparse.linalg.spsolve_triangular`` with
        ``U = D L'`` on ``D^1/2 eps``.
        """
        eps = np.asarray(eps, dtype=np.float64)
        root = np.sqrt(self.d)
        scaled = eps * (root if eps.ndim == 1 else root[:, None])
        if how == "superlu":
            # SciPy's Pc has (Pc y)[i] = y[perm_c[i]], so P x is a gather, not a scatter.
            return self.lu.solve((self.L @ scaled)[self.perm])
        if how == "triangular":
            y = spla.spsolve_triangular(self.U.tocsr(), scaled, lower=False)
            return y[self.perm]
        raise ValueError(f"how must be 'superlu' or 'triangular', got {how!r}")


@dataclass(frozen=True, eq=False)
class DenseFactor:
    """``H = C C'`` (``numpy.linalg.cholesky``), ``C`` lower triangular."""

    C: NDArray[np.float64]

    @property
    def nnz(self) -> int:
        n = self.C.shape[0]
        return n * (n + 1) // 2

    def transform(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        """``C^-T eps``: ``N(0, H^-1)`` for standard normals ``eps`` (``n x m``)."""
        return scipy.linalg.solve_triangular(self.C, eps, lower=True, trans="T")


@dataclass(frozen=True, eq=False)
class BlockDiagonalFactor:
    """``W_b = C_b^-T`` of each diagonal block ``H_bb = C_b C_b'`` (an approximation)."""

    W: NDArray[np.float64]

    @property
    def nnz(self) -> int:
        nb, K, _ = self.W.shape
        return nb * K * (K + 1) // 2

    def transform(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        """``W_b eps_b`` per block: ``N(0, blockdiag(H_bb^-1))``."""
        nb, K, _ = self.W.shape
        e = np.asarray(eps, dtype=np.float64)
        m = 1 if e.ndim == 1 else e.shape[1]
        out = np.matmul(self.W, e.reshape(nb, K, m))
        return out.reshape(e.shape)


Factor = SparseCholeskyFactor | DenseFactor | BlockDiagonalFactor


def _not_pd(where: str, value: float) -> HessianNotPositiveDefiniteError:
    return HessianNotPositiveDefiniteError(
        f"laplace-sparse: H is not positive definite at the point given ({where}: "
        f"{value:.6g}); the point is not a strict local mode of sgns_identified (did the "
        "MAP converge?)"
    )


def _sparse_cholesky(H: sp.csc_matrix) -> SparseCholeskyFactor:
    lu = spla.splu(
        H,
        permc_spec="MMD_AT_PLUS_A",
        diag_pivot_thresh=0.0,
        options={"SymmetricMode": True},
    )
    if not np.array_equal(lu.perm_r, lu.perm_c):
        raise SamplerError(
            "laplace-sparse: SuperLU pivoted rows (perm_r != perm_c), so its factor is not "
            "a Cholesky factor; H is not numerically positive definite or is singular "
            "(use solver='dense' to see numpy's verdict)"
        )
    L = lu.L.tocsc()
    U = lu.U.tocsc()
    d = U.diagonal()
    smallest = int(np.argmin(d))
    if not d[smallest] > 0:
        raise _not_pd(f"smallest pivot {smallest} of the factorisation", float(d[smallest]))
    # Symmetric mode without pivoting makes U = D L' up to rounding; draws rely on it.
    gap = abs(U - sp.diags(d) @ L.T.tocsc())
    scale = np.abs(U).max()
    if gap.nnz and gap.max() > 1e-8 * scale:
        raise SamplerError(
            f"laplace-sparse: SuperLU's U differs from D L' by {gap.max():.3g} (scale "
            f"{scale:.3g}); H is not symmetric positive definite to working precision"
        )
    return SparseCholeskyFactor(lu=lu, L=L, U=U, d=d, perm=np.asarray(lu.perm_c, np.int64))


def factorize(
    H: sp.spmatrix | NDArray[np.float64] | None,
    solver: str,
    *,
    blocks: NDArray[np.float64] | None = None,
) -> Factor:
    """Factor ``H`` by ``solver`` (:data:`SOLVERS`); ``"block-diagonal"`` takes ``blocks``.

    Raises
    ------
    HessianNotPositiveDefiniteError
        A non-positive pivot (sparse), a failed Cholesky (dense, block).
    """
    check_choice("solver", solver, SOLVERS)
    if solver == "sparse-cholesky":
        return _sparse_cholesky(sp.csc_matrix(H))
    if solver == "dense":
        dense = H.toarray() if sp.issparse(H) else np.asarray(H, dtype=np.float64)
        try:
            return DenseFactor(np.linalg.cholesky(dense))
        except np.linalg.LinAlgError:
            eig = float(np.linalg.eigvalsh(dense)[0]) if len(dense) <= 2000 else math.nan
            raise _not_pd("smallest eigenvalue", eig) from None
    if blocks is None:
        raise ValueError("solver='block-diagonal' needs the diagonal blocks")
    try:
        C = np.linalg.cholesky(blocks)
    except np.linalg.LinAlgError:
        worst = min(float(np.linalg.eigvalsh(b)[0]) for b in blocks)
        raise _not_pd("smallest eigenvalue of a diagonal block", worst) from None
    eye = np.broadcast_to(np.eye(blocks.shape[1]), blocks.shape)
    W = np.linalg.solve(C, eye).transpose(0, 2, 1)
    return BlockDiagonalFactor(np.ascontiguousarray(W))


# --------------------------------------------------------------------------- memory


def _factor_nnz_estimate(problem: LaplaceProblem) -> tuple[int, str]:
    """Entries of ``L`` predicted before ``H`` exists: (count, how).

    Minimum degree merges indistinguishable variables, and the ``K`` variables of a
    vector are indistinguishable (its blocks are dense), so the scalar fill is about
    ``K^2`` times the fill of the block pattern, found by factoring a diagonally
    dominant matrix with that pattern with the same SuperLU settings. Beyond
    :data:`SYMBOLIC_MAX_BLOCKS` vectors: the dense bound ``n (n + 1) / 2``.
    """
    nb, K, n = problem.n_blocks, problem.K, problem.n_params
    if nb > SYMBOLIC_MAX_BLOCKS:
        return n * (n + 1) // 2, "dense bound"
    deg = np.diff(problem.bptr).astype(np.float64)
    col = np.repeat(np.arange(nb), np.diff(problem.bptr))
    vals = np.where(problem.brow == col, deg[col] + 1.0, -1.0)
    B = sp.csc_matrix((vals, problem.brow, problem.bptr), shape=(nb, nb))
    lu = spla.splu(
        B, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True}
    )
    block_l = lu.L.nnz - nb  # off-diagonal blocks of L
    return int(K * K * block_l + nb * K * (K + 1) // 2), "block-level symbolic factorisation"


def predict_memory(
    data: Mapping[str, Any] | LaplaceProblem, solver: str, *, draws: int = 1000
) -> dict[str, Any]:
    """Predicted peak memory (bytes) of :func:`sample_laplace_sparse`, before any work.

    Returns a dict with ``hessian_bytes`` (the sparse ``H``: exact), ``factor_bytes``
    (SuperLU's copy of ``H``, its ``L`` and ``U`` and their CSC copies; the dense
    ``H`` and ``C``; or the blocks), ``draws_bytes`` (the output), ``total_bytes``,
    ``nnz_hessian`` (exact), ``nnz_factor`` (predicted entries of ``L``) and
    ``factor_estimate`` (how it was predicted). ``"block-diagonal"`` never builds ``H``.
    """
    check_choice("solver", solver, SOLVERS)
    problem = _problem(data)
    n, K, nb = problem.n_params, problem.K, problem.n_blocks
    nnz = problem.nnz_hessian
    idx = 4 if max(nnz, n + 1) < 2**31 else 8
    h_bytes = nnz * (8 + idx) + (n + 1) * idx
    out: dict[str, Any] = {"solver": solver, "nnz_hessian": nnz, "n_params": n}
    if solver == "sparse-cholesky":
        nnz_l, how = _factor_nnz_estimate(problem)
        # SuperLU's copy of H, its L and U, and the CSC copies of L, U and D L'.
        factor = h_bytes + 5 * nnz_l * (8 + idx)
        out.update(nnz_factor=nnz_l, factor_estimate=how)
    elif solver == "dense":
        factor = 2 * n * n * 8
        out.update(nnz_factor=n * (n + 1) // 2, factor_estimate="dense")
    else:
        h_bytes = nb * K * K * 8
        factor = 2 * nb * K * K * 8
        out.update(nnz_factor=nb * K * (K + 1) // 2, factor_estimate="exact")
    draws_bytes = draws * (n + problem.V * K) * 8 + 3 * min(draws, DRAW_BATCH) * n * 8
    out.update(
        hessian_bytes=h_bytes,
        factor_bytes=factor,
        draws_bytes=draws_bytes,
        total_bytes=h_bytes + factor + draws_bytes,
    )
    return out


def _physical_memory_gb() -> float:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1e9
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return math.inf


def _check_memory(problem: LaplaceProblem, args: LaplaceSparseArgs) -> dict[str, Any]:
    limit = _physical_memory_gb() if args.max_memory_gb is None else float(args.max_memory_gb)
    need = predict_memory(problem, args.solver, draws=args.draws)
    if need["total_bytes"] > limit * 1e9:
        cheap = predict_memory(problem, "block-diagonal", draws=args.draws)["total_bytes"]
        raise HessianMemoryError(
            f"laplace-sparse: solver {args.solver!r} needs about "
            f"{need['total_bytes'] / 1e9:.3g} GB (Hessian {need['hessian_bytes'] / 1e9:.3g} "
            f"GB with {need['nnz_hessian']:,} non-zeros for {need['n_params']:,} parameters, "
            f"factor {need['factor_bytes'] / 1e9:.3g} GB ({need['nnz_factor']:,} entries, "
            f"{need['factor_estimate']}), draws {need['draws_bytes'] / 1e9:.3g} GB), more "
            f"than max_memory_gb={limit:.3g}; solver='block-diagonal' needs about "
            f"{cheap / 1e9:.3g} GB but ignores every covariance between vectors"
        )
    return need


# --------------------------------------------------------------------------- options

#: Optimizers of the mode (see :attr:`LaplaceSparseArgs.optimizer`).
OPTIMIZERS: tuple[str, ...] = ("stan", "bayeswe")


@dataclass(frozen=True, kw_only=True)
class LaplaceSparseArgs:
    """Options of ``method="laplace-sparse"``.

    Attributes
    ----------
    draws
        Draws from ``N(mode, H^-1)`` (default 1000).
    solver
        ``"sparse-cholesky"`` (default; exact), ``"dense"`` (exact; small problems)
        or ``"block-diagonal"`` (approximate: drops every covariance between two
        vectors; see the module docstring).
    max_memory_gb
        Refuse (:class:`HessianMemoryError`, before the MAP) when the predicted
        memory of ``H``, its factor and the draws exceeds this many GB (1e9 bytes);
        default the machine's physical memory.
    inits
        Start of the MAP: a mapping with ``"rho"`` (``V x K``) and ``"alpha_free"``
        (``(V - K) x K``), as for Stan (``bayeswe.sgns.fit_sgns`` passes the MAP of
        ``sgns`` mapped onto the identified slice).
    mode
        Skip the MAP and expand at this point (same form as ``inits``); it must be a
        mode for the result to be the Laplace approximation.
    optimizer
        ``"stan"`` (default): Stan's L-BFGS (``bayeswe.fit(method="map")``);
        ``"bayeswe"``: :func:`bayeswe.samplers.sgns_map.sgns_map` (SciPy's L-BFGS-B on a
        Numba gradient, memory ``O(P + V K)``), for sizes where Stan's autodiff tape does
        not fit in memory (V = 5000, K = 100 with 5·10^6 pairs needs more than 20 GB).
    map_options
        Further options of the optimizer: of ``bayeswe.fit(method="map")`` (e.g.
        ``iter``, ``tol_rel_grad``; ``sig_figs`` defaults to 18 so the mode is read
        exactly) or of :func:`~bayeswe.samplers.sgns_map.sgns_map` (``max_iter``,
        ``ftol``, ``gtol``).
    lp
        Compute Stan's ``lp__`` of every draw (``sample_stats["lp"]``; default True;
        costs one pass over the pairs per draw).
    """

    draws: int = 1000
    solver: str = "sparse-cholesky"
    max_memory_gb: float | None = None
    inits: Mapping[str, Any] | None = None
    mode: Mapping[str, Any] | None = None
    optimizer: str = "stan"
    map_options: Mapping[str, Any] = field(default_factory=dict)
    lp: bool = True

    method: ClassVar[str] = "laplace-sparse"

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LaplaceSparseArgs:
        """Build and validate (``ValueError`` for an unknown option or a bad value)."""
        return build_options(cls, "laplace-sparse", options)

    def validate(self) -> None:
        check_int("draws", self.draws, minimum=1)
        if self.solver not in SOLVERS:
            raise ValueError(
                f"solver must be one of {', '.join(map(repr, SOLVERS))}, got {self.solver!r}"
            )
        check_float("max_memory_gb", self.max_memory_gb, low=0)
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        for name in ("inits", "mode"):
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, Mapping) or not {"rho", "alpha_free"} <= set(value):
                raise ValueError(f"{name} must be a mapping with 'rho' and 'alpha_free'")
        if self.inits is not None and self.mode is not None:
            raise ValueError("give inits (start of the MAP) or mode (no MAP), not both")
        if not isinstance(self.map_options, Mapping):
            raise ValueError("map_options must be a mapping of bayeswe.fit options")
        for key in ("method", "seed", "chains", "inits"):
            if key in self.map_options:
                raise ValueError(f"map_options cannot set {key!r}")
        if not isinstance(self.lp, (bool, np.bool_)):
            raise ValueError(f"lp must be True or False, got {self.lp!r}")


# --------------------------------------------------------------------------- driver


@dataclass(frozen=True, eq=False)
class LaplaceParts:
    """The pieces of a Laplace approximation, each timed (seconds, wall clock)."""

    problem: LaplaceProblem
    #: the mode: ``V x K`` and ``(V - K) x K``
    rho: NDArray[np.float64]
    alpha_free: NDArray[np.float64]
    #: ``H`` (None for ``"block-diagonal"``, which builds only the diagonal blocks)
    hessian: sp.csc_matrix | None
    factor: Factor
    solver: str
    map_seconds: float
    hessian_seconds: float
    factor_seconds: float
    predicted: dict[str, Any]
    #: Stan's version when Stan's L-BFGS found the mode (else ``None``)
    stan_version: str | None = None

    @property
    def mean(self) -> NDArray[np.float64]:
        """``theta`` at the mode, in the variable order of ``H``."""
        return np.concatenate([self.rho.ravel(), self.alpha_free.ravel()])


def check_options(chains: int | None, options: Mapping[str, Any]) -> None:
    """Raise the errors ``sample_laplace_sparse`` would for ``chains`` and ``options``."""
    _check_chains(chains)
    LaplaceSparseArgs.from_options(options)


def _check_chains(chains: int | None) -> None:
    if chains is not None and (
        isinstance(chains, bool) or not isinstance(chains, (int, np.integer)) or chains != 1
    ):
        raise ValueError(f"laplace-sparse: chains must be None or 1, got {chains!r}")


def laplace_parts(data: Mapping[str, Any], *, seed: int, **options: Any) -> LaplaceParts:
    """Steps 1-3 (module docstring): the mode, ``H`` and its factor, each timed.

    Parameters and errors as for :func:`sample_laplace_sparse` (``draws`` and ``lp``
    are accepted and only enter the memory check).
    """
    from bayeswe.stan.fitting import check_seed

    args = LaplaceSparseArgs.from_options(options)
    seed = check_seed(seed)
    problem = _problem(data)
    start = args.mode if args.mode is not None else args.inits
    if start is not None:
        problem.check_point(start["rho"], start["alpha_free"])
    predicted = _check_memory(problem, args)

    t0 = time.perf_counter()
    stan_version = None
    if args.mode is not None:
        rho, alpha_free = problem.check_point(args.mode["rho"], args.mode["alpha_free"])
        map_seconds = 0.0
    elif args.optimizer == "bayeswe":
        from bayeswe.samplers.sgns_map import sgns_map

        found = sgns_map(data, seed=seed, inits=args.inits, **dict(args.map_options))
        rho, alpha_free = problem.check_point(found.rho, found.alpha_free)
        map_seconds = time.perf_counter() - t0
    else:
        from bayeswe.sgns.models import SGNS_IDENTIFIED
        from bayeswe.stan.fitting import fit_stan

        opts = {"sig_figs": 18, **dict(args.map_options)}
        if args.inits is not None:
            opts["inits"] = {k: np.asarray(args.inits[k]) for k in ("rho", "alpha_free")}
        mode = fit_stan(SGNS_IDENTIFIED, data, method="map", seed=seed, **opts)
        stan_version = mode.attrs.get("stan_version")
        rho, alpha_free = problem.check_point(
            mode.posterior["rho"].values[0, 0], mode.posterior["alpha_free"].values[0, 0]
        )
        map_seconds = time.perf_counter() - t0

    t0 = time.perf_counter()
    if args.solver == "block-diagonal":
        H = None
        blocks = _diagonal_blocks(problem, rho, alpha_free)
    else:
        H = _hessian(problem, rho, alpha_free)
        blocks = None
    hessian_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    factor = factorize(H, args.solver, blocks=blocks)
    factor_seconds = time.perf_counter() - t0
    return LaplaceParts(
        problem=problem, rho=rho, alpha_free=alpha_free, hessian=H, factor=factor,
        solver=args.solver, map_seconds=map_seconds, hessian_seconds=hessian_seconds,
        factor_seconds=factor_seconds, predicted=predicted, stan_version=stan_version,
    )  # fmt: skip


def draw(parts: LaplaceParts, draws: int, *, seed: int) -> tuple[NDArray, NDArray]:
    """``draws`` draws of ``theta ~ N(mode, H^-1)`` (rows) and ``-|eps|^2 / 2`` of each.

    Standard normals come from ``default_rng(SeedSequence(seed, spawn_key=(1,)))``, one
    draw after another, in batches of :data:`DRAW_BATCH`; the second array is the log
    density of the approximation up to its constant (Stan's ``log_q__`` convention).
    """
    from bayeswe.samplers.variational import draws_rng

    check_int("draws", draws, minimum=1)
    rng = draws_rng(seed)
    mean = parts.mean
    out = np.empty((draws, mean.size))
    lq = np.empty(draws)
    for a in range(0, draws, DRAW_BATCH):
        b = min(draws, a + DRAW_BATCH)
        eps = rng.standard_normal((b - a, mean.size))
        lq[a:b] = -0.5 * np.einsum("ij,ij->i", eps, eps)
        out[a:b] = parts.factor.transform(eps.T).T
        out[a:b] += mean
    return out, lq


def sample_laplace_sparse(
    data: Mapping[str, Any],
    *,
    seed: int,
    chains: int | None = None,
    **options: Any,
) -> az.InferenceData:
    """Laplace approximation of ``sgns_identified`` with the exact sparse Hessian.

    Parameters
    ----------
    data
        Data of ``sgns_identified`` (as for ``bayeswe.fit("sgns_identified", ...)``).
    seed
        Seed in ``[0, 2**32 - 1]``: of Stan's L-BFGS and (``spawn_key=(1,)``) of the draws.
    chains
        ``None`` or 1 (one chain of independent draws).
    **options
        See :class:`LaplaceSparseArgs`.

    Returns
    -------
    arviz.InferenceData
        ``posterior``: ``rho``, ``alpha`` (fixed rows constant) ``(chain, draw, word,
        dim)`` and ``alpha_free`` ``(chain, draw, free_word, dim)``; ``sample_stats``:
        ``lp`` (Stan's ``lp__`` of each draw, with ``lp=True``) and ``lp_approx``
        (``-|eps|^2 / 2``); ``attrs``: ``method``, ``solver``, ``nnz_hessian``,
        ``nnz_factor``, ``map_seconds``, ``hessian_seconds``, ``factor_seconds``,
        ``draw_seconds``, ``peak_rss_gb`` (the process's peak so far), ``seed``,
        ``draws``, ``approximation``, ``jacobian``, ``stan_version`` (of the MAP, when
        Stan's). The groups, names, dims and order are those of ``method="laplace"``.

    Raises
    ------
    ValueError
        Bad options, seed or chains, a start of the wrong shape.
    bayeswe.errors.StanDataError, bayeswe.sgns.SGNSDataError, bayeswe.sgns.IdentificationError
        Bad data (before anything runs).
    HessianMemoryError
        The predicted memory exceeds ``max_memory_gb`` (before the MAP).
    HessianNotPositiveDefiniteError
        ``H`` is not positive definite at the mode.
    """
    from bayeswe.inference_data import to_inference_data
    from bayeswe.sgns.models import SGNS_IDENTIFIED
    from bayeswe.stan.fitting import check_seed

    _check_chains(chains)
    args = LaplaceSparseArgs.from_options(options)
    seed = check_seed(seed)
    SGNS_IDENTIFIED.validate(data)
    parts = laplace_parts(data, seed=seed, **options)
    problem = parts.problem
    V, K = problem.V, problem.K
    t0 = time.perf_counter()
    theta, lq = draw(parts, args.draws, seed=seed)
    rho = theta[:, : V * K].reshape(args.draws, V, K)
    alpha_free = theta[:, V * K :].reshape(args.draws, len(problem.free_index), K)
    alpha = problem.full_alpha(alpha_free)
    # Stan's laplace order: lp then lp_approx
    stats: dict[str, Any] = {}
    if args.lp:
        stats["lp"] = problem.log_density(rho, alpha_free)[None]
    stats["lp_approx"] = lq[None]
    draw_seconds = time.perf_counter() - t0
    attrs = {
        "wall_time": parts.map_seconds
        + parts.hessian_seconds
        + parts.factor_seconds
        + draw_seconds,
        "optimizer": args.optimizer,
        "model": SGNS_IDENTIFIED.name,
        "method": "laplace-sparse",
        "solver": args.solver,
        "approximation": (
            "draws from N(mode, H^-1), H the exact Hessian at Stan's MAP, stored as one chain"
            if args.solver != "block-diagonal"
            else "draws from N(mode, blockdiag(H_bb)^-1): each vector's own K x K block of the "
            "exact Hessian only, no covariance between vectors; one chain"
        ),
        "nnz_hessian": problem.nnz_hessian if parts.hessian is not None else 0,
        "nnz_factor": parts.factor.nnz,
        "map_seconds": parts.map_seconds,
        "hessian_seconds": parts.hessian_seconds,
        "factor_seconds": parts.factor_seconds,
        "draw_seconds": draw_seconds,
        "peak_rss_gb": peak_rss_gb(),
        "seed": seed,
        "draws": args.draws,
        "mode_given": args.mode is not None,
        # as Stan's laplace: the Gaussian is in the unconstrained space, which for
        # sgns_identified (no constrained parameters) is the model's own
        "jacobian": True,
        "stan_version": parts.stan_version,
    }
    # Stan's declaration order, as method="laplace" returns them
    posterior = {"rho": rho[None], "alpha_free": alpha_free[None], "alpha": alpha[None]}
    return to_inference_data(
        SGNS_IDENTIFIED, posterior, data=data, sample_stats=stats, attrs=attrs, library=None
    )
