# Fit a Stan file with a JSON data file, by NUTS and by Pathfinder; named dims and coords.
# Run from the repository root.
import arviz as az

import bayeswe

idata = bayeswe.fit(
    "docs/examples/schools.stan", "docs/examples/schools.json", method="nuts", seed=1
)
print(idata.posterior["theta"].dims)  # unnamed axes: <variable>_dim_<axis>

dims = {"theta": ["school"], "eta": ["school"], "y": ["school"], "sigma": ["school"]}
coords = {"school": ["A", "B", "C"]}
for method in ["nuts", "pathfinder"]:
    idata = bayeswe.fit(
        "docs/examples/schools.stan",
        "docs/examples/schools.json",
        method=method,
        seed=1,
        dims=dims,
        coords=coords,
    )
    print(method, dict(idata.posterior["theta"].sizes), list(idata.groups()))
    print(az.summary(idata, var_names=["mu", "tau", "theta"], kind="stats").round(1))
