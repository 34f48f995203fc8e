"""Benchmark `errdex scan` on a 200 MB synthetic log against the sglang 0.5.23 index.

Run: `.venv/bin/python bench/match_speed.py [--size-mb 200] [--keep]`

In one run it measures
  * the floor: read the file and split it into lines in Python;
  * reading the log line by line in Python (text mode), the yardstick of the
    issue's independent check (100 MB: `--size-mb 100`), in this process and,
    printed next to it, in a fresh Python process (start-up included, as the
    scans below are timed);
  * a good pure-Python matcher: pyahocorasick on each pattern's longest
    whitespace-free literal token, then `re` on the flagged lines;
  * `errdex scan --json` as a whole process (startup, engine load, scan),
    with `--jobs 1` and with `--jobs N` (default: CPU count);
and prints throughputs, ratios, the engine's build/load time and memory, and
checks that errdex and the reference find the same lines (and that both job
counts print the same report). Goals: errdex >= 8x the pure-Python matcher,
and within 3x the floor. The floor and the scans are timed best of `--repeat`
(3), wall and CPU (children included); the load average is printed: on a
shared machine wall-clock ratios swing from run to run.

The index lives under ~/.cache/errdex-tests/ (built once); the log is written
with a fixed seed to a temporary folder (1% error lines rendered from random
templates with random values).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import bytecode_env  # noqa: E402

CACHE = Path.home() / ".cache" / "errdex-tests"
WHEEL = CACHE / "dl" / "sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl"
DB = CACHE / "bench" / "sglang-0.5.23.db"
SEED = 20240501
VALUES = ["0", "7", "128", "4096", "'bf16'", "torch.float16", "(2, 3)", "None", "'model.layers.3'", "1e-05"]
PLAIN = [
    "INFO scheduler: Decode batch. #running-req: {n}, #token: {m}, token usage: 0.{n}, gen throughput (token/s): {m}.{n}",
    "INFO tokenizer_manager: Receive: obj=GenerateReqInput(rid='{h}', text_len={m})",
    "DEBUG model_runner: Capture cuda graph bs {n} took {m} ms",
    "INFO http: 127.0.0.1:{m} - \"POST /generate HTTP/1.1\" 200 OK",
    "WARNING memory_pool: KV cache pool at {n}% of capacity, evicting {m} pages",
]


def ensure_index() -> Path:
    """Index pypi:sglang==0.5.23 from the cached wheel into DB: once, then again in place (a quick
    no-op when nothing changed; a newer errdex's extraction otherwise, so the templates are its own)."""
    if DB.exists():
        from errdex.store import Store, StoreError

        try:
            Store.open(DB, readonly=True).close()
        except StoreError as exc:  # an older schema: index again
            print(f"re-indexing: {exc}")
            for old in DB.parent.glob(DB.name + "*"):
                shutil.rmtree(old) if old.is_dir() else old.unlink()
    home = CACHE / "home"
    downloads = home / "cache" / "downloads" / "sglang" / "0.5.23"
    downloads.mkdir(parents=True, exist_ok=True)
    if WHEEL.exists() and not (downloads / WHEEL.name).exists():
        shutil.copy2(WHEEL, downloads / WHEEL.name)
    os.environ["ERRDEX_HOME"] = str(home)
    from errdex.pipeline import index_source

    DB.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    index_source("pypi:sglang==0.5.23", DB)
    print(f"indexed sglang 0.5.23 in {time.perf_counter() - started:.1f} s -> {DB}")
    return DB


def load_templates(db: Path) -> list[dict]:
    from errdex.store import Store

    with Store.open(db, readonly=True) as store:
        return [r for r in store.iter_records(None)]


def render(rec: dict, rng: random.Random) -> str:
    """The template with each of the record's placeholders replaced by a random value.

    Only `{name}` for a name the record lists is a placeholder: other braces are literal
    text (`f"... in {{None, 1}}"` prints `in {None, 1}`).
    """
    template = rec["errorMessage"]
    names = sorted((rec.get("errdex") or {}).get("placeholders") or {}, key=len, reverse=True)
    if not names:
        return template
    spots = re.compile("|".join(re.escape("{" + name + "}") for name in names))
    # Literal braces are written doubled in an f-string or str.format template (errdex keeps them so).
    doubled = (rec.get("errdex") or {}).get("messageForm") in ("fstring", "format")
    parts = spots.split(template)
    if doubled:
        parts = [p.replace("{{", "{").replace("}}", "}") for p in parts]
    return "".join(p if i == 0 else rng.choice(VALUES) + p for i, p in enumerate(parts))


def write_log(path: Path, records: list[dict], size_mb: int, injected: list[int] | None = None) -> int:
    """The synthetic log; returns the number of error lines written (their line numbers
    go to `injected` when given)."""
    rng = random.Random(SEED)
    usable = [r for r in records if r.get("errorMessage") and len(r["errorMessage"]) >= 12 and "\n" not in r["errorMessage"]]
    target = size_mb * 1_000_000
    written = errors = 0
    line_no = 0
    with open(path, "w", encoding="utf-8") as out:
        batch: list[str] = []
        while written < target:
            line_no += 1
            stamp = f"2026-11-29 20:{line_no // 60000 % 60:02d}:{line_no // 1000 % 60:02d},{line_no % 1000:03d}"
            if rng.random() < 0.01:
                rec = rng.choice(usable)
                if rec.get("errorType") == "log":   # a logged error prints its message alone
                    line = f"{stamp} ERROR worker: {render(rec, rng)}"
                else:
                    cls = (rec.get("errorClass") or "RuntimeError").rsplit(".", 1)[-1]
                    line = f"{stamp} ERROR worker: {cls}: {render(rec, rng)}"
                errors += 1
                if injected is not None:
                    injected.append(line_no)
            else:
                line = stamp + " " + rng.choice(PLAIN).format(n=rng.randint(0, 99), m=rng.randint(100, 99999),
                                                              h=f"{rng.getrandbits(64):016x}")
            batch.append(line)
            written += len(line) + 1
            if len(batch) >= 10000:
                out.write("\n".join(batch) + "\n")
                batch = []
        if batch:
            out.write("\n".join(batch) + "\n")
    return errors


def floor(path: Path) -> tuple[float, int, float]:
    """(wall seconds, lines, CPU seconds) of reading the file and splitting it into lines."""
    started, cpu = time.perf_counter(), time.process_time()
    lines = 0
    with open(path, "rb") as f:
        while chunk := f.read(8 << 20):
            lines += len(chunk.splitlines())
    return time.perf_counter() - started, lines, time.process_time() - cpu


def line_by_line(path: Path) -> tuple[float, int, float]:
    """(wall seconds, lines, CPU seconds) of reading the log line by line in Python (text mode):
    the yardstick of the issue's independent check, next to the floor above."""
    started, cpu = time.perf_counter(), time.process_time()
    lines = 0
    with open(path, encoding="utf-8") as f:
        for _line in f:
            lines += 1
    return time.perf_counter() - started, lines, time.process_time() - cpu


#: The yardstick above as a whole process, as `errdex scan` is timed: interpreter start-up included.
_LINE_BY_LINE = ("import sys\n"
                 "lines = 0\n"
                 "with open(sys.argv[1], encoding='utf-8') as f:\n"
                 "    for _line in f:\n"
                 "        lines += 1\n"
                 "print(lines)\n")


def line_by_line_process(path: Path) -> tuple[float, int, float]:
    """(wall seconds, lines, CPU seconds) of `line_by_line` run in a fresh Python process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _LINE_BY_LINE, str(path)], capture_output=True, text=True,
                         check=True).stdout
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, int(out), cpu


def reference(path: Path, records: list[dict]) -> tuple[float, set[int]]:
    """pyahocorasick prefilter on literal tokens, then `re` on the flagged lines.

    Same semantics as errdex's answer, so the two can be compared line for
    line: the printed class (`Name: message`) must agree with the record's
    class or one of its ancestors, and the template is looked for in the
    message with whitespace runs read as one space. A line no template
    matched, printing a class, is still found when a record of that class
    (or an ancestor) has a template with too little literal text to look for
    (`assert c, f"{x}"`) and its pattern matches the whole message.
    """
    import ahocorasick

    from errdex.match.patterns import MIN_LITERAL, line_regex, longest_token, split_pattern
    from errdex.match.text import parse_exception_line

    started = time.perf_counter()
    automaton = ahocorasick.Automaton()
    table: dict[str, list[tuple[re.Pattern, frozenset | None]]] = {}
    bare: dict[str, set[str]] = {}   # printed class -> whole-message patterns of its bare templates
    for rec in records:
        chunks = split_pattern(rec.get("messagePattern") or "")
        if not rec.get("messagePattern"):
            continue
        if sum(len(c.strip()) for c in chunks) < MIN_LITERAL:
            for name in _classes(rec) or ():
                bare.setdefault(name, set()).add(rec["messagePattern"].strip())
            continue
        token = max((longest_token(c) for c in chunks), key=len, default="")
        if token:
            table.setdefault(token, []).append((re.compile(line_regex(chunks)), _classes(rec)))
    for token, patterns in table.items():
        automaton.add_word(token, patterns)
    automaton.make_automaton()
    bare_rx = {name: [re.compile(p, re.S) for p in sorted(pats)] for name, pats in bare.items()}
    found: set[int] = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            message = None
            for _end, patterns in automaton.iter(line):
                if message is None:
                    parsed = parse_exception_line(line.rstrip("\n"), strict=False)
                    shown = parsed[0].rsplit(".", 1)[-1] if parsed else None
                    message = " ".join((parsed[1] if parsed else line).split())
                if any((shown is None or classes is None or shown in classes) and p.search(message)
                       for p, classes in patterns):
                    found.add(number)
                    break
            else:
                if bare_rx and any(word in line for word in _ERROR_WORDS) and _bare_fits(line, bare_rx):
                    found.add(number)
    return time.perf_counter() - started, found


_ERROR_WORDS = ("Error", "Exception", "Warning", "Exit", "Interrupt")


def _bare_fits(line: str, bare_rx: dict[str, list[re.Pattern]]) -> bool:
    """The line prints a class whose bare templates include one matching its whole message."""
    from errdex.match.text import parse_exception_line

    parsed = parse_exception_line(line.rstrip("\n"), strict=False)
    if not parsed or not parsed[0]:
        return False
    message = " ".join(parsed[1].split())
    return bool(message) and any(p.fullmatch(message) for p in bare_rx.get(parsed[0].rsplit(".", 1)[-1], ()))


def _classes(rec: dict) -> frozenset | None:
    """Class names a printed class may carry for this record (None: any; a log prints none)."""
    if not rec.get("errorClass") or rec.get("errorType") == "log":
        return None
    extra = rec.get("errdex") or {}
    names = [rec["errorClass"]] + list(extra.get("classAncestors") or []) + list(extra.get("classBases") or [])
    return frozenset(n.rsplit(".", 1)[-1] for n in names)


def best(runs: list[tuple]) -> tuple:
    """Best wall time and best CPU time of several runs (other fields from the fastest wall run)."""
    fastest = min(runs, key=lambda r: r[0])
    return (fastest[0],) + tuple(fastest[1:-1]) + (min(r[-1] for r in runs),)


def cores_free(jobs: int) -> float:
    """How many cores `jobs` CPU-bound processes get right now (other users' load included):
    jobs x (one process's wall time) / (wall time of `jobs` running at once)."""
    def burn() -> None:
        x = 0
        for i in range(3_000_000):
            x += i

    started = time.perf_counter()
    burn()
    alone = time.perf_counter() - started
    started = time.perf_counter()
    pids = []
    for _ in range(jobs):
        pid = os.fork()
        if pid == 0:
            burn()
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    return jobs * alone / (time.perf_counter() - started)


#: Environment of the errdex processes: as installed, with bytecode (see `_common.bytecode_env`).
ERRDEX_ENV: dict[str, str] | None = None


def errdex_scan(path: Path, db: Path, jobs: int) -> tuple[float, dict, int, float]:
    """`errdex scan --json` as a subprocess; returns (seconds, report, peak RSS in kB, CPU seconds
    of the process and its workers)."""
    started = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M %U %S", sys.executable, "-c", "from errdex.cli import main; main()",
         "scan", "--db", str(db), "--json", "--jobs", str(jobs), str(path)],
        capture_output=True, text=True, check=True, env=ERRDEX_ENV,
    )
    seconds = time.perf_counter() - started
    rss, user, system = proc.stderr.strip().splitlines()[-1].split()
    return seconds, json.loads(proc.stdout), int(rss), float(user) + float(system)


def engine_times(db: Path) -> dict:
    """Build (compile, no cache) and load (the snapshot next to the index) times, in a clean process each."""
    build = ("import time,sys;from errdex.match.api import load_context;from errdex.match.engine import PatternEngine;"
             "c=load_context(sys.argv[1]);r=list(c.engine.records);t=time.perf_counter();"
             "e=PatternEngine(r,None);"
             "print(time.perf_counter()-t, e.stats.patterns, e.stats.size_bytes, e.stats.loaded_from_cache)")
    load = ("import time,sys;t=time.perf_counter();from errdex.match.api import load_context;"
            "e=load_context(sys.argv[1]).engine;"
            "print(time.perf_counter()-t, e.stats.patterns, e.stats.size_bytes, e.stats.loaded_from_cache)")
    out = {}
    for mode, code in (("build", build), ("load", load)):
        res = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True, check=True,
                             env=ERRDEX_ENV)
        seconds, patterns, size, cached = res.stdout.split()
        out[mode] = (float(seconds), int(patterns), int(size), cached)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--keep", action="store_true", help="keep the temporary log")
    parser.add_argument("--jobs", type=int, default=0, help="processes for the split scan (default: CPU count)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of the floor and each scan")
    parser.add_argument("--log", type=Path, default=None, help="an existing log to scan instead of a new one")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="errdex processes inherit this environment's bytecode setting (see bytecode_env)")
    args = parser.parse_args()
    db = ensure_index()
    records = load_templates(db)
    print(f"{len(records)} records in the index")
    tmp = Path(tempfile.mkdtemp(prefix="errdex-bench-"))
    log = args.log or tmp / "synthetic.log"
    try:
        t = time.perf_counter()
        injected: list[int] = []
        errors = "?" if args.log else write_log(log, records, args.size_mb, injected)
        size = log.stat().st_size
        print(f"log: {size / 1e6:.0f} MB, {errors} error lines, written in {time.perf_counter() - t:.1f} s")
        global ERRDEX_ENV
        ERRDEX_ENV = bytecode_env(not args.no_bytecode)
        subprocess.run([sys.executable, "-c", "from errdex.match.api import load_context; import sys; load_context(sys.argv[1])", str(db)], check=True, env=ERRDEX_ENV)
        warm = tmp / "warm.log"
        warm.write_bytes(b"")
        errdex_scan(warm, db, 1)   # untimed: bytecode for every module a scan imports
        print(f"errdex processes: bytecode {'as this environment says' if args.no_bytecode else 'cached under ' + str(CACHE / 'pyc')}")
        jobs = args.jobs or os.cpu_count() or 1
        print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        r_cpu = time.process_time()
        r_sec, ref_lines = reference(log, records)
        r_cpu = time.process_time() - r_cpu
        floors, by_line, by_line_process, singles, splits = [], [], [], [], []
        free = []
        for _ in range(args.repeat):   # interleaved, so load changes hit all three alike
            free.append(cores_free(jobs))
            floors.append(floor(log))
            by_line.append(line_by_line(log))
            by_line_process.append(line_by_line_process(log))
            singles.append(errdex_scan(log, db, 1))
            splits.append(errdex_scan(log, db, jobs))
        f_sec, lines, f_cpu = best(floors)
        l_sec, _, l_cpu = best(by_line)
        lp_sec, _, lp_cpu = best(by_line_process)
        s_sec, single, s_rss, s_cpu = best(singles)
        e_sec, report, rss, e_cpu = best(splits)
        print(f"load average after timing: {os.getloadavg()[0]:.1f}; cores free to {jobs} processes, "
              f"per round: {', '.join(f'{c:.1f}' for c in free)}")
        mb = size / 1e6
        print(f"floor (read + split lines): {f_sec:6.2f} s  {mb / f_sec:7.1f} MB/s  CPU {f_cpu:6.2f} s  ({lines} lines)")
        print(f"read line by line (text):   {l_sec:6.2f} s  {mb / l_sec:7.1f} MB/s  CPU {l_cpu:6.2f} s"
              f"  (as a process of its own: {lp_sec:.2f} s, CPU {lp_cpu:.2f} s)")
        print(f"pure-Python AC + re:        {r_sec:6.2f} s  {mb / r_sec:7.1f} MB/s  CPU {r_cpu:6.2f} s")
        print(f"errdex scan --jobs 1:       {s_sec:6.2f} s  {mb / s_sec:7.1f} MB/s  CPU {s_cpu:6.2f} s  peak RSS {s_rss / 1024:.0f} MB")
        print(f"errdex scan --jobs {jobs}:       {e_sec:6.2f} s  {mb / e_sec:7.1f} MB/s  CPU {e_cpu:6.2f} s  peak RSS {rss / 1024:.0f} MB"
              f"  ({report['stats'].get('processes', 1)} processes)")
        print(f"errdex vs pure Python: {r_sec / e_sec:.1f}x faster (goal >= 8x); "
              f"errdex vs floor: {e_sec / f_sec:.1f}x slower (goal <= 3x); --jobs 1: {s_sec / f_sec:.1f}x")
        print(f"same, in CPU time (all processes; the machine may be shared): {r_cpu / e_cpu:.1f}x faster; "
              f"{e_cpu / max(f_cpu, 1e-9):.1f}x the floor (--jobs 1: {s_cpu / max(f_cpu, 1e-9):.1f}x)")
        print(f"errdex vs reading line by line (the independent check, goal <= 3x): {e_sec / l_sec:.1f}x "
              f"(--jobs 1: {s_sec / l_sec:.1f}x); against it as a whole process, as errdex is timed: "
              f"{e_sec / lp_sec:.1f}x (--jobs 1: {s_sec / lp_sec:.1f}x)")
        same_report = all(single[k] == report[k] for k in ("occurrences", "groups", "unknown"))
        print(f"--jobs {jobs} report equals --jobs 1: {same_report}")
        stats = report["stats"]
        print(f"in-process: engine ready in {stats['engineSeconds']} s (from cache: {stats['engineFromCache']}), "
              f"scan {stats['mbPerSecond']} MB/s")
        if stats.get("workerCpuSeconds"):
            print(f"split scan CPU: parent {stats['cpuSeconds']} s (its range, merge), workers "
                  f"{stats['workerCpuSeconds']} s; scan() wall {stats['seconds']} s")
        for mode, (seconds, patterns, nbytes, cached) in engine_times(db).items():
            print(f"engine {mode}: {seconds:.2f} s for {patterns} patterns, databases {nbytes / 1e6:.1f} MB, "
                  f"from cache={cached}" + (" (import + records + databases)" if mode == "load" else ""))
        found = set(o["logLine"] for o in report["occurrences"]) & set(injected)
        high = {o["logLine"] for o in report["occurrences"] if o["confidence"] == "high"} & set(injected)
        if injected:
            print(f"recall: {len(found)} of {len(injected)} injected error lines found "
                  f"({100 * len(found) / len(injected):.2f}%; high confidence {100 * len(high) / len(injected):.2f}%, "
                  f"bare {sum(o['matchKind'] == 'bare' for o in report['occurrences'])} occurrences)")
        # Prefix matches (truncated text) are extra answers the reference cannot give.
        got = {o["logLine"] for o in report["occurrences"] if o["matchKind"] != "prefix"}
        same = got == ref_lines
        if not same:
            with open(log, encoding="utf-8") as f:
                wanted = sorted(got ^ ref_lines)[:5]
                for number, line in enumerate(f, 1):
                    if number in wanted:
                        side = "errdex only" if number in got else "reference only"
                        print(f"  {side}: line {number}: {line.strip()[:160]}")
        print(f"same lines as the reference: {same} (errdex {len(got)}, reference {len(ref_lines)}, "
              f"only errdex {len(got - ref_lines)}, only reference {len(ref_lines - got)})")
        return 0 if same and same_report else 1
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
