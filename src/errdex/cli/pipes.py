"""A bigger kernel buffer for a pipe this process writes a large report into.

A scan's JSON report runs to megabytes (10 MB for the 100 MB bench log); through a
pipe's default 64 KB buffer the writer and its reader take turns thousands of times
(~0.06 s of a scan piped into Python's `subprocess.run`; with 1 MB, ~0.02 s).
"""

from __future__ import annotations

import os
import stat
from typing import IO

#: The most an unprivileged process may ask for by default (`/proc/sys/fs/pipe-max-size`).
PIPE_BUFFER = 1 << 20


def widen_pipe(stream: IO, size: int = PIPE_BUFFER) -> None:
    """Ask for a `size`-byte buffer when `stream` writes into a pipe (Linux); elsewhere (a file,
    a terminal, an in-memory stream, another system), or refused, nothing changes."""
    try:
        import fcntl

        fd = stream.fileno()
        if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) < size:
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
    except (ImportError, AttributeError, OSError, ValueError):   # not Linux, no such fd, or over the limit
        pass
