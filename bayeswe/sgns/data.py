"""The aggregated SGNS dataset: vocabulary plus counts per unique (target, context) pair.

This is the one data object of every SGNS backend (the Stan programs in ``models/``
and samplers written against flat arrays). It holds the sufficient statistics of
the SGNS likelihood in its pair-sum form (Yrjänäinen et al., eq. (5)):

* ``vocabulary``: the ``V`` word types (strings), index ``i`` <-> ``vocabulary[i]``;
* per unique pair ``p`` (``P`` pairs), ``target[p]`` (the word ``w``, whose vector
  is ``rho[w]``), ``context[p]`` (the word ``v``, vector ``alpha[v]``), ``n[p]``
  (observations of the pair, positive plus negative samples) and ``n_pos[p]``
  (observations with label 1).

Array layout (stable, relied on by compiled kernels): ``target`` and ``context``
are C-contiguous ``int32`` with 0-based indices; ``n`` and ``n_pos`` are
C-contiguous ``int64``; pairs are unique and sorted by ``(target, context)``; all
arrays are read-only. :attr:`SGNSData.target_offsets` gives the CSR row pointer of
the pairs of each target word, :attr:`SGNSData.context_order` /
:attr:`SGNSData.context_offsets` the same grouping by context word (the two
conditionals of the Gibbs sampler of section 3.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayeswe.options import check_seed, magnitude_problem
from bayeswe.sgns.errors import IdentificationError, SGNSDataError

__all__ = ["SGNSData", "default_vocabulary"]

_INT32_MAX = int(np.iinfo(np.int32).max)
_INT64_MAX = int(np.iinfo(np.int64).max)


def default_vocabulary(V: int) -> tuple[str, ...]:
    """Names ``w000, w001, ...`` (zero-padded so that they sort like their indices)."""
    if isinstance(V, bool) or not isinstance(V, (int, np.integer)) or V < 1:
        raise SGNSDataError(f"V must be a positive integer, got {V!r}")
    width = len(str(int(V) - 1))
    return tuple(f"w{i:0{width}d}" for i in range(int(V)))


def _vocabulary(vocabulary: Sequence[str] | int) -> tuple[str, ...]:
    if isinstance(vocabulary, (int, np.integer)) and not isinstance(vocabulary, bool):
        return default_vocabulary(int(vocabulary))
    if isinstance(vocabulary, str):
        raise SGNSDataError("vocabulary must be a sequence of words, not one string")
    try:
        words = tuple(vocabulary)
    except TypeError:
        raise SGNSDataError(
            f"vocabulary must be a sequence of strings, got {type(vocabulary).__name__}"
        ) from None
    if not words:
        raise SGNSDataError("vocabulary is empty")
    bad = [w for w in words if not isinstance(w, str)]
    if bad:
        raise SGNSDataError(f"vocabulary entries must be strings, got {bad[0]!r}")
    if len(set(words)) != len(words):
        seen: set[str] = set()
        dup = next(w for w in words if w in seen or seen.add(w))
        raise SGNSDataError(f"vocabulary holds {dup!r} more than once")
    return words


def _int_array(name: str, value: ArrayLike) -> NDArray[np.int64]:
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged input and the like
        raise SGNSDataError(f"{name} cannot be read as an array: {exc}") from exc
    if arr.ndim != 1:
        raise SGNSDataError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise SGNSDataError(f"{name} must hold integers")
        if np.abs(arr).max() >= 2.0**63:
            bad = float(arr[np.abs(arr) >= 2.0**63][0])
            raise SGNSDataError(f"{name} holds {bad:g}, beyond the int64 range")
    elif arr.dtype.kind == "u":
        if arr.max() > _INT64_MAX:
            raise SGNSDataError(f"{name} holds {arr.max()}, beyond the int64 range")
    elif arr.dtype.kind != "i":
        raise SGNSDataError(f"{name} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def _frozen(arr: NDArray[Any], dtype: type) -> NDArray[Any]:
    out = np.ascontiguousarray(arr, dtype=dtype)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class SGNSData:
    """Aggregated SGNS data: ``n`` and ``n_pos`` for each unique (target, context) pair.

    Parameters
    ----------
    vocabulary
        The ``V`` distinct words (or an int ``V`` for :func:`default_vocabulary`).
    target, context
        0-based word indices of each pair, in ``[0, V)``.
    n
        Observations of each pair (positive plus negative samples), ``>= 1``.
    n_pos
        Observations with label 1, ``0 <= n_pos <= n``.

    Notes
    -----
    Pairs must be unique (use :meth:`from_counts` to merge repeated pairs); they are
    stored sorted by ``(target, context)``. These are the counts
    :math:`n^+_{wv}` and :math:`n^-_{wv} = n - n^+` of eq. (5) of Yrjänäinen et al.

    Raises
    ------
    SGNSDataError
        Mismatched lengths, indices out of range, ``n < 1``, ``n_pos`` outside
        ``[0, n]``, counts beyond Stan's 32-bit ints, or repeated pairs.
    """

    vocabulary: tuple[str, ...]
    target: NDArray[np.int32]
    context: NDArray[np.int32]
    n: NDArray[np.int64]
    n_pos: NDArray[np.int64]

    def __post_init__(self) -> None:
        vocab = _vocabulary(self.vocabulary)
        V = len(vocab)
        arrays = {
            name: _int_array(name, getattr(self, name))
            for name in ("target", "context", "n", "n_pos")
        }
        lengths = {name: len(a) for name, a in arrays.items()}
        if len(set(lengths.values())) != 1:
            raise SGNSDataError(f"target, context, n and n_pos differ in length: {lengths}")
        target, context, n, n_pos = (arrays[k] for k in ("target", "context", "n", "n_pos"))
        for name, idx in (("target", target), ("context", context)):
            if idx.size and (idx.min() < 0 or idx.max() >= V):
                bad = idx[(idx < 0) | (idx >= V)][0]
                raise SGNSDataError(
                    f"{name} index {bad} is outside the vocabulary [0, {V}) (indices are 0-based)"
                )
        if n.size and n.min() < 1:
            raise SGNSDataError(f"n must be >= 1 for every pair, found {n.min()}")
        if n.size and n.max() > _INT32_MAX:
            raise SGNSDataError(f"n exceeds Stan's int range (max {n.max()} > {_INT32_MAX})")
        if n_pos.size and n_pos.min() < 0:
            raise SGNSDataError(f"n_pos must be >= 0, found {n_pos.min()}")
        over = np.flatnonzero(n_pos > n)
        if over.size:
            p = int(over[0])
            raise SGNSDataError(
                f"n_pos exceeds n for {over.size} pair(s), e.g. pair {p} "
                f"(target {target[p]}, context {context[p]}): n_pos={n_pos[p]} > n={n[p]}"
            )
        key = target * V + context
        order = np.argsort(key, kind="stable")
        key = key[order]
        if key.size > 1 and np.any(key[1:] == key[:-1]):
            dup = int(key[1:][key[1:] == key[:-1]][0])
            raise SGNSDataError(
                f"pair (target {dup // V}, context {dup % V}) occurs more than once; "
                "use SGNSData.from_counts to merge repeated pairs"
            )
        object.__setattr__(self, "vocabulary", vocab)
        object.__setattr__(self, "target", _frozen(target[order], np.int32))
        object.__setattr__(self, "context", _frozen(context[order], np.int32))
        object.__setattr__(self, "n", _frozen(n[order], np.int64))
        object.__setattr__(self, "n_pos", _frozen(n_pos[order], np.int64))

    # ------------------------------------------------------------------ constructors

    @classmethod
    def from_counts(
        cls,
        vocabulary: Sequence[str] | int,
        target: ArrayLike,
        context: ArrayLike,
        n: ArrayLike,
        n_pos: ArrayLike,
    ) -> SGNSData:
        """Build from counts in which a pair may occur several times (they are summed)."""
        vocab = _vocabulary(vocabulary)
        V = len(vocab)
        t, c, nn, npos = (
            _int_array(name, value)
            for name, value in (
                ("target", target),
                ("context", context),
                ("n", n),
                ("n_pos", n_pos),
            )
        )
        if not len(t) == len(c) == len(nn) == len(npos):
            raise SGNSDataError("target, context, n and n_pos differ in length")
        for name, idx in (("target", t), ("context", c)):
            if idx.size and (idx.min() < 0 or idx.max() >= V):
                raise SGNSDataError(f"{name} holds an index outside the vocabulary [0, {V})")
        if nn.size and nn.min() < 0:
            raise SGNSDataError("n must be >= 0")
        if nn.size and nn.max() > _INT32_MAX:
            raise SGNSDataError(f"n exceeds Stan's int range (max {nn.max()} > {_INT32_MAX})")
        if npos.size and npos.min() < 0:
            raise SGNSDataError(f"n_pos must be >= 0, found {npos.min()}")
        keep = nn > 0
        if np.any(npos[~keep] != 0):
            raise SGNSDataError("n_pos must be 0 where n is 0")
        key = t[keep] * V + c[keep]
        unique, inverse = np.unique(key, return_inverse=True)
        total = np.bincount(inverse, weights=nn[keep], minlength=len(unique))
        positive = np.bincount(inverse, weights=npos[keep], minlength=len(unique))
        if np.any(npos[keep] > nn[keep]):
            raise SGNSDataError("n_pos exceeds n for some pair")
        return cls(vocab, unique // V, unique % V, np.rint(total), np.rint(positive))

    @classmethod
    def from_observations(
        cls,
        vocabulary: Sequence[str] | int,
        target: ArrayLike,
        context: ArrayLike,
        label: ArrayLike,
    ) -> SGNSData:
        """Aggregate individual samples (eq. (3)) into pair counts (eq. (5)).

        Parameters
        ----------
        vocabulary
            The words, or ``V``.
        target, context
            0-based word indices of each observation.
        label
            1 for a positive sample (a context-window pair), 0 for a negative sample.
        """
        lab = _int_array("label", label)
        if lab.size and (lab.min() < 0 or lab.max() > 1):
            raise SGNSDataError("label must be 0 or 1")
        return cls.from_counts(vocabulary, target, context, np.ones_like(lab), lab)

    # ------------------------------------------------------------------ properties

    @property
    def V(self) -> int:
        """Vocabulary size."""
        return len(self.vocabulary)

    @property
    def P(self) -> int:
        """Number of unique pairs."""
        return len(self.target)

    @property
    def n_neg(self) -> NDArray[np.int64]:
        """Negative-sample count of each pair, ``n - n_pos`` (:math:`n^-_{wv}`)."""
        return self.n - self.n_pos

    @property
    def total(self) -> int:
        """Total number of observations ``N = sum(n)``."""
        return int(self.n.sum())

    @cached_property
    def target_offsets(self) -> NDArray[np.int64]:
        """CSR pointer: target word ``w`` owns pairs ``target_offsets[w]:target_offsets[w+1]``."""
        return _frozen(_offsets(self.target, self.V), np.int64)

    @cached_property
    def context_order(self) -> NDArray[np.int64]:
        """Permutation of the pairs sorting them by ``(context, target)``."""
        key = self.context.astype(np.int64) * self.V + self.target
        return _frozen(np.argsort(key, kind="stable"), np.int64)

    @cached_property
    def context_offsets(self) -> NDArray[np.int64]:
        """CSR pointer into :attr:`context_order`: pairs with context word ``v``."""
        return _frozen(_offsets(self.context[self.context_order], self.V), np.int64)

    def word_index(self, word: str) -> int:
        """0-based index of ``word`` (raises :class:`SGNSDataError` if unknown)."""
        try:
            return self._index[word]
        except KeyError:
            raise SGNSDataError(f"word {word!r} is not in the vocabulary") from None

    @cached_property
    def _index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.vocabulary)}

    # ------------------------------------------------------------------ conversions

    def stan_data(
        self,
        K: int,
        *,
        prior_sd: float = 1.0,
        fixed_index: ArrayLike | None = None,
        fixed_alpha: ArrayLike | None = None,
        grainsize: int = 0,
    ) -> dict[str, Any]:
        """Data of ``models/sgns.stan`` or, with fixed context words, ``sgns_identified.stan``.

        Parameters
        ----------
        K
            Embedding dimension.
        prior_sd
            Prior standard deviation (Stan's ``lambda``) of every free embedding entry.
        fixed_index
            0-based indices of the ``K`` fixed context words (identified model only).
        fixed_alpha
            ``K x K`` matrix whose row ``k`` is the context vector of ``fixed_index[k]``.
        grainsize
            ``0`` (default): the likelihood is one vectorized sum. ``> 0``: it is
            summed with Stan's ``reduce_sum`` over slices of about this many pairs,
            which runs on ``threads_per_chain`` threads (worth it for large ``P``).

        Returns
        -------
        dict
            Stan's fields (1-based ``target_word``/``context_word``) plus
            ``"vocabulary"``, which the model declarations use as ``word`` coords.

        Raises
        ------
        SGNSDataError
            Bad ``K`` or ``prior_sd`` (outside ``bayeswe.options.MAGNITUDE_RANGE``), or
            no pairs.
        IdentificationError
            Bad fixed words or a singular ``fixed_alpha`` (see
            :func:`bayeswe.sgns.identify.check_anchors`).
        """
        if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
            raise SGNSDataError(f"K must be a positive integer, got {K!r}")
        if (
            isinstance(prior_sd, bool)
            or not isinstance(prior_sd, (int, float, np.integer, np.floating))
            or not np.isfinite(prior_sd)
            or prior_sd <= 0
        ):
            raise SGNSDataError(f"prior_sd must be a positive number, got {prior_sd!r}")
        if (problem := magnitude_problem("prior_sd", prior_sd)) is not None:
            raise SGNSDataError(problem)
        if self.P == 0:
            raise SGNSDataError(
                "the data hold no (target, context) pairs: every method would return the prior"
            )
        if (
            isinstance(grainsize, bool)
            or not isinstance(grainsize, (int, np.integer))
            or grainsize < 0
        ):
            raise SGNSDataError(f"grainsize must be a non-negative integer, got {grainsize!r}")
        data: dict[str, Any] = {
            "V": self.V,
            "K": int(K),
            "P": self.P,
            "target_word": (self.target + 1).astype(np.int64),
            "context_word": (self.context + 1).astype(np.int64),
            "n": self.n.copy(),
            "n_pos": self.n_pos.copy(),
            "lambda": float(prior_sd),
            "grainsize": int(grainsize),
            "vocabulary": list(self.vocabulary),
        }
        if (fixed_index is None) != (fixed_alpha is None):
            raise SGNSDataError("give both fixed_index and fixed_alpha, or neither")
        if fixed_index is not None:
            from bayeswe.sgns.identify import check_anchors

            try:
                fixed_index = np.asarray(fixed_index)
                fixed_alpha = np.asarray(fixed_alpha, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise IdentificationError(
                    f"fixed_index and fixed_alpha must be numeric arrays: {exc}"
                ) from None
            index, matrix = check_anchors(fixed_index, fixed_alpha, V=self.V, K=int(K))
            data["fixed_index"] = (index + 1).astype(np.int64)
            data["fixed_alpha"] = matrix
        return data

    def split(self, test_fraction: float, *, seed: int | None) -> tuple[SGNSData, SGNSData]:
        """Split the observations at random into a training and a test set.

        Each observation goes to the test set independently with probability
        ``test_fraction``: per pair, ``n_test ~ Binomial(n, f)`` and the positives
        among them ``~ Hypergeometric(n_pos, n - n_pos, n_test)``.

        Returns
        -------
        (train, test)
            Two datasets over the same vocabulary (pairs with no observations left
            are dropped).
        """
        if not 0.0 < float(test_fraction) < 1.0:
            raise SGNSDataError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
        rng = np.random.default_rng(check_seed("seed", seed, error=SGNSDataError))
        n_test = rng.binomial(self.n, test_fraction)
        pos_test = np.zeros_like(n_test)
        has = n_test > 0
        pos_test[has] = rng.hypergeometric(self.n_pos[has], self.n_neg[has], n_test[has])
        parts = []
        for nn, npos in ((self.n - n_test, self.n_pos - pos_test), (n_test, pos_test)):
            keep = nn > 0
            parts.append(
                SGNSData(
                    self.vocabulary,
                    self.target[keep],
                    self.context[keep],
                    nn[keep],
                    npos[keep],
                )
            )
        return parts[0], parts[1]

    # ------------------------------------------------------------------ misc

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SGNSData):
            return NotImplemented
        return self.vocabulary == other.vocabulary and all(
            np.array_equal(getattr(self, k), getattr(other, k))
            for k in ("target", "context", "n", "n_pos")
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SGNSData(V={self.V}, P={self.P}, N={self.total}, positive={int(self.n_pos.sum())})"

    def to_dict(self) -> dict[str, Any]:
        """Plain arrays and the vocabulary (0-based), e.g. for ``np.savez``."""
        return {
            "vocabulary": list(self.vocabulary),
            "target": np.array(self.target),
            "context": np.array(self.context),
            "n": np.array(self.n),
            "n_pos": np.array(self.n_pos),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SGNSData:
        """Inverse of :meth:`to_dict`."""
        try:
            fields = [d[k] for k in ("vocabulary", "target", "context", "n", "n_pos")]
        except KeyError as exc:
            raise SGNSDataError(f"missing key {exc.args[0]!r}") from None
        except TypeError:
            raise SGNSDataError(f"from_dict needs a mapping, got {type(d).__name__}") from None
        return cls(*fields)


def _offsets(sorted_index: NDArray[Any], V: int) -> NDArray[np.int64]:
    offsets = np.zeros(V + 1, dtype=np.int64)
    np.cumsum(np.bincount(sorted_index, minlength=V), out=offsets[1:])
    return offsets
