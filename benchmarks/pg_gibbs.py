"""``bayeswe bench pg-gibbs``: PG blocked Gibbs vs Stan NUTS (see bayeswe.samplers.bench)."""

from bayeswe.samplers.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
