// A model whose log density is rejected everywhere, so that Stan cannot
// initialize: reject() raises std::domain_error, which Stan treats as a
// rejected initial value and retries (100 times) before giving up.
parameters {
  real mu;
}
model {
  reject("bayeswe test: every initial value is rejected, mu = ", mu);
}
