"""The prose and code fields are written from the stored facts when a record is read
(`analyze.fields`): the stored body holds the facts only, every reader gets the same full record."""

import json
import sqlite3

from errdex.hook.index_reader import IndexView
from errdex.pipeline import index_source
from errdex.store import Store, codec

from .conftest import SAMPLE, write_sample
from tests.entry_code import entry_call

PROSE = ("documentation", "triggerScenarios", "solutions", "validationCode", "exampleFix", "tryCatchPattern")


def _indexed(tmp_path):
    src = write_sample(tmp_path / "src", SAMPLE)
    db = tmp_path / "idx.db"
    index_source(str(src), db, jobs=1, repo="acme/widgets", version="1")
    return db


def _stored_bodies(db) -> list[dict]:
    with Store.open(db, readonly=True):
        pass
    conn = sqlite3.connect(db)
    codec.load_dicts(conn)
    return [json.loads(codec.unpack(body)) for (body,) in conn.execute("SELECT body FROM record_bodies")]


def test_bodies_hold_facts_and_readers_get_prose(tmp_path):
    db = _indexed(tmp_path)
    bodies = _stored_bodies(db)
    assert bodies and not any(b.get(name) for b in bodies for name in PROSE)
    assert all("siteClass" in b["errdex"] and "documentation" not in b["errdex"]["provenance"] for b in bodies)

    with Store.open(db, readonly=True) as store:
        records = {r["errorMessage"]: r for r in store.iter_records()}
        by_id = store.get_record(records["gemm_ar: M={m} outside [1, {MAX}]"]["id"])["record"]
    cell = records["gemm_ar: M={m} outside [1, {MAX}]"]
    assert cell == by_id
    assert "assert m <= 512" in cell["validationCode"] and "512" in cell["documentation"]
    assert cell["errdex"]["provenance"]["validationCode"] == "fact"
    assert list(cell["errdex"]["provenance"])[-1] == "related"   # where a record completed in one go has it
    # The method's class names the call in the code fields (the stored `siteClass`/`entryClass`).
    make = records["negative size {n}"]
    assert make["errdex"]["siteClass"] is None and "make(...)" in entry_call(make)


def test_the_runtime_hook_reads_the_same_record(tmp_path):
    db = _indexed(tmp_path)
    with Store.open(db, readonly=True) as store:
        want = next(r for r in store.iter_records() if r["errorMessage"] == "negative size {n}")
    got = IndexView(db).record_at("acme/widgets@1", want["filePath"], want["lineNumber"])
    for name in PROSE:
        assert got.get(name) == want.get(name)
    assert got["documentation"]


def test_search_finds_a_record_by_its_condition(tmp_path):
    db = _indexed(tmp_path)
    with Store.open(db, readonly=True) as store:
        hits = store.search("kind")
    assert "unknown kind {kind}" in {h["record"]["errorMessage"] for h in hits}


def test_a_body_stored_with_its_prose_is_read_as_stored(tmp_path):
    """An index written before the prose moved out of the bodies (no `siteClass`) keeps its text."""
    db = _indexed(tmp_path)
    conn = sqlite3.connect(db)
    codec.load_dicts(conn)
    key, body = conn.execute("SELECT key, body FROM record_bodies LIMIT 1").fetchone()
    old = json.loads(codec.unpack(body))
    del old["errdex"]["siteClass"], old["errdex"]["entryClass"]
    old["documentation"] = "written by an older errdex"
    conn.execute("UPDATE record_bodies SET body = ? WHERE key = ?", (json.dumps(old), key))
    conn.commit()
    conn.close()
    with Store.open(db, readonly=True) as store:
        record = next(r for r in store.iter_records() if r["errorMessage"] == old["errorMessage"])
    assert record["documentation"] == "written by an older errdex"
    assert not record.get("validationCode")


def test_a_record_whose_templates_fail_is_still_read(tmp_path, monkeypatch):
    """One record's prose failing must not stop an export or a page: the record comes without it, and says why."""
    from errdex.analyze import prose

    db = _indexed(tmp_path)

    def broken(f):
        raise ValueError("template bug")

    monkeypatch.setattr(prose, "solutions", broken)
    with Store.open(db, readonly=True) as store:
        records = list(store.iter_records())
    assert records and all(r["solutions"] is None and r["documentation"] is None for r in records)
    assert all(r["errdex"]["provenance"]["prose"] == "unavailable: ValueError: template bug" for r in records)
    assert all(list(r["errdex"]["provenance"])[-1] == "related" for r in records)


def _export(db, fmt, seed_format=False) -> str:
    import io

    from errdex.export import write_export

    buf = io.StringIO()
    with Store.open(db, readonly=True) as store:
        info = store.resolve_dataset(None)
        write_export(store, info, buf, fmt, seed_format)
    return buf.getvalue()


def test_forked_readers_export_what_one_process_exports(tmp_path, monkeypatch):
    """A large export is read by forked processes a chunk at a time (the prose is written as
    records are read): the file must be the same, record for record, in the same order."""
    import json

    from errdex import export

    db = _indexed(tmp_path)
    alone = {(fmt, seed): _export(db, fmt, seed) for fmt in ("jsonl", "json") for seed in (False, True)}
    monkeypatch.setattr(export, "PARALLEL_MIN", 1)
    monkeypatch.setattr(export, "CHUNK", 2)
    monkeypatch.setattr(export, "_readers", lambda: 2)
    forked_ids = []
    real = export._forked

    def counted(*args):
        for text in real(*args):
            forked_ids.append(text)
            yield text

    monkeypatch.setattr(export, "_forked", counted)
    for (fmt, seed), text in alone.items():
        assert _export(db, fmt, seed) == text
    records = [json.loads(line) for line in alone[("jsonl", False)].splitlines()]
    assert len(records) > 2 and len(forked_ids) == 4 * len(records)   # every record came through the readers
    assert all(r["documentation"] for r in records if r["errdex"]["conditionExact"])
