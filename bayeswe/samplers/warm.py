"""Compile every sampler's Numba kernels into Numba's on-disk cache ahead of use.

The kernels are compiled on first call (``cache=True``) and loaded from the cache by
every later process. The first call of a sampler in a fresh installation therefore
waits for the compiler: a few seconds for most samplers, about 40 seconds for each
scan order of Gaussian LDA's ``alias-mh`` sweeps. ``bayeswe toolchain kernels``
(:func:`compile_kernels`) pays that once, for example before jobs start on a cluster,
or before test workers start so that each does not compile the same kernels.

Each task fits a tiny problem with one method through :func:`bayeswe.fit`, the path
users take, so the compiled signatures are the ones a fit needs. Tasks run in
``jobs`` processes; what a task compiles is in the kernels' on-disk cache
(:mod:`bayeswe.kernels.cache`, keyed by their source), not in the process.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

__all__ = ["OTHER_TASKS", "TASKS", "compile_kernels"]

#: Short runs: enough sweeps for every branch of the kernels (warm-up and kept).
_RUN = {"chains": 1, "iter_warmup": 2, "iter_sampling": 2, "show_progress": False}


def _sgns(identified: bool) -> dict[str, Any]:
    import numpy as np

    from bayeswe.corpus.pairs import sgns_data
    from bayeswe.sgns import simulate_sgns

    if not identified:  # from a corpus: the pair-counting kernels are compiled too
        words = np.random.default_rng(1).integers(0, 8, size=(20, 10))
        docs = [[f"w{w}" for w in doc] for doc in words]
        return sgns_data(docs, window=2, negatives=1, seed=1).stan_data(2)
    sim = simulate_sgns(8, 2, 500, seed=1)
    fixed = np.arange(6, 8)
    return sim.data.stan_data(2, fixed_index=fixed, fixed_alpha=sim.alpha[fixed])


def _lda() -> Any:
    from bayeswe.lda.simulate import simulate_lda

    return simulate_lda(n_docs=6, doc_length=10, n_words=8, n_topics=2, seed=1).data


def _glda() -> Any:
    from bayeswe.glda.simulate import simulate_gaussian_lda

    return simulate_gaussian_lda(n_docs=4, doc_length=6, n_topics=2, dim=2, seed=1)[0]


def _dp() -> Any:
    from bayeswe.dp import simulate_dp_mixture

    return simulate_dp_mixture(n_points=30, seed=1).data


def _dp_multinomial() -> Any:
    from bayeswe.dp import simulate_dp_multinomial

    return simulate_dp_multinomial(n_points=20, n_words=6, doc_length=8, seed=1).data


def _hdp() -> Any:
    from bayeswe.dp import simulate_hdp_lda

    return simulate_hdp_lda(n_docs=6, doc_length=10, n_words=8, truncation=4, seed=1).data


#: Tiny data sets by name (built in the worker that fits them).
_DATA: dict[str, Callable[[], Any]] = {
    "sgns_identified": lambda: _sgns(True),
    "sgns": lambda: _sgns(False),
    "lda": _lda,
    "gaussian_lda": _glda,
    "dp_mixture": _dp,
    "dp_multinomial": _dp_multinomial,
    "hdp_lda": _hdp,
}

#: Name -> the fits of the task: ``(model, data set, method, options)``. Largest task
#: first (the pool takes them in this order). Markov chain methods run ``_RUN``.
TASKS: dict[str, tuple[tuple[str, str, str, dict[str, Any]], ...]] = {
    "gaussian_lda alias-mh, scan by word": tuple(
        ("gaussian_lda", "gaussian_lda", "alias-mh", {"scan": "word", "density": d})
        for d in ("precision", "solve")
    ),
    "gaussian_lda alias-mh, scan by document": tuple(
        ("gaussian_lda", "gaussian_lda", "alias-mh", {"scan": "document", "density": d})
        for d in ("precision", "solve")
    ),
    "pg-gibbs": (
        ("sgns_identified", "sgns_identified", "pg-gibbs", {"omega": "per-sweep"}),
        ("sgns_identified", "sgns_identified", "pg-gibbs", {"omega": "per-block"}),
        ("sgns_identified", "sgns_identified", "pg-gibbs", {"overrelax": -0.5}),
        ("sgns", "sgns", "pg-gibbs", {}),
    ),
    "gaussian_lda cgs": tuple(
        ("gaussian_lda", "gaussian_lda", "cgs", {"density": d, "type_moves": 1})
        for d in ("precision", "solve")
    ),
    "dp_mixture, hdp_lda, hdp_gaussian_lda": (
        ("dp_mixture", "dp_mixture", "cgs", {"heldout": [[0.0, 0.0]]}),
        ("dp_mixture", "dp_multinomial", "cgs", {"heldout": [[1, 0, 2, 0, 0, 1]]}),
        ("hdp_lda", "hdp_lda", "cgs", {"resample_concentrations": True, "split_merge": 2}),
        ("hdp_lda", "hdp_lda", "alias-mh", {"rebuild_every": 2}),
        (
            "hdp_gaussian_lda",
            "gaussian_lda",
            "cgs",
            {"resample_concentrations": True, "split_merge": 2},
        ),
    ),
    "lda cgs, cavi, svi": (
        ("lda", "lda", "cgs", {"algorithm": "sparse"}),
        ("lda", "lda", "cgs", {"algorithm": "dense"}),
        ("lda", "lda", "cavi", {}),
        ("lda", "lda", "svi", {}),
    ),
    "jj-vb, jj-svi, laplace-sparse": (
        ("sgns", "sgns", "jj-vb", {}),
        ("sgns", "sgns", "jj-svi", {}),
        ("sgns_identified", "sgns_identified", "laplace-sparse", {}),
    ),
}


def _faulty_gaussian_lda() -> None:
    """The deliberately wrong alias-MH sweeps that ``bayeswe sbc``'s power checks run
    (:mod:`bayeswe.sbc.faulty_glda`): one general kernel, every scan and density."""
    from bayeswe.glda.simulate import simulate_gaussian_lda
    from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state
    from bayeswe.sbc import faulty_glda

    problem = GLDAProblem.from_data(
        simulate_gaussian_lda(n_docs=4, doc_length=6, n_topics=2, dim=2, seed=1)[0]
    )
    for scan in ("word", "document"):
        for density in ("precision", "solve"):
            state = init_state(problem, seed=1, method="alias-mh")
            faulty_glda.step(problem, state, mh="full-ratio", density=density, scan=scan)


#: Name -> tasks that are not fits (run as they are).
OTHER_TASKS: dict[str, Callable[[], None]] = {
    "sbc power checks: faulty gaussian_lda alias-mh": _faulty_gaussian_lda,
}

#: Methods whose runs are Markov chains (``_RUN``'s options apply).
_MCMC = ("pg-gibbs", "cgs", "alias-mh")


def _run_task(name: str) -> tuple[str, float]:
    import bayeswe
    from bayeswe.stan.log import QUIET, set_cmdstanpy_level

    # a worker process of its own: the Stan runs some methods start from (MAP) are noise
    set_cmdstanpy_level(QUIET)
    start = time.perf_counter()
    if name in OTHER_TASKS:
        OTHER_TASKS[name]()
        return name, time.perf_counter() - start
    for model, data, method, options in TASKS[name]:
        run = _RUN if method in _MCMC else {}
        bayeswe.fit(model, _DATA[data](), method=method, seed=1, **run, **options)
    return name, time.perf_counter() - start


def compile_kernels(
    jobs: int | None = None, progress: Callable[[str], None] | None = None
) -> dict[str, float]:
    """Compile every sampler's kernels into Numba's cache; seconds per task.

    ``jobs``: processes (default: the CPUs available, at most the number of tasks). A
    task whose kernels are cached already takes a few seconds (loading them).
    """
    names = [*OTHER_TASKS, *TASKS]  # the faulty sweeps' task is the largest: first
    n_jobs = min(jobs or len(os.sched_getaffinity(0)), len(names))
    if n_jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    times: dict[str, float] = {}
    # spawn: a fresh interpreter per worker, as a later process would load the cache
    with ProcessPoolExecutor(n_jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        for name, seconds in pool.map(_run_task, names):
            times[name] = seconds
            if progress is not None:
                progress(f"{name}: {seconds:.1f} s")
    return times
