"""Versions indexed into one file store exactly what one file per version stores, and a site
that did not change between them shares its body; an old file's reuse table goes (0010)."""

import sqlite3

from errdex.pipeline import index_source
from errdex.store import Store
from errdex.store.schema import MIGRATIONS, migrate

from .conftest import SAMPLE, write_sample


def _versions(tmp_path, db_of) -> None:
    """Index three versions of the sample (the third rewords one message in core.py)."""
    src = write_sample(tmp_path / "src", SAMPLE)
    for version in ("1", "2", "3"):
        if version == "3":
            core = src / "widgets/core.py"
            core.write_text(core.read_text().replace("negative size {n}", "size {n} is negative"))
        index_source(str(src), db_of(version), jobs=1, repo="acme/widgets", version=version)


def _records(db, version):
    with Store.open(db, readonly=True) as store:
        out = {}
        for r in store.iter_records(f"acme/widgets@{version}"):
            r.pop("analyzedAt")
            out[r["id"]] = r
        return out


def test_one_file_stores_what_separate_files_store(tmp_path):
    shared = tmp_path / "shared.db"
    _versions(tmp_path, lambda version: shared)
    _versions(tmp_path / "alone", lambda version: tmp_path / f"alone-{version}.db")
    for version in ("1", "2"):
        assert _records(shared, version) == _records(tmp_path / f"alone-{version}.db", version)
    # Version 3 rewords a site: one file knows it from version 2 and keeps its id (issue 7);
    # `related` lists name that id. Everything else is as one file of its own stores it.
    mine, alone = _records(shared, "3"), _records(tmp_path / "alone-3.db", "3")
    reworded = {r["id"] for r in mine.values() if r["errorMessage"] == "size {n} is negative"}
    assert reworded <= set(_records(shared, "2")) and not reworded & set(alone)
    by_message = {r["errorMessage"]: r for r in alone.values()}
    for r in mine.values():
        other = by_message[r["errorMessage"]]
        r.pop("id"), other.pop("id")
        r["errdex"].pop("related"), other["errdex"].pop("related")
        r["errdex"].pop("identity", None), other["errdex"].pop("identity", None)
        assert r == other
    conn = sqlite3.connect(shared)
    bodies = conn.execute("SELECT count(*) FROM record_bodies").fetchone()[0]
    members = conn.execute("SELECT count(*) FROM dataset_records").fetchone()[0]
    conn.close()
    per_version = len(_records(shared, "3"))
    assert members == 3 * per_version
    assert bodies == per_version + 1   # versions 1 and 2 share every body; 3 adds the reworded site's


def test_an_older_file_loses_its_reuse_table(tmp_path):
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    migrate_until = [name for name, _ in MIGRATIONS].index("0009_body_prekeys")
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for name, step in MIGRATIONS[:migrate_until + 1]:
        step(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, '')", (name,))
    conn.commit()
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'body_prekeys'").fetchone()[0] == 1
    assert migrate(conn) == [name for name, _ in MIGRATIONS[migrate_until + 1:]]
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'body_prekeys'").fetchone()[0] == 0
    conn.close()
