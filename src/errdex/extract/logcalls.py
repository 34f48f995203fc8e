"""What a logging call looks like: one definition for the extractor (a logged error is a site)
and the analysis (a logging call in a `try` body is no culprit: it reports and carries on)."""

from __future__ import annotations

import re

#: A logger's reporting methods.
LOGGER_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"})
#: Those whose message a user reads as an error or a warning (`logger.error(...)`): method -> severity.
LOG_LEVELS = {"error": "error", "exception": "error", "critical": "error", "fatal": "error",
              "warning": "warning", "warn": "warning"}
#: What a logger is called: `logger`, `log`, `logging`, `self.logger`, `_LOGGER`, `sgl_logger`.
_LOGGER = re.compile(r"(?:^|[._])(?:logger|log|logging)$", re.I)


def is_logger(receiver: str) -> bool:
    """Whether a call's receiver (`self.logger`, `_LOGGER`, `logging`) names a logger."""
    return _LOGGER.search(receiver) is not None
