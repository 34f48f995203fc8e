"""Opening the SQLite file: read-only or writable, and never damaging a file we do not own.

A writable open creates and migrates; a read-only open (`mode=ro`) only
checks the schema. A file that is not SQLite, is damaged, or is some other
program's database is reported as a `StoreError` and left exactly as found.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from errdex.errors import ErrdexError
from errdex.store import schema

#: How long a connection waits for another writer before giving up.
DEFAULT_TIMEOUT_MS = 10_000
#: Page size for new files; records carry ~2 KB source windows each.
PAGE_SIZE = 16384


class StoreError(ErrdexError):
    """The index file is missing, unreadable, foreign, or a dataset name is unknown."""


def open_connection(path: Path, *, readonly: bool, timeout_ms: int | None,
                    unjournaled: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), schema checked.

    `unjournaled`: no journal and no syncs, for a new file no one else can see
    (`store.aside`), which is moved into place only once complete.
    """
    timeout_ms = DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms
    if readonly and not path.is_file():
        raise StoreError(f"no index at {path}; run errdex index first")
    if not readonly:
        path.parent.mkdir(parents=True, exist_ok=True)
    target = f"{path.resolve().as_uri()}?mode=ro" if readonly else str(path)
    conn = sqlite3.connect(
        target, uri=readonly, timeout=timeout_ms / 1000,
        isolation_level=None, check_same_thread=False,
    )
    try:
        _configure(conn, path, readonly=readonly, timeout_ms=timeout_ms, unjournaled=unjournaled)
    except BaseException:
        conn.close()
        raise
    return conn


def _configure(conn: sqlite3.Connection, path: Path, *, readonly: bool, timeout_ms: int,
               unjournaled: bool = False) -> None:
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"{path} is not an errdex index (not a SQLite database, or damaged: {exc});"
            " it was left untouched"
        ) from exc
    if schema.has_foreign_tables(conn):
        raise StoreError(f"{path} is a SQLite database but not an errdex index; it was left untouched")
    if readonly:
        pending = schema.pending_migrations(conn)
        if pending and len(pending) < len(schema.MIGRATIONS) and _upgrade_in_place(path, timeout_ms):
            return
        _check_readable(conn, path)
        return
    # Only takes effect on a new, empty file: large pages halve bulk-write time.
    conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    # A journal writes each page twice (the WAL, then the file): ~0.3 s of a new catalog's publish.
    conn.execute(f"PRAGMA journal_mode = {'OFF' if unjournaled else 'WAL'}")
    conn.execute(f"PRAGMA synchronous = {'OFF' if unjournaled else 'NORMAL'}")
    conn.execute("PRAGMA cache_size = -65536")
    conn.execute("PRAGMA temp_store = MEMORY")
    schema.migrate(conn)


def _upgrade_in_place(path: Path, timeout_ms: int) -> bool:
    """An index written by an older errdex gains the newer (additive) tables, when the file is writable."""
    if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
        return False
    writable = open_connection(path, readonly=False, timeout_ms=timeout_ms)
    writable.close()
    return True


def _check_readable(conn: sqlite3.Connection, path: Path) -> None:
    pending = schema.pending_migrations(conn)
    if len(pending) == len(schema.MIGRATIONS):
        raise StoreError(f"no index at {path}; run errdex index first")
    if pending:
        raise StoreError(
            f"the index at {path} uses an older schema (missing {', '.join(pending)});"
            " run errdex index to upgrade it"
        )
