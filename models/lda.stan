// Latent Dirichlet allocation with the topic indicators summed out, on
// aggregated (document, word, count) data. Part of bayeswe (models/lda.stan).
//
// Model (Blei, Ng & Jordan 2003; the collapsed form is in Gimpel, TTIC 31210
// lecture 15, and Naidu 2021, ch. on LDA):
//   phi_k   ~ Dirichlet(beta * 1_V)       k = 1..K   (topic-word distributions)
//   theta_d ~ Dirichlet(alpha)            d = 1..D   (document-topic proportions)
//   w_di | theta_d, phi ~ Categorical(theta_d' * phi)   (z_di summed out)
// so a document contributes sum_w count_dw * log(sum_k theta_dk * phi_kw).
//
// Why it is fast:
// * tokens are aggregated to the N distinct (document, word) pairs with counts,
//   so the likelihood costs O(N K) instead of O(tokens K);
// * log(theta_d . phi_{., w}) is computed for all words of a document with one
//   gather and one matrix-vector product, no scalar log in a loop over tokens;
// * each simplex is parameterized by an unconstrained vector x through softmax,
//   and the Dirichlet prior plus the change-of-variables term is written in
//   closed form: for phi = softmax(x), x in R^n, the density of x is
//     prod_i phi_i^(a_i - 1) * prod_i phi_i  (Jacobian of the log-ratio map)
//   = exp(sum_i a_i x_i - sum(a) * log_sum_exp(x)),
//   times a N(0, n) density on sum(x), which pins the one direction softmax
//   ignores (x -> x + c) at unit scale along (1, ..., 1) / sqrt(n). It costs
//   one log_sum_exp per simplex, instead of a log per element for the prior
//   plus Stan's stick-breaking transform.
//
// The log density therefore includes the Jacobian whatever the method: the
// "map" estimate is the mode in x, i.e. of the simplex density with exponents
// alpha and beta instead of alpha - 1 and beta - 1 (it exists even for
// alpha, beta < 1, where the mode of the Dirichlet density itself does not).
data {
  int<lower=1> D;                            // number of documents
  int<lower=1> V;                            // vocabulary size
  int<lower=2> K;                            // number of topics
  int<lower=1> N;                            // number of distinct (document, word) pairs
  array[N] int<lower=1, upper=D> doc;        // document of pair n, non-decreasing (documents are contiguous)
  array[N] int<lower=1, upper=V> word;       // word of pair n
  array[N] int<lower=1> count;               // times word[n] occurs in document doc[n]
  vector<lower=0>[K] alpha;                  // Dirichlet prior on theta_d (symmetric: all equal)
  real<lower=0> beta;                        // symmetric Dirichlet prior on phi_k
}
transformed data {
  vector[N] count_real = to_vector(count);
  real alpha_sum = sum(alpha);
  // pairs of document d are start[d] .. start[d] + len[d] - 1
  array[D] int len = rep_array(0, D);
  array[D] int start;
  for (n in 1:N) {
    if (n > 1 && doc[n] < doc[n - 1]) {
      reject("doc must be non-decreasing (pairs grouped by document); doc[", n, "] = ", doc[n],
             " after ", doc[n - 1]);
    }
    len[doc[n]] += 1;
  }
  for (d in 1:D) {
    if (len[d] == 0) {
      reject("document ", d, " has no words");
    }
  }
  start[1] = 1;
  for (d in 2:D) {
    start[d] = start[d - 1] + len[d - 1];
  }
}
parameters {
  array[D] vector[K] theta_raw;              // theta_d = softmax(theta_raw[d])
  array[K] vector[V] phi_raw;                // phi_k = softmax(phi_raw[k])
}
model {
  matrix[K, V] phi_m;                        // row k is phi_k
  for (k in 1:K) {
    phi_m[k] = softmax(phi_raw[k])';
    // Dirichlet(beta) prior and Jacobian, in closed form (see the header)
    target += beta * (sum(phi_raw[k]) - V * log_sum_exp(phi_raw[k]));
    target += -0.5 * square(sum(phi_raw[k])) / V;
  }
  for (d in 1:D) {
    int s = start[d];
    int e = s + len[d] - 1;
    target += dot_product(alpha, theta_raw[d]) - alpha_sum * log_sum_exp(theta_raw[d]);
    target += -0.5 * square(sum(theta_raw[d])) / K;
    // sum_w count_dw * log(theta_d' * phi_{., w}) over the words of document d
    target += dot_product(count_real[s:e], (log(softmax(theta_raw[d])' * phi_m[:, word[s:e]]))');
  }
}
generated quantities {
  matrix[D, K] theta;                        // document-topic proportions (rows sum to 1)
  matrix[K, V] phi;                          // topic-word distributions (rows sum to 1)
  for (d in 1:D) {
    theta[d] = softmax(theta_raw[d])';
  }
  for (k in 1:K) {
    phi[k] = softmax(phi_raw[k])';
  }
}
