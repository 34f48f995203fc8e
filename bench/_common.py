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


def bytecode_env(enabled: bool = True) -> dict[str, str] | None:
    """An environment whose Python processes read and write bytecode under
    ~/.cache/errdex-tests/pyc, or None (inherit the caller's).

    An installed errdex has its bytecode; a session with PYTHONDONTWRITEBYTECODE=1
    and no __pycache__ in the checkout compiled every errdex module from source at
    each start (~30-70 ms), which no user pays. The prefix keeps these files out of
    the checkout.
    """
    if not enabled:
        return None
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(CACHE / "pyc"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed_run(cmd: list[str], env: dict | None = None) -> Run:
    """Wall and CPU time of a subprocess (with its children), and peak RSS in MiB.

    `env`: the whole environment (default: this one). CPU time is the steadier
    figure on a shared machine; wall time is what a user waits.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, after.ru_maxrss // 1024)


def python() -> str:
    return sys.executable
