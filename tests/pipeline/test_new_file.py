"""A new index file is built aside and moved in whole: nothing half-written is ever at the path."""

import os
import sqlite3
import time

import pytest

import errdex.pipeline as pipeline
from errdex.pipeline import index_source
from errdex.sources import resolve_source
from errdex.store import Store
from errdex.store.aside import build_aside

from .conftest import write_sample
from .test_reindex_delta import FILES


def _records(db):
    with Store.open(db, readonly=True) as store:
        return sorted((r["id"], r["errorMessage"]) for d in store.datasets()
                      for r in store.iter_records(f"{d.repo}@{d.version}"))


def test_a_new_file_equals_one_written_in_place(tmp_path):
    src = write_sample(tmp_path / "src", FILES)
    fresh, existing = tmp_path / "fresh.db", tmp_path / "existing.db"
    Store.open(existing).close()                      # an empty index: the journaled path
    index_source(str(src), fresh, jobs=1, repo="acme/shop", version="1")
    index_source(str(src), existing, jobs=1, repo="acme/shop", version="1")
    assert _records(fresh) == _records(existing) != []
    with sqlite3.connect(fresh) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)   # OFF is not kept in the file
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []   # no private file left
    index_source(str(src), fresh, jobs=1, repo="acme/shop", version="2")      # later runs: WAL, as ever
    assert len(_records(fresh)) == 2 * len(_records(existing))


def test_a_run_failing_before_the_publish_keeps_its_per_file_results(tmp_path, monkeypatch):
    src = write_sample(tmp_path / "src", FILES)
    db = tmp_path / "sub" / "x.db"

    def broken(*args, **kwargs):
        raise KeyboardInterrupt   # say, Ctrl-C once every file was extracted

    monkeypatch.setattr(pipeline, "build_records", broken)
    with pytest.raises(KeyboardInterrupt):
        index_source(str(src), db, jobs=1, repo="acme/shop", version="1")
    assert [p.name for p in db.parent.iterdir()] == ["x.db"]
    with Store.open(db, readonly=True) as store:
        assert store.datasets() == [] and store.file_cache_size() > 0
    monkeypatch.undo()
    report = index_source(str(src), db, jobs=1, repo="acme/shop", version="1")
    assert report.extracted == 0 and report.records > 0          # every file came from the kept results


def test_a_run_failing_in_the_publish_leaves_nothing_at_the_path(tmp_path, monkeypatch):
    src = write_sample(tmp_path / "src", FILES)
    db = tmp_path / "sub" / "x.db"
    real = Store.publish

    def failing(self, meta, records, *args, **kwargs):
        def records_then_failure():
            yield from list(records)[:3]
            raise RuntimeError("encoder died")
        return real(self, meta, records_then_failure(), *args, **kwargs)

    monkeypatch.setattr(Store, "publish", failing)
    with pytest.raises(RuntimeError, match="encoder died"):
        index_source(str(src), db, jobs=1, repo="acme/shop", version="1")
    assert list(db.parent.iterdir()) == []


def test_a_file_created_meanwhile_is_never_replaced(tmp_path):
    db = tmp_path / "x.db"

    def build(work):
        work.private.write_bytes(b"ours")
        db.write_bytes(b"theirs")                     # another process got there first
        return "built"

    assert build_aside(db, build) is None             # the caller then writes into theirs
    assert db.read_bytes() == b"theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["x.db"]


def test_an_index_created_meanwhile_gets_the_dataset_the_ordinary_way(tmp_path, monkeypatch):
    src = write_sample(tmp_path / "src", FILES)
    other = write_sample(tmp_path / "other", {"lib/a.py": "def f(x):\n    raise KeyError(f'no {x}')\n"})
    db = tmp_path / "x.db"
    real = pipeline._index_into

    def racing(tree, path, *args, **kwargs):
        if kwargs.get("aside") is not None and not db.exists():   # someone indexes another repo meanwhile
            real(resolve_source(str(other), repo="acme/other", version="1"), db, 1, None, True, False)
        return real(tree, path, *args, **kwargs)

    monkeypatch.setattr(pipeline, "_index_into", racing)
    index_source(str(src), db, jobs=1, repo="acme/shop", version="1")
    with Store.open(db, readonly=True) as store:
        assert sorted((d.repo, d.version) for d in store.datasets()) == [("acme/other", "1"), ("acme/shop", "1")]
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())
    assert os.path.getsize(db) > 0


def test_a_killed_run_s_private_file_is_removed_by_the_next_build(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)                               # a process that has exited
    stale = tmp_path / f".x.db.building-{pid}"
    stale.write_bytes(b"half a file")
    running = tmp_path / f".x.db.building-{os.getppid()}-journal"   # a live process's: kept until it ends
    running.write_bytes(b"")
    other = tmp_path / ".y.db.building-1"
    other.write_bytes(b"another index's")
    recent = tmp_path / f".x.db.building-{pid}-wal"     # the dead process's, but touched a moment ago
    recent.write_bytes(b"")
    old = time.time() - 3600
    for path in (stale, running, other):
        os.utime(path, (old, old))
    assert build_aside(tmp_path / "x.db", lambda work: (work.private.write_bytes(b"new"), "ok")[1]) == "ok"
    assert (tmp_path / "x.db").read_bytes() == b"new"
    assert not stale.exists() and running.exists() and other.exists() and recent.exists()


def test_an_index_that_cannot_be_created_is_a_clear_error(tmp_path):
    from errdex.store import StoreError

    src = write_sample(tmp_path / "src", FILES)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match=r"cannot create the folder of the index .*a-file"):
        index_source(str(src), blocker / "x.db", jobs=1, repo="acme/shop", version="1")
    readonly = tmp_path / "ro"
    readonly.mkdir()
    readonly.chmod(0o555)
    if os.access(readonly, os.W_OK):   # root writes anywhere: nothing to check there
        return
    with pytest.raises(StoreError, match=r"cannot create the index .*ro/x.db: Permission denied"):
        index_source(str(src), readonly / "x.db", jobs=1, repo="acme/shop", version="1")
