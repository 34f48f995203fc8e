"""The search index holds no copy of the text: deleting a body deletes exactly its indexed words."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from errdex.store import Store
from .store_factories import make_meta, make_record


def _rowids(db_path: Path, word: str) -> list[int]:
    with sqlite3.connect(db_path) as conn:
        return [r[0] for r in conn.execute("SELECT rowid FROM record_search WHERE record_search MATCH ?", (word,))]


def test_replaced_and_removed_bodies_leave_no_words_behind(store: Store, db_path: Path) -> None:
    first = [make_record(1, message="flux capacitor {x} overheated"), make_record(2, message="warp coil {x} cracked")]
    store.publish(make_meta("1.0"), first, [])
    assert len(_rowids(db_path, "capacitor")) == 1
    second = [make_record(1, message="flux condenser {x} overheated"), make_record(2, message="warp coil {x} cracked")]
    store.publish(make_meta("1.0"), second, [])                  # the same dataset again: body 1 is replaced
    assert _rowids(db_path, "capacitor") == []
    assert len(_rowids(db_path, "condenser")) == 1 and len(_rowids(db_path, "overheated")) == 1
    assert [h["record"]["errorMessage"] for h in store.search("condenser")] == ["flux condenser {x} overheated"]
    store.remove_dataset("acme/widgets@1.0")
    assert _rowids(db_path, "condenser") == _rowids(db_path, "warp") == _rowids(db_path, "widgets") == []
    # a later body may reuse a freed key: it must not inherit the old words
    store.publish(make_meta("2.0"), [make_record(3, message="tachyon pulse {x} lost")], [])
    assert _rowids(db_path, "capacitor") == _rowids(db_path, "condenser") == []
    assert [h["record"]["errorMessage"] for h in store.search("tachyon")] == ["tachyon pulse {x} lost"]
    with sqlite3.connect(db_path) as conn:
        conn.execute("INSERT INTO record_search (record_search) VALUES ('integrity-check')")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "record_search_data" in tables and "record_search_content" not in tables
