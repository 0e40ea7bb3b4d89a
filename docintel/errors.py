"""Exit codes and the exceptions that carry them.

The library raises; only ``cli/`` maps an exception to its exit code and one-line message.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes (README, "Exit codes"). Scripts and cron depend on these."""

    OK = 0
    """Everything asked for was done."""
    PARTIAL = 1
    """Some inputs failed (or an eval question regressed); the rest was done and saved."""
    USAGE = 2
    """Bad flag, unknown document, empty store, malformed golden file: nothing was done."""


class DocintelError(Exception):
    """Base error: a one-line message that says what to do, and the exit code it maps to."""

    exit_code: ExitCode = ExitCode.PARTIAL

    def __init__(self, message: str, exit_code: ExitCode | None = None):
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message


class UsageError(DocintelError):
    """The user asked for something that cannot be done as asked (exit 2)."""

    exit_code = ExitCode.USAGE


class EmptyStoreError(UsageError):
    """The store holds no documents yet."""


class UnknownDocumentError(UsageError):
    """A --doc value matches no doc_id or file name in the store."""


class StoreLockedError(DocintelError):
    """Another docintel process holds the store's write lock (exit 1: retry later)."""


class DocumentError(DocintelError):
    """One input document could not be parsed; the run goes on without it."""


class GeneratorError(DocintelError):
    """The answer generator (e.g. an OpenAI-compatible endpoint) failed."""
