"""``bayeswe bench gaussian-lda-mixing``: ESS of the log joint per CPU-second, alias-MH vs cgs."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from bench_checks import check_result

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml


def test_quick_run_reports_ess_ratios_over_seeds(run_bench) -> None:
    out = run_bench("gaussian-lda-mixing", "--quick", "--seeds", "2")
    keys = {"corpus", "type_moves"}
    for K in (10, 20):
        keys |= {
            f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}_seeds",
            f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}_ungated",
            f"alias_heldout_ess_per_cpu_s_ratio_vs_cgs_k{K}_seeds",
            f"alias_heldout_ess_per_cpu_s_ratio_vs_cgs_k{K}_ungated",
            f"plateau_reached_seeds_k{K}",
            f"heldout_plateau_reached_seeds_k{K}",
            f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}",
            f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}_min",
            f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}_max",
            f"ess_per_cpu_s_cgs_k{K}",
            f"ess_per_cpu_s_alias_k{K}",
            f"plateau_time_ratio_cgs_over_alias_k{K}",
            f"sweep_speed_ratio_k{K}",
            f"rhat_max_k{K}",
            f"alias_heldout_ess_per_cpu_s_ratio_vs_cgs_k{K}",
            f"alias_heldout_ess_per_cpu_s_ratio_vs_cgs_k{K}_min",
            f"alias_heldout_ess_per_cpu_s_ratio_vs_cgs_k{K}_max",
            f"heldout_ess_per_cpu_s_cgs_k{K}",
            f"heldout_ess_per_cpu_s_alias_k{K}",
            f"heldout_plateau_time_ratio_cgs_over_alias_k{K}",
            f"rhat_max_heldout_k{K}",
            f"moved_per_sweep_cgs_k{K}",
            f"moved_per_sweep_alias_k{K}",
            f"level_gap_sd_k{K}",
            f"tau_growth_cgs_k{K}",
            f"tau_growth_alias_k{K}",
            f"alias_ess_per_cpu_s_ratio_vs_cgs_equal_sweeps_k{K}",
            f"alias_ess_per_cpu_s_ratio_vs_cgs_equal_sweeps_k{K}_min",
            f"alias_ess_per_cpu_s_ratio_vs_cgs_equal_sweeps_k{K}_max",
        }
        for trace in ("", "heldout_"):
            base = f"alias_{trace}ess_per_cpu_s_ratio_vs_cgs_k{K}"
            keys |= {f"{base}_pooled", f"{base}_pooled_ungated"}
    # the default --variants runs both scans: the sampler's default by word (the side
    # alias, which gives the keys above) and the paper's, whose keys carry its side's name
    methods = out["settings"]["methods"]
    assert methods["alias"]["scan"] == "word" and methods["alias_m2_rK"]["scan"] == "document"
    word_keys = {k for k in out["summary"] if "alias_m2_rK" in k}
    assert f"alias_m2_rK_sweep_speed_ratio_k{K}" in word_keys
    summary = check_result(out, "gaussian-lda-mixing", keys | word_keys)
    rows = out["results"]
    assert [(r["K"], r["seed"]) for r in rows] == [(10, 1), (10, 2), (20, 1), (20, 2)]
    for K in (10, 20):
        mine = [r for r in rows if r["K"] == K]
        base = f"alias_ess_per_cpu_s_ratio_vs_cgs_k{K}"
        ratios = sorted(r["alias_ess_per_cpu_s_ratio_vs_cgs_ungated"] for r in mine)
        assert summary[f"{base}_ungated"] == pytest.approx(sum(ratios) / 2)
        gated = sorted(
            r["alias_ess_per_cpu_s_ratio_vs_cgs"]
            for r in mine
            if r["alias_ess_per_cpu_s_ratio_vs_cgs"] is not None
        )
        assert summary[f"{base}_seeds"] == len(gated)
        if gated:
            assert (summary[f"{base}_min"], summary[f"{base}_max"]) == (gated[0], gated[-1])
            assert summary[base] == pytest.approx(sum(gated) / len(gated))
        else:
            assert summary[base] is None

        # pooled: all windows' effective draws over all their CPU time, alias over cgs
        def pooled(rows, side_of=lambda side: side):
            rate = {
                side: sum(side_of(r[side])["ess"] for r in rows)
                / sum(side_of(r[side])["window_cpu_s"] for r in rows)
                for side in ("alias", "cgs")
            }
            return rate["alias"] / rate["cgs"]

        counted = [r for r in mine if r["alias_ess_per_cpu_s_ratio_vs_cgs"] is not None]
        assert summary[f"{base}_pooled_ungated"] == pytest.approx(pooled(mine))
        if counted:
            assert summary[f"{base}_pooled"] == pytest.approx(pooled(counted))
        else:
            assert summary[f"{base}_pooled"] is None
        held = f"alias_heldout_ess_per_cpu_s_ratio_vs_cgs_k{K}_pooled_ungated"
        assert summary[held] == pytest.approx(pooled(mine, lambda side: side["heldout"]))
        for side in ("cgs", "alias"):
            moved = sorted(r[side]["moved_per_sweep"] for r in mine)
            # a share of the training tokens, averaged over the window's sweeps
            assert all(0.0 <= m <= 1.0 for m in moved)
            assert summary[f"moved_per_sweep_{side}_k{K}"] == pytest.approx(sum(moved) / 2)
        gaps = sorted(r["level_gap_sd"] for r in mine)
        assert summary[f"level_gap_sd_k{K}"] == pytest.approx(sum(gaps) / 2)
        reached = sum(r["alias"]["time_to_plateau_cpu_s"] is not None for r in mine)
        assert summary[f"plateau_reached_seeds_k{K}"] == reached
        assert math.isfinite(summary[f"rhat_max_k{K}"])
        for r in mine:
            for side in ("cgs", "alias"):
                s = r[side]
                # the window's ESS per CPU-second, inside the budget on the thread clock
                assert s["ess_per_cpu_s"] == pytest.approx(s["ess"] / s["window_cpu_s"])
                # from the end of the last burn-in sweep to the end of the budget
                assert s["window_start_cpu_s"] <= r["burn_in_cpu_s"]
                total = r["burn_in_cpu_s"] + r["window_cpu_s"]
                assert 0 < s["window_cpu_s"] <= total - s["window_start_cpu_s"]
                assert 1 <= s["ess"] and s["window_sweeps"] >= 8
                # the window's first half, the whole window's batch-means tau and its half's
                assert s["ess_first_half"] > 0
                for key in ("tau_batch_means", "tau_batch_means_first_half"):
                    assert s[key] is None or s[key] > 0
        for side in ("cgs", "alias"):
            growth = [
                r[side]["tau_batch_means"] / r[side]["tau_batch_means_first_half"]
                for r in mine
                if r[side]["tau_batch_means"] and r[side]["tau_batch_means_first_half"]
            ]
            expected = float(np.median(growth)) if growth else None
            equal = [r["alias_ess_per_cpu_s_ratio_vs_cgs_equal_sweeps"] for r in mine]
            assert all(v is None or v > 0 for v in equal)
            counted = [v for v in equal if v is not None]
            assert summary[f"alias_ess_per_cpu_s_ratio_vs_cgs_equal_sweeps_k{K}"] == (
                pytest.approx(float(np.median(counted))) if counted else None
            )
            assert summary[f"tau_growth_{side}_k{K}"] == (
                pytest.approx(expected) if growth else None
            )
        for r in mine:
            gap = (r["alias"]["window_mean"] - r["cgs"]["window_mean"]) / r["cgs"]["window_sd"]
            assert r["level_gap_sd"] == pytest.approx(gap)
            assert r["shared_start_sweeps"] == 0 and r["shared_start_lp"] is None
            ungated = r["alias"]["ess_per_cpu_s"] / r["cgs"]["ess_per_cpu_s"]
            assert r["alias_ess_per_cpu_s_ratio_vs_cgs_ungated"] == pytest.approx(ungated)
            # the ratio counts only with both windows stationary, alias at the plateau and
            # the two windows at one level (means at most 2 of the larger sd apart)
            spread = max(r["alias"]["window_sd"], r["cgs"]["window_sd"])
            at_plateau = (
                max(r["alias"]["rhat"], r["cgs"]["rhat"]) < 1.1
                and r["alias"]["time_to_plateau_cpu_s"] is not None
                and abs(r["alias"]["window_mean"] - r["cgs"]["window_mean"]) <= 2 * spread
            )
            assert r["alias_ess_per_cpu_s_ratio_vs_cgs"] == (ungated if at_plateau else None)
            # the plateau is reached by cgs itself within its run
            assert r["cgs"]["time_to_plateau_cpu_s"] is not None
            # every 10th token of each document is held out and scored, untimed
            assert r["heldout_tokens"] == 60 and r["n_tokens"] == 540
            for side in ("cgs", "alias"):
                h = r[side]["heldout"]
                assert h["ess_per_cpu_s"] == pytest.approx(h["ess"] / h["window_cpu_s"])
                # a mean log density per token of 50-d vectors: finite, and the
                # scores were taken at most once per sweep
                assert math.isfinite(h["window_mean"]) and h["sweeps"] <= r[side]["sweeps"]
            assert r["alias_heldout_ess_per_cpu_s_ratio_vs_cgs_ungated"] == pytest.approx(
                r["alias"]["heldout"]["ess_per_cpu_s"] / r["cgs"]["heldout"]["ess_per_cpu_s"]
            )


def test_budgets_dimensions_and_a_shared_start_can_be_set(run_bench) -> None:
    out = run_bench("gaussian-lda-mixing", "--quick", "--seeds", "1", "--burn-in", "0.1",
                    "--window", "0.15", "--dims", "5", "--shared-start", "0.2")  # fmt: skip
    assert out["settings"]["budgets_cpu_s"] == {"10": [0.1, 0.15], "20": [0.1, 0.15]}
    assert out["settings"]["dims"] == 5 and out["summary"]["corpus"] == "synthetic, pca5"
    assert out["settings"]["shared_start_cpu_s"] == 0.2
    assert "0.2 CPU s, untimed" in out["settings"]["start"]
    for row in out["results"]:
        assert row["dims"] == 5
        # cgs swept from the k-means start for the shared budget, off both sides' clocks
        assert row["shared_start_cpu_s"] == 0.2 and row["shared_start_sweeps"] >= 1
        assert math.isfinite(row["shared_start_lp"])
        for side in ("cgs", "alias"):
            assert row[side]["sweeps"] >= 1
        assert (row["burn_in_cpu_s"], row["window_cpu_s"]) == (0.1, 0.15)
        assert row["cgs"]["window_start_cpu_s"] <= 0.1


def test_alias_variants_each_get_their_ratios(run_bench) -> None:
    out = run_bench("gaussian-lda-mixing", "--quick", "--seeds", "1", "--variants",
                    "2:K,4:3,2:K:2,2:W,1:W,2:F,2:F:D", "--no-heldout")  # fmt: skip
    assert out["settings"]["methods"]["alias_m4_r3"] == {
        "method": "alias-mh", "mh_steps": 4, "rebuild_every": 3, "max_table_age": None,
        "scan": "document", "fresh_doc": False,
    }  # fmt: skip
    assert out["settings"]["methods"]["alias"]["scan"] == "word"  # the sampler's default
    assert out["settings"]["methods"]["alias_m1_word"]["mh_steps"] == 1
    assert out["settings"]["methods"]["alias_m2_rK"]["scan"] == "document"
    assert out["settings"]["methods"]["alias_m2_rK_a2"]["max_table_age"] == 2
    assert out["settings"]["heldout"] is None
    summary = out["summary"]
    row = out["results"][0]  # K = 10
    assert row["alias_m4_r3"]["mh_steps"] == 4 and row["alias_m2_rK"]["rebuild_every"] == 10
    assert row["alias_m2_rK_a2"]["max_table_age"] == 2
    assert row["alias_m2_rK"]["max_table_age"] is None
    assert row["alias"]["scan"] == "word" and row["alias_m2_rK"]["scan"] == "document"
    assert row["alias"]["rebuild_every"] == "word"
    assert out["settings"]["methods"]["alias_m2_frozen"] == {
        "method": "alias-mh", "mh_steps": 2, "rebuild_every": "frozen", "max_table_age": None,
        "scan": "document", "fresh_doc": False,
    }  # fmt: skip
    assert out["settings"]["methods"]["alias_m2_frozen_fd"]["fresh_doc"] is True
    assert row["alias_m2_frozen"]["rebuild_every"] == "frozen"
    assert row["alias_m2_frozen_fd"]["rebuild_every"] == "frozen"
    assert row["alias_m2_frozen_fd"]["fresh_doc"] and not row["alias_m2_frozen"]["fresh_doc"]
    assert row["alias_m2_frozen"]["scan"] == "document"
    assert summary["alias_m2_frozen_sweep_speed_ratio_k10"] == pytest.approx(
        row["alias_m2_frozen"]["sweeps"] / row["cgs"]["sweeps"]
    )
    assert summary["alias_m2_rK_sweep_speed_ratio_k10"] == pytest.approx(
        row["alias_m2_rK"]["sweeps"] / row["cgs"]["sweeps"]
    )
    assert row["heldout_tokens"] == 0 and row["cgs"]["heldout"]["ess"] is None
    for prefix, lead in (("alias_", ""), ("alias_m4_r3_", "alias_m4_r3_")):
        name = prefix.rstrip("_")
        assert summary[f"{prefix}ess_per_cpu_s_ratio_vs_cgs_k10_ungated"] == pytest.approx(
            row[name]["ess_per_cpu_s"] / row["cgs"]["ess_per_cpu_s"]
        )
        assert summary[f"{lead}sweep_speed_ratio_k10"] == pytest.approx(
            row[name]["sweeps"] / row["cgs"]["sweeps"]
        )
        assert summary[f"{prefix}heldout_ess_per_cpu_s_ratio_vs_cgs_k10"] is None


def test_variant_parsing() -> None:
    from bayeswe.bench.gaussian_lda_mixing import parse_variants, variant_name, variant_options

    assert parse_variants("2:K, 8:k,1:50,3,2:K:3,4:w,2:f,2:F:d,2:K:3:D") == [
        (2, None, None, False), (8, None, None, False), (1, 50, None, False),
        (3, None, None, False), (2, None, 3, False), (4, "word", None, False),
        (2, "frozen", None, False), (2, "frozen", None, True), (2, None, 3, True),
    ]  # fmt: skip
    assert [
        variant_name(*v) for v in parse_variants("2:K,8:K,2:50,2:K:3,2:W,1:W,4:F,2:F:D,2:K:3:D")
    ] == [
        "alias_m2_rK", "alias_m8_rK", "alias_m2_r50", "alias_m2_rK_a3", "alias", "alias_m1_word",
        "alias_m4_frozen", "alias_m2_frozen_fd", "alias_m2_rK_a3_fd",
    ]  # fmt: skip
    assert variant_options(2, "frozen", None) == {
        "mh_steps": 2, "rebuild_every": "never", "max_table_age": None, "scan": "document",
        "fresh_doc": False,
    }  # fmt: skip
    assert variant_options(2, None, None, True)["fresh_doc"] is True
    for bad in ("0:K", "2:0", "x:K", "2:", "2:K,2:K", "", "2:K:0", "2:K:3:1", "2:K:x", "2:W:3",
                "0:W", "2:F:3", "2:F,2:f", "2:W:D", "2:F:D,2:f:d", "2:K:3:1:D",
                "2:K:D:D"):  # fmt: skip
        with pytest.raises(ValueError, match="alias variant|at least one"):
            parse_variants(bad)


def test_the_heldout_split_takes_every_nth_token_of_each_document() -> None:
    import dataclasses

    import numpy as np

    from bayeswe.bench.gaussian_lda_mixing import _split_heldout

    @dataclasses.dataclass
    class Tokens:
        tok_doc: np.ndarray
        tok_word: np.ndarray

    rng = np.random.default_rng(3)
    doc = rng.integers(0, 7, size=200)  # documents interleaved: positions are per document
    word = np.arange(200)  # each token its own word, so the split is visible token by token
    train, held_doc, held_word = _split_heldout(Tokens(doc, word), every=3)
    expected_held = []
    for d in range(7):
        tokens = np.flatnonzero(doc == d)
        expected_held += list(tokens[2::3])  # the 3rd, 6th, ... token of document d
    assert sorted(held_word) == sorted(expected_held)
    assert np.array_equal(held_doc, doc[held_word])
    assert np.array_equal(np.sort(np.concatenate([train.tok_word, held_word])), word)
    # training tokens keep their corpus order, and every document keeps its first token
    assert np.all(np.diff(train.tok_word) > 0)
    assert set(train.tok_doc) == set(doc)


def test_principal_components_are_the_centred_scores_on_the_leading_axes() -> None:
    import numpy as np

    from bayeswe.bench.gaussian_lda_mixing import principal_components

    rng = np.random.default_rng(0)
    # independent coordinates of sd 5, 3, 1, 0.1 behind a random rotation and shift
    latent = rng.normal(size=(400, 4)) * np.array([5.0, 3.0, 1.0, 0.1])
    rotation, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    vectors = latent @ rotation.T + np.array([1.0, -2.0, 3.0, 0.5])
    scores = principal_components(vectors, 2)
    assert scores.shape == (400, 2)
    np.testing.assert_allclose(scores.mean(axis=0), 0.0, atol=1e-12)
    # uncorrelated, variances in decreasing order, and they are the sample's top two
    cov = np.cov(scores.T)
    assert abs(cov[0, 1]) < 1e-9 * cov[0, 0]
    top = np.sort(np.linalg.eigvalsh(np.cov(vectors.T)))[::-1][:2]
    np.testing.assert_allclose(np.diag(cov), top, rtol=1e-10)
    # the scores recover the two leading latent coordinates up to sign and sampling error
    for j in range(2):
        assert abs(np.corrcoef(scores[:, j], latent[:, j])[0, 1]) > 0.99
    # all the dimensions: a rotation of the centred vectors (distances kept exactly)
    full = principal_components(vectors, 4)
    centred = vectors - vectors.mean(axis=0)
    np.testing.assert_allclose(full @ full.T, centred @ centred.T, atol=1e-9)
    # each axis is signed so that its largest loading is positive: negating the input
    # negates the scores instead of leaving the sign to the SVD routine
    np.testing.assert_allclose(principal_components(-vectors, 2), -scores, atol=1e-9)
    for bad in (0, 5):
        with pytest.raises(ValueError, match="dims must be in"):
            principal_components(vectors, bad)


def test_min_count_keeps_the_frequent_words_of_all_300_lee_documents() -> None:
    """``--min-count C``: every word type of the benchmark's corpus has at least C tokens
    in Lee's 300 documents, so tokens per type rise with C (alias-MH's per-sweep bound)."""
    from bayeswe.bench.gaussian_lda_mixing import MIN_COUNT, _data

    default, name = _data(300, True, False, None)
    frequent, frequent_name = _data(300, True, False, 10, min_count=10)
    assert name == "lee[:300]+glove50" and MIN_COUNT == 2
    assert frequent_name == "lee[:300]+glove50, min count 10, pca10"
    assert frequent.embeddings.shape == (len(frequent.corpus.vocabulary), 10)
    counts = np.bincount(frequent.corpus.tokens()[1], minlength=len(frequent.corpus.vocabulary))
    assert counts.min() >= 10
    assert set(frequent.corpus.vocabulary.words) < set(default.corpus.vocabulary.words)
    per_type = [c.corpus.doc_lengths.sum() / len(c.corpus.vocabulary) for c in (default, frequent)]
    assert per_type[1] > 2 * per_type[0]


def test_type_moves_run_on_every_side(run_bench) -> None:
    out = run_bench("gaussian-lda-mixing", "--quick", "--seeds", "1", "--type-moves", "2",
                    "--variants", "2:W,2:K", "--no-heldout")  # fmt: skip
    assert out["settings"]["type_moves"] == 2 and out["summary"]["type_moves"] == 2
    for row in out["results"]:
        assert row["type_moves"] == 2
        for side in ("cgs", "alias", "alias_m2_rK"):
            assert row[side]["sweeps"] >= 1
    with pytest.raises(SystemExit, match="--type-moves must be >= 0"):
        from bayeswe.bench.gaussian_lda_mixing import main

        main(["--quick", "--type-moves", "-1"])


def test_min_count_must_be_positive() -> None:
    from bayeswe.bench.gaussian_lda_mixing import main

    with pytest.raises(SystemExit, match="--min-count must be >= 1"):
        main(["--quick", "--min-count", "0"])


def test_synthetic_words_sets_tokens_per_type() -> None:
    """``--synthetic-words N``: the synthetic corpus draws its tokens from N word types, so
    ``docs * 100 / N`` tokens per type on average (fewer types: more tokens per type)."""
    from bayeswe.bench.gaussian_lda_mixing import SYNTHETIC_WORDS, _data, main

    default, name = _data(40, False, False, None)
    few, few_name = _data(40, False, False, 10, synthetic_words=100)
    assert name == "synthetic" and SYNTHETIC_WORDS == 3000
    assert few_name == "synthetic, 100 words, pca10"
    assert few.corpus.doc_lengths.sum() == default.corpus.doc_lengths.sum() == 4000
    assert len(few.corpus.vocabulary) == 100  # every type drawn (corpus seed 0)
    assert few.embeddings.shape == (100, 10)
    assert len(default.corpus.vocabulary) > 1000
    with pytest.raises(SystemExit, match="--synthetic-words must be >= 2"):
        main(["--quick", "--synthetic-words", "1"])


def test_a_shared_start_can_come_from_alias_mh(run_bench) -> None:
    out = run_bench("gaussian-lda-mixing", "--quick", "--seeds", "1", "--burn-in", "0.1",
                    "--window", "0.15", "--shared-start", "0.2", "--shared-start-method",
                    "alias-mh", "--no-heldout")  # fmt: skip
    assert out["settings"]["shared_start_method"] == "alias-mh"
    assert out["settings"]["start"].startswith("the state alias-mh reaches")
    for row in out["results"]:
        assert row["shared_start_method"] == "alias-mh" and row["shared_start_sweeps"] >= 1
        assert math.isfinite(row["shared_start_lp"])
        for side in ("cgs", "alias"):
            assert row[side]["sweeps"] >= 1
    with pytest.raises(SystemExit):
        from bayeswe.bench.gaussian_lda_mixing import main

        main(["--quick", "--shared-start", "1", "--shared-start-method", "naive"])


def test_batch_means_tau_is_exact_on_blocks_and_none_when_undefined() -> None:
    from bayeswe.bench.gaussian_lda_mixing import batch_means_tau

    # 4 batches of 3 equal values: the batch means are the values, so tau is
    # 3 * var(values) / var(trace), the trace's variance with ddof=1 over 12 points
    values = np.array([1.0, -2.0, 4.0, 0.5])
    trace = np.repeat(values, 3)
    assert batch_means_tau(trace, batches=4) == pytest.approx(
        3 * values.var(ddof=1) / trace.var(ddof=1)
    )
    # a tail shorter than a batch is left out of the means but not of the variance
    longer = np.append(trace, 7.0)
    assert batch_means_tau(longer, batches=4) == pytest.approx(
        3 * values.var(ddof=1) / longer.var(ddof=1)
    )
    assert batch_means_tau(np.ones(100)) is None
    assert batch_means_tau(np.arange(30.0), batches=20) is None  # one sweep per batch


def test_batch_means_tau_recovers_an_ar1_autocorrelation_time() -> None:
    from bayeswe.bench.gaussian_lda_mixing import batch_means_tau

    # AR(1) with phi = 0.8: tau = (1 + phi) / (1 - phi) = 9. With 20 batches of 10,000
    # (>> tau) the estimate is tau * chi2_19 / 19 up to O(tau / b): within [0.39, 2.0]
    # of tau with probability 0.999; fixed seed
    rng = np.random.default_rng(20261130)
    phi, n = 0.8, 200_000
    eps = rng.normal(size=n)
    x = np.empty(n)
    x[0] = eps[0] / math.sqrt(1 - phi**2)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + eps[i]
    tau = batch_means_tau(x)
    assert 0.39 * 9 < tau < 2.0 * 9
    # a slow mode (a level that changes every 50,000 sweeps) makes it grow with the window
    slow = x + np.repeat(rng.normal(scale=3.0, size=n // 50_000), 50_000)
    assert batch_means_tau(slow) > 2.0 * 9


def test_heldout_score_is_a_function_of_the_state() -> None:
    """The held-out trace is scored from factors made from z alone: the last score equals
    that of the same z set up from scratch to the bit, where the chain's carried factors
    (rank-one updates along its path) give a score that differs in the last digits, and
    a revisited state would rank by its rounding instead of tying."""
    from bayeswe.bench.gaussian_lda_mixing import _run_side, _split_heldout
    from bayeswe.glda.simulate import simulate_gaussian_lda
    from bayeswe.kernels import glda as kern
    from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, step

    data, _ = simulate_gaussian_lda(n_docs=20, doc_length=30, n_topics=5, dim=10, seed=3)
    problem, held_doc, held_word = _split_heldout(GLDAProblem.from_data(data), every=5)
    state = init_state(problem, seed=1, method="alias-mh")
    step(problem, copy.deepcopy(state), method="alias-mh")  # compile: the budget is CPU time
    lp_trace, held_trace, _ = _run_side(
        problem, state, "alias-mh", {}, 0.2, (held_doc, held_word), 0.0
    )
    assert len(held_trace) == len(lp_trace) > 1  # scored after every sweep

    def score(s) -> float:
        kern.resync_topics(s.kappa_k, s.nu_k, s.R, s.logdet, s.tconst, s.tscale, s.texp)
        total = kern.completion_log_density(
            held_doc, held_word, problem.emb, s.n_dk, problem.alpha, s.mu, s.R, s.invd,
            s.tconst, s.tscale, s.texp,
        )  # fmt: skip
        return float(total) / held_doc.size

    fresh = init_state(problem, seed=0, z=state.z)
    assert held_trace[-1][1] == score(fresh)
    assert score(state) != held_trace[-1][1]  # the premise: carried factors differ


def test_equal_sweeps_ratio_is_the_sweep_speed_ratio_for_a_trace_that_repeats_cgs() -> None:
    import arviz as az

    from bayeswe.bench.gaussian_lda_mixing import _equal_sweeps_ratio

    rng = np.random.default_rng(7)
    lp = rng.normal(size=400).cumsum() * 0.1 + rng.normal(size=400)
    ess = float(az.ess(lp[None, :], method="bulk"))
    cgs = {"window_sweeps": 400, "ess": ess, "window_cpu_s": 40.0, "ess_per_cpu_s": ess / 40.0}
    # the other side's window starts with cgs's 400 values, then 800 more sweeps, all in
    # 30 CPU-seconds after a 5-s burn-in: 40 sweeps per CPU-second against cgs's 10
    values = np.concatenate([lp, rng.normal(size=800)])
    trace = [(1.0, 0.0)] * 3 + [(5.0 + 30.0 * (j + 1) / 1200, v) for j, v in enumerate(values)]
    other = {"window_sweeps": 1200, "ess": 50.0, "window_cpu_s": 30.0}
    assert _equal_sweeps_ratio(cgs, other, trace, burn=5.0) == pytest.approx(4.0)
    # too few sweeps in the other window, or no ESS on either side: no ratio
    assert _equal_sweeps_ratio(cgs, {**other, "window_sweeps": 399}, trace, 5.0) is None
    assert _equal_sweeps_ratio({**cgs, "ess_per_cpu_s": None}, other, trace, 5.0) is None
    assert _equal_sweeps_ratio(cgs, {**other, "ess": None}, trace, 5.0) is None


def test_advance_shared_start_shares_only_the_assignments() -> None:
    """No budget: the start itself. A budget: sweeps of the method, then for alias-MH a
    state rebuilt from the assignments alone, whose tables are unbuilt (each side builds
    its own) and whose topics equal a from-scratch state's."""
    from bayeswe.bench.gaussian_lda import with_topics
    from bayeswe.bench.gaussian_lda_mixing import _data, advance_shared_start
    from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state

    data, _ = _data(20, False, True)
    problem = GLDAProblem.from_data(with_topics(data, 10))
    base = init_state(problem, seed=3, method="alias-mh", init="kmeans")
    same, sweeps, last_lp, _ = advance_shared_start(problem, base, 3, 0.0, "alias-mh")
    assert same is base and sweeps == 0 and last_lp is None

    z0 = base.z.copy()
    state, sweeps, last_lp, accepted = advance_shared_start(problem, base, 3, 0.05, "alias-mh")
    assert sweeps >= 1 and math.isfinite(last_lp) and accepted == 0  # no block moves
    assert state is not base and (state.z == base.z).all() and (state.z != z0).any()
    assert (state.uses == -1).all()
    fresh = init_state(problem, seed=3, method="alias-mh", z=state.z)
    np.testing.assert_array_equal(state.n_dk, fresh.n_dk)
    np.testing.assert_allclose(state.mu, fresh.mu, rtol=0, atol=0)

    cgs_base = init_state(problem, seed=3, method="alias-mh", init="kmeans")
    kept, sweeps, _, _ = advance_shared_start(problem, cgs_base, 3, 0.05, "cgs")
    assert kept is cgs_base and sweeps >= 1 and (kept.uses == -1).all()


def test_the_shared_start_can_be_made_with_block_moves_that_the_windows_leave_out(
    run_bench,
) -> None:
    out = run_bench("gaussian-lda-mixing", "--quick", "--seeds", "1", "--burn-in", "0.1",
                    "--window", "0.15", "--shared-start", "0.2", "--shared-start-method",
                    "alias-mh", "--shared-start-type-moves", "1", "--no-heldout")  # fmt: skip
    assert out["settings"]["shared_start_type_moves"] == 1
    assert out["settings"]["type_moves"] == 0 and out["summary"]["type_moves"] == 0
    for row in out["results"]:
        assert row["shared_start_type_moves"] == 1 and row["type_moves"] == 0
        assert row["shared_start_sweeps"] >= 1
        assert row["shared_start_type_moves_accepted"] >= 1  # the start's block moves ran
        for side in ("cgs", "alias"):
            assert row[side]["sweeps"] >= 1
    from bayeswe.bench.gaussian_lda_mixing import main

    with pytest.raises(SystemExit, match="needs --shared-start"):
        main(["--quick", "--shared-start-type-moves", "1"])
    with pytest.raises(SystemExit, match="must be >= 0"):
        main(["--quick", "--shared-start", "1", "--shared-start-type-moves", "-1"])
