"""Windows packed elsewhere (the indexing workers) are stored as given, in the one on-disk format."""

import sqlite3
import zlib

import pytest

from errdex.store.windows import WindowWriter, pack_window, window_text


def _conn(tmp_path):
    conn = sqlite3.connect(tmp_path / "w.db")
    conn.execute("CREATE TABLE source_windows (key INTEGER PRIMARY KEY, hash BLOB UNIQUE, text BLOB)")
    return conn


def test_pack_window_is_what_the_writer_stores(tmp_path):
    conn = _conn(tmp_path)
    text = "def f(x):\n    raise ValueError(x)\n" * 20
    [key] = WindowWriter(conn).keys([text])
    digest, blob = pack_window(text)
    assert conn.execute("SELECT hash, text FROM source_windows WHERE key = ?", (key,)).fetchone() == (digest, blob)
    assert window_text(blob) == text


def test_packed_windows_are_inserted_as_given_and_others_packed_here(tmp_path):
    conn = _conn(tmp_path)
    given, other = "raise KeyError('given')\n" * 30, "raise KeyError('other')\n" * 30
    digest, _ = pack_window(given)
    marked = zlib.compress(given.encode(), 9)  # a different, still readable, packing: proves no recompression
    keys = WindowWriter(conn, {given: (digest, marked)}).keys([given, None, other, given])
    assert keys[1] is None and keys[0] == keys[3] != keys[2]
    stored = dict(conn.execute("SELECT key, text FROM source_windows").fetchall())
    assert stored[keys[0]] == marked and window_text(stored[keys[0]]) == given
    assert stored[keys[2]] == pack_window(other)[1]
    # A writer without packed windows takes nothing as given.
    assert WindowWriter(conn).keys([other]) == [keys[2]]


def test_a_window_marked_stored_but_gone_is_packed_from_its_text(tmp_path):
    from errdex.store.windows import STORED

    conn = _conn(tmp_path)
    text = "raise KeyError('gone')\n" * 30
    digest, blob = pack_window(text)
    [key] = WindowWriter(conn).keys_packed([(digest, STORED)], lambda i: text)
    assert conn.execute("SELECT hash, text FROM source_windows WHERE key = ?", (key,)).fetchone() == (digest, blob)
    other = "raise KeyError('unknown')\n" * 30
    with pytest.raises(ValueError):
        WindowWriter(conn).keys_packed([(pack_window(other)[0], STORED)])


def test_publish_stores_a_window_marked_stored_that_the_index_lacks(tmp_path):
    """Another writer may drop a window between the pipeline's lookup and the publish."""
    from errdex.store import Store
    from errdex.store.windows import STORED

    from .store_factories import make_meta, make_record

    record = make_record(1)
    record["sourceCode"] = "def f():\n    raise KeyError('x')\n"
    digest = pack_window(record["sourceCode"])[0]
    with Store.open(tmp_path / "x.db") as store:
        store.publish(make_meta("1.0"), [record], [], packed_windows={record["sourceCode"]: (digest, STORED)})
        [got] = list(store.iter_records())
    assert got["sourceCode"] == record["sourceCode"]
