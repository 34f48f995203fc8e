"""Version-exact indexing on first sight: index `installed:DIST` once, then answer from the index.

The hook calls `ensure_indexed` for the distribution owning a raising frame;
when `DIST@VERSION` is already a dataset in the user database it returns at
once, otherwise it indexes the installed files (never importing them) with
one progress line on stderr.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Callable, TextIO

from errdex.hook.owners import DistOwner

#: Below this many files one process is faster than starting a pool (and
#: forking from inside an exception hook is best avoided).
SERIAL_FILE_LIMIT = 300


def default_db() -> Path:
    """`ERRDEX_HOME/errdex.db`: the user database the hook reads and fills.

    `$ERRDEX_HOME` is read here directly (as `config.errdex_home` does first),
    so a set home costs no `platformdirs` import on the hook's fast path.
    """
    configured = os.environ.get("ERRDEX_HOME", "").strip()
    if configured:
        return Path(configured).expanduser() / "errdex.db"
    from errdex.config import errdex_home

    return errdex_home() / "errdex.db"


def indexed_datasets(db_path: Path) -> set[str]:
    """Names (repo@version) of the datasets in `db_path`; empty when there is no file yet."""
    if not db_path.is_file():
        return set()
    from errdex.store import Store

    with Store.open(db_path, readonly=True) as store:
        return {info.name for info in store.datasets()}


def ensure_indexed(owner: DistOwner, db_path: Path, known: set[str] | None = None,
                   stream: TextIO | None = None, clock: Callable[[], float] = time.perf_counter) -> bool:
    """Index `owner`'s distribution into `db_path` unless its exact version is there; True if it indexed."""
    known = indexed_datasets(db_path) if known is None else known
    if owner.dataset in known:
        return False
    from errdex.pipeline import index_tree
    from errdex.sources import resolve_source

    out = stream or sys.stderr
    started = clock()
    db_path.parent.mkdir(parents=True, exist_ok=True)   # fail before promising anything
    print(f"errdex: indexing {owner.name} {owner.version} (first error from it; once only)...",
          file=out, flush=True)
    tree = resolve_source(f"installed:{owner.name}")
    jobs = 1 if len(tree.files) <= SERIAL_FILE_LIMIT else min(os.cpu_count() or 1, 8)
    report = index_tree(tree, db_path, jobs=jobs)
    print(f"errdex: indexed {report.records} error sites of {tree.name} in {clock() - started:.1f}s "
          f"-> {db_path}", file=out, flush=True)
    known.add(owner.dataset)
    known.add(report.dataset.name)
    return True
