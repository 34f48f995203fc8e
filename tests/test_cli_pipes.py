"""`errdex scan --json` asks for a bigger pipe buffer before writing a big report into a pipe."""

import io
import os
import sys

import pytest

from errdex.cli.pipes import PIPE_BUFFER, widen_pipe


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's")
def test_a_pipe_gets_the_bigger_buffer():
    import fcntl

    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb"), os.fdopen(write_fd, "wb") as out:
        assert fcntl.fcntl(write_fd, fcntl.F_GETPIPE_SZ) < PIPE_BUFFER
        widen_pipe(out)
        assert fcntl.fcntl(write_fd, fcntl.F_GETPIPE_SZ) >= PIPE_BUFFER


def test_streams_that_are_no_pipe_are_left_alone(tmp_path):
    with open(tmp_path / "report.json", "wb") as f:
        widen_pipe(f)    # a file: nothing to widen, no error
        f.write(b"{}")
    widen_pipe(io.StringIO())   # no file descriptor at all
    assert (tmp_path / "report.json").read_bytes() == b"{}"
