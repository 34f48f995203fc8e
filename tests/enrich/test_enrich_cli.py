"""`errdex enrich` as a real subprocess: the final line, and a SIGKILLed run that resumes."""

import os
import signal
import subprocess
import sys
import time

from .fakellm import FakeLLM, Reply, answer

from errdex.store import Store


def good(rid):
    return {"id": rid, "solutions": ["Pass a value that satisfies the check before calling."]}


def cli(db, url, *extra):
    return [sys.executable, "-m", "errdex", "enrich", "--db", str(db), "--endpoint", url,
            "--model", "fake-model", "--backoff", "0.01", *extra]


def stored_ids(db):
    with Store.open(db) as store:
        return {r["id"] for r in store.iter_records()
                if any(str(v).startswith("model") for v in r["errdex"]["provenance"].values())}


def test_cli_final_line_and_api_key(indexed, tmp_path):
    db, records = indexed
    seen = []

    def script(n, ids, body):
        seen.append(body["model"])
        return Reply(content=answer(*map(good, ids)))

    env = {**os.environ, "ERRDEX_HOME": str(tmp_path / "home"), "MY_KEY": "sekret"}
    with FakeLLM(script) as server:
        proc = subprocess.run(cli(db, server.url, "--api-key-env", "MY_KEY"), env=env,
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.strip().splitlines()[-1]
    assert line.startswith("3/3 records done (3 enriched, 0 cached")
    assert "tokens in 100 / out 50" in line and "1 requests" in line
    assert seen == ["fake-model"] and stored_ids(db) == {r["id"] for r in records.values()}
    missing = subprocess.run(cli(db, "http://127.0.0.1:9/v1", "--api-key-env", "NOPE_UNSET"),
                             env=env, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "NOPE_UNSET" in missing.stderr


def test_killed_run_resumes_without_repeating(indexed_many, tmp_path):
    db, records = indexed_many
    slow = lambda n, ids, b: Reply(content=answer(*map(good, ids)), delay=0.15)  # noqa: E731
    env = {**os.environ, "ERRDEX_HOME": str(tmp_path / "home")}
    with FakeLLM(slow) as server:
        proc = subprocess.Popen(cli(db, server.url, "--concurrency", "1", "--batch-size", "1"),
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while len(server.log) < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    done = stored_ids(db)
    assert 3 <= len(done) < len(records)
    with FakeLLM(lambda n, ids, b: Reply(content=answer(*map(good, ids)))) as server:
        proc = subprocess.run(cli(db, server.url), env=env, capture_output=True, text=True,
                              timeout=60)
        asked = server.asked()
    assert proc.returncode == 0, proc.stderr
    assert not set(asked) & done and len(asked) == len(records) - len(done)
    assert stored_ids(db) == {r["id"] for r in records}
    assert f"({len(asked)} enriched, {len(done)} cached" in proc.stdout
