"""Typed exceptions raised by bayeswe.

Every failure of a Stan run surfaces as a subclass of :class:`StanError` that
carries Stan's own message (``stan_message``) and the command that failed.
"""

from __future__ import annotations

from collections.abc import Sequence


class BayesweError(Exception):
    """Base class of all bayeswe errors."""


class ToolchainError(BayesweError):
    """The bundled CmdStan-compatible toolchain could not be built or found."""


class StanError(BayesweError):
    """A Stan program failed to compile or run.

    Parameters
    ----------
    message
        What bayeswe was doing when it failed.
    stan_message
        The text Stan (stanc, the compiler or the model executable) printed.
    command
        The command line that failed, if any.
    """

    def __init__(
        self, message: str, stan_message: str = "", command: Sequence[str] | None = None
    ) -> None:
        self.stan_message = stan_message.strip()
        self.command = list(command) if command is not None else None
        text = message
        if self.stan_message:
            text += "\n--- Stan says ---\n" + self.stan_message
        super().__init__(text)


class StanCompileError(StanError):
    """stanc or the C++ compiler rejected a Stan program."""


class StanSourceError(StanCompileError, ValueError):
    """A Stan program file is empty or not UTF-8 text (refused before stanc runs)."""


class StanDataError(StanError, ValueError):
    """Data are missing a field, have the wrong shape, or violate a declared constraint."""


class StanInitError(StanError):
    """Stan could not find initial values with a finite log density and gradient."""


class StanRuntimeError(StanError):
    """The model threw during a run (for example an exception in the model block)."""


class StanTimeoutError(StanRuntimeError):
    """A Stan run exceeded the ``timeout`` it was given and was stopped."""


class StanConvergenceError(StanError):
    """An optimizer or variational algorithm stopped without reporting convergence.

    Raised only when the caller asked for convergence (``require_converged=True``,
    the default); pass ``require_converged=False`` to get the result anyway.
    """


class ModelSpecError(BayesweError, ValueError):
    """A model declaration is inconsistent with itself or with its Stan program."""


class OutputError(BayesweError, OSError):
    """An output file could not be written (full disk, read-only or missing directory).

    ``path`` is the final path the file was meant to have; nothing partial is left
    under it (see :mod:`bayeswe.atomic`).
    """

    def __init__(self, message: str, *, path: object = None) -> None:
        super().__init__(message)
        self.path = path


class CheckpointError(BayesweError, ValueError):
    """A sampler checkpoint is missing pieces, corrupt, truncated, locked by another
    run, or belongs to a different run; ``path`` names the file."""

    def __init__(self, message: str, *, path: object = None) -> None:
        super().__init__(message)
        self.path = path


class SamplerError(BayesweError, RuntimeError):
    """One of bayeswe's own samplers cannot go on (for example its state went non-finite)."""


class NonFiniteStateError(SamplerError, FloatingPointError):
    """A chain's state or log density became NaN or infinite.

    ``chain`` and ``sweep`` (1-based count of completed sweeps) say where it happened.
    """

    def __init__(self, message: str, *, chain: int | None = None, sweep: int | None = None) -> None:
        super().__init__(message)
        self.chain = chain
        self.sweep = sweep


class StateMethodError(SamplerError, ValueError):
    """A sampler's state is stepped with a method it was not initialised for (for
    example a Gaussian LDA state built for ``cgs``, which holds no alias tables, stepped
    with ``alias-mh``)."""


class MethodFailedError(BayesweError):
    """One or more methods of a comparison failed (the others' results were reported)."""


def one_line(exc: BaseException, *, hint: str = "") -> str:
    """The message of ``exc`` on one line, for a user.

    A :class:`StanError` gives bayeswe's summary and the first line Stan printed; an
    ``OSError`` its reason and file names. ``hint`` is appended when lines were dropped.
    """
    if isinstance(exc, StanError):
        text = str(exc).split("\n--- Stan says ---\n", 1)[0]
        stan = [line.strip() for line in exc.stan_message.splitlines() if line.strip()]
        if stan and stan[0] not in text:
            text = f"{text.strip()} (Stan: {stan[0]})"
    elif isinstance(exc, OSError) and not isinstance(exc, BayesweError) and exc.strerror:
        names = [str(f) for f in (exc.filename, exc.filename2) if f is not None]
        text = f"{exc.strerror}: {' -> '.join(names)}" if names else exc.strerror
    else:
        text = str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    return lines[0] + (hint if len(lines) > 1 else "")


class SamplerWarning(UserWarning):
    """A sampler finished but something in the run needs the user's attention."""
