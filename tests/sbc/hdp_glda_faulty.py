"""A deliberately wrong infinite Gaussian LDA sweep for the SBC power check (test code only)."""

from __future__ import annotations

from bayeswe.kernels import hdp_glda as kern
from bayeswe.kernels import hdp_lda as hdp_kern
from bayeswe.samplers import hdp_gaussian_lda as igl


def minimal_path_step(prob: igl.HDPGLDAProblem, state: igl.HDPGLDAState) -> igl.HDPGLDAState:
    """One table per (document, topic) (the "minimal path" shortcut) instead of the table
    counts' conditional (HDP eq. 40); everything else as :func:`igl.step`."""
    position = 0
    while position < prob.n_tokens:
        position = kern.sweep(
            prob.corpus, state.assign, state.topics, prob.prior_topic, state.weights,
            state.alpha0, state.gamma, state.rng_state, position,
        )  # fmt: skip
        if position < prob.n_tokens:
            igl._grow(prob, state)
    igl._refresh_topics(prob, state)
    state.m_k[:] = (state.assign.n_dk > 0).sum(axis=0)
    state.n_tables = int(state.m_k.sum())
    hdp_kern.sample_beta(state.m_k, state.weights, state.gamma, state.rng_state)
    state.sweeps_done += 1
    return state
