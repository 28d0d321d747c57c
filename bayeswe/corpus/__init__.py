"""Corpora as data: vocabularies and document-term matrices shared by every model."""

from bayeswe.corpus.types import BagOfWords, CorpusError, Vocabulary

__all__ = ["BagOfWords", "CorpusError", "Vocabulary"]
