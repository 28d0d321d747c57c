"""``bayeswe bench gaussian-lda-stan``: gaussian_lda.stan vs a per-token program.

Usage::

    python benchmarks/gaussian_lda_stan.py [--json] [--quick] [--docs 50 --topics 5 --dim 10 ...]

The implementation is :mod:`bayeswe.glda.stan_bench`.
"""

from __future__ import annotations

import sys

from bayeswe.glda.stan_bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
