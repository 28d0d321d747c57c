"""What the example tests compare: a page's text block and a program's output, as lines."""

from __future__ import annotations

import os
import platform

#: The OpenBLAS kernels the pages' outputs were printed with (x86-64 only): NumPy's
#: OpenBLAS picks kernels for the CPU it runs on, and their rounding moves the MAP start
#: of the identified SGNS fits, so NUTS's draws follow (see test_examples.py).
OPENBLAS_KERNELS = "Haswell"


def example_env() -> dict[str, str]:
    """The environment an example runs in: this one, with :data:`OPENBLAS_KERNELS`."""
    env = dict(os.environ)
    if platform.machine().lower() in ("x86_64", "amd64"):
        env["OPENBLAS_CORETYPE"] = OPENBLAS_KERNELS
    return env


def lines(text: str) -> list[str]:
    """``text`` split into lines, trailing spaces and trailing blank lines aside."""
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]
