"""``bayeswe bench lda``: collapsed Gibbs for LDA vs tomotopy, lda, gensim, scikit-learn.

Usage::

    python benchmarks/lda.py --json [--quick] [--budget SECONDS] [--no-nyt]

Same as ``bayeswe bench lda``; prints one JSON object whose ``summary`` holds
``tokens_per_s_ratio_vs_tomotopy_k50``, ``tokens_per_s_ratio_vs_tomotopy_k200`` and
``stan_grad_speedup_vs_users_guide``. The implementation is :mod:`bayeswe.lda.bench`.
"""

from __future__ import annotations

import sys

from bayeswe.lda.bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
