// Partial pooling of J group effects, each measured with a known standard
// error: the classic "eight schools" shape of problem. The group effects are
// written as mu + tau * eta with standard-normal eta (the non-centred
// parameterisation), which samples well when the data say little about tau.
data {
  int<lower=0> J; // number of groups
  vector[J] y; // estimated effect in each group
  vector<lower=0>[J] sigma; // standard error of each estimate
}
parameters {
  real mu; // population mean effect
  real<lower=0> tau; // population scale of the effects
  vector[J] eta; // standardised group effects
}
transformed parameters {
  vector[J] theta = mu + tau * eta; // group effects
}
model {
  mu ~ normal(0, 5);
  tau ~ normal(0, 5);
  eta ~ std_normal();
  y ~ normal(theta, sigma);
}
generated quantities {
  array[J] real y_rep = normal_rng(theta, sigma);
}
