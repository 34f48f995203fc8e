"""Leaving a finished command without the interpreter's teardown.

Once a command's work is committed and its output written, freeing a large
run's objects one by one (an index's records and facts, a scan's matches)
only delays the exit: a tenth of a second to most of a second. Only the
command-line process itself exits early; an embedding caller (its own argv,
or stdout swapped as by click's test runner) gets a normal return.
"""

from __future__ import annotations

import os
import sys


def end_without_teardown(command: str) -> None:
    """Exit 0 now when this process is `errdex COMMAND` writing to its real stdout."""
    if sys.stdout is not sys.__stdout__ or command not in sys.argv[1:]:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
