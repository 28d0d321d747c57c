"""Every user-facing numeric input gets bayeswe's range checks and a message naming it:
the demo's options by their flags, ``fixed_alpha`` by its magnitude (the condition
number is scale-free), and seeds by their name and the range [0, 2**32 - 1]."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bayeswe import cli
from bayeswe.corpus.pairs import sgns_data
from bayeswe.corpus.types import CorpusError
from bayeswe.dp import simulate_dp_mixture, simulate_hdp_lda
from bayeswe.errors import StanDataError
from bayeswe.glda.simulate import simulate_gaussian_lda
from bayeswe.lda.simulate import simulate_lda
from bayeswe.model_spec import get_model
from bayeswe.sgns import SGNSData, check_anchors, fit_sgns, simulate_sgns
from bayeswe.sgns.errors import IdentificationError, SGNSDataError
from bayeswe.sgns.identify import Anchors

DOCS = [["a", "b", "a", "c"], ["b", "c", "a"]]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--first-year", "3000"], "--first-year must be at most"),
        (["--first-year", "1700"], "--first-year must be >= 1790, got 1700"),
        (["--vocab-size", "1"], "--vocab-size must be >= 2, got 1"),
        (["-K", "5000"], "-K 5000 must be below"),
        (["--quick", "--iter-sampling", "0"], "--iter-sampling must be >= 1, got 0"),
        (["--quick", "--draws", "0"], "--iter-sampling must be >= 1, got 0"),  # its old name
    ],
)
def test_demo_names_the_option_it_rejects(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "demo"
    with pytest.raises(SystemExit) as info:
        cli.main(["demo", *argv, "--out", str(out), "--no-download"])
    assert info.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("bayeswe: error: demo: ") and expected in err[0]
    assert not out.exists()  # nothing ran


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_fixed_alpha_gets_the_magnitude_check(scale: float) -> None:
    matrix = scale * np.eye(2)  # condition number 1: the old check passed it
    with pytest.raises(IdentificationError, match=r"largest \|entry\| of fixed_alpha = 1e[+-]200"):
        check_anchors([0, 1], matrix, V=5, K=2)
    data = SGNSData(["a", "b", "c"], [0, 1, 2], [1, 2, 0], [3, 2, 4], [1, 1, 2])
    with pytest.raises(IdentificationError, match="outside the supported range"):
        data.stan_data(2, fixed_index=[0, 1], fixed_alpha=matrix)
    anchors = Anchors(np.array([0, 1]), matrix)
    with pytest.raises(IdentificationError, match="outside the supported range"):
        fit_sgns(data, 2, method="map", identification="anchors", anchors=anchors, seed=1)
    # the same data as a JSON file for `bayeswe fit sgns_identified`
    fields = data.stan_data(2, fixed_index=[0, 1], fixed_alpha=np.eye(2))
    fields = json.loads(json.dumps({k: np.asarray(v).tolist() for k, v in fields.items()}))
    get_model("sgns_identified").validate(fields)
    fields["fixed_alpha"] = matrix.tolist()
    with pytest.raises(StanDataError, match="fixed_alpha .* outside the supported range"):
        get_model("sgns_identified").validate(fields)
    check_anchors([0, 1], 3.0 * np.eye(2), V=5, K=2)  # an ordinary scale passes


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, "7"])
def test_seeds_get_bayeswes_message(seed: object) -> None:
    pattern = r"seed must be (in|an integer in) \[0, 2\*\*32 - 1\]"
    with pytest.raises(CorpusError, match=pattern):
        sgns_data(DOCS, seed=seed)
    with pytest.raises(SGNSDataError, match=pattern):
        simulate_sgns(5, 2, 10, seed=seed)
    sim = simulate_sgns(5, 2, 10, seed=1)
    for call in (lambda: sim.data.split(0.5, seed=seed), lambda: sim.sample(5, seed=seed)):
        with pytest.raises(SGNSDataError, match=pattern):
            call()


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5])
def test_simulators_of_every_model_check_their_seed(seed: object) -> None:
    pattern = r"seed must be (in|an integer in) \[0, 2\*\*32 - 1\]"
    calls = [
        lambda: simulate_lda(n_docs=2, doc_length=3, n_words=4, n_topics=2, seed=seed),
        lambda: simulate_gaussian_lda(n_docs=2, doc_length=3, n_topics=2, dim=2, seed=seed),
        lambda: simulate_dp_mixture(n_points=5, dim=2, weights=[0.5, 0.5], seed=seed),
        lambda: simulate_hdp_lda(n_docs=2, doc_length=3, n_words=4, beta=[0.5, 0.5], seed=seed),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=pattern):
            call()


def test_gaussian_lda_simulator_names_a_bad_size() -> None:
    with pytest.raises(ValueError, match="n_topics must be >= 2, got 1"):
        simulate_gaussian_lda(n_docs=2, doc_length=3, n_topics=1, dim=2, seed=1)
    with pytest.raises(ValueError, match="noise"):
        simulate_gaussian_lda(n_docs=2, doc_length=3, n_topics=2, dim=2, noise=-1.0, seed=1)


def test_valid_seeds_still_work() -> None:
    for seed in (0, 2**32 - 1, np.uint32(7), None):
        assert sgns_data(DOCS, seed=seed).P > 0
    assert sgns_data(DOCS, seed=3) == sgns_data(DOCS, seed=np.int64(3))
