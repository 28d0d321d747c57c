"""``bayeswe bench sgns-stan``: gradient cost of ``sgns_identified.stan`` vs the paper's Listing 2.

**Compared.** bayeswe's ``sgns_identified.stan`` against Listing 2 of Yrjänäinen et
al. (Appendix E), the Stan program the paper used for HMC on the identified model
(scalar loops over the prior and over unique (pair, label) rows). Listing 2 is read
at run time from the paper's text (it is not part of bayeswe): ``--paper-text PATH``,
else ``../shared/seeds/001_6485a91dd1270a1a.txt`` relative to the repository root
(:data:`DEFAULT_PAPER_TEXT`); neither found raises :class:`PaperTextNotFoundError`.
Both programs are compiled by the same toolchain.

**Data.** Simulated SGNS data (section 4.1, :func:`bayeswe.sgns.simulate.simulate_sgns`):
``--V`` words, ``--K`` dimensions, ``--N`` observations, ``--distribution``; the
context vectors of the last ``K`` words are fixed at their true values (as in
Listing 2). ``--quick``: V = 15, K = 2, N = 2,000, one repeat of 5 iterations.

**Equal footing.** Same data, same fixed rows, same starting point (the truth moved
onto the identified slice, Prop. 1) on the same unconstrained parameter vector, so
both define the same posterior; their log densities are compared there. Each program
then runs NUTS without adaptation (fixed step size 0.02, maximum tree depth 6, same
seed, one chain, no warm-up) and Stan's own sampling time is divided by the number of
leapfrog steps (:func:`bayeswe.bench.harness.time_per_gradient`): compilation,
start-up and I/O are out for both, the sampler's small per-step overhead is in for
both. The two programs run back to back in each repeat.

**Summary keys.**

* ``grad_speedup_vs_listing2`` - Listing 2's time per gradient over ours (medians over
  repeats); above 1 means ours is faster;
* ``grad_speedup_per_repeat`` - the same ratio for each repeat (paired: both programs
  timed back to back; the spread shows how much the machine's load moved it);
* ``grad_time_us_sgns_identified``, ``grad_time_us_listing2`` - median microseconds
  per gradient;
* ``lp_abs_diff_at_start`` - absolute difference of the two log densities at the
  common start (zero up to rounding when both programs define the same posterior);
* ``lp_at_start`` - our log density there (to scale the difference).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bayeswe.bench import harness
from bayeswe.bench.harness import compile_program_text, json_ready, log_prob_at
from bayeswe.errors import BayesweError
from bayeswe.sgns.data import SGNSData
from bayeswe.sgns.identify import identify_transform
from bayeswe.sgns.models import SGNS_IDENTIFIED
from bayeswe.sgns.simulate import simulate_sgns

__all__ = [
    "DEFAULT_PAPER_TEXT",
    "QUICK",
    "ListingError",
    "PaperTextNotFoundError",
    "build_parser",
    "find_paper_text",
    "listing2_data",
    "main",
    "read_listing",
    "run_benchmark",
]

#: The shared seeds folder: ``../shared/seeds`` relative to the repository root.
SEEDS_DIR = harness.repository_root().parent / "shared" / "seeds"
#: The paper's text (Yrjänäinen et al.; see ``SEEDS_DIR / "README.md"``).
DEFAULT_PAPER_TEXT = SEEDS_DIR / "001_6485a91dd1270a1a.txt"

#: Settings of ``--quick`` (a smoke test: seconds, not a measurement).
QUICK: dict[str, int] = {"V": 15, "K": 2, "N": 2000, "repeats": 1, "iters": 5}


class ListingError(BayesweError, ValueError):
    """The paper's text does not contain the expected numbered Stan listing."""


class PaperTextNotFoundError(harness.BenchError, FileNotFoundError):
    """The paper's text (which holds Listing 2) is neither at ``--paper-text`` nor in the seeds."""


def find_paper_text(path: str | os.PathLike[str] | None = None) -> Path:
    """The paper's text: ``path`` if given, else :data:`DEFAULT_PAPER_TEXT`.

    Raises
    ------
    PaperTextNotFoundError
        The file is not there.
    """
    if path is not None:
        found = Path(path)
        if not found.is_file():
            raise PaperTextNotFoundError(f"--paper-text {found}: no such file")
        return found
    if not DEFAULT_PAPER_TEXT.is_file():
        raise PaperTextNotFoundError(
            "the paper's text (it holds Listing 2) is not at ../shared/seeds/"
            f"{DEFAULT_PAPER_TEXT.name} beside the repository ({DEFAULT_PAPER_TEXT}); "
            "pass --paper-text PATH"
        )
    return DEFAULT_PAPER_TEXT


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
    """Time gradients of ``sgns_identified.stan`` and of Listing 2 (see the module docstring).

    Returns
    -------
    dict
        ``summary`` (the keys of the module docstring), ``settings`` and the
        per-repeat ``runs``.
    """
    from bayeswe.stan.toolchain import compile_model

    text = find_paper_text(paper_text)
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

    runs = harness.gradient_timings(
        (("ours", ours, ours_data, ours_init), ("listing2", theirs, theirs_data, theirs_init)),
        repeats=repeats, seed=seed, iters=iters, step=step_size, depth=max_treedepth,
    )  # fmt: skip
    ours_us = statistics.median(e["ours_grad_us"] for e in runs)
    theirs_us = statistics.median(e["listing2_grad_us"] for e in runs)
    return {
        "summary": {
            "grad_speedup_vs_listing2": theirs_us / ours_us,
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
    }


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Command-line options of ``bayeswe bench sgns-stan`` (added to ``parser`` if given)."""
    p = parser or argparse.ArgumentParser(prog="bayeswe bench sgns-stan", description=__doc__)
    p.add_argument("--V", type=int, default=100, help="vocabulary size (default 100)")
    p.add_argument("--K", type=int, default=5, help="embedding dimension (default 5)")
    p.add_argument("--N", type=int, default=50_000, help="observations (default 50000)")
    p.add_argument("--seed", type=int, default=20261121)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--iters", type=int, default=40, help="NUTS iterations per timing run")
    p.add_argument("--distribution", choices=("uniform", "zipf"), default="uniform")
    p.add_argument(
        "--paper-text",
        default=None,
        metavar="PATH",
        help="the paper's text, which holds Listing 2 (default: ../shared/seeds/ beside the "
        "repository)",
    )
    harness.add_common_options(
        p, quick="V=15, K=2, N=2000, one repeat of 5 iterations (smoke test)", text_report=True
    )
    return p


def _report(result: Mapping[str, Any]) -> str:
    s = result["summary"]
    return (
        f"sgns_identified.stan: {s['grad_time_us_sgns_identified']:.1f} us/gradient; "
        f"paper's Listing 2: {s['grad_time_us_listing2']:.1f} us/gradient; "
        f"speed-up {s['grad_speedup_vs_listing2']:.2f}x "
        f"(|lp difference| at start {s['lp_abs_diff_at_start']:.2e})"
    )


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark; print one JSON object (``--json``) or a one-line report."""
    if args is None:
        args = build_parser().parse_args(argv)
    size = QUICK if args.quick else {
        "V": args.V, "K": args.K, "N": args.N, "repeats": args.repeats, "iters": args.iters
    }  # fmt: skip
    # Fail on a missing paper before anything is timed or compiled.
    paper = find_paper_text(args.paper_text)
    return harness.run_cli(
        "sgns-stan",
        args,
        lambda: run_benchmark(
            **size, seed=args.seed, distribution=args.distribution, paper_text=paper
        ),
        argv=argv,
        report=_report,
    )
