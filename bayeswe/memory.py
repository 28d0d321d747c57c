"""Peak resident memory of the current process, in GB (2**30 bytes).

``getrusage(RUSAGE_SELF).ru_maxrss`` is not the process's own peak on Linux: it is kept
across ``execve``, and a child started by ``subprocess`` (vfork + exec) inherits the
parent's high-water mark. A benchmark child started from a 1 GB parent reports at
least 1 GB whatever it did itself. ``VmHWM`` in ``/proc/self/status`` belongs to the
address space the process has now, so it starts afresh at ``exec``; it is used where
it exists, ``ru_maxrss`` elsewhere (its unit is KiB on Linux, bytes on macOS).
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

_STATUS = Path("/proc/self/status")


def peak_rss_gb() -> float:
    """The peak resident memory of this process's own address space so far, in GB."""
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 2**20  # kB
    except OSError:
        pass
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss / 2**30 if sys.platform == "darwin" else maxrss / 2**20
