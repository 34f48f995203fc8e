"""What changed between two datasets: added, removed, changed (and which fields), unchanged.

Records are paired by id (ids survive line moves, and renames recognised at
index time, see `identity`). Every record of B lands in exactly one of
added, changed or unchanged; removed holds the ids of A that B lacks.
`diff_stored` gives the same answer reading only the records A and B do
not share as stored (what the web server uses).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from errdex.store import Store

#: Field name in the diff -> how to read it from a record.
COMPARED_FIELDS: dict[str, Any] = {
    "template": lambda r: r.get("errorMessage"),
    "class": lambda r: r.get("errorClass"),
    "condition": lambda r: (r.get("errdex") or {}).get("condition"),
    "severity": lambda r: r.get("severity"),
    "source": lambda r: r.get("sourceCode"),
    # A site recognised across a rename (see `identity`) also says where it went.
    "file": lambda r: r.get("filePath"),
    "function": lambda r: (r.get("errdex") or {}).get("function"),
}


@dataclass(slots=True)
class SiteSummary:
    """Enough of a record to list it in a diff."""

    id: str
    file_path: str
    line: int
    error_class: str | None
    message: str

    @classmethod
    def of(cls, record: dict) -> SiteSummary:
        return cls(record["id"], record.get("filePath") or "", record.get("lineNumber") or 0,
                   record.get("errorClass"), record.get("errorMessage") or "")

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "filePath": self.file_path, "lineNumber": self.line,
                "errorClass": self.error_class, "errorMessage": self.message}


@dataclass(slots=True)
class ChangedSite:
    """A site present in both datasets whose compared fields differ."""

    site: SiteSummary                    # as in B
    fields: list[str]
    before: dict[str, Any] = field(default_factory=dict)   # changed field -> value in A ("source" left out)
    after: dict[str, Any] = field(default_factory=dict)
    identity: str = "same-key"


@dataclass(slots=True)
class DatasetDiff:
    """The difference from dataset `a` to dataset `b`."""

    a: str
    b: str
    added: list[SiteSummary]
    removed: list[SiteSummary]
    changed: list[ChangedSite]
    unchanged: int
    b_records: int

    def as_dict(self) -> dict[str, Any]:
        """The issue's JSON: ids for added/removed, {"id", "fields"} for changed, a count for unchanged."""
        return {"added": [s.id for s in self.added], "removed": [s.id for s in self.removed],
                "changed": [{"id": c.site.id, "fields": c.fields} for c in self.changed],
                "unchanged": self.unchanged}

    def as_detail(self) -> dict[str, Any]:
        """The same with each site's location and message, for pages and reports."""
        return {"a": self.a, "b": self.b,
                "added": [s.as_dict() for s in self.added], "removed": [s.as_dict() for s in self.removed],
                "changed": [{**c.site.as_dict(), "fields": c.fields, "before": c.before, "after": c.after,
                             "identity": c.identity} for c in self.changed],
                "unchanged": self.unchanged, "records": self.b_records}


def changed_fields(old: dict, new: dict) -> list[str]:
    """The compared fields whose values differ, in `COMPARED_FIELDS` order."""
    return [name for name, read in COMPARED_FIELDS.items() if read(old) != read(new)]


def diff_records(a_name: str, b_name: str, a_records: list[dict], b_records: list[dict]) -> DatasetDiff:
    """Pair two record lists by id and classify every record."""
    old_by_id = {r["id"]: r for r in a_records}
    new_ids = {r["id"] for r in b_records}
    added, changed, unchanged = [], [], 0
    for record in b_records:
        old = old_by_id.get(record["id"])
        if old is None:
            added.append(SiteSummary.of(record))
            continue
        fields = changed_fields(old, record)
        if not fields:
            unchanged += 1
            continue
        shown = [f for f in fields if f != "source"]
        changed.append(ChangedSite(SiteSummary.of(record), fields,
                                   {f: COMPARED_FIELDS[f](old) for f in shown},
                                   {f: COMPARED_FIELDS[f](record) for f in shown},
                                   (record.get("errdex") or {}).get("identity") or "same-key"))
    removed = [SiteSummary.of(r) for r in a_records if r["id"] not in new_ids]
    return DatasetDiff(a_name, b_name, added, removed, changed, unchanged, len(b_records))


def diff_datasets(store: Store, a: str, b: str) -> DatasetDiff:
    """Diff two datasets of `store`, named `repo@version` (or anything `resolve_dataset` takes)."""
    info_a, info_b = store.resolve_dataset(a), store.resolve_dataset(b)
    return diff_records(info_a.name, info_b.name, list(store.iter_records(info_a.name)),
                        list(store.iter_records(info_b.name)))


#: Record ids per query when fetching the records that need comparing.
_FETCH_CHUNK = 500


def diff_stored(store: Store, a: str, b: str) -> DatasetDiff:
    """`diff_datasets` without decoding the records both datasets share unchanged.

    A site whose membership rows in A and B point at the same stored body and
    source window has equal compared fields, so it counts as unchanged
    unread; only the others are rebuilt and compared. Lists come in
    (file, line, id) order. For the web server, where a full diff of two
    sglang-sized datasets (17 s) would not fit a request.
    """
    info_a, info_b = store.resolve_dataset(a), store.resolve_dataset(b)
    keys_a, keys_b = _member_keys(store, info_a.id), _member_keys(store, info_b.id)
    shared = {rid for rid, key in keys_b.items() if keys_a.get(rid) == key}
    need_a = [rid for rid in keys_a if rid not in shared]
    need_b = [rid for rid in keys_b if rid not in shared]
    result = diff_records(info_a.name, info_b.name, _records_by_id(store, info_a, need_a),
                          _records_by_id(store, info_b, need_b))
    result.unchanged += len(shared)
    result.b_records = len(keys_b)
    return result


def _member_keys(store: Store, dataset_id: int) -> dict[str, tuple]:
    """Record id -> (body key, window key) of one dataset: membership rows only, no body read."""
    rows = store._conn.execute(
        "SELECT record_id, body_key, window_key FROM dataset_records WHERE dataset_id = ?", (dataset_id,))
    return {rid: (body, window) for rid, body, window in rows}


def _records_by_id(store: Store, info, ids: list[str]) -> list[dict]:
    """Full records (as `iter_records` rebuilds them) of the given ids in one dataset, by file, line, id."""
    from errdex.store.queries import MEMBERS, ROW_COLUMNS, WINDOW

    out: list[dict] = []
    for start in range(0, len(ids), _FETCH_CHUNK):
        chunk = ids[start:start + _FETCH_CHUNK]
        rows = store._conn.execute(
            f"SELECT {ROW_COLUMNS}, dr.record_id FROM {MEMBERS}{WINDOW}"
            f" WHERE dr.dataset_id = ? AND dr.record_id IN ({','.join('?' * len(chunk))})", (info.id, *chunk))
        out.extend(store._restore(row, info) for row in rows)
    out.sort(key=lambda r: (r.get("filePath") or "", r.get("lineNumber") or 0, r["id"]))
    return out
