"""A big log file scanned in byte ranges by forked processes, merged in order.

The single-process scan reads the file in `chunk_size` pieces and cuts each
block at the last newline of a read, so block ends depend only on the file:
the last newline before each multiple of `chunk_size`. A range therefore
starts just after one of those cuts and reads on from the multiple, and it
sees exactly the blocks the single-process scan sees, as long as that scan
holds nothing (an unfinished traceback) across the cut. Each range records a
checkpoint at every cut. When the range before ended holding a traceback,
the parent scans on from the held line itself until a cut where neither it
nor the range's own scan holds anything, and takes the range's results from
that checkpoint on: the merged report equals the single-process one.

Workers are forked after the context is loaded, so they share its records
and compiled databases; results come back in an in-memory file as marshalled
tuples (pickling ~15k `Match` objects each way cost ~0.4 s of CPU).
"""

from __future__ import annotations

import marshal
import os
import time
from dataclasses import dataclass, fields
from operator import attrgetter

from errdex.match.api import MatchContext
from errdex.match.resolve import Match
from errdex.match.scan import SPLIT_THRESHOLD, ScanReport, BlockScanner, add_unknowns, stream_blocks

#: The parent's range, relative to a child's: merging and writing the report wait for the last
#: child anyway and each process encodes its own JSON, but a child also packs its result
#: (~0.06 s for 100 MB of the sglang bench log), so the parent takes a little more.
PARENT_SHARE = 1.1


@dataclass(slots=True)
class ByteRange:
    """Scan from `start` (just after a cut) reading on from `aligned` (a multiple of the
    chunk size) to `end` (the next range's `aligned`, or the file size)."""

    start: int
    aligned: int
    end: int
    last: bool


@dataclass(slots=True)
class Checkpoint:
    """The scanner's state just after one cut."""

    offset: int
    held: bool
    next_line: int
    occurrences: int
    unknowns: int
    events: int
    matched: int


@dataclass(slots=True)
class RangeResult:
    occurrences: list[Match]
    unknowns: list[tuple[str, int | None, str]]
    checkpoints: dict[int, Checkpoint]
    end: Checkpoint                  # the state at the range's end
    lines: int
    held_from: int | None = None     # file offset of a traceback left open at the end
    cpu_seconds: float = 0.0


def plan_ranges(path, size: int, chunk_size: int, jobs: int | None,
                threshold: int | None) -> list[ByteRange]:
    """Byte ranges for `jobs` processes; one range when the file is small or cannot be cut."""
    jobs = jobs or os.cpu_count() or 1
    threshold = SPLIT_THRESHOLD if threshold is None else threshold
    chunks = -(-size // chunk_size)
    jobs = min(jobs, chunks)
    if jobs < 2 or size < threshold or not hasattr(os, "fork"):
        return [ByteRange(0, 0, size, True)]
    cuts = []
    weights = [PARENT_SHARE] + [1.0] * (jobs - 1)
    with open(path, "rb") as f:
        for k in range(1, jobs):
            aligned = max(1, round(chunks * sum(weights[:k]) / sum(weights))) * chunk_size
            cut = _last_newline(f, aligned - chunk_size, aligned)
            if cut >= 0 and aligned < size and (not cuts or aligned > cuts[-1][1]):
                cuts.append((cut + 1, aligned))
    starts = [(0, 0)] + cuts
    ends = [a for _, a in cuts] + [size]
    return [ByteRange(s, a, e, i == len(starts) - 1) for i, ((s, a), e) in enumerate(zip(starts, ends))]


#: Bytes read at a time looking back for a cut's newline (log lines are short).
_LOOK_BACK = 64 << 10


def _last_newline(f, start: int, end: int) -> int:
    """File offset of the last newline in [start, end), or -1; read backwards a little at a
    time (reading the whole chunk for it was ~4 ms of a split scan's start, before any fork)."""
    while end > start:
        at = max(start, end - _LOOK_BACK)
        f.seek(at)
        found = f.read(end - at).rfind(b"\n")
        if found >= 0:
            return at + found
        end = at
    return -1


def scan_range(ctx: MatchContext, path, r: ByteRange, chunk_size: int, progress=None,
               total: int | None = None, encode: bool = False) -> RangeResult:
    """One range, scanned as the single-process scan would, with a checkpoint per cut
    (`encode`: its occurrences' JSON too)."""
    cpu = time.process_time()
    scanner = BlockScanner(ctx, ScanReport(), encode)
    checkpoints = {r.start: _checkpoint(scanner, r.start, False)}

    def mark(offset: int, held: bool) -> bool:
        checkpoints[offset] = _checkpoint(scanner, offset, held)
        return False

    result = _run(scanner, path, r, r.start, chunk_size, mark, checkpoints, progress, total)
    result.cpu_seconds = time.process_time() - cpu
    return result


def _run(scanner: BlockScanner, path, r: ByteRange, start: int, chunk_size: int, after_block,
         checkpoints: dict, progress=None, total=None) -> RangeResult:
    """Scan from `start` to the range end (or until `after_block` says stop); the state at the last cut."""
    last = [start, False]

    def step(offset: int, held: bool) -> bool:
        last[:] = offset, held
        return after_block(offset, held)

    with open(path, "rb") as f:
        f.seek(start)
        carry = f.read(r.aligned - start)
        _, left = stream_blocks(_Limited(f, r.end - r.aligned), scanner, chunk_size, progress, total,
                                carry=carry, base=r.aligned, final_at_eof=r.last, after_block=step)
        stopped_at = f.tell()
    end = _checkpoint(scanner, last[0], last[1])
    held_from = stopped_at - len(left) if last[1] and not r.last else None
    return RangeResult(scanner.report.occurrences, scanner.unknowns, checkpoints, end, scanner.lines,
                       held_from=held_from)


def _checkpoint(scanner: BlockScanner, offset: int, held: bool) -> Checkpoint:
    return Checkpoint(offset, held, scanner.next_line, len(scanner.report.occurrences),
                      len(scanner.unknowns), scanner.events, scanner.matched)


class _Limited:
    """The next `left` bytes of a file, read in the sizes asked for."""

    def __init__(self, f, left: int) -> None:
        self.f, self.left = f, left

    def read(self, size: int) -> bytes:
        data = self.f.read(min(size, self.left))
        self.left -= len(data)
        return data


def scan_ranges(ctx: MatchContext, path, ranges: list[ByteRange], chunk_size: int,
                report: ScanReport, progress, total: int,
                encode: bool = False) -> tuple[int, int, int, int, list[float]]:
    """Scan every range (the first here, the others in forked children) and merge into `report`.

    Returns (lines, events, matched events, processes, each child's CPU seconds).
    """
    share = len(ranges)
    own_progress = (lambda done, _t: progress(min(done * share, total), total)) if progress else None
    ctx.engine.prepare_scan()
    children = [_fork(ctx, path, r, chunk_size, encode) for r in ranges[1:]]
    results = [scan_range(ctx, path, ranges[0], chunk_size, own_progress, total, encode)]
    results.extend(_collect(data_fd, done_fd) for _pid, data_fd, done_fd in children)
    try:
        counts = _merge(ctx, path, ranges, results, chunk_size, report)
    finally:   # reaped last: each has said its result is written, and has exited meanwhile
        for pid, _data_fd, _done_fd in children:
            os.waitpid(pid, 0)
    if progress is not None:
        progress(total, total)
    return counts + (len(ranges), [round(r.cpu_seconds, 3) for r in results[1:] if r is not None])


def _fork(ctx: MatchContext, path, r: ByteRange, chunk_size: int, encode: bool) -> tuple[int, int, int]:
    """(pid, the file its packed result goes to, a pipe its size comes through once written)."""
    data_fd = _result_file()
    done_fd, told_fd = os.pipe()
    pid = os.fork()
    if pid:
        os.close(told_fd)
        return pid, data_fd, done_fd
    code = 1
    try:
        os.close(done_fd)
        try:
            payload = _pack(scan_range(ctx, path, r, chunk_size, encode=encode))
        except BaseException:  # the parent scans this range itself
            payload = b""
        with os.fdopen(data_fd, "wb") as out:
            out.write(payload)
        os.write(told_fd, len(payload).to_bytes(8, "little"))
        code = 0
    finally:
        os._exit(code)


def _result_file() -> int:
    """A file for a child's packed result: in memory where the system has `memfd_create`.
    Through a pipe, 4 MB (the sglang bench log's second half) took ~12 ms of the parent's
    wall time after the child was done, in 64 KB turns."""
    try:
        return os.memfd_create("errdex-range", os.MFD_CLOEXEC)
    except (AttributeError, OSError):   # not Linux
        import tempfile

        with tempfile.TemporaryFile() as f:
            return os.dup(f.fileno())


def _collect(data_fd: int, done_fd: int) -> RangeResult | None:
    """A child's result, read as soon as the child says it is written (not when the child has
    exited: unmapping its memory took ~3 ms more); None when it failed (its range is then
    scanned by the parent)."""
    with os.fdopen(done_fd, "rb") as done:
        told = done.read(8)   # empty when the child died first
    with os.fdopen(data_fd, "rb") as f:
        size = int.from_bytes(told, "little") if len(told) == 8 else 0
        f.seek(0)
        data = f.read(size) if size else b""
    try:
        return _unpack(data) if len(data) == size and data else None
    except Exception:
        return None


_MATCH_FIELDS = tuple(f.name for f in fields(Match))
_CHECK = _MATCH_FIELDS.index("condition_check")
#: Fields whose values repeat across a range's occurrences (each decoded record holds its own
#: copy of its repo, dataset, file and class): packed once each, marshal's dumps and loads
#: run ~40% and ~25% faster (7.5k occurrences of the sglang bench log: 22 -> 13 ms, 13 -> 9 ms).
_SHARED_COLUMNS = tuple(_MATCH_FIELDS.index(name) for name in (
    "repo", "dataset", "file_path", "error_class", "via", "confidence", "match_kind"))
_field_getters = tuple(attrgetter(name) for name in _MATCH_FIELDS)
_checkpoint_row = attrgetter(*(f.name for f in fields(Checkpoint)))


def _pack(res: RangeResult) -> bytes:
    """A range's result as bytes: marshal for the plain values, pickle for the few condition checks.

    Occurrences go field by field (one list per `Match` field): a list per field marshals to
    fewer, longer runs than a tuple per occurrence, and `map(Match, *columns)` rebuilds them
    without a tuple each (the parent's unpacking waits for the last child: 7.6k occurrences
    18 -> 10 ms)."""
    occurrences = res.occurrences
    columns = [list(map(getter, occurrences)) for getter in _field_getters]
    for i in _SHARED_COLUMNS:   # one object per distinct value: marshal writes the others as references
        memo: dict = {}
        columns[i] = list(map(memo.setdefault, columns[i], columns[i]))
    checks = {i: check for i, check in enumerate(columns[_CHECK]) if check is not None}
    if checks:
        columns[_CHECK] = [None] * len(occurrences)
    plain = marshal.dumps((columns, res.unknowns, [_checkpoint_row(cp) for cp in res.checkpoints.values()],
                           _checkpoint_row(res.end), res.lines, res.held_from, res.cpu_seconds))
    if not checks:   # a log scan keeps no condition checks: no pickle (nor its import)
        return len(plain).to_bytes(8, "little") + plain
    import pickle

    return len(plain).to_bytes(8, "little") + plain + pickle.dumps(checks, protocol=pickle.HIGHEST_PROTOCOL)


def _unpack(data: bytes) -> RangeResult:
    size = int.from_bytes(data[:8], "little")
    columns, unknowns, cps, end, lines, held_from, cpu = marshal.loads(memoryview(data)[8:8 + size])
    occurrences = list(map(Match, *columns))
    checks = {}
    if len(data) > 8 + size:
        import pickle

        checks = pickle.loads(data[8 + size:])
    for i, check in checks.items():
        occurrences[i].condition_check = check
    checkpoints = {cp[0]: Checkpoint(*cp) for cp in cps}
    return RangeResult(occurrences, [tuple(u) for u in unknowns], checkpoints, Checkpoint(*end),
                       lines, held_from=held_from, cpu_seconds=cpu)


def _merge(ctx: MatchContext, path, ranges: list[ByteRange], results: list[RangeResult | None],
           chunk_size: int, report: ScanReport) -> tuple[int, int, int]:
    """Ranges' results in file order, re-scanning from a held traceback until the range's scan agrees."""
    unknowns: list[tuple[str, int | None, str]] = []
    events = matched = 0
    line, lines, held_from = 1, 0, None   # the state at the current range's start
    for r, res in zip(ranges, results):
        if held_from is None and res is not None:
            start_cp, shift = res.checkpoints[r.start], line - 1
        else:
            rescan = _rescan(ctx, path, r, chunk_size, r.start if held_from is None else held_from, line, res)
            report.occurrences.extend(rescan.occurrences)
            unknowns.extend(rescan.unknowns)
            events, matched = events + rescan.end.events, matched + rescan.end.matched
            start_cp = None if res is None or rescan.end.held else res.checkpoints.get(rescan.end.offset)
            if start_cp is None or start_cp.held:
                line, lines, held_from = rescan.end.next_line, rescan.lines, rescan.held_from
                continue
            shift = rescan.end.next_line - start_cp.next_line
        for m in res.occurrences[start_cp.occurrences:]:
            if m.log_line is not None:
                m.log_line += shift
            report.occurrences.append(m)
        unknowns.extend((n, at + shift if at is not None else None, shown)
                        for n, at, shown in res.unknowns[start_cp.unknowns:])
        events += res.end.events - start_cp.events
        matched += res.end.matched - start_cp.matched
        line, lines, held_from = res.end.next_line + shift, res.lines + shift, res.held_from
    add_unknowns(report.unknown, unknowns)
    return lines, events, matched


def _rescan(ctx: MatchContext, path, r: ByteRange, chunk_size: int, start: int, line: int,
            res: RangeResult | None) -> RangeResult:
    """Scan from `start` (log line `line`) into range `r` until a cut where neither this scan
    nor `res` holds a traceback (the result's end is that cut), or to the range end."""
    scanner = BlockScanner(ctx, ScanReport())
    scanner.next_line, scanner.lines = line, line - 1
    known = res.checkpoints if res is not None else {}

    def agreed(offset: int, held: bool) -> bool:
        cp = known.get(offset)
        return not held and cp is not None and not cp.held

    return _run(scanner, path, r, start, chunk_size, agreed, {})
