"""Enrich throughput against a local chat server with a fixed 200 ms latency per request.

Indexes a small generated package, then enriches it at concurrency 1, 4 and
16 (a fresh model name each time, so nothing is cached) and prints records/s.
Goal: rate(c) >= 0.8 * c * rate(1) for c up to 16.

    .venv/bin/python bench/enrich_throughput.py [--records 160] [--batch-size 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "enrich"))

from fakellm import FakeLLM, Reply, answer  # noqa: E402

from errdex.enrich import ClientConfig, EnrichConfig, enrich_dataset  # noqa: E402
from errdex.pipeline import index_source  # noqa: E402
from errdex.store import Store  # noqa: E402

LATENCY = 0.2


def write_package(root: Path, count: int) -> None:
    """`count` functions with one guarded raise each, far enough apart for distinct facts."""
    pkg = root / "benchpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    body = "".join(f"def check_{i}(x):\n    if x > {i}:\n        raise ValueError(f'x={{x}} above {i}')\n    return x\n\n\n"
                   for i in range(count))
    (pkg / "ops.py").write_text(body)


def reply(n: int, ids: list[str], body: dict) -> Reply:
    entries = [{"id": rid, "solutions": ["Pass a smaller x."]} for rid in ids]
    return Reply(content=answer(*entries), delay=LATENCY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=160)
    parser.add_argument("--batch-size", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src, db = Path(tmp) / "src", Path(tmp) / "bench.db"
        write_package(src, args.records)
        index_source(str(src), str(db))
        rates: dict[int, float] = {}
        with FakeLLM(reply) as server, Store.open(db) as store:
            for concurrency in (1, 4, 16):
                # Sequential is slow (0.2 s/request): measure it on a slice of the records.
                limit = min(args.records, 20 * args.batch_size) if concurrency == 1 else None
                config = EnrichConfig(ClientConfig(server.url, f"bench-c{concurrency}",
                                                   concurrency=concurrency),
                                      limit=limit, batch_size=args.batch_size)
                started = time.perf_counter()
                report = enrich_dataset(store, config)
                seconds = time.perf_counter() - started
                rates[concurrency] = report.enriched / seconds
                goal = 0.8 * concurrency * rates[1]
                verdict = "ok" if rates[concurrency] >= goal else "BELOW GOAL"
                print(f"concurrency {concurrency:2d}: {report.enriched:4d} records in {seconds:6.2f} s"
                      f" = {rates[concurrency]:7.2f} records/s  (goal >= {goal:.2f}: {verdict};"
                      f" {report.requests} requests)")


if __name__ == "__main__":
    main()
