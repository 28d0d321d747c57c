"""``bayeswe fit`` and ``bayeswe summary``: any model, any method, from the shell.

``bayeswe fit MODEL DATA --method M [options] --output fit.nc`` fits a registered model
(``lda``, ``gaussian_lda``, ``sgns``, ...) or any Stan program (a ``.stan`` file) to the
data of a JSON file in Stan's format, by :func:`bayeswe.fit`, and writes the
InferenceData to a netCDF file. The options have the names of :func:`bayeswe.fit`
(cmdstanpy's): ``--chains``, ``--iter-warmup``, ``--iter-sampling``, ``--thin``, ...;
any other option of the method is given as ``--option NAME=VALUE`` (``VALUE`` read as
JSON when it parses, else as a string). Everything is checked before anything runs:
the model, the method, the options and the data (a bad one: one line, exit 2).

The sampler methods of ``lda`` and ``gaussian_lda`` take data objects; their JSON data
are the Stan data of the model (as :meth:`bayeswe.lda.LDAData.to_stan` and
:meth:`bayeswe.glda.GaussianLDAData.to_stan` write them, with an optional
``vocabulary`` list of words), from which the data object is rebuilt.

``bayeswe summary fit.nc`` prints ArviZ's summary of the posterior in the manner of
CmdStan's ``stansummary``: a header naming the model, method and draws, then one row per
scalar (``lp__`` first where the fit has it) with its mean, MCSE, standard deviation,
5 %, 50 % and 95 % quantiles, bulk ESS and R-hat.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["add_commands", "build_data", "summary_table"]

#: The Markov chain methods: they take ``chains``; every other method returns one chain.
CHAIN_METHODS: tuple[str, ...] = ("nuts", "pg-gibbs", "cgs", "alias-mh")
#: Models whose samplers take a data object, built from the Stan data by build_data.
SAMPLER_DATA_MODELS: tuple[str, ...] = ("lda", "gaussian_lda", "hdp_lda", "dp_mixture")

#: Flags of the shared options: (flag, option, type, help).
_FLAGS: tuple[tuple[str, str, Any, str], ...] = (
    ("--chains", "chains", int, "Markov chains (default 4)"),
    ("--parallel-chains", "parallel_chains", int, "chains run at the same time"),
    ("--threads-per-chain", "threads_per_chain", int, "threads of each chain"),
    ("--iter-warmup", "iter_warmup", int, "warm-up iterations"),
    ("--iter-sampling", "iter_sampling", int, "iterations after warm-up"),
    ("--thin", "thin", int, "keep one iteration in THIN: ceil(iter_sampling / thin) draws"),
    ("--seed", "seed", int, "seed in [0, 2**32 - 1] (default: drawn, recorded in the file)"),
    ("--output-dir", "output_dir", str, "keep Stan's CSV files in this directory"),
    ("--iter", "iter", int, "most iterations of an optimiser or variational method"),
    ("--tol-rel-obj", "tol_rel_obj", float, "relative tolerance of the objective"),
    ("--draws", "draws", int, "draws of an approximation"),
)


def add_commands(sub: Any, add_debug: Any) -> None:
    """Add the ``fit`` and ``summary`` commands to the ``bayeswe`` subparsers ``sub``."""
    fit = sub.add_parser(
        "fit",
        help="fit a registered model or any .stan file to JSON data by any method",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    fit.add_argument("model", help="a registered model (e.g. lda, sgns) or a .stan file")
    fit.add_argument("data", help="JSON data file (Stan's format)")
    fit.add_argument("--method", required=True, help="nuts, advi, map, ..., pg-gibbs, cgs, ...")
    fit.add_argument("--output", required=True, metavar="FILE", help="netCDF file to write")
    for flag, dest, kind, text in _FLAGS:
        fit.add_argument(flag, dest=dest, type=kind, default=None, help=text)
    fit.add_argument(
        "--save-warmup", action="store_true", default=None, help="keep the warm-up draws"
    )
    fit.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other option of the method (repeatable); VALUE is JSON or a string",
    )
    fit.add_argument("--dims", default=None, help='a .stan file: dims as JSON, {"theta": ["j"]}')
    fit.add_argument("--coords", default=None, help="a .stan file: coords as JSON")
    add_debug(fit)
    fit.set_defaults(func=_cmd_fit, check=_check_fit, where="fit")

    summary = sub.add_parser(
        "summary", help="summary of a fit's posterior (as CmdStan's stansummary prints it)"
    )
    summary.add_argument("fit", help="netCDF file written by bayeswe fit")
    summary.add_argument(
        "--vars", default=None, help="comma-separated variables to show (default: all)"
    )
    summary.add_argument("--sig-figs", type=int, default=3, help="significant figures (3)")
    add_debug(summary)
    summary.set_defaults(func=_cmd_summary, check=_check_summary, where="summary")


# --------------------------------------------------------------------------- fit


def _parse_json(option: str, text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{option} is not valid JSON: {exc}") from None


def _method_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options given on the command line, under :func:`bayeswe.fit`'s names."""
    options: dict[str, Any] = {}
    for _flag, dest, _kind, _text in _FLAGS:
        if dest not in ("chains", "seed") and getattr(args, dest) is not None:
            options[dest] = getattr(args, dest)
    if args.save_warmup:
        options["save_warmup"] = True
    for item in args.option:
        name, sep, text = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name.isidentifier():
            raise ValueError(f"--option must be NAME=VALUE, got {item!r}")
        if name in options or name in ("chains", "seed", "method"):
            raise ValueError(f"--option {name} is given twice or has its own flag")
        try:
            options[name] = json.loads(text)
        except ValueError:
            options[name] = text
    return options


def _is_program(model: str) -> bool:
    return model.endswith(".stan") or Path(model).is_file()


def build_data(model: str, method: str, data: Mapping[str, Any]) -> Any:
    """The data :func:`bayeswe.fit` takes for ``model`` and ``method``, from Stan data.

    The sampler methods get the data object their model's sampler takes, rebuilt from
    the model's Stan data (checked against the declaration first, so a bad field is
    named): ``lda`` an :class:`~bayeswe.lda.LDAData`, ``gaussian_lda`` a
    :class:`~bayeswe.glda.GaussianLDAData`, ``hdp_lda`` an :class:`~bayeswe.dp.HDPLDAData`
    and ``dp_mixture`` a :class:`~bayeswe.dp.DPMixtureData`; other models and methods get
    ``data`` itself.

    Raises
    ------
    StanDataError, LDADataError, GaussianLDADataError, DPDataError
        The data do not fit the model.
    """
    from bayeswe.fit import SAMPLER_METHODS
    from bayeswe.model_spec import get_model

    if model not in SAMPLER_DATA_MODELS or method not in SAMPLER_METHODS:
        return data
    stan = get_model(model).validate(data)
    if model == "dp_mixture":
        from bayeswe.dp import DPMixtureData

        return DPMixtureData(
            np.asarray(stan["y"], dtype=np.float64), truncation=int(stan["T"]),
            alpha_shape=float(stan["alpha_shape"]), alpha_rate=float(stan["alpha_rate"]),
            mu0=np.asarray(stan["mu0"], dtype=np.float64), kappa0=float(stan["kappa0"]),
            nu0=float(stan["nu0"]), Psi0=np.asarray(stan["Psi0"], dtype=np.float64),
        )  # fmt: skip
    words = data.get("vocabulary")
    if words is None:
        words = [f"w{v}" for v in range(int(stan["V"]))]
    from bayeswe.corpus import BagOfWords, Vocabulary

    documents: list[list[int]] = [[] for _ in range(int(stan["D"]))]
    for d, w, n in zip(stan["doc"], stan["word"], stan["count"], strict=True):
        if not (1 <= d <= len(documents) and 1 <= w <= int(stan["V"])):
            raise ValueError(f"doc {d} or word {w} is out of range (1-based ids)")
        documents[d - 1].extend([int(w) - 1] * int(n))
    doc_ids = tuple(map(str, data.get("doc_ids", ())))
    corpus = BagOfWords.from_token_ids(documents, Vocabulary(tuple(words)), doc_ids=doc_ids)
    if model == "lda":
        from bayeswe.lda import LDAData

        return LDAData(corpus, n_topics=int(stan["K"]), alpha=stan["alpha"], beta=stan["beta"])
    if model == "hdp_lda":
        from bayeswe.dp import HDPLDAData

        return HDPLDAData(
            corpus, truncation=int(stan["T"]), gamma=float(stan["gamma"]),
            alpha0=float(stan["alpha0"]), eta=float(stan["eta"]),
        )  # fmt: skip
    from bayeswe.glda import GaussianLDAData

    return GaussianLDAData(
        corpus, stan["embeddings"], n_topics=int(stan["K"]), alpha=stan["alpha"],
        mu0=stan["mu0"], kappa=stan["kappa"], nu=stan["nu"], Psi=stan["Psi"],
    )  # fmt: skip


def _check_fit(args: argparse.Namespace) -> None:
    """Everything that can be checked before the run; the results are kept on ``args``."""
    from bayeswe.atomic import check_output_file
    from bayeswe.fit import SAMPLER_METHODS
    from bayeswe.method_options import args_class
    from bayeswe.model_spec import get_model, program_spec, read_data
    from bayeswe.options import build_options, check_int, rename_deprecated
    from bayeswe.stan.fitting import METHODS, check_seed, method_args

    method = args.method
    if method not in METHODS and method not in SAMPLER_METHODS:
        raise ValueError(
            f"--method must be one of {', '.join((*METHODS, *SAMPLER_METHODS))}; got {method!r}"
        )
    program = _is_program(args.model)
    if program:
        if not Path(args.model).is_file():
            raise FileNotFoundError(f"Stan program not found: {args.model}")
        if method in SAMPLER_METHODS:
            raise ValueError(f"--method {method} fits registered models only, not a .stan file")
    else:
        get_model(args.model)  # ValueError naming the registered models
        if method in SAMPLER_METHODS and args.model not in SAMPLER_METHODS[method]:
            raise ValueError(
                f"--method {method} is for model(s) {', '.join(SAMPLER_METHODS[method])}; "
                f"got {args.model!r}"
            )
        if args.dims is not None or args.coords is not None:
            raise ValueError("--dims and --coords apply to a .stan file only")
    check_seed(args.seed)
    if method in CHAIN_METHODS:
        check_int("--chains", args.chains, minimum=1)
    elif args.chains not in (None, 1):
        raise ValueError(f"--method {method} returns one chain: --chains must be 1")
    options = rename_deprecated(method, _method_options(args))
    if method in METHODS:
        method_args(method, args.chains, **options)
    elif (method, args.model) in (("cgs", "gaussian_lda"), ("alias-mh", "gaussian_lda")):
        args_class(method, args.model).from_options(method, options)
    else:
        build_options(args_class(method, args.model), method, options)
    dims = _parse_json("--dims", args.dims)
    coords = _parse_json("--coords", args.coords)
    check_output_file(args.output, "--output")
    data = read_data(args.data)
    if program:
        from bayeswe.stan.program_info import program_info

        program_spec(program_info(args.model), data, dims=dims, coords=coords)
    else:
        get_model(args.model).validate(data)
        data = build_data(args.model, method, data)
    args.prepared = {"data": data, "options": options, "dims": dims, "coords": coords}


def _netcdf_attrs(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """``attrs`` as netCDF stores them: booleans as 0/1, None and mappings as JSON text."""
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        if isinstance(value, (bool, np.bool_)):
            out[key] = int(value)
        elif value is None or isinstance(value, Mapping):
            out[key] = json.dumps(value, default=str)
        elif isinstance(value, (list, tuple)) and not all(
            isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in value
        ):
            out[key] = json.dumps(list(value), default=str)
        else:
            out[key] = value
    return out


def _cmd_fit(args: argparse.Namespace) -> int:
    import bayeswe
    from bayeswe.atomic import write_netcdf_atomic

    prepared = args.prepared
    idata = bayeswe.fit(
        args.model,
        prepared["data"],
        method=args.method,
        seed=args.seed,
        chains=args.chains,
        dims=prepared["dims"],
        coords=prepared["coords"],
        **prepared["options"],
    )
    idata.attrs = _netcdf_attrs(idata.attrs)
    for group in idata.groups():
        idata[group].attrs = _netcdf_attrs(idata[group].attrs)
    write_netcdf_atomic(idata, args.output)
    post = idata.posterior
    print(
        f"bayeswe fit: {args.model} by {args.method}: {post.sizes['chain']} chain(s) of "
        f"{post.sizes['draw']} draws, seed {idata.attrs.get('seed')}; wrote {args.output}",
        file=sys.stderr,
        flush=True,
    )
    return 0


# --------------------------------------------------------------------------- summary


def _check_summary(args: argparse.Namespace) -> None:
    import arviz as az

    from bayeswe.options import check_int

    check_int("--sig-figs", args.sig_figs, minimum=1)
    path = Path(args.fit)
    if not path.is_file():
        raise FileNotFoundError(f"no such fit file: {path}")
    try:
        idata = az.from_netcdf(str(path))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} is not a netCDF file of an InferenceData: {exc}") from None
    if "posterior" not in idata.groups():
        raise ValueError(f"{path} has no posterior group")
    names = None if args.vars is None else [v.strip() for v in args.vars.split(",") if v.strip()]
    unknown = [v for v in names or () if v not in idata.posterior and v != "lp__"]
    if unknown:
        raise ValueError(
            f"--vars: {', '.join(unknown)} not in the posterior "
            f"(it has {', '.join(map(str, idata.posterior.data_vars))})"
        )
    args.prepared = {"idata": idata, "vars": names}


def summary_table(idata: Any, var_names: Sequence[str] | None = None, sig_figs: int = 3) -> str:
    """The posterior summary of ``idata`` as text, in the layout of CmdStan's ``stansummary``.

    Parameters
    ----------
    idata
        An InferenceData with a ``posterior`` group (and ``sample_stats.lp``, shown as
        ``lp__``, where the fit has it).
    var_names
        Variables to show (``"lp__"`` included); default all.
    sig_figs
        Significant figures of every number.

    Returns
    -------
    str
        A header (model, method, chains and draws), the table (``Mean``, ``MCSE``,
        ``StdDev``, ``5%``, ``50%``, ``95%``, ``ESS_bulk``, ``R_hat``; ESS and R-hat as
        ArviZ computes them, empty for a single draw) and a footer saying how they are
        computed.
    """
    import arviz as az
    import xarray as xr

    post = idata.posterior
    chains, draws = int(post.sizes["chain"]), int(post.sizes["draw"])
    attrs = dict(idata.attrs) or dict(post.attrs)
    data = post
    stats = idata.get("sample_stats")
    lp = "lp" if stats is not None and "lp" in stats else "lp__"
    if stats is not None and lp in stats and stats[lp].dims[:2] == ("chain", "draw"):
        data = xr.merge([post, stats[lp].rename("lp__").to_dataset()], compat="override")
        data = data[["lp__", *post.data_vars]]
    if var_names is not None:
        data = data[[v for v in var_names if v in data]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one draw or one chain: ESS and R-hat are NaN
        table = az.summary(
            data,
            kind="all",
            stat_focus="mean",
            stat_funcs={
                "5%": lambda x: np.quantile(x, 0.05),
                "50%": lambda x: np.quantile(x, 0.5),
                "95%": lambda x: np.quantile(x, 0.95),
            },
            extend=True,
            round_to="none",
        )
    columns = {
        "mean": "Mean", "mcse_mean": "MCSE", "sd": "StdDev", "5%": "5%", "50%": "50%",
        "95%": "95%", "ess_bulk": "ESS_bulk", "r_hat": "R_hat",
    }  # fmt: skip
    rows = [["", *columns.values()]]
    for name, row in table.iterrows():
        rows.append([str(name), *(_figures(row[c], sig_figs) for c in columns)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        f"Inference for {attrs.get('model', 'the model')} by "
        f"{attrs.get('method', 'an unrecorded method')}: {chains} chain(s), {draws} draw(s) "
        f"each, {chains * draws} in all; seed {attrs.get('seed', 'not recorded')}.",
        "",
    ]
    for r in rows:
        cells = [r[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    lines += [
        "",
        "ESS_bulk is ArviZ's bulk effective sample size and R_hat its rank-normalized split",
        "R-hat (at convergence R_hat = 1); MCSE is the Monte Carlo standard error of the mean.",
    ]
    return "\n".join(lines) + "\n"


def _figures(value: Any, sig_figs: int) -> str:
    value = float(value)
    if not math.isfinite(value):
        return ""
    return f"{value:.{sig_figs}g}"


def _cmd_summary(args: argparse.Namespace) -> int:
    prepared = args.prepared
    print(summary_table(prepared["idata"], prepared["vars"], args.sig_figs), end="")
    return 0
