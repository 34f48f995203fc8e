"""A new index file is built aside, without a journal, and moved into place whole.

A journal makes SQLite write each page twice (into the WAL at commit, into
the file at the checkpoint), about 0.3 s of a new catalog's publish. A file
that does not exist yet holds nothing to protect: it is built next to its
final path under a private name, unjournaled, synced, and linked into place
only once complete. A run that fails before its unjournaled publish moves
its file in anyway (it holds the per-file results, which the next run
reuses); one that fails later leaves nothing at the path; a killed one
leaves its private file, which a later build at that path removes (once
its process is gone and the file has sat untouched for ten minutes). A file
someone else created there meanwhile is never overwritten.
"""

from __future__ import annotations

import glob
import os
import time
from pathlib import Path
from typing import Callable, TypeVar

from errdex.store.connection import StoreError

T = TypeVar("T")


class Build:
    """What a build tells `build_aside`: the private path, and whether its writes are still safe to keep."""

    def __init__(self, private: Path) -> None:
        self.private = private
        self.keepable = True

    def unsafe_from_here(self) -> None:
        """Called before a write a failure could leave half done (an unjournaled transaction
        cannot roll back): from then on a failed build is dropped, not moved in."""
        self.keepable = False


def build_aside(path: Path, build: Callable[[Build], T]) -> T | None:
    """`build(Build(private_path))`, then the file moved to `path`; None when `path` appeared
    meanwhile (nothing moved: the caller writes into that file the ordinary way).

    A build that fails while its file is still `keepable` (say, interrupted while extracting)
    is moved in all the same, so the next run finds the per-file results it had stored.
    """
    private = path.with_name(f"{_PREFIX.format(name=path.name)}{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the folder of the index {path}: {exc.strerror or exc}"
                         f" ({exc.filename})") from exc
    try:
        _drop_abandoned(path)
        private.open("wb").close()   # SQLite takes an empty file for a new database (one of a dead
        # process that had this pid is ours to reuse)
    except OSError as exc:
        raise StoreError(f"cannot create the index {path}: {exc.strerror or exc}") from exc
    work = Build(private)
    try:
        result = build(work)
        _sync(private)
        return result if _move_in(private, path) else None
    except BaseException:
        if work.keepable and private.exists():
            try:
                _sync(private)
                _move_in(private, path)
            except OSError:   # the failure being raised matters more than keeping the cache
                pass
        raise
    finally:
        for leftover in (private, Path(f"{private}-journal"), Path(f"{private}-wal"), Path(f"{private}-shm")):
            leftover.unlink(missing_ok=True)


_PREFIX = ".{name}.building-"


#: A private file untouched this long, whose process is gone, was abandoned (a process of another
#: PID namespace writing into a shared folder would still touch its file more often than this).
ABANDONED_AFTER_S = 600


def _drop_abandoned(path: Path) -> None:
    """Private files of runs that were killed (their process is gone): nothing else removes them."""
    prefix = _PREFIX.format(name=path.name)
    now = time.time()
    for leftover in path.parent.glob(f"{glob.escape(prefix)}*"):
        pid = leftover.name[len(prefix):].split("-", 1)[0]
        try:
            idle = now - leftover.stat().st_mtime
        except OSError:
            continue
        if pid.isdigit() and idle > ABANDONED_AFTER_S and not _alive(int(pid)):
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
