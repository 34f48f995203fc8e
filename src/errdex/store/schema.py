"""The store's SQL schema, as migrations applied in order.

Each migration is a named function run in its own transaction together with
the `schema_migrations` row that records it, so a file is always at a known
schema step. Add new steps at the end of `MIGRATIONS`; never edit an applied
one. Read-only opens only check (`pending_migrations`), they never migrate.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

Migration = Callable[[sqlite3.Connection], None]

_LEDGER_SQL = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    name TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
)"""

_INITIAL_SQL = (
    """CREATE TABLE datasets (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        repo TEXT NOT NULL,
        version TEXT NOT NULL,
        kind TEXT NOT NULL,
        sha TEXT,
        dirty INTEGER NOT NULL DEFAULT 0,
        analyzed_sha TEXT,
        url_base TEXT,
        analyzed_at TEXT NOT NULL,
        published_at TEXT NOT NULL,
        file_count INTEGER NOT NULL DEFAULT 0,
        record_count INTEGER NOT NULL DEFAULT 0,
        diagnostic_count INTEGER NOT NULL DEFAULT 0,
        extra TEXT NOT NULL DEFAULT '{}',
        UNIQUE (repo, version)
    )""",
    # One row per distinct record body (dataset-level fields stripped), shared
    # by every dataset holding an identical body. The columns after `body`
    # are copies of body fields, kept for filtering and ordering.
    """CREATE TABLE record_bodies (
        key INTEGER PRIMARY KEY,
        body_hash BLOB NOT NULL UNIQUE,
        body TEXT NOT NULL,
        record_id TEXT NOT NULL,
        slug TEXT,
        error_class TEXT,
        error_type TEXT,
        severity TEXT,
        background_tag TEXT,
        file_path TEXT,
        line_number INTEGER,
        error_message TEXT
    )""",
    "CREATE INDEX record_bodies_by_slug ON record_bodies (slug)",
    """CREATE TABLE dataset_records (
        dataset_id INTEGER NOT NULL,
        body_key INTEGER NOT NULL,
        record_id TEXT NOT NULL,
        PRIMARY KEY (dataset_id, body_key)
    ) WITHOUT ROWID""",
    "CREATE INDEX dataset_records_by_record ON dataset_records (record_id)",
    "CREATE INDEX dataset_records_by_body ON dataset_records (body_key)",
    """CREATE TABLE diagnostics (
        dataset_id INTEGER NOT NULL,
        file_path TEXT NOT NULL,
        reason TEXT NOT NULL,
        detail TEXT NOT NULL
    )""",
    "CREATE INDEX diagnostics_by_dataset ON diagnostics (dataset_id)",
    """CREATE TABLE file_cache (
        key TEXT PRIMARY KEY,
        facts BLOB NOT NULL
    ) WITHOUT ROWID""",
    # rowid = record_bodies.key. Stores its own copy of the (small) text.
    """CREATE VIRTUAL TABLE record_search USING fts5 (
        error_message, error_class, documentation, solutions, tags, file_path,
        tokenize = 'porter unicode61 remove_diacritics 2'
    )""",
)


def _initial(conn: sqlite3.Connection) -> None:
    for statement in _INITIAL_SQL:
        conn.execute(statement)


def _version_commits(conn: sqlite3.Connection) -> None:
    """Commits indexed from a git range: their order and metadata, for history and provenance."""
    conn.execute(
        """CREATE TABLE version_commits (
            repo TEXT NOT NULL,
            sha TEXT NOT NULL,
            committed_at INTEGER NOT NULL,
            author TEXT NOT NULL DEFAULT '',
            subject TEXT NOT NULL DEFAULT '',
            parents TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (repo, sha)
        ) WITHOUT ROWID""")


def _enrichments(conn: sqlite3.Connection) -> None:
    """Model-written prose, validated against the facts, laid over record bodies on read."""
    # One row per (facts hash, model, prompt version), shared by every body with those facts.
    conn.execute(
        """CREATE TABLE enrichments (
            facts_hash TEXT NOT NULL,
            model TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            fields TEXT NOT NULL,
            provenance TEXT NOT NULL,
            rejected TEXT NOT NULL,
            tokens_in INTEGER NOT NULL DEFAULT 0,
            tokens_out INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            PRIMARY KEY (facts_hash, model, prompt_version)
        ) WITHOUT ROWID""")
    # Which enrichment a stored body shows (the latest run's), by body hash.
    conn.execute(
        """CREATE TABLE enrichment_links (
            body_hash BLOB PRIMARY KEY,
            facts_hash TEXT NOT NULL,
            model TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            linked_at TEXT NOT NULL
        ) WITHOUT ROWID""")


def _positions_out_of_bodies(conn: sqlite3.Connection) -> None:
    """Lines and source windows leave the bodies, so a site that only moved shares its body.

    Rows written earlier keep NULL here and their complete bodies: both read alike.
    """
    conn.execute("ALTER TABLE dataset_records ADD COLUMN line_number INTEGER")
    conn.execute("ALTER TABLE dataset_records ADD COLUMN window_key INTEGER")
    conn.execute(
        """CREATE TABLE source_windows (
            key INTEGER PRIMARY KEY,
            hash BLOB NOT NULL UNIQUE,
            text BLOB NOT NULL
        )""")


def _body_dicts(conn: sqlite3.Connection) -> None:
    """Preset dictionaries that new bodies are packed with (see `codec`)."""
    conn.execute("CREATE TABLE body_dicts (id BLOB NOT NULL UNIQUE, dict BLOB NOT NULL)")


def _dataset_state(conn: sqlite3.Connection) -> None:
    """What a re-index needs to redo only the files that changed (see `errdex.delta`), per dataset and part."""
    conn.execute(
        """CREATE TABLE dataset_state (
            dataset_id INTEGER NOT NULL,
            part TEXT NOT NULL,
            blob BLOB NOT NULL,
            PRIMARY KEY (dataset_id, part)
        ) WITHOUT ROWID""")


_SEARCH_COLUMNS = "error_message, error_class, documentation, solutions, tags, file_path"


def _contentless_search(conn: sqlite3.Connection) -> None:
    """FTS5 keeps the index only: the text is in the record bodies (a third of the file was copies of it).

    A contentless table cannot return or delete its text by itself, so deleting a body
    issues FTS5's 'delete' command with the body's own columns (`publish._collect_garbage`).
    """
    conn.execute(
        f"""CREATE VIRTUAL TABLE record_search_new USING fts5 (
            {_SEARCH_COLUMNS}, content = '',
            tokenize = 'porter unicode61 remove_diacritics 2'
        )""")
    conn.execute(f"INSERT INTO record_search_new (rowid, {_SEARCH_COLUMNS})"
                 f" SELECT rowid, {_SEARCH_COLUMNS} FROM record_search")
    conn.execute("DROP TABLE record_search")
    conn.execute("ALTER TABLE record_search_new RENAME TO record_search")


def _related_out_of_bodies(conn: sqlite3.Connection) -> None:
    """`errdex.related` moves to the membership row (`codec.pack_ids`; the body keeps a null
    in its place): ranking follows the rest of the dataset, so it changes from one version to the
    next far more often than the site does, and a body that differed only there was stored again.

    Rows written earlier keep NULL here and their complete bodies: both read alike.
    """
    conn.execute("ALTER TABLE dataset_records ADD COLUMN related TEXT")


def _body_prekeys(conn: sqlite3.Connection) -> None:
    """Which stored body a record's inputs gave: a later version whose record had the same inputs
    reused the body without completing and encoding it again (dropped by 0010).

    No index on `body_key`: only dropping bodies reads by it, in one scan (issue 7 counts bytes).
    """
    conn.execute(
        """CREATE TABLE body_prekeys (
            prekey BLOB PRIMARY KEY,
            body_key INTEGER NOT NULL
        ) WITHOUT ROWID""")


def _no_body_prekeys(conn: sqlite3.Connection) -> None:
    """The prose left the bodies (`analyze.fields`): what a record's completion adds is cheap
    now, and looking its inputs up cost a publish more than completing it (sglang 0.5.23 over
    0.5.22: publish 4.1-4.8 s wall with the lookup, 2.0-2.3 s without)."""
    conn.execute("DROP TABLE IF EXISTS body_prekeys")


def _record_ids_from_bodies(conn: sqlite3.Connection) -> None:
    """A membership row no longer repeats its body's record id: the id is part of the body (a body
    with another id is another body), so it is found through `record_bodies` instead. Each
    version of a many-version index repeated every id, and its index grew out of order: a fifth
    of what the rows of ten sglang releases took (issue 7 counts bytes).
    """
    conn.execute("DROP INDEX IF EXISTS dataset_records_by_record")
    conn.execute("ALTER TABLE dataset_records DROP COLUMN record_id")
    conn.execute("CREATE INDEX record_bodies_by_record ON record_bodies (record_id)")


#: Every migration, in the order it is applied. Names are recorded in the file.
MIGRATIONS: tuple[tuple[str, Migration], ...] = (
    ("0001_initial", _initial),
    ("0002_version_commits", _version_commits),
    ("0003_enrichments", _enrichments),
    ("0004_positions_out_of_bodies", _positions_out_of_bodies),
    ("0005_body_dicts", _body_dicts),
    ("0006_dataset_state", _dataset_state),
    ("0007_contentless_search", _contentless_search),
    ("0008_related_out_of_bodies", _related_out_of_bodies),
    ("0009_body_prekeys", _body_prekeys),
    ("0010_no_body_prekeys", _no_body_prekeys),
    ("0011_record_ids_from_bodies", _record_ids_from_bodies),
)


def applied_migrations(conn: sqlite3.Connection) -> set[str]:
    """Names already recorded; empty when the ledger table does not exist."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return set()
    return {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}


def pending_migrations(conn: sqlite3.Connection) -> list[str]:
    """Registered migrations this file has not had yet."""
    done = applied_migrations(conn)
    return [name for name, _ in MIGRATIONS if name not in done]


def has_foreign_tables(conn: sqlite3.Connection) -> bool:
    """True for a SQLite file that holds tables but was never an errdex index."""
    if applied_migrations(conn):
        return False
    row = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchone()
    return row[0] > 0


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply every pending migration, each in its own write transaction.

    The pending check is repeated inside the transaction so two processes
    opening a new file at once apply each step exactly once.
    Returns the names applied by this call.
    """
    conn.execute(_LEDGER_SQL)
    applied: list[str] = []
    for name, step in MIGRATIONS:
        if name in applied_migrations(conn):
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if name not in applied_migrations(conn):
                step(conn)
                conn.execute(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    (name, utc_now()),
                )
                applied.append(name)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return applied


def utc_now() -> str:
    """ISO-8601 UTC with milliseconds, as the seed's `datasetVersion`."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
