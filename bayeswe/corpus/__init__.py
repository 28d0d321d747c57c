"""Corpora as data: vocabularies and document-term matrices shared by every model.

Also the text pipeline: :func:`tokenize` (documented rules), :func:`build_vocabulary`,
:func:`encode`, the :class:`Corpus` of tokenized documents with metadata, and
SGNS pair extraction (:func:`sgns_data`), and :func:`repeated_documents` to drop
repeated documents before a held-out split.
"""

from bayeswe.corpus.documents import Corpus
from bayeswe.corpus.duplicates import repeated_documents
from bayeswe.corpus.pairs import (
    holdout_split,
    keep_probabilities,
    negative_distribution,
    sgns_data,
    sgns_data_from_ids,
    subsample_tokens,
)
from bayeswe.corpus.tokenize import (
    ENGLISH_STOPWORDS,
    build_vocabulary,
    count_words,
    encode,
    read_lines,
    tokenize,
)
from bayeswe.corpus.types import BagOfWords, CorpusError, Vocabulary

__all__ = [
    "ENGLISH_STOPWORDS",
    "BagOfWords",
    "Corpus",
    "CorpusError",
    "Vocabulary",
    "build_vocabulary",
    "count_words",
    "encode",
    "holdout_split",
    "keep_probabilities",
    "negative_distribution",
    "read_lines",
    "repeated_documents",
    "sgns_data",
    "sgns_data_from_ids",
    "subsample_tokens",
    "tokenize",
]
