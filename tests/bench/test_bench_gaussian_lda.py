"""The quick Gaussian LDA benchmark runs and prints the summary the issue names."""

from __future__ import annotations

import numpy as np
import pytest
from bench_checks import check_result

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_bench_json(run_bench) -> None:
    out = run_bench("gaussian-lda", "--quick")
    summary = check_result(out, "gaussian-lda")
    assert summary["cholesky_tokens_per_s_d50_k20"] > 0
    assert summary["alias_speedup_vs_cholesky_k100"] is None  # --quick runs K = 20 only
    assert summary["headline_corpus"] == "synthetic"
    assert summary["cholesky_vs_java_quoted"] == summary["cholesky_tokens_per_s_d50_k20"] / 19_000
    (setting,) = out["settings"]
    assert setting["D"] == 50 and setting["K"] == 20
    for sampler in (
        "naive",
        "cholesky",
        "cholesky_solve",
        "alias",
        "alias_document",
        "alias_fresh_doc",
    ):
        timed = setting[sampler]
        assert timed["sec_per_iter"] > 0
        if sampler != "naive":  # the median of the timed sweeps, their spread beside it
            assert len(timed["sweep_cpu_s"]) == setting["timed_sweeps"]
            assert timed["sec_per_iter"] == float(np.median(timed["sweep_cpu_s"]))
            assert timed["sec_per_iter_min"] <= timed["sec_per_iter"] <= timed["sec_per_iter_max"]
    # the first (untimed) sweep builds the table of every word type with tokens
    assert setting["alias_document"]["tables_built"] == setting["alias"]["tables_built"] > 0
    assert summary["alias_document_speedup_vs_cholesky_k100"] is None
    assert setting["naive"]["extrapolated"] is True
    assert setting["speedup_precision_vs_solve"] > 0


def test_lee_corpus_uses_the_package_pipeline() -> None:
    """The benchmark's real corpus: load_lee, no stop words, every word with a GloVe vector."""
    from bayeswe.bench.gaussian_lda import NEWS_STOPWORDS, lee_corpus
    from bayeswe.corpus import ENGLISH_STOPWORDS

    corpus, vectors = lee_corpus()
    words = set(corpus.vocabulary.words)
    assert corpus.n_docs == 300 and (corpus.doc_lengths > 0).all()
    assert not words & (ENGLISH_STOPWORDS | NEWS_STOPWORDS)
    assert vectors.shape == (len(corpus.vocabulary), 50) and np.isfinite(vectors).all()
    counts = np.bincount(corpus.tokens()[1], minlength=len(words))
    assert counts.min() >= 2  # min_count=2, before restriction to GloVe words
