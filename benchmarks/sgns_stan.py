"""Gradient cost of ``models/sgns_identified.stan`` against the paper's Listing 2.

Usage::

    python benchmarks/sgns_stan.py [--json] [--V 100 --K 5 --N 50000 ...]

Same as ``bayeswe bench sgns-stan``; prints one JSON object whose ``summary``
holds ``grad_speedup_vs_listing2``. The implementation is
:mod:`bayeswe.sgns.bench` (Listing 2 is read from the paper's text at run time).
"""

from __future__ import annotations

import sys

from bayeswe.sgns.bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
