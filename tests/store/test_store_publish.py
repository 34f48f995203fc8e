"""Publishing datasets: round trip, body sharing, replacement, removal, file cache."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from errdex.models import SCHEMA_VERSION, SEED_FIELDS, Diagnostic
from errdex.store import Store, StoreError
from .store_factories import make_meta, make_record


def _count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_round_trip_keeps_every_field_and_order(store: Store) -> None:
    records = [make_record(n, path=f"pkg/m{n % 3}.py") for n in range(1, 8)]
    records[2]["customField"] = {"kept": [1, 2]}
    records[2]["errdex"] = records[2].pop("errdex")  # errdex stays last
    meta = make_meta()
    info = store.publish(meta, records, [])
    assert (info.name, info.record_count, info.file_count) == ("acme/widgets@1.0", 7, 3)
    stored = {r["id"]: r for r in store.iter_records(info.name)}
    for original in records:
        expected = dict(original)
        expected["githubUrl"] = (f"{meta.url_base}{original['filePath']}"
                                 f"#L{original['sourceCodeStart']}-L{original['sourceCodeEnd']}")
        expected["analyzedSha"] = meta.analyzed_sha
        expected["analyzedAt"] = meta.analyzed_at
        expected["schemaVersion"] = SCHEMA_VERSION
        got = stored[original["id"]]
        assert got == expected
        assert list(got) == list(expected)
        assert list(got)[: len(SEED_FIELDS)] == list(SEED_FIELDS)


def test_github_url_is_null_without_url_base(store: Store) -> None:
    meta = make_meta()
    meta.url_base = None
    store.publish(meta, [make_record(1)], [])
    assert store.get_record(f"{1:016x}")["record"]["githubUrl"] is None


def test_identical_bodies_are_shared_across_datasets(store: Store, db_path: Path) -> None:
    records = [make_record(n) for n in range(20)]
    store.publish(make_meta("1.0"), records, [])
    changed = [make_record(n) for n in range(20)]
    changed[0]["lineNumber"] += 5
    changed.append(make_record(99))
    second = store.publish(make_meta("1.1"), changed, [])
    assert second.record_count == 21
    assert _count(db_path, "record_bodies") == 22  # 20 shared + 1 changed + 1 new
    assert _count(db_path, "dataset_records") == 41
    assert _count(db_path, "record_search") == 22
    moved = store.get_record(f"{0:016x}", "acme/widgets@1.1")["record"]
    assert moved["lineNumber"] == 15
    assert store.get_record(f"{0:016x}", "acme/widgets@1.0")["record"]["lineNumber"] == 10


def test_dataset_fields_do_not_split_bodies(store: Store, db_path: Path) -> None:
    store.publish(make_meta("1.0"), [make_record(1)], [])
    other = make_meta("2.0")
    other.analyzed_sha = "b" * 40
    other.url_base = "https://example.invalid/"
    store.publish(other, [make_record(1, githubUrl="x", analyzedSha="y")], [])
    assert _count(db_path, "record_bodies") == 1
    assert store.get_record(f"{1:016x}", "acme/widgets@2.0")["record"]["analyzedSha"] == "b" * 40


def test_replacing_a_version_keeps_one_copy_and_collects_garbage(store: Store, db_path: Path) -> None:
    first = store.publish(make_meta("1.0"), [make_record(n) for n in range(10)], [])
    second = store.publish(make_meta("1.0"), [make_record(n) for n in range(5, 12)], [])
    assert [d.name for d in store.datasets()] == ["acme/widgets@1.0"]
    assert second.id != first.id and second.record_count == 7
    assert _count(db_path, "record_bodies") == 7
    assert _count(db_path, "record_search") == 7
    assert sorted(r["id"] for r in store.iter_records()) == [f"{n:016x}" for n in range(5, 12)]


def test_remove_dataset_keeps_bodies_still_used(store: Store, db_path: Path) -> None:
    store.publish(make_meta("1.0"), [make_record(n) for n in range(4)], [Diagnostic("a.py", "syntax", "x")])
    store.publish(make_meta("1.1"), [make_record(n) for n in range(2, 6)], [])
    removed = store.remove_dataset("acme/widgets@1.0")
    assert removed.version == "1.0"
    assert [d.name for d in store.datasets()] == ["acme/widgets@1.1"]
    assert _count(db_path, "record_bodies") == 4
    assert _count(db_path, "diagnostics") == 0
    with pytest.raises(StoreError, match="unknown dataset 'acme/widgets@1.0'; available: acme/widgets@1.1"):
        store.remove_dataset("acme/widgets@1.0")


def test_duplicate_records_in_one_publish_are_stored_once(store: Store, db_path: Path) -> None:
    info = store.publish(make_meta(), [make_record(1), make_record(1), make_record(2)], [])
    assert info.record_count == 2
    assert _count(db_path, "record_bodies") == 2


def test_diagnostics_and_meta_are_kept(store: Store) -> None:
    diagnostics = [Diagnostic("b.py", "syntax", "invalid syntax (line 3)"),
                   Diagnostic("a.py", "decode", "not utf-8")]
    info = store.publish(make_meta(extra={"files_skipped": 2}), [make_record(1)], diagnostics)
    assert info.diagnostic_count == 2 and info.extra == {"files_skipped": 2}
    assert info.dirty is False and info.kind == "git" and info.published_at.endswith("Z")
    assert store.diagnostics("acme/widgets") == sorted(diagnostics, key=lambda d: d.file_path)


def test_file_cache_round_trip(store: Store, db_path: Path) -> None:
    assert store.cached_facts(["a:1"]) == {}
    store.put_cached_facts({"a:1": b"\x00facts-a", "b:1": b"facts-b"})
    store.put_cached_facts({"a:1": b"newer", "c:2": b"old-extractor"})
    assert store.cached_facts(["a:1", "b:1", "zzz", "a:1"]) == {"a:1": b"newer", "b:1": b"facts-b"}
    assert store.prune_cached_facts(":1") == 1
    assert store.cached_facts(["c:2"]) == {}
    many = {f"k{i}:1": bytes([i % 256]) for i in range(1200)}
    store.put_cached_facts(many)
    assert store.cached_facts(list(many)) == many
