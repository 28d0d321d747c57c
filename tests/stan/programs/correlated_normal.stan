// N draws of a K-dimensional normal vector with unknown mean, scales and
// correlation. The covariance is split into scales tau and the Cholesky
// factor of a correlation matrix (with an LKJ prior), the decomposition the
// Stan User's Guide recommends for multivariate priors.
data {
  int<lower=1> N;
  int<lower=1> K;
  array[N] vector[K] y;
  matrix[2, K] prior_mu; // row 1: prior means of mu; row 2: their prior sds
}
parameters {
  vector[K] mu;
  vector<lower=0>[K] tau;
  cholesky_factor_corr[K] L_Omega;
}
transformed parameters {
  matrix[K, K] L_Sigma = diag_pre_multiply(tau, L_Omega);
}
model {
  mu ~ normal(prior_mu[1]', prior_mu[2]');
  tau ~ normal(0, 2);
  L_Omega ~ lkj_corr_cholesky(2);
  y ~ multi_normal_cholesky(mu, L_Sigma);
}
generated quantities {
  corr_matrix[K] Omega = multiply_lower_tri_self_transpose(L_Omega);
  cov_matrix[K] Sigma = multiply_lower_tri_self_transpose(L_Sigma);
  array[2] vector[K] y_new;
  for (i in 1:2) {
    y_new[i] = multi_normal_cholesky_rng(mu, L_Sigma);
  }
}
