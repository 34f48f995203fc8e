"""Small codebases the dataset tests write and index: files given as `{relative path: source}`,
dedented, written under a folder, indexed into a real SQLite file next to it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from errdex.pipeline import index_source
from errdex.store import Store


def write_sources(src: Path, files: dict[str, str]) -> Path:
    """Each file, dedented, under `src`; `src` itself."""
    for rel, text in files.items():
        p = src / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return src


def index_sources(root: Path, files: dict[str, str], repo: str, db_name: str = "e.db") -> Path:
    """The files written under `root/src` and indexed (one job, version 1) into `root/db_name`."""
    src = write_sources(root / "src", files)
    db = root / db_name
    index_source(str(src), db, jobs=1, repo=repo, version="1")
    return db


def records_by_message(db: Path, limit: int = 100) -> dict[str, dict]:
    with Store.open(db, readonly=True) as store:
        return {r["errorMessage"]: r for r in store.iter_records(limit=limit)}


def reindexed_and_fresh(root: Path, files: dict[str, str], repo: str, edit) -> tuple:
    """The files indexed into `root/a.db`, `edit(src)` applied, then indexed again into it and
    afresh into `root/b.db`: (the re-index's report, a.db, b.db), to compare the two."""
    src = write_sources(root / "src", files)
    db, fresh = root / "a.db", root / "b.db"
    index_source(str(src), db, jobs=1, repo=repo, version="1")
    edit(src)
    again = index_source(str(src), db, jobs=1, repo=repo, version="1")
    index_source(str(src), fresh, jobs=1, repo=repo, version="1")
    return again, db, fresh


def fails_assert(code: str, **values) -> bool:
    """Whether a generated check, run with `values` as its names (the test's own code: the indexer
    never runs any), fails its assert; any other error propagates."""
    try:
        exec(compile(code, "<validationCode>", "exec"), dict(values))   # noqa: S102
    except AssertionError:
        return True
    return False
