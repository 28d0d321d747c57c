// Dirichlet-process mixture of Gaussians, truncated stick-breaking (GEM) form, with
// every cluster indicator summed out. Part of bayeswe (models/dp_mixture.stan).
//
// Model (Gimpel, TTIC 31210 lecture 15, slides "Stick-Breaking Process", "A Draw G
// from a DP" and "Dirichlet Process Mixture Model"; the lecture's concentration s is
// alpha here). With [L15-SB] = the stick-breaking slide and [L15-DPMM] = the mixture:
//   alpha ~ Gamma(alpha_shape, alpha_rate)                  (concentration)
//   v_k ~ Beta(1, alpha)                     k = 1..T-1     [L15-SB] nu_k ~ Beta(1, s)
//   w_k = v_k prod_{j<k} (1 - v_j),  w_T = prod_{j<T} (1 - v_j)
//                                                           [L15-SB] beta_k, truncated
//   Sigma_k ~ inverse-Wishart(nu0, Psi0),  mu_k | Sigma_k ~ N(mu0, Sigma_k / kappa0)
//                                            k = 1..T       [L15-DPMM] theta_k ~ G_0
//   y_n ~ sum_k w_k N(mu_k, Sigma_k)         n = 1..N       [L15-DPMM] steps 3-4, z summed out
//
// Truncation (Ishwaran & James 2001): the infinite GEM sequence is cut at T atoms by
// forcing the last stick v_T = 1, so w_T is the whole stick left after T - 1 breaks. The
// generated quantity `leftover` = w_T is that mass; when it is small in every draw the
// truncation does not matter (a fit whose leftover is not small needs a larger T).
// `occupancy` counts the points per component for one draw of the indicators from
// their conditional p(z_n | w, mu, Sigma, y_n), and `n_occupied` the non-empty ones:
// these are the label-free "number of clusters" of the fit.
//
// Choices, and why:
// * alpha gets a gamma prior (Escobar & West 1995) instead of a fixed value: the number
//   of clusters is sensitive to alpha, the data identify it weakly but usefully, and
//   bayeswe's collapsed samplers resample it too, so both sample the same posterior.
//   A nearly fixed alpha is a gamma prior with a large shape (alpha_shape = 1e4,
//   alpha_rate = 1e4 / alpha).
// * Normal-inverse-Wishart components, as the collapsed Gibbs samplers assume (the
//   conjugate prior they integrate out). Each covariance enters through its Cholesky
//   factor (inv_wishart_cholesky_lpdf: the inverse-Wishart density of L L' times the
//   Jacobian of L -> L L'), so every draw is positive definite without a check and the
//   log-diagonal is unconstrained. The mean is centred (mu_k, not a standardized
//   offset): occupied components, whose means the data pin down, sample better that
//   way; empty components follow their prior, whose mu | Sigma dependence is mild when
//   nu0 exceeds P + 1 by a few (the default of bayeswe's data builder is P + 3).
// * The likelihood is computed per component for all points at once: one triangular
//   solve of L_k against the P x N centred data, then a row-wise log_sum_exp.
//
// Label switching: the posterior is not invariant under permutations of the components
// (the stick-breaking prior favours big clusters first) but it has one mode per
// assignment of clusters to stick positions; chains may sit in different ones. Compare
// label-free quantities (n_occupied, leftover, alpha, sorted weights, log_lik), not w_k
// or mu_k across chains. NUTS does not move a cluster between stick positions either:
// start chains with the clusters in the first sticks by decreasing size (bayeswe's
// initial_values does). The MAP (optimizing without the Jacobian) need not exist: the
// Beta(1, alpha) density of an empty stick grows without bound as alpha -> 0 and
// v -> 1; optimize with jacobian=True (method="laplace" does).
//
// Self-contained (no #include) so that it can be copied to other projects.
// Part of bayeswe (BSD-3-Clause).
functions {
  /**
   * Log weights of a truncated stick-breaking process (Gimpel lecture 15, "Stick-Breaking
   * Process": beta_k = nu_k prod_{j<k} (1 - nu_j)), the last stick forced to 1.
   *
   * @param v the T - 1 stick proportions, each in (0, 1)
   * @return vector of the T log weights (they sum to 1 on the natural scale)
   */
  vector stick_breaking_log_weights(vector v) {
    int T = rows(v) + 1;
    // log w_k = log v_k + sum_{j<k} log(1 - v_j); the last entry is the whole remainder
    return append_row(log(v), 0) + append_row(0, cumulative_sum(log1m(v)));
  }

  /**
   * log w_k + log N(y_n | mu_k, L_k L_k') for every point n and component k.
   *
   * @param y N x P matrix of points
   * @param mu T component means
   * @param L T Cholesky factors of the component covariances
   * @param log_w T log weights
   * @return N x T matrix of the joint log densities of (y_n, z_n = k)
   */
  matrix component_log_density(matrix y, array[] vector mu, array[] matrix L, vector log_w) {
    int N = rows(y);
    int P = cols(y);
    int T = size(mu);
    matrix[P, N] y_t = y';
    matrix[N, T] out;
    for (k in 1:T) {
      // column n of z is L_k^-1 (y_n - mu_k): one solve per component for all points
      matrix[P, N] z = mdivide_left_tri_low(L[k], y_t - rep_matrix(mu[k], N));
      out[:, k] = -0.5 * columns_dot_self(z)'
                  + (log_w[k] - sum(log(diagonal(L[k]))) - 0.5 * P * log(2 * pi()));
    }
    return out;
  }

  /**
   * log_sum_exp of every row of a matrix.
   *
   * @param A N x T matrix
   * @return vector of the N row-wise log-sum-exps
   */
  vector rows_log_sum_exp(matrix A) {
    int N = rows(A);
    vector[N] out;
    for (n in 1:N) {
      out[n] = log_sum_exp(A[n]);
    }
    return out;
  }
}

data {
  int<lower=1> N;                         // number of points
  int<lower=1> P;                         // dimension of a point
  int<lower=1> T;                         // truncation level: number of mixture components
  matrix[N, P] y;                         // row n: point y_n (finite)
  real<lower=0> alpha_shape;              // gamma prior of the concentration alpha: shape (> 0)
  real<lower=0> alpha_rate;               // ... and rate (> 0); prior mean shape / rate
  vector[P] mu0;                          // prior mean of every mu_k
  real<lower=0> kappa0;                   // prior pseudo-count of mu_k (> 0): Cov = Sigma_k / kappa0
  real<lower=P - 1> nu0;                  // inverse-Wishart degrees of freedom, > P - 1
  cov_matrix[P] Psi0;                     // inverse-Wishart scale; E[Sigma_k] = Psi0 / (nu0 - P - 1)
}

transformed data {
  matrix[P, P] L_Psi0 = cholesky_decompose(Psi0);
  if (alpha_shape <= 0 || alpha_rate <= 0) {
    reject("alpha_shape and alpha_rate must be positive; got ", alpha_shape, " and ", alpha_rate);
  }
  if (kappa0 <= 0) {
    reject("kappa0 must be positive; got ", kappa0);
  }
  if (nu0 <= P - 1) {
    reject("nu0 must exceed P - 1 = ", P - 1, "; got ", nu0);
  }
  if (is_nan(sum(y)) || is_inf(sum(y))) {
    reject("y holds NaN or infinite values");
  }
}

parameters {
  real<lower=0> alpha;                    // DP concentration
  vector<lower=0, upper=1>[T - 1] v;      // stick proportions (the T-th stick is forced to 1)
  array[T] vector[P] mu;                  // component means
  array[T] cholesky_factor_cov[P] L_Sigma;  // Cholesky factors of the component covariances
}

model {
  vector[T] log_w = stick_breaking_log_weights(v);
  alpha ~ gamma(alpha_shape, alpha_rate);
  v ~ beta(1, alpha);
  for (k in 1:T) {
    L_Sigma[k] ~ inv_wishart_cholesky(nu0, L_Psi0);
    mu[k] ~ multi_normal_cholesky(mu0, L_Sigma[k] / sqrt(kappa0));
  }
  target += sum(rows_log_sum_exp(component_log_density(y, mu, L_Sigma, log_w)));
}

generated quantities {
  vector[T] w = exp(stick_breaking_log_weights(v));  // mixture weights (sum to 1)
  real leftover = w[T];                   // stick mass beyond T - 1 breaks (truncation check)
  array[T] int occupancy = rep_array(0, T);  // points per component, one draw of z
  int n_occupied = 0;                     // components holding at least one point
  vector[N] log_lik;                      // log p(y_n | w, mu, Sigma), for LOO / WAIC
  array[T] matrix[P, P] Sigma;            // component covariances L_Sigma[k] L_Sigma[k]'
  {
    matrix[N, T] lp = component_log_density(y, mu, L_Sigma, stick_breaking_log_weights(v));
    log_lik = rows_log_sum_exp(lp);
    for (n in 1:N) {
      // softmax then categorical_rng is categorical_logit_rng's own draw, but it also
      // takes a component of weight 0 (log weight -inf, as an ADVI draw can give)
      int k = categorical_rng(softmax(lp[n]'));
      occupancy[k] += 1;
    }
  }
  for (k in 1:T) {
    n_occupied += occupancy[k] > 0;
    Sigma[k] = multiply_lower_tri_self_transpose(L_Sigma[k]);
  }
}
