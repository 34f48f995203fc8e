"""Encoded answers kept while the index is served: record JSON, rendered error pages, match results.

The index is read-only while served, so an answer computed once stays right
until the file changes. Entries are dropped together when the (mtime, size)
of the db or its WAL changes, which is checked at most once per `check_every_s` so a
hit costs a dict lookup, not a stat. Hits are served on the event loop
without a thread hop; only misses go to the worker threads.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path

from starlette.concurrency import run_in_threadpool

#: Total bytes of cached bodies (record JSON is ~5 KiB, an error page ~30 KiB).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: How often the db file is checked for a change (s).
CHECK_EVERY_S = 1.0


class ResponseCache:
    """A byte-budgeted LRU of encoded response bodies, emptied when the index file changes."""

    def __init__(self, db: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES,
                 check_every_s: float = CHECK_EVERY_S) -> None:
        self.db = Path(db)
        self.max_bytes = max_bytes
        self.check_every_s = check_every_s
        self._entries: OrderedDict[Hashable, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._pending: dict[Hashable, asyncio.Future] = {}
        self._stamp = self._file_stamp()
        self._next_check = time.monotonic() + check_every_s

    def _file_stamp(self) -> tuple:
        """(mtime, size) of the db and of its write-ahead log, where committed writes land first."""
        stamp = []
        for path in (self.db, self.db.with_name(self.db.name + "-wal")):
            try:
                st = os.stat(path)
            except OSError:
                stamp.append(None)
            else:
                stamp.append((st.st_mtime_ns, st.st_size))
        return tuple(stamp)

    def _drop_if_changed(self) -> None:
        now = time.monotonic()
        if now < self._next_check:
            return
        self._next_check = now + self.check_every_s
        stamp = self._file_stamp()
        if stamp != self._stamp:
            with self._lock:
                self._stamp = stamp
                self._entries.clear()
                self._bytes = 0

    @property
    def stamp(self) -> tuple:
        """The index file's (mtime, size) stamp the entries were computed against."""
        self._drop_if_changed()
        return self._stamp

    def get(self, key: Hashable) -> bytes | None:
        """The cached body, or None (also right after the index file changed)."""
        self._drop_if_changed()
        with self._lock:
            body = self._entries.get(key)
            if body is not None:
                self._entries.move_to_end(key)
            return body

    def put(self, key: Hashable, body: bytes) -> bytes:
        """Keep `body` (unless it alone passes a quarter of the budget); returns it."""
        if len(body) > self.max_bytes // 4:
            return body
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= len(old)
            self._entries[key] = body
            self._bytes += len(body)
            while self._bytes > self.max_bytes and self._entries:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= len(dropped)
        return body

    async def fetch(self, key: Hashable, compute: Callable[..., bytes], *args: object) -> bytes:
        """The cached body, else `compute(*args)` on a worker thread, kept under `key`.

        Concurrent misses of one key share a single computation: a cold page
        hit by 16 clients at once renders once instead of 16 times in
        parallel threads, which would starve the event loop of the GIL.
        """
        body = self.get(key)
        if body is not None:
            return body
        pending = self._pending.get(key)
        if pending is None or pending.get_loop() is not asyncio.get_running_loop():
            pending = self._pending[key] = asyncio.ensure_future(run_in_threadpool(compute, *args))
            pending.add_done_callback(lambda done: self._forget(key, done))
        return self.put(key, await asyncio.shield(pending))

    def _forget(self, key: Hashable, done: asyncio.Future) -> None:
        if self._pending.get(key) is done:
            del self._pending[key]

    def __len__(self) -> int:
        return len(self._entries)
