"""The app over a real uvicorn server on a free 127.0.0.1 port, and a schemathesis run."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest


def test_api_over_a_real_socket(server, packed):
    with httpx.Client(base_url=server, timeout=10) as http:
        body = http.get(f"/api/errors/{packed['id']}").json()
        assert body["record"]["id"] == packed["id"] and body["datasetVersion"]
        page = http.get(f"/errors/{packed['id']}")
        assert "default-src 'none'" in page.headers["content-security-policy"]
        text = "ValueError: Packed decode kernel only supports NK=1 (got K=384, BK=256)."
        matches = http.post("/api/match", json={"text": text}).json()["matches"]
        assert matches[0]["id"] == packed["id"] and matches[0]["confidence"] == "high"


def test_two_mib_body_gets_413_over_a_real_socket(server):
    with httpx.Client(base_url=server, timeout=10) as http:
        declared = http.post("/api/match", content=b"x" * (2 * 1024 * 1024),
                             headers={"content-type": "application/json"})
        assert declared.status_code == 413 and declared.json()["error"]["status"] == 413

        def chunked():
            for _ in range(32):
                yield b"x" * 65536
        streamed = http.post("/api/match", content=chunked(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413 and "larger than" in streamed.json()["error"]["message"]


def test_concurrent_requests_all_succeed(server, packed):
    urls = [f"/api/errors/{packed['id']}", f"/errors/{packed['id']}", "/api/search?q=outside", "/"] * 50

    limits = httpx.Limits(max_connections=16)
    with httpx.Client(base_url=server, timeout=20, limits=limits) as http, ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(lambda url: http.get(url).status_code, urls))
    assert statuses == [200] * len(urls)


def test_schemathesis_finds_no_server_errors(server):
    schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed")
    from hypothesis import HealthCheck, settings

    schema = schemathesis.openapi.from_url(f"{server}/openapi.json")
    failures = []
    for operation in schema.get_all_operations():
        op = operation.ok()

        @settings(max_examples=25, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case) -> None:
            response = case.call(base_url=server)
            assert response.status_code < 500, (case.path, response.status_code, response.text[:300])
            if response.status_code >= 400:
                assert set(response.json()) == {"error"}

        try:
            op.as_strategy()  # fail early if the operation cannot be generated
            from hypothesis import given
            given(op.as_strategy())(check)()
        except AssertionError as exc:
            failures.append(str(exc))
    assert failures == []
