"""MkDocs hook: show the Sphinx roles of numpydoc docstrings as plain code.

The docstrings cross-reference with Sphinx roles (``:func:`fit```,
``:class:`~bayeswe.errors.StanError```). Markdown renders them as the role name followed
by inline code. This hook drops the role name, and for a ``~`` target keeps only the
last component, as Sphinx does. The links themselves are not resolved.
"""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|const|term):(?=<code>)")
_TILDE = re.compile(r"<code>~((?:[\w]+\.)*)(\w+)</code>")


def clean(html: str) -> str:
    """``:func:<code>~a.b</code>`` -> ``<code>b</code>``; other HTML unchanged."""
    return _TILDE.sub(r"<code>\2</code>", _ROLE.sub("", html))


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return clean(html)
