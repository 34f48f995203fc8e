"""Many versions in one index vs one index each: 10 sglang releases (0.5.14 .. 0.5.23) from PyPI.

Indexes the releases oldest first into one SQLite file (the shared run:
per-file results are reused across versions by content, identical record
bodies are stored once), then each release alone into a fresh file. Prints
both times and sizes and their ratios. Goals (issue 7): shared time <= 40%
of the sum of the separate runs, shared size <= 30% of the sum of sizes.
Wall time and CPU time (this process plus its worker processes) are both
reported; on a shared machine the CPU ratio is the steadier figure.
Also checks the issue's acceptance on the shared file: the 0.5.22 -> 0.5.23
diff accounts for every record of 0.5.23 exactly once, and unchanged sites
keep their id.

Wheels are downloaded once into ERRDEX_HOME (default ~/.cache/errdex-tests/home).

    python bench/versions.py [--jobs 2] [--first 14] [--last 23]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import sglang_tree  # noqa: E402

REPO = "sgl-project/sglang"


def _cpu() -> float:
    """CPU seconds of this process and its waited-for workers: steadier than wall time on a shared machine."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _index(tree, db: Path, jobs: int) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, records) of one index run."""
    from errdex.pipeline import index_tree

    started, cpu = time.perf_counter(), _cpu()
    report = index_tree(tree, db, jobs=jobs)
    return time.perf_counter() - started, _cpu() - cpu, report.records


def _size(db: Path) -> int:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))


def _tables(db: Path) -> dict[str, float]:
    """MiB per table and index of the file (empty when SQLite lacks the dbstat table)."""
    import sqlite3

    try:
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    except sqlite3.Error:
        return {}
    return {name: round(size / 2**20, 1) for name, size in rows if size >= 2**19}


def check_diff(db: Path, a: str, b: str) -> dict:
    """The issue's check: every record of B once; ids of unchanged sites equal in both."""
    from errdex.store import Store
    from errdex.versions import diff_datasets

    with Store.open(db, readonly=True) as store:
        result = diff_datasets(store, f"{REPO}@{a}", f"{REPO}@{b}").as_dict()
        b_ids = [r["id"] for r in store.iter_records(f"{REPO}@{b}")]
        a_ids = {r["id"] for r in store.iter_records(f"{REPO}@{a}")}
    listed = result["added"] + [c["id"] for c in result["changed"]]
    unchanged_ids = set(b_ids) - set(listed)
    return {"records_b": len(b_ids), "added": len(result["added"]), "removed": len(result["removed"]),
            "changed": len(result["changed"]), "unchanged": result["unchanged"],
            "every_record_once": len(listed) == len(set(listed)) and len(listed) + result["unchanged"] == len(b_ids),
            "unchanged_keep_id": unchanged_ids <= a_ids and len(unchanged_ids) == result["unchanged"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--first", type=int, default=14)
    ap.add_argument("--last", type=int, default=23)
    args = ap.parse_args()
    versions = [f"0.5.{n}" for n in range(args.first, args.last + 1)]
    trees = []
    for v in versions:  # downloads (cached) stay outside the timings
        print(f"resolving sglang {v}", file=sys.stderr)
        trees.append(dataclasses.replace(sglang_tree(v), repo=REPO))
    with tempfile.TemporaryDirectory() as tmp:
        shared_db = Path(tmp) / "shared.db"
        shared_times, shared_cpu = [], []
        for tree in trees:
            seconds, cpu, records = _index(tree, shared_db, args.jobs)
            shared_times.append(seconds)
            shared_cpu.append(cpu)
            print(f"shared   {tree.version}: {seconds:6.1f}s {cpu:6.1f}s cpu {records:6d} records", file=sys.stderr)
        shared_tables = _tables(shared_db)
        separate_times, separate_cpu, separate_sizes = [], [], []
        separate_tables: dict[str, float] = {}
        for tree in trees:
            db = Path(tmp) / f"alone-{tree.version}.db"
            seconds, cpu, records = _index(tree, db, args.jobs)
            separate_times.append(seconds)
            separate_cpu.append(cpu)
            separate_sizes.append(_size(db))
            for name, mib in _tables(db).items():
                separate_tables[name] = round(separate_tables.get(name, 0) + mib, 1)
            print(f"separate {tree.version}: {seconds:6.1f}s {cpu:6.1f}s cpu {records:6d} records", file=sys.stderr)
            db.unlink()
        shared_size = _size(shared_db)
        check = check_diff(shared_db, versions[-2], versions[-1]) if len(versions) > 1 else {}
    out = {
        "versions": versions, "jobs": args.jobs,
        "shared_seconds": round(sum(shared_times), 1), "separate_seconds": round(sum(separate_times), 1),
        "time_ratio": round(sum(shared_times) / sum(separate_times), 3),
        "shared_cpu_seconds": round(sum(shared_cpu), 1), "separate_cpu_seconds": round(sum(separate_cpu), 1),
        "cpu_ratio": round(sum(shared_cpu) / sum(separate_cpu), 3),
        "shared_bytes": shared_size, "separate_bytes": sum(separate_sizes),
        "size_ratio": round(shared_size / sum(separate_sizes), 3),
        "goals": {"time_ratio_max": 0.4, "size_ratio_max": 0.3},
        "per_version_shared_seconds": [round(t, 1) for t in shared_times],
        "per_version_separate_seconds": [round(t, 1) for t in separate_times],
        "per_version_shared_cpu": [round(t, 1) for t in shared_cpu],
        "per_version_separate_cpu": [round(t, 1) for t in separate_cpu],
        "shared_tables_mib": shared_tables, "separate_tables_mib": separate_tables,
        "diff_check": check,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
