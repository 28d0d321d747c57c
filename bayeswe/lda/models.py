"""Declarations of the LDA Stan programs.

``lda`` (``models/lda.stan``) is LDA with the topic indicators summed out, on
the distinct (document, word) pairs of a corpus with their counts (the data of
:meth:`bayeswe.lda.LDAData.to_stan`). Its parameters are unconstrained vectors
``theta_raw`` (doc, topic) and ``phi_raw`` (topic, word) mapped to the simplexes
by softmax; the generated quantities ``theta`` (doc, topic) and ``phi`` (topic,
word) are the document-topic and topic-word distributions. Coords: document ids,
topic numbers ``0..K-1`` and the vocabulary.

``lda_users_guide`` (``models/lda_users_guide.stan``) is the same model written as
in the Stan User's Guide (one ``log_sum_exp`` per token), on token-level data
(:func:`users_guide_data`); it is the baseline of :mod:`bayeswe.bench.lda_stan`.

``bayeswe.fit("lda", LDAData(...), method="nuts" | "advi" | "map", seed=...)``
accepts the :class:`~bayeswe.lda.LDAData` itself: :func:`bayeswe.fit` turns it
into its Stan data and coords (:func:`stan_data`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayeswe.lda.data import COORDS_KEY, LDAData, LDADataError
from bayeswe.model_spec import MODELS_DIR, DataField, StanModelSpec, register_model
from bayeswe.options import magnitude_problem

__all__ = ["COORDS_KEY", "LDA", "LDA_USERS_GUIDE", "fit_data", "stan_data", "users_guide_data"]


_SIZES = (
    DataField("D", "int"),
    DataField("V", "int"),
    DataField("K", "int"),
    DataField("N", "int"),
)
_PRIORS = (
    DataField("alpha", "real", ("K",), dims=("topic",)),
    DataField("beta", "real"),
)


def _check_tokens(fields: Mapping[str, Any]) -> str | None:
    """Refuse a corpus without tokens (every method would return the prior)."""
    n = fields["count"].sum() if "count" in fields else int(fields["N"])
    if n == 0:
        return "the corpus holds no tokens: nothing to fit"
    for name in ("alpha", "beta"):
        values = np.atleast_1d(np.asarray(fields[name], dtype=float))
        if not (np.isfinite(values).all() and (values > 0).all()):
            return f"{name} must be positive and finite"
        for v in (values.min(), values.max()):
            if (problem := magnitude_problem(name, v)) is not None:
                return problem
    return None


def _coords(data: Mapping[str, Any]) -> Mapping[str, Sequence[Any]]:
    return dict(data.get(COORDS_KEY) or {})


LDA: StanModelSpec = register_model(
    StanModelSpec(
        name="lda",
        stan_file=MODELS_DIR / "lda.stan",
        data_fields=(
            *_SIZES,
            DataField("doc", "int", ("N",), dims=("pair",)),
            DataField("word", "int", ("N",), dims=("pair",)),
            DataField("count", "int", ("N",), dims=("pair",), observed=True),
            *_PRIORS,
        ),
        dims={
            "theta_raw": ("doc", "topic"),
            "phi_raw": ("topic", "word"),
            "theta": ("doc", "topic"),
            "phi": ("topic", "word"),
        },
        coords=_coords,
        check=_check_tokens,
        description="LDA, topic indicators summed out, aggregated (doc, word, count) data",
    )
)

LDA_USERS_GUIDE: StanModelSpec = register_model(
    StanModelSpec(
        name="lda_users_guide",
        stan_file=MODELS_DIR / "lda_users_guide.stan",
        data_fields=(
            *_SIZES,
            DataField("doc", "int", ("N",), dims=("token",)),
            DataField("word", "int", ("N",), dims=("token",), observed=True),
            *_PRIORS,
        ),
        dims={"theta": ("doc", "topic"), "phi": ("topic", "word")},
        coords=_coords,
        check=_check_tokens,
        description="LDA as in the Stan User's Guide (per-token log_sum_exp); a baseline",
    )
)


def _check(data: Any) -> LDAData:
    if not isinstance(data, LDAData):
        raise LDADataError(f"expected an LDAData, got {type(data).__name__}")
    return data


def stan_data(data: LDAData) -> dict[str, Any]:
    """Data of ``models/lda.stan`` plus the coords of the fit (under :data:`COORDS_KEY`)."""
    return _check(data).stan_data_for(LDA)


def users_guide_data(data: LDAData) -> dict[str, Any]:
    """Token-level data of ``models/lda_users_guide.stan`` plus the coords of the fit."""
    return _check(data).stan_data_for(LDA_USERS_GUIDE)


def fit_data(spec: StanModelSpec, data: LDAData) -> dict[str, Any]:
    """The data mapping :func:`bayeswe.fit` passes to ``spec`` for an :class:`LDAData`."""
    return _check(data).stan_data_for(spec)
