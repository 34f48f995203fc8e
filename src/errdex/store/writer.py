"""Inserts run by one thread, in order, while the publishing thread prepares the next chunk.

SQLite releases the GIL while it steps a statement (B-tree inserts, FTS
tokenising), so a large publish's SQL can overlap its Python (receiving
encoded rows, assigning keys). The connection is only ever used by one
thread at a time: the publisher touches it directly only after `idle()`,
when every queued statement has run and the writer thread is waiting.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Sequence

_STOP = None


class StatementWriter:
    """`run(sql, rows)` queues an executemany; `idle()` waits for the queue to empty; errors re-raise here."""

    def __init__(self, conn: sqlite3.Connection, depth: int = 8) -> None:
        self._conn = conn
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def run(self, sql: str, rows: Sequence[tuple]) -> None:
        self._raise_error()
        if not rows:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="errdex-publish-writer", daemon=True)
            self._thread.start()
        self._queue.put((sql, rows))

    def idle(self) -> None:
        """Return once every queued statement has run (the connection is then free to use here)."""
        if self._thread is not None:
            self._queue.join()
        self._raise_error()

    def close(self) -> None:
        """Stop the thread after what is queued; re-raise its error, if any."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join()
            self._thread = None
        self._raise_error()

    def abandon(self) -> None:
        """Stop the thread after the statement it is running (the caller is rolling back)."""
        if self._thread is None:
            return
        while True:   # drop what is queued: none of it is wanted any more
            try:
                self._queue.get_nowait()
                self._queue.task_done()
            except queue.Empty:
                break
        self._queue.put(_STOP)
        self._thread.join()
        self._thread = None

    def __enter__(self) -> StatementWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abandon()

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                if self._error is None:
                    self._conn.executemany(*item)
            except BaseException as error:   # handed to the publishing thread, which rolls back
                self._error = error
            finally:
                self._queue.task_done()

    def _raise_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error
