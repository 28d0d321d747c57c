"""Documents that repeat an earlier one (re-issued news stories, copied posts).

A held-out split that puts one copy of a story in training and another in the test set
rewards a model for memorizing documents; dropping the repeats first keeps the score
about topics.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayeswe.corpus.types import BagOfWords, CorpusError

__all__ = ["repeated_documents"]

#: Rows of the similarity matrix formed at a time (bounds the memory to this many rows).
_BLOCK = 1024


def repeated_documents(bow: BagOfWords, min_cosine: float = 0.95) -> np.ndarray:
    """Which documents repeat an earlier one: a boolean mask over ``bow``'s documents.

    Document ``d`` repeats an earlier one when some document ``e < d`` has word counts
    whose cosine similarity to ``d``'s is at least ``min_cosine`` (1 keeps only exact
    repeats of the counts up to scale). The first copy is never marked, so
    ``bow.subset(~mask)`` keeps one document of each group. Empty documents have no
    direction and are never marked. The similarities are formed ``1024`` rows at a time.

    Raises :class:`~bayeswe.corpus.CorpusError` if ``min_cosine`` is not in ``(0, 1]``.
    """
    if (
        isinstance(min_cosine, bool)
        or not isinstance(min_cosine, int | float)
        or not 0.0 < float(min_cosine) <= 1.0
    ):
        raise CorpusError(f"min_cosine must be in (0, 1], got {min_cosine!r}")
    n = bow.n_docs
    counts = sp.csr_matrix(
        (bow.counts.astype(np.float64), (bow.doc_index(), bow.word_ids)), shape=(n, bow.n_words)
    )
    norm = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1)).ravel())
    unit = sp.diags(np.divide(1.0, norm, out=np.zeros(n), where=norm > 0)) @ counts
    unit_t = unit.T.tocsc()
    # a rounding margin, so that exact repeats (cosine 1) are found at min_cosine = 1
    threshold = float(min_cosine) - 1e-9
    repeated = np.zeros(n, dtype=bool)
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        cosine = (unit[start:stop] @ unit_t).toarray()
        earlier = np.arange(n)[None, :] < np.arange(start, stop)[:, None]
        repeated[start:stop] = ((cosine >= threshold) & earlier).any(axis=1)
    return repeated
