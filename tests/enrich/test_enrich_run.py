"""Enrich runs against a real chat-completions server on 127.0.0.1."""

import time

import pytest
from .fakellm import FakeLLM, Reply, answer

from errdex.enrich import ClientConfig, EndpointError, EnrichConfig, enrich_dataset
from errdex.store import Store

GEMM = "gemm_ar: M={M} exceeds 512"
MULT = "N={N} must be a positive multiple of 16"


def good(rid: str) -> dict:
    return {"id": rid, "documentation": "gemm_ar raises this when M > 512, beyond the tuned cells.",
            "solutions": ["Split the input so that each call has M of at most 512 rows."],
            "exampleFix": "for start in range(0, M, 512):\n    gemm_ar(min(512, M - start), N)"}


def config(url: str, **kw) -> EnrichConfig:
    client = dict(concurrency=kw.pop("concurrency", 2), retries=kw.pop("retries", 3),
                  backoff=0.01, timeout=kw.pop("timeout", 5.0))
    return EnrichConfig(ClientConfig(url, "fake-model", **client), **kw)


def vars_of(client: ClientConfig) -> dict:
    return {name: getattr(client, name) for name in client.__slots__}


def read(db) -> dict:
    with Store.open(db) as store:
        return {r["errorMessage"]: r for r in store.iter_records()}


def test_contradicting_claim_is_rejected_and_good_answer_stored(indexed):
    db, records = indexed
    gemm, mult = records[GEMM]["id"], records[MULT]["id"]

    def script(n, ids, body):
        entries = []
        for rid in ids:
            if rid == gemm:  # the catalog's mistake: M <= 0 cannot reach this raise
                entries.append({"id": rid, "documentation": "gemm_ar raises GemmError when M <= 0.",
                                "triggerScenarios": "Calling gemm_ar with M = 0 or a negative M."})
            elif rid == mult:
                entries.append({"id": rid, "documentation": "Raised when N is not a positive multiple of 16, e.g. N = 24.",
                                "solutions": ["Pad N up to the next multiple of 16."]})
            else:
                entries.append({"id": rid})
        return Reply(content=answer(*entries))

    with FakeLLM(script) as server, Store.open(db) as store:
        report = enrich_dataset(store, config(server.url, batch_size=4))
    assert report.enriched == 3 and report.failed == 0
    after = read(db)
    prov = after[GEMM]["errdex"]["provenance"]
    assert prov["documentation"] == "model-rejected:contradicts-condition"
    assert prov["triggerScenarios"] == "model-rejected:contradicts-condition"
    assert after[GEMM]["documentation"] == records[GEMM]["documentation"]  # static text kept
    assert after[MULT]["documentation"].startswith("Raised when N is not")
    assert after[MULT]["errdex"]["provenance"]["documentation"] == "model:fake-model"
    assert after[MULT]["solutions"] == ["Pad N up to the next multiple of 16."]
    assert report.fields_rejected == 2 and report.fields_accepted == 2
    assert report.tokens_in > 0 and report.requests == 1


def test_cache_skips_unchanged_facts_and_asks_only_changed(indexed, tmp_path):
    db, records = indexed
    with FakeLLM(lambda n, ids, b: Reply(content=answer(*map(good, ids)))) as server:
        with Store.open(db) as store:
            first = enrich_dataset(store, config(server.url))
        with Store.open(db) as store:
            second = enrich_dataset(store, config(server.url))
        assert first.enriched == 3 and second.enriched == 0 and second.cached == 3
        before = len(server.log)
        # Re-index with a file added and ops.py unchanged: only the new record is asked about.
        (tmp_path / "src" / "kern" / "extra.py").write_text(
            "def f(n):\n    if n == 3:\n        raise ValueError(f'bad n={n}')\n")
        from errdex.pipeline import index_source
        index_source(str(tmp_path / "src"), str(db))
        with Store.open(db) as store:
            third = enrich_dataset(store, config(server.url))
        asked = [rid for _, ids in server.log[before:] for rid in ids]
    new_id = read(db)["bad n={n}"]["id"]
    assert third.cached == 3 and third.enriched == 1
    assert asked == [new_id] and new_id not in records
    assert read(db)[GEMM]["errdex"]["provenance"]["solutions"] == "model:fake-model"


def test_malformed_json_retried_one_by_one(indexed):
    db, records = indexed
    gemm = records[GEMM]["id"]
    calls = {"gemm": 0}

    def script(n, ids, body):
        if len(ids) > 1:
            return Reply(content="Sure! Here is the JSON: {\"records\": [")  # cut off
        if ids == [gemm]:
            calls["gemm"] += 1
            return Reply(content="not json at all")
        return Reply(content="```json\n" + answer(good(ids[0])) + "\n```")

    with FakeLLM(script) as server, Store.open(db) as store:
        report = enrich_dataset(store, config(server.url, batch_size=3))
    assert report.enriched == 2 and report.failed == 1 and calls["gemm"] == 2
    assert model_provenance(read(db)[GEMM]) == {}
    # The failed record is not cached: the next run asks about it alone.
    with FakeLLM(lambda n, ids, b: Reply(content=answer(*map(good, ids)))) as server:
        with Store.open(db) as store:
            again = enrich_dataset(store, config(server.url))
        assert server.asked() == [gemm] and again.cached == 2 and again.enriched == 1


def test_429_with_retry_after_and_5xx_are_retried(indexed):
    db, _ = indexed

    def script(n, ids, body):
        if n == 0:
            return Reply(status=429, headers={"Retry-After": "0.3"})
        if n == 1:
            return Reply(status=503)
        return Reply(content=answer(*map(good, ids)))

    with FakeLLM(script) as server, Store.open(db) as store:
        report = enrich_dataset(store, config(server.url, batch_size=8, concurrency=1))
        times = [t for t, _ in server.log]
    assert report.enriched == 3 and report.requests == 3
    assert times[1] - times[0] >= 0.28   # waited as Retry-After said


def test_timeouts_are_retried_then_reported(indexed):
    db, _ = indexed

    def script(n, ids, body):
        return Reply(content=answer(*map(good, ids)), delay=0.8 if n == 0 else 0.0)

    with FakeLLM(script) as server, Store.open(db) as store:
        report = enrich_dataset(store, config(server.url, batch_size=8, timeout=0.3))
    assert report.enriched == 3 and report.requests == 2

    with FakeLLM(lambda n, ids, b: Reply(delay=0.8)) as server, Store.open(db) as store:
        started = time.monotonic()
        with pytest.raises(EndpointError, match="ReadTimeout"):
            cfg = config(server.url, batch_size=8, timeout=0.2, retries=1)
            enrich_dataset(store, EnrichConfig(ClientConfig(**{**vars_of(cfg.client), "model": "other"}),
                                               batch_size=8))
        assert time.monotonic() - started < 3
        assert len(server.log) == 2


def test_server_dies_mid_run_then_resume_repeats_nothing(indexed_many):
    db, records = indexed_many
    assert len(records) >= 10
    server_box = {}

    def script(n, ids, body):
        if n >= 3:   # the server goes away after three answers (any request still in flight: 500)
            server_box["s"]._server.should_exit = True
            return Reply(status=500)
        return Reply(content=answer(*map(good, ids)))

    with FakeLLM(script) as server, Store.open(db) as store:
        server_box["s"] = server
        with pytest.raises(EndpointError):
            enrich_dataset(store, config(server.url, batch_size=2, concurrency=1, retries=2))
        first_asked = server.asked()
    done = {r["id"] for r in read(db).values() if model_provenance(r)}
    assert len(done) == 6 and set(first_asked[:6]) == done
    with FakeLLM(lambda n, ids, b: Reply(content=answer(*map(good, ids)))) as server:
        with Store.open(db) as store:
            report = enrich_dataset(store, config(server.url, batch_size=2))
        asked = server.asked()
    assert not set(asked) & done
    assert set(asked) | done == {r["id"] for r in records}
    assert report.cached == 6 and report.enriched == len(records) - 6


def model_provenance(record: dict) -> dict:
    """The fields a model wrote (the static analyzer fills provenance for its own fields too)."""
    return {k: v for k, v in record["errdex"]["provenance"].items() if str(v).startswith("model")}
