// Optimization succeeds here but the Laplace draws do not: generated
// quantities throw for any draw farther than 0.01 from the mode, which the
// mode itself never is. Tests that the Laplace run's own message reaches the
// error raised (the mode-finding run printed nothing wrong).
data {
  real m;
}
parameters {
  real mu;
}
model {
  mu ~ normal(m, 1);
}
generated quantities {
  if (abs(mu - m) > 0.01) {
    fatal_error("bayeswe test: a Laplace draw is ", mu - m, " away from the mode");
  }
}
