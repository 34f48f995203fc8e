"""Re-index state per dataset, and the one transaction that applies a re-index's changes.

The state (`errdex.delta.state`) is kept in named parts so a re-index reads
only the parts it needs. Only the most recently published dataset of each
repo keeps one: an older version is re-indexed in full if ever.
A delta replaces some records of a dataset in place, under the same
guarantees as `publish`: one `BEGIN IMMEDIATE` ... `COMMIT`, nothing half-done.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence

from errdex.models import Diagnostic
from errdex.store import publish as publishing
from errdex.store.schema import utc_now
from errdex.store.windows import collect_windows


def load_state(conn: sqlite3.Connection, dataset_id: int, part: str) -> bytes | None:
    row = conn.execute("SELECT blob FROM dataset_state WHERE dataset_id = ? AND part = ?",
                       (dataset_id, part)).fetchone()
    return row[0] if row else None


def save_state(conn: sqlite3.Connection, dataset_id: int, parts: Mapping[str, bytes], *,
               replace: bool = True) -> None:
    """Write the dataset's state (in its own transaction) and drop the states of older datasets."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        _write_state(conn, dataset_id, parts, replace=replace)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _write_state(conn: sqlite3.Connection, dataset_id: int, parts: Mapping[str, bytes], *, replace: bool = True) -> None:
    """Write `parts`; `replace` drops the dataset's other parts first."""
    if replace:
        conn.execute("DELETE FROM dataset_state WHERE dataset_id = ?", (dataset_id,))
    conn.executemany("INSERT OR REPLACE INTO dataset_state (dataset_id, part, blob) VALUES (?, ?, ?)",
                     [(dataset_id, name, blob) for name, blob in parts.items()])
    latest: dict[str, int] = {}
    for dataset, repo in conn.execute("SELECT id, repo FROM datasets ORDER BY published_at DESC, id DESC"):
        latest.setdefault(repo, dataset)
    keep = [*latest.values(), dataset_id]
    marks = ",".join("?" * len(keep))
    conn.execute(f"DELETE FROM dataset_state WHERE dataset_id NOT IN ({marks})", keep)


def apply_delta(conn: sqlite3.Connection, dataset_id: int, *, drop_ids: Iterable[str],
                records: Iterable[dict], packed_windows: Mapping[str, tuple[bytes, bytes]] | None,
                diagnostic_files: Sequence[str], diagnostics: Sequence[Diagnostic], analyzed_at: str,
                state: Mapping[str, bytes]) -> int:
    """Swap records `drop_ids` for `records` in the dataset, and update its diagnostics, times and state parts.

    Returns the dataset's new record count.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        publishing._prepare_gc(conn)
        ids = list(dict.fromkeys(drop_ids))
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            marks = ",".join("?" * len(part))
            keys = f"SELECT key FROM record_bodies WHERE record_id IN ({marks})"
            conn.execute(f"INSERT OR IGNORE INTO temp.gc_candidates (key) SELECT body_key FROM dataset_records"
                         f" WHERE dataset_id = ? AND body_key IN ({keys})", [dataset_id, *part])
            conn.execute(f"DELETE FROM dataset_records WHERE dataset_id = ? AND body_key IN ({keys})",
                         [dataset_id, *part])
        publishing._write_records(conn, dataset_id, records, packed_windows)
        for path in diagnostic_files:
            conn.execute("DELETE FROM diagnostics WHERE dataset_id = ? AND file_path = ?", (dataset_id, path))
        conn.executemany("INSERT INTO diagnostics (dataset_id, file_path, reason, detail) VALUES (?, ?, ?, ?)",
                         [(dataset_id, d.file_path, d.reason, d.detail) for d in diagnostics])
        count = conn.execute("SELECT count(*) FROM dataset_records WHERE dataset_id = ?", (dataset_id,)).fetchone()[0]
        n_diag = conn.execute("SELECT count(*) FROM diagnostics WHERE dataset_id = ?", (dataset_id,)).fetchone()[0]
        conn.execute("UPDATE datasets SET record_count = ?, diagnostic_count = ?, analyzed_at = ?, published_at = ?"
                     " WHERE id = ?", (count, n_diag, analyzed_at, utc_now(), dataset_id))
        publishing._collect_garbage(conn)
        if ids:
            collect_windows(conn)
        _write_state(conn, dataset_id, state, replace=False)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return count
