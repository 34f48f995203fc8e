"""A new index file is built aside, without a journal, and moved into place whole.

A journal makes SQLite write each page twice (into the WAL at commit, into
the file at the checkpoint), about 0.3 s of a new catalog's publish. A file
that does not exist yet holds nothing to protect: it is built next to its
final path under a private name, unjournaled, synced, and linked into place
only once complete. A failed run leaves nothing at the path, a killed one
leaves its private file, which the next build at that path removes, and a
file someone else created there meanwhile is never overwritten.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")


def build_aside(path: Path, build: Callable[[Path], T]) -> T | None:
    """`build(private_path)`, then the file moved to `path`; None when `path` appeared meanwhile
    (nothing moved: the caller writes into that file the ordinary way)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _drop_abandoned(path)
    private = path.with_name(f"{_PREFIX.format(name=path.name)}{os.getpid()}")
    try:
        result = build(private)
        _sync(private)
        return result if _move_in(private, path) else None
    finally:
        for leftover in (private, Path(f"{private}-journal"), Path(f"{private}-wal"), Path(f"{private}-shm")):
            leftover.unlink(missing_ok=True)


_PREFIX = ".{name}.building-"


def _drop_abandoned(path: Path) -> None:
    """Private files of runs that were killed (their process is gone): nothing else removes them."""
    prefix = _PREFIX.format(name=path.name)
    for leftover in path.parent.glob(f"{glob.escape(prefix)}*"):
        pid = leftover.name[len(prefix):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            leftover.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:   # exists, but not ours to signal
        return True
    return True


def _move_in(private: Path, path: Path) -> bool:
    """Link `private` at `path` unless something is there already (a link never replaces)."""
    try:
        os.link(private, path)
    except FileExistsError:
        return False
    except OSError:   # a file system without hard links: a rename, after one more look
        if path.exists():
            return False
        os.replace(private, path)
    return True


def _sync(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())
