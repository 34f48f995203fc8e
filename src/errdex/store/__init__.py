"""The store stage: one SQLite file holding many datasets (repo@version).

Publishing is atomic, record bodies are shared between versions, FTS5 serves
search, and per-file extraction results are cached by content hash.

`Store` and `StoreError` load on first use, so a light reader (the exception
hook) can import `errdex.store.codec` without the whole store.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: importing typing costs the hook ~10 ms
if TYPE_CHECKING:
    from errdex.store.connection import StoreError
    from errdex.store.store import Store

__all__ = ["Store", "StoreError"]


def __getattr__(name: str) -> object:
    if name == "Store":
        from errdex.store.store import Store
        return Store
    if name == "StoreError":
        from errdex.store.connection import StoreError
        return StoreError
    raise AttributeError(f"module 'errdex.store' has no attribute {name!r}")
