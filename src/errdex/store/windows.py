"""Source windows (`sourceCode`) stored once per distinct text, compressed (`codec.deflate`).

A window is ~2 KB of source around a site; most of them are identical from
one version to the next even when the site's line moved, so they are kept
out of the record bodies and referenced by key from the membership rows.
Windows no membership row refers to any more are dropped with the datasets.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Mapping, Sequence

from errdex.store.codec import deflate, inflate

#: Stored bytes of a window the caller found already stored (`Store.stored_windows`): not carried around.
#: Should it be gone by the time the publish runs (another writer dropped it), it is packed again.
STORED = b""
_INSERT = "INSERT INTO source_windows (key, hash, text) VALUES (?, ?, ?)"


def pack_window(text: str) -> tuple[bytes, bytes]:
    """(sha256 digest, stored bytes) of one window: what `WindowWriter` keys and inserts."""
    data = text.encode()
    return hashlib.sha256(data).digest(), deflate(data)


class WindowWriter:
    """Keys for windows inside one publish transaction, inserting the texts not yet stored."""

    def __init__(self, conn: sqlite3.Connection, packed: Mapping[str, tuple[bytes, bytes]] | None = None, *,
                 run: Callable[[str, list], None] | None = None, sync: Callable[[], None] | None = None) -> None:
        """`packed`: windows already hashed and compressed (by the indexing workers, with
        `pack_window`), by text; the others are packed here. `run(sql, rows)` executes the
        inserts (default: now; a publish hands them to its `StatementWriter`), and `sync()`
        is called before this writer reads the file itself."""
        self._conn = conn
        self._packed = packed or {}
        self._run = run or conn.executemany
        self._sync = sync or (lambda: None)
        self._next_key = conn.execute("SELECT coalesce(max(key), 0) + 1 FROM source_windows").fetchone()[0]
        self._stored_before = self._next_key > 1   # else every known window is one this writer inserted
        self._known: dict[bytes, int] = {}

    def keys(self, windows: Sequence[str | None]) -> list[int | None]:
        """One key per window (None stays None), in order."""
        packed = [None if w is None else self._packed.get(w) for w in windows]
        digests = [p[0] if p is not None else None if w is None else hashlib.sha256(w.encode()).digest()
                   for w, p in zip(windows, packed)]
        self._load_known([d for d in digests if d is not None and d not in self._known])
        rows: list[tuple[int, bytes, bytes]] = []
        keys: list[int | None] = []
        for window, digest, pack in zip(windows, digests, packed):
            if window is None or digest is None:
                keys.append(None)
                continue
            key = self._known.get(digest)
            if key is None:
                key = self._known[digest] = self._next_key
                self._next_key += 1
                blob = pack[1] if pack is not None else deflate(window.encode())
                rows.append((key, digest, blob))
            keys.append(key)
        self._run(_INSERT, rows)
        return keys

    def keys_packed(self, packs: Sequence[tuple[bytes, bytes] | None],
                    text_of: Callable[[int], str | None] | None = None) -> list[int | None]:
        """`keys` for windows already packed (`pack_window`), in order; None stays None.

        `text_of(i)`: the text of window i, for a pack marked `STORED` that is not stored (any more).
        """
        self._load_known([p[0] for p in packs if p is not None and p[0] not in self._known])
        rows: list[tuple[int, bytes, bytes]] = []
        keys: list[int | None] = []
        for i, pack in enumerate(packs):
            if pack is None:
                keys.append(None)
                continue
            key = self._known.get(pack[0])
            if key is None:
                blob = pack[1]
                if blob == STORED:
                    text = text_of(i) if text_of is not None else None
                    if text is None:
                        raise ValueError("a window marked stored is not in the index and its text is unknown")
                    blob = deflate(text.encode())
                key = self._known[pack[0]] = self._next_key
                self._next_key += 1
                rows.append((key, pack[0], blob))
            keys.append(key)
        self._run(_INSERT, rows)
        return keys

    def _load_known(self, digests: list[bytes]) -> None:
        if self._stored_before and digests:
            self._sync()
            self._known.update(stored_keys(self._conn, digests))


def stored_keys(conn: sqlite3.Connection, digests: Sequence[bytes]) -> dict[bytes, int]:
    """Key of each of these window digests (sha256) the file stores already."""
    unique = list(dict.fromkeys(digests))
    found: dict[bytes, int] = {}
    for start in range(0, len(unique), 500):
        part = unique[start:start + 500]
        found.update(conn.execute(
            f"SELECT hash, key FROM source_windows WHERE hash IN ({','.join('?' * len(part))})", part).fetchall())
    return found


def window_text(stored: bytes | None) -> str | None:
    """A stored window back as text."""
    return None if stored is None else inflate(stored).decode()


def collect_windows(conn: sqlite3.Connection) -> None:
    """Drop windows no membership row refers to (after datasets were deleted)."""
    conn.execute(
        "DELETE FROM source_windows WHERE key NOT IN"
        " (SELECT window_key FROM dataset_records WHERE window_key IS NOT NULL)")
