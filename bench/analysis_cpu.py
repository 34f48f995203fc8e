"""CPU cost of the extraction walker and of per-site analysis, relative to parsing.

Single process, CPU time (`time.process_time()`), so a busy shared machine
does not skew it. Three runs over the same files: read + `ast.parse` (the
floor), plain `extract_file` (walker), `extract_file` with `analyze_site`.
Prints the three times and the two ratios to parse:

    walker   = (plain - parse) / parse        goal <= 0.20
    analysis = (analyze - plain) / parse      goal <= 0.35

Usage: python bench/analysis_cpu.py [ROOT] [--every N] [--profile]
ROOT defaults to the cached sglang 0.5.23 wheel tree.
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import gc
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from errdex.analyze.site import analyze_site  # noqa: E402
from errdex.extract.files import extract_file  # noqa: E402
from errdex.extract.scope import module_name  # noqa: E402


def _files(root: str, every: int) -> list[str]:
    found = sorted(os.path.relpath(os.path.join(d, f), root)
                   for d, _, names in os.walk(root) for f in names if f.endswith(".py"))
    return found[::every]


def _cpu(run) -> float:
    gc.collect()
    start = time.process_time()
    run()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?")
    parser.add_argument("--every", type=int, default=3, help="take every Nth file (default 3)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile listing")
    opts = parser.parse_args()
    if opts.root is None:
        from _common import sglang_tree

        opts.root = str(sglang_tree().root)
    root = opts.root
    files = _files(root, opts.every)
    packages = frozenset(os.path.dirname(f) for f in files if f.endswith("__init__.py"))
    modules = {f: module_name(f, packages) for f in files}

    def parse() -> None:
        for f in files:
            try:
                ast.parse(Path(root, f).read_bytes())
            except (SyntaxError, ValueError, RecursionError):
                pass

    def extract(analyze=None) -> None:
        for f in files:
            extract_file(root, f, modules[f], analyze=analyze)

    parse_s = _cpu(parse)
    plain_s = _cpu(extract)
    full_s = _cpu(lambda: extract(analyze_site))
    print(f"files     {len(files)}")
    print(f"parse     {parse_s:.2f} s CPU")
    print(f"plain     {plain_s:.2f} s CPU")
    print(f"analyze   {full_s:.2f} s CPU")
    print(f"walker    {(plain_s - parse_s) / parse_s:.0%} of parse")
    print(f"analysis  {(full_s - plain_s) / parse_s:.0%} of parse")
    if opts.profile:
        profile = cProfile.Profile()
        profile.runcall(extract, analyze_site)
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
