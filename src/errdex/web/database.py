"""Read-only access to the index for the web layer: one connection per thread, time-limited queries.

sqlite3 connections cannot be shared across threads, and FastAPI runs sync
routes in a thread pool, so each worker thread opens its own read-only
connection on first use. Every request runs under a deadline enforced by a
progress handler, so no query (or hostile search) can hold a worker for long.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from errdex.errors import ErrdexError
from errdex.store import Store
from errdex.store.connection import open_connection

#: Wall-clock budget of the queries of one request.
QUERY_TIME_LIMIT_S = 2.0
#: SQLite VM instructions between two deadline checks.
_PROGRESS_STEPS = 2_000
#: Most rows any page or API call returns at once.
MAX_ROWS = 100
#: Deepest offset a list may be paged to (keeps OFFSET scans bounded).
MAX_OFFSET = 50_000


class QueryTimeout(ErrdexError):
    """A request's queries ran past `QUERY_TIME_LIMIT_S` and were interrupted."""


class ReadOnlyIndex:
    """The index file opened read-only, a `Store` per thread, a deadline per request."""

    def __init__(self, path: str | Path, *, time_limit_s: float = QUERY_TIME_LIMIT_S) -> None:
        self.path = Path(path)
        self.time_limit_s = time_limit_s
        self._local = threading.local()
        self._stores: list[Store] = []
        self._lock = threading.Lock()
        with self.session():  # fail at start-up, not on the first request
            pass

    def _store(self) -> Store:
        store = getattr(self._local, "store", None)
        if store is None:
            conn = open_connection(self.path, readonly=True, timeout_ms=None)
            conn.set_progress_handler(self._check_deadline, _PROGRESS_STEPS)
            store = self._local.store = Store(conn, self.path, readonly=True)
            with self._lock:
                self._stores.append(store)
        return store

    def _check_deadline(self) -> int:
        deadline = getattr(self._local, "deadline", None)
        return 1 if deadline is not None and time.monotonic() > deadline else 0

    @contextmanager
    def session(self, time_limit_s: float | None = None) -> Iterator[Store]:
        """This thread's store, with the request deadline (default `self.time_limit_s`) armed for the block."""
        store = self._store()
        limit = self.time_limit_s if time_limit_s is None else time_limit_s
        self._local.deadline = time.monotonic() + limit
        try:
            yield store
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                raise QueryTimeout(
                    f"the query took longer than {limit:g} s and was stopped;"
                    " narrow it down") from exc
            raise
        finally:
            self._local.deadline = None

    def close(self) -> None:
        """Close every thread's connection (at shutdown)."""
        with self._lock:
            stores, self._stores = self._stores, []
        for store in stores:
            try:
                store.close()
            except sqlite3.ProgrammingError:
                pass


def clamp_limit(limit: int | None, default: int = 20) -> int:
    """A row count between 1 and MAX_ROWS."""
    return max(1, min(MAX_ROWS, default if limit is None else limit))
