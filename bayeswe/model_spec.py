"""Declarations of the models bayeswe can fit.

A model is a Stan program plus a small Python declaration of

* its data fields (name, ``int``/``real``, shape in terms of other data fields),
* the named dims of its output variables and of its data, and
* a hook that builds coords (for example the vocabulary words) from the data.

The declaration is independent of the inference backend: the Stan runner in
:mod:`bayeswe.fit` and any future non-Stan sampler turn their draws into
:class:`arviz.InferenceData` through :func:`bayeswe.inference_data.to_inference_data`
with the same declaration, so every method returns the same variable names,
dims and coords.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from bayeswe.errors import ModelSpecError, StanDataError

__all__ = [
    "MODELS_DIR",
    "DataField",
    "StanModelSpec",
    "available_models",
    "get_model",
    "register_model",
    "unregister_model",
]

#: Directory holding the Stan programs of the registered models.
#: (``bayeswe/models`` links to the repository's top-level ``models/`` and is
#: copied into wheels, so this works from a checkout and from an install.)
MODELS_DIR: Path = Path(__file__).parent / "models"

_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

CoordsHook = Callable[[Mapping[str, Any]], Mapping[str, Sequence[Any]]]


@dataclass(frozen=True)
class DataField:
    """One field of a model's data block.

    Parameters
    ----------
    name
        Name of the field, as in the Stan program's ``data`` block.
    kind
        ``"int"`` or ``"real"``.
    shape
        Shape of the field: ``()`` for a scalar, otherwise one entry per axis,
        each either an ``int`` or the name of a scalar ``int`` field of the same
        model (e.g. ``("N",)`` for ``vector[N] y``).
    dims
        Names of the axes in ``observed_data``/``constant_data``. By default an
        axis whose size is given by a field name is named after that field
        (``("N",)``); a literal size must be given a name here.
    observed
        Whether the field is an observation (stored in ``observed_data``) or a
        constant (stored in ``constant_data``).
    """

    name: str
    kind: Literal["int", "real"]
    shape: tuple[str | int, ...] = ()
    dims: tuple[str, ...] | None = None
    observed: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _IDENTIFIER.match(self.name):
            raise ModelSpecError(f"data field name {self.name!r} is not a Stan identifier")
        if self.kind not in ("int", "real"):
            raise ModelSpecError(
                f"data field {self.name!r}: kind must be 'int' or 'real', got {self.kind!r}"
            )
        object.__setattr__(self, "shape", tuple(self.shape))
        for entry in self.shape:
            if isinstance(entry, bool) or not isinstance(entry, (str, int)):
                raise ModelSpecError(
                    f"data field {self.name!r}: shape entries must be int or field names, "
                    f"got {entry!r}"
                )
            if isinstance(entry, int) and entry < 0:
                raise ModelSpecError(f"data field {self.name!r}: negative size {entry}")
        if self.dims is None:
            if any(isinstance(entry, int) for entry in self.shape):
                raise ModelSpecError(
                    f"data field {self.name!r} has a literal size in shape {self.shape}; "
                    "name its axes with dims=(...)"
                )
            object.__setattr__(self, "dims", tuple(str(entry) for entry in self.shape))
        else:
            object.__setattr__(self, "dims", tuple(self.dims))
            if len(self.dims) != len(self.shape):
                raise ModelSpecError(
                    f"data field {self.name!r}: dims {self.dims} do not match shape {self.shape}"
                )

    @property
    def ndim(self) -> int:
        """Number of axes of the field."""
        return len(self.shape)


def _default_coords(data: Mapping[str, Any]) -> Mapping[str, Sequence[Any]]:
    return {}


@dataclass(frozen=True)
class StanModelSpec:
    """Declaration of a Stan model: program, data, and dims/coords of its variables.

    Parameters
    ----------
    name
        Short name under which the model can be registered (``fit("name", ...)``).
    stan_file
        Path of the Stan program.
    data_fields
        Every field of the program's ``data`` block, in any order. Only these
        fields are passed to Stan; other keys of the user's data (for example a
        vocabulary used by ``coords``) are ignored by Stan.
    dims
        Named dims of each non-scalar output variable (parameters, transformed
        parameters, generated quantities), e.g. ``{"rho": ("word", "dim")}``.
        Every non-scalar output variable must be declared; scalars need not be.
    coords
        Hook called with the user's data mapping that returns coordinate values
        for some dims, e.g. ``lambda d: {"word": d["vocab"]}``. Dims it leaves
        out get integer coords ``0, 1, ...``.
    log_likelihood
        Output variables that hold pointwise log likelihoods; they go to the
        ``log_likelihood`` group instead of ``posterior``.
    posterior_predictive
        Output variables that hold replicated data; they go to the
        ``posterior_predictive`` group instead of ``posterior``.
    description
        One line saying what the model is.
    """

    name: str
    stan_file: Path
    data_fields: tuple[DataField, ...] = ()
    dims: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    coords: CoordsHook = _default_coords
    log_likelihood: tuple[str, ...] = ()
    posterior_predictive: tuple[str, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ModelSpecError(f"model name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "stan_file", Path(self.stan_file))
        fields = tuple(self.data_fields)
        object.__setattr__(self, "data_fields", fields)
        names = [f.name for f in fields]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ModelSpecError(f"model {self.name!r}: data fields declared twice: {duplicates}")
        by_name = {f.name: f for f in fields}
        for f in fields:
            for entry in f.shape:
                if isinstance(entry, str):
                    size_field = by_name.get(entry)
                    if size_field is None or size_field.kind != "int" or size_field.ndim != 0:
                        raise ModelSpecError(
                            f"model {self.name!r}: shape of {f.name!r} refers to {entry!r}, "
                            "which is not a scalar int data field"
                        )
        dims = {str(k): tuple(v) for k, v in dict(self.dims).items()}
        for var, var_dims in dims.items():
            if var in ("chain", "draw") or any(d in ("chain", "draw") for d in var_dims):
                raise ModelSpecError(f"model {self.name!r}: 'chain' and 'draw' are reserved")
            if len(set(var_dims)) != len(var_dims):
                raise ModelSpecError(f"model {self.name!r}: repeated dim name in {var}{var_dims}")
        object.__setattr__(self, "dims", MappingProxyType(dims))
        object.__setattr__(self, "log_likelihood", tuple(self.log_likelihood))
        object.__setattr__(self, "posterior_predictive", tuple(self.posterior_predictive))
        overlap = set(self.log_likelihood) & set(self.posterior_predictive)
        if overlap:
            raise ModelSpecError(
                f"model {self.name!r}: {sorted(overlap)} declared both as log likelihood "
                "and as posterior predictive"
            )

    @property
    def field_names(self) -> tuple[str, ...]:
        """Names of the declared data fields."""
        return tuple(f.name for f in self.data_fields)

    def data_field(self, name: str) -> DataField:
        """Return the declaration of the data field ``name``."""
        for f in self.data_fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def validate(self, data: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check data against the declaration before Stan runs.

        Parameters
        ----------
        data
            Mapping from field name to value (scalars, sequences or arrays).
            Keys that are not declared data fields are allowed (the ``coords``
            hook may use them) and are not part of the result.

        Returns
        -------
        dict
            The declared fields only, as Python scalars (for scalar fields) or
            numpy arrays with dtype ``int64`` (int fields) or ``float64``.

        Raises
        ------
        StanDataError
            If a declared field is missing, has the wrong number of axes or
            sizes, is not numeric, or holds non-integer values for an int field.
            The message names the field.
        """
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise StanDataError(
                f"model {self.name!r}: data must be a mapping of field names to values, "
                f"got {type(data).__name__}"
            )
        missing = [f.name for f in self.data_fields if f.name not in data]
        if missing:
            raise StanDataError(f"model {self.name!r}: data field(s) missing: {', '.join(missing)}")
        out: dict[str, Any] = {}
        # Scalars first, so that shapes can refer to them whatever the declaration order.
        ordered = sorted(self.data_fields, key=lambda f: f.ndim > 0)
        for f in ordered:
            out[f.name] = _coerce_field(self.name, f, data[f.name])
        for f in self.data_fields:
            if f.ndim == 0:
                continue
            expected = tuple(
                entry if isinstance(entry, int) else int(out[entry]) for entry in f.shape
            )
            found = np.shape(out[f.name])
            if found != expected:
                described = ", ".join(
                    f"{entry}={size}" if isinstance(entry, str) else str(size)
                    for entry, size in zip(f.shape, expected, strict=True)
                )
                raise StanDataError(
                    f"model {self.name!r}: data field {f.name!r} has shape {found}, "
                    f"expected {expected} (shape ({described}))"
                )
        return {f.name: out[f.name] for f in self.data_fields}

    def data_sizes(self, data: Mapping[str, Any]) -> dict[str, int]:
        """Sizes of the dims of the data fields, from validated data."""
        sizes: dict[str, int] = {}
        for f in self.data_fields:
            for dim, size in zip(f.dims or (), np.shape(data[f.name]), strict=True):
                sizes[dim] = int(size)
        return sizes

    def check_program(self, info: Mapping[str, Any]) -> None:
        """Check the declaration against the program's ``stanc --info`` output.

        Parameters
        ----------
        info
            The dict returned by :meth:`cmdstanpy.CmdStanModel.src_info`.

        Raises
        ------
        ModelSpecError
            If a data input of the program is not declared, a declared field has
            a different number of axes than the program's, or a non-scalar output
            variable has no (or the wrong number of) declared dims.
        """
        if not info:
            return
        problems: list[str] = []
        declared = {f.name: f for f in self.data_fields}
        for name, var in dict(info.get("inputs", {})).items():
            ndim = _info_ndim(var)
            f = declared.get(name)
            if f is None:
                problems.append(f"data field {name!r} of the program is not declared")
            elif ndim is not None and ndim != f.ndim:
                problems.append(
                    f"data field {name!r} has {ndim} axes in the program but shape {f.shape} "
                    "in the declaration"
                )
        for block in ("parameters", "transformed parameters", "generated quantities"):
            for name, var in dict(info.get(block, {})).items():
                ndim = _info_ndim(var)
                if ndim is None:
                    continue
                var_dims = self.dims.get(name)
                if var_dims is None:
                    if ndim > 0:
                        problems.append(
                            f"{name!r} ({block}) has {ndim} axes but no dims are declared for it"
                        )
                elif len(var_dims) != ndim:
                    problems.append(f"{name!r} has {ndim} axes but dims {var_dims} are declared")
        if problems:
            raise ModelSpecError(
                f"model {self.name!r} does not match {self.stan_file.name}:\n  "
                + "\n  ".join(problems)
            )


def _info_ndim(var: Any) -> int | None:
    """Number of array axes of a ``stanc --info`` entry; None for types not checked."""
    if not isinstance(var, Mapping):
        return None
    kind = var.get("type")
    ndim = var.get("dimensions")
    if not isinstance(ndim, int) or kind not in ("int", "real"):
        # complex and tuple outputs are not checked here
        return None
    return ndim


def _coerce_field(model: str, f: DataField, value: Any) -> Any:
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise StanDataError(
            f"model {model!r}: data field {f.name!r} cannot be read as an array: {exc}"
        ) from exc
    if arr.dtype == object:
        raise StanDataError(f"model {model!r}: data field {f.name!r} is ragged or not numeric")
    if arr.ndim != f.ndim:
        raise StanDataError(
            f"model {model!r}: data field {f.name!r} has {arr.ndim} axes (shape {arr.shape}), "
            f"expected {f.ndim} (shape {f.shape})"
        )
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iuf":
        raise StanDataError(
            f"model {model!r}: data field {f.name!r} must be numeric, got dtype {arr.dtype}"
        )
    if f.kind == "int":
        if arr.dtype.kind == "f" and (
            not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr))
        ):
            raise StanDataError(
                f"model {model!r}: data field {f.name!r} is declared int but holds "
                "non-integer values"
            )
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            raise StanDataError(
                f"model {model!r}: data field {f.name!r} has values outside Stan's int range"
            )
        arr = arr.astype(np.int64)
    else:
        arr = arr.astype(np.float64)
    if f.ndim == 0:
        return int(arr) if f.kind == "int" else float(arr)
    return arr


# --------------------------------------------------------------------------- registry

_REGISTRY: dict[str, StanModelSpec] = {}


def register_model(spec: StanModelSpec, *, replace: bool = False) -> StanModelSpec:
    """Register ``spec`` under ``spec.name`` so that ``fit(spec.name, ...)`` finds it.

    Parameters
    ----------
    spec
        The declaration to register.
    replace
        Allow replacing a different declaration registered under the same name.

    Returns
    -------
    StanModelSpec
        ``spec``, so that this can be used as ``SPEC = register_model(StanModelSpec(...))``.
    """
    if not isinstance(spec, StanModelSpec):
        raise TypeError(f"expected a StanModelSpec, got {type(spec).__name__}")
    existing = _REGISTRY.get(spec.name)
    if existing is not None and existing != spec and not replace:
        raise ValueError(f"a different model is already registered as {spec.name!r}")
    _REGISTRY[spec.name] = spec
    return spec


def unregister_model(name: str) -> None:
    """Remove the model registered as ``name`` (no error if there is none)."""
    _REGISTRY.pop(name, None)


def available_models() -> tuple[str, ...]:
    """Names of the registered models, sorted."""
    return tuple(sorted(_REGISTRY))


def get_model(model: str | StanModelSpec) -> StanModelSpec:
    """Return the declaration for a registered name, or ``model`` itself if it is a spec.

    Raises
    ------
    ValueError
        If ``model`` is a name that is not registered.
    TypeError
        If ``model`` is neither a string nor a :class:`StanModelSpec`.
    """
    if isinstance(model, StanModelSpec):
        return model
    if isinstance(model, str):
        try:
            return _REGISTRY[model]
        except KeyError:
            known = ", ".join(available_models()) or "none registered"
            raise ValueError(f"unknown model {model!r} (known: {known})") from None
    raise TypeError(f"model must be a registered name or a StanModelSpec, got {model!r}")
