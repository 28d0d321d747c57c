"""Declaration of the Gaussian LDA Stan program (``models/gaussian_lda.stan``).

The program (Das, Zaheer & Dyer 2015, section 3) marginalizes the topic
indicators, parameterizes each topic covariance by its Cholesky factor
``L_Sigma`` (inverse-Wishart density of the factor, Jacobian included) and
evaluates the Gaussian log density once per (used word type, topic); see the
header of the Stan file for the derivation.

``bayeswe.fit("gaussian_lda", GaussianLDAData(...), method="nuts"|"advi"|"map")``
returns ``theta`` ``(doc, topic)``, ``mu`` ``(topic, dim)``, ``Sigma`` and
``L_Sigma`` ``(topic, dim, dim2)``, with the documents' ids as ``doc`` coords;
``constant_data`` holds the embeddings with the vocabulary as ``word`` coords.
The Stan program calls the embedding dimension ``P`` (``D`` counts documents).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bayeswe.model_spec import MODELS_DIR, DataField, StanModelSpec, register_model

__all__ = ["GAUSSIAN_LDA"]


def _coords(data: Mapping[str, Any]) -> Mapping[str, Sequence[Any]]:
    """Document ids and vocabulary from the extra keys of ``GaussianLDAData.to_stan()``."""
    coords: dict[str, Sequence[Any]] = {}
    if data.get("doc_ids") is not None:
        coords["doc"] = [str(d) for d in data["doc_ids"]]
    if data.get("vocabulary") is not None:
        coords["word"] = [str(w) for w in data["vocabulary"]]
    return coords


GAUSSIAN_LDA: StanModelSpec = register_model(
    StanModelSpec(
        name="gaussian_lda",
        stan_file=MODELS_DIR / "gaussian_lda.stan",
        data_fields=(
            DataField("D", "int"),
            DataField("V", "int"),
            DataField("K", "int"),
            DataField("P", "int"),
            DataField("N", "int"),
            DataField("doc", "int", ("N",), dims=("pair",), observed=True),
            DataField("word", "int", ("N",), dims=("pair",), observed=True),
            DataField("count", "int", ("N",), dims=("pair",), observed=True),
            # constant_data, not observed_data: the field "word" there would clash with the dim
            DataField("embeddings", "real", ("V", "P"), dims=("word", "dim")),
            DataField("alpha", "real", ("K",), dims=("topic",)),
            DataField("mu0", "real", ("P",), dims=("dim",)),
            DataField("kappa", "real"),
            DataField("nu", "real"),
            DataField("Psi", "real", ("P", "P"), dims=("dim", "dim2")),
        ),
        dims={
            "theta": ("doc", "topic"),
            "mu": ("topic", "dim"),
            "L_Sigma": ("topic", "dim", "dim2"),
            "Sigma": ("topic", "dim", "dim2"),
        },
        coords=_coords,
        description=(
            "Gaussian LDA (Das et al. 2015) with marginalized topic indicators and "
            "Cholesky-factor inverse-Wishart priors"
        ),
    )
)
