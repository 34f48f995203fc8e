"""Time `Store.publish` for 20k synthetic records against a plain-insert baseline.

Prints: the baseline (one executemany of the same JSON text into a
one-column table, same page size, WAL + synchronous=NORMAL, one transaction), a first publish
into an empty store, a repeated publish of the same version (bodies already
stored) and a publish of a second version sharing 99.9% of its bodies, each
with its ratio to the baseline; `json.dumps` of the records alone is shown
too, since encoding is part of every publish and of no baseline insert.

    .venv/bin/python bench/store_publish.py [--records 20000]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from errdex.models import SCHEMA_VERSION, DatasetMeta
from errdex.store import Store
from errdex.store.connection import PAGE_SIZE

_WORDS = ("kernel block tensor shape rank head dim token batch cache request "
          "decode prefill scheduler layer weight quant config model input output").split()


def synthetic_records(count: int, seed: int = 7) -> list[dict]:
    """Records in the seed format with a 37-line source window (~2 KB) each."""
    rng = random.Random(seed)
    lines = [
        "    " * rng.randint(0, 3) + " ".join(rng.choices(_WORDS, k=rng.randint(2, 9)))
        + f" = {rng.randint(0, 999)}"
        for _ in range(5000)
    ]
    records = []
    for i in range(count):
        start = rng.randrange(0, len(lines) - 37)
        path = f"pkg/mod{i // 40}/file{i % 97}.py"
        message = f"{rng.choice(_WORDS)} {rng.choice(_WORDS)} must match (got K={{K}}, n={i})"
        records.append({
            "id": f"{i:016x}", "repo": "bench/repo", "slug": f"slug-{i}", "errorCode": None,
            "errorMessage": message, "messagePattern": message.replace("{K}", "(.+?)"),
            "errorType": "exception", "errorClass": rng.choice(["ValueError", "RuntimeError"]),
            "httpStatus": None, "severity": "error", "filePath": path, "lineNumber": start + 19,
            "sourceCode": "\n".join(lines[start:start + 37]), "sourceCodeStart": start + 1,
            "sourceCodeEnd": start + 37, "githubUrl": None,
            "documentation": " ".join(rng.choices(_WORDS, k=40)),
            "triggerScenarios": "when the shapes differ", "commonSituations": "mismatched config",
            "solutions": ["check the config", "reshape the input"], "exampleFix": None,
            "handlingStrategy": "fix-input", "validationCode": None, "typeGuard": None,
            "tryCatchPattern": None, "preventionTips": ["validate early"],
            "tags": ["shape", "bench"], "backgroundTag": "shape-mismatch",
            "analyzedSha": None, "analyzedAt": "", "schemaVersion": SCHEMA_VERSION,
            "errdex": {"function": f"f{i}", "callers": [], "placeholders": {"K": "K"}},
        })
    return records


def encode_seconds(records: list[dict]) -> float:
    """json.dumps of every record: the floor for hashing bodies with the stdlib encoder."""
    started = time.perf_counter()
    for record in records:
        json.dumps(record, separators=(",", ":"))
    return time.perf_counter() - started


def baseline_seconds(folder: Path, records: list[dict]) -> float:
    """A plain executemany of the records' JSON text: the floor for writing this much data."""
    texts = [(json.dumps(r, separators=(",", ":")),) for r in records]
    conn = sqlite3.connect(folder / "baseline.db", isolation_level=None)
    conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # same pages as the store: a fair floor
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE TABLE t (body TEXT)")
    started = time.perf_counter()
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO t VALUES (?)", texts)
    conn.execute("COMMIT")
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def timed_publish(store: Store, version: str, records: list[dict]) -> float:
    meta = DatasetMeta(repo="bench/repo", version=version, kind="folder",
                       url_base="https://github.com/bench/repo/blob/abc/",
                       analyzed_at="2026-01-01T00:00:00.000Z", file_count=3880)
    started = time.perf_counter()
    store.publish(meta, records, [])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    args = parser.parse_args()
    records = synthetic_records(args.records)
    changed = [dict(r) for r in records]
    for record in changed[:: 1000]:  # 0.1% of sites differ in the next version
        record["lineNumber"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = baseline_seconds(folder, records)
        encode = encode_seconds(records)
        with Store.open(folder / "index.db") as store:
            first = timed_publish(store, "1.0", records)
            repeat = timed_publish(store, "1.0", records)
            second = timed_publish(store, "1.1", changed)
    size_mb = sum(len(json.dumps(r)) for r in records) / 1e6
    window_kb = sum(len(r["sourceCode"]) for r in records) / len(records) / 1e3
    print(f"{args.records} records, {size_mb:.1f} MB of JSON, sourceCode {window_kb:.1f} KB each")
    for label, seconds in (("baseline executemany", base), ("(json.dumps alone)", encode),
                           ("publish (empty store)", first),
                           ("re-publish same version", repeat),
                           ("publish next version (99.9% shared)", second)):
        print(f"{label:38s} {seconds * 1000:8.1f} ms   x{seconds / base:5.2f} of baseline")


if __name__ == "__main__":
    main()
