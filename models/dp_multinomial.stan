// Dirichlet-process mixture of multinomials (a DP mixture of unigrams), truncated
// stick-breaking (GEM) form, with every cluster indicator summed out. Part of bayeswe
// (models/dp_multinomial.stan).
//
// Model (Gimpel, TTIC 31210 lecture 15, slides "Stick-Breaking Process" and "Dirichlet
// Process Mixture Model"; the lecture's concentration s is alpha here):
//   alpha ~ Gamma(alpha_shape, alpha_rate)                  (concentration)
//   v_k ~ Beta(1, alpha)                     k = 1..T-1     (stick proportions)
//   w_k = v_k prod_{j<k} (1 - v_j),  w_T = prod_{j<T} (1 - v_j)
//   phi_k ~ Dirichlet(beta)                  k = 1..T       (category probabilities)
//   point n: tokens t ~ Categorical(phi_{z_n}), z_n ~ Categorical(w), z_n summed out:
//   p(x_n) = sum_k w_k prod_v phi_kv^{x_nv}
//
// The density of a point is that of its token sequence (no multinomial coefficient), as
// in bayeswe's collapsed sampler for the same model (bayeswe.samplers.dp_multinomial),
// which integrates phi out; log_lik is on the same scale, so held-out and pointwise
// densities of the two can be compared.
//
// Truncation (Ishwaran & James 2001): the last stick is forced to 1, so w_T holds the
// whole stick left after T - 1 breaks; the generated quantity `leftover` = w_T should be
// small in every draw. `occupancy` counts points per component for one draw of the
// indicators from p(z_n | w, phi, x_n); `n_occupied` is the label-free number of
// clusters.
//
// Data are the (point, category, count) triples of the non-zero counts, as
// models/lda.stan's (document, word, count): a point's log density is a sum over its
// non-zero counts only, computed for all components at once from log(phi)'s columns.
//
// Label switching: compare label-free quantities (n_occupied, leftover, alpha, log_lik),
// not w_k or phi_k across chains.
//
// Self-contained (no #include) so that it can be copied to other projects.
// Part of bayeswe (BSD-3-Clause).
functions {
  /**
   * Log weights of a truncated stick-breaking process, the last stick forced to 1.
   *
   * @param v the T - 1 stick proportions, each in (0, 1)
   * @return vector of the T log weights (they sum to 1 on the natural scale)
   */
  vector stick_breaking_log_weights(vector v) {
    return append_row(log(v), 0) + append_row(0, cumulative_sum(log1m(v)));
  }

  /**
   * log w_k + sum_e count_e log phi_k[word_e] over point n's entries, for every point
   * and component.
   *
   * @param N number of points
   * @param point point of each entry (1..N)
   * @param word category of each entry (1..V)
   * @param count count of each entry (> 0)
   * @param log_phi T x V matrix of log category probabilities
   * @param log_w T log weights
   * @return N x T matrix of the joint log densities of (x_n, z_n = k)
   */
  matrix component_log_density(int N, array[] int point, array[] int word,
                               array[] int count, matrix log_phi, vector log_w) {
    int T = rows(log_phi);
    matrix[T, N] acc = rep_matrix(log_w, N);
    for (e in 1:size(point)) {
      acc[:, point[e]] += count[e] * log_phi[:, word[e]];
    }
    return acc';
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
  int<lower=2> V;                         // number of categories
  int<lower=1> T;                         // truncation level: number of mixture components
  int<lower=0> E;                         // number of non-zero (point, category) counts
  array[E] int<lower=1, upper=N> point;   // point of entry e
  array[E] int<lower=1, upper=V> word;    // category of entry e
  array[E] int<lower=1> count;            // tokens of that category in that point
  real<lower=0> alpha_shape;              // gamma prior of the concentration alpha: shape (> 0)
  real<lower=0> alpha_rate;               // ... and rate (> 0); prior mean shape / rate
  vector<lower=0>[V] beta;                // Dirichlet prior of every phi_k (each > 0)
}

transformed data {
  if (alpha_shape <= 0 || alpha_rate <= 0) {
    reject("alpha_shape and alpha_rate must be positive; got ", alpha_shape, " and ", alpha_rate);
  }
  if (min(beta) <= 0) {
    reject("beta must be positive; got a minimum of ", min(beta));
  }
}

parameters {
  real<lower=0> alpha;                    // DP concentration
  vector<lower=0, upper=1>[T - 1] v;      // stick proportions (the T-th stick is forced to 1)
  array[T] simplex[V] phi;                // category probabilities of each component
}

model {
  matrix[T, V] log_phi;
  for (k in 1:T) {
    log_phi[k] = log(phi[k])';
  }
  alpha ~ gamma(alpha_shape, alpha_rate);
  v ~ beta(1, alpha);
  for (k in 1:T) {
    phi[k] ~ dirichlet(beta);
  }
  target += sum(rows_log_sum_exp(
    component_log_density(N, point, word, count, log_phi, stick_breaking_log_weights(v))));
}

generated quantities {
  vector[T] w = exp(stick_breaking_log_weights(v));  // mixture weights (sum to 1)
  real leftover = w[T];                   // stick mass beyond T - 1 breaks (truncation check)
  array[T] int occupancy = rep_array(0, T);  // points per component, one draw of z
  int n_occupied = 0;                     // components holding at least one point
  vector[N] log_lik;                      // log p(x_n | w, phi) of the token sequence
  {
    matrix[T, V] log_phi;
    for (k in 1:T) {
      log_phi[k] = log(phi[k])';
    }
    matrix[N, T] lp = component_log_density(N, point, word, count, log_phi,
                                            stick_breaking_log_weights(v));
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
  }
}
