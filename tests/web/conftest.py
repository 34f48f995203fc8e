"""Fixtures for the web tests: small codebases indexed into a real SQLite file, the app over httpx."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import textwrap
from pathlib import Path

import httpx
import pytest
import uvicorn

from errdex.pipeline import index_source
from errdex.web import create_app

WIDGETS = {
    "widgets/__init__.py": "from .core import make\n__all__ = ['make']\n",
    "widgets/errors.py": "class WidgetError(ValueError):\n    code = 'W1'\n",
    "widgets/core.py": '''
        from .errors import WidgetError

        MAX_TOKENS = 512

        def _cell_of(m):
            for c in (8, 16, 32, 64, 128, 256, 512):
                if m <= c:
                    return c
            raise ValueError(f"gemm_ar: M={m} outside [1, {MAX_TOKENS}]")

        def packed_decode(K, BK):
            if K > BK:
                raise ValueError(f"Packed decode kernel only supports NK=1 (got K={K}, BK={BK}).")
            return K

        def make(n, kind="a"):
            if n < 0:
                raise WidgetError(f"negative size {n}")
            elif kind not in ("a", "b"):
                raise WidgetError("unknown kind %s" % kind)
            assert n < 10_000, "too big"
            return _cell_of(n)
    ''',
    # Enough sites for two dataset pages.
    "widgets/many.py": "\n".join(
        f"def check_{i}(x):\n    if x == {i}:\n        raise KeyError(f'missing slot {i} for {{x}}')\n"
        for i in range(60)),
}

HOSTILE = {
    "evil/__init__.py": "",
    "evil/core.py": '''
        def boom(x):
            """<script>alert('doc')</script>"""
            if x == "<script>alert(1)</script>":
                raise ValueError("<script>alert('xss')</script> and \\"quotes\\" {{ 7*7 }} {% if 1 %}x{% endif %}")
            raise RuntimeError(f"</pre><img src=x onerror=alert(2)> {x!r} ${{jndi}}")
    ''',
}


#: Two versions of one small codebase: 2.0 rewords one message, removes one site, adds one.
GADGETS_V1 = {
    "gadgets/__init__.py": "",
    "gadgets/io.py": '''
        def load(path):
            if not path:
                raise FileNotFoundError("no path given")
            return open(path).read()
    ''',
    "gadgets/core.py": '''
        def make(n, kind="a"):
            if n < 0:
                raise ValueError(f"negative size {n}")
            if kind not in ("a", "b"):
                raise KeyError("unknown kind %s" % kind)
            return n

        def pick(items, i):
            if not items:
                raise IndexError("cannot pick from an empty list")
            return items[i]

        def size(items):
            return len(items)
    ''',
}
GADGETS_V2 = {
    **GADGETS_V1,   # gadgets/io.py stays the same
    "gadgets/core.py": '''
        def make(n, kind="a"):
            if n < 0:
                raise ValueError(f"size must be zero or more, got {n}")
            if kind not in ("a", "b"):
                raise KeyError("unknown kind %s" % kind)
            return n

        def drop(items):
            if len(items) > 3:
                raise OverflowError(f"<script>alert('added')</script> too many items: {len(items)}")
            return items[1:]

        def size(items):
            return len(items)
    ''',
}
GADGETS = "acme/gadgets"


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for old in root.rglob("*.py") if root.exists() else ():
        if old.relative_to(root).as_posix() not in files:
            old.unlink()
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body), encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def web_db(tmp_path_factory) -> Path:
    """One index file with two datasets: widgets@1.0 and evil@0.1."""
    base = tmp_path_factory.mktemp("webdb")
    db = base / "errdex.db"
    index_source(str(write_tree(base / "widgets", WIDGETS)), db, repo="acme/widgets", version="1.0", jobs=1)
    index_source(str(write_tree(base / "evil", HOSTILE)), db, repo="evil", version="0.1", jobs=1)
    return db


@pytest.fixture(scope="session")
def versioned_db(tmp_path_factory) -> Path:
    """One index file with acme/gadgets@1.0 and acme/gadgets@2.0, indexed from one folder in turn."""
    base = tmp_path_factory.mktemp("versioned")
    db, src = base / "errdex.db", base / "gadgets"
    index_source(str(write_tree(src, GADGETS_V1)), db, repo=GADGETS, version="1.0", jobs=1)
    index_source(str(write_tree(src, GADGETS_V2)), db, repo=GADGETS, version="2.0", jobs=1)
    return db


@pytest.fixture(scope="session")
def app(web_db):
    return create_app(web_db)


class AsgiClient:
    """Synchronous calls into the app through httpx's ASGI transport."""

    def __init__(self, app) -> None:
        self.app = app

    def request(self, method: str, url: str, **kwargs) -> httpx.Response:
        async def go():
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
                return await client.request(method, url, **kwargs)
        return asyncio.run(go())

    def get(self, url: str, **kwargs) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs) -> httpx.Response:
        return self.request("POST", url, **kwargs)


@pytest.fixture(scope="session")
def asgi_client():
    """The client class, for tests that build their own app."""
    return AsgiClient


@pytest.fixture(scope="session")
def client(app) -> AsgiClient:
    return AsgiClient(app)


@pytest.fixture(scope="session")
def packed(client) -> dict:
    """The packed-decode record, found through the API's search."""
    hits = client.get("/api/search", params={"q": "packed decode"}).json()["results"]
    return hits[0]["record"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(db: Path):
    """Base URL of a uvicorn serving `db` in a thread, stopped when the generator closes."""
    port = free_port()
    config = uvicorn.Config(create_app(db), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="session")
def server(web_db):
    """Base URL of a uvicorn serving the test index, stopped at the end."""
    yield from serve(web_db)


@pytest.fixture(scope="session")
def versioned_server(versioned_db):
    """Base URL of a uvicorn serving the two-version index."""
    yield from serve(versioned_db)
