"""Progress of long loops: a tqdm bar on a terminal, plain periodic lines elsewhere.

Library calls are quiet unless asked: ``progress=None`` (the default of every
sampler) follows the process default of :func:`set_default`, off in the library and
on in the ``bayeswe`` command line. ``progress=True`` always reports: a bar with
rate and time left on a terminal, otherwise one plain line every ``every`` seconds
(so logs and CI output stay readable). ``progress=False`` never reports.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO, Any

from tqdm import tqdm

__all__ = ["Progress", "resolve", "set_default"]

_DEFAULT: bool | None = None


def set_default(show: bool | None) -> None:
    """What ``progress=None`` means for this process (the CLI sets ``True``)."""
    global _DEFAULT
    _DEFAULT = show


def resolve(show: bool | None) -> bool:
    """Whether a loop with option ``progress=show`` reports at all."""
    if show is None:
        return bool(_DEFAULT)
    if not isinstance(show, bool):
        raise ValueError(f"progress must be True, False or None, got {show!r}")
    return show


class Progress:
    """Count units of work done towards ``total`` and report rate and time left.

    Thread-safe: chains running in threads may all call :meth:`update`.

    Parameters
    ----------
    total
        Units of work in the loop.
    desc
        What is running (e.g. ``"cgs"``), printed before the counts.
    unit
        Name of a unit (``"sweep"``).
    show
        As the ``progress`` option of the samplers: ``None``, ``True`` or ``False``.
    stream
        Where to write (default: standard error).
    every
        Seconds between plain lines when ``stream`` is not a terminal.
    """

    def __init__(
        self,
        total: int,
        desc: str,
        *,
        unit: str = "sweep",
        show: bool | None = None,
        stream: IO[str] | None = None,
        every: float = 10.0,
    ) -> None:
        self.total = int(total)
        self.desc = desc
        self.unit = unit
        self.stream = sys.stderr if stream is None else stream
        self.every = float(every)
        self.done = 0
        self._lock = threading.Lock()
        self._start = time.perf_counter()
        self._last_line = self._start
        self._bar: Any = None
        self._plain = False
        if resolve(show) and self.total > 0:
            is_tty = getattr(self.stream, "isatty", lambda: False)()
            if is_tty:
                self._bar = tqdm(
                    total=self.total, desc=desc, unit=unit, file=self.stream, leave=False
                )
            else:
                self._plain = True

    def update(self, n: int = 1) -> None:
        """Record ``n`` more units done."""
        with self._lock:
            self.done += n
            if self._bar is not None:
                self._bar.update(n)
            elif self._plain:
                now = time.perf_counter()
                if now - self._last_line >= self.every or self.done >= self.total:
                    self._last_line = now
                    self.stream.write(self.line(now - self._start) + "\n")
                    self.stream.flush()

    def line(self, elapsed: float) -> str:
        """The plain progress line after ``elapsed`` seconds."""
        rate = self.done / elapsed if elapsed > 0 else float("nan")
        left = (self.total - self.done) / rate if rate > 0 else float("nan")
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return (
            f"{self.desc}: {self.done}/{self.total} {self.unit}s ({pct:.0f}%), "
            f"{rate:.3g} {self.unit}s/s, {elapsed:.0f} s elapsed, about {left:.0f} s left"
        )

    def close(self) -> None:
        """Remove the bar (plain lines need no closing)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
