"""Sampler speed before and after the one-protocol refactor, side by side.

The refactor that put every Markov chain sampler on one protocol and one driver
(``bayeswe.samplers.driver``) and grouped the kernels' arrays was allowed to cost at
most 3 % of sampler speed. This study measures it the only fair way on a shared,
noisy machine: the old code (``--base``, the last commit before the refactor) and the
new code (this checkout) run the same benchmark commands, with the same options and one
thread each, alternately in one session, and each speed ratio pairs the two runs of the
same repeat. The order of the two sides alternates between repeats.

Measured, as each side's own ``bayeswe bench`` prints them:

* ``bench pg-gibbs-profile``: milliseconds per PG-Gibbs sweep (speed = 1 / ms);
* ``bench gaussian-lda --no-real``: tokens per second of each Gaussian LDA sampler
  (``cholesky``: exact collapsed Gibbs; ``alias``, ``alias_document``,
  ``alias_fresh_doc``: the alias-table MH scans) on the synthetic corpus, CPU time of
  the sampling thread, the median of the timed sweeps;
* ``bench lda --no-nyt --no-stan``: tokens per second of LDA collapsed Gibbs (sparse
  and dense kernels) on the synthetic corpus over a fixed wall-time budget.

A ratio above 1 means the new code is faster. The results file keeps every run's
numbers, the two commits and the machine's facts.

Run from the repository root, on a clean checkout (the base is checked out into a
temporary worktree and its Numba kernels compiled by an untimed warm-up run)::

    python benchmarks/studies/refactor_speed.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bayeswe.bench import harness

BASE = "de32df7a7eecae8c88eff687c1470dd94fb2fcb7"
TOLERANCE = 0.97  # the bound: no sampler slower than 97 % of before
LDA_TOOLS = ("bayeswe-sparse", "bayeswe-dense")
GLDA_SIDES = ("cholesky", "alias", "alias_document", "alias_fresh_doc")


def _benches(budget: float, topics: str) -> dict[str, list[str]]:
    """The benchmark commands both sides run (flags both versions accept)."""
    return {
        "pg-gibbs-profile": ["pg-gibbs-profile", "--sweeps", "100", "--pg-repeats", "3"],
        "gaussian-lda": [
            "gaussian-lda", "--no-real", "--topics", topics,
            "--burn-in", "3", "--sweeps", "7", "--naive-tokens", "20",
        ],
        "lda": [
            "lda", "--no-nyt", "--no-stan", "--tools", ",".join(LDA_TOOLS),
            "--budget", str(budget),
        ],
    }  # fmt: skip


def _run_bench(tree: Path, argv: list[str]) -> dict[str, Any]:
    """One ``bayeswe bench`` of the code in ``tree``, one thread, in a fresh Python."""
    env = harness.thread_env(1)
    env["PYTHONPATH"] = str(tree)
    env["PYTHONWARNINGS"] = "ignore::DeprecationWarning"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, "-m", "bayeswe.cli", "bench", *argv, "--json", "--output", str(out)]
        done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} in {tree} failed:\n{done.stderr[-3000:]}")
        return json.loads(out.read_text(encoding="utf-8"))


def _speeds(name: str, result: dict[str, Any]) -> dict[str, float]:
    """The speeds one benchmark reports, higher is faster, by metric name."""
    if name == "pg-gibbs-profile":
        return {"pg_gibbs_sweeps_per_s": 1e3 / result["summary"]["ms_per_sweep"]}
    if name == "gaussian-lda":
        return {
            f"glda_{side}_k{s['K']}_tokens_per_s": s[side]["tokens_per_s"]
            for s in result["settings"]
            for side in GLDA_SIDES
        }
    return {
        f"lda_{r['tool'].removeprefix('bayeswe-')}_k{r['K']}_tokens_per_s": r["rate"]
        for r in result["results"]
        if r["tool"] in LDA_TOOLS
    }


def _worktree(commit: str, where: Path) -> Path:
    root = harness.repository_root()
    subprocess.run(
        ["git", "-C", str(root), "worktree", "add", "-f", "--detach", str(where), commit],
        check=True,
        capture_output=True,
    )
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=BASE, help="commit before the refactor")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per LDA tool and K")
    parser.add_argument("--topics", default="20,100", help="Gaussian LDA K values")
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/studies/refactor_speed.json")
    )
    args = parser.parse_args()
    facts = harness.start_run()
    new_tree = harness.repository_root()
    benches = _benches(args.budget, args.topics)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bayeswe-base-") as tmp:
        old_tree = _worktree(args.base, Path(tmp) / "base")
        try:
            for tree in (old_tree, new_tree):  # untimed: compile each side's kernels
                for name in benches:
                    _run_bench(tree, [name, "--quick"])
            for repeat in range(args.repeats):
                sides = [("old", old_tree), ("new", new_tree)]
                if repeat % 2:
                    sides.reverse()
                for name, argv in benches.items():
                    for side, tree in sides:
                        harness.progress(f"repeat {repeat}: {name} ({side})")
                        result = _run_bench(tree, argv)
                        runs.append(
                            {
                                "repeat": repeat,
                                "side": side,
                                "bench": name,
                                "load_average": harness.load_average(),
                                "speeds": _speeds(name, result),
                            }
                        )
        finally:
            subprocess.run(
                ["git", "-C", str(new_tree), "worktree", "remove", "--force", str(old_tree)],
                check=False,
                capture_output=True,
            )
    ratios: dict[str, list[float]] = {}
    for repeat in range(args.repeats):
        by_side = {
            side: {k: v for r in runs if r["repeat"] == repeat and r["side"] == side
                   for k, v in r["speeds"].items()}
            for side in ("old", "new")
        }  # fmt: skip
        for metric, old in by_side["old"].items():
            ratios.setdefault(metric, []).append(by_side["new"][metric] / old)
    summary = {
        "speed_ratio_new_over_old": {m: statistics.median(v) for m, v in ratios.items()},
        "speed_ratio_min": {m: min(v) for m, v in ratios.items()},
        "speed_ratio_max": {m: max(v) for m, v in ratios.items()},
        "worst_median_ratio": min(statistics.median(v) for v in ratios.values()),
        "tolerance": TOLERANCE,
    }
    out = {
        "study": "refactor-speed",
        "summary": summary,
        "settings": {
            "base": args.base,
            "repeats": args.repeats,
            "commands": {k: ["bayeswe", "bench", *v] for k, v in benches.items()},
            "threads": 1,
        },
        "runs": runs,
        "run": harness.finish_run(facts),
    }
    harness.write_json_atomic(args.output, out)
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
