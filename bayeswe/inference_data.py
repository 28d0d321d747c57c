"""Turn inference results into :class:`arviz.InferenceData`.

This is the one place where bayeswe builds InferenceData. Every inference
method goes through :func:`to_inference_data`, which takes

* a dict of output variables as ``(chain, draw, *shape)`` arrays,
* the model declaration (:class:`~bayeswe.model_spec.StanModelSpec`), which
  names the dims and supplies the coords,
* the data (stored in ``observed_data`` / ``constant_data``),
* per-draw ``sample_stats`` as ``(chain, draw)`` arrays,
* optionally the warmup draws and their statistics (ArviZ's ``warmup_*`` groups), and
* ``attrs``,

so that NUTS, the Stan approximations and any non-Stan sampler (for example a
Numba Gibbs sampler) return the same variable names, dims and coords.
:func:`from_cmdstanpy` extracts those pieces from a cmdstanpy fit.

Sample statistics use ArviZ's names: ``lp``, ``acceptance_rate``,
``step_size``, ``tree_depth``, ``n_steps``, ``diverging``, ``energy`` for NUTS;
the approximations report ``lp`` (the model's log density at the draw, Stan's
``log_p__``/``lp__``) and ``lp_approx`` (the approximating density at the draw,
Stan's ``log_g__``/``log_q__``/``lp_approx__``), so that ``mean(lp - lp_approx)`` estimates
the ELBO up to Stan's dropped constants.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from numbers import Number
from pathlib import PurePath
from typing import Any

import numpy as np
import xarray as xr

from bayeswe._arviz import az
from bayeswe.errors import ModelSpecError
from bayeswe.model_spec import StanModelSpec

__all__ = [
    "SAMPLE_STATS_NAMES",
    "from_cmdstanpy",
    "to_inference_data",
]

#: Stan CSV method columns -> ArviZ sample_stats names, per bayeswe method.
SAMPLE_STATS_NAMES: Mapping[str, Mapping[str, str]] = {
    "nuts": {
        "lp__": "lp",
        "accept_stat__": "acceptance_rate",
        "stepsize__": "step_size",
        "treedepth__": "tree_depth",
        "n_leapfrog__": "n_steps",
        "divergent__": "diverging",
        "energy__": "energy",
    },
    # For ADVI Stan writes lp__ = 0 for every draw; the log density is log_p__.
    "advi": {"lp__": "", "log_p__": "lp", "log_g__": "lp_approx"},
    "advi-fullrank": {"lp__": "", "log_p__": "lp", "log_g__": "lp_approx"},
    "map": {"lp__": "lp"},
    "laplace": {"log_p__": "lp", "log_q__": "lp_approx", "log_g__": "lp_approx"},
    "pathfinder": {"lp__": "lp", "lp_approx__": "lp_approx"},
}

_STAT_DTYPES: Mapping[str, type] = {
    "diverging": bool,
    "tree_depth": np.int64,
    "n_steps": np.int64,
}


def to_inference_data(
    spec: StanModelSpec,
    draws: Mapping[str, Any],
    *,
    data: Mapping[str, Any] | None = None,
    sample_stats: Mapping[str, Any] | None = None,
    attrs: Mapping[str, Any] | None = None,
    library: Any = None,
    warmup_draws: Mapping[str, Any] | None = None,
    warmup_sample_stats: Mapping[str, Any] | None = None,
) -> az.InferenceData:
    """Build InferenceData from draws laid out as ``(chain, draw, *shape)``.

    Parameters
    ----------
    spec
        Model declaration: dims of the variables, coords hook, data fields,
        and which variables are log likelihoods / posterior predictive.
    draws
        Output variables of the model, each an array of shape
        ``(chain, draw, *shape)``. A point estimate is one chain of one draw.
    data
        The data as given by the user (all keys, so the coords hook can use
        non-Stan keys such as a vocabulary). Declared fields go to
        ``observed_data`` (``observed=True``) or ``constant_data``.
    sample_stats
        Per-draw statistics, each of shape ``(chain, draw)``, with ArviZ names.
    attrs
        Attributes of the run (method, options, seed, ...). Stored on the
        InferenceData itself and on its ``posterior`` and ``sample_stats``
        groups. ``None`` values are dropped, bools become ints and mappings or
        sequences of non-numbers become JSON strings, so that the result can be
        written to netCDF.
    library
        The module that produced the draws (recorded by ArviZ as
        ``inference_library``); ``None`` for bayeswe's own samplers.
    warmup_draws
        Draws of the warmup (adaptation) phase, laid out like ``draws`` and with
        the same variables; they go to ``warmup_posterior`` (and
        ``warmup_log_likelihood`` / ``warmup_posterior_predictive``).
    warmup_sample_stats
        Statistics of the warmup draws, as ``sample_stats``
        (``warmup_sample_stats`` group); may be given without ``warmup_draws`` (a
        sampler that keeps only its warm-up trace of ``lp``).

    Returns
    -------
    arviz.InferenceData
        Groups ``posterior`` (always), ``sample_stats``, ``log_likelihood`` and
        ``posterior_predictive`` (when non-empty), ``observed_data`` and
        ``constant_data`` (when the model has such fields), and the ``warmup_``
        groups when warmup draws are given.

    Raises
    ------
    ModelSpecError
        If a non-scalar variable has no declared dims, dims and array axes
        disagree, one dim has two different lengths, or the coords hook returns
        coords of the wrong length.
    ValueError
        If the draws are not laid out as ``(chain, draw, ...)`` consistently.
    """
    if not draws:
        raise ValueError("no draws to convert")
    arrays = {name: np.asarray(value) for name, value in draws.items()}
    n_chain, n_draw = _sample_shape(arrays, "draws")
    stats = _stats_arrays(sample_stats, (n_chain, n_draw), "sample_stats")
    warmup: dict[str, np.ndarray] = {}
    warmup_stats: dict[str, np.ndarray] = {}
    if warmup_draws:
        warmup = {name: np.asarray(value) for name, value in warmup_draws.items()}
        n_warmup = _sample_shape(warmup, "warmup_draws")
        if set(warmup) != set(arrays) or n_warmup[0] != n_chain:
            raise ValueError("warmup_draws must have the variables and chains of draws")
        for name, arr in warmup.items():
            if arr.shape[2:] != arrays[name].shape[2:]:
                raise ValueError(
                    f"warmup_draws: {name!r} has shape {arr.shape[2:]} per draw, "
                    f"draws have {arrays[name].shape[2:]}"
                )
        warmup_stats = _stats_arrays(warmup_sample_stats, n_warmup, "warmup_sample_stats")
    elif warmup_sample_stats:
        # a sampler that keeps only the warm-up trace of its statistics (e.g. ``lp``)
        shape = _sample_shape({k: np.asarray(v) for k, v in warmup_sample_stats.items()}, "")
        if shape[0] != n_chain:
            raise ValueError("warmup_sample_stats must have the chains of draws")
        warmup_stats = _stats_arrays(warmup_sample_stats, shape, "warmup_sample_stats")

    unknown = (set(spec.log_likelihood) | set(spec.posterior_predictive)) - set(arrays)
    if unknown:
        raise ModelSpecError(
            f"model {spec.name!r}: declared log-likelihood/predictive variables "
            f"{sorted(unknown)} are not among the draws"
        )

    var_dims: dict[str, tuple[str, ...]] = {}
    sizes: dict[str, int] = {}
    owners: dict[str, str] = {}
    for name, arr in arrays.items():
        event_shape = arr.shape[2:]
        dims = spec.dims.get(name)
        if dims is None:
            if event_shape:
                raise ModelSpecError(
                    f"model {spec.name!r}: variable {name!r} has shape {event_shape} "
                    f"but no dims are declared for it; add dims={{{name!r}: (...)}}"
                )
            dims = ()
        if len(dims) != len(event_shape):
            raise ModelSpecError(
                f"model {spec.name!r}: variable {name!r} has shape {event_shape} "
                f"but declared dims {dims}"
            )
        var_dims[name] = dims
        _record_sizes(spec, name, dims, event_shape, sizes, owners)

    validated: dict[str, Any] = {}
    data_dims: dict[str, tuple[str, ...]] = {}
    if data is not None:
        validated = spec.validate(data)
        for f in spec.data_fields:
            dims = tuple(f.dims or ())
            data_dims[f.name] = dims
            _record_sizes(spec, f.name, dims, np.shape(validated[f.name]), sizes, owners)

    coords = _build_coords(spec, data, sizes)

    def dataset(
        values: Mapping[str, np.ndarray],
        dims: Mapping[str, tuple[str, ...]],
        *,
        sample: bool,
        group_attrs: Mapping[str, Any] | None = None,
    ) -> xr.Dataset:
        used = {d for name in values for d in dims.get(name, ())}
        if not sample:
            # az.dict_to_dataset would give scalars a dim "<name>_dim_0"
            return xr.Dataset(
                {
                    name: xr.DataArray(np.asarray(value), dims=dims.get(name, ()))
                    for name, value in values.items()
                },
                coords={d: coords[d] for d in used},
                attrs=az.data.base.make_attrs(),
            )
        return az.dict_to_dataset(
            dict(values),
            attrs=dict(group_attrs) if group_attrs else None,
            library=library,
            coords={d: coords[d] for d in used},
            dims={name: list(dims.get(name, ())) for name in values},
        )

    clean_attrs = _clean_attrs(attrs or {})
    groups: dict[str, xr.Dataset] = {}
    special = set(spec.log_likelihood) | set(spec.posterior_predictive)
    posterior = {n: a for n, a in arrays.items() if n not in special}
    if posterior:
        groups["posterior"] = dataset(posterior, var_dims, sample=True, group_attrs=clean_attrs)
    if stats:
        groups["sample_stats"] = dataset(stats, {}, sample=True, group_attrs=clean_attrs)
    loglik = {n: arrays[n] for n in spec.log_likelihood}
    if loglik:
        groups["log_likelihood"] = dataset(loglik, var_dims, sample=True)
    predictive = {n: arrays[n] for n in spec.posterior_predictive}
    if predictive:
        groups["posterior_predictive"] = dataset(predictive, var_dims, sample=True)
    if warmup_stats and not warmup:
        groups["warmup_sample_stats"] = dataset(
            warmup_stats, {}, sample=True, group_attrs=clean_attrs
        )
    if warmup:
        kept = {n: a for n, a in warmup.items() if n not in special}
        if kept:
            groups["warmup_posterior"] = dataset(
                kept, var_dims, sample=True, group_attrs=clean_attrs
            )
        if warmup_stats:
            groups["warmup_sample_stats"] = dataset(
                warmup_stats, {}, sample=True, group_attrs=clean_attrs
            )
        for group, names in (
            ("warmup_log_likelihood", spec.log_likelihood),
            ("warmup_posterior_predictive", spec.posterior_predictive),
        ):
            if names:
                groups[group] = dataset({n: warmup[n] for n in names}, var_dims, sample=True)
    observed = {f.name: validated[f.name] for f in spec.data_fields if f.observed and validated}
    constant = {f.name: validated[f.name] for f in spec.data_fields if not f.observed and validated}
    if observed:
        groups["observed_data"] = dataset(observed, data_dims, sample=False)
    if constant:
        groups["constant_data"] = dataset(constant, data_dims, sample=False)
    return az.InferenceData(attrs=clean_attrs, **groups)


def _stats_arrays(
    stats: Mapping[str, Any] | None, sample_shape: tuple[int, int], what: str
) -> dict[str, np.ndarray]:
    out = {}
    for name, value in (stats or {}).items():
        arr = np.asarray(value)
        if name in _STAT_DTYPES:
            arr = arr.astype(_STAT_DTYPES[name])
        out[name] = arr
    if out and _sample_shape(out, what) != sample_shape:
        raise ValueError(
            f"{what} have shape {_sample_shape(out, what)}, "
            f"draws have (chain, draw) = {sample_shape}"
        )
    return out


def from_cmdstanpy(
    fit: Any,
    spec: StanModelSpec,
    *,
    method: str,
    data: Mapping[str, Any] | None = None,
    attrs: Mapping[str, Any] | None = None,
) -> az.InferenceData:
    """Convert a cmdstanpy fit to InferenceData through :func:`to_inference_data`.

    Parameters
    ----------
    fit
        A ``CmdStanMCMC`` (``method="nuts"``), ``CmdStanVB`` (``"advi"``,
        ``"advi-fullrank"``), ``CmdStanMLE`` (``"map"``), ``CmdStanLaplace``
        (``"laplace"``) or ``CmdStanPathfinder`` (``"pathfinder"``).
    spec
        Model declaration.
    method
        The bayeswe method that produced ``fit``; selects the sample_stats names.
    data
        The user's data.
    attrs
        Attributes of the run.

    Returns
    -------
    arviz.InferenceData
        NUTS draws keep their chains; the approximations' draws are one chain;
        the MAP estimate is one chain of one draw. A NUTS run with
        ``save_warmup=True`` also fills ``warmup_posterior`` and
        ``warmup_sample_stats``. Tuple-valued variables are split into one
        variable per component, ``"<name>.<k>"``.
    """
    import cmdstanpy

    if method not in SAMPLE_STATS_NAMES:
        raise ValueError(f"unknown method {method!r}")
    table = _draws_table(fit, method)  # (chain, draw, column)
    warmup_table = None
    n_warmup = int(getattr(fit, "num_draws_warmup", 0)) if method == "nuts" else 0
    if n_warmup and getattr(fit, "_save_warmup", False):
        full = np.moveaxis(np.asarray(fit.draws(inc_warmup=True)), 1, 0)
        warmup_table, table = full[:, :n_warmup], full[:, n_warmup:]
    draws, stats = _columns(fit.metadata, table, method)
    warmup_draws = warmup_stats = None
    if warmup_table is not None:
        warmup_draws, warmup_stats = _columns(fit.metadata, warmup_table, method)
    run_attrs = dict(attrs or {})
    run_attrs.setdefault("stan_version", stan_version(fit))
    return to_inference_data(
        spec,
        draws,
        data=data,
        sample_stats=stats,
        attrs=run_attrs,
        library=cmdstanpy,
        warmup_draws=warmup_draws,
        warmup_sample_stats=warmup_stats,
    )


def _columns(
    metadata: Any, table: np.ndarray, method: str
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Output variables and renamed sample statistics of a (chain, draw, column) table."""
    draws: dict[str, np.ndarray] = {}
    for name, var in metadata.stan_vars.items():
        arr = np.asarray(var.extract_reshape(table))
        if arr.dtype == object:  # tuples: cmdstanpy gives an array of Python tuples
            _split_tuples(name, arr, draws)
        else:
            draws[name] = arr
    names = SAMPLE_STATS_NAMES[method]
    stats: dict[str, np.ndarray] = {}
    for column, var in metadata.method_vars.items():
        new = names.get(column, column.strip("_"))
        if new:
            stats[new] = np.asarray(var.extract_reshape(table))
    return draws, stats


def _split_tuples(name: str, arr: np.ndarray, out: dict[str, np.ndarray]) -> None:
    """Store each component of an array of tuples as ``out[f"{name}.{k}"]`` (k from 1)."""
    flat = arr.reshape(-1)
    if flat.size == 0:
        return
    for k in range(len(flat[0])):
        items = [element[k] for element in flat]
        key = f"{name}.{k + 1}"
        if isinstance(items[0], tuple):
            nested = np.empty(len(items), dtype=object)
            for i, item in enumerate(items):
                nested[i] = item
            _split_tuples(key, nested.reshape(arr.shape), out)
        else:
            values = np.asarray([np.asarray(item) for item in items])
            out[key] = values.reshape(arr.shape + values.shape[1:])


def stan_version(fit: Any, default: str = "unknown") -> str:
    """Stan version recorded in the header of a cmdstanpy fit's CSV output."""
    try:
        config = fit.metadata.cmdstan_config
        parts = [config[f"stan_version_{k}"] for k in ("major", "minor", "patch")]
        return ".".join(str(int(p)) for p in parts)
    except (AttributeError, KeyError, TypeError, ValueError):
        return default


def _draws_table(fit: Any, method: str) -> np.ndarray:
    """All CSV columns of a cmdstanpy fit as a float array (chain, draw, column)."""
    if method == "nuts":
        return np.moveaxis(np.asarray(fit.draws()), 1, 0)
    if method in ("advi", "advi-fullrank"):
        return np.asarray(fit.variational_sample, dtype=float)[np.newaxis]
    if method == "map":
        return np.asarray(fit.optimized_params_np, dtype=float)[np.newaxis, np.newaxis]
    return np.asarray(fit.draws(), dtype=float)[np.newaxis]


def _sample_shape(arrays: Mapping[str, np.ndarray], what: str) -> tuple[int, int]:
    shapes = {name: arr.shape[:2] for name, arr in arrays.items()}
    for name, arr in arrays.items():
        if arr.ndim < 2:
            raise ValueError(f"{what}: {name!r} has shape {arr.shape}; expected (chain, draw, ...)")
    distinct = set(shapes.values())
    if len(distinct) != 1:
        raise ValueError(f"{what}: variables disagree on (chain, draw): {shapes}")
    (shape,) = distinct
    return int(shape[0]), int(shape[1])


def _record_sizes(
    spec: StanModelSpec,
    name: str,
    dims: Sequence[str],
    shape: Sequence[int],
    sizes: dict[str, int],
    owners: dict[str, str],
) -> None:
    for dim, size in zip(dims, shape, strict=True):
        if dim in sizes and sizes[dim] != size:
            raise ModelSpecError(
                f"model {spec.name!r}: dim {dim!r} has length {sizes[dim]} in "
                f"{owners[dim]!r} but {size} in {name!r}"
            )
        sizes[dim] = int(size)
        owners.setdefault(dim, name)


def _build_coords(
    spec: StanModelSpec, data: Mapping[str, Any] | None, sizes: Mapping[str, int]
) -> dict[str, np.ndarray]:
    given: Mapping[str, Sequence[Any]] = {}
    if data is not None:
        given = spec.coords(data) or {}
    coords: dict[str, np.ndarray] = {}
    for dim, size in sizes.items():
        if dim in given:
            values = np.asarray(given[dim])
            if values.ndim != 1 or len(values) != size:
                raise ModelSpecError(
                    f"model {spec.name!r}: coords for dim {dim!r} have shape {values.shape}, "
                    f"but the dim has length {size}"
                )
            coords[dim] = values
        else:
            coords[dim] = np.arange(size)
    return coords


def _clean_attrs(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """Make attrs netCDF-safe: drop None, bool -> int, containers -> JSON."""
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        if value is None:
            continue
        if isinstance(value, (bool, np.bool_)):
            out[key] = int(value)
        elif isinstance(value, (str, np.ndarray)) or (
            isinstance(value, Number) and not isinstance(value, complex)
        ):
            out[key] = value
        else:
            out[key] = to_json(value)
    return out


def to_json(value: Any) -> str:
    """JSON text of options and other run settings (numpy, paths and the like allowed)."""
    return json.dumps(value, default=_json_default, sort_keys=True, allow_nan=True)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return repr(value)
