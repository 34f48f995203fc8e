"""How stored bytes are packed: zstd, bodies with a preset dictionary sampled from the file's own bodies.

Bodies repeat the same field names, provenance tags and phrasing, so a
dictionary cut from real bodies packs each (~4 KB of JSON) to ~15%; zstd
does it at a quarter of zlib's CPU and in well under half of zlib's bytes
(sglang's 28.7k analysed bodies: 1.24 -> 0.38 s, 43 -> 20 MB). The first
large publish into a file samples its bodies into `body_dicts`; later
publishes reuse the newest dictionary (an older file's zlib dictionary
serves zstd as raw content too). A packed body names its dictionary by a
content hash, so readers in any process can find it.

Packed body layout: a type byte, then b"\x03" + 8-byte dictionary id + zstd
frame, or b"\x02" + zstd frame (no dictionary yet). Files written before zstd
hold b"\x01" + id + zlib stream and b"\x00" + zlib stream; bodies stored as
text (older still) read as is. Windows and cached facts are one zstd frame
(`deflate`), or a zlib stream in older files: `inflate` reads both.

zstandard is imported on first use: the hook reads this module in a new
process and pays for it only when it meets zstd bytes.
"""

from __future__ import annotations

import sqlite3
import threading
import zlib

TYPE_CHECKING = False  # not typing's, kept light for the hook

if TYPE_CHECKING:
    from collections.abc import Sequence

#: Bodies a publish needs before it samples a dictionary (fewer make a poor one).
MIN_SAMPLE = 200
#: Dictionary bytes sampled: zstd uses all of them (zlib, for older files, only the last 32 KB).
DICT_SIZE = 112 * 1024
#: zstd level for bodies, windows and cached facts: level 3 packs 10% smaller than 1 for ~1.2x its CPU.
LEVEL = 3
#: The first bytes of every zstd frame: how `inflate` tells one from a zlib stream.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

_ZLIB_PLAIN, _ZLIB_DICT, _PLAIN, _WITH_DICT = b"\x00", b"\x01", b"\x02", b"\x03"
_DICTS: dict[bytes, bytes] = {}   # every dictionary seen by this process, by id
_LOCAL = threading.local()        # zstd (de)compressors are not for concurrent use: one set per thread


def load_dicts(conn: sqlite3.Connection) -> None:
    """Make the file's dictionaries known to `unpack` (cheap: a few rows of at most 112 KB)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'body_dicts'").fetchone()
    if exists:
        _DICTS.update((bytes(i), bytes(d)) for i, d in conn.execute("SELECT id, dict FROM body_dicts"))


def unpack(stored: str | bytes) -> str:
    """The JSON text of a stored body."""
    if stored.__class__ is str:
        return stored
    kind = stored[:1]
    if kind == _WITH_DICT:
        return _decompressor(bytes(stored[1:9])).decompress(stored[9:]).decode()
    if kind == _PLAIN:
        return _decompressor(None).decompress(stored[1:]).decode()
    if kind == _ZLIB_DICT:
        inflater = zlib.decompressobj(zdict=_DICTS[bytes(stored[1:9])])
        return (inflater.decompress(stored[9:]) + inflater.flush()).decode()
    return zlib.decompress(stored[1:]).decode()


def pack_ids(ids: list) -> str | bytes | None:
    """Record ids for a membership row: 8 bytes each when all are 16 lower-case hex digits, else joined by ","
    (None when they cannot be kept there: not all strings, or one holds a ",")."""
    if all(i.__class__ is str and len(i) == 16 for i in ids):
        joined = "".join(ids)
        try:
            packed = bytes.fromhex(joined)
        except ValueError:
            packed = None
        if packed is not None and packed.hex() == joined:   # lower-case hex only: it reads back alike
            return packed
    if all(i.__class__ is str and "," not in i for i in ids):
        return ",".join(ids)
    return None


def unpack_ids(stored: str | bytes) -> list[str]:
    """`pack_ids` back."""
    if stored.__class__ is str:
        return stored.split(",") if stored else []
    return [stored[i:i + 8].hex() for i in range(0, len(stored), 8)]


def deflate(data: bytes) -> bytes:
    """One zstd frame (a source window, a file's cached facts)."""
    return _compressor(None).compress(data)


def inflate(blob: bytes) -> bytes:
    """`deflate`'s bytes back, or a zlib stream's (files written before zstd)."""
    if blob[:4] == ZSTD_MAGIC:
        return _decompressor(None).decompress(blob)
    return zlib.decompress(blob)


def decode_errors() -> tuple[type[Exception], ...]:
    """What unpacking damaged bytes can raise."""
    import zstandard

    return (zlib.error, zstandard.ZstdError, KeyError, UnicodeDecodeError)


def _tables() -> tuple[dict, dict]:
    try:
        return _LOCAL.compressors, _LOCAL.decompressors
    except AttributeError:
        _LOCAL.compressors, _LOCAL.decompressors = {}, {}
        return _LOCAL.compressors, _LOCAL.decompressors


def _dictionary(dict_id: bytes):
    import zstandard

    return zstandard.ZstdCompressionDict(_DICTS[dict_id], dict_type=zstandard.DICT_TYPE_RAWCONTENT)


def _compressor(dict_id: bytes | None):
    table = _tables()[0]
    found = table.get(dict_id)
    if found is None:
        import zstandard

        if dict_id is None:
            found = zstandard.ZstdCompressor(level=LEVEL)
        else:
            dictionary = _dictionary(dict_id)
            dictionary.precompute_compress(level=LEVEL)
            found = zstandard.ZstdCompressor(level=LEVEL, dict_data=dictionary)
        table[dict_id] = found
    return found


def _decompressor(dict_id: bytes | None):
    table = _tables()[1]
    found = table.get(dict_id)
    if found is None:
        import zstandard

        found = table[dict_id] = (zstandard.ZstdDecompressor() if dict_id is None
                                  else zstandard.ZstdDecompressor(dict_data=_dictionary(dict_id)))
    return found


class Packer:
    """Packs the bodies of one publish with the file's newest dictionary (made here if none)."""

    def __init__(self, conn: sqlite3.Connection | None, dictionary: tuple[bytes, bytes] | None = None) -> None:
        """The file's newest dictionary; or, without a connection, the `dictionary` given (pack only)."""
        self._conn = conn
        if conn is not None:
            row = conn.execute("SELECT id, dict FROM body_dicts ORDER BY rowid DESC LIMIT 1").fetchone()
            dictionary = (bytes(row[0]), bytes(row[1])) if row else None
        self._id, self._dict = dictionary if dictionary is not None else (None, None)
        if self._dict is not None:
            _DICTS[self._id] = self._dict

    @property
    def dictionary(self) -> tuple[bytes, bytes] | None:
        """(id, bytes) of the dictionary bodies are packed with, once there is one."""
        return None if self._dict is None else (self._id, self._dict)

    def pack_all(self, texts: Sequence[bytes]) -> list[bytes]:
        self.sample(texts)
        return [self.pack(text) for text in texts]

    def sample(self, texts: Sequence[bytes]) -> None:
        """Make the file's dictionary from these bodies, if it has none and they are enough."""
        if self._dict is None and self._conn is not None and len(texts) >= MIN_SAMPLE:
            self._make_dict(texts)

    def pack(self, text: bytes) -> bytes:
        """One body's JSON (UTF-8) packed."""
        if self._dict is None:
            return _PLAIN + _compressor(None).compress(text)
        return _WITH_DICT + self._id + _compressor(self._id).compress(text)

    def _make_dict(self, texts: Sequence[bytes]) -> None:
        """Evenly spaced bodies, concatenated, the last `DICT_SIZE` bytes kept (zstd raw content)."""
        import hashlib  # only a publish needs it; readers (the hook) import this module

        step = max(1, len(texts) // 64)
        sample = b"".join(texts[::step])[-DICT_SIZE:]
        self._id, self._dict = hashlib.sha256(sample).digest()[:8], sample
        self._conn.execute("INSERT OR IGNORE INTO body_dicts (id, dict) VALUES (?, ?)", (self._id, sample))
        _DICTS[self._id] = sample
