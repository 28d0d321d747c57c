"""ArviZ, imported when first used rather than when bayeswe is.

Importing ArviZ takes about 1.5 s (it imports matplotlib and scipy.stats), most of a
``bayeswe`` command's start-up, and most commands and worker processes never call it.
Modules write ``from bayeswe._arviz import az`` and use ``az.<name>`` as usual.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["az"]


class _LazyArviZ(ModuleType):
    def __getattr__(self, name: str) -> Any:
        # only for names not yet looked up: each is kept on the proxy after its first use
        value = getattr(importlib.import_module("arviz"), name)
        setattr(self, name, value)
        return value


az: Any = _LazyArviZ("arviz (lazy)")
