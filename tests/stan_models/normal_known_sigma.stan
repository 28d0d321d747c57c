// Conjugate normal model for testing bayeswe.fit against the analytic posterior:
// y[n] ~ normal(mu, sigma) with sigma known, mu ~ normal(m0, s0).
// The posterior of mu is normal with precision 1 / s0^2 + N / sigma^2.
data {
  int<lower=0> N;
  vector[N] y;
  real<lower=0> sigma;
  real m0;
  real<lower=0> s0;
}
parameters {
  real mu;
}
model {
  mu ~ normal(m0, s0);
  y ~ normal(mu, sigma);
}
generated quantities {
  vector[N] log_lik;
  array[N] real y_rep = normal_rng(rep_vector(mu, N), sigma);
  for (n in 1:N) {
    log_lik[n] = normal_lpdf(y[n] | mu, sigma);
  }
}
