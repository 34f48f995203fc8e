"""Time of the dataset-level analysis (`analyze_dataset`) on sglang 0.5.23, against the index time without it.

Same run, same process: extracts (from a fresh per-file cache), links and builds the records once,
timing that as the index time without the analysis, then runs `analyze_dataset` on them single-threaded.
Goal (issue 3): analyze_dataset < 2 s; analysis adds at most 50% to the index time.

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
    from errdex.analyze.dataset import analyze_dataset
    from errdex.records import build_records, fill_window
    from errdex.store import Store

    tree = sglang_tree()
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "b.db") as store:
        t0 = time.perf_counter()
        facts, texts, _ = pipeline._extract_all(tree, store, args.jobs, lambda *a: None)
        sites, classes = pipeline.link(facts, tree, args.jobs)
        for s in sites:
            fill_window(s, texts[s.file_path])
        records = build_records(tree, sites, classes, {f.file_path: f.module for f in facts}, "now")
        index_time = time.perf_counter() - t0
        t1 = time.perf_counter()
        analyze_dataset(records, facts)
        analysis = time.perf_counter() - t1
    print(f"files              {len(tree.files):,}")
    print(f"records            {len(records):,}")
    print(f"index w/o analysis {index_time:6.2f} s (extract + link + records, jobs={args.jobs})")
    print(f"analyze_dataset    {analysis:6.2f} s  (goal < 2 s)  adds {100 * analysis / index_time:.1f}% to the index")


if __name__ == "__main__":
    main()
