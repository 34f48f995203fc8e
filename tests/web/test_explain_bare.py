"""The explain page and API on a bare-template line: one low-confidence match naming its candidates."""

import pytest

from errdex.pipeline import index_source
from errdex.web import create_app

from .conftest import write_tree

CHECKS = {
    "checks/__init__.py": "",
    "checks/core.py": '''
        def block(x, y):
            assert x > 0, f"{y}"

        def dtype(d):
            assert d in ("bf16", "fp16"), f"{d!r}"

        def shape(a, b):
            assert a == b, f"{a}, {b}"
    ''',
}


@pytest.fixture(scope="module")
def bare_client(tmp_path_factory, asgi_client):
    base = tmp_path_factory.mktemp("baredb")
    db = base / "errdex.db"
    index_source(str(write_tree(base / "checks", CHECKS)), db, repo="acme/checks", version="1.0", jobs=1)
    return asgi_client(create_app(db))


def test_api_and_page_name_the_candidates(bare_client):
    (m,) = bare_client.post("/api/match", json={"text": "AssertionError: 1, 2"}).json()["matches"]
    assert (m["matchKind"], m["confidence"], m["via"], m["candidates"]) == ("bare", "low", "class", 3)
    others = [rid for rid in m["candidateIds"] if rid != m["id"]]
    assert len(m["candidateIds"]) == 3 and len(others) == 2
    html = bare_client.post("/explain", data={"text": "AssertionError: 1, 2"}).text
    assert "first of 3 sites raising AssertionError" in html and "low confidence" in html
    for rid in others:
        assert f'href="/errors/{rid}"' in html
    html = bare_client.post("/explain", data={"text": "TypeError: 4096"}).text
    assert "No indexed error matches this text." in html
