"""Index speed on the sglang 0.5.23 wheel against the floor (read + ast.parse), same run, same processes.

Prints the floor, the catalog alone (`--no-analysis`, every field of issue 2)
and the full index (with trigger conditions and feeding values, issue 3),
each into a fresh SQLite file, a re-index of the same version after one file
changed, their ratios, files/s, the record count and peak RSS.
Goals: catalog <= 1.5x floor and re-index <= 0.2x floor (issue 2);
analysis adds <= 50% to the catalog time (issue 3); peak RSS < 1 GiB.

    python bench/index_speed.py [--jobs 2] [--repeat 1]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import copy_py_tree, python, sglang_tree, timed_run  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1, help="repeat each measurement, keep the best")
    args = ap.parse_args()
    tree = sglang_tree()
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_py_tree(tree, Path(tmp) / "sglang-py")
        n_files = len(tree.files)
        index = [python(), "-m", "errdex", "index", str(root), "--jobs", str(args.jobs), "-q",
                 "--repo", "sgl-project/sglang", "--version", "0.5.23"]
        floor = catalog = full = reindex = float("inf")
        rss = 0
        for i in range(args.repeat):
            floor = min(floor, timed_run([python(), str(Path(__file__).parent / "floor_parse.py"), str(root), str(args.jobs)])[0])
            t, r = timed_run(index + ["--db", str(Path(tmp) / f"catalog{i}.db"), "--no-analysis"])
            catalog, rss = min(catalog, t), max(rss, r)
            db = Path(tmp) / f"full{i}.db"
            t, r = timed_run(index + ["--db", str(db)])
            full, rss = min(full, t), max(rss, r)
            target = root / "sglang/kernels/ops/attention/fla/fused_recurrent.py"
            target.write_text(target.read_text() + f"\n# touched {i}\n")
            t, r = timed_run(index + ["--db", str(db)])
            reindex, rss = min(reindex, t), max(rss, r)
        records = sqlite3.connect(db).execute("SELECT record_count FROM datasets").fetchone()[0]
    print(f"files              {n_files:,}")
    print(f"records            {records:,}")
    print(f"floor (read+parse) {floor:6.2f} s  ({n_files / floor:,.0f} files/s)")
    print(f"catalog index      {catalog:6.2f} s  ({n_files / catalog:,.0f} files/s)  ratio {catalog / floor:.2f}x floor  (goal <= 1.5x)")
    print(f"full index         {full:6.2f} s  ({n_files / full:,.0f} files/s)  ratio {full / floor:.2f}x floor, "
          f"{full / catalog:.2f}x catalog  (goal <= 1.5x catalog)")
    print(f"re-index, 1 change {reindex:6.2f} s  ratio {reindex / floor:.2f}x  (goal <= 0.2x)")
    print(f"peak RSS           {rss:,} MiB  (goal < 1024 MiB)")


if __name__ == "__main__":
    main()
