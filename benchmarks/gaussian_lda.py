"""``bayeswe bench gaussian-lda``: naive vs Cholesky vs alias-MH (see bayeswe.glda.bench)."""

import sys

from bayeswe.glda.bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
