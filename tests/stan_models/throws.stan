// A model that throws an unrecoverable error (fatal_error raises
// std::runtime_error, which Stan does not treat as a rejection).
// where == 0: in the model block, at the first log density evaluation;
// where == 1: in generated quantities, after the first accepted draw.
data {
  int<lower=0, upper=1> where;
}
parameters {
  real mu;
}
model {
  mu ~ normal(0, 1);
  if (where == 0) {
    fatal_error("bayeswe test: the model block threw");
  }
}
generated quantities {
  if (where == 1) {
    fatal_error("bayeswe test: generated quantities threw");
  }
}
