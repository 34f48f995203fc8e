"""What every route needs: the read-only index, the default dataset, the answer cache, and matching.

The match engine keeps one hyperscan scratch space per compiled database,
which is not safe to use from two threads at once, so matching runs under a
lock; the record pages never wait on it. Match answers are cached by the
pasted text's digest, so a repeated paste never takes the lock, and short
pastes are matched on the event loop itself once the engine is loaded:
a thread hop costs more than the match.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from dataclasses import dataclass, field

from fastapi import Request

from errdex.web.cache import ResponseCache
from errdex.web.database import ReadOnlyIndex

log = logging.getLogger("errdex.web")
#: Most matches a paste returns.
MAX_MATCHES = 20
#: Pastes up to this many characters are matched on the event loop (well under a millisecond
#: for a 100-line traceback) when the engine is loaded and free; longer ones go to a thread.
INLINE_MATCH_CHARS = 16 * 1024


def encode_json(data: object) -> bytes:
    """The bytes Starlette's JSONResponse would send, computed once for the cache."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


@dataclass
class WebState:
    index: ReadOnlyIndex
    dataset: str | None = None          # default dataset for pages and matching (None: all)
    cache: ResponseCache | None = None  # None: built over the index file
    _match_lock: threading.Lock = field(default_factory=threading.Lock)
    _loaded: set[tuple] = field(default_factory=set)  # (dataset, index stamp) whose engine is in memory

    def __post_init__(self) -> None:
        if self.cache is None:
            self.cache = ResponseCache(self.index.path)

    def explain(self, text: str, dataset: str | None = None) -> list[dict]:
        """`errdex.match.explain` as match dicts, best first."""
        from errdex.match import explain

        loaded = (dataset or self.dataset, self.cache.stamp)
        with self._match_lock:
            found = explain(text, db=self.index.path, dataset=dataset or self.dataset)
        self._loaded.add(loaded)
        return [m.to_dict() for m in found[:MAX_MATCHES]]

    def preload(self) -> None:
        """Load the match engine of the default dataset ahead of the first paste (start-up thread)."""
        try:
            self.explain("")
        except Exception:  # noqa: BLE001 - the first real paste reports the problem
            log.warning("could not load the match engine ahead of time", exc_info=True)

    def match_now(self, text: str, dataset: str | None = None) -> bytes | None:
        """The match answer computed right here, or None when that could block the event loop.

        Only short texts, only once the engine for the dataset is loaded
        (the first load reads the index), and only if no thread holds the engine.
        """
        if len(text) > INLINE_MATCH_CHARS or (dataset or self.dataset, self.cache.stamp) not in self._loaded:
            return None
        if not self._match_lock.acquire(blocking=False):
            return None
        try:
            from errdex.match import explain

            found = explain(text, db=self.index.path, dataset=dataset or self.dataset)
        finally:
            self._match_lock.release()
        body = encode_json({"matches": [m.to_dict() for m in found[:MAX_MATCHES]]})
        return self.cache.put(self.match_key(text, dataset), body)

    def match_key(self, text: str, dataset: str | None) -> tuple:
        return ("match", dataset or self.dataset, hashlib.blake2b(text.encode(), digest_size=16).digest())

    def match_json(self, text: str, dataset: str | None = None) -> bytes:
        """`{"matches": [...]}` encoded for the cache (worker thread: it may wait on the lock)."""
        return encode_json({"matches": self.explain(text, dataset)})


async def state_of(request: Request) -> WebState:
    """Async so FastAPI resolves it on the event loop instead of a worker thread."""
    return request.app.state.errdex
