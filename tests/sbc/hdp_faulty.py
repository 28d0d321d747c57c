"""A deliberately wrong HDP-LDA sweep for the SBC power check (test code only)."""

from __future__ import annotations

from bayeswe.kernels import hdp_lda as kern
from bayeswe.samplers import hdp_lda as hdp


def minimal_path_step(prob: hdp.HDPProblem, state: hdp.HDPState) -> hdp.HDPState:
    """One table per (document, topic) (the "minimal path" shortcut) instead of the table
    counts' conditional (eq. 40); everything else as :func:`hdp.step`."""
    position = 0
    while position < prob.n_tokens:
        position = kern.sweep(
            prob.corpus, state.counts, state.lists, state.topics,
            state.alpha0, state.gamma, prob.eta, state.rng_state, position,
        )  # fmt: skip
        if position < prob.n_tokens:
            hdp._grow(state)
    state.m_k[:] = (state.counts.n_dk > 0).sum(axis=0)
    state.n_tables = n_tables = int(state.m_k.sum())
    if prob.resample:  # as hdp.step, given the wrong table counts
        rng = state.rng_state
        a, b = prob.alpha0_prior
        state.alpha0 = kern.resample_alpha0(state.alpha0, prob.doc_len, n_tables, a, b, rng)
        a, b = prob.gamma_prior
        state.gamma = kern.resample_gamma(state.gamma, state.n_topics, n_tables, a, b, rng)
    kern.sample_beta(state.m_k, state.topics, state.gamma, state.rng_state)
    state.sweeps_done += 1
    return state
