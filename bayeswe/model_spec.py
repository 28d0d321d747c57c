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

A Stan program without a declaration gets one from :func:`program_spec`, built
from what ``stanc`` reports about the program (:mod:`bayeswe.stan.program_info`)
and from the data: every data field, with the shape its declaration implies,
and every output variable, with dims named ``<variable>_dim_<axis>`` unless
the caller names them.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from bayeswe.errors import ModelSpecError, StanDataError
from bayeswe.stan.source import decode_utf8

if TYPE_CHECKING:
    from bayeswe.stan.program_info import ProgramInfo

__all__ = [
    "MODELS_DIR",
    "DataField",
    "StanModelSpec",
    "available_models",
    "get_model",
    "program_spec",
    "read_data",
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
        (``("N",)``); a literal size must be given a name here. (A dim cannot
        share its name with a variable of the same group: when such a default
        name would, :class:`StanModelSpec` renames it, see there.)
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

    Notes
    -----
    A dim may not have the name of a variable of the same InferenceData group
    (xarray cannot hold both). Data dims named by default after their size
    field collide when that field is in the same group, e.g. ``sigma`` sized
    ``J`` next to ``J`` in ``constant_data``: such a dim is renamed
    ``"<field>_dim"`` (``"J_dim"``) in every data field that uses it by default.
    Explicit dims that collide are an error, raised by the declaration itself
    (data dims) or by :meth:`check_program` (output dims), before anything runs.
    """

    name: str
    stan_file: Path
    data_fields: tuple[DataField, ...] = ()
    dims: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    coords: CoordsHook = _default_coords
    log_likelihood: tuple[str, ...] = ()
    posterior_predictive: tuple[str, ...] = ()
    description: str = ""
    #: Checks beyond shapes and types, run by :meth:`validate` on the coerced fields;
    #: returns a message (the data are refused with it) or None.
    check: Callable[[Mapping[str, Any]], str | None] | None = None

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
        fields = _separate_data_dims(self.name, fields)
        object.__setattr__(self, "data_fields", fields)
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
        if self.check is not None and (problem := self.check(out)) is not None:
            raise StanDataError(f"model {self.name!r}: {problem}")
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
        problems.extend(self._output_dim_collisions(info))
        if problems:
            raise ModelSpecError(
                f"model {self.name!r} does not match {self.stan_file.name}:\n  "
                + "\n  ".join(problems)
            )

    def _output_dim_collisions(self, info: Mapping[str, Any]) -> list[str]:
        """Output dims named like an output variable of the same group."""
        outputs = [
            name
            for block in ("parameters", "transformed parameters", "generated quantities")
            for name in dict(info.get(block, {}))
        ]
        special = set(self.log_likelihood) | set(self.posterior_predictive)
        groups = {
            "posterior": {n for n in outputs if n not in special},
            "log_likelihood": set(self.log_likelihood),
            "posterior_predictive": set(self.posterior_predictive),
        }
        problems = []
        for group, members in groups.items():
            for name in sorted(members):
                for dim in self.dims.get(name, ()):
                    if dim in members:
                        problems.append(
                            f"dim {dim!r} of {name!r} is also a variable of the {group} group; "
                            "give the axis another name"
                        )
        return problems


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
    return _coerce_value(model, f.name, f.kind, value, ndim=f.ndim, expected=f"shape {f.shape}")


def _coerce_value(model: str, name: str, kind: str, value: Any, *, ndim: int, expected: str) -> Any:
    """``value`` as a Python scalar or an int64/float64 array of ``ndim`` axes.

    ``expected`` describes the declared shape in messages.
    """
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise StanDataError(
            f"model {model!r}: data field {name!r} cannot be read as an array: {exc}"
        ) from exc
    if arr.dtype == object:
        raise StanDataError(f"model {model!r}: data field {name!r} is ragged or not numeric")
    if arr.ndim != ndim:
        raise StanDataError(
            f"model {model!r}: data field {name!r} has {arr.ndim} axes (shape {arr.shape}), "
            f"expected {ndim} ({expected})"
        )
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iuf":
        raise StanDataError(
            f"model {model!r}: data field {name!r} must be numeric, got dtype {arr.dtype}"
        )
    if kind == "int":
        if arr.dtype.kind == "f" and (
            not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr))
        ):
            raise StanDataError(
                f"model {model!r}: data field {name!r} is declared int but holds non-integer values"
            )
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            raise StanDataError(
                f"model {model!r}: data field {name!r} has values outside Stan's int range"
            )
        arr = arr.astype(np.int64)
    else:
        arr = arr.astype(np.float64)
    if ndim == 0:
        return int(arr) if kind == "int" else float(arr)
    return arr


def _separate_data_dims(model: str, fields: tuple[DataField, ...]) -> tuple[DataField, ...]:
    """Rename default data dims that are also variables of their group; refuse explicit ones.

    A dim is a default one where it is the name of the size field of its axis
    (``DataField("sigma", "real", ("J",))`` has dims ``("J",)``).
    """
    members = {
        observed: {f.name for f in fields if f.observed == observed} for observed in (False, True)
    }
    clashing: list[str] = []
    for f in fields:
        for entry, dim in zip(f.shape, f.dims or (), strict=True):
            if dim not in members[f.observed]:
                continue
            if dim != str(entry):
                group = "observed_data" if f.observed else "constant_data"
                raise ModelSpecError(
                    f"model {model!r}: dim {dim!r} of data field {f.name!r} is also a variable "
                    f"of the {group} group; name the axis differently (DataField dims=...)"
                )
            if dim not in clashing:
                clashing.append(dim)
    if not clashing:
        return fields
    taken = {f.name for f in fields} | {d for f in fields for d in f.dims or ()}
    renamed: dict[str, str] = {}
    for dim in clashing:
        new = f"{dim}_dim"
        while new in taken:
            new += "_"
        taken.add(new)
        renamed[dim] = new
    out = []
    for f in fields:
        dims = tuple(
            renamed.get(dim, dim) if dim == str(entry) else dim
            for entry, dim in zip(f.shape, f.dims or (), strict=True)
        )
        out.append(dataclasses.replace(f, dims=dims) if dims != f.dims else f)
    return tuple(out)


# --------------------------------------------------------------------------- any program

_JSON_SPECIALS = {
    "NaN": math.nan,
    "nan": math.nan,
    "Inf": math.inf,
    "+Inf": math.inf,
    "inf": math.inf,
    "Infinity": math.inf,
    "-Inf": -math.inf,
    "-inf": -math.inf,
    "-Infinity": -math.inf,
}


def read_data(data: Any) -> Any:
    """The data as :func:`bayeswe.fit` uses it: a JSON file is read, anything else kept.

    Parameters
    ----------
    data
        A mapping, ``None``, a data object (see :func:`bayeswe.fit`), or the path
        of a JSON data file in Stan's format (as cmdstanpy writes and CmdStan
        reads: ``"NaN"``, ``"Inf"`` and ``"-Inf"`` may be strings).

    Returns
    -------
    Any
        A dict for a JSON file; ``data`` itself otherwise.

    Raises
    ------
    StanDataError
        If the file does not exist, is empty, is not UTF-8 text, is not JSON, or does
        not hold an object.
    """
    if not isinstance(data, (str, os.PathLike)):
        return data
    path = Path(data)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise StanDataError(f"cannot read the data file {str(path)!r}: {exc}") from exc
    try:
        text = decode_utf8(raw, repr(str(path)), "data file")
    except ValueError as exc:
        raise StanDataError(str(exc)) from None
    if not text.strip():
        raise StanDataError(f"data file {str(path)!r} is empty: expected a JSON object")
    try:
        loaded = json.loads(text)
    except ValueError as exc:
        raise StanDataError(f"data file {str(path)!r} is not valid JSON: {exc}") from exc
    if not isinstance(loaded, dict):
        raise StanDataError(
            f"data file {str(path)!r} must hold a JSON object of field names to values, "
            f"got {type(loaded).__name__}"
        )
    return {k: _json_specials(v) for k, v in loaded.items()}


def _json_specials(value: Any) -> Any:
    if isinstance(value, str):
        return _JSON_SPECIALS.get(value, value)
    if isinstance(value, list):
        return [_json_specials(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_specials(v) for k, v in value.items()}
    return value


def program_spec(
    program: ProgramInfo,
    data: Mapping[str, Any] | None,
    *,
    dims: Mapping[str, Sequence[str]] | None = None,
    coords: Mapping[str, Sequence[Any]] | None = None,
) -> tuple[StanModelSpec, dict[str, Any]]:
    """Declaration of a Stan program that has none, for the data at hand.

    Everything is checked before Stan runs: the data against the program's
    ``data`` block, and ``dims``/``coords`` against the variables.

    Parameters
    ----------
    program
        What ``stanc`` reports about the program
        (:func:`bayeswe.stan.program_info.program_info`).
    data
        The data: a mapping from field names to values. Other keys are ignored.
    dims
        Dim names of data fields and output variables, as in ArviZ: e.g.
        ``{"theta": ["school"], "sigma": ["school"]}``. A variable may be given
        names for its first axes only; other axes get the default
        ``"<variable>_dim_<axis>"`` (``"theta_dim_0"``), made unique if a
        variable has that name. Tuple outputs are split into one variable per
        component, named ``"<variable>.<k>"`` (``k`` from 1).
    coords
        Coordinate values of dims, e.g. ``{"school": ["A", "B", ...]}``; other
        dims get ``0, 1, ...``.

    Returns
    -------
    tuple
        The declaration (all data fields in ``constant_data``; every output in
        ``posterior``) and the data to pass to Stan: ``int``/``real`` fields as
        Python scalars or int64/float64 arrays, complex and tuple fields as given.

    Raises
    ------
    StanDataError
        A data field is missing, has the wrong number of axes or sizes (where
        its declaration's sizes can be evaluated from the data), is not
        numeric, or is declared ``int`` and holds non-integers. The message
        names the field and quotes its declaration.
    ModelSpecError
        ``dims`` names an unknown variable, gives a variable more names than
        axes, repeats a name, uses ``chain``/``draw`` or the name of a variable
        of the same group, or gives one dim two lengths; ``coords`` names an
        unknown dim or has the wrong length.
    """
    name = program.name
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise StanDataError(
            f"model {name!r}: data must be a mapping of field names to values or the path of a "
            f"JSON file, got {type(data).__name__}"
        )
    missing = [v for v in program.inputs.values() if v.name not in data]
    if missing:
        listed = "; ".join(f"{v.name!r} ({v.describe()})" for v in missing)
        raise StanDataError(f"model {name!r}: data field(s) missing: {listed}")

    stan_data: dict[str, Any] = {}
    ints: dict[str, int] = {}
    for var in program.inputs.values():
        value = data[var.name]
        if var.type not in ("int", "real"):
            stan_data[var.name] = value  # complex and tuple data are checked by Stan
            continue
        expected = var.shape(ints, stan_data)
        if var.ndim and None not in expected and math.prod(expected) == 0 and _is_empty(value):
            # JSON cannot say "0 x 3": [] stands for every empty shape, as in CmdStan.
            value = np.zeros(expected, dtype=np.int64 if var.type == "int" else np.float64)
        declared = f"declared {var.describe()}"
        coerced = _coerce_value(name, var.name, var.type, value, ndim=var.ndim, expected=declared)
        found = np.shape(coerced)
        if any(e is not None and e != f for e, f in zip(expected, found, strict=True)):
            sizes = ", ".join(
                f"{expr} = {size}"
                for expr, size in zip(var.sizes or (), expected, strict=True)
                if not expr.isdigit() and size is not None
            )
            shown = tuple("?" if e is None else e for e in expected)
            raise StanDataError(
                f"model {name!r}: data field {var.name!r} has shape {found}, expected "
                f"{shown} ({declared}{' with ' + sizes if sizes else ''})"
            )
        stan_data[var.name] = coerced
        if var.type == "int" and var.ndim == 0:
            ints[var.name] = coerced

    data_vars = {v.name: v.ndim for v in program.inputs.values() if v.type in ("int", "real")}
    outputs = _flat_outputs(program)
    all_names = set(program.inputs) | set(outputs)
    given = {str(k): v for k, v in dict(dims or {}).items()}
    unknown = sorted(set(given) - set(data_vars) - set(outputs))
    if unknown:
        raise ModelSpecError(
            f"model {name!r}: dims given for {', '.join(map(repr, unknown))}, which the program "
            f"does not have; its data fields are {sorted(data_vars)} and its outputs "
            f"{list(outputs)}"
        )
    resolved: dict[str, tuple[str, ...]] = {}
    for group, members in (("constant_data", data_vars), ("posterior", outputs)):
        for var_name, ndim in members.items():
            names = _given_dims(name, var_name, given.get(var_name), ndim)
            for dim in names:
                if dim in members:
                    raise ModelSpecError(
                        f"model {name!r}: dim {dim!r} of {var_name!r} is also a variable of the "
                        f"{group} group; give the axis another name"
                    )
            resolved[var_name] = names + tuple(
                _default_dim(var_name, axis, all_names) for axis in range(len(names), ndim)
            )

    sizes: dict[str, int] = {}
    owners: dict[str, str] = {}

    def record(var_name: str, shape: Sequence[int | None]) -> None:
        for dim, size in zip(resolved[var_name], shape, strict=True):
            if size is None:
                continue
            if dim in sizes and sizes[dim] != size:
                raise ModelSpecError(
                    f"model {name!r}: dim {dim!r} has length {sizes[dim]} in {owners[dim]!r} "
                    f"but {size} in {var_name!r}"
                )
            sizes[dim] = size
            owners.setdefault(dim, var_name)

    for var_name in data_vars:
        record(var_name, np.shape(stan_data[var_name]))
    for var_name, var in program.outputs.items():
        if var_name in outputs:
            record(var_name, var.shape(ints, stan_data))
    used = {d for names in resolved.values() for d in names}
    user_coords = {str(k): v for k, v in dict(coords or {}).items()}
    for dim, values in user_coords.items():
        if dim not in used:
            raise ModelSpecError(
                f"model {name!r}: coords given for dim {dim!r}, which no variable has; "
                f"the dims are {sorted(used)}"
            )
        shape = np.shape(values)
        if len(shape) != 1 or (dim in sizes and shape[0] != sizes[dim]):
            raise ModelSpecError(
                f"model {name!r}: coords for dim {dim!r} have shape {shape}, but the dim has "
                f"length {sizes.get(dim, '?')} (in {owners.get(dim, '?')!r})"
            )

    fields = tuple(
        DataField(n, program.inputs[n].type, np.shape(stan_data[n]), dims=resolved[n])  # type: ignore[arg-type]
        for n in data_vars
    )
    spec = StanModelSpec(
        name=name,
        stan_file=program.stan_file,
        data_fields=fields,
        dims={n: resolved[n] for n in outputs if resolved[n]},
        coords=lambda _data: user_coords,
        description=f"Stan program {program.stan_file} (declared by stanc)",
    )
    return spec, stan_data


def _is_empty(value: Any) -> bool:
    """Whether ``value`` holds no numbers (``[]``, ``[[], []]``), so that its shape is moot."""
    try:
        return np.size(value) == 0
    except Exception:  # ragged: the coercion reports it
        return False


def _flat_outputs(program: ProgramInfo) -> dict[str, int]:
    """Output variables and their number of axes, tuples split into their components."""
    out: dict[str, int] = {}

    def add(var_name: str, kind: Any, ndim: int) -> None:
        if isinstance(kind, list):
            for k, component in enumerate(kind, start=1):
                add(f"{var_name}.{k}", component.get("type"), ndim + component["dimensions"])
        else:
            out[var_name] = ndim

    for var in program.outputs.values():
        add(var.name, list(var.components) if var.type == "tuple" else var.type, var.ndim)
    return out


def _given_dims(model: str, var_name: str, names: Any, ndim: int) -> tuple[str, ...]:
    if names is None:
        return ()
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise ModelSpecError(
            f"model {model!r}: dims of {var_name!r} must be a list of dim names, got {names!r}"
        )
    names = tuple(names)
    if len(names) > ndim:
        raise ModelSpecError(
            f"model {model!r}: {var_name!r} has {ndim} axes but {len(names)} dims were given: "
            f"{names}"
        )
    for dim in names:
        if not isinstance(dim, str) or not dim:
            raise ModelSpecError(f"model {model!r}: dim names of {var_name!r} must be strings")
        if dim in ("chain", "draw"):
            raise ModelSpecError(f"model {model!r}: 'chain' and 'draw' are reserved dim names")
    if len(set(names)) != len(names):
        raise ModelSpecError(f"model {model!r}: repeated dim name in {var_name}{names}")
    return names


def _default_dim(var_name: str, axis: int, taken: set[str]) -> str:
    dim = f"{var_name}_dim_{axis}"
    while dim in taken or dim in ("chain", "draw"):
        dim += "_"
    return dim


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
