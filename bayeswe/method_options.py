"""Every inference method's options under cmdstanpy's names, with their defaults.

:func:`bayeswe.fit` and :func:`bayeswe.sgns.fit_sgns` take the same option names, with
cmdstanpy's meaning, for every method, Stan or not: a run switched from ``method="nuts"``
to ``method="pg-gibbs"`` keeps its ``chains``, ``iter_warmup``, ``iter_sampling`` and
``thin``, and keeps ``ceil(iter_sampling / thin)`` draws per chain either way.

:data:`DEFAULTS` lists, for each method and model, the default of every shared option
the method takes (``None``: the method does not take it); :func:`options_markdown`
renders it, with each method's further options, as the tables of the docs' options page.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = [
    "APPROXIMATION_OPTIONS",
    "DEFAULTS",
    "MCMC_OPTIONS",
    "args_class",
    "options_markdown",
]

#: Shared options of the Markov chain methods (``chains`` is an argument of ``fit``).
MCMC_OPTIONS: tuple[str, ...] = (
    "chains",
    "parallel_chains",
    "threads_per_chain",
    "iter_warmup",
    "iter_sampling",
    "thin",
    "save_warmup",
    "output_dir",
    "show_progress",
)

#: Shared options of the approximations (optimisers and variational methods).
APPROXIMATION_OPTIONS: tuple[str, ...] = (
    "iter",
    "tol_rel_obj",
    "draws",
    "output_dir",
    "show_progress",
)

_CORES = "min(chains, cores)"
_PROCESS = "off (on in the CLI)"
_TEMPORARY = "a temporary directory"
#: The collapsed Gibbs kernels visit tokens one after another: Numba threads change nothing.
_SERIAL = "1 (sequential kernels)"

#: ``{(method, model): {option: default}}``; ``None``: the method does not take the option.
#: Stan's defaults are CmdStan's (``show_progress`` is off in the library).
DEFAULTS: Mapping[tuple[str, str], Mapping[str, Any]] = {
    ("nuts", "any"): {
        "chains": 4, "parallel_chains": _CORES, "threads_per_chain": 1, "iter_warmup": 1000,
        "iter_sampling": 1000, "thin": 1, "save_warmup": False, "output_dir": _TEMPORARY,
        "show_progress": False,
    },
    ("pg-gibbs", "sgns_identified"): {
        "chains": 4, "parallel_chains": 1, "threads_per_chain": "Numba's setting",
        "iter_warmup": 200, "iter_sampling": 1000, "thin": 1, "save_warmup": None,
        "output_dir": None, "show_progress": _PROCESS,
    },
    ("pg-gibbs", "sgns"): {
        "chains": 4, "parallel_chains": 1, "threads_per_chain": "Numba's setting",
        "iter_warmup": 200, "iter_sampling": 1000, "thin": 1, "save_warmup": None,
        "output_dir": None, "show_progress": _PROCESS,
    },
    ("cgs", "lda"): {
        "chains": 4, "parallel_chains": _CORES, "threads_per_chain": _SERIAL,
        "iter_warmup": 500,
        "iter_sampling": 1000, "thin": 10, "save_warmup": None, "output_dir": None,
        "show_progress": _PROCESS,
    },
    ("cgs", "hdp_lda"): {
        "chains": 4, "parallel_chains": _CORES, "threads_per_chain": _SERIAL,
        "iter_warmup": 500, "iter_sampling": 1000, "thin": 10, "save_warmup": None,
        "output_dir": None, "show_progress": _PROCESS,
    },
    ("cgs", "hdp_gaussian_lda"): {
        "chains": 4, "parallel_chains": _CORES, "threads_per_chain": _SERIAL,
        "iter_warmup": 100, "iter_sampling": 200, "thin": 1, "save_warmup": None,
        "output_dir": None, "show_progress": _PROCESS,
    },
    ("cgs", "gaussian_lda"): {
        "chains": 4, "parallel_chains": "min(chains, 2)", "threads_per_chain": _SERIAL,
        "iter_warmup": 100, "iter_sampling": 200, "thin": 1, "save_warmup": None,
        "output_dir": None, "show_progress": _PROCESS,
    },
    ("alias-mh", "hdp_lda"): {
        "chains": 4, "parallel_chains": _CORES, "threads_per_chain": _SERIAL,
        "iter_warmup": 500, "iter_sampling": 1000, "thin": 10, "save_warmup": None,
        "output_dir": None, "show_progress": _PROCESS,
    },
    ("alias-mh", "gaussian_lda"): {
        "chains": 4, "parallel_chains": "min(chains, 2)", "threads_per_chain": _SERIAL,
        "iter_warmup": 100, "iter_sampling": 200, "thin": 1, "save_warmup": None,
        "output_dir": None, "show_progress": _PROCESS,
    },
    ("cgs", "dp_mixture"): {
        "chains": 4, "parallel_chains": _CORES, "threads_per_chain": _SERIAL,
        "iter_warmup": 500, "iter_sampling": 1000, "thin": 1, "save_warmup": None,
        "output_dir": None, "show_progress": _PROCESS,
    },
    ("advi", "any"): {
        "iter": 10000, "tol_rel_obj": 0.01, "draws": 1000, "output_dir": _TEMPORARY,
        "show_progress": None,
    },
    ("advi-fullrank", "any"): {
        "iter": 10000, "tol_rel_obj": 0.01, "draws": 1000, "output_dir": _TEMPORARY,
        "show_progress": None,
    },
    ("map", "any"): {
        "iter": 2000, "tol_rel_obj": 10000.0, "draws": None, "output_dir": _TEMPORARY,
        "show_progress": None,
    },
    ("laplace", "any"): {
        "iter": 2000, "tol_rel_obj": 10000.0, "draws": 1000, "output_dir": _TEMPORARY,
        "show_progress": None,
    },
    ("pathfinder", "any"): {
        "iter": None, "tol_rel_obj": 10000.0, "draws": 1000, "output_dir": _TEMPORARY,
        "show_progress": None,
    },
    # cmdstanpy's optimize, variational, laplace and pathfinder have no progress bar
    # (show_console only). bayeswe's variational methods write no files: no output_dir.
    # One iteration of svi / jj-svi is one pass over the data; tol_rel_obj 0 runs all
    # iter passes.
    ("cavi", "lda"): {
        "iter": 200, "tol_rel_obj": 1e-6, "draws": 200, "output_dir": None,
        "show_progress": _PROCESS,
    },
    ("svi", "lda"): {
        "iter": 10, "tol_rel_obj": 0.0, "draws": 200, "output_dir": None,
        "show_progress": _PROCESS,
    },
    ("jj-vb", "sgns"): {
        "iter": 500, "tol_rel_obj": 1e-7, "draws": 1000, "output_dir": None,
        "show_progress": _PROCESS,
    },
    ("jj-svi", "sgns"): {
        "iter": 20, "tol_rel_obj": 0.0, "draws": 1000, "output_dir": None,
        "show_progress": _PROCESS,
    },
    ("laplace-sparse", "sgns_identified"): {
        "iter": None, "tol_rel_obj": None, "draws": 1000, "output_dir": None,
        "show_progress": None,
    },
}  # fmt: skip


def args_class(method: str, model: str) -> Any:
    """The argument class that validates ``method``'s options for ``model``."""
    from bayeswe.stan import fitting as stan

    if (method, model) in (("cgs", "gaussian_lda"), ("alias-mh", "gaussian_lda")):
        from bayeswe.samplers.gaussian_lda import GLDAGibbsArgs

        return GLDAGibbsArgs
    if (method, model) == ("cgs", "dp_mixture"):
        from bayeswe.samplers.dp_options import DPMixtureArgs

        return DPMixtureArgs
    if (method, model) == ("cgs", "hdp_gaussian_lda"):
        from bayeswe.samplers.hdp_gaussian_lda import HDPGLDAArgs

        return HDPGLDAArgs
    if (method, model) == ("cgs", "hdp_lda"):
        from bayeswe.samplers.hdp_lda import HDPArgs

        return HDPArgs
    if (method, model) == ("alias-mh", "hdp_lda"):
        from bayeswe.samplers.hdp_lda import HDPAliasArgs

        return HDPAliasArgs
    if method == "cgs":
        from bayeswe.samplers.lda_cgs import CGSArgs

        return CGSArgs
    if method == "pg-gibbs":
        from bayeswe.samplers.pg_gibbs import PGGibbsArgs

        return PGGibbsArgs
    if method in ("cavi", "svi"):
        from bayeswe.samplers import lda_vi

        return lda_vi.CAVIArgs if method == "cavi" else lda_vi.SVIArgs
    if method in ("jj-vb", "jj-svi"):
        from bayeswe.samplers import jj_vb

        return jj_vb.JJVBArgs if method == "jj-vb" else jj_vb.JJSVIArgs
    if method == "laplace-sparse":
        from bayeswe.samplers.laplace_sparse import LaplaceSparseArgs

        return LaplaceSparseArgs
    return stan._ARGS[method]


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return f"`{value}`"
    if isinstance(value, (int, float)):
        return f"{value:g}"
    return value


def _table(options: tuple[str, ...], rows: list[tuple[str, str]]) -> list[str]:
    lines = [
        "| method | model | " + " | ".join(f"`{o}`" for o in options) + " |",
        "|---|---|" + "---|" * len(options),
    ]
    for method, model in rows:
        cells = [_cell(DEFAULTS[method, model].get(o)) for o in options]
        lines.append(f"| `{method}` | {model} | " + " | ".join(cells) + " |")
    return lines


def options_markdown() -> str:
    """The options page's tables: shared options with defaults, then each method's others."""
    mcmc = [key for key in DEFAULTS if "chains" in DEFAULTS[key]]
    approx = [key for key in DEFAULTS if key not in mcmc]
    lines = ["### Markov chain methods", "", *_table(MCMC_OPTIONS, mcmc), ""]
    lines += ["### Approximations", "", *_table(APPROXIMATION_OPTIONS, approx), ""]
    lines += ["### Further options of each method", ""]
    shared = {*MCMC_OPTIONS, *APPROXIMATION_OPTIONS}
    for method, model in DEFAULTS:
        fields = [f.name for f in dataclasses.fields(args_class(method, model))]
        others = ", ".join(f"`{name}`" for name in fields if name not in shared)
        lines.append(f"- `{method}` ({model}): {others}")
    return "\n".join(lines) + "\n"
