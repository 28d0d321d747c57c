"""``bayeswe bench corpus-pairs``: SGNS pair extraction, time and peak memory at 10^7 tokens.

**Compared.** bayeswe's chunked extraction
(:func:`bayeswe.corpus.pairs.sgns_data_from_ids`) against the obvious NumPy
implementation it replaces: all positive keys and one negative key per positive in
one array (negatives from ``Generator.choice`` over unigram^0.75), ``np.unique`` with
``return_inverse``, ``bincount``.

**Data.** A seeded synthetic corpus (:func:`synthetic_corpus`): word ids drawn from
a Zipf-like law ``p_r ∝ 1 / (r + 2.7)`` over ``--V`` words (close to English word
frequencies), in documents of 1,000 tokens; window 2, one negative per positive (the
paper's Congress setting, section 4.3). Sizes 10^6 and 10^7 tokens (``--quick``: 2e5
only; the ``*_1e7*`` keys then hold that size).

**Equal footing.** Same tokens, window and seed. Each side runs in a fresh Python
process (:func:`bayeswe.bench.harness.call_in_subprocess`) so that its peak resident
memory (:func:`bayeswe.memory.peak_rss_gb`) is its own; a third process that only
imports bayeswe and builds the input gives the baseline, subtracted from both ("extra"
memory). Numba compilation (on a 1,000-token slice) and building the input are outside
the timed region for both sides; the time is wall seconds of the extraction alone.

**Summary keys.**

* ``n_tokens`` - the large size (1e7; 2e5 with ``--quick``); ``V`` - vocabulary size;
* ``seconds_1e7_tokens`` - bayeswe's extraction time at that size;
* ``peak_rss_gb_1e7_tokens`` - its process's peak RSS; ``extra_rss_gb_1e7_tokens`` -
  that minus the baseline process's;
* ``unique_pairs_1e7``, ``observations_1e7`` - unique (target, context) pairs and
  observations (positives + negatives) it produced;
* ``peer_seconds_1e7_tokens``, ``peer_extra_rss_gb_1e7_tokens`` - the same for the
  NumPy peer;
* ``speedup_vs_numpy_unique`` - peer seconds over ours; ``memory_ratio_vs_numpy_unique``
  - peer extra memory over ours (ours floored at 1 MB);
* ``speedup_vs_numpy_unique_small`` - the speed ratio at ``small_n_tokens`` (1e6;
  2e5 with ``--quick``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np

from bayeswe.bench import harness


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
    """One side (``"bayeswe"``, ``"numpy-unique"``) or the ``"baseline"``, in this process."""
    from bayeswe.corpus.pairs import sgns_data_from_ids
    from bayeswe.corpus.types import Vocabulary

    tokens, ptr = synthetic_corpus(n_tokens, V, seed)
    vocab = Vocabulary(
        tuple(f"w{i}" for i in range(V)), np.bincount(tokens, minlength=V).astype(np.int64)
    )
    # compile the kernels outside the timed region
    sgns_data_from_ids([(tokens[:1000], np.array([0, 1000]))], vocab, seed=seed)
    if kind == "baseline":
        return {"kind": kind, "seconds": 0.0}
    if kind == "bayeswe":
        t = harness.timed(
            sgns_data_from_ids, [(tokens, ptr)], vocab, window=2, negatives=1, seed=seed
        )
        return {
            "kind": kind,
            "seconds": t.wall_s,
            "unique_pairs": t.value.P,
            "observations": t.value.total,
        }
    t = harness.timed(_numpy_unique, tokens, ptr, vocab.counts, V, seed)
    return {"kind": kind, "seconds": t.wall_s, **t.value}


def _numpy_unique(
    tokens: np.ndarray, ptr: np.ndarray, counts: np.ndarray, V: int, seed: int
) -> dict[str, int]:
    """The peer (see the module docstring); its pair and observation counts."""
    from bayeswe.kernels.pairs import window_pair_keys

    # peer: every key at once (positives, then one negative per positive for the same
    # target with a context from unigram^0.75), np.unique with return_inverse, and
    # bincount for the totals and the positives
    buf = np.empty(4 * tokens.size, dtype=np.int64)
    k = window_pair_keys(tokens, ptr, 0, 0, tokens.size, 2, V, buf)
    pos = buf[:k]
    rng = np.random.default_rng(seed)
    q = counts**0.75
    neg = (pos // V) * V + rng.choice(V, size=k, p=q / q.sum())
    keys, inverse = np.unique(np.concatenate([pos, neg]), return_inverse=True)
    n = np.bincount(inverse, minlength=keys.size)
    n_pos = np.bincount(inverse[:k], minlength=keys.size)
    return {
        "unique_pairs": int(keys.size),
        "observations": int(n.sum()),
        "positives": int(n_pos.sum()),
    }


def _child(kind: str, n_tokens: int, V: int, seed: int) -> dict[str, Any]:
    """:func:`_run` in a fresh process, with that process's peak RSS (GB)."""
    res = harness.call_in_subprocess("bayeswe.bench.corpus_pairs:_run", kind, n_tokens, V, seed)
    out = {**res.value, "peak_rss_gb": res.peak_rss_gb, "n_tokens": n_tokens}
    harness.progress(out)
    return out


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Options of ``bayeswe bench corpus-pairs`` (added to ``parser`` if given)."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="bayeswe bench corpus-pairs", description=__doc__)
    harness.add_common_options(parser, quick="2e5 tokens only (smoke test)")
    parser.add_argument("--V", type=int, default=5000, help="vocabulary size (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    return parser


def run(*, quick: bool, V: int, seed: int) -> dict[str, Any]:
    """All runs (see the module docstring); the results with their summary."""
    # --quick: one small size only (three child processes, for the smoke test)
    small, large = (200_000, 200_000) if quick else (1_000_000, 10_000_000)
    runs = {
        (kind, n): _child(kind, n, V, seed)
        for n in sorted({small, large})
        for kind in ("baseline", "bayeswe", "numpy-unique")
    }

    def extra(kind: str, n: int) -> float:
        return runs[(kind, n)]["peak_rss_gb"] - runs[("baseline", n)]["peak_rss_gb"]

    ours, peer = runs[("bayeswe", large)], runs[("numpy-unique", large)]
    summary = {
        "n_tokens": large,
        "V": V,
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
    return {"summary": summary, "runs": list(runs.values())}


def main(argv: Sequence[str] | None = None, args: argparse.Namespace | None = None) -> int:
    """Run the benchmark and print one JSON object (see the module docstring)."""
    if args is None:
        args = build_parser().parse_args(argv)
    return harness.run_cli(
        "corpus-pairs", args, lambda: run(quick=args.quick, V=args.V, seed=args.seed), argv=argv
    )
