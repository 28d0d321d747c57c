// Linear regression with a known noise scale. Used to test named dims and
// coords of vector parameters, and data Stan itself rejects (the size of X
// is checked by Stan against K).
data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] X;
  vector[N] y;
}
parameters {
  vector[K] beta;
}
model {
  beta ~ normal(0, 1);
  y ~ normal(X * beta, 1);
}
