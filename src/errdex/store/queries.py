"""SQL for the read side: record filters, safe FTS5 queries, ranked search.

User text never reaches FTS5 syntax: it is cut into word tokens and each is
quoted, so quotes, `*`, `NEAR(`, `AND`, column filters or an empty string
cannot raise or change the meaning of the query.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

#: bm25 column weights, in `record_search` column order: the message counts most.
SEARCH_WEIGHTS = (10.0, 4.0, 2.0, 1.0, 3.0, 1.5)
#: Longer pasted text is cut to this many tokens before matching.
MAX_QUERY_TOKENS = 32

_TOKEN = re.compile(r"\w+")

MEMBERS = "dataset_records dr JOIN record_bodies b ON b.key = dr.body_key"
WINDOW = " LEFT JOIN source_windows w ON w.key = dr.window_key"
#: What a full record is rebuilt from: stored body, dataset id, body hash, line, stored window, related ids.
ROW_COLUMNS = "b.body, dr.dataset_id, b.body_hash, dr.line_number, w.text, dr.related"
#: The site's line: in the membership row, or in the body for rows written before it moved there.
_LINE = "coalesce(dr.line_number, b.line_number)"
#: How records are listed: by file and line; the id breaks ties (two sites on one line), so every
#: query listing them gives one order.
RECORD_ORDER = f"b.file_path, {_LINE}, dr.dataset_id, b.record_id"
_RECENT = "d.published_at DESC, d.id DESC"


def fts_query(text: str, *, any_token: bool = False) -> str | None:
    """A safe FTS5 expression: each word quoted, all required (or any). None if no words."""
    tokens = _TOKEN.findall(text or "")[:MAX_QUERY_TOKENS]
    if not tokens:
        return None
    joiner = " OR " if any_token else " "
    return joiner.join(f'"{token}"' for token in tokens)


@dataclass(frozen=True, slots=True)
class RecordFilter:
    """Which membership rows a read considers; None means no constraint."""

    dataset_id: int | None = None
    error_class: str | None = None
    error_type: str | None = None
    background_tag: str | None = None
    path_glob: str | None = None
    text: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """SQL condition over `dr` / `b` and its parameters."""
        terms: list[str] = []
        params: list[Any] = []
        if self.dataset_id is not None:
            terms.append("dr.dataset_id = ?")
            params.append(self.dataset_id)
        if self.error_class:
            # "ValueError" also finds "errors.ValueError" as written in the source.
            terms.append("(b.error_class = ? OR substr(b.error_class, -?) = ?)")
            params += [self.error_class, len(self.error_class) + 1, "." + self.error_class]
        for column, value in (("b.error_type", self.error_type),
                              ("b.background_tag", self.background_tag)):
            if value:
                terms.append(f"{column} = ?")
                params.append(value)
        if self.path_glob:
            terms.append("b.file_path GLOB ?")
            params.append(self.path_glob)
        match = fts_query(self.text) if self.text else None
        if match:
            terms.append("b.key IN (SELECT rowid FROM record_search WHERE record_search MATCH ?)")
            params.append(match)
        return (" AND ".join(terms) or "1"), params


def select_records(
    conn: sqlite3.Connection, where: RecordFilter, *, limit: int | None, offset: int
) -> sqlite3.Cursor:
    """`ROW_COLUMNS` rows ordered by file, line, dataset, id (`RECORD_ORDER`)."""
    condition, params = where.where()
    return conn.execute(
        f"SELECT {ROW_COLUMNS} FROM {MEMBERS}{WINDOW} WHERE {condition}"
        f" ORDER BY {RECORD_ORDER} LIMIT ? OFFSET ?",
        [*params, -1 if limit is None else limit, offset],
    )


def ordered_ids(conn: sqlite3.Connection, dataset_id: int) -> list[str]:
    """One dataset's record ids in `select_records` order, without reading bodies."""
    return [row[0] for row in conn.execute(
        f"SELECT b.record_id FROM {MEMBERS} WHERE dr.dataset_id = ? ORDER BY {RECORD_ORDER}", (dataset_id,))]


def count_records(conn: sqlite3.Connection, where: RecordFilter) -> int:
    condition, params = where.where()
    return conn.execute(f"SELECT count(*) FROM {MEMBERS} WHERE {condition}", params).fetchone()[0]


def find_record(
    conn: sqlite3.Connection, column: str, value: str, dataset_id: int | None
) -> tuple | None:
    """`ROW_COLUMNS` of the record with this id or slug, most recent dataset first."""
    assert column in ("b.record_id", "b.slug")
    scope = "" if dataset_id is None else " AND dr.dataset_id = ?"
    params: list[Any] = [value] if dataset_id is None else [value, dataset_id]
    return conn.execute(
        f"SELECT {ROW_COLUMNS} FROM {MEMBERS}{WINDOW} JOIN datasets d ON d.id = dr.dataset_id"
        f" WHERE {column} = ?{scope} ORDER BY {_RECENT}, b.file_path, {_LINE} LIMIT 1",
        params,
    ).fetchone()


def search_ranked(
    conn: sqlite3.Connection, match: str, where: RecordFilter, limit: int
) -> list[tuple]:
    """`ROW_COLUMNS` + bm25, best first; each record id once, from its most recent dataset."""
    condition, params = where.where()
    weights = ", ".join(str(w) for w in SEARCH_WEIGHTS)
    sql = f"""
        WITH hits AS (
            SELECT rowid AS key, bm25(record_search, {weights}) AS rank
            FROM record_search WHERE record_search MATCH ?
        ), placed AS (
            SELECT b.body, dr.dataset_id, b.body_hash, dr.line_number, dr.window_key, dr.related, h.rank,
                   row_number() OVER (PARTITION BY b.record_id ORDER BY {_RECENT}) AS nth
            FROM hits h JOIN dataset_records dr ON dr.body_key = h.key
            JOIN record_bodies b ON b.key = h.key JOIN datasets d ON d.id = dr.dataset_id
            WHERE {condition}
        )
        SELECT p.body, p.dataset_id, p.body_hash, p.line_number, w.text, p.related, p.rank
        FROM placed p LEFT JOIN source_windows w ON w.key = p.window_key
        WHERE p.nth = 1 ORDER BY p.rank LIMIT ?"""
    return conn.execute(sql, [match, *params, limit]).fetchall()


def grouped_counts(conn: sqlite3.Connection, column: str, where: RecordFilter) -> dict[str, int]:
    """Membership counts per value of one body column, largest first."""
    assert column in ("error_class", "error_type", "background_tag", "severity")
    condition, params = where.where()
    rows = conn.execute(
        f"SELECT coalesce(b.{column}, ''), count(*) AS n FROM {MEMBERS} WHERE {condition}"
        f" GROUP BY 1 ORDER BY n DESC, 1",
        params,
    )
    return dict(rows.fetchall())
