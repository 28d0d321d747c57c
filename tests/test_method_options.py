"""The options table (bayeswe.method_options) against the code and the docs page.

Every shared option the table gives a method is one its argument class takes (and a dash
one it refuses), the samplers' defaults are the ones their argument classes apply, the
docs page holds the generated table, and the deprecated names of earlier releases warn
and name the new option.
"""

from __future__ import annotations

import dataclasses
import importlib
import warnings
from pathlib import Path

import pytest

from bayeswe.method_options import (
    APPROXIMATION_OPTIONS,
    DEFAULTS,
    MCMC_OPTIONS,
    args_class,
    options_markdown,
)
from bayeswe.options import DEPRECATED_OPTIONS, rename_deprecated
from bayeswe.stan.fitting import METHODS

SAMPLER_METHODS = importlib.import_module("bayeswe.fit").SAMPLER_METHODS

REPO = Path(__file__).resolve().parents[1]
#: Shared options that are arguments of ``fit`` rather than fields of an argument class.
FIT_ARGUMENTS = {"chains"}


def test_the_docs_page_holds_the_generated_table() -> None:
    page = (REPO / "docs" / "options.md").read_text(encoding="utf-8")
    assert options_markdown() in page


def test_every_method_and_model_of_fit_has_a_row() -> None:
    rows = {method for method, _model in DEFAULTS}
    assert rows == set(METHODS) | set(SAMPLER_METHODS)
    for method, models in SAMPLER_METHODS.items():
        for model in models:
            assert (method, model) in DEFAULTS


@pytest.mark.parametrize(("method", "model"), list(DEFAULTS))
def test_a_dash_is_an_option_the_method_refuses(method: str, model: str) -> None:
    fields = {f.name for f in dataclasses.fields(args_class(method, model))}
    shared = MCMC_OPTIONS if "chains" in DEFAULTS[method, model] else APPROXIMATION_OPTIONS
    for option in shared:
        taken = option in fields or option in FIT_ARGUMENTS
        assert (DEFAULTS[method, model][option] is not None) == taken, option


def test_the_samplers_defaults_are_the_ones_they_apply() -> None:
    from bayeswe.samplers.gaussian_lda import GLDAGibbsArgs
    from bayeswe.samplers.jj_vb import JJSVIArgs, JJVBArgs
    from bayeswe.samplers.laplace_sparse import LaplaceSparseArgs
    from bayeswe.samplers.lda_cgs import CGSArgs
    from bayeswe.samplers.lda_vi import CAVIArgs, SVIArgs
    from bayeswe.samplers.pg_gibbs import PGGibbsArgs

    def lengths(key: tuple[str, str]) -> tuple:
        return tuple(DEFAULTS[key][o] for o in ("iter_warmup", "iter_sampling", "thin"))

    cgs = CGSArgs()
    assert lengths(("cgs", "lda")) == (cgs.n_warmup, cgs.n_sampling, cgs.n_thin)
    for method in ("cgs", "alias-mh"):
        s = GLDAGibbsArgs().settings(3)
        assert lengths((method, "gaussian_lda")) == (
            s["iter_warmup"],
            s["iter_sampling"],
            s["thin"],
        )
    from bayeswe.samplers import dp_mixture as dpm

    assert lengths(("cgs", "dp_mixture")) == dpm.DEFAULT_SCHEDULE
    s = PGGibbsArgs().settings()
    assert lengths(("pg-gibbs", "sgns_identified")) == (
        s["iter_warmup"], s["iter_sampling"], s["thin"],
    )  # fmt: skip
    for key, args in {
        ("cavi", "lda"): CAVIArgs(),
        ("svi", "lda"): SVIArgs(),
        ("jj-vb", "sgns"): JJVBArgs(),
        ("jj-svi", "sgns"): JJSVIArgs(),
        ("laplace-sparse", "sgns_identified"): LaplaceSparseArgs(),
    }.items():
        for option in ("iter", "tol_rel_obj", "draws"):
            if DEFAULTS[key][option] is not None:
                assert getattr(args, option) == DEFAULTS[key][option], (key, option)


@pytest.mark.parametrize(
    ("method", "old", "new"),
    [(m, old, new) for m, names in DEPRECATED_OPTIONS.items() for old, new in names.items()],
)
def test_a_deprecated_name_warns_and_names_the_new_one(method: str, old: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"option '{old}' of method '{method}'.*'{new}'"):
        assert rename_deprecated(method, {old: 3, "seed": 1}) == {new: 3, "seed": 1}
    with pytest.raises(ValueError, match="not both"):
        rename_deprecated(method, {old: 3, new: 3})


def test_new_names_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rename_deprecated("cgs", {"iter_warmup": 1}) == {"iter_warmup": 1}


def test_the_warning_points_at_the_callers_line() -> None:
    from bayeswe.samplers.lda_cgs import CGSArgs

    with pytest.warns(DeprecationWarning) as caught:
        CGSArgs.from_options({"burn_in": 2})
    assert caught[0].filename == __file__
