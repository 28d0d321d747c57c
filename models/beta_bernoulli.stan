// Beta–Bernoulli model: the smallest program with a known posterior.
// Used by `bayeswe demo` to check the Stan toolchain end to end; the posterior
// of theta is Beta(a + sum(y), b + N - sum(y)).
data {
  int<lower=0> N;                        // number of trials
  array[N] int<lower=0, upper=1> y;      // outcomes
  real<lower=0> a;                       // prior Beta(a, b) shape
  real<lower=0> b;                       // prior Beta(a, b) shape
}
parameters {
  real<lower=0, upper=1> theta;          // success probability
}
model {
  theta ~ beta(a, b);
  y ~ bernoulli(theta);
}
