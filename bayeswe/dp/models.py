"""Declarations of the truncated Dirichlet-process Stan programs.

``dp_mixture`` (``models/dp_mixture.stan``): a DP mixture of Gaussians in truncated
stick-breaking form with ``T`` components, Normal-inverse-Wishart components and a
gamma prior on the concentration ``alpha``; cluster indicators summed out. Outputs:
``alpha``, stick proportions ``v`` ``(stick,)``, ``mu`` ``(component, dim)``,
``L_Sigma`` and ``Sigma`` ``(component, dim, dim2)``, weights ``w`` ``(component,)``,
the ``leftover`` stick mass, ``occupancy`` ``(component,)`` and ``n_occupied`` from one
draw of the indicators, and ``log_lik`` ``(point,)`` in the ``log_likelihood`` group.

``dp_multinomial`` (``models/dp_multinomial.stan``): the DP mixture of multinomials
of :class:`~bayeswe.dp.DPMultinomialData` in the same truncated form, Dirichlet
components. Outputs: ``alpha``, ``v`` ``(stick,)``, ``phi`` ``(component, category)``,
``w``, ``leftover``, ``occupancy``, ``n_occupied`` and ``log_lik`` ``(point,)``.

``hdp_lda`` (``models/hdp_lda.stan``): HDP-LDA truncated at ``T`` topics, on
``models/lda.stan``'s aggregated data. Outputs: ``v`` ``(stick,)``, ``beta``
``(topic,)``, ``theta_gamma``/``theta_uniform``/``theta`` ``(doc, topic)``,
``phi_raw``/``phi``
``(topic, word)``, ``leftover``, ``topic_tokens`` ``(topic,)`` and ``n_occupied``.

``bayeswe.fit("dp_mixture", DPMixtureData(...), method=...)``,
``bayeswe.fit("dp_multinomial", DPMultinomialData(...), method=...)`` and
``bayeswe.fit("hdp_lda", HDPLDAData(...), method=...)`` work for every Stan method.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayeswe.lda.data import COORDS_KEY
from bayeswe.model_spec import MODELS_DIR, DataField, StanModelSpec, register_model
from bayeswe.options import magnitude_problem

__all__ = ["DP_MIXTURE", "DP_MULTINOMIAL", "HDP_LDA"]


def _positive_scalars(fields: Mapping[str, Any], names: Sequence[str]) -> str | None:
    for name in names:
        value = float(fields[name])
        if not (np.isfinite(value) and value > 0):
            return f"{name} must be positive and finite, got {value}"
        if (problem := magnitude_problem(name, value)) is not None:
            return problem
    return None


def _check_dp(fields: Mapping[str, Any]) -> str | None:
    """What ``DPMixtureData`` refuses, for data given as a plain mapping."""
    if int(fields["T"]) < 1:
        return f"T must be >= 1, got {fields['T']}"
    y = np.asarray(fields["y"], dtype=float)
    if not np.isfinite(y).all():
        return "y holds NaN or infinite values"
    if (problem := _positive_scalars(fields, ("alpha_shape", "alpha_rate", "kappa0"))) is not None:
        return problem
    if float(fields["nu0"]) <= int(fields["P"]) - 1:
        return f"nu0 must exceed P - 1 = {int(fields['P']) - 1}, got {fields['nu0']}"
    return None


def _check_hdp(fields: Mapping[str, Any]) -> str | None:
    """What ``HDPLDAData`` refuses, for data given as a plain mapping."""
    if int(fields["T"]) < 1:
        return f"T must be >= 1, got {fields['T']}"
    if int(np.asarray(fields["count"]).sum()) == 0:
        return "the corpus holds no tokens: nothing to fit"
    return _positive_scalars(fields, ("gamma", "alpha0", "eta"))


def _coords(data: Mapping[str, Any]) -> Mapping[str, Sequence[Any]]:
    return dict(data.get(COORDS_KEY) or {})


DP_MIXTURE: StanModelSpec = register_model(
    StanModelSpec(
        name="dp_mixture",
        stan_file=MODELS_DIR / "dp_mixture.stan",
        data_fields=(
            DataField("N", "int"),
            DataField("P", "int"),
            DataField("T", "int"),
            DataField("y", "real", ("N", "P"), dims=("point", "dim"), observed=True),
            DataField("alpha_shape", "real"),
            DataField("alpha_rate", "real"),
            DataField("mu0", "real", ("P",), dims=("dim",)),
            DataField("kappa0", "real"),
            DataField("nu0", "real"),
            DataField("Psi0", "real", ("P", "P"), dims=("dim", "dim2")),
        ),
        dims={
            "v": ("stick",),
            "mu": ("component", "dim"),
            "L_Sigma": ("component", "dim", "dim2"),
            "w": ("component",),
            "occupancy": ("component",),
            "log_lik": ("point",),
            "Sigma": ("component", "dim", "dim2"),
        },
        coords=_coords,
        log_likelihood=("log_lik",),
        check=_check_dp,
        description=(
            "Truncated stick-breaking DP mixture of Gaussians (NIW components, gamma prior "
            "on alpha), indicators summed out"
        ),
    )
)


def _check_dpm(fields: Mapping[str, Any]) -> str | None:
    """What ``DPMultinomialData`` refuses, for data given as a plain mapping."""
    if int(fields["T"]) < 1:
        return f"T must be >= 1, got {fields['T']}"
    if (problem := _positive_scalars(fields, ("alpha_shape", "alpha_rate"))) is not None:
        return problem
    beta = np.asarray(fields["beta"], dtype=float)
    if not (np.isfinite(beta).all() and (beta > 0).all()):
        return "beta must be positive and finite"
    return None


DP_MULTINOMIAL: StanModelSpec = register_model(
    StanModelSpec(
        name="dp_multinomial",
        stan_file=MODELS_DIR / "dp_multinomial.stan",
        data_fields=(
            DataField("N", "int"),
            DataField("V", "int"),
            DataField("T", "int"),
            DataField("E", "int"),
            DataField("point", "int", ("E",), dims=("entry",)),
            DataField("word", "int", ("E",), dims=("entry",)),
            DataField("count", "int", ("E",), dims=("entry",), observed=True),
            DataField("alpha_shape", "real"),
            DataField("alpha_rate", "real"),
            DataField("beta", "real", ("V",), dims=("category",)),
        ),
        dims={
            "v": ("stick",),
            "phi": ("component", "category"),
            "w": ("component",),
            "occupancy": ("component",),
            "log_lik": ("point",),
            # the collapsed sampler's (bayeswe.samplers.dp_multinomial)
            "heldout_log_density": ("heldout",),
        },
        coords=_coords,
        log_likelihood=("log_lik",),
        check=_check_dpm,
        description=(
            "Truncated stick-breaking DP mixture of multinomials (Dirichlet components, "
            "gamma prior on alpha), indicators summed out"
        ),
    )
)

HDP_LDA: StanModelSpec = register_model(
    StanModelSpec(
        name="hdp_lda",
        stan_file=MODELS_DIR / "hdp_lda.stan",
        data_fields=(
            DataField("D", "int"),
            DataField("V", "int"),
            DataField("T", "int"),
            DataField("N", "int"),
            DataField("doc", "int", ("N",), dims=("pair",)),
            DataField("word", "int", ("N",), dims=("pair",)),
            DataField("count", "int", ("N",), dims=("pair",), observed=True),
            DataField("gamma", "real"),
            DataField("alpha0", "real"),
            DataField("eta", "real"),
        ),
        dims={
            "v": ("stick",),
            "theta_gamma": ("doc", "topic"),
            "theta_uniform": ("doc", "topic"),
            "phi_raw": ("topic", "word"),
            "beta": ("topic",),
            "theta": ("doc", "topic"),
            "phi": ("topic", "word"),
            "topic_tokens": ("topic",),
        },
        coords=_coords,
        check=_check_hdp,
        description="Truncated HDP-LDA (GEM top level), topic indicators summed out",
    )
)
