// HDP-LDA: latent Dirichlet allocation whose number of topics is chosen by a
// hierarchical Dirichlet process (Teh, Jordan, Beal & Blei 2006), truncated at T topics,
// with the topic indicators summed out, on aggregated (document, word, count) data.
// Part of bayeswe (models/hdp_lda.stan).
//
// Model (Gimpel, TTIC 31210 lecture 15: [L15-SB] = slide "Stick-Breaking Process",
// [L15-LDA] = "LDA Generative Story", [L15-HDP] = "HDP-PCFG", whose
// phi_z ~ DP(alpha, beta) on top-level weights beta ~ GEM(alpha) is the same hierarchy):
//   v_k ~ Beta(1, gamma)                        k = 1..T-1   [L15-SB] nu_k ~ Beta(1, s)
//   beta_k = v_k prod_{j<k} (1 - v_j),  beta_T = prod_{j<T} (1 - v_j)
//                                            top-level topic weights, GEM(gamma) truncated
//   theta_d ~ Dirichlet(alpha0 * beta)           d = 1..D     [L15-HDP] DP(alpha0, beta) on
//                                                              the T atoms is this Dirichlet
//   phi_k ~ Dirichlet(eta * 1_V)                 k = 1..T     [L15-LDA] step 1
//   w_di | theta_d, phi ~ Categorical(theta_d' * phi)         [L15-LDA] step 2, z summed out
// so a document contributes sum_w count_dw * log(sum_k theta_dk * phi_kw), as in lda.stan.
//
// Truncation: the last stick is forced to 1, so beta_T is the top-level mass left after
// T - 1 breaks; the generated quantity `leftover` reports it. When it is small in every
// draw, topics beyond T would carry (almost) no weight and T is large enough.
// `topic_tokens` counts the tokens per topic for one draw of the indicators from their
// conditional given theta and phi, and `n_occupied` the topics holding any token: the
// label-free "number of topics" of the fit.
//
// Choices, and why:
// * gamma and alpha0 are data (fixed), not parameters. A gamma prior on alpha0 makes a
//   funnel with the D x T document proportions (their spread is set by alpha0), which
//   NUTS crosses badly on the small corpora Stan is meant for here; fix them (tomotopy's
//   and gensim's defaults are gamma = alpha0 = 1 and 0.1) or compare a few values.
// * theta_d is a normalized vector of Gamma(a_k, 1) variables, a = alpha0 * beta, each
//   written as G_dk = theta_gamma[d, k] * theta_uniform[d, k]^(1 / a_k) with
//   theta_gamma ~ Gamma(a_k + 1, 1) and theta_uniform ~ Uniform(0, 1), which is exactly
//   Gamma(a_k, 1) (the way Marsaglia and Tsang 2000 draw a gamma of shape below 1). A
//   topic that no document uses gets a small a_k, and log theta_dk then has a left tail
//   of scale 1 / a_k: with theta_d = softmax(theta_raw[d]), as in lda.stan, NUTS took
//   trees of maximal depth in every iteration and did not reach that tail, so tokens
//   spread over unused topics (on the study's 20 documents twice as many occupied topics
//   as the collapsed sampler's, and a rare word's predictive 1.7 times too large;
//   benchmarks/studies/hdp_twin_agreement.py). Here the tail is the uniform's:
//   theta_uniform's unconstrained (logit) value has a logistic tail of scale 1,
//   whatever a_k.
// * phi_k = softmax(phi_raw[k]) as in lda.stan, with the Dirichlet density and the
//   Jacobian of the log-ratio map in closed form, exp(a' x - sum(a) log_sum_exp(x)) / B(a),
//   and a N(0, n) density on sum(x) for the direction softmax ignores. The gamma form for
//   phi as well was tried once (the study's data, eta = 0.2) and did not mix better.
// * Pitfalls: a small eta gives log phi_kw a left tail of scale 1 / eta, which NUTS
//   crosses with long trajectories; keep eta not tiny and check the tree depths. NUTS
//   does not move a topic from one stick to another, so chains can settle in different
//   orders, and a topic's expected weight depends on its stick: compare chains on
//   label-free quantities, and take the weights and the number of topics from the
//   collapsed sampler (the study above).
//
// Label switching: topics can be permuted only approximately (the stick-breaking prior
// orders them by expected size), and chains may settle in different orders; compare
// label-free quantities (n_occupied, leftover, sorted beta) across chains.
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
    // log beta_k = log v_k + sum_{j<k} log(1 - v_j); the last entry is the whole remainder
    return append_row(log(v), 0) + append_row(0, cumulative_sum(log1m(v)));
  }

  /**
   * Log of a Dirichlet(a) draw made of Gamma(a_k + 1, 1) and Uniform(0, 1) variables:
   * G_k = g_k * u_k^(1 / a_k) is Gamma(a_k, 1), and G / sum(G) is Dirichlet(a).
   *
   * @param g the Gamma(a_k + 1, 1) variables, positive
   * @param u the Uniform(0, 1) variables
   * @param a the Dirichlet parameter, positive
   * @return log(G / sum(G)), computed on the log scale so that tiny entries stay finite
   */
  vector log_dirichlet_from_gammas(vector g, vector u, vector a) {
    vector[rows(g)] log_g = log(g) + log(u) ./ a;
    return log_g - log_sum_exp(log_g);
  }
}

data {
  int<lower=1> D;                            // number of documents
  int<lower=1> V;                            // vocabulary size
  int<lower=1> T;                            // truncation level: number of topics
  int<lower=1> N;                            // number of distinct (document, word) pairs
  array[N] int<lower=1, upper=D> doc;        // document of pair n, non-decreasing (documents are contiguous)
  array[N] int<lower=1, upper=V> word;       // word of pair n
  array[N] int<lower=1> count;               // times word[n] occurs in document doc[n]
  real<lower=0> gamma;                       // top-level concentration: beta ~ GEM(gamma)
  real<lower=0> alpha0;                      // document-level concentration: theta_d ~ Dirichlet(alpha0 beta)
  real<lower=0> eta;                         // symmetric Dirichlet prior on phi_k
}

transformed data {
  vector[N] count_real = to_vector(count);
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
  if (gamma <= 0 || alpha0 <= 0 || eta <= 0) {
    reject("gamma, alpha0 and eta must be positive; got ", gamma, ", ", alpha0, ", ", eta);
  }
}

parameters {
  vector<lower=0, upper=1>[T - 1] v;         // top-level stick proportions (the T-th is forced to 1)
  array[D] vector<lower=0>[T] theta_gamma;   // Gamma(alpha0 beta_k + 1, 1) part of theta_d
  array[D] vector<lower=0, upper=1>[T] theta_uniform;  // Uniform(0, 1) part of theta_d
  array[T] vector[V] phi_raw;                // phi_k = softmax(phi_raw[k])
}

model {
  vector[T] a = alpha0 * exp(stick_breaking_log_weights(v));  // Dirichlet parameter of theta_d
  matrix[T, V] phi_m;                        // row k is phi_k
  v ~ beta(1, gamma);
  for (k in 1:T) {
    phi_m[k] = softmax(phi_raw[k])';
    // Dirichlet(eta) prior and Jacobian, in closed form (constant normalizer dropped)
    target += eta * (sum(phi_raw[k]) - V * log_sum_exp(phi_raw[k]));
    target += -0.5 * square(sum(phi_raw[k])) / V;
  }
  for (d in 1:D) {
    int s = start[d];
    int e = s + len[d] - 1;
    vector[T] theta_d = exp(log_dirichlet_from_gammas(theta_gamma[d], theta_uniform[d], a));
    // theta_uniform ~ Uniform(0, 1) is implied by its bounds; the gamma's normalizer
    // depends on beta, so `~` keeps it
    theta_gamma[d] ~ gamma(a + 1, 1);
    // sum_w count_dw * log(theta_d' * phi_{., w}) over the words of document d
    target += dot_product(count_real[s:e], (log(theta_d' * phi_m[:, word[s:e]]))');
  }
}

generated quantities {
  vector[T] beta = exp(stick_breaking_log_weights(v));  // top-level topic weights (sum to 1)
  real leftover = beta[T];                   // top-level mass beyond T - 1 breaks (truncation check)
  matrix[D, T] theta;                        // document-topic proportions (rows sum to 1)
  matrix[T, V] phi;                          // topic-word distributions (rows sum to 1)
  array[T] int topic_tokens = rep_array(0, T);  // tokens per topic, one draw of z
  int n_occupied = 0;                        // topics holding at least one token
  {
    vector[T] a = alpha0 * beta;
    for (d in 1:D) {
      theta[d] = exp(log_dirichlet_from_gammas(theta_gamma[d], theta_uniform[d], a))';
    }
  }
  for (k in 1:T) {
    phi[k] = softmax(phi_raw[k])';
  }
  for (n in 1:N) {
    // the count[n] tokens of the pair are split over topics with p(z = k) ~ theta_dk phi_kw
    array[T] int split = multinomial_rng(softmax(log(theta[doc[n]]') + log(phi[:, word[n]])),
                                         count[n]);
    for (k in 1:T) {
      topic_tokens[k] += split[k];
    }
  }
  for (k in 1:T) {
    n_occupied += topic_tokens[k] > 0;
  }
}
