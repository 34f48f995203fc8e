"""`Store`: the one object other stages use to write and read the index file.

It owns the connection and turns stored rows back into full records in the
seed format; the SQL lives in `queries`, the write transaction in `publish`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from errdex.models import DatasetInfo, DatasetMeta, Diagnostic
from errdex.store import publish as publishing
from errdex.store import queries, state
from errdex.store.bodies import restore_record
from errdex.store.codec import load_dicts, unpack_ids
from errdex.store.connection import StoreError, open_connection
from errdex.store.enrichment import EnrichmentStore
from errdex.store.queries import RecordFilter
from errdex.store.windows import stored_keys, window_text

_ID_LENGTH = 16
_HEX = frozenset("0123456789abcdef")


class Store:
    """One SQLite index file holding many datasets (repo@version)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, readonly: bool) -> None:
        self._conn = conn
        self.path = path
        self.readonly = readonly
        self.enrichments = EnrichmentStore(conn)
        load_dicts(conn)

    @classmethod
    def open(cls, path: str | Path, *, readonly: bool = False,
             timeout_ms: int | None = None, unjournaled: bool = False) -> Store:
        """Open (and when writable, create and migrate) the index at `path`.

        `unjournaled` is for a file being built aside (`store.aside`) only: a crash mid-write
        damages an unjournaled file, which is why no one else may see it until it is complete.
        """
        path = Path(path)
        return cls(open_connection(path, readonly=readonly, timeout_ms=timeout_ms, unjournaled=unjournaled),
                   path, readonly)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- write side -------------------------------------------------------

    def cached_facts(self, keys: Sequence[str]) -> dict[str, bytes]:
        """Per-file results stored by earlier runs, by key (sha256 + ":" + EXTRACTOR_VERSION)."""
        found: dict[str, bytes] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            part = unique[start:start + 500]
            marks = ",".join("?" * len(part))
            rows = self._conn.execute(f"SELECT key, facts FROM file_cache WHERE key IN ({marks})", part)
            found.update((key, bytes(facts)) for key, facts in rows)
        return found

    def put_cached_facts(self, items: Mapping[str, bytes]) -> None:
        """Remember per-file results; a short transaction of its own, safe mid-run."""
        if not items:
            return
        self._write(lambda: self._conn.executemany(
            "INSERT OR REPLACE INTO file_cache (key, facts) VALUES (?, ?)", list(items.items())))

    def stored_windows(self, digests: Sequence[bytes]) -> list[bytes]:
        """Which of these source-window digests (sha256) the index stores already."""
        return list(stored_keys(self._conn, digests))

    def prune_cached_facts(self, keep_suffix: str) -> int:
        """Forget cached results whose key does not end with `keep_suffix` (old extractor versions)."""
        cursor = self._conn.execute(
            "DELETE FROM file_cache WHERE substr(key, -?) != ?", (len(keep_suffix), keep_suffix))
        return cursor.rowcount

    def prune_file_cache(self, keep_keys: Iterable[str]) -> int:
        """Forget cached results except `keep_keys` and their ":helpers:" entries; returns how many.

        Entries an older errdex kept (a second copy of each file's windows, ":windows") go too.

        Meant after a publish, with the keys of every file of every dataset still in the file,
        so a long-lived index does not keep facts of file versions no dataset holds any more.
        """
        keep = list(dict.fromkeys(keep_keys))
        removed: list[int] = []

        def prune() -> None:
            self._conn.execute("CREATE TEMP TABLE IF NOT EXISTS keep_facts (key TEXT PRIMARY KEY)")
            self._conn.execute("DELETE FROM temp.keep_facts")
            self._conn.executemany("INSERT OR IGNORE INTO temp.keep_facts VALUES (?)", [(k,) for k in keep])
            self._conn.execute(
                "DELETE FROM file_cache WHERE key NOT IN (SELECT key FROM temp.keep_facts)"
                " AND (instr(key, ':helpers:') = 0 OR substr(key, 1, instr(key, ':helpers:') - 1)"
                " NOT IN (SELECT key FROM temp.keep_facts))")
            removed.append(self._conn.execute("SELECT changes()").fetchone()[0])
            self._conn.execute("DELETE FROM temp.keep_facts")

        self._write(prune)
        return removed[0]

    def publish(self, meta: DatasetMeta, records: Iterable[dict[str, Any]],
                diagnostics: Sequence[Diagnostic],
                packed_windows: Mapping[str, tuple[bytes, bytes]] | None = None,
                finish: Callable[[dict], None] | None = None) -> DatasetInfo:
        """Publish `meta.name` atomically, replacing any earlier copy of it.

        `packed_windows` maps source-window texts to (sha256, stored bytes) already
        computed elsewhere (`store.windows.pack_window`); the rest are packed here.
        `finish` completes each record right before it is encoded, possibly in a
        forked encoder, so the caller's records are not all completed afterwards
        (`encoding.row_chunks`): the stored records are.
        """
        dataset_id = publishing.publish_dataset(self._conn, meta, records, diagnostics, packed_windows, finish)
        return self._dataset_by_id()[dataset_id]

    def load_state(self, dataset_id: int, part: str) -> bytes | None:
        """One part of a dataset's re-index state (`errdex.delta`), if kept."""
        return state.load_state(self._conn, dataset_id, part)

    def save_state(self, dataset_id: int, parts: Mapping[str, bytes], *, replace: bool = True) -> None:
        """Store re-index state parts; `replace` drops the dataset's other parts."""
        state.save_state(self._conn, dataset_id, parts, replace=replace)

    def apply_delta(self, dataset_id: int, **changes: Any) -> DatasetInfo:
        """Swap some records of a published dataset in one transaction (`store.state.apply_delta`)."""
        state.apply_delta(self._conn, dataset_id, **changes)
        return self._dataset_by_id()[dataset_id]

    def stored_records(self, dataset_id: int, *, file_paths: Sequence[str] = (),
                       record_ids: Sequence[str] = ()) -> list[dict[str, Any]]:
        """Records as stored (no model prose laid over them) by filePath or id, to be rewritten."""
        info = self._dataset_by_id()[dataset_id]
        rows = [*self._member_rows(dataset_id, "b.file_path", file_paths),
                *self._member_rows(dataset_id, "b.record_id", record_ids)]
        return [restore_record(row[0], info, row[3], window_text(row[4]), row[5], prose=False) for row in rows]

    def _member_rows(self, dataset_id: int, column: str, values: Sequence[str]) -> Iterator[tuple]:
        """`queries.ROW_COLUMNS` of one dataset's records whose `column` is one of `values`, in no order."""
        assert column in ("b.file_path", "b.record_id")
        unique = list(dict.fromkeys(values))
        for start in range(0, len(unique), 500):
            chunk = unique[start:start + 500]
            yield from self._conn.execute(
                f"SELECT {queries.ROW_COLUMNS} FROM {queries.MEMBERS}{queries.WINDOW}"
                f" WHERE dr.dataset_id = ? AND {column} IN ({','.join('?' * len(chunk))})", (dataset_id, *chunk))

    def file_cache_size(self) -> int:
        return self._conn.execute("SELECT count(*) FROM file_cache").fetchone()[0]

    def state_parts(self, part: str) -> list[tuple[int, str, bytes]]:
        """(dataset id, repo, blob) of one re-index state part, for every dataset that keeps one."""
        return self._conn.execute(
            "SELECT s.dataset_id, d.repo, s.blob FROM dataset_state s JOIN datasets d ON d.id = s.dataset_id"
            " WHERE s.part = ?", (part,)).fetchall()

    def member_keys(self, dataset_id: int) -> dict[str, tuple[int, int | None]]:
        """Record id -> (body key, window key): equal pairs in two datasets mean the same site as stored
        (only its `related` ids, kept in the membership row, may differ)."""
        rows = self._conn.execute(
            f"SELECT b.record_id, dr.body_key, dr.window_key FROM {queries.MEMBERS} WHERE dr.dataset_id = ?",
            (dataset_id,))
        return {rid: (body, window) for rid, body, window in rows}

    def related_lists(self, dataset_id: int) -> dict[str, list[str]]:
        """Record id -> its stored `related` ids (kept in the membership rows; see `bodies`)."""
        rows = self._conn.execute(
            f"SELECT b.record_id, dr.related FROM {queries.MEMBERS}"
            " WHERE dr.dataset_id = ? AND dr.related IS NOT NULL", (dataset_id,))
        return {rid: unpack_ids(related) for rid, related in rows}

    def records_by_ids(self, dataset_id: int, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Full records (as `iter_records` gives them) of these ids in one dataset, in no order."""
        info = self._dataset_by_id()[dataset_id]
        return [self._restore(row, info) for row in self._member_rows(dataset_id, "b.record_id", ids)]

    def ordered_record_ids(self, dataset_id: int) -> list[str]:
        """One dataset's record ids in `iter_records` order, without reading bodies."""
        return queries.ordered_ids(self._conn, dataset_id)

    def record_ids(self, dataset_id: int) -> set[str]:
        """Every record id of one dataset, without reading bodies."""
        return {row[0] for row in self._conn.execute(
            f"SELECT b.record_id FROM {queries.MEMBERS} WHERE dr.dataset_id = ?", (dataset_id,))}

    def record_places(self, dataset_id: int) -> list[tuple[str, str, str, int, str]]:
        """(id, slug, filePath, lineNumber, errorMessage) of every record, from columns (no body decoded)."""
        return self._conn.execute(
            f"SELECT b.record_id, b.slug, b.file_path, coalesce(dr.line_number, b.line_number), b.error_message"
            f" FROM {queries.MEMBERS} WHERE dr.dataset_id = ?", (dataset_id,)).fetchall()

    def remove_dataset(self, name: str) -> DatasetInfo:
        """Delete the dataset named exactly `repo@version`, and bodies only it used."""
        info = next((d for d in self.datasets() if d.name == name), None)
        if info is None:
            raise StoreError(self._unknown_message(name))
        publishing.remove_dataset(self._conn, info.id)
        return info

    def _write(self, action: Any) -> None:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            action()
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise

    # --- datasets ---------------------------------------------------------

    def datasets(self) -> list[DatasetInfo]:
        """Every dataset, most recently published first."""
        rows = self._conn.execute(
            "SELECT id, repo, version, kind, sha, dirty, analyzed_sha, url_base, analyzed_at,"
            " published_at, file_count, record_count, diagnostic_count, extra"
            " FROM datasets ORDER BY published_at DESC, id DESC")
        return [_dataset_info(row) for row in rows]

    def resolve_dataset(self, name: str | None) -> DatasetInfo:
        """"repo@version" exactly; "repo" (or its last path part) -> its latest; None -> latest."""
        infos = self.datasets()
        if not infos:
            raise StoreError(f"no datasets in {self.path}; run errdex index first")
        if name is None:
            return infos[0]
        for info in infos:
            if info.name == name:
                return info
        for info in infos:  # most recent first
            if name in (info.repo, info.repo.rsplit("/", 1)[-1]):
                return info
        raise StoreError(self._unknown_message(name, infos))

    def _unknown_message(self, name: str, infos: list[DatasetInfo] | None = None) -> str:
        infos = self.datasets() if infos is None else infos
        available = ", ".join(info.name for info in infos) or "none"
        return f"unknown dataset {name!r}; available: {available}"

    def _dataset_by_id(self) -> dict[int, DatasetInfo]:
        return {info.id: info for info in self.datasets()}

    def _scope(self, dataset: str | None) -> int | None:
        return None if dataset is None else self.resolve_dataset(dataset).id

    # --- records ----------------------------------------------------------

    def get_record(self, ref: str, dataset: str | None = None) -> dict[str, Any] | None:
        """{"record", "datasetVersion", "dataset"} for a 16-hex id or a slug; None if absent."""
        ref = ref.strip()
        dataset_id = self._scope(dataset)
        row = None
        if len(ref) == _ID_LENGTH and set(ref.lower()) <= _HEX:
            row = queries.find_record(self._conn, "b.record_id", ref.lower(), dataset_id)
        if row is None:
            row = queries.find_record(self._conn, "b.slug", ref, dataset_id)
        if row is None:
            return None
        return self._envelope(row, self._dataset_by_id()[row[1]])

    def iter_records(self, dataset: str | None = None, *, error_class: str | None = None,
                     error_type: str | None = None, background_tag: str | None = None,
                     path_glob: str | None = None, text: str | None = None,
                     limit: int | None = None, offset: int = 0) -> Iterator[dict[str, Any]]:
        """Full records ordered by filePath, lineNumber; dataset None = every dataset."""
        where = RecordFilter(self._scope(dataset), error_class, error_type,
                             background_tag, path_glob, text)
        infos = self._dataset_by_id()
        for row in queries.select_records(self._conn, where, limit=limit, offset=offset):
            yield self._restore(row, infos[row[1]])

    def count_records(self, dataset: str | None = None, *, error_class: str | None = None,
                      error_type: str | None = None, background_tag: str | None = None,
                      path_glob: str | None = None, text: str | None = None) -> int:
        """How many records `iter_records` would yield with the same filters."""
        where = RecordFilter(self._scope(dataset), error_class, error_type,
                             background_tag, path_glob, text)
        return queries.count_records(self._conn, where)

    def search(self, query: str, dataset: str | None = None, *,
               error_class: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """Ranked full-text hits as envelopes plus "score" (higher is better).

        All words must match; when none does, any word may. With dataset None
        every dataset is searched and each record id is returned once, from the
        most recent dataset holding it.
        """
        where = RecordFilter(self._scope(dataset), error_class=error_class)
        rows: list[tuple] = []
        for any_token in (False, True):
            match = queries.fts_query(query, any_token=any_token)
            if match is None:
                return []
            rows = queries.search_ranked(self._conn, match, where, limit)
            if rows:
                break
        infos = self._dataset_by_id()
        return [{**self._envelope(row, infos[row[1]]), "score": -row[6]} for row in rows]

    def _envelope(self, row: tuple, info: DatasetInfo) -> dict[str, Any]:
        return {"record": self._restore(row, info), "datasetVersion": info.published_at,
                "dataset": info.name}

    def _restore(self, row: tuple, info: DatasetInfo) -> dict[str, Any]:
        """The full record from `queries.ROW_COLUMNS`, with validated model prose laid over it."""
        body, _, digest, line, window, related = row[:6]
        try:
            record = restore_record(body, info, line, window_text(window), related)
        except KeyError:  # packed with a dictionary another process added after we opened
            load_dicts(self._conn)
            record = restore_record(body, info, line, window_text(window), related)
        return self.enrichments.overlay(bytes(digest), record)

    # --- summaries --------------------------------------------------------

    def stats(self, dataset: str | None = None) -> dict[str, Any]:
        """Counts by errorClass, errorType, backgroundTag, severity; totals; diagnostics by reason."""
        info = None if dataset is None else self.resolve_dataset(dataset)
        where = RecordFilter(None if info is None else info.id)
        condition, params = where.where()
        files = self._conn.execute(
            "SELECT count(DISTINCT b.file_path) FROM dataset_records dr"
            f" JOIN record_bodies b ON b.key = dr.body_key WHERE {condition}", params).fetchone()[0]
        scope, scope_params = ("1", []) if info is None else ("dataset_id = ?", [info.id])
        reasons = dict(self._conn.execute(
            f"SELECT reason, count(*) AS n FROM diagnostics WHERE {scope}"
            " GROUP BY reason ORDER BY n DESC, reason", scope_params).fetchall())
        infos = self.datasets() if info is None else [info]
        return {
            "dataset": None if info is None else info.name,
            "datasets": len(infos),
            "records": queries.count_records(self._conn, where),
            "files_with_records": files,
            "files_indexed": sum(i.file_count for i in infos),
            "by_error_class": queries.grouped_counts(self._conn, "error_class", where),
            "by_error_type": queries.grouped_counts(self._conn, "error_type", where),
            "by_background_tag": queries.grouped_counts(self._conn, "background_tag", where),
            "by_severity": queries.grouped_counts(self._conn, "severity", where),
            "diagnostics": sum(reasons.values()),
            "diagnostics_by_reason": reasons,
        }

    def diagnostics(self, dataset: str) -> list[Diagnostic]:
        """Files of this dataset that could not be read or parsed, by path."""
        info = self.resolve_dataset(dataset)
        rows = self._conn.execute(
            "SELECT file_path, reason, detail FROM diagnostics WHERE dataset_id = ?"
            " ORDER BY file_path, rowid", (info.id,))
        return [Diagnostic(*row) for row in rows]


def _dataset_info(row: tuple) -> DatasetInfo:
    (id_, repo, version, kind, sha, dirty, analyzed_sha, url_base, analyzed_at,
     published_at, file_count, record_count, diagnostic_count, extra) = row
    return DatasetInfo(
        id=id_, repo=repo, version=version, kind=kind, sha=sha, dirty=bool(dirty),
        analyzed_sha=analyzed_sha, url_base=url_base, analyzed_at=analyzed_at,
        published_at=published_at, file_count=file_count, record_count=record_count,
        diagnostic_count=diagnostic_count, extra=json.loads(extra or "{}"),
    )
