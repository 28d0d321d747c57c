"""``bayeswe bench evaluation``: analogy / Spearman / posterior evaluation speed and
agreement with gensim on GloVe (see bayeswe.evaluation.bench)."""

from bayeswe.evaluation.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
