"""The answer cache: byte budget, LRU order, emptied when the index changes; served answers stay right."""

from __future__ import annotations

import asyncio
import os
import shutil
import time

from errdex.store import Store
from errdex.web import create_app
from errdex.web.cache import ResponseCache


def test_budget_evicts_least_recently_used(tmp_path):
    db = tmp_path / "x.db"
    db.write_bytes(b"x")
    cache = ResponseCache(db, max_bytes=1000)
    for key in "abcd":
        cache.put(key, b"." * 240)
    assert cache.get("a") == b"." * 240          # a is now the most recent
    cache.put("e", b"." * 240)                    # 1200 > 1000: the oldest (b) goes
    assert cache.get("b") is None
    assert {k for k in "acde" if cache.get(k)} == set("acde")
    assert cache.put("huge", b"." * 251) == b"." * 251  # over a quarter of the budget: not kept
    assert cache.get("huge") is None


def test_emptied_when_the_db_or_its_wal_changes(tmp_path):
    db = tmp_path / "x.db"
    db.write_bytes(b"one")
    cache = ResponseCache(db, check_every_s=0)
    cache.put("k", b"v")
    assert cache.get("k") == b"v"
    wal = tmp_path / "x.db-wal"
    wal.write_bytes(b"commit")
    assert cache.get("k") is None
    cache.put("k", b"v")
    os.utime(db, ns=(1, 1))
    assert cache.get("k") is None and len(cache) == 0


def test_repeated_answers_come_from_the_cache_and_match_fresh_ones(client, packed):
    cache = client.app.state.errdex.cache
    first = client.get(f"/api/errors/{packed['id']}")
    assert cache.get(("api", None, packed["id"])) == first.content
    again = client.get(f"/api/errors/{packed['id']}")
    assert again.content == first.content and again.headers["content-type"] == "application/json"
    text = "ValueError: Packed decode kernel only supports NK=1 (got K=7, BK=3)."
    one = client.post("/api/match", json={"text": text})
    two = client.post("/api/match", json={"text": text})
    assert one.content == two.content and one.json()["matches"][0]["bindings"] == {"K": "7", "BK": "3"}
    other = client.post("/api/match", json={"text": text.replace("K=7", "K=9")}).json()
    assert other["matches"][0]["bindings"]["K"] == "9"


def test_bound_pages_are_not_served_from_the_plain_page(client, packed):
    plain = client.get(f"/errors/{packed['id']}").text
    bound = client.get(f"/errors/{packed['id']}", params={"bind.K": "98765"}).text
    assert "98765" in bound and "98765" not in plain
    assert client.get(f"/errors/{packed['id']}").text == plain
    assert "98765" not in client.get(f"/errors/{packed['id']}").text


def test_a_removed_dataset_stops_being_served(web_db, tmp_path, asgi_client):
    db = tmp_path / "copy.db"
    shutil.copy(web_db, db)
    app = create_app(db)
    app.state.errdex.cache = ResponseCache(db, check_every_s=0)
    client = asgi_client(app)
    hit = client.get("/api/search", params={"q": "packed decode"}).json()["results"][0]["record"]
    assert client.get(f"/api/errors/{hit['id']}").status_code == 200
    assert client.get(f"/errors/{hit['id']}").status_code == 200
    store = Store.open(db)
    try:
        store.remove_dataset("acme/widgets@1.0")
    finally:
        store.close()
    assert client.get(f"/api/errors/{hit['id']}").status_code == 404
    assert client.get(f"/errors/{hit['id']}").status_code == 404


def test_concurrent_misses_of_one_key_compute_once(tmp_path):
    db = tmp_path / "x.db"
    db.write_bytes(b"x")
    cache = ResponseCache(db)
    calls: list[str] = []

    def render(name: str) -> bytes:
        calls.append(name)
        time.sleep(0.05)  # long enough for every caller to arrive while it runs
        if name == "bad":
            raise LookupError(name)
        return name.encode()

    async def many(key: str) -> list:
        return await asyncio.gather(*(cache.fetch(key, render, key) for _ in range(8)),
                                    return_exceptions=True)

    assert asyncio.run(many("page")) == [b"page"] * 8
    assert calls == ["page"]
    assert asyncio.run(many("page")) == [b"page"] * 8 and calls == ["page"]  # now a plain hit
    failed = asyncio.run(many("bad"))
    assert all(isinstance(e, LookupError) for e in failed) and calls.count("bad") == 1
    asyncio.run(many("bad"))
    assert calls.count("bad") == 2  # failures are not cached


def test_short_pastes_match_inline_only_when_the_engine_is_loaded_and_free(web_db):
    from errdex.web.state import INLINE_MATCH_CHARS

    state = create_app(web_db).state.errdex
    text = "ValueError: Packed decode kernel only supports NK=1 (got K=5, BK=4)."
    assert state.match_now(text) is None               # engine not loaded yet: never on the loop
    threaded = state.match_json(text)
    inline = state.match_now(text.replace("K=5", "K=6"))
    assert inline is not None and inline == state.match_json(text.replace("K=5", "K=6"))
    assert threaded != inline
    assert state.match_now(text + " " * INLINE_MATCH_CHARS) is None
    with state._match_lock:
        assert state.match_now(text) is None            # a thread is matching: go to a thread too


def test_preload_readies_inline_matching(web_db):
    state = create_app(web_db).state.errdex
    text = "ValueError: Packed decode kernel only supports NK=1 (got K=5, BK=4)."
    assert state.match_now(text) is None
    state.preload()
    assert b'"bindings":{"K":"5","BK":"4"}' in state.match_now(text)
