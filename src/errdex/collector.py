"""Pausing Python's cyclic garbage collector around passes that allocate many acyclic objects.

Indexing, dataset analysis and log scans build tens of thousands of small
objects next to a large live heap; reference counting frees them, and the
cycle collector would only rescan the heap again and again. Nested pauses are
safe: only the outermost one turns the collector back on.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic GC off for the block, back on (if it was on) after it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
