"""The package version, in a module of its own so that any module can read it."""

__version__ = "0.2.0"
