"""Validation shared by the argument objects of every inference method.

``fit``'s Stan methods (:mod:`bayeswe.fit`) and bayeswe's own samplers (e.g.
:mod:`bayeswe.samplers.pg_gibbs`) validate their options the same way: unknown
names and bad values raise ``ValueError`` before anything runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "build_options",
    "check_bool",
    "check_choice",
    "check_float",
    "check_int",
    "invalid",
    "magnitude_problem",
    "MAGNITUDE_RANGE",
    "parse_method_list",
]


def build_options(cls: Any, method: str, options: Mapping[str, Any]) -> Any:
    """``cls(**options)``, validated.

    ``cls.OPTION_ALIASES`` (optional, ``{alias: field}``) lists second names of fields,
    so that every sampler takes the same run lengths: cmdstanpy's ``iter_warmup`` and
    ``iter_sampling``, and the topic-model names ``burn_in`` and ``sweeps``.

    Raises ``ValueError`` naming unknown options (and listing the known ones), an
    option given under both its names, or the first bad value.
    """
    aliases: Mapping[str, str] = getattr(cls, "OPTION_ALIASES", {})
    opts = dict(options)
    for alias, name in aliases.items():
        if alias in opts:
            if name in opts:
                raise ValueError(f"give {name} or its alias {alias}, not both")
            opts[name] = opts.pop(alias)
    allowed = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(opts) - allowed)
    if unknown:
        raise ValueError(
            f"method {method!r} does not take option(s) {', '.join(unknown)}; "
            f"it takes: {', '.join(sorted(allowed | set(aliases)))}"
        )
    args = cls(**opts)
    args.validate()
    return args


def invalid(message: str) -> ValueError:
    """The ValueError bayeswe raises for a bad argument (cmdstanpy's convention)."""
    return ValueError(message)


def check_int(name: str, value: Any, *, minimum: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise invalid(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")


def check_float(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = True,
    open_high: bool = True,
) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise invalid(f"{name} must be a number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if low is not None and (value < low or (open_low and value == low)):
        raise ValueError(f"{name} must be {'>' if open_low else '>='} {low}, got {value}")
    if high is not None and (value > high or (open_high and value == high)):
        raise ValueError(f"{name} must be {'<' if open_high else '<='} {high}, got {value}")


#: Positive hyperparameters (prior scales, concentrations) and data magnitudes must lie
#: in this range: beyond it squares, precisions (``1/sd**2``) and sums of squares of a
#: large corpus overflow or vanish next to the data in double precision, and a sampler
#: would return NaN or the prior instead of an error.
MAGNITUDE_RANGE: tuple[float, float] = (1e-30, 1e30)


def magnitude_problem(name: str, value: float) -> str | None:
    """A message if the positive ``value`` is outside :data:`MAGNITUDE_RANGE`, else None."""
    low, high = MAGNITUDE_RANGE
    if not low <= abs(float(value)) <= high:
        return f"{name} = {float(value):g} is outside the supported range [{low:g}, {high:g}]"
    return None


def check_bool(name: str, value: Any) -> None:
    if value is not None and not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value is not None and value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


def parse_method_list(text: str | Sequence[str], methods: Sequence[str]) -> list[str]:
    """The methods of a ``--methods`` option (comma-separated text or a list), checked.

    Raises ``ValueError`` for none, a repeat, or one not in ``methods`` (listing them).
    """
    given = text.split(",") if isinstance(text, str) else list(text)
    chosen = [m.strip() for m in given if m.strip()]
    unknown = [m for m in chosen if m not in methods]
    if unknown:
        raise ValueError(
            f"unknown method(s) {', '.join(unknown)}; the methods are {', '.join(methods)}"
        )
    if not chosen:
        raise ValueError(f"no methods given; the methods are {', '.join(methods)}")
    repeated = sorted({m for m in chosen if chosen.count(m) > 1})
    if repeated:
        raise ValueError(f"method(s) given twice: {', '.join(repeated)}")
    return chosen
