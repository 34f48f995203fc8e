"""Lines and source windows live outside the bodies: moved sites share bodies, windows are stored once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from errdex.models import SCHEMA_VERSION
from errdex.store import Store
from errdex.store import schema
from errdex.store.bodies import encode_body
from errdex.store.versions import record_in_datasets, site_bodies
from .store_factories import make_meta, make_record


def _count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def _site(n: int, shift: int = 0, window: str | None = None, **overrides: object) -> dict:
    """A record whose line, window bounds and end line all move by `shift`."""
    record = make_record(n, lineNumber=40 + n + shift, sourceCodeStart=22 + n + shift,
                         sourceCodeEnd=58 + n + shift, **overrides)
    record["sourceCode"] = window if window is not None else f"def f{n}():\n    raise ValueError({n})\n"
    record["errdex"] = {"function": f"pkg.mod.f{n}", "endLine": 42 + n + shift, "test": False}
    return record


def _expected(record: dict, meta) -> dict:
    expected = dict(record)
    expected["githubUrl"] = (f"{meta.url_base}{record['filePath']}"
                             f"#L{record['sourceCodeStart']}-L{record['sourceCodeEnd']}")
    expected.update(analyzedSha=meta.analyzed_sha, analyzedAt=meta.analyzed_at, schemaVersion=SCHEMA_VERSION)
    return expected


def test_a_moved_site_shares_its_body_and_reads_back_its_own_lines(store: Store, db_path: Path) -> None:
    before = [_site(n) for n in range(5)]
    after = [_site(n, shift=7) for n in range(5)]
    after[4] = _site(4, shift=7, documentation="reworded")
    old_meta, new_meta = make_meta("1.0"), make_meta("1.1")
    store.publish(old_meta, before, [])
    store.publish(new_meta, after, [])
    assert _count(db_path, "record_bodies") == 6      # 4 moved sites shared, 1 changed, 1 original
    assert _count(db_path, "record_search") == 6
    assert _count(db_path, "source_windows") == 5     # windows equal across the move
    for meta, records in ((old_meta, before), (new_meta, after)):
        got = list(store.iter_records(meta.name))
        assert got == [_expected(r, meta) for r in records]
        assert [list(g) for g in got] == [list(_expected(r, meta)) for r in records]
        assert all(list(g["errdex"]) == ["function", "endLine", "test"] for g in got)


def test_stored_body_holds_no_line_and_no_window() -> None:
    record = _site(3, shift=100)
    encoded = encode_body(record)
    stored = json.loads(encoded.text)
    assert "lineNumber" not in stored and "sourceCode" not in stored
    assert (stored["sourceCodeStart"], stored["sourceCodeEnd"], stored["errdex"]["endLine"]) == (-18, 18, 2)
    assert (encoded.line, encoded.window) == (143, record["sourceCode"])
    assert record["errdex"]["endLine"] == 145 and record["lineNumber"] == 143   # input left as it was
    assert encode_body(_site(3, shift=-20)).digest == encoded.digest


def test_windows_are_stored_once_and_collected_with_their_datasets(store: Store, db_path: Path) -> None:
    shared = "x = 1\nraise ValueError(x)\n"
    store.publish(make_meta("1.0"), [_site(n, window=shared) for n in range(3)], [])
    assert _count(db_path, "source_windows") == 1
    store.publish(make_meta("1.1"), [_site(n, window=f"other {n}") for n in range(3)], [])
    assert _count(db_path, "record_bodies") == 3      # only the window changed
    assert _count(db_path, "source_windows") == 4
    assert {r["sourceCode"] for r in store.iter_records("acme/widgets@1.0")} == {shared}
    store.publish(make_meta("1.1"), [_site(n, window="again") for n in range(3)], [])   # replaced
    assert _count(db_path, "source_windows") == 2
    store.remove_dataset("acme/widgets@1.0")
    assert _count(db_path, "source_windows") == 1
    assert [r["sourceCode"] for r in store.iter_records()] == ["again"] * 3


def test_reads_that_bypass_iter_records_get_lines_and_windows(store: Store) -> None:
    store.publish(make_meta("1.0"), [_site(1), _site(2)], [])
    info = store.publish(make_meta("1.1"), [_site(1, shift=3), _site(2, window="changed")], [])
    bodies = {b["id"]: b for b in site_bodies(store, info)}
    assert bodies[f"{1:016x}"]["lineNumber"] == 44 and bodies[f"{1:016x}"]["errdex"]["endLine"] == 46
    assert bodies[f"{2:016x}"]["sourceCode"] == "changed"
    assert [b["id"] for b in site_bodies(store, info, only={f"{2:016x}"})] == [f"{2:016x}"]
    history = record_in_datasets(store, f"{1:016x}")
    assert [(d.version, r["lineNumber"], r["sourceCodeEnd"]) for d, r in history] == [("1.0", 41, 59),
                                                                                    ("1.1", 44, 62)]
    found = store.get_record(f"{1:016x}", "acme/widgets@1.1")["record"]
    assert found["githubUrl"].endswith("#L26-L62")
    hits = store.search("widget", "acme/widgets@1.0")
    assert sorted(h["record"]["lineNumber"] for h in hits) == [41, 42]
    raw = list(store.enrichments.raw_records(info.id))
    assert sorted((r.record["lineNumber"], r.record["sourceCode"]) for r in raw) == [
        (42, "changed"), (44, _site(1)["sourceCode"])]


def test_bodies_written_before_the_move_read_alike(tmp_path: Path) -> None:
    """A file from schema step 0003 (complete bodies) upgrades in place and mixes with new rows."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(schema._LEDGER_SQL)
    for name, step in schema.MIGRATIONS[:3]:
        step(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (name, schema.utc_now()))
    meta = make_meta("0.9")
    conn.execute("INSERT INTO datasets (id, repo, version, kind, analyzed_sha, url_base, analyzed_at,"
                 " published_at, record_count) VALUES (1, ?, ?, 'git', ?, ?, ?, ?, 1)",
                 (meta.repo, meta.version, meta.analyzed_sha, meta.url_base, meta.analyzed_at, schema.utc_now()))
    old = _site(1)
    body = {k: v for k, v in old.items() if k not in ("githubUrl", "analyzedSha", "analyzedAt", "schemaVersion")}
    conn.execute("INSERT INTO record_bodies (key, body_hash, body, record_id, file_path, line_number)"
                 " VALUES (1, x'00', ?, ?, ?, ?)", (json.dumps(body), old["id"], old["filePath"], old["lineNumber"]))
    conn.execute("INSERT INTO dataset_records VALUES (1, 1, ?)", (old["id"],))
    conn.close()
    with Store.open(path) as store:
        store.publish(make_meta("1.0"), [_site(1, shift=2)], [])
        records = list(store.iter_records())
        assert [(r["lineNumber"], r["errdex"]["endLine"]) for r in records] == [(41, 43), (43, 45)]
        assert records[0] == _expected(old, meta)
        # step 0011 took the id out of the membership rows: the old row is still found by its id
        assert store.get_record(old["id"], f"{meta.repo}@{meta.version}")["record"] == records[0]
    with sqlite3.connect(path) as conn:
        assert "record_id" not in [c[1] for c in conn.execute("PRAGMA table_info(dataset_records)")]


def test_large_publishes_pack_bodies_with_a_sampled_dictionary(store: Store, db_path: Path) -> None:
    from errdex.store import codec

    records = [_site(n, path=f"pkg/m{n % 7}.py") for n in range(260)]
    meta = make_meta("1.0")
    store.publish(meta, records, [])
    assert _count(db_path, "body_dicts") == 1
    with sqlite3.connect(db_path) as conn:
        blobs = [row[0] for row in conn.execute("SELECT body FROM record_bodies")]
    assert all(isinstance(b, bytes) and b[:1] == b"\x03" for b in blobs)   # zstd with the dictionary
    assert sum(map(len, blobs)) < 0.4 * sum(len(encode_body(r).text) for r in records)
    codec._DICTS.clear()   # as in a new process
    with Store.open(db_path, readonly=True) as reader:
        got = {r["id"]: r for r in reader.iter_records()}
    assert [got[r["id"]] for r in records] == [_expected(r, meta) for r in records]
    store.publish(make_meta("1.1"), [_site(n, shift=1, documentation="new") for n in range(3)], [])
    assert _count(db_path, "body_dicts") == 1    # later publishes reuse it
    assert [r["documentation"] for r in store.iter_records("acme/widgets@1.1")] == ["new"] * 3


def test_prune_file_cache_keeps_listed_keys_and_their_helper_entries(store: Store) -> None:
    # ":windows" entries are what an older errdex cached; nothing reads them any more.
    store.put_cached_facts({"a:1": b"a", "a:1:helpers:3,9": b"ah", "b:1": b"b", "a:1:windows": b"aw",
                            "b:1:helpers:4": b"bh", "b:1:windows": b"bw", "c:1": b"c"})
    assert store.prune_file_cache(["a:1", "c:1", "zzz"]) == 4
    assert sorted(store.cached_facts(["a:1", "a:1:helpers:3,9", "a:1:windows", "b:1", "b:1:helpers:4",
                                      "b:1:windows", "c:1"])) == ["a:1", "a:1:helpers:3,9", "c:1"]
    assert store.prune_file_cache([]) == 3


def test_related_ids_live_in_the_membership_row_so_a_reranked_site_shares_its_body(store: Store, db_path: Path) -> None:
    first = _site(1)
    first["errdex"]["related"] = ["00000000000000aa", "00000000000000bb"]
    again = json.loads(json.dumps(first))
    again["errdex"]["related"] = ["00000000000000cc"]
    store.publish(make_meta("1.0"), [first], [])
    store.publish(make_meta("1.1"), [again], [])
    assert _count(db_path, "record_bodies") == 1        # only the ranking changed: one body
    with sqlite3.connect(db_path) as conn:
        assert sorted(r[0] for r in conn.execute("SELECT related FROM dataset_records")) == [
            bytes.fromhex("00000000000000aa00000000000000bb"), bytes.fromhex("00000000000000cc")]   # 8 bytes an id
    got = {r["errdex"]["related"][0]: r for r in store.iter_records()}
    assert got["00000000000000aa"]["errdex"]["related"] == first["errdex"]["related"]
    assert got["00000000000000cc"]["errdex"]["related"] == ["00000000000000cc"]
    # the key keeps its place in `errdex`, as written
    assert list(got["00000000000000cc"]["errdex"]) == [k for k in again["errdex"]]
    none = _site(2)
    none["errdex"]["related"] = []
    store.publish(make_meta("1.2"), [none], [])
    assert [r["errdex"]["related"] for r in store.iter_records("acme/widgets@1.2")] == [[]]
