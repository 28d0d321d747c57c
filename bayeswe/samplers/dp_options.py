"""Options of the DP-mixture collapsed Gibbs samplers (Gaussian and multinomial
components): :class:`DPMixtureArgs` and its defaults, shared by
:mod:`bayeswe.samplers.dp_mixture` and :mod:`bayeswe.samplers.dp_multinomial`."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bayeswe.options import build_options, check_choice, check_int
from bayeswe.progress import resolve as progress_resolve

__all__ = ["DEFAULT_SCHEDULE", "INITS", "SPLIT_MERGE", "DPMixtureArgs"]

#: Initial partitions: every point in one cluster (default), or each in its own.
INITS: tuple[str, ...] = ("one", "singletons")

#: Split-merge proposals per sweep (each costs O(n P^2) for the n points of the two
#: clusters it touches, at most one Gibbs pass's worth).
SPLIT_MERGE = 3

#: Defaults of ``iter_warmup``, ``iter_sampling`` and ``thin``.
DEFAULT_SCHEDULE: tuple[int, int, int] = (500, 1000, 1)


@dataclass(frozen=True, kw_only=True)
class DPMixtureArgs:
    """Options of ``method="cgs"`` for ``dp_mixture``; ``None`` means the default here.

    Attributes
    ----------
    iter_warmup
        Sweeps discarded first (default 500).
    iter_sampling
        Sweeps after warm-up (default 1000); every ``thin``-th is kept, starting with the
        first: ``ceil(iter_sampling / thin)`` draws per chain, as in cmdstanpy.
    thin
        Keep one sweep in ``thin`` (default 1).
    split_merge
        Split-merge proposals per sweep (default 3; 0: Gibbs moves only).
    init
        ``"one"`` (all points in one cluster, default), ``"singletons"``, or a mapping
        ``{"z": labels, "alpha": value}`` (labels: ``N`` non-negative integers; either key
        may be left out), or a list of such mappings, one per chain. ``alpha`` starts at
        the prior mean unless given.
    heldout
        ``(M, P)`` points not in the data (for multinomial data: an ``(M, V)`` array
        of counts or a ``BagOfWords``): each draw records the log predictive density
        of each given the partition (``heldout_log_density``) and their sum.
    parallel_chains
        Chains run at the same time, in threads (default ``min(chains, os.cpu_count())``).
        The draws do not depend on it.
    threads_per_chain
        Accepted and validated, without effect: a chain's kernels are sequential.
    checkpoint, checkpoint_every, callback, show_progress
        As for every bayeswe sampler (see :class:`bayeswe.samplers.driver.RunOptions`).
    """

    iter_warmup: int | None = None
    iter_sampling: int | None = None
    thin: int | None = None
    split_merge: int | None = None
    init: Any = None
    heldout: Any = None
    parallel_chains: int | None = None
    threads_per_chain: int | None = None
    checkpoint: str | os.PathLike[str] | None = None
    checkpoint_every: int | None = None
    callback: Callable[[int], None] | None = None
    show_progress: bool | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> DPMixtureArgs:
        """Build and validate (``ValueError`` naming an unknown option or a bad value)."""
        return build_options(cls, "cgs", options)

    def validate(self) -> None:
        check_int("iter_warmup", self.iter_warmup, minimum=0)
        check_int("iter_sampling", self.iter_sampling, minimum=1)
        check_int("thin", self.thin, minimum=1)
        check_int("split_merge", self.split_merge, minimum=0)
        check_int("parallel_chains", self.parallel_chains, minimum=1)
        check_int("threads_per_chain", self.threads_per_chain, minimum=1)
        check_int("checkpoint_every", self.checkpoint_every, minimum=1)
        if self.callback is not None and not callable(self.callback):
            raise ValueError("callback must be callable")
        if isinstance(self.init, str) or self.init is None:
            check_choice("init", self.init, INITS)
        elif not isinstance(self.init, (Mapping, list, tuple)):
            raise ValueError(f"init must be one of {INITS}, a mapping or a list of mappings")
        progress_resolve(self.show_progress)
