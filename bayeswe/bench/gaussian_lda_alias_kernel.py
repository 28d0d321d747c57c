"""``bayeswe bench gaussian-lda-alias-kernel``: alias-MH's per-token move against a Gibbs draw.

**Question.** The paper's scan of alias-MH (``scan="document"``) moves each token by
``mh_steps`` independence-MH steps whose proposal takes stale densities from the word's
table. With frozen tables the chain is exact, but a token's move is an exact Gibbs draw
only in the limit of many steps. ``bayeswe bench gaussian-lda-mixing`` measures the
result in effective draws; this benchmark measures the move itself: for a sample of
tokens of a running chain, the total-variation distance between the distribution of the
token's topic after ``m`` MH steps and its exact conditional (eq. 1), and which topics
the missing mass sits on.

**Data and chain.** As one cell of ``gaussian-lda-mixing`` with ``--no-real --dims 10``:
the synthetic corpus (``--docs`` documents), its vectors' first ``--dims`` principal
components, every 10th token of each document held out, K = ``--topics``, a k-means
start and ``--shared-start`` CPU seconds of alias-MH's scan by word, of which the topic
assignments are kept. From there the ``--variant`` (default ``16:F``: the paper's scan,
frozen tables, 16 MH steps; see ``gaussian-lda-mixing --variants``) runs, and at each of
``--checkpoints`` (CPU seconds of that chain) the state is examined. Nothing is timed:
the CPU-second budgets only place the checkpoints, so their sweep counts (recorded)
vary from run to run.

**Per token** (``--tokens`` drawn without replacement, seeded): the exact conditional
``p(k) ∝ (n_dk + alpha_k) t(v_w | k)`` with the token left out, by NumPy from the topics'
sufficient statistics; the kernel's proposal ``q`` (the target's own weight on the
topics C that hold the word's other tokens, ``(n_dk + alpha_k) t~(v_w | k)`` elsewhere,
``t~`` the word's table); the transition matrix of one independence-MH step,
``P[j, k] = q(k) min(1, p(k) q(j) / (p(j) q(k)))``, which leaves ``p`` invariant; and
``delta_s P^m`` from the token's topic ``s`` for each ``m`` of ``--steps``.

**Hot topics** (``--hot-shifts h1,h2,...``, none by default): a proposal the sampler
does not make, examined on the same tokens. A topic is *hot* for token ``i`` when its
mean, without token ``i``, lies farther than ``h`` from its mean at the start of the
examined chain (whose first sweep builds the tables), in that reference's predictive
scale (the Mahalanobis distance under the inverse of eq. 1's t scale). The proposal
gives the hot topics H the target's own weight, as it gives the topics C. Since H
depends on the other tokens only, it is a valid independence proposal given them.
Each hot topic costs one fresh density per token, so ``fresh_topics_mean`` (the mean
size of C, or of C and H) is the price of the proposal in densities per token.

**Equal footing.** Nothing is timed or raced: every number of MH steps is examined on
the same tokens of the same state, against the same exact conditional.

**Summary keys** (at the last checkpoint): ``tv_mean_m{m}``, ``tv_q99_m{m}`` and
``share_tv_above_0_1_m{m}`` (mean, 99th percentile and share above 0.1 of the tokens'
total-variation distances); ``moved_exact`` and ``moved_m{m}`` (mean probability that
the token leaves its topic: under the exact conditional, and after m steps);
``mass_outside_copies`` (mean exact mass on topics outside C, where the proposal is
stale); ``stale_log_rise_median_tv_above_0_1_m{m}``: over the tokens whose distance
exceeds 0.1, the median of ``log t - log t~`` at the topic with the largest shortfall
``p(k) - (delta_s P^m)(k)``: how far that topic's density at the word has risen since
the table was built; ``tokens``, ``sweeps`` (the chain's, at the last checkpoint),
``variant``, ``K``, ``hot_shifts``, ``fresh_topics_mean``; for each threshold h,
``fresh_topics_mean_hot{h}``, ``tv_mean_m{m}_hot{h}`` and
``share_tv_above_0_1_m{m}_hot{h}`` (h with ``_`` for the decimal point: ``hot0_5``).
Each checkpoint's figures are in ``checkpoints``.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness

__all__ = ["build_parser", "exact_and_proposal", "main", "mh_step_matrix", "run", "token_report"]

TV_STUCK = 0.1


def log_t_topics(
    counts: np.ndarray, sums: np.ndarray, scatter: np.ndarray, x: np.ndarray, problem: Any
) -> np.ndarray:
    """``log t(x | k)`` of every topic from its sufficient statistics (eqs. 2-3): the
    normal-inverse-Wishart posterior predictive Student-t, ``counts`` (K,), ``sums``
    (K, D), ``scatter`` (K, D, D) the sum of the outer products of the topic's vectors."""
    from bayeswe.glda.inference import niw_predictive_log_density

    kappa = problem.kappa0 + counts
    nu = problem.nu0 + counts
    mean = (problem.kappa0 * problem.mu0 + sums) / kappa[:, None]
    psi = (
        problem.Psi0
        + scatter
        + problem.kappa0 * np.outer(problem.mu0, problem.mu0)
        - kappa[:, None, None] * np.einsum("ka,kb->kab", mean, mean)
    )
    return niw_predictive_log_density(x[None, :], mean, psi, kappa, nu)[0]


def _statistics(problem: Any, z: np.ndarray, K: int) -> tuple[np.ndarray, ...]:
    X = problem.emb[problem.tok_word]
    counts = np.bincount(z, minlength=K).astype(float)
    sums = np.zeros((K, X.shape[1]))
    np.add.at(sums, z, X)
    scatter = np.zeros((K, X.shape[1], X.shape[1]))
    np.add.at(scatter, z, np.einsum("na,nb->nab", X, X))
    n_wk = np.zeros((problem.emb.shape[0], K), dtype=np.int64)
    np.add.at(n_wk, (problem.tok_word, z), 1)
    return counts, sums, scatter, n_wk


def exact_and_proposal(
    problem: Any,
    state: Any,
    i: int,
    stats: tuple[np.ndarray, ...],
    hot: Sequence[np.ndarray] = (),
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Token ``i``'s exact conditional ``p``, the alias-MH proposal ``q`` of the paper's
    scan (``fresh_doc=False``) from the word's current table, the fresh ``log t``, the
    table's ``log t~``, the mask of the topics C that hold the word's other tokens (all
    (K,)), and for each mask H of ``hot`` the proposal with the target's own weight on
    C and H alike."""
    counts, sums, scatter, n_wk = stats
    s, d, w = int(state.z[i]), int(problem.tok_doc[i]), int(problem.tok_word[i])
    x = problem.emb[w]
    counts, sums, scatter = counts.copy(), sums.copy(), scatter.copy()
    counts[s] -= 1
    sums[s] -= x
    scatter[s] -= np.outer(x, x)
    log_t = log_t_topics(counts, sums, scatter, x, problem)
    n_d = state.n_dk[d].astype(float)
    n_d[s] -= 1
    log_p = np.log(n_d + problem.alpha) + log_t
    others = n_wk[w].copy()
    others[s] -= 1
    copies = others > 0
    log_t_table = state.stale_logw[w] - np.log(problem.alpha)
    log_stale = np.log(n_d + problem.alpha) + log_t_table
    q_hot = [_normalised(np.where(copies | h, log_p, log_stale)) for h in hot]
    q = _normalised(np.where(copies, log_p, log_stale))
    return _normalised(log_p), q, log_t, log_t_table, copies, q_hot


def _hot_tag(shift: float) -> str:
    """``hot1``, ``hot0_5``: the summary-key suffix of a hot-topic threshold."""
    return "hot" + f"{shift:g}".replace(".", "_").replace("+", "")


def _normalised(log_w: np.ndarray) -> np.ndarray:
    w = np.exp(log_w - log_w.max())
    return w / w.sum()


def hot_reference(state: Any, D: int) -> tuple[np.ndarray, np.ndarray]:
    """The topics' means ``(K, D)`` and the precisions ``(K, D, D)`` of their posterior
    predictive t (the inverse of its scale, eq. 1) at ``state``: the reference a hot
    topic has moved away from."""
    dof = state.nu_k - D + 1.0
    scale = (state.kappa_k + 1.0) / (state.kappa_k * dof)
    return state.mu.copy(), np.linalg.inv(state.psi() * scale[:, None, None])


def _topic_means(problem: Any, stats: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Each topic's posterior mean ``(K, D)`` and ``kappa_k`` from its statistics."""
    kappa = problem.kappa0 + stats[0]
    return (problem.kappa0 * problem.mu0 + stats[1]) / kappa[:, None], kappa


def topic_shifts(
    problem: Any, stats: tuple[np.ndarray, ...], reference: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """How far each topic's mean lies from the reference mean, in the reference's
    predictive scale (Mahalanobis distance, (K,))."""
    ref_mean, ref_prec = reference
    delta = _topic_means(problem, stats)[0] - ref_mean
    return np.sqrt(np.einsum("ka,kab,kb->k", delta, ref_prec, delta))


def cavity_shift(
    problem: Any,
    stats: tuple[np.ndarray, ...],
    reference: tuple[np.ndarray, np.ndarray],
    i: int,
    s: int,
) -> float:
    """:func:`topic_shifts` of topic ``s`` without its token ``i``: the only topic whose
    distance changes when the token is left out."""
    mean, kappa = _topic_means(problem, stats)
    x = problem.emb[problem.tok_word[i]]
    delta = (kappa[s] * mean[s] - x) / (kappa[s] - 1.0) - reference[0][s]
    return float(np.sqrt(delta @ reference[1][s] @ delta))


def mh_step_matrix(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """One independence-MH step with proposal ``q`` and target ``p`` as a (K, K)
    row-stochastic matrix (a proposal equal to the current topic counts as a stay)."""
    log_w = np.log(p) - np.log(q)
    P = q[None, :] * np.minimum(1.0, np.exp(log_w[None, :] - log_w[:, None]))
    np.fill_diagonal(P, 0.0)
    P[np.diag_indices_from(P)] = 1.0 - P.sum(axis=1)
    return P


def token_report(
    p: np.ndarray, q: np.ndarray, s: int, steps: Sequence[int], log_rise: np.ndarray
) -> dict[int, tuple[float, float, float]]:
    """For each ``m`` of ``steps``: the TV distance of ``delta_s P^m`` from ``p``, the
    probability of leaving ``s`` after m steps, and ``log_rise`` at the topic of the
    largest shortfall ``p - delta_s P^m``."""
    P = mh_step_matrix(p, q)
    dist = np.zeros(p.size)
    dist[s] = 1.0
    out, done = {}, 0
    for m in sorted(steps):
        for _ in range(m - done):
            dist = dist @ P
        done = m
        short = int(np.argmax(p - dist))
        out[m] = (0.5 * float(np.abs(dist - p).sum()), 1.0 - float(dist[s]), float(log_rise[short]))
    return out


def examine(
    problem: Any,
    state: Any,
    tokens: np.ndarray,
    steps: Sequence[int],
    hot_shifts: Sequence[float] = (),
    reference: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, Any]:
    """The per-token figures of the module docstring over ``tokens``, at ``state``; for
    each of ``hot_shifts`` also those of the proposal with fresh weights on the topics
    whose mean moved farther than that from ``reference`` (:func:`hot_reference`)."""
    stats = _statistics(problem, state.z, problem.K)
    tv: dict[int, list[float]] = {m: [] for m in steps}
    moved: dict[int, list[float]] = {m: [] for m in steps}
    rise: dict[int, list[float]] = {m: [] for m in steps}
    hot_tv: dict[tuple[float, int], list[float]] = {(h, m): [] for h in hot_shifts for m in steps}
    fresh: dict[float | None, list[int]] = {h: [] for h in (None, *hot_shifts)}
    moved_exact, outside = [], []
    if hot_shifts:
        if reference is None:
            raise ValueError("hot_shifts need the reference topics (hot_reference)")
        shifts = topic_shifts(problem, stats, reference)  # every token's but its own topic's
    for i in tokens:
        if state.uses[problem.tok_word[i]] < 0:
            continue  # the word's table is not built yet
        s = int(state.z[i])
        masks = []
        if hot_shifts:
            shift = shifts.copy()
            shift[s] = cavity_shift(problem, stats, reference, int(i), s)
            masks = [shift > h for h in hot_shifts]
        p, q, log_t, log_t_table, copies, q_hot = exact_and_proposal(
            problem, state, int(i), stats, masks
        )
        outside.append(float(p[~copies].sum()))
        moved_exact.append(1.0 - float(p[s]))
        fresh[None].append(int(copies.sum()))
        for m, (dist, leave, lr) in token_report(p, q, s, steps, log_t - log_t_table).items():
            tv[m].append(dist)
            moved[m].append(leave)
            if dist > TV_STUCK:
                rise[m].append(lr)
        for h, mask, qh in zip(hot_shifts, masks, q_hot, strict=True):
            fresh[h].append(int((copies | mask).sum()))
            for m, (dist, _, _) in token_report(p, qh, s, steps, log_t - log_t_table).items():
                hot_tv[h, m].append(dist)
    out: dict[str, Any] = {
        "tokens": len(moved_exact),
        "moved_exact": float(np.mean(moved_exact)),
        "mass_outside_copies": float(np.mean(outside)),
        "fresh_topics_mean": float(np.mean(fresh[None])),
    }
    for h in hot_shifts:
        tag = _hot_tag(h)
        out[f"fresh_topics_mean_{tag}"] = float(np.mean(fresh[h]))
        for m in steps:
            d = np.array(hot_tv[h, m])
            out[f"tv_mean_m{m}_{tag}"] = float(d.mean())
            out[f"share_tv_above_0_1_m{m}_{tag}"] = float((d > TV_STUCK).mean())
    for m in steps:
        d = np.array(tv[m])
        out[f"tv_mean_m{m}"] = float(d.mean())
        out[f"tv_q99_m{m}"] = float(np.quantile(d, 0.99))
        out[f"share_tv_above_0_1_m{m}"] = float((d > TV_STUCK).mean())
        out[f"moved_m{m}"] = float(np.mean(moved[m]))
        out[f"stale_log_rise_median_tv_above_0_1_m{m}"] = (
            float(np.median(rise[m])) if rise[m] else None
        )
    return out


def kernel_run(
    K: int,
    seed: int,
    docs: int,
    dims: int,
    shared_start: float,
    variant: str,
    checkpoints: Sequence[float],
    steps: Sequence[int],
    tokens: int,
    quick: bool,
    hot_shifts: Sequence[float] = (),
) -> dict[str, Any]:
    """The chain and its checkpoints (see the module docstring)."""
    import time

    import numba

    from bayeswe.bench import gaussian_lda_mixing as mixing
    from bayeswe.bench.gaussian_lda import with_topics
    from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, step

    numba.set_num_threads(1)
    (parsed,) = mixing.parse_variants(variant)
    options = mixing.variant_options(*parsed)
    if options["scan"] != "document" or options["fresh_doc"]:
        raise ValueError(
            f"--variant {variant}: the proposal examined is the paper's scan's "
            "(scan='document', fresh_doc=False); the scan by word draws from the exact "
            "conditional"
        )
    data, corpus = mixing._data(docs, False, quick, None if quick else dims)
    problem = GLDAProblem.from_data(with_topics(data, K))
    problem, _, _ = mixing._split_heldout(problem, mixing.HELDOUT_EVERY)
    base = init_state(problem, seed=seed, method="alias-mh", init="kmeans")
    step(problem, copy.deepcopy(base), method="alias-mh")  # compile
    state, start_sweeps, _, _ = mixing.advance_shared_start(
        problem, base, seed, shared_start, "alias-mh"
    )
    chosen = np.random.default_rng(seed).choice(
        problem.n_tokens, size=min(tokens, problem.n_tokens), replace=False
    )
    # hot topics are measured from the topics of the state the tables are built from
    # (each word's at its first use in the first sweep; this is that sweep's start)
    reference = hot_reference(state, problem.D) if hot_shifts else None
    rows, sweeps, t0 = [], 0, time.thread_time()
    for at in checkpoints:
        while sweeps == 0 or time.thread_time() - t0 < at:
            step(problem, state, method="alias-mh", **options)
            sweeps += 1
        figures = examine(problem, state, chosen, steps, hot_shifts, reference)
        rows.append({"cpu_s": at, "sweeps": sweeps, **figures})
    return {
        "K": K,
        "seed": seed,
        "corpus": corpus,
        "dims": int(problem.D),
        "n_tokens": int(problem.n_tokens),
        "shared_start_cpu_s": shared_start,
        "shared_start_sweeps": start_sweeps,
        "variant": variant,
        "hot_shifts": list(hot_shifts),
        "checkpoints": rows,
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench gaussian-lda-alias-kernel`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(
            prog="bayeswe bench gaussian-lda-alias-kernel", description=__doc__
        )
    harness.add_common_options(parser, quick="20 x 30 synthetic tokens, K = 10, no shared start")
    parser.add_argument("--topics", type=int, default=100, metavar="K")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--dims", type=int, default=10)
    parser.add_argument("--shared-start", type=float, default=240.0, metavar="CPU_S")
    parser.add_argument("--variant", default="16:F", help="an alias-MH setting (paper's scan)")
    parser.add_argument(
        "--checkpoints", default="60,300", help="CPU seconds of the chain (comma-separated)"
    )
    parser.add_argument("--steps", default="2,16", help="MH steps per token to examine")
    parser.add_argument("--tokens", type=int, default=2000, help="tokens examined")
    parser.add_argument(
        "--hot-shifts",
        default="",
        help="thresholds h (comma-separated) of the hot-topic proposals also examined",
    )
    return parser


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The examination for the options ``args``, with its summary."""
    steps = [int(v) for v in args.steps.split(",")]
    hot_shifts = [float(v) for v in args.hot_shifts.split(",") if v.strip()]
    checkpoints = [float(v) for v in args.checkpoints.split(",")]
    K, shared, tokens = args.topics, args.shared_start, args.tokens
    if args.quick:
        K, shared, checkpoints, tokens = 10, 0.0, [0.2], 200
    if min(steps) < 1 or any(b <= a for a, b in zip(checkpoints, checkpoints[1:], strict=False)):
        raise ValueError("--steps must be positive and --checkpoints increasing")
    if any(not np.isfinite(h) or h < 0 for h in hot_shifts):
        raise ValueError(f"--hot-shifts must be finite and >= 0, got {args.hot_shifts!r}")
    res = harness.call_in_subprocess(
        "bayeswe.bench.gaussian_lda_alias_kernel:kernel_run",
        K,
        args.seed,
        args.docs,
        args.dims,
        shared,
        args.variant,
        checkpoints,
        steps,
        tokens,
        bool(args.quick),
        hot_shifts,
        threads=1,
    )
    result = res.value
    last = result["checkpoints"][-1]
    summary = {k: v for k, v in last.items() if k != "cpu_s"}
    summary["variant"] = args.variant
    summary["K"] = K
    summary["hot_shifts"] = hot_shifts
    return {"summary": summary, "result": result}


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the examination and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    return harness.run_cli("gaussian-lda-alias-kernel", args, lambda: run(args), argv=argv)
