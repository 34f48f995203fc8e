"""Model-written prose kept beside the record bodies, and laid over them on read.

`enrichments` holds the validated fields and per-field provenance for one
(facts hash, model, prompt version); `enrichment_links` says which of them
a stored body shows. Bodies stay exactly as the index wrote them, so a
re-index never loses the static text and an enrichment can be dropped.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from errdex.store.bodies import restore_site
from errdex.store.schema import utc_now
from errdex.store.windows import window_text


@dataclass(slots=True)
class Enrichment:
    """One validated model answer for one set of facts."""

    facts_hash: str
    model: str
    prompt_version: str
    fields: dict[str, Any]                 # accepted field -> value
    provenance: dict[str, str]             # field -> "model:<name>" | "model-rejected:<reason>"
    rejected: dict[str, Any] = field(default_factory=dict)   # field -> {"reason", "detail", "value"}
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(frozen=True, slots=True)
class RawRecord:
    """A stored body as the index wrote it (no enrichment), with its hash."""

    body_hash: bytes
    record: dict[str, Any]


class EnrichmentStore:
    """Reads and writes enrichments on one store connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._present: bool | None = None

    def raw_records(self, dataset_id: int | None, limit: int | None = None) -> Iterator[RawRecord]:
        """Distinct bodies (of one dataset, or all), by file and line, as stored."""
        scope, params = ("WHERE dr.dataset_id = ?", [dataset_id]) if dataset_id is not None else ("", [])
        # One membership per body (its latest) gives the line and window the body is shown with.
        sql = ("SELECT b.body_hash, b.body, m.line_number, w.text, m.related FROM record_bodies b JOIN"
               " (SELECT dr.body_key, max(dr.dataset_id) AS dataset_id FROM dataset_records dr"
               f" {scope} GROUP BY dr.body_key) AS pick ON pick.body_key = b.key"
               " JOIN dataset_records m ON m.dataset_id = pick.dataset_id AND m.body_key = b.key"
               " LEFT JOIN source_windows w ON w.key = m.window_key"
               " ORDER BY b.file_path, coalesce(m.line_number, b.line_number), b.key")
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        for digest, body, line, window, related in self._conn.execute(sql, params):
            yield RawRecord(bytes(digest), restore_site(body, line, window_text(window), related))

    def cached(self, hashes: Sequence[str], model: str, prompt_version: str) -> set[str]:
        """Which facts hashes already have an enrichment for this model and prompt."""
        found: set[str] = set()
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 500):
            part = unique[start:start + 500]
            marks = ",".join("?" * len(part))
            rows = self._conn.execute(
                f"SELECT facts_hash FROM enrichments WHERE model = ? AND prompt_version = ?"
                f" AND facts_hash IN ({marks})", [model, prompt_version, *part])
            found.update(row[0] for row in rows)
        return found

    def save(self, enrichments: Sequence[Enrichment], links: Sequence[tuple[bytes, str]],
             model: str, prompt_version: str) -> None:
        """Store answers and point bodies at them, in one transaction (a resumable step)."""
        now = utc_now()
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.executemany(
                "INSERT OR REPLACE INTO enrichments (facts_hash, model, prompt_version, fields,"
                " provenance, rejected, tokens_in, tokens_out, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(e.facts_hash, e.model, e.prompt_version, json.dumps(e.fields),
                  json.dumps(e.provenance), json.dumps(e.rejected), e.tokens_in, e.tokens_out, now)
                 for e in enrichments])
            self._conn.executemany(
                "INSERT OR REPLACE INTO enrichment_links (body_hash, facts_hash, model,"
                " prompt_version, linked_at) VALUES (?, ?, ?, ?, ?)",
                [(digest, facts, model, prompt_version, now) for digest, facts in links])
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._present = True

    def get(self, facts_hash: str, model: str, prompt_version: str) -> Enrichment | None:
        row = self._conn.execute(
            "SELECT fields, provenance, rejected, tokens_in, tokens_out FROM enrichments"
            " WHERE facts_hash = ? AND model = ? AND prompt_version = ?",
            (facts_hash, model, prompt_version)).fetchone()
        if row is None:
            return None
        return Enrichment(facts_hash, model, prompt_version, json.loads(row[0]),
                          json.loads(row[1]), json.loads(row[2]), row[3], row[4])

    def overlay(self, digest: bytes, record: dict[str, Any]) -> dict[str, Any]:
        """`record` with the enrichment linked to its stored body (by hash) laid over it."""
        if not self._tables_exist():
            return record
        row = self._conn.execute(
            "SELECT e.fields, e.provenance FROM enrichment_links l JOIN enrichments e"
            " ON e.facts_hash = l.facts_hash AND e.model = l.model"
            " AND e.prompt_version = l.prompt_version WHERE l.body_hash = ?", (digest,)).fetchone()
        if row is None:
            return record
        return apply_enrichment(record, json.loads(row[0]), json.loads(row[1]))

    def _tables_exist(self) -> bool:
        if self._present is None:
            self._present = self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'enrichment_links'"
            ).fetchone() is not None
        return self._present


def apply_enrichment(record: dict[str, Any], fields: dict[str, Any],
                     provenance: dict[str, str]) -> dict[str, Any]:
    """Accepted fields replace the static text; every field's provenance is recorded."""
    for name, value in fields.items():
        if name in record:
            record[name] = value
    ex = record.get("errdex")
    if isinstance(ex, dict):
        ex["provenance"] = {**(ex.get("provenance") or {}), **provenance}
    return record
