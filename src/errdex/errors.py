"""The root of errdex's own exceptions, each carrying the CLI exit code it maps to.

Library code raises these with a message meant for a human; the CLI turns
them into that message and `exit_code`, in one place.
"""

from __future__ import annotations


class ErrdexError(Exception):
    """Any failure errdex reports on purpose (as opposed to a bug)."""

    exit_code: int = 1


class SourceError(ErrdexError):
    """The SOURCE spec cannot be resolved to files: bad spec, missing package, no network."""

    exit_code = 2


class UnsafeArchiveError(SourceError):
    """A downloaded archive breaks a safety cap (too many members, too large) and was rejected."""
