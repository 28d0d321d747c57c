// Output variables of the less common types: a complex number, an array of
// complex vectors and a tuple holding a real and an integer array.
data {
  int<lower=1> N;
}
parameters {
  real mu;
}
model {
  mu ~ normal(0, 1);
}
generated quantities {
  complex z = to_complex(mu, -mu);
  array[2] complex_vector[N] zs;
  for (i in 1:2) {
    zs[i] = rep_vector(i, N) * z;
  }
  tuple(real, array[N] int) pair = (2 * mu, linspaced_int_array(N, 1, N));
}
