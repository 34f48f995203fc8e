"""Time of the dataset-level analysis (`analyze_dataset`) on sglang 0.5.23, against the index time without it.

Same run: one real `index_tree` into a fresh SQLite file, with the `analyze_dataset` call inside it
timed (single-threaded, in the main process); the index time without it is the rest of that run.
Goal: analyze_dataset < 1.5 s CPU; analysis adds at most 50% to the index time.
For its CPU time alone (best of N, caches cold) see bench/analyze_dataset_cpu.py.

    python bench/analyze_dataset.py [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import sglang_tree  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    from errdex import pipeline

    tree = sglang_tree()
    timed: list[float] = []
    inner = pipeline.analyze_dataset

    def analyze_dataset(records, facts, cb=None):
        t = time.perf_counter()
        inner(records, facts, cb)
        timed.append(time.perf_counter() - t)

    pipeline.analyze_dataset = analyze_dataset   # time the one call inside the real index run
    with tempfile.TemporaryDirectory() as tmp:
        report = pipeline.index_tree(tree, Path(tmp) / "b.db", jobs=args.jobs)
    analysis = timed[0]
    without = report.seconds - analysis
    print(f"files              {report.files:,}")
    print(f"records            {report.records:,}")
    print(f"index w/o it       {without:6.2f} s  (full index run minus analyze_dataset, jobs={args.jobs})")
    print(f"analyze_dataset    {analysis:6.2f} s  (goal < 1.5 s)  adds {100 * analysis / without:.1f}% to the index")

if __name__ == "__main__":
    main()
