"""Corpora, priors and the Wikipedia reference shared by the Das et al. (003) targets.

* :func:`newsgroups_corpus`, :func:`nyt_corpus`: the offline stand-ins for the
  paper's 20 Newsgroups, as bags of words over the words that have a GloVe 6B 50d
  vector, with those vectors (the paper's vectors were its own word2vec on Wikipedia;
  GloVe 6B was trained on Wikipedia 2014 and Gigaword 5).
* :func:`glda_data`: Gaussian LDA data with the priors of ``bayeswe bench
  gaussian-lda`` (:func:`bayeswe.bench.gaussian_lda.with_topics`: ``alpha = 0.1``,
  ``nu = D + 2``, ``Psi`` such that the prior mean of ``Sigma_k`` is the covariance
  of the corpus' token vectors; the paper's ``Psi = 3 I`` suits its own vectors, not
  GloVe's scale).
* :func:`wikipedia_reference`: the Wikipedia articles of gensim's test data, the
  reference corpus of the PMI coherence (the paper used all of Wikipedia).
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np

from bayeswe.corpus import ENGLISH_STOPWORDS, BagOfWords, Vocabulary, build_vocabulary
from bayeswe.datasets import DatasetUnavailableError

__all__ = [
    "PAPER",
    "WIKI_FILE",
    "glda_data",
    "newsgroups_corpus",
    "nyt_corpus",
    "wikipedia_articles",
    "wikipedia_reference",
]

PAPER = "Das, Zaheer, Dyer, Gaussian LDA for Topic Models with Word Embeddings (ACL 2015)"

#: gensim 4.4.0 test data: the first 106 articles of an English Wikipedia dump
#: (Anarchism ... Algorithm; 100 more pages are redirects), 466,736 tokens.
WIKI_FILE = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"


@functools.lru_cache(maxsize=2)
def newsgroups_corpus(min_count: int = 2) -> tuple[BagOfWords, np.ndarray]:
    """Mini 20 Newsgroups (200 posts, alt.atheism and sci.space) and its GloVe vectors.

    :func:`bayeswe.datasets.load_newsgroups`, without
    :data:`bayeswe.corpus.ENGLISH_STOPWORDS`, words seen at least ``min_count`` times
    and having a GloVe vector (27,765 tokens, V = 4,013 at ``min_count = 2``).
    """
    from bayeswe.datasets import load_newsgroups
    from bayeswe.glda import load_glove, restrict_to_glove

    posts = load_newsgroups()
    vocab = build_vocabulary(posts.documents, min_count=min_count, exclude=ENGLISH_STOPWORDS)
    bow = posts.bag_of_words(vocab)
    corpus = restrict_to_glove(bow.subset(np.flatnonzero(bow.doc_lengths > 0)))
    return corpus, load_glove(corpus.vocabulary)


@functools.lru_cache(maxsize=1)
def nyt_corpus() -> tuple[BagOfWords, np.ndarray]:
    """The New York Times bag of words (8,447 articles, V = 3,012, 1.22M tokens), GloVe vectors.

    Its vocabulary is already lemmatised and without stop words, and every word has a
    GloVe vector. Cached: do not modify the vectors.
    """
    from bayeswe.datasets import load_nyt
    from bayeswe.glda import load_glove, restrict_to_glove

    corpus = restrict_to_glove(load_nyt())
    return corpus, load_glove(corpus.vocabulary)


def glda_data(corpus: BagOfWords, embeddings: np.ndarray, K: int):  # noqa: ANN201
    """:class:`~bayeswe.glda.GaussianLDAData` with ``K`` topics and the module's priors."""
    from bayeswe.bench.gaussian_lda import with_topics
    from bayeswe.glda import GaussianLDAData

    return with_topics(GaussianLDAData(corpus, embeddings, n_topics=2), K)


def _wiki_path() -> Path:
    spec = importlib.util.find_spec("gensim")
    if spec is None or spec.origin is None:
        raise DatasetUnavailableError(
            "the Wikipedia reference corpus is gensim's test data: pip install gensim==4.4.0 "
            '(the "eval" extra)'
        )
    path = Path(spec.origin).parent / "test" / "test_data" / WIKI_FILE
    if not path.is_file():
        raise DatasetUnavailableError(f"{path} is missing (gensim's test data stripped?)")
    return path


@functools.lru_cache(maxsize=1)
def wikipedia_articles() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(title, tokens)`` of each Wikipedia article of :data:`WIKI_FILE` (redirects left out).

    Wiki markup is removed by gensim's ``filter_wiki``, then the text goes through
    :func:`bayeswe.corpus.tokenize` like every corpus of bayeswe. Takes about 10 s.
    """
    import bz2

    from gensim.corpora.wikicorpus import extract_pages, filter_wiki

    from bayeswe.corpus import tokenize

    out = []
    with bz2.BZ2File(_wiki_path()) as handle:
        for title, text, _ in extract_pages(handle):
            if text.lstrip().lower().startswith("#redirect"):
                continue
            out.append((str(title), tuple(tokenize(filter_wiki(text)))))
    return tuple(out)


def wikipedia_reference(words: list[str] | tuple[str, ...]) -> BagOfWords:
    """The Wikipedia articles as a bag of ``words`` (one document per article).

    Only ``words`` are counted (the vocabulary is ``words`` in the given order), so
    document frequencies and co-occurrences of topic words come from
    ``reference.doc_index()`` / ``word_ids``; articles with none of them stay, empty.
    """
    vocab = Vocabulary(tuple(words))
    index = {w: i for i, w in enumerate(vocab.words)}
    docs = [
        np.asarray([index[t] for t in tokens if t in index], dtype=np.int64)
        for _, tokens in wikipedia_articles()
    ]
    return BagOfWords.from_token_ids(docs, vocab)
