"""What the example tests compare: a page's text block and a program's output, as lines."""

from __future__ import annotations


def lines(text: str) -> list[str]:
    """``text`` split into lines, trailing spaces and trailing blank lines aside."""
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]
