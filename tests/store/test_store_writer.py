"""The publish's writer thread: inserts in order, errors surface in the publisher, a failed publish rolls back."""

from __future__ import annotations

import sqlite3

import pytest

from errdex.store import Store, publish
from errdex.store.writer import StatementWriter

from .store_factories import make_meta, make_record


def _conn(path):
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("CREATE TABLE t (n INTEGER PRIMARY KEY)")
    return conn


def test_statements_run_in_order_and_idle_waits_for_them(tmp_path):
    conn = _conn(tmp_path / "w.db")
    conn.execute("BEGIN")
    with StatementWriter(conn, depth=2) as writer:
        for start in range(0, 5000, 500):
            writer.run("INSERT INTO t (n) VALUES (?)", [(n,) for n in range(start, start + 500)])
        writer.idle()
        assert conn.execute("SELECT count(*), max(n) FROM t").fetchone() == (5000, 4999)
        writer.run("DELETE FROM t WHERE n = ?", [(0,)])
    conn.execute("COMMIT")
    assert conn.execute("SELECT count(*), min(n) FROM t").fetchone() == (4999, 1)


def test_an_error_surfaces_in_the_caller_and_stops_later_statements(tmp_path):
    conn = _conn(tmp_path / "w.db")
    writer = StatementWriter(conn)
    writer.run("INSERT INTO t (n) VALUES (?)", [(1,), (2,)])
    writer.run("INSERT INTO t (n) VALUES (?)", [(2,)])          # duplicate key
    writer.run("INSERT INTO t (n) VALUES (?)", [(3,)])
    with pytest.raises(sqlite3.IntegrityError):
        writer.close()
    assert [n for (n,) in conn.execute("SELECT n FROM t ORDER BY n")] == [1, 2]


def test_a_publish_whose_inserts_fail_leaves_the_file_as_it_was(db_path, monkeypatch):
    with Store.open(db_path) as store:
        store.publish(make_meta("1.0"), [make_record(n) for n in range(50)], [])
        before = list(store.iter_records())
        monkeypatch.setattr(publish, "_INSERT_MEMBER", publish._INSERT_MEMBER.replace("related", "no_such_column"))
        with pytest.raises(sqlite3.OperationalError, match="no_such_column"):
            store.publish(make_meta("2.0"), [make_record(1000 + n) for n in range(5000)], [])
        assert [d.version for d in store.datasets()] == ["1.0"]
        assert list(store.iter_records()) == before
        assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        monkeypatch.undo()
        store.publish(make_meta("2.0"), [make_record(1000 + n) for n in range(5000)], [])   # the file still takes writes
        assert sorted(d.version for d in store.datasets()) == ["1.0", "2.0"]
