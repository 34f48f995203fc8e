"""An index holding many versions gives back the pages a later run frees: the file holds what it
holds, not what it once held (issue 7's size goal counts every byte of the file)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from errdex.pipeline import index_source
from errdex.store import Store


def _write_version(root: Path, version: int) -> None:
    for n in range(30):
        body = "\n".join(
            f"def check_{n}_{i}(x):\n    if x > {i + version}:\n"
            f"        raise ValueError(f'check {n}.{i} of version {version}: x={{x}} above {i + version}')\n"
            for i in range(60))
        (root / f"mod_{n}.py").write_text(body)


def _free_pages(db: Path) -> tuple[int, int]:
    with sqlite3.connect(db) as conn:
        return conn.execute("PRAGMA freelist_count").fetchone()[0], conn.execute("PRAGMA auto_vacuum").fetchone()[0]


@pytest.mark.parametrize("released", [True, False])
def test_a_second_version_leaves_no_free_pages(tmp_path, monkeypatch, released):
    if not released:   # the scenario frees pages: without giving them back they stay in the file
        monkeypatch.setattr(Store, "release_free_pages", lambda self: None)
    src, db = tmp_path / "src", tmp_path / "idx.db"
    src.mkdir()
    for version in (1, 2):   # every file changes: the first version's cached facts are pruned
        _write_version(src, version)
        index_source(str(src), db, jobs=1, repo="acme/pages", version=str(version))
    free, mode = _free_pages(db)
    assert mode == 2   # incremental
    assert (free == 0) is released
    with Store.open(db, readonly=True) as store:
        assert sorted(d.name for d in store.datasets()) == ["acme/pages@1", "acme/pages@2"]
