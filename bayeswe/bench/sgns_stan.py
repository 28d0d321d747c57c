"""Benchmark: gradient cost of ``sgns_identified.stan`` against the paper's Listing 2.

Listing 2 of Yrjänäinen et al. (Appendix E) is the Stan program the paper used for
HMC on the identified model: scalar loops over the prior and over unique
(pair, label) rows. It is read from the paper's text at run time (it is not part
of bayeswe) and compiled with the same toolchain.

Both programs get the same simulated data (section 4.1), the same fixed context
vectors (the last ``K`` words, as in Listing 2) and the same starting point, so
they define the same posterior on the same unconstrained parameter vector
(``rho``/``word_vectors`` then the free context rows). The benchmark checks that
their log densities agree there, then runs NUTS without adaptation (fixed step
size, fixed maximum tree depth, same seed) and divides Stan's reported sampling
time by the number of leapfrog steps: the time of one log-density gradient plus
the sampler's small per-step overhead, which is the same for both programs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bayeswe.errors import BayesweError
from bayeswe.sgns.data import SGNSData
from bayeswe.sgns.identify import identify_transform
from bayeswe.sgns.models import SGNS_IDENTIFIED
from bayeswe.sgns.simulate import simulate_sgns
from bayeswe.stan.timing import compile_program_text, json_ready, log_prob_at, time_per_gradient

__all__ = ["DEFAULT_PAPER_TEXT", "ListingError", "listing2_data", "read_listing", "run_benchmark"]

#: Where the paper's text is looked for (override with ``$BAYESWE_PAPER_TEXT``).
DEFAULT_PAPER_TEXT = Path("/work/shared/seeds/001_6485a91dd1270a1a.txt")


class ListingError(BayesweError, ValueError):
    """The paper's text does not contain the expected numbered Stan listing."""


def read_listing(path: str | os.PathLike[str], number: int = 2) -> str:
    """Extract Stan listing ``number`` (1 or 2) from the paper's plain text.

    In the text each code line starts with its line number (``1data {``, ``2 real
    ...``) and each listing ends with a caption line ``Listing k: ...``. The numbers
    are checked to run 1, 2, 3, ... and stripped.

    Raises
    ------
    ListingError
        The listing is not found or its line numbers are not consecutive.
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    caption = re.compile(r"^Listing\s+(\d+):")  # the text has a no-break space here
    by_number = {
        int(m.group(1)): i for i, ln in enumerate(lines) if (m := caption.match(ln)) is not None
    }
    if number not in by_number:
        raise ListingError(f"no 'Listing {number}:' caption in {path}")
    end = by_number[number]
    start = end
    # Walk back over the numbered lines that precede the caption.
    while start > 0 and re.match(r"^\d+", lines[start - 1]):
        start -= 1
    code = []
    for k, line in enumerate(lines[start:end], start=1):
        prefix = str(k)
        if not line.startswith(prefix):
            raise ListingError(f"listing {number}: line {k} does not start with {prefix!r}")
        code.append(line[len(prefix) :])
    if not code or not code[0].lstrip().startswith("data"):
        raise ListingError(f"listing {number} in {path} does not start with a data block")
    return "\n".join(code) + "\n"


def listing2_data(data: SGNSData, K: int, prior_sd: float, fixed_alpha: Any) -> dict[str, Any]:
    """Listing 2's data: one row per (pair, label) with a count; last ``K`` words fixed."""
    rows_pos = np.flatnonzero(data.n_pos > 0)
    rows_neg = np.flatnonzero(data.n_neg > 0)
    target = np.concatenate([data.target[rows_pos], data.target[rows_neg]]) + 1
    context = np.concatenate([data.context[rows_pos], data.context[rows_neg]]) + 1
    labels = np.concatenate([np.ones(len(rows_pos), int), np.zeros(len(rows_neg), int)])
    counts = np.concatenate([data.n_pos[rows_pos], data.n_neg[rows_neg]])
    return {
        "lambda": float(prior_sd),
        "U": int(len(counts)),
        "V": data.V,
        "K": int(K),
        "target_word": target.tolist(),
        "context_word": context.tolist(),
        "posneg_labels": labels.tolist(),
        "counts": counts.tolist(),
        "fixed_context_matrix": np.asarray(fixed_alpha).tolist(),
    }


def run_benchmark(
    *,
    V: int = 100,
    K: int = 5,
    N: int = 50_000,
    seed: int = 20261121,
    repeats: int = 3,
    iters: int = 40,
    step_size: float = 0.02,
    max_treedepth: int = 6,
    distribution: str = "uniform",
    paper_text: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Time gradients of ``sgns_identified.stan`` and of Listing 2; return a JSON-ready dict.

    Returns
    -------
    dict
        ``summary`` (``grad_speedup_vs_listing2`` = Listing 2's time per gradient
        divided by ours, from the medians over repeats; the per-repeat ratios
        ``grad_speedup_per_repeat``; both times in microseconds; the log-density difference at
        the starting point), ``settings``, per-repeat ``runs`` and ``machine``.
    """
    from bayeswe.stan.toolchain import compile_model

    text = Path(paper_text or os.environ.get("BAYESWE_PAPER_TEXT") or DEFAULT_PAPER_TEXT)
    source = read_listing(text, 2)
    sim = simulate_sgns(V, K, N, seed=seed, distribution=distribution)
    data = sim.data
    prior_sd = 1.0 / np.sqrt(K)
    fixed = np.arange(V - K, V)
    # Start both programs at the truth, moved onto the identified slice (Prop. 1).
    rho0, alpha0 = identify_transform(sim.rho, sim.alpha, fixed, sim.alpha[fixed])
    ours_data = json_ready(
        data.stan_data(K, prior_sd=prior_sd, fixed_index=fixed, fixed_alpha=sim.alpha[fixed]),
        drop=("vocabulary",),
    )
    theirs_data = listing2_data(data, K, prior_sd, sim.alpha[fixed])
    ours_init = {"rho": rho0.tolist(), "alpha_free": alpha0[: V - K].tolist()}
    theirs_init = {"word_vectors": rho0.tolist(), "context_vectors_raw": alpha0[: V - K].tolist()}

    theirs = compile_program_text(source, "paper_listing2.stan")
    ours = compile_model(SGNS_IDENTIFIED.stan_file)

    lp_ours = log_prob_at(ours, ours_init, ours_data)
    lp_theirs = log_prob_at(theirs, theirs_init, theirs_data)

    runs = []
    for r in range(repeats):
        entry = {}
        for name, model, d, init in (
            ("ours", ours, ours_data, ours_init),
            ("listing2", theirs, theirs_data, theirs_init),
        ):
            t, steps = time_per_gradient(
                model, d, init, seed=seed + r, iters=iters, step=step_size, depth=max_treedepth
            )
            entry[f"{name}_grad_us"] = t * 1e6
            entry[f"{name}_leapfrog_steps"] = steps
        runs.append(entry)
    ours_us = statistics.median(e["ours_grad_us"] for e in runs)
    theirs_us = statistics.median(e["listing2_grad_us"] for e in runs)
    return {
        "benchmark": "sgns-stan",
        "summary": {
            "grad_speedup_vs_listing2": theirs_us / ours_us,
            # Paired by repeat (both programs timed back to back): on a shared machine
            # their spread shows how much load from other processes moved the ratio.
            "grad_speedup_per_repeat": [e["listing2_grad_us"] / e["ours_grad_us"] for e in runs],
            "grad_time_us_sgns_identified": ours_us,
            "grad_time_us_listing2": theirs_us,
            "lp_abs_diff_at_start": abs(lp_ours - lp_theirs),
            "lp_at_start": lp_ours,
        },
        "settings": {
            "V": V,
            "K": K,
            "N": N,
            "P_unique_pairs": data.P,
            "U_listing2_rows": theirs_data["U"],
            "distribution": distribution,
            "seed": seed,
            "repeats": repeats,
            "iter_sampling": iters,
            "step_size": step_size,
            "max_treedepth": max_treedepth,
            "timing": "median over repeats of Stan's sampling time / leapfrog steps",
            "paper_text": str(text),
        },
        "runs": runs,
        "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform()},
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Command-line options of the benchmark (shared by ``bayeswe bench sgns-stan``)."""
    p = parser or argparse.ArgumentParser(prog="sgns_stan", description=__doc__)
    p.add_argument("--V", type=int, default=100, help="vocabulary size (default 100)")
    p.add_argument("--K", type=int, default=5, help="embedding dimension (default 5)")
    p.add_argument("--N", type=int, default=50_000, help="observations (default 50000)")
    p.add_argument("--seed", type=int, default=20261121)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--iters", type=int, default=40, help="NUTS iterations per timing run")
    p.add_argument("--distribution", choices=("uniform", "zipf"), default="uniform")
    p.add_argument("--paper-text", default=None, help="the paper's text (holds Listing 2)")
    p.add_argument("--json", action="store_true", help="print only the JSON object")
    return p


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (or a short report without --json)."""
    if args is None:
        args = build_parser().parse_args(argv)
    result = run_benchmark(
        V=args.V,
        K=args.K,
        N=args.N,
        seed=args.seed,
        repeats=args.repeats,
        iters=args.iters,
        distribution=args.distribution,
        paper_text=args.paper_text,
    )
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        s = result["summary"]
        print(
            f"sgns_identified.stan: {s['grad_time_us_sgns_identified']:.1f} us/gradient; "
            f"paper's Listing 2: {s['grad_time_us_listing2']:.1f} us/gradient; "
            f"speed-up {s['grad_speedup_vs_listing2']:.2f}x "
            f"(|lp difference| at start {s['lp_abs_diff_at_start']:.2e})"
        )
    return 0
