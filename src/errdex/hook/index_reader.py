"""The hook's read side of the index: datasets and the record at a file and line, in plain SQL.

The full `errdex.store` package (and the `errdex.models` dataclasses it
imports) costs a new process more than the hook's whole 50 ms budget, yet
the hook needs two answers only: which datasets exist, and which record's
statement spans line N of file F in dataset D. Both are a few rows of
`sqlite3` here, against the store's schema (`store/schema.py`), read-only.
A record with model-written prose laid over it (an `errdex enrich` run) is
read through `Store` after all, so the hook never shows less than `show`.

Storage formats are recognised by the store's applied migrations: before
`0004_positions_out_of_bodies` bodies are whole JSON records; from it on the
line lives in the membership row, positions in the body are relative to it,
the source window is a separate compressed text and a body may be packed bytes (`store.codec`). A
file with any migration this module does not know is read through `Store`
(correct, only slower), and a test compares both readers record by record.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import NamedTuple

from errdex.seed import in_seed_order
from errdex.store import codec

#: Migrations whose storage format `record_at` reads itself; POSITIONS marks the second format.
KNOWN_MIGRATIONS = frozenset({"0001_initial", "0002_version_commits", "0003_enrichments",
                              "0004_positions_out_of_bodies", "0005_body_dicts", "0006_dataset_state",
                              "0007_contentless_search", "0008_related_out_of_bodies",
                              "0009_body_prekeys", "0010_no_body_prekeys",   # publishing's table: same format
                              "0011_record_ids_from_bodies"})   # `record_at` reads no id column
POSITIONS = "0004_positions_out_of_bodies"
RELATED = "0008_related_out_of_bodies"   # errdex.related in the membership row (NULL: in the body)
#: Fields kept relative to the line in the second format (`store.bodies.RELATIVE_FIELDS`).
RELATIVE_FIELDS = ("sourceCodeStart", "sourceCodeEnd")


class IndexUnreadable(Exception):
    """The file is not an errdex index (not SQLite, damaged, or another program's database)."""


class DatasetRow(NamedTuple):
    """The columns of one `datasets` row the hook needs."""

    id: int
    name: str              # repo@version
    kind: str
    url_base: str | None
    analyzed_sha: str | None
    analyzed_at: str
    root: str | None       # the indexed folder, for folder and git datasets


class IndexView:
    """One read-only connection to the index; the datasets it holds read once."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self.datasets: dict[str, DatasetRow] = {}
        self.migrations: frozenset[str] = frozenset()
        self._conn: sqlite3.Connection | None = None
        self._dicts_loaded = False
        if db_path.is_file():
            self._conn = _connect(db_path)
            self.datasets = _read_datasets(self._conn, db_path)
            self.migrations = _applied(self._conn) if self.datasets else frozenset()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> IndexView:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def refresh(self) -> None:
        """Read the datasets again (after this process indexed one)."""
        self.close()
        self.__init__(self.db_path)

    def roots(self) -> dict[str, str]:
        """{indexed folder: dataset name}; later publications win, as in `Store.datasets()`."""
        return {row.root: row.name for row in self.datasets.values() if row.root}

    def record_at(self, dataset: str, rel_path: str, line: int) -> dict | None:
        """The record of `dataset` whose statement spans `line` of `rel_path` (first by line)."""
        row = self.datasets.get(dataset)
        if row is None or self._conn is None:
            return None
        if not self.migrations <= KNOWN_MIGRATIONS:
            return self._at_through_store(dataset, rel_path, line)
        positions = POSITIONS in self.migrations
        if not self._dicts_loaded:
            codec.load_dicts(self._conn)   # packed bodies name their dictionary
            self._dicts_loaded = True
        at = "coalesce(dr.line_number, b.line_number)" if positions else "b.line_number"
        extra = "dr.line_number, dr.window_key" if positions else "NULL, NULL"
        extra += ", dr.related" if RELATED in self.migrations else ", NULL"
        try:
            found = self._conn.execute(
                f"SELECT b.body, b.body_hash, {extra} FROM dataset_records dr"
                " JOIN record_bodies b ON b.key = dr.body_key"
                f" WHERE dr.dataset_id = ? AND b.file_path = ? AND {at} <= ? ORDER BY {at}, b.key",
                (row.id, rel_path, line)).fetchall()
            for stored, digest, site_line, window_key, related in found:
                body = _site(stored, site_line)
                if related is not None and body.get("errdex").__class__ is dict:
                    body["errdex"]["related"] = codec.unpack_ids(related)
                start = body.get("lineNumber") or 0
                end = (body.get("errdex") or {}).get("endLine") or start
                if start <= line <= max(start, end):
                    if self._enriched(digest):
                        return self._through_store(body.get("id"), dataset)
                    if window_key is not None:
                        body["sourceCode"] = self._window(window_key)
                    return restore(body, row)
        except (sqlite3.DatabaseError, *codec.decode_errors()) as exc:
            raise _unreadable(self.db_path, exc) from exc
        return None

    def _window(self, key: int) -> str | None:
        found = self._conn.execute("SELECT text FROM source_windows WHERE key = ?", (key,)).fetchone()
        return None if found is None else codec.inflate(found[0]).decode()

    def _at_through_store(self, dataset: str, rel_path: str, line: int) -> dict | None:
        """`record_at` for a storage format this module does not know (a newer store)."""
        import re

        from errdex.store import Store

        glob = re.sub(r"([\[\]*?])", r"[\1]", rel_path)
        with Store.open(self.db_path, readonly=True) as store:
            for record in store.iter_records(dataset, path_glob=glob):
                start = record.get("lineNumber") or 0
                end = (record.get("errdex") or {}).get("endLine") or start
                if start <= line <= max(start, end):
                    return record
        return None

    def _enriched(self, digest: bytes) -> bool:
        try:
            return self._conn.execute("SELECT 1 FROM enrichment_links WHERE body_hash = ?",
                                      (digest,)).fetchone() is not None
        except sqlite3.OperationalError:   # an index from before enrichments existed
            return False

    def _through_store(self, record_id: str, dataset: str) -> dict | None:
        from errdex.store import Store

        with Store.open(self.db_path, readonly=True) as store:
            found = store.get_record(record_id, dataset)
        return found["record"] if found else None


def _connect(db_path: Path) -> sqlite3.Connection:
    try:
        return sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0,
                               check_same_thread=False)
    except sqlite3.Error as exc:
        raise _unreadable(db_path, exc) from exc


def _read_datasets(conn: sqlite3.Connection, db_path: Path) -> dict[str, DatasetRow]:
    """Every dataset, oldest publication first (so later ones win wherever names collide)."""
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "datasets" not in tables:
            if tables - {"sqlite_sequence"}:
                raise IndexUnreadable(f"{db_path} is a SQLite database but not an errdex index")
            return {}          # an empty file: nothing indexed yet
        rows = conn.execute(
            "SELECT id, repo, version, kind, url_base, analyzed_sha, analyzed_at, extra FROM datasets"
            " ORDER BY published_at, id").fetchall()
    except sqlite3.DatabaseError as exc:
        raise _unreadable(db_path, exc) from exc
    out: dict[str, DatasetRow] = {}
    for id_, repo, version, kind, url_base, sha, analyzed_at, extra in rows:
        root = None
        if kind in ("folder", "git") and extra and extra != "{}":
            root = (json.loads(extra) or {}).get("root") or None
        name = f"{repo}@{version}"
        out[name] = DatasetRow(id_, name, kind, url_base, sha, analyzed_at, str(root) if root else None)
    return out


def _applied(conn: sqlite3.Connection) -> frozenset[str]:
    try:
        return frozenset(name for (name,) in conn.execute("SELECT name FROM schema_migrations"))
    except sqlite3.OperationalError:
        return frozenset({"unknown"})     # no ledger: let the store decide what this file is


def _site(stored: str | bytes, line: int | None) -> dict:
    """A stored body as a dict with its line and absolute positions (`store.bodies.restore_site`)."""
    body = json.loads(codec.unpack(stored))
    if line is None:            # the first format, or a record without a line
        return body
    body["lineNumber"] = line
    for name in RELATIVE_FIELDS:
        if body.get(name).__class__ is int:
            body[name] += line
    extra = body.get("errdex")
    if extra.__class__ is dict and extra.get("endLine").__class__ is int:
        extra["endLine"] += line
    if extra.__class__ is dict and extra.get("raisedFirstBy").__class__ is list:   # `bodies._shifted`
        extra["raisedFirstBy"] = [{**c, "line": c["line"] + line} if c.get("line").__class__ is int else c
                                  for c in extra["raisedFirstBy"]]
    return body


def _unreadable(db_path: Path, exc: Exception) -> IndexUnreadable:
    return IndexUnreadable(f"{db_path} is not a readable errdex index ({exc}); it was left untouched")


def restore(body: dict, dataset: DatasetRow) -> dict:
    """The full record from a stored body, as the store gives it (`errdex.seed`, without the store),
    its prose and code fields written from its facts (`analyze.fields`)."""
    from errdex.analyze.fields import fill_prose   # ~18 ms of imports, after the record is found

    fill_prose(body)
    return in_seed_order(body, dataset.url_base, dataset.analyzed_sha, dataset.analyzed_at)
