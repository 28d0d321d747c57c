"""Das, Zaheer & Dyer, Table 1: topics and PMI coherence of Gaussian LDA and LDA.

**The paper.** 20 Newsgroups (18,768 posts after pre-processing), ``K = 50``;
Gaussian LDA on word2vec vectors trained on Wikipedia, words of a topic ranked by
their posterior-predictive density in the final sample; multinomial LDA, words ranked
by probability. Table 1 shows nine topics of each with the PMI of each topic's
fifteen highest-ranked words: the mean over their word pairs of
``log P(w, w') / (P(w) P(w'))`` from document co-occurrences in Wikipedia (Newman et
al. 2009). Section 5.1: Gaussian LDA "achieves an average 275 % higher score" (the
nine shown PMIs average 1.402 against 0.509: 2.75 times); Gaussian LDA finds a topic
of person names that LDA does not, LDA fails to find a finance topic, LDA's top words
repeat generic words (*don*, *writes*) across topics, and Gaussian LDA misses the
space topic that LDA finds. (The third Gaussian LDA PMI is printed as 0.4943 in one
place and 0.4945 in another in our copy; we type 0.4943.)

**Substitution.** The full 20 Newsgroups is not available offline. We use gensim's
mini 20 Newsgroups (200 posts from *alt.atheism* and *sci.space*, stop words out,
words seen twice and with a GloVe vector: 27,765 tokens, V = 4,013) and, as a larger
second corpus, the New York Times bag of words (8,447 articles, V = 3,012, 1.22M
tokens); GloVe 6B 50d vectors (Wikipedia 2014 + Gigaword 5) in place of the paper's
word2vec. The PMI reference is the Wikipedia excerpt in gensim's test data (its first
106 articles, 466,736 tokens, one document per article; the paper used all of
Wikipedia): ``PMI = log(D(w, w') N / (D(w) D(w')))`` from document frequencies.
Co-occurrence counts this sparse have zeros: a pair that never co-occurs scores 0
(treated as independent; add-one smoothing instead gave a topic of rare junk tokens,
each in one article and never together, the highest PMI of all, log 106 = 4.66), and
pairs with a word that no article contains are left out (the share of pairs scored is
reported). NPMI (:func:`bayeswe.lda.evaluation.coherence`, -1 for pairs that never
co-occur) is reported beside it as a check.

**Our side.** ``K = 50``, the same vocabulary for both models. Gaussian LDA:
``cgs`` (exact collapsed Gibbs with Cholesky updates), one chain from the library's
k-means start, priors of :func:`bayeswe.reproduce.das_common.glda_data`, top words by
:func:`bayeswe.glda.inference.top_words` (posterior-predictive density in the final
sweep, over the corpus vocabulary). LDA: ``cgs`` (SparseLDA), ``alpha = 0.1``,
``beta = 0.01``, one chain from a uniform start, top words of ``phi`` in the final
sweep. Sweeps: 200 (Gaussian LDA) and 1,000 (LDA) on the newsgroups, three
replicates (seeds); 100 and 500 on the NYT, one replicate. A paper topic is *found*
by a model when one of its topics has at least 3 of the paper topic's fifteen words
among its own fifteen (:data:`MATCH_WORDS`); the names topic, whose names are its
corpus's, when one of its topics has at least 8 proper nouns among its fifteen words
(:data:`NAME_WORDS`; words the tagged Brown corpus marks as proper nouns most of the
time).

**Cost.** About 40 CPU-minutes on one worker (measured on a 2-core x86-64 CPU): a
newsgroups Gaussian LDA run takes 1.5 CPU-minutes, the NYT one 32 (19 CPU-seconds a
sweep), the LDA runs 2 in all, the report half a minute. With ``--workers 2`` the NYT
Gaussian LDA run is the critical path: about 35 minutes.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayeswe.reproduce.das_common import PAPER as _PAPER
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

TITLE = "topics and PMI coherence of Gaussian LDA and LDA"
PAPER = _PAPER
SOURCE = "section 5.1, Table 1"

K = 50
TOP_N = 15
MODELS = ("gaussian-lda", "lda")
#: Per dataset: (replicates, Gaussian LDA sweeps, LDA sweeps).
SETTINGS: dict[str, tuple[int, int, int]] = {"newsgroups": (3, 200, 1000), "nyt": (1, 100, 500)}
QUICK = {"K": 5, "sweeps": {"gaussian-lda": 10, "lda": 50}}
#: A paper topic is found if a topic of ours shares this many of its words ...
MATCH_WORDS = 3
#: ... and the names topic if one of ours has this many proper nouns among its words.
NAME_WORDS = 8

#: Table 1, typed: (label, words of the topic in rank order, PMI). The labels are the
#: paper's names for them in section 5.1 where it gives one.
PAPER_TOPICS: dict[str, tuple[tuple[str, str, float], ...]] = {
    "gaussian-lda": (
        (
            "violence",
            "hostile murder violence victim testifying provoking legal citizens "
            "conflict victims rape laws violent trial intervention",
            0.8302,
        ),
        (
            "sports",
            "play round win players games goal challenge final playing hitting match "
            "ball advance participants scores",
            0.9302,
        ),
        (
            "government",
            "government state group initiative board legal bill general policy "
            "favor office political commission private federal",
            0.4943,
        ),
        (
            "religion",
            "people god jews israel christians christian great jesus muslims religion "
            "armenian armenians church muslim bible",
            2.0306,
        ),
        (
            "universities",
            "university program public law institute high research college "
            "center study reading technology programs level press",
            0.5216,
        ),
        (
            "tech",
            "hardware interface mode devices rendering renderer user computers monitor "
            "static encryption emulation reverse device target",
            2.3615,
        ),
        (
            "names",
            "scott stevens graham walker tom russell baker barry adams jones joe palmer "
            "cooper robinson smith",
            2.7660,
        ),
        (
            "finance",
            "market buying sector purchases payments purchase company owners paying "
            "corporate limited loans credit financing fees",
            1.4999,
        ),
        (
            "military",
            "gun rocket military force machine attack operation enemy fire flying "
            "defense warning soldiers guns operations",
            1.1847,
        ),
    ),
    "lda": (
        (
            "armenia",
            "turkish armenian people armenians armenia turks turkey don greek soviet "
            "time genocide government told killed",
            0.3394,
        ),
        (
            "baseball",
            "year writes game good team article baseball don games season runs "
            "players hit time apr",
            0.2036,
        ),
        (
            "politics",
            "people president mr don money government stephanopoulos time make "
            "clinton work tax years ll ve",
            0.1578,
        ),
        (
            "religion",
            "god jesus people bible christian church christ christians life time don "
            "faith good man law",
            0.7561,
        ),
        (
            "universities",
            "university information national research center april san number "
            "year conference washington california page state states",
            0.0039,
        ),
        (
            "graphics",
            "window image color file windows program display jpeg problem screen bit "
            "files graphics gif writes",
            1.3767,
        ),
        (
            "space",
            "space nasa gov earth launch writes orbit moon satellite article shuttle "
            "lunar henry data flight",
            1.5747,
        ),
        (
            "other",
            "ken stuff serve line attempt den due peaceful article served warrant lotsa "
            "occurred writes process",
            -0.0721,
        ),
        (
            "guns",
            "gun people law guns don state crime weapons firearms police control writes "
            "rights article laws",
            0.2443,
        ),
    ),
}
MODEL_NAMES = {"gaussian-lda": "Gaussian LDA", "lda": "LDA"}
#: The claims of section 5.1 about which model finds which topic: (topic, model that
#: finds it, model that does not).
FOUND_CLAIMS = (
    ("names", "gaussian-lda", "lda"),
    ("finance", "gaussian-lda", "lda"),
    ("space", "lda", "gaussian-lda"),
)


def paper_mean(model: str) -> float:
    """Mean PMI of the nine topics Table 1 shows for ``model``."""
    return float(np.mean([pmi for _, _, pmi in PAPER_TOPICS[model]]))


def cells(quick: bool) -> list[Cell]:
    """dataset x model x replicate; quick: the newsgroups, K = 5, a few sweeps."""
    if quick:
        return [
            Cell(
                "003-table1",
                {
                    "dataset": "newsgroups",
                    "model": m,
                    "K": QUICK["K"],
                    "sweeps": QUICK["sweeps"][m],
                    "replicate": 0,
                },
            )
            for m in MODELS
        ]
    out = []
    for dataset, (reps, glda_sweeps, lda_sweeps) in SETTINGS.items():
        for m in MODELS:
            sweeps = glda_sweeps if m == "gaussian-lda" else lda_sweeps
            out += [
                Cell(
                    "003-table1",
                    {"dataset": dataset, "model": m, "K": K, "sweeps": sweeps, "replicate": r},
                )
                for r in range(reps)
            ]
    return out


def load_corpus(dataset: str) -> tuple[Any, np.ndarray]:
    """``(corpus, GloVe vectors)`` of ``"newsgroups"`` or ``"nyt"``."""
    from bayeswe.reproduce import das_common

    if dataset == "newsgroups":
        return das_common.newsgroups_corpus()
    if dataset == "nyt":
        return das_common.nyt_corpus()
    raise ValueError(f"unknown dataset {dataset!r}")


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Fit one model; its topics' top words, sizes and the final log joint."""
    import warnings

    import bayeswe
    from bayeswe.reproduce.das_common import glda_data

    corpus, emb = load_corpus(params["dataset"])
    n_topics, sweeps = int(params["K"]), int(params["sweeps"])
    started = time.process_time()
    with warnings.catch_warnings():
        # one kept draw: ArviZ warns that chains (1) outnumber draws (1)
        warnings.simplefilter("ignore", UserWarning)
        if params["model"] == "gaussian-lda":
            from bayeswe.glda.inference import top_words

            idata = bayeswe.fit(
                "gaussian_lda",
                glda_data(corpus, emb, n_topics),
                method="cgs",
                seed=seed,
                chains=1,
                iter_warmup=sweeps - 1,
                iter_sampling=1,
                init="kmeans",
            )
            table = top_words(idata, corpus.vocabulary, emb, n=TOP_N)
            sizes = idata.posterior["topic_tokens"].values[0, -1]
        else:
            from bayeswe.lda import LDAData
            from bayeswe.lda.evaluation import top_words

            idata = bayeswe.fit(
                "lda",
                LDAData(corpus, n_topics=n_topics),
                method="cgs",
                seed=seed,
                chains=1,
                iter_warmup=sweeps - 1,
                iter_sampling=1,
                thin=1,
            )
            table = top_words(idata, corpus.vocabulary, top_n=TOP_N)
            theta = idata.posterior["theta"].values[0, -1]
            sizes = theta.T @ corpus.doc_lengths
    lp = idata.sample_stats["lp"].values[0, -1] if "lp" in idata.sample_stats else np.nan
    return {
        "topics": [[str(w) for w in row] for row in table.to_numpy()],
        "topic_tokens": [float(s) for s in sizes],
        "lp": float(lp),
        "cpu_s": time.process_time() - started,
        "n_docs": int(corpus.n_docs),
        "V": int(corpus.n_words),
        "n_tokens": int(corpus.n_tokens),
    }


# --------------------------------------------------------------------------- measures


def pmi_coherence(topics: list[list[str]], reference: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per topic: mean PMI over word pairs (Newman et al. 2009) and the share of pairs scored.

    ``PMI(w, w') = log(D(w, w') N / (D(w) D(w')))`` with ``D`` document frequencies
    in ``reference`` (a :class:`~bayeswe.corpus.BagOfWords` whose vocabulary holds
    every topic word) and ``N`` its number of documents. A pair that never co-occurs
    scores 0 (no evidence either way) rather than minus infinity or a smoothed count,
    which would favour rare words; a pair with a word in no document has no PMI and is
    left out. A topic with no scored pair gets NaN.
    """
    import scipy.sparse as sp

    vocab = reference.vocabulary
    X = sp.csr_matrix(
        (np.ones(reference.word_ids.size), reference.word_ids, reference.doc_ptr),
        shape=(reference.n_docs, len(vocab)),
    )
    co = (X.T @ X).toarray()
    df = np.diag(co)
    n_docs = reference.n_docs
    means, shares = np.full(len(topics), np.nan), np.zeros(len(topics))
    for k, words in enumerate(topics):
        ids = np.asarray([vocab.id(w) for w in words])
        a, b = np.triu_indices(ids.size, k=1)
        a, b = ids[a], ids[b]
        ok = (df[a] > 0) & (df[b] > 0)
        shares[k] = ok.mean() if ok.size else 0.0
        if ok.any():
            a, b = a[ok], b[ok]
            joint = co[a, b]
            ratio = np.maximum(joint, 1.0) * n_docs / (df[a] * df[b])
            means[k] = float(np.mean(np.where(joint > 0, np.log(ratio), 0.0)))
    return means, shares


def npmi_coherence(topics: list[list[str]], reference: Any) -> np.ndarray:
    """Per topic NPMI of :func:`bayeswe.lda.evaluation.coherence` over the listed words."""
    from bayeswe.lda.evaluation import coherence

    vocab = reference.vocabulary
    n = max(len(t) for t in topics)
    # scores that rank each topic's words in the listed order: coherence() takes
    # topics as probabilities over the reference vocabulary and reads their top words
    phi = np.zeros((len(topics), len(vocab)))
    for k, words in enumerate(topics):
        phi[k, [vocab.id(w) for w in words]] = np.arange(len(words), 0, -1)
    return coherence(phi, reference, top_n=n, measure="npmi")


def repeated_words(topics: list[list[str]]) -> tuple[str, int, int]:
    """The top word shared by most topics, in how many, and how many words are in >= 3."""
    from collections import Counter

    counts = Counter(w for t in topics for w in dict.fromkeys(t))
    if not counts:
        return "", 0, 0
    word, n = min(counts.items(), key=lambda item: (-item[1], item[0]))  # ties: alphabetical
    return word, n, sum(c >= 3 for c in counts.values())


@functools.lru_cache(maxsize=1)
def proper_nouns() -> frozenset[str]:
    """Lower-cased words that the Brown corpus tags as proper nouns (``np*``) most of the time.

    Read from the tagged Brown files (``bayeswe data fetch brown``); the lexicon of
    the "names" check.
    """
    from collections import Counter

    from bayeswe.datasets.sources import source_path

    root = source_path("brown")
    proper, total = Counter(), Counter()
    for path in sorted(root.iterdir()):
        if len(path.name) != 4 or not path.name.startswith("c"):
            continue
        for token in path.read_text(encoding="utf-8", errors="replace").split():
            word, _, tag = token.rpartition("/")
            word = word.lower()
            total[word] += 1
            if tag.startswith("np"):
                proper[word] += 1
    return frozenset(w for w, n in proper.items() if 2 * n > total[w])


def names_in(words: list[str]) -> int:
    """How many of ``words`` are proper nouns by :func:`proper_nouns`."""
    lexicon = proper_nouns()
    return sum(w in lexicon for w in words)


def best_match(label: str, paper_words: list[str], topics: list[list[str]]) -> dict[str, Any]:
    """Our topic closest to a paper topic (most shared words), and whether it is *found*.

    Found: at least :data:`MATCH_WORDS` shared words; for the paper's ``"names"``
    topic, whose names are its corpus's, at least :data:`NAME_WORDS` proper nouns.
    """
    paper_set = set(paper_words)
    names = label == "names"
    best: dict[str, Any] = {"topic": -1, "shared": -1, "names": 0, "found": False}
    for k, words in enumerate(topics):
        shared, n_names = len(paper_set & set(words)), names_in(words) if names else 0
        found = n_names >= NAME_WORDS if names else shared >= MATCH_WORDS
        key = (found, n_names, shared)
        if key > (best["found"], best["names"], best["shared"]):
            best = {"topic": k, "shared": shared, "names": n_names, "found": found}
    return best


# --------------------------------------------------------------------------- report


def _topics_frame(results: list[CellResult]) -> pd.DataFrame:
    from bayeswe.reproduce.das_common import wikipedia_reference

    done = [r for r in results if r.status == "done"]
    cols = [
        "dataset",
        "model",
        "replicate",
        "topic",
        "tokens",
        "pmi",
        "pmi_pairs_scored",
        "npmi",
        "words",
    ]
    if not done:
        return pd.DataFrame(columns=cols)
    words = sorted({w for r in done for t in r.result["topics"] for w in t})
    reference = wikipedia_reference(words)
    rows = []
    for r in done:
        topics = r.result["topics"]
        pmi, share = pmi_coherence(topics, reference)
        npmi = npmi_coherence(topics, reference)
        for k, t in enumerate(topics):
            rows.append(
                [
                    r.cell.params["dataset"],
                    r.cell.params["model"],
                    r.cell.params["replicate"],
                    k,
                    r.result["topic_tokens"][k],
                    pmi[k],
                    share[k],
                    npmi[k],
                    " ".join(t),
                ]
            )
    return pd.DataFrame(rows, columns=cols)


def _summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, model): mean PMI/NPMI over replicates of the per-run means, and more."""
    per_run = table.groupby(["dataset", "model", "replicate"]).agg(
        pmi=("pmi", "mean"),
        n_topics=("topic", "size"),
        npmi=("npmi", "mean"),
        share=("pmi_pairs_scored", "mean"),
        top9=("pmi", lambda s: s.nlargest(9).mean()),
    )
    rep = {}
    for (dataset, model, replicate), g in table.groupby(["dataset", "model", "replicate"]):
        rep[(dataset, model, replicate)] = repeated_words([w.split() for w in g.words])
    per_run["top_word"] = [rep[i][0] for i in per_run.index]
    per_run["top_word_topics"] = [rep[i][1] for i in per_run.index]
    per_run["words_in_3_topics"] = [rep[i][2] for i in per_run.index]
    return per_run.reset_index()


def _found(table: pd.DataFrame) -> dict[tuple[str, str, str, str], list[dict[str, Any]]]:
    """(dataset, our model, paper model, paper label) -> best match in each replicate."""
    out: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for (dataset, model, _), g in table.groupby(["dataset", "model", "replicate"]):
        topics = [w.split() for w in g.sort_values("topic").words]
        for paper_model in MODELS:
            for label, words, _ in PAPER_TOPICS[paper_model]:
                key = (dataset, model, paper_model, label)
                out.setdefault(key, []).append(best_match(label, words.split(), topics))
    return out


def _claims(dataset: str) -> list[str]:
    """The statements of section 5.1 checked on ``dataset``, in the order of the verdicts."""
    g_paper, l_paper = paper_mean("gaussian-lda"), paper_mean("lda")
    return [
        f"{dataset}: Gaussian LDA's topics have higher PMI than LDA's (paper: "
        f"{g_paper:.3f} vs {l_paper:.3f} over the nine topics shown, "
        f"{g_paper / l_paper:.2f} times)",
        f"{dataset}: generic words (*don*, *writes*) recur among LDA's top words "
        "across topics, not Gaussian LDA's",
        *(
            f"{dataset}: {MODEL_NAMES[finds]} finds a '{label}' topic, "
            f"{MODEL_NAMES[misses]} does not"
            for label, finds, misses in FOUND_CLAIMS
        ),
    ]


def _verdicts(summary: pd.DataFrame, found: dict) -> list[dict[str, Any]]:
    out = []
    for dataset in SETTINGS:
        claims = _claims(dataset)
        s = (
            summary[summary.dataset == dataset].groupby("model").mean(numeric_only=True)
            if len(summary)
            else pd.DataFrame()
        )
        if not set(MODELS) <= set(s.index):
            out += [not_run(c, "not run") for c in claims]
            continue
        g, lda = s.loc["gaussian-lda"], s.loc["lda"]
        n_topics = int(summary[summary.dataset == dataset].n_topics.max())
        out.append(
            verdict(
                claims[0],
                bool(g.pmi > lda.pmi),
                f"mean PMI over all {n_topics} topics {g.pmi:.3f} vs {lda.pmi:.3f} "
                f"({g.pmi / lda.pmi:.2f} times); over each model's nine best topics "
                f"{g.top9:.3f} vs {lda.top9:.3f}; NPMI {g.npmi:.3f} vs {lda.npmi:.3f}; "
                f"pairs scored {g.share:.0%} vs {lda.share:.0%}",
            )
        )
        rows = summary[summary.dataset == dataset]
        worst = {m: rows[rows.model == m].sort_values("top_word_topics").iloc[-1] for m in MODELS}
        out.append(
            verdict(
                claims[1],
                bool(s.loc["lda", "top_word_topics"] > s.loc["gaussian-lda", "top_word_topics"]),
                "; ".join(
                    f"{MODEL_NAMES[m]}: *{worst[m].top_word}* in {worst[m].top_word_topics} "
                    f"topics, {s.loc[m, 'words_in_3_topics']:.1f} words in >= 3 topics"
                    for m in MODELS
                )
                + " (mean over replicates; the word of the run with the most)",
            )
        )
        for claim, (label, finds, misses) in zip(claims[2:], FOUND_CLAIMS, strict=True):
            matches = {m: found[(dataset, m, finds, label)] for m in MODELS}
            share = {m: float(np.mean([b["found"] for b in matches[m]])) for m in MODELS}
            what = "proper nouns" if label == "names" else "shared words"
            most = {
                m: max(b["names" if label == "names" else "shared"] for b in matches[m])
                for m in MODELS
            }
            detail = "; ".join(
                f"{MODEL_NAMES[m]} finds it in {share[m]:.0%} of runs (best topic: {most[m]} "
                f"{what})"
                for m in MODELS
            )
            if max(share.values()) == 0:
                detail += "; neither does: the corpus may hold no such topic"
            out.append(verdict(claim, bool(share[finds] > 0.5 and share[misses] < 0.5), detail))
    return out


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv`` (every topic), ``pmi.png`` and the comparison with a verdict per claim."""
    plt = pyplot()
    table = _topics_frame(results)
    write_table(out, table)
    datasets = [d for d in SETTINGS if d in set(table.dataset)]
    summary = _summary(table) if len(table) else pd.DataFrame()
    found = _found(table) if len(table) else {}
    verdicts = _verdicts(summary, found)

    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    groups = [("paper (20 Newsgroups)", m, [p for _, _, p in PAPER_TOPICS[m]]) for m in MODELS]
    groups += [
        (d, m, table[(table.dataset == d) & (table.model == m)].pmi.dropna().tolist())
        for d in datasets
        for m in MODELS
    ]
    for i, (_name, m, values) in enumerate(groups):
        x = i + np.random.default_rng(i).uniform(-0.15, 0.15, len(values))
        ax.scatter(x, values, s=9, alpha=0.6, color="C0" if m == "gaussian-lda" else "C1")
        if values:
            ax.hlines(np.mean(values), i - 0.3, i + 0.3, color="k")
    ax.set_xticks(
        range(len(groups)), [f"{name}\n{MODEL_NAMES[m]}" for name, m, _ in groups], fontsize="small"
    )
    ax.set_ylabel(f"PMI of a topic's top {TOP_N} words")
    ax.set_title(
        "Each dot a topic, bars the means (ours: all topics, all replicates)", fontsize="small"
    )
    fig.tight_layout()
    save_figure(fig, out, "pmi.png")

    paper_rows = []
    for m in MODELS:
        for label, words, pmi in PAPER_TOPICS[m]:
            paper_rows.append(
                [MODEL_NAMES[m], label, " ".join(words.split()[:8]) + " ...", f"{pmi:.4f}"]
            )
        paper_rows.append([MODEL_NAMES[m], "**mean**", "", f"{paper_mean(m):.4f}"])
    summary_rows = []
    for d in datasets:
        for m in MODELS:
            s = summary[(summary.dataset == d) & (summary.model == m)]
            summary_rows.append(
                [
                    d,
                    MODEL_NAMES[m],
                    len(s),
                    f"{s.pmi.mean():.3f}",
                    f"{s.pmi.min():.3f}-{s.pmi.max():.3f}",
                    f"{s.top9.mean():.3f}",
                    f"{s.npmi.mean():.3f}",
                    f"{s.share.mean():.0%}",
                ]
            )
    match_rows = []
    for d in datasets:
        for paper_model in MODELS:
            for label, words, _ in PAPER_TOPICS[paper_model]:
                row = [
                    d,
                    f"{MODEL_NAMES[paper_model]}: {label} ({' '.join(words.split()[:4])} ...)",
                ]
                for m in MODELS:
                    bs = found.get((d, m, paper_model, label), [])
                    key = "names" if label == "names" else "shared"
                    row.append(
                        f"{np.mean([b['found'] for b in bs]):.0%} ({max(b[key] for b in bs)})"
                        if bs
                        else "not run"
                    )
                match_rows.append(row)
    example_rows = []
    for d in datasets:
        for m in MODELS:
            t = table[(table.dataset == d) & (table.model == m) & (table.replicate == 0)]
            for r in t.sort_values("tokens", ascending=False).head(9).itertuples():
                example_rows.append(
                    [d, MODEL_NAMES[m], int(r.topic), f"{r.tokens:.0f}", r.words, f"{r.pmi:.3f}"]
                )
    md = [
        *what_was_run(__doc__, "The paper", "Substitution", "Our side"),
        "![PMI of every topic](pmi.png)",
        "",
        "## The paper's Table 1 (typed; first eight of the fifteen words)",
        "",
        markdown_table(["model", "topic", "top words", "PMI (Wikipedia)"], paper_rows),
        "",
        f"## Ours: PMI and NPMI of the top {TOP_N} words against the Wikipedia excerpt",
        "",
        "Means over all topics of a run, then over the runs (replicates); *nine best*: "
        "the mean of each run's nine topics of highest PMI, the analogue of the nine topics "
        "the paper chose to show.",
        "",
        markdown_table(
            [
                "dataset",
                "model",
                "runs",
                "mean PMI",
                "range over runs",
                "nine best",
                "NPMI",
                "pairs scored",
            ],
            summary_rows,
        ),
        "",
        "## The paper's topics in ours",
        "",
        f"Found: a topic of ours shares at least {MATCH_WORDS} of the paper topic's fifteen "
        f"words (for the names topic: at least {NAME_WORDS} of its fifteen words are proper "
        "nouns by the Brown corpus's tags). Each cell: the share of runs in which it is "
        "found, and in brackets the most shared words (proper nouns) of any topic of any run.",
        "",
        markdown_table(["dataset", "paper topic", *(MODEL_NAMES[m] for m in MODELS)], match_rows),
        "",
        "## Our nine largest topics of each model (replicate 0)",
        "",
        "Every topic of every run is in `table.csv`.",
        "",
        markdown_table(
            ["dataset", "model", "topic", "tokens", f"top {TOP_N} words", "PMI"], example_rows
        ),
        "",
    ]
    return finish_report(md, verdicts, results)
