"""Exceptions of the SGNS models (all are :class:`ValueError` subclasses of BayesweError)."""

from __future__ import annotations

from bayeswe.errors import BayesweError

__all__ = ["IdentificationError", "SGNSDataError"]


class SGNSDataError(BayesweError, ValueError):
    """An SGNS dataset is malformed: bad indices, counts, shapes or vocabulary."""


class IdentificationError(BayesweError, ValueError):
    """Fixed context vectors cannot identify the model.

    Raised when the fixed words are not ``K`` distinct vocabulary indices, or when
    the ``K x K`` matrix they form is singular (Proposition 1 of Yrjänäinen et al.
    needs it invertible) or not finite.
    """
