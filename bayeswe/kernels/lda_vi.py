"""Mean-field variational inference for LDA (Blei, Ng and Jordan 2003): the batch E-step.

The corpus is held as document-term counts (CSR: ``doc_ptr``, ``word_ids``,
``counts``); a (document, word) pair with count ``n`` has one variational topic
distribution ``phi_j`` shared by its ``n`` tokens. Given ``E[log beta]`` (the topics'
Dirichlet ``q(beta_k) = Dir(lambda_k)``), :func:`e_step` updates every document's
``gamma_d`` (``q(theta_d) = Dir(gamma_d)``) by coordinate ascent::

    phi_jk  ∝ exp(E[log theta_dk] + E[log beta_{k, w_j}])            (Blei et al. eq. 6)
    gamma_dk = alpha_k + sum_j n_j phi_jk                             (eq. 7)

starting from the ``gamma_d`` it is given (so that, with the M-step
``lambda_kv = eta + sum_{j: w_j = v} n_j phi_jk``, every update increases the ELBO), and
returns the sufficient statistics ``sum_j n_j phi_jk`` per (topic, word) and each
document's share of the ELBO at the final ``phi`` and ``gamma``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["dirichlet_expectation", "e_step", "topic_elbo"]


@njit(cache=True, inline="always")
def _digamma(x: float) -> float:
    # asymptotic series after shifting x to 10 or more (truncation error below 1e-15)
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    return result + (
        math.log(x)
        - 0.5 / x
        - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))
    )


@njit(cache=True)
def dirichlet_expectation(param: np.ndarray, out: np.ndarray) -> None:
    """``E[log p]`` under ``Dir(param[i])`` for every row ``i``: ``psi(a) - psi(sum a)``."""
    for i in range(param.shape[0]):
        total = 0.0
        for k in range(param.shape[1]):
            total += param[i, k]
        dt = _digamma(total)
        for k in range(param.shape[1]):
            out[i, k] = _digamma(param[i, k]) - dt


@njit(cache=True)
def _dirichlet_terms(prior: np.ndarray, post: np.ndarray, elog: np.ndarray) -> float:
    """``E[log Dir(p | prior)] - E[log q(p)]`` for ``q = Dir(post)``, ``elog = E[log p]``."""
    a0, b0 = 0.0, 0.0
    out = 0.0
    for k in range(post.shape[0]):
        a0 += prior[k]
        b0 += post[k]
        out += (prior[k] - post[k]) * elog[k] - math.lgamma(prior[k]) + math.lgamma(post[k])
    return out + math.lgamma(a0) - math.lgamma(b0)


@njit(cache=True, nogil=True)
def e_step(
    doc_ptr: np.ndarray,
    word_ids: np.ndarray,
    counts: np.ndarray,
    alpha: np.ndarray,
    elog_beta_t: np.ndarray,
    gamma: np.ndarray,
    sstats_t: np.ndarray,
    doc_elbo: np.ndarray,
    local_iter: int,
    local_tol: float,
) -> int:
    """Update ``gamma`` ``(D, K)`` in place; fill ``sstats_t`` ``(V, K)`` and ``doc_elbo`` ``(D,)``.

    ``elog_beta_t`` is ``E[log beta]`` transposed, ``(V, K)``. A document's loop stops
    when the mean absolute change of ``gamma_d`` is below ``local_tol`` or after
    ``local_iter`` rounds. ``doc_elbo[d]`` is the document's part of the ELBO at the
    final ``phi`` and ``gamma`` (words' likelihood, entropy of ``phi`` and the
    ``theta_d`` terms). Returns the total number of local rounds.

    ``phi_jk = a_k b_{w_j k} / norm_j`` with ``a = exp(E[log theta_d] - max)`` and
    ``b_w = exp(E[log beta_w] - max_k)``: products in the inner loop, no ``exp`` (the
    trick of Hoffman et al.'s code), the shifts keeping every factor in (0, 1]. Since
    ``log phi_jk = E[log theta_dk] + E[log beta_kw] - log norm_j`` (shifts included),
    the document's likelihood-plus-entropy term at the final ``gamma`` is
    ``sum_j n_j log norm_j + sum_k (gamma_dk - alpha_k) (E_new[log theta_dk] -
    E_old[log theta_dk])``, ``E_old`` being what the last ``phi`` was computed with.
    """
    D, K = gamma.shape
    V = elog_beta_t.shape[0]
    sstats_t[:] = 0.0
    exp_beta = np.empty((V, K))
    shift_beta = np.empty(V)
    for w in range(V):
        top = -np.inf
        for k in range(K):
            top = max(top, elog_beta_t[w, k])
        shift_beta[w] = top
        for k in range(K):
            exp_beta[w, k] = math.exp(elog_beta_t[w, k] - top)
    elog_theta = np.empty(K)
    a = np.empty(K)
    gamma_new = np.empty(K)
    longest = 0
    for d in range(D):
        longest = max(longest, doc_ptr[d + 1] - doc_ptr[d])
    # n_j / norm_j of each pair of the document in the latest round
    scales = np.empty(longest)
    rounds = 0
    for d in range(D):
        start, stop = doc_ptr[d], doc_ptr[d + 1]
        log_norm = 0.0
        for _ in range(local_iter):
            rounds += 1
            total = 0.0
            for k in range(K):
                total += gamma[d, k]
            dt = _digamma(total)
            top = -np.inf
            for k in range(K):
                elog_theta[k] = _digamma(gamma[d, k]) - dt
                top = max(top, elog_theta[k])
            for k in range(K):
                a[k] = math.exp(elog_theta[k] - top)
                gamma_new[k] = 0.0
            log_norm = 0.0
            for j in range(start, stop):
                b = exp_beta[word_ids[j]]
                norm = 0.0
                for k in range(K):
                    norm += a[k] * b[k]
                scale = counts[j] / norm
                scales[j - start] = scale
                log_norm += counts[j] * (math.log(norm) + top + shift_beta[word_ids[j]])
                for k in range(K):
                    gamma_new[k] += scale * b[k]
            change = 0.0
            for k in range(K):
                value = alpha[k] + a[k] * gamma_new[k]
                change += abs(value - gamma[d, k])
                gamma[d, k] = value
            if change / K < local_tol:
                break
        # sufficient statistics of the last phi: n_j phi_jk = a_k b_wk n_j / norm_j
        for j in range(start, stop):
            b = exp_beta[word_ids[j]]
            scale = scales[j - start]
            row = sstats_t[word_ids[j]]
            for k in range(K):
                row[k] += scale * a[k] * b[k]
        # the document's ELBO at (phi, gamma_d): E_old[log theta] is elog_theta now
        total = 0.0
        for k in range(K):
            total += gamma[d, k]
        dt = _digamma(total)
        value = log_norm
        for k in range(K):
            new = _digamma(gamma[d, k]) - dt
            value += (gamma[d, k] - alpha[k]) * (new - elog_theta[k])
            elog_theta[k] = new
        doc_elbo[d] = value + _dirichlet_terms(alpha, gamma[d], elog_theta)
    return rounds


@njit(cache=True)
def topic_elbo(eta: float, lam: np.ndarray, elog_beta: np.ndarray) -> float:
    """The topics' part of the ELBO: ``sum_k E[log Dir(beta_k | eta)] - E[log q(beta_k)]``."""
    prior = np.full(lam.shape[1], eta)
    out = 0.0
    for k in range(lam.shape[0]):
        out += _dirichlet_terms(prior, lam[k], elog_beta[k])
    return out
