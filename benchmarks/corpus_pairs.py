"""``bayeswe bench corpus-pairs``: SGNS pair extraction at 10^7 tokens (bayeswe.corpus.bench)."""

import sys

from bayeswe.corpus.bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
