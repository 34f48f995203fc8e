"""The store stage: one SQLite file holding many datasets (repo@version).

Publishing is atomic, record bodies are shared between versions, FTS5 serves
search, and per-file extraction results are cached by content hash.
"""

from errdex.store.connection import StoreError
from errdex.store.store import Store

__all__ = ["Store", "StoreError"]
