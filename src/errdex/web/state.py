"""What every route needs: the read-only index, the default dataset, and serialized matching.

The match engine keeps one hyperscan scratch space per compiled database,
which is not safe to use from two threads at once, so matching runs under a
lock; the record pages never wait on it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from fastapi import Request

from errdex.web.database import ReadOnlyIndex

#: Most matches a paste returns.
MAX_MATCHES = 20


@dataclass
class WebState:
    index: ReadOnlyIndex
    dataset: str | None = None          # default dataset for pages and matching (None: all)
    _match_lock: threading.Lock = field(default_factory=threading.Lock)

    def explain(self, text: str, dataset: str | None = None) -> list[dict]:
        """`errdex.match.explain` as match dicts, best first."""
        from errdex.match import explain

        with self._match_lock:
            found = explain(text, db=self.index.path, dataset=dataset or self.dataset)
        return [m.to_dict() for m in found[:MAX_MATCHES]]


def state_of(request: Request) -> WebState:
    return request.app.state.errdex
