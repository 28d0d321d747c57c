"""Validation shared by the argument objects of every inference method.

``fit``'s Stan methods (:mod:`bayeswe.fit`) and bayeswe's own samplers (e.g.
:mod:`bayeswe.samplers.pg_gibbs`) validate their options the same way: unknown
names and bad values raise ``ValueError`` before anything runs.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "DEPRECATED_OPTIONS",
    "build_options",
    "check_bool",
    "check_choice",
    "check_float",
    "check_int",
    "invalid",
    "magnitude_problem",
    "MAGNITUDE_RANGE",
    "parse_method_list",
    "rename_deprecated",
]


#: Option names of earlier releases, per method: ``{old: new}``. They still work for one
#: release, with a :class:`DeprecationWarning` naming the new option (cmdstanpy's name).
DEPRECATED_OPTIONS: Mapping[str, Mapping[str, str]] = {
    **{
        method: {
            "burn_in": "iter_warmup",
            "sweeps": "iter_sampling",
            "threads": "parallel_chains",
            "progress": "show_progress",
        }
        for method in ("cgs", "alias-mh")
    },
    "pg-gibbs": {
        "burn_in": "iter_warmup",
        "sweeps": "iter_sampling",
        "threads": "threads_per_chain",
        "progress": "show_progress",
    },
    # bayeswe.glda.infer_theta's run lengths
    "infer_theta": {"burn_in": "iter_warmup", "sweeps": "iter_sampling"},
    # a function's arguments: ``sweeps`` counted all sweeps, so it becomes
    # ``iter_sampling = sweeps - iter_warmup`` (see ``heldout_log_predictive``)
    "heldout_log_predictive": {"burn_in": "iter_warmup", "sweeps": "iter_sampling"},
    "cavi": {"max_iter": "iter", "tol": "tol_rel_obj", "output_samples": "draws"},
    "jj-vb": {"max_iter": "iter", "tol": "tol_rel_obj", "output_samples": "draws"},
    **{method: {"passes": "iter", "output_samples": "draws"} for method in ("svi", "jj-svi")},
    **{
        method: {"output_samples": "draws"}
        for method in ("laplace-sparse", "advi", "advi-fullrank")
    },
}


def rename_deprecated(method: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with the deprecated names of ``method``'s options replaced by the new ones.

    Each old name given warns (:class:`DeprecationWarning`, naming the new option),
    attributed to the first caller outside bayeswe so that Python shows it by default
    in a user's script.

    Raises
    ------
    ValueError
        An option given under both its old and its new name.
    """
    renamed = DEPRECATED_OPTIONS.get(method, {})
    opts = dict(options)
    for old, new in renamed.items():
        if old not in opts:
            continue
        if new in opts:
            raise ValueError(f"give {new} (the new name of {old}), not both")
        warnings.warn(
            f"option {old!r} of method {method!r} is deprecated and will be removed in the "
            f"next release; use {new!r}",
            DeprecationWarning,
            stacklevel=_first_outside_package(),
        )
        opts[new] = opts.pop(old)
    return opts


def _first_outside_package() -> int:
    """The ``stacklevel`` of the first frame, from the caller of the caller of this
    function outwards, whose code is not in the bayeswe package."""
    package = str(Path(__file__).resolve().parent)
    frame = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame = frame.f_back
        level += 1
    return level


def build_options(cls: Any, method: str, options: Mapping[str, Any]) -> Any:
    """``cls(**options)``, validated.

    Deprecated option names of ``method`` (:data:`DEPRECATED_OPTIONS`) are accepted
    with a :class:`DeprecationWarning` and passed on under their new names.

    Raises ``ValueError`` naming unknown options (and listing the known ones), an
    option given under both its old and new names, or the first bad value.
    """
    opts = rename_deprecated(method, options)
    allowed = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(opts) - allowed)
    if unknown:
        raise ValueError(
            f"method {method!r} does not take option(s) {', '.join(unknown)}; "
            f"it takes: {', '.join(sorted(allowed))}"
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


#: Largest seed Stan and NumPy's generators accept (the smallest is 0).
MAX_SEED = 2**32 - 1


def check_seed(name: str, value: Any, *, error: type[ValueError] = ValueError) -> int | None:
    """``value`` as a seed (``None``: fresh entropy), or ``error`` naming ``name`` and the range.

    Seeds are integers in [0, 2**32 - 1] everywhere in bayeswe (Stan's range), so a
    seed that works for one method works for all; NumPy's own message for a negative
    seed names neither the argument nor the range.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise error(f"{name} must be an integer in [0, 2**32 - 1] or None, got {value!r}")
    if not 0 <= value <= MAX_SEED:
        raise error(f"{name} must be in [0, 2**32 - 1] (0 to {MAX_SEED}), got {value}")
    return int(value)


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
