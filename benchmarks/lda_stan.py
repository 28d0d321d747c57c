"""Gradient cost of ``models/lda.stan`` against the Stan User's Guide LDA.

Usage::

    python benchmarks/lda_stan.py [--json] [--quick] [--docs 100 --doc-length 100 --V 500 --K 10]

Same as ``bayeswe bench lda-stan``; prints one JSON object whose ``summary`` holds
``stan_grad_speedup_vs_users_guide``. The implementation is
:mod:`bayeswe.lda.stan_bench`.
"""

from __future__ import annotations

import sys

from bayeswe.lda.stan_bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
