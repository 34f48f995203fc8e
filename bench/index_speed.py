"""Index speed on the sglang 0.5.23 wheel against the floor (read + ast.parse), same run, same processes.

Prints the floor, the catalog alone (`--no-analysis`, every field of issue 2)
and the full index (with trigger conditions and feeding values, issue 3),
each into a fresh SQLite file, a re-index of the same version after one file
changed (a comment appended; then a message reworded with the lines below it shifted), their
ratios, files/s, the record count and peak RSS.
Goals: catalog <= 1.5x floor and re-index <= 0.2x floor (issue 2);
analysis adds <= 50% to the catalog time (issue 3); peak RSS < 1 GiB.

Every process runs as an installed errdex would, with its modules' bytecode
(cached under ~/.cache/errdex-tests/pyc after one untimed warm-up index);
`--no-bytecode` keeps this environment's setting.

    python bench/index_speed.py [--jobs 2] [--repeat 1] [--no-bytecode]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import bytecode_env, copy_py_tree, python, sglang_tree, timed_run  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1, help="repeat each measurement, keep the best")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="processes inherit this environment's bytecode setting (see _common.bytecode_env)")
    args = ap.parse_args()
    env = bytecode_env(not args.no_bytecode)   # as installed: every process reads its modules' bytecode
    tree = sglang_tree()
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_py_tree(tree, Path(tmp) / "sglang-py")
        n_files = len(tree.files)
        index = [python(), "-m", "errdex", "index", str(root), "--jobs", str(args.jobs), "-q",
                 "--repo", "sgl-project/sglang", "--version", "0.5.23"]
        runs: dict[str, list] = {"floor": [], "catalog": [], "full": [], "reindex": [], "reworded": []}
        for i in range(args.repeat):
            if i == 0:   # untimed: writes the bytecode of every module an index imports
                warm = Path(tmp) / "warm"
                warm.mkdir()
                (warm / "w.py").write_text("def f(x):\n    if x > 1:\n        raise ValueError(f'bad {x}')\n")
                timed_run([*index[:4], str(warm), "-q", "--db", str(Path(tmp) / "warm.db")], env)
            runs["floor"].append(timed_run([python(), str(Path(__file__).parent / "floor_parse.py"), str(root),
                                            str(args.jobs)], env))
            runs["catalog"].append(timed_run(index + ["--db", str(Path(tmp) / f"catalog{i}.db"), "--no-analysis"], env))
            db = Path(tmp) / f"full{i}.db"
            runs["full"].append(timed_run(index + ["--db", str(db)], env))
            target = root / "sglang/kernels/ops/attention/fla/fused_recurrent.py"
            original = target.read_text()
            target.write_text(original + f"\n# touched {i}\n")
            runs["reindex"].append(timed_run(index + ["--db", str(db)], env))
            # A real edit too: a message reworded and the lines below it shifted (the ranking is redone).
            target.write_text(original.replace("Packed decode kernel only supports", "Packed decode kernel supports only",
                                               1).replace("\ndef ", "\n\ndef ", 1))
            runs["reworded"].append(timed_run(index + ["--db", str(db)], env))
            target.write_text(original)
        records = sqlite3.connect(db).execute("SELECT record_count FROM datasets").fetchone()[0]
    best = {k: (min(r.wall for r in v), min(r.cpu for r in v)) for k, v in runs.items()}
    rss = max(r.rss_mib for v in runs.values() for r in v)
    (fw, fc), (cw, cc), (uw, uc), (rw, rc) = best["floor"], best["catalog"], best["full"], best["reindex"]
    ew, ec = best["reworded"]
    print(f"files              {n_files:,}   records {records:,}   jobs {args.jobs}")
    print(f"{'':19}{'wall s':>8}{'cpu s':>8}   ratios (wall / cpu)")
    print(f"floor (read+parse) {fw:8.2f}{fc:8.2f}   {n_files / fw:,.0f} files/s")
    print(f"catalog index      {cw:8.2f}{cc:8.2f}   {cw / fw:.2f}x / {cc / fc:.2f}x floor  (goal <= 1.5x)   {n_files / cw:,.0f} files/s")
    print(f"full index         {uw:8.2f}{uc:8.2f}   {uw / cw:.2f}x / {uc / cc:.2f}x catalog  (goal <= 1.5x)   "
          f"{uw / fw:.2f}x / {uc / fc:.2f}x floor")
    print(f"re-index, 1 change {rw:8.2f}{rc:8.2f}   {rw / fw:.2f}x / {rc / fc:.2f}x floor  (goal <= 0.2x)")
    print(f"  ... message edit {ew:8.2f}{ec:8.2f}   {ew / fw:.2f}x / {ec / fc:.2f}x floor  (a reworded message, lines shifted)")
    print(f"peak RSS           {rss:,} MiB  (goal < 1024 MiB)")


if __name__ == "__main__":
    main()
