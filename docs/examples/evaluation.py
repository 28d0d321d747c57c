# Posterior summaries of word similarity with bayeswe.evaluation, on simulated SGNS data.
import numpy as np

from bayeswe import evaluation as ev
from bayeswe.sgns import fit_sgns, simulate_sgns

sim = simulate_sgns(12, 2, 20000, seed=1)  # words w00 ... w11
idata = fit_sgns(sim.data, 2, method="advi", identified=False, seed=1, draws=400)

print(ev.posterior_cosine_table(idata, None, [("w00", "w01"), ("w00", "w02")]).round(3))
print(ev.posterior_neighbours(idata, None, "w00", k=3).head().round(3))
closer = ev.posterior_prob_closer(idata, None, "w00", "w02", "w01")
print(f"P(cos(w00, w02) > cos(w00, w01) | data) = {closer.probability:.2f}")

# Your own benchmark: (w1, w2, score) rows, a DataFrame or a TSV path. Here: true cosines.
vocab = list(sim.data.vocabulary)
u = sim.rho / np.linalg.norm(sim.rho, axis=1, keepdims=True)
truth = [(vocab[i], vocab[j], u[i] @ u[j]) for i in range(12) for j in range(i + 1, 12)]
s = ev.posterior_spearman(idata, None, truth).summary
print(
    f"Spearman with the truth: mean {s['mean']:.3f}, sd {s['sd']:.3f}, "
    f"90% interval [{s['lower']:.3f}, {s['upper']:.3f}] over {s['n_draws']:.0f} draws"
)
