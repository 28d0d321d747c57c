// Eight schools (Rubin 1981), three of them, non-centred: the example of docs/fitting.md.
data {
  int<lower=0> J;             // number of schools
  vector[J] y;                // estimated treatment effects
  vector<lower=0>[J] sigma;   // their standard errors
}
parameters {
  real mu;                    // population mean effect
  real<lower=0> tau;          // population sd of the effects
  vector[J] eta;              // standardized school effects
}
transformed parameters {
  vector[J] theta = mu + tau * eta;   // school effects
}
model {
  mu ~ normal(0, 5);
  tau ~ cauchy(0, 5);
  eta ~ std_normal();
  y ~ normal(theta, sigma);
}
