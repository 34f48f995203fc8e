"""A publish killed mid-transaction leaves the file as it was before.

The publish runs in a child process whose records iterator announces when it
is halfway and then sleeps; once whole chunks were written (by the publish's
writer thread, spilled to the WAL by a tiny page cache) the test SIGKILLs it
and reopens the file.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from errdex.store import Store
from errdex.store.publish import PUBLISH_CHUNK
from .store_factories import make_meta, make_record

_CHILD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[3])
    from errdex.store import Store
    from store_factories import make_meta, make_record

    total = int(sys.argv[2])
    def records():
        for n in range(total):
            if n == total // 2:
                print("HALF", flush=True)
                time.sleep(60)
            yield make_record(1000 + n, path=f"pkg/new{n % 7}.py")

    store = Store.open(sys.argv[1])
    store._conn.execute("PRAGMA cache_size = 10")  # spill uncommitted pages to the WAL
    store.publish(make_meta(sys.argv[4]), records(), [])
    print("DONE", flush=True)
""")


def _run_and_kill(tmp_path: Path, db_path: Path, version: str, total: int) -> int:
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    child = subprocess.Popen(
        [sys.executable, str(script), str(db_path), str(total), str(Path(__file__).parent), version],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "HALF"
        wal = db_path.parent / (db_path.name + "-wal")
        deadline = time.monotonic() + 10   # the publish's writer thread runs the queued inserts meanwhile
        while wal.stat().st_size <= 1_000_000 and time.monotonic() < deadline:
            time.sleep(0.02)
        wal_size = wal.stat().st_size
        with Store.open(db_path, readonly=True) as reader:  # a reader still sees the old state
            assert [d.name for d in reader.datasets()] == ["acme/widgets@1.0"]
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    return wal_size


@pytest.mark.parametrize("version", ["1.0", "2.0"])  # replace the same version / add a new one
def test_killed_publish_leaves_previous_dataset_intact(tmp_path: Path, db_path: Path,
                                                       version: str) -> None:
    original = [make_record(n) for n in range(50)]
    with Store.open(db_path) as store:
        store.publish(make_meta("1.0"), original, [])
        before = list(store.iter_records())
    total = PUBLISH_CHUNK * 2 + 200
    wal_size = _run_and_kill(tmp_path, db_path, version, total)
    assert wal_size > 1_000_000  # uncommitted chunks had reached the disk when killed

    with Store.open(db_path) as store:
        assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert [d.name for d in store.datasets()] == ["acme/widgets@1.0"]
        assert list(store.iter_records()) == before
        assert store.count_records() == 50
        again = store.publish(make_meta(version), (make_record(1000 + n) for n in range(total)), [])
        assert again.record_count == total
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
