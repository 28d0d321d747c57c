"""Shared helpers for the evaluation tests."""

from __future__ import annotations

import importlib.util

import pytest


def installed(package: str) -> bool:
    # find_spec, not import: probabilistic_word_embeddings would import TensorFlow.
    return importlib.util.find_spec(package) is not None


needs_gensim = pytest.mark.skipif(
    not installed("gensim"), reason="optional benchmark package absent: pip install gensim==4.4.0"
)
needs_pwe = pytest.mark.skipif(
    not installed("probabilistic_word_embeddings"),
    reason="optional benchmark package absent: "
    "pip install --no-deps probabilistic-word-embeddings==1.18.2",
)
