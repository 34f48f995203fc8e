"""Load on `errdex serve` with the sglang 0.5.23 dataset: error pages, /api/errors/{id}, /api/match.

16 concurrent clients per endpoint; requests/s and p50/p99 latency for each,
and, in the same run against the same server, the ceiling (`/healthz`, a fixed small response through the same middleware).
Goals (issue 5): /api/errors/{id} >= 50% of the ceiling's
requests/s; p99 < 50 ms for all three. The server caches answers (the index
is read-only while served), so a repeated request measures a cache hit; the
extra "/api/match, distinct texts" case sends a different traceback each
time, so it measures matching itself.

    python bench/serve_load.py [--seconds 8] [--concurrency 16] [--workers 1] [--client auto|wrk|httpx]

The server runs in its own process; the client shares this 2-core machine,
so ratios from the same run are the figures to read.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from _common import CACHE, python, sglang_tree  # noqa: E402


def _sglang_db() -> Path:
    db = CACHE / "bench" / "serve-sglang-0.5.23.db"
    if not db.exists():
        db.parent.mkdir(parents=True, exist_ok=True)
        from errdex.pipeline import index_tree

        index_tree(sglang_tree(), db)
    return db


def _traceback_100_lines(message: str) -> str:
    frames = []
    for i in range(48):
        frames.append(f'  File "/opt/venv/lib/python3.11/site-packages/app/layer{i}.py", line {10 + i}, in step{i}')
        frames.append(f"    out = step{i + 1}(x)")
    return "Traceback (most recent call last):\n" + "\n".join(frames) + f"\nValueError: {message}\n"


#: Marker replaced by a request counter, so each request's text differs.
_VARY = "@@N@@"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wrk(url: str, seconds: int, concurrency: int, method: str, body: dict | None, tmp: str) -> dict:
    """Debian's wrk as the load client (C, one thread): the Python client saturates first on 2 cores."""
    import json
    import re
    import shutil

    cmd = [shutil.which("wrk"), "-t1", f"-c{concurrency}", f"-d{seconds}s", "--latency"]
    if method == "POST":
        script = Path(tmp) / "post.lua"
        encoded = json.dumps(body)
        lua = 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
        if _VARY in encoded:  # a distinct body per request: every one misses the answer cache
            head, tail = encoded.split(_VARY)
            lua += (f"head = {json.dumps(head)}\ntail = {json.dumps(tail)}\nn = 0\n"
                    "request = function()\n  n = n + 1\n"
                    "  return wrk.format(nil, nil, nil, head .. n .. tail)\nend\n")
        else:
            lua += f"wrk.body = {json.dumps(encoded)}\n"
        script.write_text(lua)
        cmd += ["-s", str(script)]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, check=True).stdout

    def ms(label: str) -> float:
        value, unit = re.search(rf"{label}\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: .*", out)
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), "p50": ms("50%"),
            "p99": ms("99%"), "failures": int(bad.group(1)) if bad else (1 if errors else 0)}


async def _load(url: str, n: int, concurrency: int, method: str = "GET", body: dict | None = None):
    latencies: list[float] = []
    failures = 0
    queue = iter(range(n))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        async def worker() -> None:
            nonlocal failures
            for i in queue:
                t = time.perf_counter()
                payload = body and {k: v.replace(_VARY, str(i)) for k, v in body.items()}
                r = await (client.post(url, json=payload) if method == "POST" else client.get(url))
                latencies.append(time.perf_counter() - t)
                failures += r.status_code != 200
        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - start
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000  # noqa: E731
    return {"rps": n / wall, "p50": pick(0.50), "p99": pick(0.99), "failures": failures}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seconds", type=int, default=8, help="per endpoint, with wrk")
    ap.add_argument("--client", choices=["auto", "wrk", "httpx"], default="auto",
                    help="load client: wrk when installed (auto), else httpx in this process")
    args = ap.parse_args()
    db = _sglang_db()
    port = _free_port()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "ERRDEX_HOME": home}
        server = subprocess.Popen([python(), "-m", "errdex", "serve", "--db", str(db), "--port", str(port),
                                   "--workers", str(args.workers)], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    if httpx.get(f"{base}/api/datasets", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            record = httpx.get(f"{base}/api/errors/packed-decode-kernel-only-supports-nk-1-got-k-k").json()["record"]
            text = _traceback_100_lines("Packed decode kernel only supports NK=1 (got K=0, BK=1).")
            httpx.post(f"{base}/api/match", json={"text": text}, timeout=120)  # build/load the engine once
            cases = [
                ("ceiling: /healthz (fixed)", f"{base}/healthz", "GET", None),
                ("/api/errors/{id}", f"{base}/api/errors/{record['id']}", "GET", None),
                ("error page /errors/{id}", f"{base}/errors/{record['id']}", "GET", None),
                ("/api/match (100-line traceback)", f"{base}/api/match", "POST", {"text": text}),
                ("/api/match, distinct texts", f"{base}/api/match", "POST",
                 {"text": text + f"# paste {_VARY}\n"}),
            ]
            import shutil

            use_wrk = args.client == "wrk" or (args.client == "auto" and shutil.which("wrk"))
            from importlib.util import find_spec

            print(f"client: {'wrk' if use_wrk else 'httpx'}, {args.concurrency} connections; server:"
                  f" {args.workers} worker(s), loop {'uvloop' if find_spec('uvloop') else 'asyncio'},"
                  f" http {'httptools' if find_spec('httptools') else 'h11'}; load {os.getloadavg()[0]:.2f}")
            results = {name: (_wrk(url, args.seconds, args.concurrency, method, body, home) if use_wrk
                              else asyncio.run(_load(url, args.requests, args.concurrency, method, body)))
                       for name, url, method, body in cases}
        finally:
            server.terminate()
            server.wait(timeout=30)
    ceiling = results["ceiling: /healthz (fixed)"]["rps"]
    print(f"{'endpoint':34}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'fail':>6}   vs ceiling")
    for name, r in results.items():
        print(f"{name:34}{r['rps']:9.0f}{r['p50']:9.1f}{r['p99']:9.1f}{r['failures']:6d}   {r['rps'] / ceiling:.2f}x")
    api = results["/api/errors/{id}"]
    worst = max(r["p99"] for n, r in results.items() if not n.startswith("ceiling"))
    print(f"goal: /api/errors/{{id}} >= 0.50x ceiling -> {api['rps'] / ceiling:.2f}x; "
          f"p99 < 50 ms for all -> {worst:.1f} ms worst")


if __name__ == "__main__":
    main()
