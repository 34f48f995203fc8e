"""Packed bytes in every layout a file may hold: zstd now, zlib from files written before it."""

from __future__ import annotations

import json
import sqlite3
import zlib

import pytest

from errdex.store import Store, codec
from errdex.store.bodies import encode_body
from errdex.store.windows import window_text

from .test_store_positions import _site, make_meta

TEXT = json.dumps({"errorMessage": "M={m} outside [1, 512]", "solutions": ["keep M <= 512"] * 8})
DICT = (TEXT * 40).encode()[-32 * 1024:]
DICT_ID = b"olddict1"


@pytest.fixture(autouse=True)
def _fresh_dicts():
    codec._DICTS.clear()
    yield
    codec._DICTS.clear()


def _zlib_with_dict(text: str) -> bytes:
    deflater = zlib.compressobj(2, zlib.DEFLATED, zlib.MAX_WBITS, 6, zdict=DICT)
    return b"\x01" + DICT_ID + deflater.compress(text.encode()) + deflater.flush()


def test_every_body_layout_unpacks_to_the_same_text():
    codec._DICTS[DICT_ID] = DICT
    packer = codec.Packer(None, (DICT_ID, DICT))
    layouts = {
        "text": TEXT,
        "zlib": b"\x00" + zlib.compress(TEXT.encode()),
        "zlib+dict": _zlib_with_dict(TEXT),
        "zstd+dict": packer.pack(TEXT.encode()),
        "zstd": codec.Packer(None).pack(TEXT.encode()),
    }
    assert layouts["zstd+dict"][:1] == b"\x03" and layouts["zstd"][:1] == b"\x02"
    assert len(layouts["zstd+dict"]) < len(layouts["zstd"])       # the dictionary is used
    assert {name: codec.unpack(blob) for name, blob in layouts.items()} == dict.fromkeys(layouts, TEXT)


def test_windows_and_facts_read_in_both_formats():
    data = ("def f(x):\n    raise ValueError(x)\n" * 30).encode()
    assert codec.deflate(data)[:4] == codec.ZSTD_MAGIC
    assert codec.inflate(codec.deflate(data)) == data == codec.inflate(zlib.compress(data, 1))
    assert window_text(zlib.compress(data, 1)) == data.decode()


def test_damaged_bytes_raise_a_decode_error():
    with pytest.raises(codec.decode_errors()):
        codec.inflate(codec.ZSTD_MAGIC + b"\x00garbage")
    with pytest.raises(codec.decode_errors()):
        codec.unpack(b"\x03" + b"nosuchid" + b"whatever")


def test_a_file_with_an_older_zlib_dictionary_packs_new_bodies_with_it(tmp_path):
    db = tmp_path / "old.db"
    with Store.open(db):
        pass
    with sqlite3.connect(db) as conn:   # what an errdex before zstd left: its 32 KB zlib dictionary
        conn.execute("INSERT INTO body_dicts (id, dict) VALUES (?, ?)", (DICT_ID, DICT))
    records = [_site(n, path=f"pkg/m{n % 7}.py") for n in range(50)]
    with Store.open(db) as store:
        store.publish(make_meta("2.0"), records, [])
    with sqlite3.connect(db) as conn:
        blobs = [row[0] for row in conn.execute("SELECT body FROM record_bodies")]
        assert conn.execute("SELECT count(*) FROM body_dicts").fetchone()[0] == 1
    assert all(b[:9] == b"\x03" + DICT_ID for b in blobs)
    codec._DICTS.clear()   # as in a new process
    with Store.open(db, readonly=True) as reader:
        got = {r["id"]: r["errorMessage"] for r in reader.iter_records()}
    assert got == {r["id"]: r["errorMessage"] for r in records}


def test_body_json_is_utf8_in_the_records_own_order():
    record = _site(1)
    record["errorMessage"] = "naïve cell ≤ 512"
    text = encode_body(record).text
    assert "naïve cell ≤ 512".encode() in text                 # not \\u escapes
    assert list(json.loads(text))[:3] == [k for k in record if k in json.loads(text)][:3]


def test_ids_pack_to_eight_bytes_each_or_text_and_back():
    ids = ["0123456789abcdef", "fedcba9876543210"]
    assert codec.pack_ids(ids) == bytes.fromhex("0123456789abcdeffedcba9876543210")
    for given in (ids, [], ["short", "not-hex-at-all!!"], ["0123456789ABCDEF"]):
        assert codec.unpack_ids(codec.pack_ids(given)) == given
    assert codec.pack_ids(["a,b"]) is None and codec.pack_ids([1]) is None
