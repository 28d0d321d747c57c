"""Das, Zaheer & Dyer, Table 2: classifying held-out documents that contain unseen words.

**The paper.** 20 Newsgroups, 2,000 test documents (1,932 after pre-processing) whose
words were replaced by a synonym that never occurs in the corpus: PPDB (L) lexical
paraphrases (21,919 of 188,694 test tokens, 11.6 %) or the first unseen WordNet
synonym (38,687 tokens, 20.5 %). Each test document's topic proportions are
inferred with the training topics fixed (*G-LDA (fix)*: Gibbs sampling on the test
documents; Gaussian LDA scores an unseen word through its embedding) or by an online
Gaussian LDA over batches of 1, 100 or 1,932 documents, and serve as features of a
multi-class logistic regression (Weka) that predicts the newsgroup. Baseline: infvoc
(Zhai & Boyd-Graber 2013), an online LDA with an open vocabulary. Accuracy:

| model | PPDB | WordNet |
|---|---|---|
| infvoc | 28.00 % | 19.30 % |
| G-LDA (fix) | 44.51 % | 43.53 % |
| G-LDA (1) | 44.66 % | 43.47 % |
| G-LDA (100) | 43.63 % | 43.11 % |
| G-LDA (1932) | 44.72 % | 42.90 % |

"We outperform infvoc in all settings", and Gaussian LDA keeps its accuracy as the
share of unseen words grows (-1.0 point from PPDB to WordNet against -8.7 for infvoc).

**Substitution.** Neither the corpus, PPDB, WordNet nor infvoc is available offline.
Corpus: the Brown corpus (500 documents, 15 genres; the class is the genre), stop
words out, words with a GloVe 6B 50d vector; five folds of 100 test documents
(stratified by genre), so every document is classified once. *Unseen words*: in place
of replacing test words by unseen synonyms, word types are hidden from training:
types of the training vocabulary (words seen at least twice in the training
documents) that occur in the test documents are taken in a random order and deleted
from the training documents until the unseen share of the test tokens (with the words
that are unseen anyway) reaches the paper's 11.6 % (*PPDB* column) or 20.5 %
(*WordNet* column); the hidden sets are nested, and *none* hides nothing (only the
test words that are naturally new). Hidden words are real words in their real
documents, chosen without looking at their embeddings, so the test neither favours
nor handicaps Gaussian LDA beyond what the paper's synonyms did. Baseline in place of
infvoc: LDA, whose fixed vocabulary must drop the unseen words (the paper's point
about "traditional topic models"); it is not an open-vocabulary model, so its row is
a stand-in.

**Our side.** ``K = 50`` for both models, fitted on each fold's training documents.
Gaussian LDA: ``cgs``, k-means start, 100 sweeps, priors of
:func:`bayeswe.reproduce.das_common.glda_data`; features of every document (training
and test) by :func:`bayeswe.glda.inference.infer_theta` (topics fixed at the final
sweep; 100 Gibbs sweeps after 50; the test documents' unseen words scored through
their GloVe vectors). LDA: ``cgs``, ``alpha = 0.1``, ``beta = 0.01``, 500 sweeps;
features by fold-in Gibbs with ``phi`` of the final sweep fixed
(:func:`bayeswe.kernels.lda_cgs.fold_in`, the same sweeps), unseen words dropped.
*Online rows* (*G-LDA (b)*): the paper's online version, "following (Yao et al., 2009)
... we input the test documents in batches and do inference on those batches
independently also sampling for the topic parameter": ``infer_theta(...,
batch_size=b)``, where each batch's tokens are Gibbs-sampled with every topic's
normal-inverse-Wishart posterior updated by the batch's own tokens (the final sweep's
training posterior as the batch's prior), the same 100 sweeps after 50. Batches of 1,
of 5 (5 % of a fold's 100 test documents, as the paper's 100 is of its 1,932) and the
whole fold (as its 1,932), in the paper's two columns. Each online cell refits its
fold's and column's Gaussian LDA with the fix cell's seed, so the fit and the training
features are the fix cell's and the rows differ only in how the test documents are
inferred. Classifier: scikit-learn's multinomial logistic regression (L2, ``C = 1``) on the
standardised topic proportions, trained on the training documents' features. Accuracy
is pooled over the five folds (500 predictions; its binomial standard error beside
it).

**Cost.** 350 to 470 CPU-minutes on one worker (measured on two 2-core x86-64
machines): a Gaussian LDA cell takes 12.5 (10.5 to fit 377k training tokens at 6.3 CPU
seconds a sweep, 2 to infer the features), an LDA cell half a minute, an online cell
16 to 28 (the same fit and features, then one inference per batch size: the full
run's online cells took 16 to 17 on one machine and 26 to 28 on the other, where the
other figures here were measured); with ``--workers 2`` three to four hours.
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
    done_frame,
    finish_report,
    markdown_table,
    not_run,
    pyplot,
    save_figure,
    verdict,
    what_was_run,
    write_table,
)

TITLE = "classifying held-out documents that contain unseen words"
PAPER = _PAPER
SOURCE = "section 5.2, Table 2"

K = 50
FOLDS = 5
MODELS = ("gaussian-lda", "lda")
#: The online version's cells: the same fit as the "gaussian-lda" cell (its seed), then
#: the test documents in batches (``infer_theta(..., batch_size=b)``).
ONLINE = "gaussian-lda-online"
#: Batch sizes of the online rows: the paper's 1, 100 and 1,932 (all) of its 1,932 test
#: documents; ours are 1, 5 (5 %, as 100 is of 1,932) and all of a fold's test documents.
ONLINE_BATCHES: tuple[int | str, ...] = (1, 5, "all")
#: Columns of the online rows: the paper's two (it has no column without unseen words).
ONLINE_LEVELS = ("PPDB", "WordNet")
#: Our table's model of each batch size, and the paper's row it stands beside.
ONLINE_MODELS = {str(b): f"{ONLINE}-{b}" for b in ONLINE_BATCHES}
PAPER_ONLINE_ROW = {"1": "G-LDA (1)", "5": "G-LDA (100)", "all": "G-LDA (1932)"}
MODEL_NAMES = {
    "gaussian-lda": "G-LDA (fix)",
    "lda": "LDA (fold-in; stand-in for infvoc)",
    ONLINE_MODELS["1"]: "G-LDA online, batches of 1",
    ONLINE_MODELS["5"]: "G-LDA online, batches of 5",
    ONLINE_MODELS["all"]: "G-LDA online, the whole test fold",
}
#: Our model beside each of the paper's rows.
OURS_OF_PAPER_ROW = {"infvoc": "lda", "G-LDA (fix)": "gaussian-lda",
                     **{row: ONLINE_MODELS[b] for b, row in PAPER_ONLINE_ROW.items()}}  # fmt: skip
#: Unseen share of the test tokens of each column (the paper's replaced shares).
LEVELS: dict[str, float] = {"none": 0.0, "PPDB": 21_919 / 188_694, "WordNet": 38_687 / 188_694}
#: Table 2, typed: model -> (PPDB, WordNet) accuracy in percent.
PAPER_TABLE: dict[str, tuple[float, float]] = {
    "infvoc": (28.00, 19.30),
    "G-LDA (fix)": (44.51, 43.53),
    "G-LDA (1)": (44.66, 43.47),
    "G-LDA (100)": (43.63, 43.11),
    "G-LDA (1932)": (44.72, 42.90),
}
SWEEPS = {"gaussian-lda": 100, "lda": 500}
INFER_SWEEPS, INFER_BURN_IN = 100, 50
#: Quick grid: 40 documents in two folds, only the first tested, two columns.
QUICK_LEVELS = ("PPDB", "WordNet")
QUICK = {
    "K": 5,
    "n_folds": 2,
    "docs": 40,
    "sweeps": {"gaussian-lda": 5, "lda": 20},
    "infer_sweeps": 4,
    "infer_burn_in": 2,
}
DATA_SEED = 2015  # folds and hidden words: the same for every model and cell


def cells(quick: bool) -> list[Cell]:
    """fold x column x model; quick: 40 documents, one fold, two columns, K = 5."""
    if quick:
        q = QUICK
        common = {
            "K": q["K"],
            "docs": q["docs"],
            "n_folds": q["n_folds"],
            "infer_sweeps": q["infer_sweeps"],
            "infer_burn_in": q["infer_burn_in"],
        }
        tested, sweeps, levels = range(1), q["sweeps"], QUICK_LEVELS
    else:
        common = {
            "K": K,
            "docs": 0,
            "n_folds": FOLDS,
            "infer_sweeps": INFER_SWEEPS,
            "infer_burn_in": INFER_BURN_IN,
        }
        tested, sweeps, levels = range(FOLDS), SWEEPS, tuple(LEVELS)
    out = [
        Cell("003-table2", {"fold": f, "level": level, "model": m, "sweeps": sweeps[m], **common})
        for f in tested
        for level in levels
        for m in MODELS
    ]
    fits = {(c.params["fold"], c.params["level"]): c.params for c in out
            if c.params["model"] == "gaussian-lda"}  # fmt: skip
    return out + [
        Cell(
            "003-table2",
            {**fits[(f, level)], "model": ONLINE, "batches": list(ONLINE_BATCHES)},
            seed_params=fits[(f, level)],
        )  # fmt: skip
        for f in tested
        for level in levels
        if level in ONLINE_LEVELS
    ]


# --------------------------------------------------------------------------- data


@functools.lru_cache(maxsize=2)
def brown_documents(docs: int = 0) -> tuple[list[list[str]], np.ndarray, list[str]]:
    """Brown's documents without stop words and words lacking a GloVe vector; genres.

    ``docs > 0``: that many documents drawn at random (for the quick grid). Returns
    ``(documents, genre label per document, genres)``; cached (a worker runs many
    cells): do not modify them.
    """
    from bayeswe.corpus import ENGLISH_STOPWORDS
    from bayeswe.datasets import load_brown
    from bayeswe.glda import glove_words

    brown = load_brown()
    glove = frozenset(glove_words())
    genres = sorted(brown.metadata.genre.unique())
    labels = brown.metadata.genre.map({g: i for i, g in enumerate(genres)}).to_numpy()
    keep = np.arange(brown.n_docs)
    if docs:
        rng = np.random.default_rng(DATA_SEED)
        keep = np.sort(rng.permutation(brown.n_docs)[:docs])
    documents = [
        [w for w in brown.documents[i] if w not in ENGLISH_STOPWORDS and w in glove] for i in keep
    ]
    return documents, labels[keep], genres


def folds(labels: np.ndarray, n_folds: int) -> np.ndarray:
    """Fold of each document: stratified by label, shuffled by :data:`DATA_SEED`."""
    rng = np.random.default_rng(DATA_SEED)
    fold = np.empty(labels.size, dtype=np.int64)
    offset = 0
    for label in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == label))
        fold[idx] = (offset + np.arange(idx.size)) % n_folds
        offset += idx.size
    return fold


def hidden_words(
    train_vocab: list[str], test_docs: list[list[str]], share: float, fold: int
) -> tuple[set[str], float, float]:
    """Training words to hide so that ``share`` of the test tokens are unseen.

    Types of ``train_vocab`` that occur in the test documents, in a random order (by
    :data:`DATA_SEED` and ``fold`` only, so the sets of the columns are nested), are
    hidden until the unseen share (with the test words outside ``train_vocab``)
    reaches ``share``. Returns ``(hidden, natural share, reached share)``.
    """
    counts = pd.Series([w for d in test_docs for w in d]).value_counts()
    total = float(counts.sum())
    known = set(train_vocab)
    natural = float(counts[[w not in known for w in counts.index]].sum()) / total
    candidates = sorted(w for w in counts.index if w in known)
    order = np.random.default_rng([DATA_SEED, fold]).permutation(len(candidates))
    reached, hidden = natural, set()
    for i in order:
        if reached >= share:
            break
        w = candidates[i]
        hidden.add(w)
        reached += counts[w] / total
    return hidden, natural, reached


def _thetas_lda(
    idata: Any, bow: Any, alpha: np.ndarray, iter_sampling: int, iter_warmup: int, seed: int
) -> np.ndarray:
    """Fold-in ``theta`` of ``bow``'s documents under the last draw of ``phi``.

    The reproduction's fold-in runs ``iter_sampling`` sweeps in all for LDA, the first
    ``iter_warmup`` of them not averaged (Gaussian LDA's ``infer_theta`` runs
    ``iter_sampling`` after its warm-up): the lengths its committed cells were run with.
    """
    from bayeswe.kernels import lda_cgs as kern

    phi = idata.posterior["phi"].values[0, -1]
    _, word = bow.tokens()
    ptr = np.concatenate([[0], np.cumsum(bow.doc_lengths)]).astype(np.int64)
    state = np.random.SeedSequence(seed).generate_state(4, np.uint64)
    return kern.fold_in(
        ptr,
        np.ascontiguousarray(word, np.int32),
        np.ascontiguousarray(phi.T),
        alpha,
        iter_warmup,
        iter_sampling - iter_warmup,
        state,
    )


def run_cell(params: dict[str, Any], seed: int) -> dict[str, Any]:
    """Fit one model on a fold's training documents, classify its test documents."""
    import warnings

    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    import bayeswe
    from bayeswe.corpus import BagOfWords, Corpus, build_vocabulary
    from bayeswe.glda import load_glove

    documents, labels, genres = brown_documents(params["docs"])
    fold = folds(labels, int(params["n_folds"]))
    test_mask = fold == params["fold"]
    train_docs = [d for d, t in zip(documents, test_mask, strict=True) if not t]
    test_docs = [d for d, t in zip(documents, test_mask, strict=True) if t]
    vocab = build_vocabulary(train_docs, min_count=2)
    hidden, natural, reached = hidden_words(
        list(vocab.words), test_docs, LEVELS[params["level"]], params["fold"]
    )
    seen = build_vocabulary([[w for w in d if w not in hidden] for d in train_docs], min_count=2)

    def bag(docs: list[list[str]], vocabulary: Any) -> BagOfWords:
        meta = pd.DataFrame({"i": np.arange(len(docs))})
        corpus = Corpus("brown", tuple(map(tuple, docs)), tuple(map(str, range(len(docs)))), meta)
        return corpus.bag_of_words(vocabulary)

    train = bag(train_docs, seen)
    n_topics, sweeps = int(params["K"]), int(params["sweeps"])
    infer = {
        "iter_sampling": int(params["infer_sweeps"]),
        "iter_warmup": int(params["infer_burn_in"]),
    }
    started = time.process_time()
    online: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # one kept draw (ArviZ's shape warning)
        if params["model"] in ("gaussian-lda", ONLINE):
            from bayeswe.glda.inference import infer_theta
            from bayeswe.reproduce.das_common import glda_data

            emb = load_glove(seen)
            idata = bayeswe.fit(
                "gaussian_lda",
                glda_data(train, emb, n_topics),
                method="cgs",
                seed=seed,
                chains=1,
                iter_warmup=sweeps - 1,
                iter_sampling=1,
                init="kmeans",
            )
            fit_s = time.process_time() - started
            # the test documents keep every word: an unseen one is scored by its vector
            test_vocab = build_vocabulary(test_docs)
            test = bag(test_docs, test_vocab)
            x_train = infer_theta(idata, train, emb, seed=seed + 1, **infer).values
            test_emb = load_glove(test_vocab)
            x_test = infer_theta(idata, test, test_emb, seed=seed + 2, **infer).values
            used_tokens = test.n_tokens
            for b in params.get("batches", []):
                began = time.process_time()
                size = test.n_docs if b == "all" else int(b)
                x = infer_theta(idata, test, test_emb, seed=seed + 3, batch_size=size, **infer)
                online[str(b)] = {"batch_size": size, "infer_cpu_s": time.process_time() - began,
                                  "x_test": x.values}  # fmt: skip
        else:
            from bayeswe.lda import LDAData

            data = LDAData(train, n_topics=n_topics)
            idata = bayeswe.fit(
                "lda",
                data,
                method="cgs",
                seed=seed,
                chains=1,
                iter_warmup=sweeps - 1,
                iter_sampling=1,
                thin=1,
            )
            fit_s = time.process_time() - started
            test = bag(test_docs, seen)  # unseen words dropped: LDA has no use for them
            alpha = data.alpha_vector()
            x_train = _thetas_lda(idata, train, alpha, seed=seed + 1, **infer)
            x_test = _thetas_lda(idata, test, alpha, seed=seed + 2, **infer)
            used_tokens = test.n_tokens
    scaler = StandardScaler().fit(x_train)
    clf = LogisticRegression(C=1.0, max_iter=5000)
    clf.fit(scaler.transform(x_train), labels[~test_mask])
    truth = labels[test_mask]

    def classified(x: np.ndarray) -> dict[str, Any]:
        predicted = clf.predict(scaler.transform(x))
        return {
            "accuracy": float(np.mean(predicted == truth)),
            "correct": int(np.sum(predicted == truth)),
            "n_test": int(truth.size),
            "predicted": [genres[i] for i in predicted],
        }

    for b, row in online.items():
        online[b] = {**classified(row.pop("x_test")), **row}
    return {
        # an online cell's own accuracy is G-LDA (fix)'s, which the fix cell reports
        **classified(x_test),
        **({"online": online} if online else {}),
        "n_train": len(train_docs),
        "truth": [genres[i] for i in truth],
        "hidden_types": len(hidden),
        "unseen_share_natural": natural,
        "unseen_share": reached,
        "hidden_share_of_training": sum(w in hidden for d in train_docs for w in d)
        / sum(map(len, train_docs)),
        "test_tokens": int(sum(map(len, test_docs))),
        "test_tokens_used": int(used_tokens),
        "V_train": int(train.n_words),
        "train_tokens": int(train.n_tokens),
        "fit_cpu_s": fit_s,
        "cpu_s": time.process_time() - started,
    }


# --------------------------------------------------------------------------- report


_COLUMNS = [
    "fold",
    "level",
    "model",
    "accuracy",
    "correct",
    "n_test",
    "unseen_share",
    "unseen_share_natural",
    "hidden_types",
    "hidden_share_of_training",
    "test_tokens",
    "test_tokens_used",
    "V_train",
    "train_tokens",
    "fit_cpu_s",
    "batch_size",
    "infer_cpu_s",
]


def cell_table(results: list[CellResult]) -> pd.DataFrame:
    """One row per finished cell, an online cell's one row per batch size (its model
    :data:`ONLINE_MODELS`); the online cell's own G-LDA (fix) accuracy is left out, as
    the fix cell of the same fit reports it."""
    table = done_frame([r for r in results if r.cell.params["model"] != ONLINE], _COLUMNS)
    rows = [
        {**r.cell.params, **r.result, **row, "model": ONLINE_MODELS[b]}
        for r in results
        if r.status == "done" and r.cell.params["model"] == ONLINE
        for b, row in r.result["online"].items()
    ]
    if not rows:
        return table
    online = pd.DataFrame(rows, columns=_COLUMNS)
    return online if table.empty else pd.concat([table, online], ignore_index=True)


def pooled(table: pd.DataFrame) -> pd.DataFrame:
    """Accuracy pooled over folds per (level, model), its binomial SE, folds and shares."""
    g = table.groupby(["level", "model"])
    out = g.agg(
        correct=("correct", "sum"),
        n=("n_test", "sum"),
        folds=("fold", "nunique"),
        unseen=("unseen_share", "mean"),
        natural=("unseen_share_natural", "mean"),
        hidden_train=("hidden_share_of_training", "mean"),
    )
    out["accuracy"] = out.correct / out.n
    out["se"] = np.sqrt(out.accuracy * (1 - out.accuracy) / out.n)
    return out.reset_index()


def _cell(acc: pd.DataFrame, level: str, model: str) -> str:
    row = acc[(acc.level == level) & (acc.model == model)]
    if row.empty:
        return "not run"
    r = row.iloc[0]
    folds = int(r.folds)
    return f"{100 * r.accuracy:.2f} % ± {100 * r.se:.1f} ({folds} fold{'s' * (folds != 1)})"


def _ahead(table: pd.DataFrame, level: str, j: int, name: str, model: str) -> dict:
    """``name`` (our ``model``) ahead of the baseline in ``level``'s column, both pooled
    over the folds both ran (all of them in a full run; a partial one says how many)."""
    p_g, p_i = PAPER_TABLE[name][j], PAPER_TABLE["infvoc"][j]
    claim = (
        f"{level} column ({100 * LEVELS[level]:.1f} % of test tokens unseen): "
        f"{name} ahead of the baseline (paper {p_g:.2f} % vs infvoc "
        f"{p_i:.2f} %)"
    )
    column = table[table.level == level]
    folds = set(column[column.model == model].fold) & set(column[column.model == "lda"].fold)
    if not folds:
        return not_run(claim, "a model not run")
    have = {(r.level, r.model): r for r in pooled(column[column.fold.isin(folds)]).itertuples()}
    g, lda = have[(level, model)], have[(level, "lda")]
    diff, se = g.accuracy - lda.accuracy, float(np.hypot(g.se, lda.se))
    ours = name if model == "gaussian-lda" else MODEL_NAMES[model]
    measured = (
        f"{ours} {100 * g.accuracy:.2f} %, LDA {100 * lda.accuracy:.2f} "
        f"%: {100 * diff:+.2f} points (± {100 * se:.1f}, independent-SE "
        f"approximation); unseen share reached {100 * g.unseen:.1f} %"
    )
    if len(folds) < column[column.model == "lda"].fold.nunique():
        measured += f" (on the {len(folds)} fold{'s' * (len(folds) != 1)} both ran)"
    fix = have.get((level, "gaussian-lda"))
    if model != "gaussian-lda" and fix is not None:
        # the same documents and the same fit: how much the online updates changed
        measured += f"; G-LDA (fix) {100 * fix.accuracy:.2f} % on the same fits"
    nothing_hidden = {
        (r.level, r.model): r for r in pooled(table[table.level == "none"]).itertuples()
    }
    if diff <= 0 and ("none", model) in nothing_hidden and ("none", "lda") in nothing_hidden:
        # the same comparison before any word is hidden: is the gap the unseen words'?
        before = nothing_hidden[("none", model)].accuracy - nothing_hidden[("none", "lda")].accuracy
        measured += f"; with no word hidden the difference is {100 * before:+.2f} points"
        if before <= 0:
            measured += (
                f", so {name} is behind before any word is hidden: the gap is in "
                "the topic features on this corpus, not in the unseen words"
            )
    return verdict(claim, bool(diff > 0), measured)


def _verdicts(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The report's verdicts from :func:`cell_table`'s rows."""
    out = []
    acc = pooled(table)
    have = {(r.level, r.model): r for r in acc.itertuples()}
    for j, level in enumerate(("PPDB", "WordNet")):
        out.append(_ahead(table, level, j, "G-LDA (fix)", "gaussian-lda"))
    claim = (
        "G-LDA (fix) loses less accuracy than the baseline from the PPDB to the WordNet "
        "column (paper: -0.98 vs -8.70 points)"
    )
    keys = [(lv, m) for lv in ("PPDB", "WordNet") for m in MODELS]
    if all(k in have for k in keys):
        drop = {m: have[("WordNet", m)].accuracy - have[("PPDB", m)].accuracy for m in MODELS}
        # each drop's standard error as if its two accuracies were independent (they share
        # the test documents, so this overstates it)
        se = {m: float(np.hypot(have[("WordNet", m)].se, have[("PPDB", m)].se)) for m in MODELS}
        out.append(
            verdict(
                claim,
                bool(drop["gaussian-lda"] > drop["lda"]),
                f"G-LDA (fix) {100 * drop['gaussian-lda']:+.2f} (± "
                f"{100 * se['gaussian-lda']:.1f}), LDA {100 * drop['lda']:+.2f} (± "
                f"{100 * se['lda']:.1f}) points, independent-SE approximation",
            )
        )
    else:
        out.append(not_run(claim, "a column not run"))
    # "We outperform infvoc in all settings": the online rows too
    for b, name in PAPER_ONLINE_ROW.items():
        for j, level in enumerate(("PPDB", "WordNet")):
            out.append(_ahead(table, level, j, name, ONLINE_MODELS[b]))
    return out


def report(results: list[CellResult], out: Path, *, quick: bool) -> dict[str, Any]:
    """``table.csv`` (one row per cell), ``accuracy.png`` and Table 2 beside ours."""
    plt = pyplot()
    table = cell_table(results)
    write_table(out, table)
    acc = (
        pooled(table)
        if len(table)
        else pd.DataFrame(columns=["level", "model", "accuracy", "se", "folds", "unseen"])
    )
    verdicts = _verdicts(table)

    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    x = np.arange(len(LEVELS))
    plotted = (*MODELS, *ONLINE_MODELS.values())
    width = 0.8 / len(plotted)
    offset = {m: (j - (len(plotted) - 1) / 2) * width for j, m in enumerate(plotted)}
    for j, m in enumerate(plotted):
        ys = [acc[(acc.level == lv) & (acc.model == m)].accuracy.mean() * 100 for lv in LEVELS]
        es = [acc[(acc.level == lv) & (acc.model == m)].se.mean() * 100 for lv in LEVELS]
        ax.bar(x + offset[m], ys, width, yerr=es, color=f"C{j}", label=f"ours: {MODEL_NAMES[m]}")
    for j, name in enumerate(("G-LDA (fix)", "infvoc", *PAPER_ONLINE_ROW.values())):
        ax.scatter(
            x[1:] + offset[OURS_OF_PAPER_ROW[name]],
            PAPER_TABLE[name],
            marker="x",
            color="k",
            zorder=3,
            label="paper (20 Newsgroups)" if j == 0 else None,
        )
    ax.set_xticks(x, [f"{lv}\n{100 * s:.1f} % unseen" for lv, s in LEVELS.items()])
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 72)  # room above the bars for the legend
    ax.legend(fontsize="x-small", ncol=3, loc="upper center")
    fig.tight_layout()
    save_figure(fig, out, "accuracy.png")

    rows = []
    for name, (ppdb, wordnet) in PAPER_TABLE.items():
        rows.append([name, "paper", "–", f"{ppdb:.2f} %", f"{wordnet:.2f} %"])
        ours = OURS_OF_PAPER_ROW[name]
        cells_ = [
            "–" if ours.startswith(ONLINE) and lv not in ONLINE_LEVELS else _cell(acc, lv, ours)
            for lv in LEVELS
        ]
        rows.append([MODEL_NAMES[ours], "ours", *cells_])
    # the shares are the fold's and column's, the same for every model: one row per
    # fix and LDA cell (an online cell's three rows would weight its folds thrice)
    fits = table[table.model.isin(MODELS)]
    share_rows = [
        [
            lv,
            f"{100 * target:.1f} %",
            f"{100 * fits[fits.level == lv].unseen_share_natural.mean():.1f} %",
            f"{100 * fits[fits.level == lv].unseen_share.mean():.1f} %",
            f"{fits[fits.level == lv].hidden_types.mean():.0f}",
            f"{100 * fits[fits.level == lv].hidden_share_of_training.mean():.1f} %",
        ]
        for lv, target in LEVELS.items()
        if (fits.level == lv).any()
    ]
    md = [
        *what_was_run(__doc__, "The paper", "Substitution", "Our side"),
        "![Accuracy by column](accuracy.png)",
        "",
        "## Accuracy: the paper's Table 2 and ours",
        "",
        "Ours: pooled over the folds ± binomial standard error. Classes: 15 Brown genres "
        "(the paper: 20 newsgroups), so the chance levels differ (ours: the largest genre "
        "is 16 % of the documents).",
        "",
        markdown_table(["model", "source", "none", "PPDB", "WordNet"], rows),
        "",
        "## Unseen words",
        "",
        markdown_table(
            [
                "column",
                "target share of test tokens",
                "natural (no hiding)",
                "reached",
                "hidden types",
                "training tokens hidden",
            ],
            share_rows,
        ),
        "",
    ]
    return finish_report(md, verdicts, results)
