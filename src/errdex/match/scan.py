"""`scan()`: a whole log file, streamed in chunks, to occurrences, groups and unknowns.

Each chunk (cut at a newline) goes through the engine in one buffer scan;
only lines the engine flags (a template rendering, a traceback header, a
frame, a pytest `E` line, an `...Error:` line) are decoded and parsed in
Python. A traceback still open at the end of a chunk is carried, from its
first line, into the next chunk, so blocks spanning a boundary parse whole.
"""

from __future__ import annotations

import io
import os
import time
from dataclasses import dataclass, field
from operator import itemgetter
from typing import BinaryIO, Callable

from errdex.collector import collector_paused
from errdex.match.api import MatchContext, load_context
from errdex.match.encode import FragmentCache, encode_occurrences, report_json, report_json_parts
from errdex.match.events import ErrorEvent, bare_message, line_event, opens_block, parse_at
from errdex.match.linematch import LineMatcher
from errdex.match.resolve import Match, match_event
from errdex.match.text import clean_line, needs_cleaning, normalize_unknown

CHUNK_SIZE = 8 << 20
#: Files at least this big are split into byte ranges scanned by forked processes (`parallel`).
SPLIT_THRESHOLD = 32 << 20
WINDOW_LINES = 2000
WINDOW_BYTES = 1 << 20
FIRST_WINDOW_BYTES = 16 << 10
PYTEST_CONTEXT_LINES = 100
_BLOCK_MARKERS = frozenset({"traceback", "frame", "pytest"})
_FIRST_LINE, _COUNT = itemgetter(2), itemgetter(1)


@dataclass(slots=True)
class ScanReport:
    occurrences: list[Match] = field(default_factory=list)
    unknown: dict[str, dict] = field(default_factory=dict)
    stats: dict = field(default_factory=dict)

    def groups(self) -> list[dict]:
        """One entry per record seen: how often, first and last line (bare matches: one per
        candidate set, with its size and first ids)."""
        return [group_dict(m, count, first, last, confidence)
                for m, count, first, last, confidence in self.grouped()]

    def grouped(self) -> list[list]:
        """[first match, count, first line, last line, confidence] per record id (and, for
        bare matches, candidate count), most frequent first, then by first line."""
        by_id: dict = {}   # record id, or (record id, candidate count) for a bare match
        get = by_id.get
        lineless = False
        for m in self.occurrences:
            key = (m.id, m.candidates) if m.candidates else m.id
            g = get(key)
            if g is None:
                line = m.log_line
                by_id[key] = [m, 1, line, line, m.confidence]
                lineless = lineless or line is None
                continue
            g[1] += 1
            g[3] = m.log_line
            if m.confidence == "high":
                g[4] = "high"
        if lineless:
            return sorted(by_id.values(), key=lambda g: (-g[1], g[2] or 0))
        groups = sorted(by_id.values(), key=_FIRST_LINE)   # two stable sorts: no key tuple per group
        groups.sort(key=_COUNT, reverse=True)
        return groups

    def to_dict(self) -> dict:
        return {
            "occurrences": [m.to_dict() for m in self.occurrences],
            "groups": self.groups(),
            "unknown": self.unknown_list(),
            "stats": dict(self.stats),
        }

    def to_json(self) -> str:
        """`json.dumps(self.to_dict())`, from each occurrence's pre-encoded JSON where there
        is one (a split scan's processes encode their own occurrences in parallel)."""
        return report_json(self)

    def json_parts(self) -> list[str]:
        """`to_json()` in pieces that join to it, for writing out without one more copy."""
        return report_json_parts(self)

    def unknown_list(self) -> list[dict]:
        return sorted(self.unknown.values(), key=lambda u: (-u["count"], u["firstLine"]))


def group_dict(m: Match, count: int, first: int | None, last: int | None, confidence: str) -> dict:
    """A group's JSON entry; a bare group also says how many records it stands for."""
    out = {
        "id": m.id, "count": count, "firstLine": first, "lastLine": last,
        "repo": m.repo, "filePath": m.file_path, "lineNumber": m.line_number,
        "errorClass": m.error_class, "errorMessage": m.error_message, "confidence": confidence,
    }
    if m.candidates:
        out["matchKind"] = m.match_kind
        out["candidates"] = m.candidates
        out["candidateIds"] = list(m.candidate_ids)
    return out


def scan(path_or_stream: str | os.PathLike | BinaryIO | io.TextIOBase, db=None, dataset=None,
         progress: Callable[[int, int | None], None] | None = None, *,
         context: MatchContext | None = None, chunk_size: int = CHUNK_SIZE,
         jobs: int | None = None, split_threshold: int | None = None,
         encode: bool = False) -> ScanReport:
    """Scan a log (path or stream) and report every error it contains.

    `progress(bytes_done, bytes_total_or_None)` is called after each chunk.
    A file path of at least `split_threshold` bytes (default 32 MB) is cut
    into `jobs` byte ranges (default: CPU count) scanned by forked processes;
    the merged report equals the single-process one. `encode`: each process
    pre-encodes its occurrences' JSON, for a `report.to_json()` to follow.
    """
    started, cpu = time.perf_counter(), time.process_time()
    ctx = context or load_context(db, dataset)
    engine_ready = time.perf_counter()
    report = ScanReport()
    with collector_paused():  # acyclic small objects: ~10% of a big scan otherwise
        if isinstance(path_or_stream, (str, os.PathLike)):
            total = os.stat(path_or_stream).st_size
            ranges = _split(path_or_stream, total, chunk_size, jobs, split_threshold)
            if ranges is not None:
                from errdex.match import parallel

                done, counts = total, parallel.scan_ranges(ctx, path_or_stream, ranges, chunk_size,
                                                           report, progress, total, encode=encode)
            else:
                scanner = BlockScanner(ctx, report, encode)
                with open(path_or_stream, "rb") as stream:
                    done, _ = stream_blocks(stream, scanner, chunk_size, progress, total)
                counts = _finish(scanner, report)
        else:
            scanner = BlockScanner(ctx, report, encode)
            done, _ = stream_blocks(path_or_stream, scanner, chunk_size, progress, None)
            counts = _finish(scanner, report)
    elapsed = time.perf_counter() - started
    lines, events, matched, workers, worker_cpu = counts
    report.stats = {
        "bytes": done, "lines": lines, "seconds": round(elapsed, 3),
        "mbPerSecond": round(done / 1e6 / max(elapsed, 1e-9), 1),
        "engineSeconds": round(engine_ready - started, 3), "engine": ctx.engine.backend,
        "engineFromCache": ctx.engine.stats.loaded_from_cache, "events": events,
        "matchedEvents": matched, "occurrences": len(report.occurrences),
        "unknownEvents": sum(u["count"] for u in report.unknown.values()),
        "datasets": list(ctx.datasets), "processes": workers,
        "cpuSeconds": round(time.process_time() - cpu, 3), "workerCpuSeconds": worker_cpu,
    }
    return report


def _split(path, total: int, chunk_size: int, jobs: int | None, split_threshold: int | None) -> list | None:
    """The byte ranges of a split scan (`parallel.plan_ranges`), or None for one process: the
    `parallel` module is imported only for a file big enough to split (~1.4 ms of a small scan)."""
    if total < (SPLIT_THRESHOLD if split_threshold is None else split_threshold) or jobs == 1:
        return None
    from errdex.match import parallel

    ranges = parallel.plan_ranges(path, total, chunk_size, jobs, split_threshold)
    return ranges if len(ranges) > 1 else None


def _finish(scanner: "BlockScanner", report: ScanReport) -> tuple[int, int, int, int, list[float]]:
    """A single-process scan's unknown table and counters (lines, events, matched, processes, child CPU)."""
    add_unknowns(report.unknown, scanner.unknowns)
    return scanner.lines, scanner.events, scanner.matched, 1, []


def _read(stream, size: int) -> bytes:
    data = stream.read(size)
    return data.encode("utf-8") if isinstance(data, str) else data


def stream_blocks(stream, scanner: "BlockScanner", chunk_size: int, progress, total, *,
                  carry: bytes = b"", base: int = 0, final_at_eof: bool = True,
                  after_block: Callable[[int, bool], bool] | None = None) -> tuple[int, bytes]:
    """Feed a stream to the scanner in blocks cut at the last newline of each read.

    Returns (bytes read, bytes left unscanned). A range of a bigger file
    passes the bytes before its first read as `carry`, the file offset of
    that read as `base`, and `final_at_eof=False` when more of the file
    follows (an open traceback is then left over, not forced). `after_block`
    gets each cut's file offset and whether a block was held; True stops.
    """
    done = 0
    while True:
        new = _read(stream, chunk_size)
        done += len(new)
        eof = not new
        size = len(carry) + len(new)
        newline = new.rfind(b"\n") + 1
        if newline:   # the block ends in this read: copy its bytes once, not twice (concat, then slice)
            block = b"".join((carry, memoryview(new)[:newline])) if carry or newline < len(new) else new
            rest = new[newline:]
        elif eof:
            if not final_at_eof:
                return done, carry
            block, rest = carry, b""
        else:
            data = carry + new
            cut = data.rfind(b"\n") + 1
            if cut == 0 and size < 8 * chunk_size:
                carry = data
                continue
            cut = cut or size
            block, rest = data[:cut], data[cut:]
        hold = scanner.block(block, final=eof or size > 8 * chunk_size)
        carry = block[hold:] + rest if hold is not None else rest
        new = block = data = None   # dropped before the next read: its buffer takes their memory
        if progress is not None:
            progress(done, total)
        if eof:
            return done, b""
        if after_block is not None and after_block(base + done - len(rest), hold is not None):
            return done, carry


class BlockScanner:
    """State across chunks: the line number of the next block, counters.

    `encode`: each new answer's JSON is encoded when found, so occurrences
    repeating it share the text.
    """

    def __init__(self, ctx: MatchContext, report: ScanReport, encode: bool = False) -> None:
        self.ctx, self.report = ctx, report
        self.fragments = FragmentCache() if encode else None
        self.unknowns: list[tuple[str, int | None, str]] = []   # (normalized, log line, shown), in order
        self.next_line = 1
        self.lines = 0
        self.events = 0
        self.matched = 0
        self._answers: dict[tuple, object] = {}   # frame-less event text -> matches or unknown key
        self._lines = LineMatcher(ctx.engine)

    def block(self, block: bytes, final: bool) -> int | None:
        """Scan one block; return the offset to carry over, or None."""
        hits = self.ctx.engine.scan_block(block)
        consumed: set[int] = set()
        events: list[tuple[ErrorEvent, set[int] | None, str | None]] = []
        hold = None
        for line_idx in sorted(hits):
            if line_idx in consumed:
                continue
            h = hits[line_idx]
            if not h.markers.isdisjoint(_BLOCK_MARKERS):
                parsed = self._parse_block(block, h.start, line_idx, final)
                if parsed == "hold":
                    hold, hold_line = h.start, line_idx
                    break
                if parsed is not None:
                    found, used = parsed
                    consumed |= used
                    events.extend((event, None, None) for event in found)
                    continue
            if h.candidates or "errline" in h.markers:
                found = self._line_event(block, h.start, h.end, line_idx, h.candidates)
                if found is not None:
                    events.append((found[0], h.candidates, found[1]))
        for event, hint, seen_in in events:
            self._record(event, hint, seen_in)
        if hold is None:
            newlines = hits.newlines
            self.lines += newlines + (0 if block.endswith(b"\n") or not block else 1)
        else:
            newlines = hold_line
            self.lines += newlines
        self.next_line += newlines
        return hold

    def _parse_block(self, block: bytes, start: int, line_idx: int, final: bool):
        back = start
        before = 0
        for _ in range(PYTEST_CONTEXT_LINES):
            if back == 0:
                break
            back = block.rfind(b"\n", 0, back - 1) + 1
            before += 1
        limit = before + WINDOW_LINES
        hard_end = min(len(block), start + WINDOW_BYTES)
        first = self.next_line + line_idx - before
        size = FIRST_WINDOW_BYTES
        while True:   # a small window first: decoding 1 MB per traceback made traceback-heavy logs crawl
            end = block.find(b"\n", start + size, hard_end) + 1 if start + size < hard_end else 0
            text = block[back:end or hard_end].decode("utf-8", "replace")
            window = text.split("\n")
            whole = not end or len(window) > limit
            if needs_cleaning(text):
                lines = _Watched(clean_line(line) for line in window[:limit])
            else:   # nothing to clean: clean_line would return every line as it is
                lines = _Watched(window[:limit] if len(window) > limit else window)
            parsed = parse_at(lines, before, first)
            if whole or lines.deepest < len(lines) - 1:   # the parse never reached the window's end
                break
            size *= 8
        if parsed is None:
            return None
        if not final and hard_end == len(block) and (
                not parsed.complete or (not end and len(window) <= limit and lines.deepest >= len(lines) - 1)):
            # cut off, or read to the block's last line (a chain marker may follow in the next block)
            return "hold"
        used = {line_idx - before + k for k in parsed.consumed}
        return parsed.events, used

    def _line_event(self, block: bytes, start: int, end: int, line_idx: int,
                    candidates: set[int]) -> tuple[ErrorEvent, str] | None:
        """The event on one flagged line, with the cleaned line (whose candidates are known)."""
        if end < 0:
            end = block.find(b"\n", start)
        line = clean_line(block[start: end if end >= 0 else len(block)].decode("utf-8", "replace"))
        if not opens_block(line):   # most flagged lines: `parse_at` would come to the same
            event = line_event(line, self.next_line + line_idx)
            if event is not None:
                return event, line
        else:
            parsed = parse_at([line], 0, self.next_line + line_idx)
            if parsed is not None and parsed.events:
                return parsed.events[0], line
        if candidates:
            return ErrorEvent(None, bare_message(line), [], self.next_line + line_idx, kind="line"), line
        return None

    def _record(self, event: ErrorEvent, hint: set[int] | None = None, seen_in: str | None = None) -> None:
        """Match one event; a frame-less event repeats an earlier answer for the same text."""
        self.events += 1
        key = None
        if not event.frames:
            key = (event.error_class, event.message, event.kind, event.failing_expr,
                   event.primary, event.chain)
            known = self._answers.get(key)
            if known is not None:
                self._reuse(event, known)
                return
        matches = self._lines.match(event, hint, seen_in) if hint and seen_in is not None else None
        if matches is None:
            matches = match_event(event, self.ctx.index, self.ctx.engine, top_only=True,
                                  hint=hint, seen_in=seen_in)
        if matches:
            self.matched += 1
            if self.fragments is not None:
                encode_occurrences(matches, self.fragments)
            self.report.occurrences.extend(matches)
            if key is not None:
                self._answers[key] = matches
            return
        shown = f"{event.error_class}: {event.message}" if event.error_class else event.message
        normalized = normalize_unknown(shown.split("\n", 1)[0])
        if key is not None:
            self._answers[key] = (normalized, shown)
        self._unknown(event, normalized, shown)

    def _reuse(self, event: ErrorEvent, known) -> None:
        if isinstance(known, tuple):
            self._unknown(event, *known)
            return
        self.matched += 1
        line = event.log_line
        for m in known:
            self.report.occurrences.append(_at_line(m, line))

    def _unknown(self, event: ErrorEvent, normalized: str, shown: str) -> None:
        self.unknowns.append((normalized, event.log_line, shown))


def add_unknowns(unknown: dict[str, dict], events, line_offset: int = 0) -> None:
    """Fold unknown events `(normalized, line, shown)`, in log order, into the report's table."""
    for normalized, line, shown in events:
        entry = unknown.get(normalized)
        if entry is None:
            unknown[normalized] = {"normalized": normalized, "count": 1, "example": shown[:500],
                                   "firstLine": line + line_offset if line is not None else None}
        else:
            entry["count"] += 1


class _Watched(list):
    """Lines that remember the deepest index read: a parse that never read the
    last line would give the same answer on a longer window."""

    __slots__ = ("deepest",)

    def __init__(self, lines) -> None:
        super().__init__(lines)
        self.deepest = -1

    def __getitem__(self, idx):
        if isinstance(idx, int):
            at = idx + len(self) if idx < 0 else idx
            if at > self.deepest:
                self.deepest = at
        else:
            self.deepest = len(self)
        return list.__getitem__(self, idx)

    def __iter__(self):
        self.deepest = len(self)
        return list.__iter__(self)


def _at_line(m: Match, line: int | None) -> Match:
    """A copy of a match for another occurrence of the same text (positional, in field order:
    thousands per big log)."""
    return Match(
        m.id, m.repo, m.file_path, m.line_number, m.error_class, m.error_message, m.score,
        m.confidence, m.via, dict(m.bindings), dict(m.expressions), m.match_kind,
        m.condition_check, line, m.chain, m.primary, m.dataset, m.candidates, m.candidate_ids, m.encoded,
    )
