"""Alias-table MH vs exact collapsed Gibbs: same stationary distribution, and broken ones differ.

The tiny problem (2 documents x 5 tokens, K = 2, D = 2) has 2^10 assignments, so
the exact posterior of ``z`` is enumerated with the collapsed log joint. Two
label-invariant statistics are compared with their exact expectations: ``lp``
(log p(z, v)) and ``S`` (number of token pairs sharing a topic). A sampler passes
when both z-scores ``(mean - exact) / MCSE`` are below 4 in absolute value, MCSE by
batch means (100 batches).

What is tested where:

* ``test_mh_step_is_exact``: alias-MH in the paper's scan (``scan="document"``) with
  tables frozen after their first build (``rebuild_every`` huge) and the stale document
  term (``fresh_doc=False``), so the proposal differs from the target (acceptance
  ~0.7) and only a correct MH ratio can give the right answer; and the default scan by
  word. The same test with the deliberately wrong MH steps of
  :mod:`bayeswe.sbc.faulty_glda`, ``mh="always-accept"`` (the reference Java code's bug)
  and ``mh="log-densities"`` (log-densities in place of densities), fails with |z| far
  above 4 for the frozen tables, and ``"log-densities"`` for the scan by word - shown in
  ``test_broken_mh_fails``.
* ``test_exact_cgs_matches_exact``: the exact collapsed sampler passes the same test.
* ``test_document_schedule_bias_is_small``: with the paper's schedule (corpus order, a
  word's table rebuilt after ``K`` uses) the tables are functions of *past* states, which makes
  the chain adaptive and not exactly invariant: on this 10-token problem E[S] is
  biased by ~0.05 posterior sd, which 20,000 sweeps detect at 2.6-4.1 MCSE. This test
  bounds that bias (< 0.1 posterior sd) and shows both broken ratios exceed the bound.
  The bias shrinks as a token's weight in its topic's statistics (1 / N_k) does and as
  tables are rebuilt less often relative to mixing; frozen tables remove it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, lp, step
from bayeswe.sbc import faulty_glda

pytestmark = pytest.mark.slow  # see the slow marker in pyproject.toml

_FROZEN = dict(scan="document", fresh_doc=False, rebuild_every=10**9)
_WORD_SCAN: dict = {}  # the default


@pytest.fixture(scope="module")
def exact(make_tiny):
    problem = GLDAProblem.from_data(make_tiny())
    iu = np.triu_indices(problem.n_tokens, 1)
    lps, ss = [], []
    for zz in itertools.product(range(problem.K), repeat=problem.n_tokens):
        z = np.array(zz, dtype=np.int32)
        lps.append(lp(problem, init_state(problem, seed=0, z=z)))
        ss.append((z[:, None] == z[None, :])[iu].sum())
    lps, ss = np.array(lps), np.array(ss, dtype=float)
    w = np.exp(lps - lps.max())
    w /= w.sum()
    sd = (np.sqrt(w @ (lps - w @ lps) ** 2), np.sqrt(w @ (ss - w @ ss) ** 2))
    return problem, iu, float(w @ lps), float(w @ ss), sd


def _run(
    exact, method: str, sweeps: int, seed: int = 1, mh: str | None = None, **kw
) -> tuple[np.ndarray, np.ndarray]:
    """lp and S after every sweep; ``mh``: a wrong MH step of :mod:`bayeswe.sbc.faulty_glda`."""
    problem, iu = exact[:2]
    state = init_state(problem, seed=seed, method=method)
    lp = np.empty(sweeps)
    s = np.empty(sweeps)
    for t in range(sweeps):
        if mh is None:
            lp[t] = step(problem, state, method=method, **kw)[1].lp
        else:
            lp[t] = faulty_glda.step(problem, state, mh=mh, **kw)[1].lp
        s[t] = (state.z[:, None] == state.z[None, :])[iu].sum()
    return lp, s


def _zscores(exact, method: str, sweeps: int, seed: int = 1, **kw) -> tuple[float, float]:
    ex_lp, ex_s = exact[2:4]
    lp, s = _run(exact, method, sweeps, seed, **kw)

    def z(x: np.ndarray, target: float) -> float:
        se = x.reshape(100, -1).mean(axis=1).std(ddof=1) / 10.0
        return np.inf if se == 0 else (x.mean() - target) / se

    return z(lp, ex_lp), z(s, ex_s)


@pytest.mark.parametrize("options", [_FROZEN, _WORD_SCAN], ids=["frozen-tables", "word-scan"])
def test_mh_step_is_exact(exact, options: dict) -> None:
    z = _zscores(exact, "alias-mh", 20000, **options)
    assert max(abs(v) for v in z) < 4, z


@pytest.mark.parametrize(
    ("mh", "options"),
    [("always-accept", _FROZEN), ("log-densities", _FROZEN), ("log-densities", _WORD_SCAN)],
    ids=["always-accept-frozen-tables", "log-densities-frozen-tables", "log-densities-word-scan"],
)
def test_broken_mh_fails(exact, mh: str, options: dict) -> None:
    z = _zscores(exact, "alias-mh", 20000, mh=mh, **options)
    assert max(abs(v) for v in z) > 4, z


def test_exact_cgs_matches_exact(exact) -> None:
    z = _zscores(exact, "cgs", 20000)
    assert max(abs(v) for v in z) < 4, z


@pytest.mark.parametrize(
    ("seed", "mh", "fresh_doc"),
    [
        (1, None, False),
        (2, None, False),
        (3, None, False),
        (1, None, True),
        (1, "always-accept", False),
        (1, "log-densities", False),
    ],
)
def test_document_schedule_bias_is_small(exact, seed: int, mh: str | None, fresh_doc: bool) -> None:
    """The paper's schedule: bias of E[lp] and E[S] under 0.1 posterior sd (broken: far above).

    Measured while developing (20,000 sweeps, fresh document term): seeds 1-3 put E[S]
    0.040, 0.048 and 0.058 posterior sd high (2.6, 3.3 and 4.1 MCSE: the staleness bias
    of the module docstring); always-accept is off by 0.17 sd in lp, log-densities by
    0.16 sd. The stale document term (``fresh_doc=False``, the default) is held to the
    same bound; seeds 1-3 measured 0.020, 0.026 and 0.004 sd (always-accept 0.35 sd).
    """
    ex_lp, ex_s, sd = exact[2], exact[3], exact[4]
    lp, s = _run(exact, "alias-mh", 20000, seed=seed, mh=mh, fresh_doc=fresh_doc, scan="document")
    bias = max(abs(lp.mean() - ex_lp) / sd[0], abs(s.mean() - ex_s) / sd[1])
    print(f"seed={seed} mh={mh} fresh_doc={fresh_doc}: bias {bias:.3f} sd")
    if mh is not None:
        assert bias > 0.1, bias
    else:
        assert bias < 0.1, bias
