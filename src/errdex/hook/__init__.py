"""The hook stage: explain exceptions when they happen (excepthook, threads, unraisable, IPython, pytest).

`install()`/`uninstall()` live in `install.py` (and are `errdex.install` /
`errdex.uninstall`); `explainer.explain_exception()` finds the record for a live
exception (frames first, then the message), indexing the owning
distribution's exact version on first sight (`lazy_index.py`). Later errors,
even in a new process, take the light path: owners from the on-disk owner
cache (`owner_cache.py`), records by plain SQL (`index_reader.py`), plain
text unless the stream is a terminal (`panel.py`). This package
imports nothing itself, so the pytest plugin inside it stays free to load.
"""
