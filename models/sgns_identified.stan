// Probabilistic skip-gram with negative sampling (SGNS), identified by fixing K context vectors.
//
// Yrjänäinen et al., "Posterior Sampling of Probabilistic Word Embeddings", section 2:
// the K context vectors alpha[fixed_index] are set to the rows of an invertible K x K
// matrix M = fixed_alpha; Proposition 1 (eq. (8)) shows this loses no likelihood, and
// Proposition 2 that the likelihood is then identified. In practice (section 4.1.1)
// M is the MAP estimate of those rows under models/sgns.stan.
//
// Likelihood: the aggregated SGNS likelihood, eq. (5), as in models/sgns.stan.
// Prior: spherical Gaussian, eq. (6), with lambda the prior STANDARD DEVIATION, on every
// row of rho and on the free rows of alpha only (the fixed rows are constants).
//
// Self-contained (no #include) so that it can be copied to other projects.
// Part of bayeswe (BSD-3-Clause).
functions {
  /**
   * SGNS log likelihood (eq. (5)) of the unique pairs start..end, for reduce_sum.
   *
   * @param n_pos_slice positive counts of pairs start..end (the sliced argument)
   * @param start first pair of the slice (1-based)
   * @param end last pair of the slice
   * @param rho target vectors, V x K
   * @param alpha context vectors, V x K
   * @param target_word target word of every pair
   * @param context_word context word of every pair
   * @param n_vec total count of every pair
   * @return sum over the slice of n_pos x - n log1p_exp(x), x = rho[w] . alpha[v]
   */
  real sgns_partial_loglik(array[] int n_pos_slice, int start, int end, matrix rho,
                           matrix alpha, array[] int target_word,
                           array[] int context_word, vector n_vec) {
    vector[end - start + 1] eta = rows_dot_product(rho[target_word[start:end]],
                                                   alpha[context_word[start:end]]);
    return dot_product(to_vector(n_pos_slice), eta)
           - dot_product(n_vec[start:end], log1p_exp(eta));
  }
}

data {
  int<lower=1> V;                              // vocabulary size (number of word types)
  int<lower=1, upper=V> K;                     // embedding dimension (= number of fixed context words)
  int<lower=0> P;                              // number of unique (target, context) pairs
  array[P] int<lower=1, upper=V> target_word;  // target word w of each pair (1-based)
  array[P] int<lower=1, upper=V> context_word; // context word v of each pair (1-based)
  array[P] int<lower=1> n;                     // observations of the pair: positive + negative samples
  array[P] int<lower=0> n_pos;                 // observations with label 1 (positive samples), <= n
  real<lower=0> lambda;                        // prior standard deviation of rho and of the free alpha rows
  int<lower=0> grainsize;                      // 0: single-threaded likelihood; > 0: reduce_sum over
                                               // slices of about this many pairs (threads_per_chain > 1;
                                               // TBB splits the sum at run time, so draws then agree
                                               // across runs only up to floating-point rounding)
  array[K] int<lower=1, upper=V> fixed_index;  // the K words whose context vectors are fixed (distinct)
  matrix[K, K] fixed_alpha;                    // row k = context vector of word fixed_index[k]; invertible
}

transformed data {
  vector[P] n_pos_vec = to_vector(n_pos);
  vector[P] n_vec = to_vector(n);
  array[P] int cell;  // column-major position of pair p in to_vector(rho * alpha')
  // Three ways to get rho_w . alpha_v, by how much of the V x V matrix the pairs fill
  // (see models/sgns.stan for the sparse/dense threshold):
  //   2 (P >= 0.9 V^2): the whole product rho * alpha', every cell a term of the likelihood
  //     (empty cells have n = 0), so no gather; measured on K=5, V=100, N=5e4 (99 % full)
  //     the gather of mode 1 costs about 13 % of a gradient, and log1p_exp of the empty
  //     cells costs less than that while they are under about 10 %;
  //   1 (V^2 <= 2 P): the whole product, then the P cells of the pairs;
  //   0 (otherwise): one dot product per pair of gathered rows.
  int dense_mode = P >= 0.9 * V * V ? 2 : ((1.0 * V) * V <= 2.0 * P ? 1 : 0);
  int n_cells = dense_mode == 2 ? V * V : 0;
  vector[n_cells] n_cell = rep_vector(0, n_cells);      // n of every cell, column-major (mode 2)
  vector[n_cells] n_pos_cell = rep_vector(0, n_cells);  // n_pos of every cell (mode 2)
  array[V - K] int free_index;  // the words whose context vectors are parameters, in order
  for (p in 1:P) {
    if (n_pos[p] > n[p]) {
      reject("n_pos[", p, "] = ", n_pos[p], " exceeds n[", p, "] = ", n[p]);
    }
    cell[p] = (context_word[p] - 1) * V + target_word[p];
    if (dense_mode == 2) {
      n_cell[cell[p]] = n[p];
      n_pos_cell[cell[p]] = n_pos[p];
    }
  }
  {
    array[V] int is_fixed = rep_array(0, V);
    int j = 1;
    for (k in 1:K) {
      if (is_fixed[fixed_index[k]]) {
        reject("fixed_index holds word ", fixed_index[k], " twice");
      }
      is_fixed[fixed_index[k]] = 1;
    }
    for (v in 1:V) {
      if (!is_fixed[v]) {
        free_index[j] = v;
        j += 1;
      }
    }
  }
  {
    // Proposition 1 needs M invertible; a relative tolerance keeps the check scale-free.
    vector[K] sv = singular_values(fixed_alpha);
    if (!(min(sv) > 1e-10 * max(sv))) {
      reject("fixed_alpha is singular or not finite (singular values ", sv, ")");
    }
  }
}

parameters {
  matrix[V, K] rho;             // target (word) vectors, one row per word
  matrix[V - K, K] alpha_free;  // context vectors of the words free_index, in that order
}

transformed parameters {
  matrix[V, K] alpha;  // all context vectors: rows fixed_index = fixed_alpha, the rest alpha_free
  alpha[fixed_index] = fixed_alpha;
  alpha[free_index] = alpha_free;
}

model {
  to_vector(rho) ~ normal(0, lambda);
  to_vector(alpha_free) ~ normal(0, lambda);
  // Exactly eq. (5): n_pos log sigma(x) + (n - n_pos) log(1 - sigma(x)) = n_pos x - n log1p_exp(x).
  // (binomial_logit gives the same up to constants but was 1.4 times slower per gradient:
  // it evaluates log_inv_logit and log1m_inv_logit.)
  if (grainsize > 0) {
    target += reduce_sum(sgns_partial_loglik, n_pos, grainsize, rho, alpha, target_word,
                         context_word, n_vec);
  } else if (dense_mode == 2) {
    vector[n_cells] eta = to_vector(rho * alpha');
    target += dot_product(n_pos_cell, eta) - dot_product(n_cell, log1p_exp(eta));
  } else {
    vector[P] eta;  // rho_w . alpha_v for every pair
    if (dense_mode == 1) {
      eta = to_vector(rho * alpha')[cell];
    } else {
      eta = rows_dot_product(rho[target_word], alpha[context_word]);
    }
    target += dot_product(n_pos_vec, eta) - dot_product(n_vec, log1p_exp(eta));
  }
}
