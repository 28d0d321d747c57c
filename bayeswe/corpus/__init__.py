"""Corpora as data: vocabularies and document-term matrices shared by every model.

Also the text pipeline: :func:`tokenize` (documented rules), :func:`build_vocabulary`,
:func:`encode`, the :class:`Corpus` of tokenized documents with metadata, and
SGNS pair extraction (:func:`sgns_data`).
"""

from bayeswe.corpus.documents import Corpus
from bayeswe.corpus.pairs import (
    holdout_split,
    keep_probabilities,
    negative_distribution,
    sgns_data,
    sgns_data_from_ids,
    subsample_tokens,
)
from bayeswe.corpus.tokenize import build_vocabulary, count_words, encode, tokenize
from bayeswe.corpus.types import BagOfWords, CorpusError, Vocabulary

__all__ = [
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
    "sgns_data",
    "sgns_data_from_ids",
    "subsample_tokens",
    "tokenize",
]
