"""A large publish encodes and packs bodies in forked processes: the stored dataset is the same as a serial one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from errdex.store import Store
from errdex.store import encoding, publish
from errdex.store.windows import pack_window

from .store_factories import make_meta, make_record

N = 1300


def _records() -> list[dict]:
    records = [make_record(n, path=f"pkg/m{n % 7}.py") for n in range(N)]
    records += [make_record(n, path=f"pkg/m{n % 7}.py") for n in (5, 700)]   # same bodies, other chunks
    for r in records[::3]:
        r["sourceCode"] = f"shared window {r['lineNumber'] % 11}\n"   # windows repeat across chunks
    return records


def _publish(db: Path, records: list[dict], packed=None) -> list[dict]:
    with Store.open(db) as store:
        store.publish(make_meta(), records, [], packed_windows=packed)
        return [store.get_record(r["id"])["record"] for r in records]


def _forks(monkeypatch) -> list[int]:
    """Make a 1.3k-record publish take the forked path; count the pools started."""
    monkeypatch.setattr(publish, "PUBLISH_CHUNK", 250)
    monkeypatch.setattr(encoding, "PARALLEL_MIN", 1000)
    monkeypatch.setattr(encoding, "_encoder_count", lambda: 2)
    started: list[int] = []
    forked = encoding._forked_chunks

    def counted(*args):
        started.append(1)
        yield from forked(*args)

    monkeypatch.setattr(encoding, "_forked_chunks", counted)
    return started


def test_forked_publish_stores_what_a_serial_publish_stores(tmp_path: Path, monkeypatch) -> None:
    serial = _publish(tmp_path / "serial.db", _records())
    started = _forks(monkeypatch)
    parallel = _publish(tmp_path / "parallel.db", _records())
    assert started == [1]
    assert parallel == serial
    assert parallel[3]["sourceCode"] == f"shared window {13 % 11}\n" and parallel[4]["sourceCode"].startswith("def f():")
    for name in ("serial.db", "parallel.db"):
        conn = sqlite3.connect(tmp_path / name)
        bodies, windows, members = (conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                                    for t in ("record_bodies", "source_windows", "dataset_records"))
        assert bodies == members == N  # the two duplicates share their bodies
        assert windows == len({r["sourceCode"] for r in _records()}) < N   # each distinct text once
        conn.close()


def test_forked_publish_uses_the_windows_packed_by_the_indexer(tmp_path: Path, monkeypatch) -> None:
    records = _records()
    text = records[1]["sourceCode"]
    digest, _ = pack_window(text)
    marked = pack_window("marker text")[1]
    _forks(monkeypatch)
    got = _publish(tmp_path / "p.db", records, packed={text: (digest, marked)})
    assert got[1]["sourceCode"] == "marker text"   # the given bytes were stored, not re-packed


def test_an_encoder_failure_rolls_the_publish_back(tmp_path: Path, monkeypatch) -> None:
    records = _records()
    records[-300]["errdex"]["bad"] = object()      # not JSON: fails in a forked encoder
    _forks(monkeypatch)
    db = tmp_path / "p.db"
    with Store.open(db) as store:
        with pytest.raises(TypeError):
            store.publish(make_meta(), records, [])
        assert store.datasets() == []
        assert sqlite3.connect(db).execute("SELECT count(*) FROM record_bodies").fetchone()[0] == 0


def test_forked_publish_without_a_dictionary_stores_the_same(tmp_path: Path, monkeypatch) -> None:
    """The encoders start before the first chunk's bodies could make a dictionary; when none can be
    made they hand their bodies back unpacked, and the publisher packs them as a serial publish would."""
    from errdex.store import codec

    serial = _publish(tmp_path / "serial.db", _records())
    started = _forks(monkeypatch)
    monkeypatch.setattr(codec, "MIN_SAMPLE", 260)   # more than a 250-record chunk: no dictionary from it
    parallel = _publish(tmp_path / "parallel.db", _records())
    assert started == [1]
    assert parallel == serial
    conn = sqlite3.connect(tmp_path / "parallel.db")   # no 250-record chunk was enough to sample: plain bodies
    assert conn.execute("SELECT count(*) FROM body_dicts").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM record_bodies").fetchone()[0] == N
    conn.close()


def test_forked_publish_into_a_file_with_a_dictionary(tmp_path: Path, monkeypatch) -> None:
    """A file that has its dictionary already hands it to the encoders when they start."""
    db = tmp_path / "p.db"
    first = _records()
    _publish(db, first)
    started = _forks(monkeypatch)
    again = [dict(r, errorMessage=r["errorMessage"] + " (v2)") for r in _records()]
    with Store.open(db) as store:
        store.publish(make_meta(version="2.0"), again, [])
        got = [store.get_record(r["id"], dataset="acme/widgets@2.0")["record"]["errorMessage"] for r in again[:3]]
    assert started == [1]
    assert got == [r["errorMessage"] for r in again[:3]]
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM body_dicts").fetchone()[0] == 1
    conn.close()
