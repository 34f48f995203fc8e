"""The second error's fast path: cached owners, plain-SQL records, plain text off a terminal."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess

import pytest

from errdex.hook.index_reader import IndexUnreadable, IndexView

from .conftest import PY

#: Modules the second explanation in a new process must not import (each costs it 5-80 ms).
#: (`errdex.store` itself is a light package; its body codec is what the hook reads with.)
HEAVY = ("importlib.metadata", "rich", "rich.console", "errdex.store.store", "errdex.store.connection",
         "errdex.store.publish", "errdex.store.queries", "errdex.models",
         "errdex.match", "errdex.pipeline", "dataclasses", "platformdirs", "traceback")

PROBE = r"""
import io, json, sys
from packaging.version import Version
try:
    Version("not a version")
except Exception as e:
    exc = e
from errdex.hook.install import report_exception
before = set(sys.modules)
sink = io.StringIO()
report_exception(exc, sink)
print(json.dumps({"text": sink.getvalue(), "new": sorted(set(sys.modules) - before)}))
"""


def _probe(home) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRDEX_")}
    env["ERRDEX_HOME"] = str(home)
    done = subprocess.run([PY, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_process_imports_nothing_heavy(home_copy):
    first = _probe(home_copy)
    assert "importlib.metadata" in first["new"]          # the owner had to be found once
    assert (home_copy / "hook-owners.json").is_file()
    second = _probe(home_copy)
    assert "packaging/version.py:" in second["text"] and "'not a version'" in second["text"]
    assert second["text"] == first["text"]
    assert [m for m in HEAVY if m in second["new"]] == []
    assert "╭" not in second["text"]                      # not a terminal: no panel drawing


def test_damaged_owner_cache_is_ignored(home_copy):
    (home_copy / "hook-owners.json").write_text("{not json")
    found = _probe(home_copy)
    assert "packaging/version.py:" in found["text"]
    assert json.loads((home_copy / "hook-owners.json").read_text())["format"] == 1


def test_record_at_equals_the_store_record(indexed_home):
    from errdex.store import Store

    db = indexed_home / "errdex.db"
    with Store.open(db, readonly=True) as store:
        dataset = store.datasets()[0].name
        records = list(store.iter_records(dataset))
    assert len(records) > 10
    with IndexView(db) as view:
        for record in records:
            found = view.record_at(dataset, record["filePath"], record["lineNumber"])
            first_at_line = next(r for r in records if r["filePath"] == record["filePath"]
                                 and r["lineNumber"] <= record["lineNumber"]
                                 <= max(r["lineNumber"], r["errdex"].get("endLine") or 0))
            assert found == first_at_line
            assert list(found) == list(first_at_line)     # same field order too
        assert view.record_at(dataset, "packaging/no_such_file.py", 10) is None
        assert view.record_at("nobody@0", records[0]["filePath"], records[0]["lineNumber"]) is None


def test_enriched_record_is_read_through_the_store(home_copy):
    from errdex.store import Store

    db = home_copy / "errdex.db"
    with Store.open(db, readonly=True) as store:
        dataset = store.datasets()[0].name
        record = next(store.iter_records(dataset))
    with sqlite3.connect(db) as conn:
        (body_hash,) = conn.execute("SELECT b.body_hash FROM dataset_records dr JOIN record_bodies b"
                                    " ON b.key = dr.body_key WHERE b.record_id = ?", (record["id"],)).fetchone()
        conn.execute("INSERT INTO enrichments VALUES ('f', 'm', 'p', ?, ?, '{}', 0, 0, 'now')",
                     (json.dumps({"documentation": "model prose"}), json.dumps({"documentation": "model:m"})))
        conn.execute("INSERT INTO enrichment_links VALUES (?, 'f', 'm', 'p', 'now')", (body_hash,))
    with IndexView(db) as view:
        found = view.record_at(dataset, record["filePath"], record["lineNumber"])
    assert found["id"] == record["id"]
    assert found["documentation"] == "model prose" != record["documentation"]
    assert found["errdex"]["provenance"]["documentation"] == "model:m"


def test_unknown_storage_format_is_read_through_the_store(home_copy, indexed_home):
    db = home_copy / "errdex.db"
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', 'now')")
    from errdex.store import Store

    with Store.open(indexed_home / "errdex.db", readonly=True) as store:
        dataset = store.datasets()[0].name
        record = list(store.iter_records(dataset))[-1]
    with IndexView(indexed_home / "errdex.db") as known:
        fast = known.record_at(dataset, record["filePath"], record["lineNumber"])
    with IndexView(db) as view:
        assert "9999_from_the_future" in view.migrations
        assert view.record_at(dataset, record["filePath"], record["lineNumber"]) == fast is not None


def test_foreign_sqlite_file_is_refused(tmp_path):
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE notes (x)")
    with pytest.raises(IndexUnreadable, match="not an errdex index"):
        IndexView(db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("notes",)]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _report(stream, home, monkeypatch):
    from errdex.hook.install import report_exception
    from packaging.version import Version

    monkeypatch.setenv("ERRDEX_HOME", str(home))
    monkeypatch.delenv("ERRDEX_DISABLE", raising=False)
    try:
        Version("bad for a terminal")
    except Exception as exc:   # noqa: BLE001 - the exception under explanation
        report_exception(exc, stream)
    return stream.getvalue()


def test_terminal_gets_a_panel_and_a_pipe_plain_text(home_copy, monkeypatch):
    panel = _report(_Terminal(), home_copy, monkeypatch)
    plain = _report(io.StringIO(), home_copy, monkeypatch)
    assert "╭" in panel and "╭" not in plain
    for text in (panel, plain):
        assert "packaging/version.py:" in text and "'bad for a terminal'" in text
