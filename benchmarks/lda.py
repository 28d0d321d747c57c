"""``bayeswe bench lda``: collapsed Gibbs for LDA vs tomotopy, lda, gensim, scikit-learn.

Usage::

    python benchmarks/lda.py --json [--quick] [--budget SECONDS] [--no-nyt]

Same as ``bayeswe bench lda``; prints one JSON object whose ``summary`` holds
``tokens_per_s_ratio_vs_tomotopy_k50``, ``tokens_per_s_ratio_vs_tomotopy_k200`` and
``stan_grad_speedup_vs_users_guide``. The implementation is :mod:`bayeswe.lda.bench`.
"""

from __future__ import annotations

import os
import sys

# This file is named like the `lda` package it benchmarks: drop its folder from the
# import path so that `import lda` finds the package, not this script.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from bayeswe.lda.bench import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
