"""Shared bench helpers: the cached sglang wheel tree, timing, peak memory of child processes."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(os.environ.get("ERRDEX_BENCH_CACHE", Path.home() / ".cache" / "errdex-tests"))


def sglang_tree(version: str = "0.5.23"):
    """The unpacked sglang wheel (downloaded once, cached outside the repo)."""
    os.environ.setdefault("ERRDEX_HOME", str(CACHE / "home"))
    from errdex.sources import resolve_source

    return resolve_source(f"pypi:sglang=={version}")


def copy_py_tree(tree, dest: Path) -> Path:
    """Copy only the .py files of a tree, so a benchmark can modify them."""
    for rel in tree.files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tree.root / rel, target)
    return dest


@dataclass
class Run:
    wall: float      # seconds
    cpu: float       # user + system seconds of the process and its children
    rss_mib: int     # peak RSS of the largest process so far (ru_maxrss of waited children)


def timed_run(cmd: list[str], env: dict | None = None) -> Run:
    """Wall and CPU time of a subprocess (with its children), and peak RSS in MiB.

    CPU time is the steadier figure on a shared machine; wall time is what a user waits.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, after.ru_maxrss // 1024)


def python() -> str:
    return sys.executable
