"""Windows packed elsewhere (the indexing workers) are stored as given, in the one on-disk format."""

import sqlite3
import zlib

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
