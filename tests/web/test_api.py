"""The JSON API through httpx's ASGI transport: shapes, search, match, the error envelope."""

from __future__ import annotations

import pytest

from errdex.models import SEED_FIELDS


def assert_envelope(response, status: int) -> str:
    """Every API error has exactly this shape; returns the message."""
    assert response.status_code == status
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"status", "message"}
    assert body["error"]["status"] == status
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]["message"]


def test_datasets_lists_both_with_counts(client):
    data = client.get("/api/datasets").json()["datasets"]
    by_name = {d["name"]: d for d in data}
    assert set(by_name) == {"acme/widgets@1.0", "evil@0.1"}
    assert by_name["acme/widgets@1.0"]["recordCount"] >= 64
    assert by_name["evil@0.1"]["datasetVersion"]


def test_record_has_every_seed_field_and_dataset_version(client, packed):
    body = client.get(f"/api/errors/{packed['id']}").json()
    assert set(body) == {"record", "datasetVersion"}
    record = body["record"]
    assert list(record)[: len(SEED_FIELDS)] == list(SEED_FIELDS)
    assert record["errorMessage"] == "Packed decode kernel only supports NK=1 (got K={K}, BK={BK})."
    assert record["errdex"]["function"] == "packed_decode"
    assert body["datasetVersion"].endswith("Z")


def test_record_by_slug_and_in_named_dataset(client, packed):
    by_slug = client.get(f"/api/errors/{packed['slug']}").json()["record"]
    assert by_slug["id"] == packed["id"]
    scoped = client.get(f"/api/errors/{packed['id']}", params={"dataset": "acme/widgets@1.0"})
    assert scoped.status_code == 200
    assert_envelope(client.get(f"/api/errors/{packed['id']}", params={"dataset": "evil@0.1"}), 404)


def test_search_ranks_the_message_first_and_filters(client):
    results = client.get("/api/search", params={"q": "outside", "limit": 5}).json()["results"]
    assert results[0]["record"]["errorMessage"].startswith("gemm_ar: M=")
    assert results[0]["dataset"] == "acme/widgets@1.0" and results[0]["score"] > 0
    none = client.get("/api/search", params={"q": "outside", "class": "KeyError"}).json()["results"]
    assert none == []
    many = client.get("/api/search", params={"q": "missing slot", "limit": 7}).json()["results"]
    assert len(many) == 7
    assert {r["record"]["errorClass"] for r in many} == {"KeyError"}


def test_match_returns_the_record_with_bound_values(client, packed):
    text = "ValueError: Packed decode kernel only supports NK=1 (got K=384, BK=256)."
    matches = client.post("/api/match", json={"text": text}).json()["matches"]
    assert matches[0]["id"] == packed["id"]
    assert matches[0]["confidence"] == "high"
    assert matches[0]["bindings"] == {"K": "384", "BK": "256"}


def test_match_of_unrelated_text_is_empty(client):
    assert client.post("/api/match", json={"text": "all good here"}).json() == {"matches": []}


@pytest.mark.parametrize("method,url,kwargs,status", [
    ("GET", "/api/errors/0000000000000000", {}, 404),
    ("GET", "/api/errors/x", {"params": {"dataset": "no/such@1"}}, 404),
    ("GET", "/api/search", {}, 422),
    ("GET", "/api/search", {"params": {"q": "x", "limit": 0}}, 422),
    ("GET", "/api/search", {"params": {"q": "x", "limit": 10_000}}, 422),
    ("POST", "/api/match", {"json": {"txt": 1}}, 422),
    ("POST", "/api/match", {"content": b"{not json", "headers": {"content-type": "application/json"}}, 422),
    ("GET", "/api/nope", {}, 404),
    ("DELETE", "/api/errors/0000000000000000", {}, 405),
    ("PUT", "/api/match", {"json": {"text": "x"}}, 405),
])
def test_every_api_error_uses_the_envelope(client, method, url, kwargs, status):
    assert_envelope(client.request(method, url, **kwargs), status)


def test_declared_body_over_1_mib_gets_413(client):
    body = b'{"text": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    message = assert_envelope(client.post("/api/match", content=body,
                                          headers={"content-type": "application/json"}), 413)
    assert "1024 KiB" in message


def test_streamed_body_over_1_mib_gets_413(client):
    async def chunks():  # no Content-Length: sent chunked
        yield b'{"text": "'
        for _ in range(40):
            yield b"x" * 65536
        yield b'"}'
    message = assert_envelope(client.post("/api/match", content=chunks(),
                                          headers={"content-type": "application/json"}), 413)
    assert "larger than" in message


def test_openapi_document_lists_only_read_routes_and_match(client):
    doc = client.get("/openapi.json").json()
    methods = {(path, m) for path, ops in doc["paths"].items() for m in ops}
    assert methods == {("/api/datasets", "get"), ("/api/errors/{record_id}", "get"),
                       ("/api/errors/{record_id}/history", "get"), ("/api/diff", "get"),
                       ("/api/search", "get"), ("/api/match", "post")}
    assert "ErrorEnvelope" in doc["components"]["schemas"]


def test_slow_queries_are_stopped_with_503(web_db, asgi_client):
    from errdex.web import create_app

    hurried = asgi_client(create_app(web_db, time_limit_s=0.0))
    message = assert_envelope(hurried.get("/api/search", params={"q": "missing slot"}), 503)
    assert "stopped" in message


def test_healthz_is_fixed_and_not_in_the_api_schema(client):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.text == "ok\n"
    assert "content-security-policy" in {k.lower() for k in r.headers}
    assert "/healthz" not in client.get("/openapi.json").json()["paths"]
