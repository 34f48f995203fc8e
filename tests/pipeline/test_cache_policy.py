"""The per-file cache keeps what the next run can use: this repo's latest files and other repos' latest."""

import sqlite3

from errdex.pipeline import index_source

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
