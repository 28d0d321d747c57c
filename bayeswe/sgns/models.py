"""Declarations of the SGNS Stan programs (fitting helpers: :mod:`bayeswe.sgns.fitting`).

``sgns`` (``models/sgns.stan``) is the probabilistic SGNS of section 1.1:
aggregated likelihood eq. (5), spherical Gaussian prior eq. (6) with ``lambda``
the prior standard deviation. ``sgns_identified`` (``models/sgns_identified.stan``)
fixes ``K`` context vectors (section 2). Both output ``rho`` and ``alpha`` as
``matrix[V, K]`` with dims ``("word", "dim")`` and the vocabulary as ``word``
coords; ``sgns_identified`` also outputs its parameter ``alpha_free`` with dims
``("free_word", "dim")``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayeswe.model_spec import MODELS_DIR, DataField, StanModelSpec, register_model
from bayeswe.options import magnitude_problem

__all__ = ["SGNS", "SGNS_IDENTIFIED"]

_PAIR_FIELDS = (
    DataField("V", "int"),
    DataField("K", "int"),
    DataField("P", "int"),
    DataField("target_word", "int", ("P",), dims=("pair",)),
    DataField("context_word", "int", ("P",), dims=("pair",)),
    DataField("n", "int", ("P",), dims=("pair",), observed=True),
    DataField("n_pos", "int", ("P",), dims=("pair",), observed=True),
    DataField("lambda", "real"),
    DataField("grainsize", "int"),
)


def _check_pairs(fields: Mapping[str, Any]) -> str | None:
    """Refuse data that would make every method return the prior, or overflow."""
    if int(fields["P"]) == 0:
        return "the data hold no (target, context) pairs (P = 0): nothing to fit"
    lam = float(fields["lambda"])
    if not (np.isfinite(lam) and lam > 0):
        return f"lambda (the prior sd) must be positive and finite, got {lam}"
    return magnitude_problem("lambda (the prior sd)", lam)


def _check_identified(fields: Mapping[str, Any]) -> str | None:
    """:func:`_check_pairs`, and the fixed context vectors' magnitude (JSON data too)."""
    problem = _check_pairs(fields)
    if problem is None:
        fixed = np.abs(np.asarray(fields["fixed_alpha"], dtype=np.float64))
        largest = float(fixed.max()) if fixed.size else 0.0
        if not np.isfinite(largest):
            return "fixed_alpha holds non-finite values"
        if largest > 0:
            problem = magnitude_problem("the largest |entry| of fixed_alpha", largest)
    return problem


def _vocabulary(data: Mapping[str, Any]) -> list[str] | None:
    vocab = data.get("vocabulary")
    return None if vocab is None else [str(w) for w in vocab]


def _coords(data: Mapping[str, Any]) -> Mapping[str, Sequence[Any]]:
    vocab = _vocabulary(data)
    return {} if vocab is None else {"word": vocab}


def _coords_identified(data: Mapping[str, Any]) -> Mapping[str, Sequence[Any]]:
    vocab = _vocabulary(data)
    if vocab is None:
        return {}
    fixed = {int(i) - 1 for i in np.asarray(data["fixed_index"]).ravel()}
    return {"word": vocab, "free_word": [w for i, w in enumerate(vocab) if i not in fixed]}


SGNS: StanModelSpec = register_model(
    StanModelSpec(
        name="sgns",
        stan_file=MODELS_DIR / "sgns.stan",
        data_fields=_PAIR_FIELDS,
        dims={"rho": ("word", "dim"), "alpha": ("word", "dim")},
        coords=_coords,
        check=_check_pairs,
        description="probabilistic SGNS (not identified): eq. (5) likelihood, N(0, lambda) prior",
    )
)

SGNS_IDENTIFIED: StanModelSpec = register_model(
    StanModelSpec(
        name="sgns_identified",
        stan_file=MODELS_DIR / "sgns_identified.stan",
        data_fields=(
            *_PAIR_FIELDS,
            DataField("fixed_index", "int", ("K",), dims=("fixed_word",)),
            DataField("fixed_alpha", "real", ("K", "K"), dims=("fixed_word", "dim")),
        ),
        dims={
            "rho": ("word", "dim"),
            "alpha": ("word", "dim"),
            "alpha_free": ("free_word", "dim"),
        },
        coords=_coords_identified,
        check=_check_identified,
        description="probabilistic SGNS identified by K fixed context vectors (section 2)",
    )
)
