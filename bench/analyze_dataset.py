"""Wall time of the dataset analysis's serial part (`prepare_dataset`) inside a real index run of sglang 0.5.23.

One real `index_tree` into a fresh SQLite file, with the pipeline's `_prepare` call timed (in the
main process, serial); the rest of each record's analysis runs in the publish's encoders and is part
of the publish time. Goal (issue 3): a full index takes at most 1.5x the catalog index (see
bench/index_speed.py). For CPU times of both parts (best of N, caches cold) see bench/analyze_dataset_cpu.py.

    python bench/analyze_dataset.py [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import sglang_tree


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    from errdex import pipeline

    tree = sglang_tree()
    timed: list[float] = []
    inner = pipeline._prepare

    def prepare(records, facts, cb):
        t = time.perf_counter()
        prepared = inner(records, facts, cb)
        timed.append(time.perf_counter() - t)
        return prepared

    pipeline._prepare = prepare   # time the one call inside the real index run
    with tempfile.TemporaryDirectory() as tmp:
        report = pipeline.index_tree(tree, Path(tmp) / "b.db", jobs=args.jobs)
    serial = timed[0]
    print(f"files              {report.files:,}")
    print(f"records            {report.records:,}")
    print(f"full index         {report.seconds:6.2f} s  (jobs={args.jobs})")
    print(f"prepare_dataset    {serial:6.2f} s  serial, {100 * serial / report.seconds:.1f}% of the run")


if __name__ == "__main__":
    main()
