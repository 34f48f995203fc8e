"""Opening index files: migrations, read-only opens, files that are not ours."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from errdex.errors import ErrdexError
from errdex.store import Store, StoreError
from errdex.store.schema import MIGRATIONS
from .store_factories import make_meta, make_record


def _ledger(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT name, applied_at FROM schema_migrations").fetchall()


def test_migrations_are_applied_once_and_recorded(db_path: Path) -> None:
    Store.open(db_path).close()
    first = _ledger(db_path)
    assert [name for name, _ in first] == [name for name, _ in MIGRATIONS]
    assert all(applied_at.endswith("Z") for _, applied_at in first)
    Store.open(db_path).close()
    assert _ledger(db_path) == first


def test_writable_open_uses_wal(db_path: Path) -> None:
    Store.open(db_path).close()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_readonly_open_of_missing_file_says_to_index(tmp_path: Path) -> None:
    missing = tmp_path / "nope.db"
    with pytest.raises(StoreError, match="no index at .*nope.db; run errdex index first"):
        Store.open(missing, readonly=True)
    assert not missing.exists()


def test_store_error_is_an_errdex_error() -> None:
    assert issubclass(StoreError, ErrdexError)


def test_readonly_open_never_migrates(db_path: Path) -> None:
    sqlite3.connect(db_path).close()  # an empty SQLite file
    with pytest.raises(StoreError, match="run errdex index first"):
        Store.open(db_path, readonly=True)
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0


def test_readonly_store_reads_and_refuses_writes(db_path: Path) -> None:
    with Store.open(db_path) as store:
        store.publish(make_meta(), [make_record(1)], [])
    with Store.open(db_path, readonly=True) as store:
        assert [d.name for d in store.datasets()] == ["acme/widgets@1.0"]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.put_cached_facts({"k": b"v"})


@pytest.mark.parametrize("readonly", [True, False])
def test_corrupt_file_is_reported_and_left_untouched(tmp_path: Path, readonly: bool) -> None:
    corrupt = tmp_path / "index.db"
    content = b"this is not a database at all\n" * 200
    corrupt.write_bytes(content)
    with pytest.raises(StoreError, match="not an errdex index.*left untouched"):
        Store.open(corrupt, readonly=readonly)
    assert corrupt.read_bytes() == content


def test_damaged_sqlite_header_is_reported(db_path: Path) -> None:
    with Store.open(db_path) as store:
        store.publish(make_meta(), [make_record(1)], [])
    data = bytearray(db_path.read_bytes())
    data[0:16] = b"garbage garbage!"
    db_path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="not an errdex index"):
        Store.open(db_path)
    assert db_path.read_bytes() == bytes(data)


def test_foreign_sqlite_database_is_not_migrated(db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    with pytest.raises(StoreError, match="SQLite database but not an errdex index"):
        Store.open(db_path)
    with sqlite3.connect(db_path) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert names == ["notes"]
