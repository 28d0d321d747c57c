// Latent Dirichlet allocation as written in the Stan User's Guide (section
// "Latent Dirichlet allocation" of the mixture-modeling chapter): one
// log_sum_exp over the K topics per token, with scalar logs of theta and phi.
// Part of bayeswe (models/lda_users_guide.stan); kept as the baseline that
// models/lda.stan is measured against (same model, same posterior).
//
//   phi_k ~ Dirichlet(beta), theta_d ~ Dirichlet(alpha),
//   log p(w_n | theta, phi) = log sum_k theta_{doc[n], k} * phi_{k, word[n]}.
data {
  int<lower=1> D;                            // number of documents
  int<lower=1> V;                            // vocabulary size
  int<lower=2> K;                            // number of topics
  int<lower=1> N;                            // number of tokens
  array[N] int<lower=1, upper=D> doc;        // document of token n
  array[N] int<lower=1, upper=V> word;       // word of token n
  vector<lower=0>[K] alpha;                  // Dirichlet prior on theta_d
  real<lower=0> beta;                        // symmetric Dirichlet prior on phi_k
}
transformed data {
  vector[V] beta_vec = rep_vector(beta, V);
}
parameters {
  array[D] simplex[K] theta;                 // document-topic proportions
  array[K] simplex[V] phi;                   // topic-word distributions
}
model {
  for (k in 1:K) {
    phi[k] ~ dirichlet(beta_vec);
  }
  for (d in 1:D) {
    theta[d] ~ dirichlet(alpha);
  }
  for (n in 1:N) {
    array[K] real gamma;
    for (k in 1:K) {
      gamma[k] = log(theta[doc[n], k]) + log(phi[k, word[n]]);
    }
    target += log_sum_exp(gamma);
  }
}
