"""The console the CLI prints tables to.

Rich sizes a table to the terminal; written to a file or a pipe it would
assume 80 columns and squeeze every path and message into a few letters a
line (`sglang/kern…`). Redirected output gets room for whole paths instead
(`COLUMNS`, when set, still decides).
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

#: Columns for output that does not go to a terminal.
REDIRECTED_WIDTH = 200


def stdout_console() -> Console:
    """A console on stdout: the terminal's width, or `REDIRECTED_WIDTH` columns when redirected."""
    redirected = not sys.stdout.isatty() and not os.environ.get("COLUMNS")
    return Console(width=REDIRECTED_WIDTH) if redirected else Console()
