"""The per-file cache keeps what the next run can use: this repo's latest files and other repos' latest."""

import sqlite3

from errdex.pipeline import index_source
from errdex.store import encoding
from errdex.store.windows import pack_window as real_pack

from .conftest import write_sample
from .test_reindex_delta import FILES


def _cache_keys(db):
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT key FROM file_cache")}


def _states(db):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT d.repo, d.version FROM dataset_state s JOIN datasets d ON d.id = s.dataset_id"
                            " WHERE s.part = 'manifest' ORDER BY 1, 2").fetchall()


def test_cache_follows_the_latest_dataset_of_each_repo(tmp_path):
    src = write_sample(tmp_path / "src", FILES)
    other = write_sample(tmp_path / "other", {"lib/a.py": "def f(x):\n    raise KeyError(f'no {x}')\n"})
    db = tmp_path / "x.db"
    index_source(str(other), db, jobs=1, repo="acme/other", version="1")
    other_keys = _cache_keys(db)
    index_source(str(src), db, jobs=1, repo="acme/shop", version="1")
    v1 = _cache_keys(db) - other_keys
    (src / "shop/core.py").write_text((src / "shop/core.py").read_text() + "\ndef extra():\n    raise KeyError('x')\n")
    report = index_source(str(src), db, jobs=1, repo="acme/shop", version="2")
    assert report.extracted == 1                       # the other files came from version 1's cache
    keys = _cache_keys(db)
    assert other_keys <= keys                          # another repo's latest files are kept
    v2 = keys - other_keys
    assert len(v2) == len(v1)                          # version 1's copy of core.py is gone, nothing piles up
    assert v2 != v1
    assert _states(db) == [("acme/other", "1"), ("acme/shop", "2")]


def test_a_new_index_file_reads_sources_in_the_main_process_only_for_helper_call_windows(tmp_path, monkeypatch):
    from errdex import pipeline
    from errdex.store import Store

    src = write_sample(tmp_path / "src", FILES)
    reads = []
    real = pipeline._Gathered._read
    monkeypatch.setattr(pipeline._Gathered, "_read", lambda self, rel: reads.append(rel) or real(self, rel))
    db = tmp_path / "x.db"
    first = index_source(str(src), db, jobs=1, repo="acme/shop", version="1")
    with Store.open(db, readonly=True) as store:
        records = list(store.iter_records())
    through_helpers = {r["filePath"] for r in records if r["errdex"].get("helper")}
    assert through_helpers and set(reads) == through_helpers   # the workers' windows serve every other site
    for r in records:                                          # and every window is the source's own
        lines = (src / r["filePath"]).read_text().split("\n")
        assert r["sourceCode"] == "\n".join(lines[r["sourceCodeStart"] - 1:r["sourceCodeEnd"]])
    reads.clear()
    again = index_source(str(src), db, jobs=1, repo="acme/shop", version="2", full=True)
    assert len(reads) == first.files and again.extracted == 0   # a cache to look in: every file is keyed here


def _windows(db):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM source_windows").fetchone()[0]


def test_cached_files_reuse_stored_windows_without_a_second_copy(tmp_path, monkeypatch):
    src = write_sample(tmp_path / "src", FILES)
    db = tmp_path / "x.db"
    index_source(str(src), db, jobs=1, repo="acme/shop", version="1")
    stored = _windows(db)
    assert stored > 0 and not any(k.endswith(":windows") for k in _cache_keys(db))
    packed = []
    monkeypatch.setattr(encoding, "pack_window", lambda text: packed.append(text) or real_pack(text))
    report = index_source(str(src), db, jobs=1, repo="acme/shop", version="2", full=True)
    assert report.extracted == 0                       # every file came from the cache...
    assert _windows(db) == stored and packed == []     # ...and every window was found stored, not packed again
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT d.version, b.record_id, r.window_key FROM dataset_records r"
                            " JOIN record_bodies b ON b.key = r.body_key"
                            " JOIN datasets d ON d.id = r.dataset_id ORDER BY 2, 1").fetchall()
    by_version = {v: {(rid, key) for ver, rid, key in rows if ver == v} for v in ("1", "2")}
    assert by_version["1"] == by_version["2"] and all(key is not None for _, _, key in rows)


def test_a_damaged_cache_entry_is_extracted_again_not_trusted(tmp_path):
    from errdex.store import Store

    src = write_sample(tmp_path / "src", FILES)
    db = tmp_path / "x.db"
    index_source(str(src), db, jobs=1, repo="acme/shop", version="1")
    with Store.open(db, readonly=True) as store:
        before = sorted(store.iter_records(), key=lambda r: r["id"])
    with sqlite3.connect(db) as conn:
        damaged = conn.execute("SELECT key FROM file_cache WHERE key NOT LIKE '%:%' LIMIT 2").fetchall()
        conn.execute("UPDATE file_cache SET facts = ? WHERE key = ?", (b"\x28\xb5\x2f\xfd garbage", damaged[0][0]))
        conn.execute("UPDATE file_cache SET facts = ? WHERE key = ?", (b"not even a frame", damaged[1][0]))
    report = index_source(str(src), db, jobs=1, repo="acme/shop", version="1", full=True)
    assert report.extracted == 2                       # the two damaged files, parsed again
    with Store.open(db, readonly=True) as store:
        after = sorted(store.iter_records(), key=lambda r: r["id"])
        assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert [{k: v for k, v in r.items() if k != "analyzedAt"} for r in after] == \
        [{k: v for k, v in r.items() if k != "analyzedAt"} for r in before]
