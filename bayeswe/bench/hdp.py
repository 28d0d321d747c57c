"""``bayeswe bench hdp``: HDP-LDA against tomotopy's ``HDPModel`` and gensim's ``HdpModel``.

**Compared.** :mod:`bayeswe.samplers.hdp_lda` (one chain, direct-assignment collapsed
Gibbs; ``--method`` picks its sweep, default ``cgs``), ``tomotopy.HDPModel``
(collapsed Gibbs in the Chinese restaurant franchise form, ``workers=1``,
``TermWeight.ONE``) and ``gensim.models.HdpModel`` (online variational inference,
truncation ``T = 150`` top-level and ``K = 15`` document-level topics, its defaults;
``chunksize`` 256, ``kappa`` 1, ``tau`` 64). All three get the same ``eta`` (0.01),
``alpha0`` (tomotopy's ``alpha``, gensim's second-level ``alpha``) and ``gamma``; none
resamples them (tomotopy's ``optim_interval = 0``; gensim has no such option). What
gensim's API cannot match: its truncations ``T`` and ``K`` (the Gibbs samplers are not
truncated), and its variational family.

**Data.** Reuters and NYT (:func:`bayeswe.datasets.load_reuters`, ``load_nyt``).
Documents that repeat an earlier one (word counts at cosine similarity ``REPEAT_COSINE``
= 0.95 or more, :func:`bayeswe.corpus.repeated_documents`; re-issued wire stories) are
dropped first, so that no held-out document has a copy among the training documents
(``--keep-repeats`` keeps them). The threshold is a judgement: on Reuters the pairs at
0.95 to 1 are copies of one story (a capitalized headline, a corrected version), those
at 0.94 and below different stories on one event. One seeded document split per corpus
(``--split-seed``, default 1, the same for every seed): 10 % of the documents held out;
the vocabulary is the words of the training documents (held-out tokens of other words
are dropped, so every tool has the same ``V``); each held-out document's tokens split at
random into an observed and a predicted half
(:func:`bayeswe.lda.evaluation.split_documents`). Two settings per corpus, ``(alpha0,
gamma, initial topics)`` tuned so that both Gibbs samplers end in the range:
``k50to100`` (50 to 100 live topics; Reuters and NYT ``(5, 0.3, 70)``) and ``k300`` (300
or more; ``(10, 10, 400)``). gensim runs in ``k50to100`` only (its ``T = 150`` cannot
hold 300 topics). Full run: Reuters 200 iterations, 5 seeds in both settings; NYT 100
iterations, 5 seeds in ``k50to100`` and 3 in ``k300`` (five there do not fit the half
hour this benchmark is budgeted); gensim 10 passes on Reuters, 1 on NYT (its default).
``--quick``: a simulated corpus (200 documents x 50 tokens, V = 500), 10 iterations, 2
seeds, small settings.

**Equal footing.** The two Gibbs samplers start from the same number of topics and
take turns, ``--chunk`` sweeps per turn (default 10; the first turn's order alternates),
so they share the machine's load; initialization is timed apart. Speed is token
updates per second of sweeping (training tokens x iterations / seconds); the live
topics at the end are reported beside it. gensim's time is the wall time of building
and training its model.

**One held-out evaluator.** Every tool is reduced to topic-word distributions ``phi``
(``K x V``) and a document prior ``alpha`` (``K``), and scored by
:func:`bayeswe.dp.diagnostics.complete_topics` (the code of
:func:`bayeswe.dp.diagnostics.complete`): ``theta_d`` of each held-out document from its
observed half by :func:`bayeswe.kernels.lda_cgs.fold_in` (20 sweeps, then 50
averaged), the score the mean over predicted tokens of ``log sum_k theta_dk phi_kw``
(nats per token; draws averaged inside the log). The reductions:

* ours: the live topics' ``(n_wk + eta) / (n_k + V eta)`` and the sampler's ``beta``,
  plus one topic for all unrepresented ones (uniform words, weight ``beta_u``); prior
  ``alpha0 (beta_1, ..., beta_K, beta_u)`` (as :func:`~bayeswe.dp.diagnostics.fit_topics`);
* tomotopy: ``get_topic_word_dist(k)`` of each live topic (its counts plus ``eta``,
  mapped from its vocabulary to ours), plus the uniform topic; tomotopy does not
  expose its per-topic table counts, so ``beta`` is their posterior mean given its
  state: the fixed point of ``m_k = sum_d E[m_dk | n_dk, alpha0 beta_k]`` (Antoniak's
  expectation, ``a (psi(a + n) - psi(a))``) and ``(beta, beta_u) = (m, gamma) / (m.. +
  gamma)`` over its documents' topic counts ``n_dk`` (``doc.topics``); prior
  ``alpha0 (beta, beta_u)`` (its ``convert_to_lda`` fixes ``alpha = 0.1`` instead). As a
  sensitivity check, ``heldout_last_word_share_prior`` scores its last state with
  ``beta`` proportional to its topics' tokens and ``beta_u = gamma / (T + gamma)``, ``T``
  its own table total (``num_tables``; each record's ``tables`` is the sampler's own
  table total, ``m..`` for ours);
* gensim: ``hdp_to_lda()``: ``lambda + eta`` normalized per topic (rows renormalized
  to sum 1) and ``alpha0`` times the expected stick weights of its ``T`` topics (the
  last takes the rest; floored at ``1e-12``).

For the two Gibbs samplers the final score averages ``DRAWS = 5`` states, one at each
of the last five turn ends (10 sweeps apart); gensim has one final state. The single
last state's score is reported too (``heldout_last``).

**Time to gensim's score.** In ``k50to100`` our held-out score (one state) is also
taken after sweeps 1, 2, 5, 10, 20, 50, 100 and 200 below the last, and the last
(scoring not timed); our time to
gensim's final score is our initialization plus sweeping seconds up to the first of
those checkpoints whose score is at least gensim's; ``time_to_gensim_heldout_ratio`` is
gensim's training wall time over it (``None`` for a seed where we never reach it).

**Summary keys** (NYT's figures; ``by_corpus`` holds each corpus's). Ratios and
differences are per seed, then mean, ``_sd`` (over seeds), ``_min`` and ``_max``:
``tokens_per_s_ratio_vs_tomotopy_hdp`` (ours over tomotopy's tokens/s in
``k50to100``), ``tokens_per_s_ratio_vs_tomotopy_hdp_k300`` (the same in ``k300``),
``heldout_minus_tomotopy_hdp`` and ``heldout_minus_gensim_hdp`` (nats per held-out
token in ``k50to100``; positive: ours predicts better), ``time_to_gensim_heldout_ratio``,
``live_topics`` / ``live_topics_k300`` (mean live topics at the end per tool),
``live_in_range`` (every run of ``k50to100`` ended with 50 to 100 live topics, every
run of ``k300`` with 300 or more), ``heldout_bands_separate`` (ours' mean minus 2 sd
above each peer's mean plus 2 sd, per corpus), ``seeds`` and ``iterations``.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import digamma

from bayeswe.bench import harness
from bayeswe.corpus import BagOfWords, Vocabulary, repeated_documents
from bayeswe.dp import HDPLDAData, simulate_hdp_lda
from bayeswe.dp.diagnostics import complete_topics
from bayeswe.lda.evaluation import split_documents
from bayeswe.samplers import hdp_lda as hdp

__all__ = [
    "DRAWS",
    "STEPS",
    "Setting",
    "build_parser",
    "expected_beta",
    "main",
    "prepare",
    "run",
    "score",
]

ETA = 0.01
HELDOUT_FRACTION = 0.1
REPEAT_COSINE = 0.95
DRAWS = 5
CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100, 200)
FOLD_IN = {"iter_warmup": 20, "iter_sampling": 50}
GENSIM_CHUNKSIZE = 256

#: ``--method`` -> one sweep of our sampler, in place (a faster sweep registers here).
STEPS: dict[str, Callable[[hdp.HDPProblem, hdp.HDPState], Any]] = {"cgs": hdp.step}

Topics = tuple[np.ndarray, np.ndarray]  # phi (K, V), alpha (K,)


@dataclass(frozen=True)
class Setting:
    """Hyperparameters and start of one setting."""

    name: str
    alpha0: float
    gamma: float
    initial_topics: int
    peers: tuple[str, ...]


#: (corpus, iterations, seeds, seeds of ``k300``, gensim passes) of the full run.
FULL = (
    ("reuters", 200, 5, 5, 10),
    ("nyt", 100, 5, 3, 1),
)
FULL_SETTINGS = (
    Setting("k50to100", 5.0, 0.3, 70, ("tomotopy", "gensim")),
    Setting("k300", 10.0, 10.0, 400, ("tomotopy",)),
)
QUICK_SETTINGS = (
    Setting("k50to100", 5.0, 0.3, 10, ("tomotopy", "gensim")),
    Setting("k300", 10.0, 10.0, 40, ("tomotopy",)),
)


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Split:
    """Training documents and the two halves of the held-out ones, on one vocabulary."""

    train: BagOfWords
    observed: BagOfWords
    heldout: BagOfWords
    #: Documents dropped before the split as repeats of an earlier one.
    repeats_dropped: int = 0


def prepare(
    bow: BagOfWords,
    seed: int,
    fraction: float = HELDOUT_FRACTION,
    *,
    repeat_cosine: float | None = None,
) -> Split:
    """Hold out ``fraction`` of the documents (seeded), keep the training words only, and
    split each held-out document's tokens in halves (documents left with fewer than two
    tokens are dropped). With ``repeat_cosine``, the documents that repeat an earlier one
    at that cosine similarity (:func:`bayeswe.corpus.repeated_documents`) are dropped
    first."""
    repeats = np.zeros(bow.n_docs, dtype=bool)
    if repeat_cosine is not None:
        repeats = repeated_documents(bow, repeat_cosine)
        bow = bow.subset(np.flatnonzero(~repeats))
    rng = np.random.default_rng(seed)
    order = rng.permutation(bow.n_docs)
    n_test = max(2, int(round(fraction * bow.n_docs)))
    train, test = bow.subset(np.sort(order[n_test:])), bow.subset(np.sort(order[:n_test]))
    seen = np.zeros(bow.n_words, dtype=bool)
    seen[train.word_ids[train.counts > 0]] = True
    new_id = np.full(bow.n_words, -1, dtype=np.int64)
    new_id[seen] = np.arange(seen.sum())
    words = tuple(w for w, s in zip(bow.vocabulary.words, seen, strict=True) if s)
    vocab = Vocabulary(words)

    def docs(b: BagOfWords) -> list[np.ndarray]:
        _, word = b.tokens()
        ids = new_id[word]
        parts = np.split(ids, np.cumsum(b.doc_lengths)[:-1])
        return [p[p >= 0] for p in parts]

    test_docs = [d for d in docs(test) if d.size >= 2]
    train_bow = BagOfWords.from_token_ids(docs(train), vocab)
    test_bow = BagOfWords.from_token_ids(test_docs, vocab)
    obs_ptr, obs_word, ho_ptr, ho_word = split_documents(test_bow, seed=seed)
    observed = BagOfWords.from_token_ids(np.split(obs_word, obs_ptr[1:-1]), vocab)
    heldout = BagOfWords.from_token_ids(np.split(ho_word, ho_ptr[1:-1]), vocab)
    return Split(train_bow, observed, heldout, int(repeats.sum()))


def score(topics: Sequence[Topics], split: Split, seed: int) -> float:
    """The one evaluator: mean held-out log predictive per token of ``topics``."""
    return complete_topics(
        topics, split.observed, split.heldout, seed=seed, **FOLD_IN
    ).log_predictive


def expected_beta(
    n_dk: np.ndarray, alpha0: float, gamma: float, iterations: int = 50
) -> tuple[np.ndarray, float]:
    """``(beta, beta_u)``: the posterior mean of the top-level weights given topic counts
    ``n_dk`` (``D x K``), with the table counts at their expectation (Antoniak's
    ``E[m_dk] = a (psi(a + n_dk) - psi(a))``, ``a = alpha0 beta_k``), iterated to a
    fixed point from ``beta`` proportional to the topics' tokens."""
    n_dk = np.asarray(n_dk, dtype=np.float64)
    n_k = n_dk.sum(axis=0)
    beta = n_k / (n_k.sum() + gamma)
    has = n_dk > 0
    for _ in range(iterations):
        a = np.maximum(alpha0 * beta, 1e-300)[None, :]
        m = np.where(has, a * (digamma(a + n_dk) - digamma(a)), 0.0).sum(axis=0)
        total = m.sum() + gamma
        beta = m / total
    return beta, gamma / total


# --------------------------------------------------------------------------- sides


class _Ours:
    def __init__(self, train: BagOfWords, s: Setting, seed: int, method: str) -> None:
        data = HDPLDAData(train, truncation=1, gamma=s.gamma, alpha0=s.alpha0, eta=ETA)
        self.problem = hdp.HDPProblem.from_data(data)
        self.state = hdp.init_state(self.problem, seed, 0, s.initial_topics)
        self.sweep = STEPS[method]

    def advance(self, n: int) -> None:
        for _ in range(n):
            self.sweep(self.problem, self.state)

    def live(self) -> int:
        return self.state.n_topics

    def tables(self) -> int:
        return int(self.state.n_tables)

    def topics(self) -> Topics:
        n_k, n_wk = self.state.counts.n_k, self.state.counts.n_wk
        live = np.flatnonzero(n_k > 0)
        V = self.problem.n_words
        phi = (n_wk[:, live].T + ETA) / (n_k[live][:, None] + V * ETA)
        beta = self.state.topics.beta[live]
        rest = float(self.state.topics.rest[0])
        alpha = self.state.alpha0 * np.append(beta, max(rest, 1e-12))
        return np.vstack([phi, np.full(V, 1.0 / V)]), alpha


class _Tomotopy:
    def __init__(self, train: BagOfWords, s: Setting, seed: int) -> None:
        import tomotopy as tp

        self.setting = s
        self.model = tp.HDPModel(
            tw=tp.TermWeight.ONE,
            initial_k=s.initial_topics,
            alpha=s.alpha0,
            eta=ETA,
            gamma=s.gamma,
            seed=seed,
        )
        self.model.optim_interval = 0
        words = train.vocabulary.words
        _, word = train.tokens()
        for ids in np.split(word, np.cumsum(train.doc_lengths)[:-1]):
            self.model.add_doc([words[w] for w in ids])
        self.model.train(0, workers=1)
        index = {w: i for i, w in enumerate(words)}
        self.to_ours = np.array([index[w] for w in self.model.used_vocabs], dtype=np.int64)
        self.V = len(words)

    def advance(self, n: int) -> None:
        self.model.train(n, workers=1)

    def live(self) -> int:
        return int(self.model.live_k)

    def tables(self) -> int:
        return int(self.model.num_tables)

    def word_share_topics(self) -> Topics:
        """The sensitivity check's reduction: ``beta`` proportional to the live topics'
        tokens and ``beta_u = gamma / (m.. + gamma)`` with tomotopy's own table total."""
        m = self.model
        phi, _ = self.topics()
        live = [k for k in range(m.k) if m.is_live_topic(k)]
        n_k = np.asarray(m.get_count_by_topics(), dtype=np.float64)[live]
        beta_u = self.setting.gamma / (m.num_tables + self.setting.gamma)
        alpha = self.setting.alpha0 * np.append((1 - beta_u) * n_k / n_k.sum(), beta_u)
        return phi, np.maximum(alpha, 1e-12)

    def topics(self) -> Topics:
        m, V = self.model, self.V
        live = [k for k in range(m.k) if m.is_live_topic(k)]
        phi = np.zeros((len(live) + 1, V))
        for i, k in enumerate(live):
            phi[i, self.to_ours] = m.get_topic_word_dist(k)
        phi[-1] = 1.0 / V
        n_dk = np.zeros((len(m.docs), m.k), dtype=np.int64)
        for d, doc in enumerate(m.docs):
            n_dk[d] = np.bincount(np.asarray(doc.topics, dtype=np.int64), minlength=m.k)
        beta, beta_u = expected_beta(n_dk[:, live], self.setting.alpha0, self.setting.gamma)
        alpha = self.setting.alpha0 * np.append(beta, beta_u)
        return phi, np.maximum(alpha, 1e-12)


def _gensim(train: BagOfWords, s: Setting, seed: int, passes: int) -> tuple[float, Topics]:
    """Train gensim's HdpModel for ``passes`` passes; (wall seconds, its topics)."""
    from gensim.models import HdpModel

    logging.getLogger("gensim").setLevel(logging.ERROR)
    corpus = [
        list(zip(train.word_ids[a:b].tolist(), train.counts[a:b].tolist(), strict=True))
        for a, b in zip(train.doc_ptr[:-1], train.doc_ptr[1:], strict=True)
    ]
    id2word = dict(enumerate(train.vocabulary.words))
    chunks = passes * -(-len(corpus) // GENSIM_CHUNKSIZE)
    made = harness.timed(
        HdpModel, corpus, id2word, max_chunks=chunks, chunksize=GENSIM_CHUNKSIZE,
        alpha=s.alpha0, gamma=s.gamma, eta=ETA, random_state=seed,
    )  # fmt: skip
    alpha, beta = made.value.hdp_to_lda()
    phi = beta / beta.sum(axis=1, keepdims=True)
    return made.wall_s, (phi, np.maximum(alpha, 1e-12))


# --------------------------------------------------------------------------- one run


def _one(
    split: Split, s: Setting, seed: int, iters: int, chunk: int, method: str, passes: int
) -> list[dict[str, Any]]:
    """Every tool of setting ``s`` at one seed: a record per tool."""
    sides: dict[str, Any] = {}
    init: dict[str, float] = {}
    for tool, make in (
        ("bayeswe", lambda: _Ours(split.train, s, seed, method)),
        ("tomotopy", lambda: _Tomotopy(split.train, s, seed)),
    ):
        t0 = time.perf_counter()
        sides[tool] = make()
        init[tool] = time.perf_counter() - t0
    seconds = dict.fromkeys(sides, 0.0)
    ends = list(range(chunk, iters, chunk)) + [iters]
    checks = sorted({c for c in CHECKPOINTS if c < iters} | {iters}) if "gensim" in s.peers else []
    stops = sorted(set(ends) | set(checks))
    draw_at = set(ends[-DRAWS:])
    draws: dict[str, list[Topics]] = {tool: [] for tool in sides}
    trace: list[tuple[int, float, float]] = []
    done = 0
    for turn, stop in enumerate(stops):
        order = list(sides) if turn % 2 == 0 else list(sides)[::-1]
        for tool in order:
            t0 = time.perf_counter()
            sides[tool].advance(stop - done)
            seconds[tool] += time.perf_counter() - t0
        done = stop
        if stop in checks:
            t = init["bayeswe"] + seconds["bayeswe"]
            trace.append((stop, t, score([sides["bayeswe"].topics()], split, seed)))
        if stop in draw_at:
            for tool, side in sides.items():
                draws[tool].append(side.topics())
    tokens = split.train.n_tokens
    base = {"alpha0": s.alpha0, "gamma": s.gamma, "eta": ETA, "setting": s.name,
            "initial_topics": s.initial_topics, "seed": seed, "tokens": tokens}  # fmt: skip
    rows = []
    for tool, side in sides.items():
        rows.append(
            base
            | {
                "tool": tool,
                "iterations": iters,
                "seconds": seconds[tool],
                "init_seconds": init[tool],
                "rate": tokens * iters / seconds[tool],
                "live_topics": side.live(),
                "tables": side.tables(),
                "heldout": score(draws[tool], split, seed),
                "heldout_last": score(draws[tool][-1:], split, seed),
                "draws": len(draws[tool]),
            }
        )
    rows[0]["method"] = method
    if "gensim" in s.peers:
        alt = [sides["tomotopy"].word_share_topics()]
        rows[1]["heldout_last_word_share_prior"] = score(alt, split, seed)
    if trace:
        rows[0]["trace"] = [{"sweeps": n, "seconds": t, "heldout": h} for n, t, h in trace]
    if "gensim" in s.peers:
        wall, topics = _gensim(split.train, s, seed, passes)
        held = score([topics], split, seed)
        reach = next((t for _, t, h in trace if h >= held), None)
        rows.append(
            base
            | {
                "tool": "gensim",
                "passes": passes,
                "truncation": 150,
                "seconds": wall,
                "live_topics": int((topics[1] > 1e-3 * topics[1].sum()).sum()),
                "heldout": held,
                "heldout_last": held,
                "draws": 1,
                "bayeswe_seconds_to_this_heldout": reach,
            }
        )
    return rows


# --------------------------------------------------------------------------- summary


def _stats(values: list[float | None], name: str) -> dict[str, float | None]:
    got = [v for v in values if v is not None]
    if not got:
        return {name: None, f"{name}_sd": None, f"{name}_min": None, f"{name}_max": None}
    a = np.array(got)
    return {
        name: float(a.mean()),
        f"{name}_sd": float(a.std(ddof=1)) if a.size > 1 else 0.0,
        f"{name}_min": float(a.min()),
        f"{name}_max": float(a.max()),
    }


def _corpus_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def pick(setting: str, tool: str) -> dict[int, dict[str, Any]]:
        return {r["seed"]: r for r in rows if r["setting"] == setting and r["tool"] == tool}

    out: dict[str, Any] = {}
    ours, tomo, gens = (
        pick("k50to100", "bayeswe"),
        pick("k50to100", "tomotopy"),
        pick("k50to100", "gensim"),
    )
    ours3, tomo3 = pick("k300", "bayeswe"), pick("k300", "tomotopy")
    seeds = sorted(ours)
    out |= _stats([ours[s]["rate"] / tomo[s]["rate"] for s in seeds],
                  "tokens_per_s_ratio_vs_tomotopy_hdp")  # fmt: skip
    out |= _stats([ours3[s]["rate"] / tomo3[s]["rate"] for s in sorted(ours3)],
                  "tokens_per_s_ratio_vs_tomotopy_hdp_k300")  # fmt: skip
    out |= _stats([ours[s]["heldout"] - tomo[s]["heldout"] for s in seeds],
                  "heldout_minus_tomotopy_hdp")  # fmt: skip
    out |= _stats([ours[s]["heldout"] - gens[s]["heldout"] for s in seeds if s in gens],
                  "heldout_minus_gensim_hdp")  # fmt: skip
    reach = [gens[s]["bayeswe_seconds_to_this_heldout"] for s in seeds if s in gens]
    out |= _stats(
        [None if t is None else gens[s]["seconds"] / t for s, t in zip(seeds, reach, strict=False)],
        "time_to_gensim_heldout_ratio",
    )
    out["time_to_gensim_heldout_reached"] = sum(t is not None for t in reach)
    out["heldout"] = {
        tool: _stats([r["heldout"] for r in d.values()], "mean")
        for tool, d in (("bayeswe", ours), ("tomotopy", tomo), ("gensim", gens))
        if d
    }
    out["heldout_bands_separate"] = {
        peer: out["heldout"]["bayeswe"]["mean"] - 2 * out["heldout"]["bayeswe"]["mean_sd"]
        > out["heldout"][peer]["mean"] + 2 * out["heldout"][peer]["mean_sd"]
        for peer in ("tomotopy", "gensim")
        if peer in out["heldout"]
    }
    out["live_topics"] = {t: float(np.mean([r["live_topics"] for r in d.values()]))
                          for t, d in (("bayeswe", ours), ("tomotopy", tomo))}  # fmt: skip
    out["live_topics_k300"] = {t: float(np.mean([r["live_topics"] for r in d.values()]))
                               for t, d in (("bayeswe", ours3), ("tomotopy", tomo3))}  # fmt: skip
    out["live_in_range"] = all(
        50 <= r["live_topics"] <= 100 for d in (ours, tomo) for r in d.values()
    ) and all(r["live_topics"] >= 300 for d in (ours3, tomo3) for r in d.values())
    out["seeds"] = len(seeds)
    out["iterations"] = rows[0]["iterations"]
    return out


HEADLINE_KEYS = (
    "tokens_per_s_ratio_vs_tomotopy_hdp",
    "tokens_per_s_ratio_vs_tomotopy_hdp_k300",
    "heldout_minus_tomotopy_hdp",
    "heldout_minus_gensim_hdp",
    "time_to_gensim_heldout_ratio",
)


def run(
    *,
    quick: bool = False,
    iters: int | None = None,
    seeds: int | None = None,
    chunk: int = 10,
    seed: int = 1,
    split_seed: int = 1,
    method: str = "cgs",
    corpora: Sequence[str] | None = None,
    repeat_cosine: float | None = REPEAT_COSINE,
) -> dict[str, Any]:
    """Run the benchmark and return the JSON-ready result (see the module docstring);
    ``repeat_cosine=None`` keeps the documents that repeat an earlier one."""
    if method not in STEPS:
        raise ValueError(f"method must be one of {', '.join(sorted(STEPS))}, got {method!r}")
    say = harness.progress
    hdp._warm_up_compiler()
    if quick:
        sim = simulate_hdp_lda(n_docs=200, doc_length=50, n_words=500, seed=seed)
        plan = [("simulated", sim.data.corpus, 10, 2, 2, 2)]
        settings = QUICK_SETTINGS
    else:
        from bayeswe.datasets import load_nyt, load_reuters

        load = {"reuters": load_reuters, "nyt": load_nyt}
        plan = [
            (name, load[name](download=True), n_iter, n_seeds, k300_seeds, passes)
            for name, n_iter, n_seeds, k300_seeds, passes in FULL
            if corpora is None or name in corpora
        ]
        settings = FULL_SETTINGS
    rows: list[dict[str, Any]] = []
    by_corpus: dict[str, Any] = {}
    for name, bow, n_iter, n_seeds, k300_seeds, passes in plan:
        n_iter = n_iter if iters is None else iters
        n_seeds = n_seeds if seeds is None else seeds
        k300_seeds = k300_seeds if seeds is None else seeds
        split = prepare(bow, split_seed, repeat_cosine=repeat_cosine)
        got: list[dict[str, Any]] = []
        for k in range(n_seeds):
            for s in settings:
                if s.name == "k300" and k >= k300_seeds:
                    continue
                one = _one(split, s, seed + k, n_iter, min(chunk, n_iter), method, passes)
                for r in one:
                    r["corpus"] = name
                say({"at": f"{name} {s.name} seed {seed + k}"}
                    | {r["tool"]: (round(r.get("rate", 0)), r["live_topics"],
                                   round(r["heldout"], 4)) for r in one})  # fmt: skip
                got += one
        rows += got
        by_corpus[name] = _corpus_summary(got) | {
            "repeated_docs_dropped": split.repeats_dropped,
            "train_docs": split.train.n_docs,
            "train_tokens": split.train.n_tokens,
            "heldout_docs": split.observed.n_docs,
            "heldout_tokens": split.heldout.n_tokens,
            "vocabulary": split.train.n_words,
        }
    main_corpus = by_corpus[plan[-1][0]]
    summary: dict[str, Any] = {"corpus": plan[-1][0]}
    for key in HEADLINE_KEYS:
        for suffix in ("", "_sd", "_min", "_max"):
            summary[key + suffix] = main_corpus[key + suffix]
    summary |= {
        "live_topics": main_corpus["live_topics"],
        "live_topics_k300": main_corpus["live_topics_k300"],
        "live_in_range": all(c["live_in_range"] for c in by_corpus.values()),
        "heldout_bands_separate": {c: v["heldout_bands_separate"] for c, v in by_corpus.items()},
        "by_corpus": by_corpus,
    }
    return {"summary": summary, "quick": quick, "chunk": chunk, "seed": seed,
            "split_seed": split_seed, "repeat_cosine": repeat_cosine, "method": method,
            "eta": ETA, "draws": DRAWS,
            "checkpoints": list(CHECKPOINTS), "fold_in": FOLD_IN,
            "settings": [s.__dict__ for s in settings], "results": rows}  # fmt: skip


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench hdp`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench hdp", description=__doc__)
    harness.add_common_options(parser, quick="simulated corpus, 10 iterations, 2 seeds (smoke)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="iterations (Reuters 200, NYT 100)")  # fmt: skip
    parser.add_argument("--seeds", type=int, default=None,
                        help="seeds of every setting (Reuters 5; NYT 5, k300 3)")  # fmt: skip
    parser.add_argument("--chunk", type=int, default=10, help="iterations per turn (10)")
    parser.add_argument("--seed", type=int, default=1, help="first seed (1)")
    parser.add_argument("--split-seed", type=int, default=1, help="held-out split seed (1)")
    parser.add_argument("--method", choices=sorted(STEPS), default="cgs",
                        help="our sampler's sweep (cgs)")  # fmt: skip
    parser.add_argument("--keep-repeats", action="store_true",
                        help="keep documents repeating an earlier one (default: drop)")  # fmt: skip
    parser.add_argument("--corpus", action="append", choices=("reuters", "nyt"), default=None,
                        help="only this corpus (repeatable; default both)")  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object."""
    if args is None:
        args = build_parser().parse_args(argv)
    return harness.run_cli(
        "hdp",
        args,
        lambda: run(
            quick=args.quick,
            iters=args.iterations,
            seeds=args.seeds,
            chunk=args.chunk,
            seed=args.seed,
            split_seed=args.split_seed,
            method=args.method,
            corpora=args.corpus,
            repeat_cosine=None if args.keep_repeats else REPEAT_COSINE,
        ),
        argv=argv,
        peers=("tomotopy", "gensim"),
    )
