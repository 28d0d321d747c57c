"""``bayeswe bench hdp``: HDP-LDA against tomotopy's HDPModel and gensim's HdpModel."""

import numpy as np
import pytest
from bench_checks import check_result

from bayeswe.bench import hdp as bench
from bayeswe.dp import simulate_hdp_lda
from bayeswe.dp.diagnostics import complete, complete_topics, fit_topics


@pytest.fixture(scope="module")
def split():
    sim = simulate_hdp_lda(n_docs=60, doc_length=30, n_words=40, seed=3)
    return bench.prepare(sim.data.corpus, 1, fraction=0.2)


@pytest.mark.slow  # see the slow marker in pyproject.toml
def test_quick_bench_prints_one_json_object_with_the_summary(run_bench):
    result = run_bench("hdp", "--quick", "--iterations", "4", "--chunk", "2", "--seeds", "2")
    summary = check_result(result, "hdp")
    for key in bench.HEADLINE_KEYS:
        assert summary[key] is not None and summary[f"{key}_sd"] >= 0
    assert summary["tokens_per_s_ratio_vs_tomotopy_hdp"] > 0
    assert set(summary["live_topics"]) == {"bayeswe", "tomotopy"}
    assert set(summary["by_corpus"]) == {"simulated"}
    assert result["run"]["versions"]["tomotopy"] is not None
    assert result["run"]["versions"]["gensim"] is not None
    rows = result["results"]
    assert {(r["tool"], r["setting"], r["seed"]) for r in rows} == {
        *((tool, setting, seed) for tool in ("bayeswe", "tomotopy")
          for setting in ("k50to100", "k300") for seed in (1, 2)),
        *(("gensim", "k50to100", seed) for seed in (1, 2)),
    }  # fmt: skip
    assert all(r["iterations"] == 4 and r["rate"] > 0 for r in rows if r["tool"] != "gensim")
    assert all(np.isfinite(r["heldout"]) and r["heldout"] < 0 for r in rows)
    ours = [r for r in rows if r["tool"] == "bayeswe" and r["setting"] == "k50to100"]
    assert [c["sweeps"] for c in ours[0]["trace"]] == [1, 2, 4]  # checkpoints up to 4


def test_one_evaluator_scores_the_same_topics_the_same_whoever_made_them(split) -> None:
    """Exact: our fits' route (``complete``) is the generic evaluator, and a peer's
    ``(phi, alpha)`` scores the same as bit-identical copies made elsewhere."""
    import bayeswe
    from bayeswe.dp import HDPLDAData

    data = HDPLDAData(split.train, truncation=10, alpha0=1.0, gamma=1.0, eta=0.01)
    idata = bayeswe.fit("hdp_lda", data, method="cgs", seed=2, chains=1, iter_warmup=10,
                        iter_sampling=6, thin=2, show_progress=False)  # fmt: skip
    ours = complete(idata, split.observed, split.heldout, draws=3, seed=5)
    generic = complete_topics(fit_topics(idata, draws=3), split.observed, split.heldout, seed=5)
    assert ours.log_predictive == generic.log_predictive
    assert np.array_equal(ours.per_draw, generic.per_draw)

    setting = bench.Setting("t", 1.0, 1.0, 3, ("tomotopy",))
    tomotopy = bench._Tomotopy(split.train, setting, 1)
    tomotopy.advance(5)
    phi, alpha = tomotopy.topics()
    assert np.allclose(phi.sum(axis=1), 1.0) and (alpha > 0).all()
    copies = (np.asfortranarray(np.array(phi.tolist())), np.array(alpha.tolist()))
    assert bench.score([(phi, alpha)], split, 7) == bench.score([copies], split, 7)


def test_topics_with_the_words_shuffled_score_worse(split) -> None:
    setting = bench.Setting("t", 1.0, 1.0, 3, ("tomotopy",))
    ours = bench._Ours(split.train, setting, 1, "cgs")
    ours.advance(20)
    phi, alpha = ours.topics()
    wrong = phi[:, np.random.default_rng(0).permutation(phi.shape[1])]
    assert bench.score([(wrong, alpha)], split, 3) < bench.score([(phi, alpha)], split, 3) - 0.1


def test_expected_beta_matches_antoniak_expectations_at_its_fixed_point() -> None:
    from scipy.special import digamma

    n_dk = np.array([[5, 0, 2], [3, 1, 0], [0, 4, 4]])
    beta, beta_u = bench.expected_beta(n_dk, 2.0, 0.5, iterations=200)
    a = 2.0 * beta
    m = np.where(n_dk > 0, a * (digamma(a + n_dk) - digamma(a)), 0.0).sum(axis=0)
    assert np.allclose(beta, m / (m.sum() + 0.5)) and beta_u == pytest.approx(0.5 / (m.sum() + 0.5))
    assert beta.sum() + beta_u == pytest.approx(1.0)


def test_an_unknown_method_is_refused_before_anything_runs() -> None:
    with pytest.raises(ValueError, match="method must be one of cgs"):
        bench.run(quick=True, method="nope")


def test_repeated_documents_are_dropped_before_the_split() -> None:
    from bayeswe.corpus import BagOfWords, repeated_documents

    sim = simulate_hdp_lda(n_docs=60, doc_length=30, n_words=400, seed=3)
    dense = sim.data.corpus.to_dense()
    copies = dense[[3, 10, 10, 25]] * [[1], [1], [2], [1]]  # doc 10 twice, once doubled
    with_copies = BagOfWords.from_dense(np.vstack([dense, copies]), sim.data.corpus.vocabulary)
    assert not repeated_documents(sim.data.corpus).any()  # the simulated documents differ

    kept = bench.prepare(with_copies, 1, fraction=0.2)
    assert kept.repeats_dropped == 0
    assert kept.train.n_docs + kept.observed.n_docs == 64

    split = bench.prepare(with_copies, 1, fraction=0.2, repeat_cosine=bench.REPEAT_COSINE)
    assert split.repeats_dropped == 4
    assert split.train.n_docs + split.observed.n_docs == 60
    # no held-out document has a copy among the training documents
    train = split.train.to_dense().astype(float)
    test = (split.observed.to_dense() + split.heldout.to_dense()).astype(float)
    cosine = (test / np.linalg.norm(test, axis=1, keepdims=True)) @ (
        train / np.linalg.norm(train, axis=1, keepdims=True)
    ).T
    assert cosine.max() < bench.REPEAT_COSINE
