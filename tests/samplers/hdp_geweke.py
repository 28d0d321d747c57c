"""Geweke's (2004) joint-distribution test of the HDP-LDA sampler, shared by its tests.

The marginal-conditional simulator draws ``(alpha0, gamma)`` from their priors (or
takes them fixed), topics from the Chinese restaurant franchise and words given the
topics (:mod:`bayeswe.dp.crf`). The successive-conditional simulator alternates one
sweep of the sampler with a fresh draw of the words given its topics. Both target the
joint distribution of everything; their label-free statistics must agree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import arviz as az
import numpy as np

from bayeswe.dp.crf import crf_draw, log_p_words, words_given_topics
from bayeswe.kernels import hdp_lda as kern
from bayeswe.kernels.hdp_structs import Corpus
from bayeswe.samplers import hdp_lda as hdp

STATS = ("n_topics", "n_tables", "beta_u", "sum_n_k_squared", "log_p_w_given_z", "alpha0", "gamma")


@dataclass(frozen=True)
class Design:
    doc_lengths: tuple[int, ...] = (3, 2, 4)
    n_words: int = 3
    eta: float = 0.5
    alpha0: float = 1.5
    gamma: float = 1.0
    resample: bool = False
    alpha0_prior: tuple[float, float] = (3.0, 2.0)
    gamma_prior: tuple[float, float] = (2.0, 2.0)


def problem(design: Design, words: np.ndarray, alpha0: float | None = None) -> hdp.HDPProblem:
    """The sampler's problem for these words (``alpha0`` overrides the design's)."""
    tok_ptr = np.concatenate([[0], np.cumsum(design.doc_lengths)]).astype(np.int64)
    return hdp.HDPProblem(
        corpus=Corpus(tok_ptr, np.ascontiguousarray(words, dtype=np.int32)),
        doc_len=np.diff(tok_ptr),
        n_docs=len(design.doc_lengths),
        n_words=design.n_words,
        eta=design.eta,
        alpha0=design.alpha0 if alpha0 is None else alpha0,
        gamma=design.gamma,
        display=4,
        resample=design.resample,
        alpha0_prior=design.alpha0_prior,
        gamma_prior=design.gamma_prior,
    )


def _concentrations(design: Design, rng: np.random.Generator) -> tuple[float, float]:
    if not design.resample:
        return design.alpha0, design.gamma
    (a, b), (c, d) = design.alpha0_prior, design.gamma_prior
    return rng.gamma(a, 1.0 / b), rng.gamma(c, 1.0 / d)


def _stats(z, words, m_total, beta_u, alpha0, gamma, design: Design) -> list[float]:
    _, n_k = np.unique(z, return_counts=True)
    return [
        n_k.size,
        m_total,
        beta_u,
        float((n_k.astype(float) ** 2).sum()),
        log_p_words(z, words, design.n_words, design.eta),
        alpha0,
        gamma,
    ]


def marginal_conditional(design: Design, n: int, seed: int) -> np.ndarray:
    """``(n, len(STATS))`` independent draws from the joint prior."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, len(STATS)))
    for i in range(n):
        alpha0, gamma = _concentrations(design, rng)
        draw = crf_draw(np.array(design.doc_lengths), alpha0, gamma, rng)
        words = words_given_topics(draw.z, design.n_words, design.eta, rng)
        beta_u = rng.beta(gamma, draw.n_tables)  # beta | m ~ Dirichlet(m_.k, gamma)
        out[i] = _stats(draw.z, words, draw.n_tables, beta_u, alpha0, gamma, design)
    return out


def successive_conditional(
    design: Design, n: int, seed: int, sampler: Any = None, sampler_design: Design | None = None
) -> np.ndarray:
    """``(n, len(STATS))`` draws of the chain that alternates a sweep (``sampler``:
    :func:`bayeswe.samplers.hdp_lda.step` or a faulty twin; ``sampler_design``: the
    settings the sampler believes) with new words given the topics."""
    step = hdp.step if sampler is None else sampler
    believed = design if sampler_design is None else sampler_design
    rng = np.random.default_rng(seed)
    alpha0, gamma = _concentrations(design, rng)
    draw = crf_draw(np.array(design.doc_lengths), alpha0, gamma, rng)
    g = rng.gamma(np.append(draw.m_k, gamma).astype(float))
    beta = g / g.sum()
    words = words_given_topics(draw.z, design.n_words, design.eta, rng)
    stream = np.random.SeedSequence(seed).generate_state(4, np.uint64)
    if not design.resample:  # the sampler's fixed values
        alpha0, gamma = believed.alpha0, believed.gamma
    state = hdp.state_from_assignments(
        problem(believed, words), draw.z, beta[:-1], beta[-1],
        rng_state=stream, alpha0=alpha0, gamma=gamma,
    )  # fmt: skip
    out = np.empty((n, len(STATS)))
    for i in range(n):
        prob = problem(believed, words)
        step(prob, state)
        z = state.counts.z.copy()
        out[i] = _stats(
            z, words, state.n_tables, float(state.topics.rest[0]), state.alpha0, state.gamma,
            design,
        )  # fmt: skip
        words = words_given_topics(z, design.n_words, design.eta, rng)
        state = hdp.state_from_assignments(
            problem(believed, words), z, state.topics.beta, float(state.topics.rest[0]),
            rng_state=state.rng_state, alpha0=state.alpha0, gamma=state.gamma,
            capacity=state.capacity,
        )  # fmt: skip
    return out


def minimal_path_step(prob: hdp.HDPProblem, state: hdp.HDPState) -> hdp.HDPState:
    """A faulty sweep: one table per (document, topic) (the "minimal path" shortcut)
    instead of the table counts' conditional; everything else as :func:`hdp.step`."""
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


def z_scores(mc: np.ndarray, sc: np.ndarray) -> dict[str, float]:
    """``(mean_sc - mean_mc) / se`` per statistic, the successive chain's MCSE from ArviZ."""
    out = {}
    for j, name in enumerate(STATS):
        if np.ptp(mc[:, j]) == 0 and np.ptp(sc[:, j]) == 0:
            continue  # a fixed concentration
        mcse = float(np.asarray(az.mcse(sc[None, :, j])).squeeze())
        se = np.hypot(mcse, mc[:, j].std(ddof=1) / np.sqrt(mc.shape[0]))
        out[name] = float((sc[:, j].mean() - mc[:, j].mean()) / se)
    return out


def fixed(**changes: Any) -> Design:
    return replace(Design(), **changes)
