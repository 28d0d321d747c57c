"""What every benchmark's JSON must hold: its exact summary keys and the run facts.

Imported by the tests of this folder (``from bench_checks import ...``).
"""

from __future__ import annotations

import re
from typing import Any

from bayeswe.bench.harness import THREAD_ENV_VARS

#: The summary keys of each benchmark (as before the harness; equal-time is new).
SUMMARY_KEYS: dict[str, set[str]] = {
    "sgns-stan": {
        "grad_speedup_vs_listing2",
        "grad_speedup_per_repeat",
        "grad_time_us_sgns_identified",
        "grad_time_us_listing2",
        "lp_abs_diff_at_start",
        "lp_at_start",
    },
    "lda": {
        "tokens_per_s_ratio_vs_tomotopy_k50",
        "tokens_per_s_ratio_vs_tomotopy_k200",
        "tokens_per_s_ratio_vs_tomotopy_nyt_k50",
        "tokens_per_s_ratio_vs_tomotopy_nyt_k200",
        "stan_grad_speedup_vs_users_guide",
    },
    "hdp": {
        "corpus",
        *(
            f"{key}{suffix}"
            for key in (
                "tokens_per_s_ratio_vs_tomotopy_hdp",
                "tokens_per_s_ratio_vs_tomotopy_hdp_k300",
                "heldout_minus_tomotopy_hdp",
                "heldout_minus_gensim_hdp",
                "time_to_gensim_heldout_ratio",
            )
            for suffix in ("", "_sd", "_min", "_max")
        ),
        "live_topics",
        "live_topics_k300",
        "live_in_range",
        "heldout_bands_separate",
        "by_corpus",
    },
    "hdp-chains": {
        "corpus",
        "alpha0",
        "gamma",
        "concentrations",
        "split_merge",
        "live_topics",
        *(
            f"{side}{key}"
            for side in ("", "tomotopy_")
            for key in ("rhat_n_topics", "ess_bulk_min", "wall_s", "diagnosable")
        ),
    },
    "gaussian-lda-alias-kernel": {
        "tokens",
        "sweeps",
        "moved_exact",
        "mass_outside_copies",
        "fresh_topics_mean",
        "hot_shifts",
        *(
            f"{key}_m{m}"
            for m in (2, 16)
            for key in (
                "tv_mean",
                "tv_q99",
                "share_tv_above_0_1",
                "moved",
                "stale_log_rise_median_tv_above_0_1",
            )
        ),
        "variant",
        "K",
    },
    "pg-gibbs-profile": {
        "ms_per_sweep",
        "pg_draw_fraction",
        "pg_ns_per_draw",
        "gaussian_update_fraction",
        "pg_table_speedup",
        "setting",
    },
    "lda-stan": {
        "stan_grad_speedup_vs_users_guide",
        "grad_speedup_per_repeat",
        "grad_time_us_lda",
        "grad_time_us_users_guide",
        "sampler_step_us",
        "stan_grad_speedup_net_of_sampler",
        "lp_gap_error",
    },
    "gaussian-lda": {
        "alias_speedup_vs_cholesky_k100",
        "cholesky_tokens_per_s_d50_k20",
        "headline_corpus",
        "alias_speedup_vs_cholesky_k100_synthetic",
        "alias_document_speedup_vs_cholesky_k100",
        "alias_fresh_doc_speedup_vs_cholesky_k100",
        "cholesky_tokens_per_s_d50_k20_synthetic",
        "java_reference_tokens_per_s_d50_k20_quoted",
        "cholesky_vs_java_quoted",
        "timing",
        "real_corpus",
        "load_average",
    },
    "gaussian-lda-stan": {
        "grad_speedup_vs_per_token",
        "grad_speedup_per_repeat",
        "grad_time_us_gaussian_lda",
        "grad_time_us_per_token",
        "lp_abs_diff_at_start",
        "lp_at_start",
        "nuts_wall_s",
        "nuts_stan_wall_s",
        "nuts_min_ess_bulk_mu",
        "nuts_max_rhat_mu",
        "nuts_divergences",
        "nuts_mean_leapfrog_steps",
    },
    "corpus-pairs": {
        "n_tokens",
        "V",
        "seconds_1e7_tokens",
        "peak_rss_gb_1e7_tokens",
        "extra_rss_gb_1e7_tokens",
        "unique_pairs_1e7",
        "observations_1e7",
        "peer_seconds_1e7_tokens",
        "peer_extra_rss_gb_1e7_tokens",
        "speedup_vs_numpy_unique",
        "memory_ratio_vs_numpy_unique",
        "speedup_vs_numpy_unique_small",
        "small_n_tokens",
    },
    "evaluation": {
        "analogy_seconds",
        "analogy_speedup_vs_gensim",
        "analogy_agrees_with_gensim",
        "analogy_accuracy",
        "analogy_all_covered_seconds",
        "analogy_all_covered_speedup_vs_gensim",
        "analogy_all_covered_agrees_with_gensim",
        "spearman",
        "posterior_spearman_seconds",
        "posterior_spearman_speedup_vs_loop",
        "posterior_neighbours_seconds",
        "posterior_analogy_seconds_per_draw",
    },
}


def pg_gibbs_summary_keys(max_threads: int) -> set[str]:
    """pg-gibbs names one key after the largest ``--threads`` count."""
    return {
        "ess_per_s_ratio_vs_nuts",
        "ess_per_s_ratio_vs_nuts_min",
        "ess_per_s_ratio_vs_nuts_max",
        "ess_per_s_ratio_vs_nuts_total_time",
        f"ess_per_s_ratio_vs_nuts_gibbs_{max_threads}_threads",
        "ess_per_s_ratio_vs_nuts_per_block",
        "ratio_setting",
        "gibbs_threads_for_headline",
        "seeds",
        "warmup",
        "draws",
        "ess_per_s_ratio_vs_nuts_by_setting",
        "nuts_unfinished_settings",
        "ess_per_s_ratio_vs_nuts_largest_finished",
        "ess_per_s_ratio_vs_nuts_largest_finished_min",
        "ess_per_s_ratio_vs_nuts_largest_finished_max",
        "largest_finished_setting",
        "overrelax",
        "ess_per_s_ratio_vs_nuts_overrelaxed",
        "ess_per_s_ratio_vs_nuts_overrelaxed_min",
        "ess_per_s_ratio_vs_nuts_overrelaxed_max",
        "ess_per_s_ratio_vs_nuts_overrelaxed_by_setting",
        "ess_per_s_ratio_vs_nuts_overrelaxed_largest_finished",
        "ess_per_s_ratio_vs_nuts_overrelaxed_largest_finished_min",
        "ess_per_s_ratio_vs_nuts_overrelaxed_largest_finished_max",
        "tail_ess_per_s_ratio_vs_nuts",
        "tail_ess_per_s_ratio_vs_nuts_overrelaxed",
        "lp_ess_per_s_ratio_vs_nuts",
        "lp_ess_per_s_ratio_vs_nuts_overrelaxed",
        "congress_s_per_sweep",
        "congress_peak_gb",
        "gflops_fraction_of_peak",
    }


def check_run_facts(run: dict[str, Any]) -> None:
    """The ``run`` object of a result: every fact present, each of the right type."""
    assert isinstance(run["command"], str) and run["command"]
    assert isinstance(run["dirty"], (bool, type(None)))
    if run["dirty"] is False:
        assert re.fullmatch(r"[0-9a-f]{40}", run["commit"])
    else:  # a dirty tree (or no git) must not claim a commit
        assert run["commit"] is None
    for key in ("started_utc", "ended_utc"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", run[key]), key
    assert run["started_utc"] <= run["ended_utc"]
    assert isinstance(run["duration_s"], float) and run["duration_s"] >= 0
    assert isinstance(run["cpu_count"], int) and run["cpu_count"] >= 1
    assert 1 <= run["cpus_available"] <= run["cpu_count"]
    assert isinstance(run["cpu_model"], str) and run["cpu_model"]
    for key in ("load_average_start", "load_average_end"):
        load = run[key]
        assert len(load) == 3 and all(isinstance(x, float) and x >= 0 for x in load), key
    assert set(run["threads"]["env"]) == set(THREAD_ENV_VARS)
    assert run["threads"]["numba_num_threads"] >= 1
    versions = run["versions"]
    assert versions["python"] == run["python"]
    for package in ("bayeswe", "numpy", "numba", "scipy", "arviz", "cmdstanpy"):
        assert re.match(r"\d+\.\d+", versions[package]), package
    assert "version" in versions["stan_toolchain"]


def check_result(
    result: dict[str, Any], name: str, summary_keys: set[str] | None = None
) -> dict[str, Any]:
    """A benchmark's printed object: its name, exact summary keys, run facts; the summary."""
    assert result["benchmark"] == name
    assert list(result)[:3] == ["benchmark", "summary", "run"]
    expected = SUMMARY_KEYS[name] if summary_keys is None else summary_keys
    assert set(result["summary"]) == expected
    check_run_facts(result["run"])
    return result["summary"]
