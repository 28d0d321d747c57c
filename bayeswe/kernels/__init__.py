"""Numba kernels: ``@njit`` functions on flat, typed arrays, and nothing else.

Samplers in :mod:`bayeswe.samplers` validate, orchestrate and own the random
streams; the kernels here are deterministic functions of their inputs, so their
results do not depend on the number of Numba threads.

Importing this package sets ``OMP_WAIT_POLICY=passive`` unless it is set already:
with Numba's OpenMP threading layer and the default (active) policy, idle worker
threads spin, and on a machine whose cores are shared with other processes each
parallel region then costs ~20 ms instead of microseconds (measured on a 2-core
machine: 77 ms against 5 ms per Gibbs sweep). It must be set before
OpenMP starts, i.e. before the first parallel kernel runs.

Importing it also points Numba's on-disk cache for bayeswe's kernels at a directory
keyed by the kernels' source (:mod:`bayeswe.kernels.cache`), before any kernel module
is compiled or loaded.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from bayeswe.kernels.cache import install as _install_cache  # noqa: E402

_install_cache()
