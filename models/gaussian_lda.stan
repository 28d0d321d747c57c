// Gaussian LDA (Das, Zaheer & Dyer, "Gaussian LDA for Topic Models with Word Embeddings",
// ACL 2015, section 3), with every topic indicator marginalized out:
//
//   theta_d ~ Dirichlet(alpha)                          d = 1..D
//   Sigma_k ~ inverse-Wishart(Psi, nu)                  k = 1..K
//   mu_k | Sigma_k ~ N(mu0, Sigma_k / kappa)
//   v_{d,i} ~ sum_k theta_dk N(mu_k, Sigma_k)           every token i of document d,
//
// where v_{d,i} is the (fixed, observed) embedding of the token's word type. The paper
// calls the embedding dimension M; here it is P, because D counts documents.
//
// Parameterization. Sigma_k enters only through its Cholesky factor L_k (Sigma_k = L_k L_k').
// The prior of L_k is the inverse-Wishart density of L_k L_k' times the Jacobian of
// L -> L L', which simplifies to (derivation at inv_wishart_factor_lpdf below)
//   log p(L) = const - sum_i (nu + i) log L_ii - 1/2 ||L^-1 L_Psi||_F^2.
// Stan's built-in inv_wishart_cholesky_lpdf is the same density; the function is
// written out here so that the derivation is visible (bayeswe's tests check it against
// SciPy's inverse-Wishart plus a numerically computed Jacobian, and against the built-in).
//
// Aggregation. The embedding depends only on the word type, so log N(v_w | mu_k, Sigma_k)
// is computed once per (used word type, topic): one triangular solve of L_k against the
// P x U matrix of centred embeddings per topic, i.e. U x K solves per evaluation whatever
// the number of tokens. Tokens of the same type in the same document share the mixture
// term, so each unique (document, word type) pair contributes
//   count * log_sum_exp_k(log theta_dk + log N(v_w | mu_k, Sigma_k)).
// Every constant is kept (target +=, not ~), so the log density is the exact log joint
// p(theta, mu, L, v) and can be compared with an independent computation.
//
// Label switching: the posterior is invariant under permutations of the topics; align
// topics before comparing chains or runs. The posterior also has local modes (merged or
// split topics) that NUTS does not leave: start from a clustering of the embeddings
// (bayeswe.glda.fit_gaussian_lda does), not from Stan's random inits. With alpha < 1 the
// density is unbounded at the simplex boundary, so the MAP (optimizing without the
// Jacobian) does not exist; optimize with jacobian=True or use alpha >= 1.
//
// Self-contained (no #include) so that it can be copied to other projects.
// Part of bayeswe (BSD-3-Clause).
functions {
  /**
   * Log density of the Cholesky factor L of Sigma = L L' ~ inverse-Wishart(nu, Psi).
   *
   * Inverse-Wishart (P x P):
   *   log IW(Sigma | nu, Psi) = nu/2 log|Psi| - nu P/2 log 2 - log Gamma_P(nu/2)
   *                             - (nu + P + 1)/2 log|Sigma| - 1/2 tr(Psi Sigma^-1).
   * With Sigma = L L' and Psi = L_Psi L_Psi':
   *   log|Sigma| = 2 sum_i log L_ii,  tr(Psi Sigma^-1) = ||L^-1 L_Psi||_F^2.
   * Jacobian of L -> Sigma on the P(P+1)/2 free entries: order both lower triangles by
   * rows; Sigma_ij = sum_{m <= j} L_im L_jm depends on L_ij with derivative L_jj (j < i)
   * or 2 L_ii (j = i) and otherwise only on entries that come earlier, so the Jacobian
   * matrix is triangular and |J| = prod_i 2 L_ii prod_{j < i} L_jj
   * = 2^P prod_j L_jj^(P - j + 1). Adding log|J| to log IW, the coefficient of
   * log L_jj is -(nu + P + 1) + (P - j + 1) = -(nu + j).
   *
   * @param L lower-triangular P x P matrix with positive diagonal
   * @param nu degrees of freedom, > P - 1
   * @param L_Psi Cholesky factor of the scale matrix Psi
   * @return log p(L), normalized
   */
  real inv_wishart_factor_lpdf(matrix L, real nu, matrix L_Psi) {
    int P = rows(L);
    vector[P] log_diag_L = log(diagonal(L));
    matrix[P, P] A = mdivide_left_tri_low(L, L_Psi);  // L^-1 L_Psi
    real log_const = P * log(2) + nu * sum(log(diagonal(L_Psi))) - 0.5 * nu * P * log(2)
                     - lmgamma(P, 0.5 * nu);
    return log_const - dot_product(nu + linspaced_vector(P, 1, P), log_diag_L)
           - 0.5 * sum(columns_dot_self(A));
  }

  /**
   * log_sum_exp of every row of a matrix.
   *
   * @param A N x K matrix
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
  int<lower=1> D;                         // number of documents
  int<lower=1> V;                         // number of word types (rows of embeddings)
  int<lower=2> K;                         // number of topics
  int<lower=1> P;                         // embedding dimension (the paper's M)
  int<lower=0> N;                         // number of unique (document, word type) pairs
  array[N] int<lower=1, upper=D> doc;     // document of each pair (1-based)
  array[N] int<lower=1, upper=V> word;    // word type of each pair (1-based)
  array[N] int<lower=1> count;            // tokens of the word type in the document
  matrix[V, P] embeddings;                // row w: embedding v_w of word type w
  vector<lower=0>[K] alpha;               // Dirichlet prior of theta_d, every entry > 0
  vector[P] mu0;                          // prior mean of mu_k
  real<lower=0> kappa;                    // prior pseudo-count of mu_k (> 0): Cov = Sigma_k / kappa
  real<lower=P - 1> nu;                   // inverse-Wishart degrees of freedom, > P - 1
  cov_matrix[P] Psi;                      // inverse-Wishart scale matrix
}

transformed data {
  matrix[P, P] L_Psi = cholesky_decompose(Psi);
  // Only word types that occur get a likelihood term: slot[n] is the position of word[n]
  // among the U used types, embeddings_t their embeddings as columns (P x U).
  array[V] int position = rep_array(0, V);
  int U = 0;
  for (n in 1:N) {
    if (position[word[n]] == 0) {
      U += 1;
      position[word[n]] = U;
    }
  }
  array[U] int used;
  array[N] int slot;
  for (w in 1:V) {
    if (position[w] > 0) {
      used[position[w]] = w;
    }
  }
  for (n in 1:N) {
    slot[n] = position[word[n]];
  }
  matrix[P, U] embeddings_t = embeddings[used]';
  vector[N] count_vec = to_vector(count);
  // -P/2 log(2 pi) of every token's Gaussian density, pulled out of the log_sum_exp.
  real log_2pi_tokens = -0.5 * P * log(2 * pi()) * sum(count);
  if (min(alpha) <= 0) {
    reject("alpha must be positive; got min(alpha) = ", min(alpha));
  }
  if (kappa <= 0) {
    reject("kappa must be positive; got ", kappa);
  }
  if (nu <= P - 1) {
    reject("nu must exceed P - 1 = ", P - 1, "; got ", nu);
  }
}

parameters {
  array[D] simplex[K] theta;              // topic proportions of each document
  array[K] vector[P] mu;                  // topic means
  array[K] cholesky_factor_cov[P] L_Sigma;  // Cholesky factors of the topic covariances
}

model {
  // log N(v_w | mu_k, Sigma_k) + P/2 log(2 pi) for every used word type w and topic k
  matrix[U, K] log_density;
  for (k in 1:K) {
    // z[:, u] = L_k^-1 (v_u - mu_k): the one triangular solve per (word type, topic)
    matrix[P, U] z = mdivide_left_tri_low(L_Sigma[k], embeddings_t - rep_matrix(mu[k], U));
    log_density[:, k] = -0.5 * columns_dot_self(z)' - sum(log(diagonal(L_Sigma[k])));
    target += inv_wishart_factor_lpdf(L_Sigma[k] | nu, L_Psi);
    target += multi_normal_cholesky_lpdf(mu[k] | mu0, L_Sigma[k] / sqrt(kappa));
  }
  target += dirichlet_lpdf(theta | alpha);
  matrix[D, K] log_theta;
  for (d in 1:D) {
    log_theta[d] = log(theta[d])';
  }
  target += dot_product(count_vec, rows_log_sum_exp(log_theta[doc] + log_density[slot]))
            + log_2pi_tokens;
}

generated quantities {
  array[K] matrix[P, P] Sigma;            // topic covariances L_Sigma[k] L_Sigma[k]'
  for (k in 1:K) {
    Sigma[k] = multiply_lower_tri_self_transpose(L_Sigma[k]);
  }
}
