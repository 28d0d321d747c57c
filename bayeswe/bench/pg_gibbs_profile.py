"""``bayeswe bench pg-gibbs-profile``: where a PG-Gibbs sweep's time goes.

**Measured.** Sweeps of :func:`bayeswe.samplers.pg_gibbs.step` (default schedule,
``omega="per-sweep"``, S = 1) at the paper's Table 3 target setting (V = 200, K = 20,
N = 5e5; ``--setting`` changes it), one thread, in a fresh process
(:func:`bayeswe.bench.harness.call_in_subprocess`). The kernels a sweep calls are
timed by wrapping them for the measured sweeps (restored afterwards):

* ``pg_draws`` - :func:`bayeswe.kernels.pg_gibbs.polya_gamma_groups` (the table
  sampler and polyagamma's C samplers, one variable per unique pair and block that
  draws them);
* ``linear_predictor`` - the ``x_u' beta`` of every pair that gets a PG draw;
* ``gaussian_update`` - :func:`bayeswe.kernels.pg_gibbs.block_update`: the
  precision accumulation ``X' Omega X``, the K x K Cholesky factorisations, the
  solves and the Gaussian draws of every vector;
* ``log_joint`` - the ``lp`` recorded after each sweep;
* ``other`` - the rest (standard normals, copies, Python).

**PG samplers side by side.** After the measured sweeps, the PG variables of the last
sweep are drawn again from the same ``(h, z)`` (the pair counts and the linear
predictors of that sweep), once with the per-draw choice the sampler uses
(``PG_AUTO``: the table sampler of :mod:`bayeswe.kernels.pg_table` below h = 24 and
|z| = 2.5) and once with polyagamma's Devroye method for every draw (the choice for
h < 24 before the table sampler; ``pg_method_counts`` counts the draws of each
sampler in the choice, so it shows how many have h >= 24), alternating, ``--pg-repeats``
times each, the same groups and bit generators, one thread. ``pg_table_speedup`` is
the ratio of their median times.

The **floor** a part sets is the sweep time with every other part free: a sweep
cannot be faster than its PG draws. ``pg_ns_per_draw`` divides the PG time by the
variables drawn, ``mean_count`` is their mean ``n`` (the table sampler, used below
n = 24, costs O(n), as Devroye's method does).

**Equal footing.** The parts are timed in the same sweeps, by the same clock
(``time.perf_counter`` around each call), so they add up to the sweep time; ``other``
is the difference. The wrappers cost a Python call per kernel call (a few per sweep),
which lands in ``other``. The two PG samplers draw the same requests, alternately,
from bit generators seeded alike.

**Summary keys.** ``ms_per_sweep``; ``pg_draw_fraction`` (of the sweep);
``pg_ns_per_draw``; ``gaussian_update_fraction``; ``pg_table_speedup`` (Devroye's time
over the sampler's choice, same draws requested); ``setting`` (V, K, N).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness

__all__ = ["build_parser", "main", "profile_sweeps"]

_PARTS = {
    "pg_draws": "polya_gamma_groups",
    "linear_predictor": "block_linear_predictor",
    "gaussian_update": "block_update",
}


@contextlib.contextmanager
def _patched(module: Any, replacements: dict[str, Any]) -> Iterator[None]:
    """Replace ``module``'s functions by name for the block; restore them after."""
    originals = {name: getattr(module, name) for name in replacements}
    try:
        for name, fn in replacements.items():
            setattr(module, name, fn)
        yield
    finally:
        for name, fn in originals.items():
            setattr(module, name, fn)


def _timed_kernels(
    module: Any, names: dict[str, str], spent: dict[str, float]
) -> contextlib.AbstractContextManager[None]:
    """Wrap ``module``'s functions so that their time adds up in ``spent`` (a context)."""

    def timed(label: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - start

        return wrapper

    return _patched(
        module, {name: timed(label, getattr(module, name)) for label, name in names.items()}
    )


def _pg_side_by_side(calls: list[tuple[Any, ...]], repeats: int) -> dict[str, list[float]]:
    """Seconds per sweep's PG draws with the sampler's choice and with Devroye's method.

    ``calls`` are the ``polya_gamma_groups`` arguments of one sweep; each repeat draws
    them all with one method, then with the other (so the two share the machine's state).
    """
    from bayeswe.kernels import pg_gibbs as kern

    times: dict[str, list[float]] = {"auto": [], "devroye": []}
    n_groups = max(len(c[1]) - 1 for c in calls)
    rngs = [np.random.Generator(np.random.PCG64(g)) for g in range(n_groups)]
    addresses = np.array([r.bit_generator.ctypes.bit_generator.value for r in rngs], np.uint64)
    for _ in range(repeats):
        for label, method in (("auto", kern.PG_AUTO), ("devroye", kern.PG_DEVROYE)):
            start = time.perf_counter()
            for _bitgens, group_ptr, h, z, _method, out in calls:
                kern.polya_gamma_groups(addresses, group_ptr, h, z, method, out)
            times[label].append(time.perf_counter() - start)
    return times


def _method_counts(calls: list[tuple[Any, ...]]) -> dict[str, int]:
    """How many of the recorded PG requests each sampler of the per-draw choice gets."""
    from bayeswe.samplers.pg_gibbs import PG_METHOD_NAMES, pg_methods

    chosen = np.concatenate([pg_methods(c[2], c[3]) for c in calls])
    codes, counts = np.unique(chosen, return_counts=True)
    return {PG_METHOD_NAMES[int(m)]: int(n) for m, n in zip(codes, counts, strict=True)}


def profile_sweeps(
    V: int, K: int, N: int, sweeps: int, seed: int, pg_repeats: int = 20
) -> dict[str, Any]:
    """Time ``sweeps`` sweeps part by part (run it in a process with one thread)."""
    import numba

    from bayeswe.kernels import pg_gibbs as kern
    from bayeswe.samplers.pg_gibbs import SGNSGibbsProblem, init_state, step
    from bayeswe.sgns import simulate_sgns

    sim = simulate_sgns(V, K, N, seed=seed)
    fixed = np.arange(V - K, V)
    data = sim.data.stan_data(K, prior_sd=1.0, fixed_index=fixed, fixed_alpha=sim.alpha[fixed])
    problem = SGNSGibbsProblem.from_stan_data(data)
    state = init_state(problem, seed=seed, chain=0)
    for _ in range(20):  # compile, and leave the prior start behind
        state, _ = step(problem, state)
    spent = dict.fromkeys([*_PARTS, "log_joint"], 0.0)
    log_joint = problem.log_joint

    def timed_log_joint(*args: Any) -> float:
        start = time.perf_counter()
        try:
            return log_joint(*args)
        finally:
            spent["log_joint"] += time.perf_counter() - start

    object.__setattr__(problem, "log_joint", timed_log_joint)
    with _timed_kernels(kern, _PARTS, spent):
        start = time.perf_counter()
        for _ in range(sweeps):
            state, _ = step(problem, state)
        total = time.perf_counter() - start
    # the last sweep's PG requests, drawn again by both samplers (module restored above)
    calls: list[tuple[Any, ...]] = []
    draw = kern.polya_gamma_groups

    def recording(*args: Any) -> Any:
        calls.append(tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        return draw(*args)

    with _patched(kern, {"polya_gamma_groups": recording}):
        state, _ = step(problem, state)
    pg_times = _pg_side_by_side(calls, pg_repeats)
    n_pairs = int(data["P"])
    per_sweep = {label: 1e3 * s / sweeps for label, s in spent.items()}
    per_sweep["other"] = 1e3 * total / sweeps - sum(per_sweep.values())
    return {
        "V": V,
        "K": K,
        "N": N,
        "P": n_pairs,
        "mean_count": float(np.mean(data["n"])),
        "sweeps": sweeps,
        "threads": numba.get_num_threads(),
        "ms_per_sweep": 1e3 * total / sweeps,
        "parts_ms_per_sweep": per_sweep,
        # per-sweep schedule: one PG variable per unique pair and sweep
        "pg_draws_per_sweep": n_pairs,
        "pg_side_by_side_s": pg_times,
        "pg_method_counts": _method_counts(calls),
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench pg-gibbs-profile`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench pg-gibbs-profile", description=__doc__)
    harness.add_common_options(parser, quick="V=100, K=5, N=5e4, 20 sweeps")
    parser.add_argument("--setting", default="200,20,500000", metavar="V,K,N")
    parser.add_argument("--sweeps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--pg-repeats", type=int, default=20, help="repeats of the side-by-side PG draws"
    )
    return parser


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The profile for the options ``args``, with its summary."""
    V, K, N = (int(x) for x in args.setting.split(","))
    sweeps = args.sweeps
    if args.quick:
        V, K, N, sweeps = 100, 5, 50_000, 20
    res = harness.call_in_subprocess(
        "bayeswe.bench.pg_gibbs_profile:profile_sweeps",
        V,
        K,
        N,
        sweeps,
        args.seed,
        args.pg_repeats if not args.quick else 3,
        threads=1,
    )
    prof = res.value
    parts, total = prof["parts_ms_per_sweep"], prof["ms_per_sweep"]
    summary = {
        "ms_per_sweep": total,
        "pg_draw_fraction": parts["pg_draws"] / total,
        "pg_ns_per_draw": 1e6 * parts["pg_draws"] / prof["pg_draws_per_sweep"],
        "gaussian_update_fraction": parts["gaussian_update"] / total,
        "pg_table_speedup": float(
            np.median(prof["pg_side_by_side_s"]["devroye"])
            / np.median(prof["pg_side_by_side_s"]["auto"])
        ),
        "setting": {"V": V, "K": K, "N": N},
    }
    return {"summary": summary, "profile": prof}


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the profile and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    return harness.run_cli("pg-gibbs-profile", args, lambda: run(args), argv=argv)
