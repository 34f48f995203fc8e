"""How many forked processes a step may use: one where the platform cannot fork, else the cores
this process may run on, up to the step's own limit. Forked children inherit what they read
(records, packs) without pickling, which is why only forking counts."""

from __future__ import annotations

import multiprocessing
import os


def forkable_cores(limit: int) -> int:
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(cpus, limit)
