"""Writing a dataset: one transaction that replaces (repo, version) as a whole.

Everything happens between one `BEGIN IMMEDIATE` and one `COMMIT`: removing
the previous copy of the same (repo, version), writing bodies, membership,
diagnostics, and collecting bodies no dataset refers to any more. A process
killed at any point leaves the file as it was before the publish.

Records are consumed in chunks inside the transaction, so memory stays flat;
a body whose hash is already stored costs only a membership row (which also
holds the site's line and its source window's key: see `bodies`).
"""

from __future__ import annotations

import json
import sqlite3
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from typing import Any

from errdex.models import DatasetMeta, Diagnostic
from errdex.store.bodies import body_text, search_columns
from errdex.store.codec import Packer
from errdex.store.encoding import BodyRow, Finish, row_chunks
from errdex.store.schema import utc_now
from errdex.store.windows import WindowWriter, collect_windows
from errdex.store.writer import StatementWriter

#: Records encoded and written per round trip inside the publish transaction.
PUBLISH_CHUNK = 2000

_INSERT_BODY = (
    "INSERT INTO record_bodies (key, body_hash, body, record_id, slug, error_class,"
    " error_type, severity, background_tag, file_path, line_number, error_message)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_SEARCH = (
    "INSERT INTO record_search (rowid, error_message, error_class, documentation,"
    " solutions, tags, file_path) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_DELETE_SEARCH = (
    "INSERT INTO record_search (record_search, rowid, error_message, error_class, documentation,"
    " solutions, tags, file_path) VALUES ('delete', ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_MEMBER = (
    "INSERT INTO dataset_records (dataset_id, body_key, line_number, window_key, related)"
    " VALUES (?, ?, ?, ?, ?)"
)


def publish_dataset(
    conn: sqlite3.Connection,
    meta: DatasetMeta,
    records: Iterable[dict[str, Any]],
    diagnostics: Sequence[Diagnostic],
    packed_windows: Mapping[str, tuple[bytes, bytes]] | None = None,
    finish: Finish | None = None,
) -> int:
    """Publish atomically and return the new dataset id (`packed_windows`: see `WindowWriter`;
    `finish`: see `encoding.row_chunks`)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        _prepare_gc(conn)
        old_id = _dataset_id(conn, meta.repo, meta.version)
        if old_id is not None:
            _delete_dataset_rows(conn, old_id)
        dataset_id = _insert_dataset(conn, meta)
        record_count = _write_records(conn, dataset_id, records, packed_windows, finish)
        conn.executemany(
            "INSERT INTO diagnostics (dataset_id, file_path, reason, detail) VALUES (?, ?, ?, ?)",
            [(dataset_id, d.file_path, d.reason, d.detail) for d in diagnostics],
        )
        conn.execute(
            "UPDATE datasets SET record_count = ?, diagnostic_count = ? WHERE id = ?",
            (record_count, len(diagnostics), dataset_id),
        )
        _collect_garbage(conn)
        if old_id is not None:
            collect_windows(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return dataset_id


def remove_dataset(conn: sqlite3.Connection, dataset_id: int) -> None:
    """Delete one dataset and the bodies only it used, in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        _prepare_gc(conn)
        _delete_dataset_rows(conn, dataset_id)
        _collect_garbage(conn)
        collect_windows(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _dataset_id(conn: sqlite3.Connection, repo: str, version: str) -> int | None:
    row = conn.execute(
        "SELECT id FROM datasets WHERE repo = ? AND version = ?", (repo, version)
    ).fetchone()
    return row[0] if row else None


def _insert_dataset(conn: sqlite3.Connection, meta: DatasetMeta) -> int:
    cursor = conn.execute(
        "INSERT INTO datasets (repo, version, kind, sha, dirty, analyzed_sha, url_base,"
        " analyzed_at, published_at, file_count, extra)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            meta.repo, meta.version, meta.kind, meta.sha, int(meta.dirty), meta.analyzed_sha,
            meta.url_base, meta.analyzed_at, utc_now(), meta.file_count,
            json.dumps(meta.extra, sort_keys=True),
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _prepare_gc(conn: sqlite3.Connection) -> None:
    """A temp list of bodies that may have lost their last dataset."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS gc_candidates (key INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.gc_candidates")


def _delete_dataset_rows(conn: sqlite3.Connection, dataset_id: int) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO temp.gc_candidates (key)"
        " SELECT body_key FROM dataset_records WHERE dataset_id = ?",
        (dataset_id,),
    )
    conn.execute("DELETE FROM dataset_records WHERE dataset_id = ?", (dataset_id,))
    conn.execute("DELETE FROM diagnostics WHERE dataset_id = ?", (dataset_id,))
    conn.execute("DELETE FROM datasets WHERE id = ?", (dataset_id,))


def _collect_garbage(conn: sqlite3.Connection) -> None:
    """Drop candidate bodies (and their search rows) that no dataset refers to."""
    conn.execute(
        "DELETE FROM temp.gc_candidates WHERE EXISTS"
        " (SELECT 1 FROM dataset_records WHERE body_key = gc_candidates.key)"
    )
    # The search index holds no text: deleting a row takes the indexed values, read back from the body.
    gone = conn.execute("SELECT key, body FROM record_bodies WHERE key IN (SELECT key FROM temp.gc_candidates)")
    conn.executemany(_DELETE_SEARCH, [(key, *search_columns(json.loads(body_text(body)))) for key, body in gone])
    conn.execute("DELETE FROM record_bodies WHERE key IN (SELECT key FROM temp.gc_candidates)")
    conn.execute("DELETE FROM temp.gc_candidates")


def _write_records(conn: sqlite3.Connection, dataset_id: int, records: Iterable[dict],
                   packed_windows: Mapping[str, tuple[bytes, bytes]] | None = None,
                   finish: Finish | None = None) -> int:
    """Write bodies (new ones only) and membership rows; return the membership count.

    Records are encoded chunk by chunk (`encoding.row_chunks`: by forked processes for
    a large publish) while this process assigns keys, and a writer thread runs the inserts
    of the chunks before (`StatementWriter`). Keys of bodies this publish inserted are kept
    here, so the file is read (after the writer caught up) only when it held bodies before.
    """
    next_key = conn.execute("SELECT coalesce(max(key), 0) + 1 FROM record_bodies").fetchone()[0]
    stored_before = next_key > 1
    ours: dict[bytes, int] = {}
    members: set[int] = set()
    with StatementWriter(conn) as writer:
        windows = WindowWriter(conn, run=writer.run, sync=writer.idle)
        packer = Packer(conn)
        behind = _RecordsBehind(records)
        with closing(row_chunks(behind.source, PUBLISH_CHUNK, packer, packed_windows, finish)) as chunks:
            for rows in chunks:
                stored: dict[bytes, int] = {}
                if stored_before:
                    writer.idle()
                    stored = _known_keys(conn, [row.digest for row in rows if row.digest not in ours])
                chunk = behind.take(len(rows))
                window_keys = windows.keys_packed([row.window for row in rows],
                                                  lambda j, c=chunk: c[j].get("sourceCode"))
                new_rows: list[tuple[int, BodyRow]] = []
                member_rows: list[tuple] = []
                for row, window_key in zip(rows, window_keys):
                    key = ours.get(row.digest) or stored.get(row.digest)
                    if key is None:
                        key = ours[row.digest] = next_key
                        next_key += 1
                        new_rows.append((key, row))
                    if key not in members:
                        members.add(key)
                        member_rows.append((dataset_id, key, row.line, window_key, row.related))
                _insert_bodies(writer, packer, new_rows)
                writer.run(_INSERT_MEMBER, member_rows)
    return len(members)


class _RecordsBehind:
    """The records behind each chunk of rows (rows come in record order), without reading ahead."""

    def __init__(self, records: Iterable[dict]) -> None:
        self._seq = records if isinstance(records, Sequence) else None
        self._held: deque[dict] = deque()
        self._done = 0
        self.source = self._seq if self._seq is not None else self._holding(records)

    def _holding(self, records: Iterable[dict]) -> Iterator[dict]:
        for record in records:
            self._held.append(record)
            yield record

    def take(self, n: int) -> list[dict]:
        if self._seq is not None:
            out = list(self._seq[self._done:self._done + n])
        else:
            out = [self._held.popleft() for _ in range(n)]
        self._done += n
        return out


def _insert_bodies(writer: StatementWriter, packer: Packer, new_rows: list[tuple[int, BodyRow]]) -> None:
    """Bodies not stored yet, packed here unless an encoder already did."""
    unpacked = [row.text for _, row in new_rows if row.blob is None]
    if unpacked and packer.dictionary is None:
        writer.idle()   # packing may make (and so insert) the file's dictionary
    packed = iter(packer.pack_all(unpacked)) if unpacked else iter(())
    writer.run(_INSERT_BODY, [(key, row.digest, row.blob if row.blob is not None else next(packed),
                               row.record_id, *row.columns) for key, row in new_rows])
    writer.run(_INSERT_SEARCH, [(key, *row.search) for key, row in new_rows])


def _known_keys(conn: sqlite3.Connection, digests: list[bytes]) -> dict[bytes, int]:
    """Keys of bodies already stored, by hash (one query per chunk)."""
    if not digests:
        return {}
    marks = ",".join("?" * len(digests))
    rows = conn.execute(
        f"SELECT body_hash, key FROM record_bodies WHERE body_hash IN ({marks})", digests
    )
    return dict(rows.fetchall())
