# Identification: fixed-word rule x start, NUTS 4 chains x 300 draws after 300 warm-up.
import arviz as az
import numpy as np

from bayeswe.sgns import find_anchors, fit_sgns, simulate_sgns

sim = simulate_sgns(V=20, K=2, N=5000, seed=1)
print("| fixed words | condition number | init | max R-hat | median bulk ESS |")
print("|---|---|---|---|---|")
for rule in ["last", "qr"]:
    anchors, _ = find_anchors(sim.data, 2, prior_sd=2**-0.5, anchor_words=rule, seed=1)
    for init in ["random", "map"]:
        idata = fit_sgns(
            sim.data,
            K=2,
            method="nuts",
            anchors=anchors,
            init=init,
            prior_sd=2**-0.5,
            seed=1,
            chains=4,
            iter_warmup=300,
            iter_sampling=300,
        )
        s = az.summary(idata, var_names=["rho"], kind="diagnostics")
        print(
            f"| `{rule}` ({idata.attrs['fixed_words']}) | {anchors.condition_number:.1f} "
            f"| `{init}` | {s['r_hat'].max():.2f} | {np.median(s['ess_bulk']):.0f} |"
        )
