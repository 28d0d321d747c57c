"""Yrjänäinen et al., Fig. 9 (Appendix C): sensitivity to which K context vectors are fixed.

**The paper.** The US Congress corpus (vocabulary of the 5,000 most common words,
window ``M = 2``, ``n_s = 1`` negative per positive, ``lambda = 1``), ``K = 50``,
``N = 500,000``; the Gibbs sampler run twice, once with the last ``K`` context
vectors fixed at a MAP estimate (the paper's rule) and once with ``K`` randomly
selected words fixed at the same MAP. The posteriors of the cosine similarity of
*speak* and *law* and of *that* and *it* are "visually very similar", and R-hat of
the two runs taken as two chains is 1.0012 for both pairs: "no difference between
the two approaches". The number of draws is not given.

**Our side.** The Congress corpus is not available offline (``../shared/DATA.md``):
the State of the Union addresses 1790-2021 take its place
(:func:`bayeswe.datasets.load_sotu`), with the paper's settings: the 5,000 most
common words, ``M = 2``, ``n_s = 1``, ``lambda = 1``, ``K = 50``, and a random
``N = 500,000`` of the corpus's observations (:meth:`SGNSData.split`, fixed seed).
One MAP of ``sgns`` (bayeswe's L-BFGS-B, :func:`bayeswe.samplers.sgns_map.sgns_map`,
at most 1,000 iterations, fixed seed: the same point for every rule) gives the fixed
vectors ``M`` for four rules: ``last`` (the paper's: the last ``K`` words of the
vocabulary, which is in frequency order, so the least frequent, among those seen as
a context word at all), ``random`` (the paper's alternative: ``K`` of those words at
random, fixed seed), ``frequent`` (the ``K`` most frequent) and ``qr`` (bayeswe's
default, column-pivoted QR: the best-conditioned block). Each rule is one
``pg-gibbs`` chain started at that MAP (which lies on every rule's slice), 1,000
sweeps of burn-in and 1,000 sweeps thinned by 5 (200 draws kept: the draws of ``rho``
and ``alpha`` take 0.8 GB per chain). Each rule's posterior of a cosine is compared
with the ``last`` rule's by R-hat with the two runs as two chains (ArviZ's
rank-normalised split R-hat; the paper's check), the difference of means in units of
the ``last`` rule's sd and the ratio of sds; the split R-hat of each run alone is the
Monte Carlo baseline. Beside the paper's two pairs, 100 fixed random pairs of the
500 most frequent words are compared the same way. The rules' verdict: the same
posterior when the two-run R-hat is at most 1.01 (Vehtari et al. 2021's threshold).

*Cost:* measured on the full-size data (261,095 distinct pairs) under a load of 6 on
2 cores: 1.15 s per Gibbs sweep, 246 s for the 1,000 L-BFGS-B iterations of the MAP
(computed once per worker and shared by its cells), 0.9 GB per process before the
draws. Four cells of 2,000 sweeps: about 160 CPU-minutes, 85 minutes on two workers.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayeswe.reproduce.grid import Cell, CellResult
from bayeswe.reproduce.report import (
    finish_report,
    markdown_table,
    not_run,
    pyplot,
    save_figure,
    verdict,
    what_was_run,
    write_table,
)

TITLE = "sensitivity of cosine posteriors to which K context vectors are fixed"
PAPER = (
    "Yrjänäinen, Boström, Magnusson, Jonasson, Posterior Sampling of Probabilistic Word Embeddings"
)
SOURCE = "Appendix C, Figure 9"

#: The paper's setting: vocabulary size, K, N (observations), window, negatives, lambda.
SETTING: dict[str, int] = {"V": 5000, "K": 50, "N": 500_000}
WINDOW, NEGATIVES, PRIOR_SD = 2, 1, 1.0
#: The paper's word pairs and its R-hat of the two runs for each (Appendix C).
PAPER_PAIRS: tuple[tuple[str, str], ...] = (("speak", "law"), ("that", "it"))
PAPER_RHAT = 1.0012
#: Our rules: the reference (the paper's) first; what each is.
RULES: dict[str, str] = {
    "last": "the last K words (the paper's rule; least frequent)",
    "random": "K random words (the paper's alternative)",
    "frequent": "the K most frequent words",
    "qr": "column-pivoted QR of the MAP's alpha (bayeswe's default)",
}
REFERENCE = "last"
#: Random pairs compared beside the paper's, among the most frequent words.
RANDOM_PAIRS, RANDOM_POOL = 100, 500
#: R-hat at most this: the same posterior.
RHAT_SAME = 1.01
DATA_SEED = 20240109


def cells(quick: bool) -> list[Cell]:
    """One cell per rule; quick: V = 1,300 (to hold *speak*), K = 3, N = 5·10^4, 150 sweeps."""
    if quick:
        size = {"V": 1300, "K": 3, "N": 50_000, "pool": 100, "pairs": 20}
        run = {"warmup": 50, "draws": 100, "thin": 1, "map_iter": 100}
    else:
        size = {**SETTING, "pool": RANDOM_POOL, "pairs": RANDOM_PAIRS}
        run = {"warmup": 1000, "draws": 1000, "thin": 5, "map_iter": 1000}
    return [Cell("001-fig9", {**size, **run, "rule": rule}) for rule in RULES]


@functools.lru_cache(maxsize=2)
def sotu_data(V: int, N: int) -> Any:
    """SGNS data of the State of the Union: ``V`` most common words, ``N`` observations.

    Window 2, one negative per positive, then a random ``N / total`` of the
    observations (fixed seeds): the same data in every cell. Cached per worker.
    """
    from bayeswe.datasets import load_sotu

    corpus = load_sotu()
    vocab = corpus.vocabulary(max_size=V)
    full = corpus.sgns_data(vocab, window=WINDOW, negatives=NEGATIVES, seed=DATA_SEED)
    if N >= full.total:
        return full
    train, _ = full.split(1.0 - N / full.total, seed=DATA_SEED)
    return train


@functools.lru_cache(maxsize=2)
def shared_map(V: int, N: int, K: int, max_iter: int) -> Any:
    """The MAP of ``sgns`` every rule takes its fixed vectors from (cached per worker)."""
    from bayeswe.samplers.sgns_map import sgns_map

    data = sotu_data(V, N)
    return sgns_map(data.stan_data(K, prior_sd=PRIOR_SD), seed=DATA_SEED, max_iter=max_iter)


def context_counts(data: Any) -> np.ndarray:
    """Observations of each word as a context word."""
    return np.bincount(np.asarray(data.context), weights=np.asarray(data.n), minlength=data.V)


def anchor_index(rule: str, alpha: np.ndarray, data: Any, K: int) -> np.ndarray:
    """The fixed words of ``rule`` (module docstring), 0-based and sorted.

    ``last`` and ``random`` choose among the words seen as a context word: a word
    without such observations has no likelihood term to pin its fixed vector.
    """
    from bayeswe.sgns.identify import choose_anchor_words, word_counts

    observed = np.flatnonzero(context_counts(data) > 0)
    if rule == "last":
        return observed[-K:].astype(np.int64)
    if rule == "random":
        rng = np.random.default_rng(DATA_SEED)
        return np.sort(rng.choice(observed, size=K, replace=False)).astype(np.int64)
    return choose_anchor_words(alpha, K, rule, counts=word_counts(data))


def word_pairs(vocabulary: tuple[str, ...], pool: int, n: int) -> list[tuple[int, int]]:
    """The paper's pairs (those in the vocabulary), then ``n`` fixed random pairs of the
    ``pool`` most frequent words (the vocabulary is in frequency order)."""
    index = {w: i for i, w in enumerate(vocabulary)}
    out = [(index[a], index[b]) for a, b in PAPER_PAIRS if a in index and b in index]
    i, j = np.triu_indices(min(pool, len(vocabulary)), k=1)
    pick = np.random.default_rng(DATA_SEED).choice(i.size, size=min(n, i.size), replace=False)
    return out + [(int(i[k]), int(j[k])) for k in np.sort(pick)]


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """The shared MAP, the rule's fixed words, one Gibbs chain; cosine draws of the pairs."""
    import time

    import arviz as az

    import bayeswe
    from bayeswe.reproduce.yrjanainen_common import pair_cosines, rounded, split_rhat
    from bayeswe.sgns.identify import check_anchors, check_anchors_in_data

    V, K, N = params["V"], params["K"], params["N"]
    started = time.perf_counter()
    data = sotu_data(V, N)
    mode = shared_map(V, N, K, params["map_iter"])
    setup = time.perf_counter() - started
    index = anchor_index(params["rule"], mode.alpha, data, K)
    check_anchors_in_data(data, index)
    index, fixed = check_anchors(index, mode.alpha[index], V=V, K=K)
    free = np.setdiff1d(np.arange(V), index)
    stan_data = data.stan_data(K, prior_sd=PRIOR_SD, fixed_index=index, fixed_alpha=fixed)
    started = time.perf_counter()
    # The MAP has alpha_I = M for every rule, so it is every rule's common start.
    idata = bayeswe.fit(
        "sgns_identified",
        stan_data,
        method="pg-gibbs",
        seed=seed,
        chains=1,
        iter_warmup=params["warmup"],
        iter_sampling=params["draws"],
        thin=params["thin"],
        inits={"rho": mode.rho, "alpha_free": mode.alpha[free]},
        show_progress=False,
    )
    gibbs_s = time.perf_counter() - started
    rho = idata.posterior["rho"].transpose("chain", "draw", "word", "dim").values[0]
    del idata  # the draws of alpha are most of the memory
    pairs = word_pairs(data.vocabulary, params["pool"], params["pairs"])
    cos = pair_cosines(rho, pairs)
    n_paper = sum(a in data.vocabulary and b in data.vocabulary for a, b in PAPER_PAIRS)
    return {
        "fixed_words": [data.vocabulary[i] for i in index],
        "fixed_counts_min": int(context_counts(data)[index].min()),
        "condition_number": float(np.linalg.cond(fixed)),
        "pairs": [[data.vocabulary[a], data.vocabulary[b]] for a, b in pairs],
        "paper_pairs": n_paper,
        "cosines": rounded(cos.T, 4),
        "split_rhat": [split_rhat(c) for c in cos.T],
        "ess": [float(az.ess(c[None], method="bulk")) for c in cos.T],
        "draws_kept": int(rho.shape[0]),
        "N_actual": int(data.total),
        "P": int(data.P),
        "map_iterations": int(mode.iterations),
        "map_converged": bool(mode.converged),
        "map_s": float(mode.seconds),
        "setup_s": setup,
        "gibbs_s": gibbs_s,
    }


def _by_rule(results: list[CellResult]) -> dict[str, dict[str, Any]]:
    return {r.cell.params["rule"]: r.result for r in results if r.status == "done"}


def _comparisons(by: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """One row per (rule, pair): the rule's summary and its comparison with ``last``."""
    from bayeswe.reproduce.yrjanainen_common import compare_draws, summarize_draws

    ref = by.get(REFERENCE)
    rows = []
    for rule, res in by.items():
        for k, (a, b) in enumerate(res["pairs"]):
            draws = np.asarray(res["cosines"][k])
            row = {
                "rule": rule,
                "pair": f"{a}, {b}",
                "paper_pair": k < res["paper_pairs"],
                **summarize_draws(draws),
                "ess": res["ess"][k],
                "split_rhat": res["split_rhat"][k],
            }
            if ref is not None and rule != REFERENCE and ref["pairs"][k] == [a, b]:
                row.update(compare_draws(ref["cosines"][k], draws))
                row["split_rhat_reference"] = ref["split_rhat"][k]
            rows.append(row)
    cols = [
        "rule",
        "pair",
        "paper_pair",
        "mean",
        "sd",
        "lower",
        "upper",
        "ess",
        "split_rhat",
        "std_mean_diff",
        "sd_ratio",
        "ks",
        "rhat",
        "split_rhat_reference",
    ]
    frame = pd.DataFrame(rows, columns=cols)
    # an empty object column would make ``table[~table.paper_pair]`` a column selection
    return frame.astype({"paper_pair": bool})


def _verdicts(table: pd.DataFrame, by: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for rule in RULES:
        if rule == REFERENCE:
            continue
        what = "the paper's check" if rule == "random" else "extension"
        for a, b in PAPER_PAIRS:
            claim = f"cos({a}, {b}), {rule} vs last ({what}): R-hat near 1 (paper {PAPER_RHAT})"
            row = table[(table.rule == rule) & (table.pair == f"{a}, {b}")]
            if row.empty or pd.isna(row.rhat.iloc[0]):
                out.append(not_run(claim, "no finished cells with this pair"))
                continue
            r = row.iloc[0]
            out.append(
                verdict(
                    claim,
                    r.rhat <= RHAT_SAME,
                    f"R-hat {r.rhat:.4f} (ask <= {RHAT_SAME}); split R-hat within "
                    f"the runs {r.split_rhat_reference:.4f} (last), "
                    f"{r.split_rhat:.4f} ({rule}); Δmean {r.std_mean_diff:+.2f} sd, "
                    f"sd ratio {r.sd_ratio:.2f}",
                )
            )
        claim = f"random pairs, {rule} vs last ({what}): median R-hat near 1"
        rest = table[(table.rule == rule) & ~table.paper_pair & table.rhat.notna()]
        if rest.empty:
            out.append(not_run(claim, "no finished cells"))
            continue
        base = table[(table.rule.isin([rule, REFERENCE])) & ~table.paper_pair].split_rhat
        out.append(
            verdict(
                claim,
                rest.rhat.median() <= RHAT_SAME,
                f"median R-hat {rest.rhat.median():.4f} over {len(rest)} pairs "
                f"(ask <= {RHAT_SAME}), {np.mean(rest.rhat > RHAT_SAME):.0%} above "
                f"{RHAT_SAME}; within-run split R-hat: median {base.median():.4f}, "
                f"{np.mean(base > RHAT_SAME):.0%} above",
            )
        )
    return out


def _figure(by: dict[str, Any], table: pd.DataFrame, out: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, (a, b) in zip(axes[:2], PAPER_PAIRS, strict=True):
        drawn = False
        for j, rule in enumerate(RULES):
            res = by.get(rule)
            if res is None or [a, b] not in res["pairs"]:
                continue
            draws = res["cosines"][res["pairs"].index([a, b])]
            dark = rule == REFERENCE
            ax.hist(
                draws,
                bins=30,
                density=True,
                histtype="stepfilled" if dark else "step",
                alpha=0.6 if dark else 1.0,
                color="k" if dark else f"C{j}",
                lw=1.5,
                label=rule,
            )
            drawn = True
        if not drawn:
            ax.text(0.5, 0.5, "not run", ha="center", transform=ax.transAxes)
        ax.set_title(f"cos({a}, {b})", fontsize="medium")
        ax.set_xlabel("cosine similarity")
        ax.legend(fontsize="x-small")
    ax = axes[2]
    rest = table[~table.paper_pair]
    groups = [("within runs", rest.split_rhat.dropna().to_numpy())]
    groups += [
        (f"{rule} vs last", rest[rest.rule == rule].rhat.dropna().to_numpy())
        for rule in RULES
        if rule != REFERENCE
    ]
    groups = [(name, v) for name, v in groups if v.size]
    if groups:
        ax.boxplot([v for _, v in groups])
        ax.set_xticks(range(1, len(groups) + 1), [name for name, _ in groups])
    ax.axhline(RHAT_SAME, color="red", lw=0.8)
    ax.set_ylabel("R-hat of cosines, random pairs")
    ax.tick_params(axis="x", labelsize="x-small")
    fig.tight_layout()
    save_figure(fig, out, "sensitivity.png")


def _rule_row(rule: str, what: str, res: dict[str, Any] | None) -> list[str]:
    """A row of the table of fixed words."""
    if res is None:
        return [rule, what, "not run", "–", "–", "–"]
    words = res["fixed_words"]
    shown = ", ".join(words[:6]) + (", …" if len(words) > 6 else "")
    return [
        rule,
        what,
        f"{len(words)}: {shown}",
        f"{res['fixed_counts_min']:,}",
        f"{res['condition_number']:.1f}",
        f"{res['gibbs_s']:.0f}",
    ]


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv``, ``sensitivity.png`` and the paper's check with a verdict per row."""
    by = _by_rule(results)
    table = _comparisons(by)
    write_table(out, table)
    _figure(by, table, out)
    verdicts = _verdicts(table, by)
    run_rows = [_rule_row(rule, what, by.get(rule)) for rule, what in RULES.items()]
    pair_rows = []
    for a, b in PAPER_PAIRS:
        pair_rows.append(
            [f"{a}, {b}", "last vs random (paper)", "–", "–", "–", "–", f"{PAPER_RHAT}", "–", "–"]
        )
        for r in table[table.pair == f"{a}, {b}"].itertuples():
            pair_rows.append(
                [
                    r.pair,
                    f"{r.rule} (ours)",
                    f"{r.mean:.3f}",
                    f"{r.sd:.3f}",
                    f"[{r.lower:.3f}, {r.upper:.3f}]",
                    f"{r.ess:.0f}",
                    "–" if pd.isna(r.rhat) else f"{r.rhat:.4f}",
                    f"{r.split_rhat:.4f}",
                    "–"
                    if pd.isna(r.std_mean_diff)
                    else f"{r.std_mean_diff:+.2f} / {r.sd_ratio:.2f}",
                ]
            )
    any_res = next(iter(by.values()), None)
    facts = (
        ""
        if any_res is None
        else (
            f"Data: {any_res['N_actual']:,} observations in {any_res['P']:,} distinct pairs; the "
            f"MAP stopped after {any_res['map_iterations']} L-BFGS-B iterations "
            f"({'converged' if any_res['map_converged'] else 'not converged'}, "
            f"{any_res['map_s']:.0f} s); {any_res['draws_kept']} draws kept per rule."
        )
    )
    md = [
        *what_was_run(__doc__, "The paper", "Our side"),
        facts,
        "",
        "![Cosine posteriors by rule, and R-hat of random pairs](sensitivity.png)",
        "",
        "## The fixed words of each rule",
        "",
        markdown_table(
            [
                "rule",
                "what",
                "fixed words",
                "fewest context observations",
                "condition number of M",
                "Gibbs s",
            ],
            run_rows,
        ),
        "",
        "## The paper's pairs",
        "",
        "`R-hat`: this rule's run and the `last` rule's as two chains (the paper's "
        "check: 1.0012 for both pairs, Congress corpus); `split R-hat`: this run alone; "
        "`vs last`: difference of means in the `last` run's sds / ratio of sds.",
        "",
        markdown_table(
            [
                "pair",
                "rule",
                "mean",
                "sd",
                "90 % interval",
                "ESS",
                "R-hat",
                "split R-hat",
                "vs last",
            ],
            pair_rows,
        ),
        "",
    ]
    return finish_report(md, verdicts, results)
