// Probabilistic skip-gram with negative sampling (SGNS), not identified.
//
// Likelihood: the aggregated SGNS likelihood of Yrjänäinen et al., "Posterior
// Sampling of Probabilistic Word Embeddings", eq. (5): for each unique
// (target w, context v) pair observed n times, n_pos of them as positive samples,
//   n_pos * log sigma(rho_w . alpha_v) + (n - n_pos) * log(1 - sigma(rho_w . alpha_v)).
// Prior: spherical Gaussian, eq. (6), with lambda the prior STANDARD DEVIATION
// (the paper's eq. (6) writes a precision; its Stan listings use a standard deviation).
//
// The posterior is invariant under rho -> rho A', alpha -> alpha A^-1 for orthogonal A
// (eq. (7) restricted by the prior): use models/sgns_identified.stan for draws whose
// individual coordinates, posterior means, R-hat and ESS mean something.
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
  int<lower=1> K;                              // embedding dimension
  int<lower=0> P;                              // number of unique (target, context) pairs
  array[P] int<lower=1, upper=V> target_word;  // target word w of each pair (1-based)
  array[P] int<lower=1, upper=V> context_word; // context word v of each pair (1-based)
  array[P] int<lower=1> n;                     // observations of the pair: positive + negative samples
  array[P] int<lower=0> n_pos;                 // observations with label 1 (positive samples), <= n
  real<lower=0> lambda;                        // prior standard deviation of every rho and alpha entry
  int<lower=0> grainsize;                      // 0: single-threaded likelihood; > 0: reduce_sum over
                                               // slices of about this many pairs (threads_per_chain > 1;
                                               // TBB splits the sum at run time, so draws then agree
                                               // across runs only up to floating-point rounding)
}

transformed data {
  vector[P] n_pos_vec = to_vector(n_pos);
  vector[P] n_vec = to_vector(n);
  // Pair p is entry (target_word[p], context_word[p]) of the V x V matrix rho * alpha';
  // this is its column-major position in to_vector(rho * alpha').
  array[P] int cell;
  // The dense product costs about V^2 K, the gathered dot products about P K with a larger
  // constant (copies of indexed rows); measured on 2 cores the dense product is faster when
  // V^2 <= 2 P (simulated data fill most of the V x V pairs, natural text does not).
  int use_dense = (1.0 * V) * V <= 2.0 * P;
  for (p in 1:P) {
    if (n_pos[p] > n[p]) {
      reject("n_pos[", p, "] = ", n_pos[p], " exceeds n[", p, "] = ", n[p]);
    }
    cell[p] = (context_word[p] - 1) * V + target_word[p];
  }
}

parameters {
  matrix[V, K] rho;    // target (word) vectors, one row per word
  matrix[V, K] alpha;  // context vectors, one row per word
}

model {
  to_vector(rho) ~ normal(0, lambda);
  to_vector(alpha) ~ normal(0, lambda);
  // Exactly eq. (5): log sigma(x) = x - log1p_exp(x) and log(1 - sigma(x)) = -log1p_exp(x),
  // so n_pos log sigma(x) + (n - n_pos) log(1 - sigma(x)) = n_pos x - n log1p_exp(x):
  // one elementwise function instead of two, and no binomial coefficient.
  if (grainsize > 0) {
    target += reduce_sum(sgns_partial_loglik, n_pos, grainsize, rho, alpha, target_word,
                         context_word, n_vec);
  } else {
    vector[P] eta;  // rho_w . alpha_v for every pair
    if (use_dense) {
      eta = to_vector(rho * alpha')[cell];
    } else {
      eta = rows_dot_product(rho[target_word], alpha[context_word]);
    }
    target += dot_product(n_pos_vec, eta) - dot_product(n_vec, log1p_exp(eta));
  }
}
