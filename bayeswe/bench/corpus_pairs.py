"""Benchmark of SGNS pair extraction: time and peak memory at 10^7 tokens.

``bayeswe bench corpus-pairs --json [--quick]`` prints one JSON object. Each run
happens in a fresh Python process so that its peak resident memory (``ru_maxrss``)
is its own; a process that only imports bayeswe and builds the input gives the
baseline. The corpus is synthetic and seeded: ``n_tokens`` word ids drawn from a
Zipf-like law ``p_r ∝ 1 / (r + 2.7)`` over ``V`` words (close to English word
frequencies), in documents of 1,000 tokens; window 2, one negative per positive
(the paper's Congress setting, section 4.3).

Peer, side by side in the same script and on the same input: the direct NumPy
aggregation (all positive keys and one negative key per positive in one array,
``np.unique`` with ``return_inverse``, ``bincount``) — the obvious implementation
the chunked kernel replaces (its negatives come from ``Generator.choice``).

``summary``: ``seconds_1e7_tokens``, ``peak_rss_gb_1e7_tokens`` and
``extra_rss_gb_1e7_tokens`` (above the baseline process of the same size),
``unique_pairs_1e7``, ``speedup_vs_numpy_unique`` and ``memory_ratio_vs_numpy_unique``
(peer / ours, extra memory) at 10^7 tokens, and the speed ratio at 10^6.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

_CHILD = """
import json, resource, sys, time
from bayeswe.bench.corpus_pairs import _run
out = _run(*json.loads(sys.argv[1]))
out["peak_rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps(out))
"""


def synthetic_corpus(
    n_tokens: int, V: int, seed: int, doc_length: int = 1000
) -> tuple[np.ndarray, np.ndarray]:
    """Seeded Zipf-like token ids and document pointers (see the module docstring)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(V) + 2.7)
    cdf = np.cumsum(p / p.sum())
    tokens = np.minimum(np.searchsorted(cdf, rng.random(n_tokens)), V - 1).astype(np.int32)
    ptr = np.unique(np.append(np.arange(0, n_tokens, doc_length, dtype=np.int64), n_tokens))
    return tokens, ptr


def _run(kind: str, n_tokens: int, V: int, seed: int) -> dict[str, Any]:
    import time

    from bayeswe.corpus.pairs import sgns_data_from_ids
    from bayeswe.corpus.types import Vocabulary
    from bayeswe.kernels.pairs import window_pair_keys

    tokens, ptr = synthetic_corpus(n_tokens, V, seed)
    vocab = Vocabulary(
        tuple(f"w{i}" for i in range(V)), np.bincount(tokens, minlength=V).astype(np.int64)
    )
    # compile the kernels outside the timed region
    sgns_data_from_ids([(tokens[:1000], np.array([0, 1000]))], vocab, seed=seed)
    start = time.perf_counter()
    if kind == "baseline":
        return {"kind": kind, "seconds": 0.0}
    if kind == "bayeswe":
        data = sgns_data_from_ids([(tokens, ptr)], vocab, window=2, negatives=1, seed=seed)
        return {
            "kind": kind,
            "seconds": time.perf_counter() - start,
            "unique_pairs": data.P,
            "observations": data.total,
        }
    # peer: every key at once (positives, then one negative per positive for the same
    # target with a context from unigram^0.75), np.unique with return_inverse, and
    # bincount for the totals and the positives
    buf = np.empty(4 * tokens.size, dtype=np.int64)
    k = window_pair_keys(tokens, ptr, 0, 0, tokens.size, 2, V, buf)
    pos = buf[:k]
    rng = np.random.default_rng(seed)
    q = vocab.counts**0.75
    neg = (pos // V) * V + rng.choice(V, size=k, p=q / q.sum())
    keys, inverse = np.unique(np.concatenate([pos, neg]), return_inverse=True)
    n = np.bincount(inverse, minlength=keys.size)
    n_pos = np.bincount(inverse[:k], minlength=keys.size)
    return {
        "kind": kind,
        "seconds": time.perf_counter() - start,
        "unique_pairs": int(keys.size),
        "observations": int(n.sum()),
        "positives": int(n_pos.sum()),
    }


def _child(kind: str, n_tokens: int, V: int, seed: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps([kind, n_tokens, V, seed])],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child {kind} failed:\n{done.stderr}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["n_tokens"] = n_tokens
    print(json.dumps(out), file=sys.stderr, flush=True)
    return out


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench corpus-pairs``."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench corpus-pairs", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print JSON (the only format)")
    parser.add_argument("--quick", action="store_true", help="2e5 tokens only (smoke test)")
    parser.add_argument("--V", type=int, default=5000, help="vocabulary size (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    return parser


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    # --quick: one small size only (three child processes, for the smoke test)
    small, large = (200_000, 200_000) if args.quick else (1_000_000, 10_000_000)
    runs = {
        (kind, n): _child(kind, n, args.V, args.seed)
        for n in sorted({small, large})
        for kind in ("baseline", "bayeswe", "numpy-unique")
    }

    def extra(kind: str, n: int) -> float:
        return runs[(kind, n)]["peak_rss_gb"] - runs[("baseline", n)]["peak_rss_gb"]

    ours, peer = runs[("bayeswe", large)], runs[("numpy-unique", large)]
    summary = {
        "n_tokens": large,
        "V": args.V,
        "seconds_1e7_tokens": ours["seconds"],
        "peak_rss_gb_1e7_tokens": ours["peak_rss_gb"],
        "extra_rss_gb_1e7_tokens": extra("bayeswe", large),
        "unique_pairs_1e7": ours["unique_pairs"],
        "observations_1e7": ours["observations"],
        "peer_seconds_1e7_tokens": peer["seconds"],
        "peer_extra_rss_gb_1e7_tokens": extra("numpy-unique", large),
        "speedup_vs_numpy_unique": peer["seconds"] / ours["seconds"],
        "memory_ratio_vs_numpy_unique": extra("numpy-unique", large)
        / max(extra("bayeswe", large), 1e-3),
        "speedup_vs_numpy_unique_small": runs[("numpy-unique", small)]["seconds"]
        / runs[("bayeswe", small)]["seconds"],
        "small_n_tokens": small,
    }
    runs = list(runs.values())
    print(json.dumps({"runs": runs, "summary": summary}, indent=2))
    return 0
