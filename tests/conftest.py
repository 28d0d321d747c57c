"""Shared pytest configuration."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Register bayeswe's markers (also declared in pyproject.toml once it exists)."""
    config.addinivalue_line("markers", "slow: takes more than a minute")
