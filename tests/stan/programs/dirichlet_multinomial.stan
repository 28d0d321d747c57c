// Category probabilities from counts. With a Dirichlet(alpha) prior and a
// multinomial likelihood the posterior is Dirichlet(alpha + counts), so its
// mean and standard deviation are known exactly. The cut points are an
// ordered parameter with a known posterior too: each is independent of the
// data, cut[1] < cut[2] being the order statistics of two standard normals.
data {
  int<lower=1> K; // number of categories
  array[K] int<lower=0> counts; // observations in each category
  vector<lower=0>[K] alpha; // prior concentration
}
parameters {
  simplex[K] theta;
  ordered[2] cut;
}
model {
  theta ~ dirichlet(alpha);
  counts ~ multinomial(theta);
  cut ~ std_normal();
}
generated quantities {
  int<lower=0, upper=K> mode_category = sort_indices_desc(theta)[1];
}
