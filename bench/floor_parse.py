"""The floor for indexing: read every .py file and ast.parse it, with N processes, nothing else."""

from __future__ import annotations

import ast
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

_BATCH = 24


def _parse_batch(root: str, batch: list[str]) -> int:
    n = 0
    for rel in batch:
        try:
            ast.parse(Path(root, rel).read_bytes())
            n += 1
        except (SyntaxError, ValueError, RecursionError):
            pass
    return n


def main(root: str, jobs: int) -> None:
    files = sorted(str(p.relative_to(root)) for p in Path(root).rglob("*.py"))
    batches = [files[i:i + _BATCH] for i in range(0, len(files), _BATCH)]
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        parsed = sum(pool.map(_parse_batch, [root] * len(batches), batches))
    print(parsed)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
