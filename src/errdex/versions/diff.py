"""What changed between two datasets: added, removed, changed (and which fields), unchanged.

Records are paired by id (ids survive line moves, and renames recognised at
index time, see `identity`). Every record of B lands in exactly one of
added, changed or unchanged; removed holds the ids of A that B lacks.
Only the records A and B do not share as stored are read and compared.
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
    """Diff two datasets of `store`, named `repo@version` (or anything `resolve_dataset` takes).

    A site whose membership rows in A and B point at the same stored body and
    source window has equal compared fields, so it counts as unchanged unread;
    only the others are rebuilt and compared (two sglang-sized releases: 17 s
    -> 0.5 s). Lists come in (file, line, id) order.
    """
    info_a, info_b = store.resolve_dataset(a), store.resolve_dataset(b)
    keys_a, keys_b = store.member_keys(info_a.id), store.member_keys(info_b.id)
    shared = {rid for rid, key in keys_b.items() if keys_a.get(rid) == key}
    result = diff_records(info_a.name, info_b.name,
                          _in_order(store.records_by_ids(info_a.id, [r for r in keys_a if r not in shared])),
                          _in_order(store.records_by_ids(info_b.id, [r for r in keys_b if r not in shared])))
    result.unchanged += len(shared)
    result.b_records = len(keys_b)
    return result


def _in_order(records: list[dict]) -> list[dict]:
    return sorted(records, key=lambda r: (r.get("filePath") or "", r.get("lineNumber") or 0, r["id"]))
