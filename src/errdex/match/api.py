"""`explain()`: any error text (or exception object) to ranked matches.

The records and the compiled engine of a (db, datasets) pair are kept per
process, keyed by the db path, its mtime and size, and the datasets asked
for, so repeated calls are cheap; on disk, `<db>.engine/context-*.marshal`
holds the slim records, the compiled hyperscan databases and the record
index's tables in one file, so a fresh process loads them in a few
milliseconds (mapped: each part is read when first used) and never opens
the SQLite store.
"""

from __future__ import annotations

import marshal
import mmap
import os
import re
import zlib
from array import array
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterable, Sequence

from errdex.errors import ErrdexError
from errdex.match.engine import PatternEngine
from errdex.match.events import (
    TRACEBACK_HEADER,
    ErrorEvent,
    assert_above,
    assert_statement,
    bare_message,
    exception_above_frames,
    parse_events,
    prose_frames,
    raise_statement,
)
from errdex.match.pasted import closing_mark_dropped, ending_code_span, told_test, unwrapped
from errdex.match.patterns import RecordRef
from errdex.match.record_index import TABLES, RecordIndex, index_tables
from errdex.match.resolve import Match, match_event, mirrors_after_originals
from errdex.match.text import split_clean_lines

if TYPE_CHECKING:   # pathlib (and traceback) are imported where used: ~4 ms of every scan's start-up
    from pathlib import Path

DB_ENV = "ERRDEX_DB"


class IndexMissingError(ErrdexError):
    """No index file where one was expected; distinct from "nothing matched" (1)."""

    exit_code = 2
_SLIM_VERSION = "18"  # 5: the engine snapshot holds the prefilter database; 6: records in one blob; 8: bare table;
# 9: per-literal line pieces; 10: the records blob follows the marshalled header, mapped, not read;
# 11: the header holds the key its file name spreads; 12: the engine's size (databases loaded on first use);
# 13: the class names the records raise; 14: the line-regex and prefix databases after the header;
# 15: the prefix targets packed; 16: the record index's tables; 17: the prefilter database,
# targets and line pieces after the header; 18: line pieces end at wide whitespace


@dataclass(slots=True)
class MatchContext:
    """Everything matching needs for one set of datasets."""

    index: RecordIndex
    engine: PatternEngine
    datasets: list[str]

    def __post_init__(self) -> None:
        # resolve grades a pasted bare assert by how many records assert its test, counted
        # once per engine over every record (`statements.assert_counts`): the index's table
        # has the counts without decoding them (tests/match/test_fast_scan.py holds the two together).
        self.engine.assert_counts = self.index.assert_counts()

    @classmethod
    def from_records(cls, records: Iterable[dict], cache_dir: Path | None = None,
                     backend: str = "auto", dataset: str = "") -> "MatchContext":
        """Build from record dicts (seed format plus `errdex`)."""
        refs = [RecordRef.from_record(i, r, r.get("_dataset", dataset)) for i, r in enumerate(records)]
        return cls._from_refs(refs, cache_dir, backend, [dataset] if dataset else [])

    @classmethod
    def _from_refs(cls, refs: list[RecordRef], cache_dir: Path | None, backend: str,
                   datasets: list[str]) -> "MatchContext":
        return cls(RecordIndex(refs), PatternEngine(refs, cache_dir, backend), datasets)


_CONTEXTS: dict[tuple, MatchContext] = {}


def default_db() -> Path:
    from pathlib import Path

    return Path(os.environ.get(DB_ENV) or "errdex.db")


def load_context(db: str | os.PathLike | None = None, dataset: str | list[str] | None = None,
                 backend: str = "auto") -> MatchContext:
    """The (cached) context for a db file and datasets (default: newest of each repo)."""
    path = os.fspath(db if db is not None else default_db())
    if not os.path.exists(path):
        raise IndexMissingError(f"no index at {path}: run `errdex index SOURCE` first")
    wanted = [dataset] if isinstance(dataset, str) else sorted(dataset or [])
    stat = os.stat(path)
    key = (os.path.realpath(path), stat.st_mtime_ns, stat.st_size, tuple(wanted), backend)
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        ctx = _CONTEXTS[key] = _context_from_disk(path, wanted, key, backend)
    return ctx


def _context_from_disk(path: str, wanted: list[str], key: tuple, backend: str) -> MatchContext:
    """From the snapshot next to the index when it is current, else from the store (then saved)."""
    cache_dir = path + ".engine"
    # The file name only spreads keys: the header repeats the key, so a clash reads as a miss
    # (zlib: hashlib's OpenSSL import was ~3 ms of every scan's start-up).
    named = repr((_SLIM_VERSION,) + key).encode()
    snap_path = os.path.join(cache_dir, f"context-{zlib.crc32(named):08x}{zlib.adler32(named):08x}.marshal")
    snap = _read_snapshot(snap_path)
    if snap is not None and snap.get("key") != named:
        snap = None
    if snap is not None:
        refs = LazyRecords(snap["records"], snap["offsets"])
        engine = PatternEngine(refs, cache_dir, backend, snapshot=snap["engine"])
        return MatchContext(RecordIndex(refs, snap["index"]), engine, list(snap["datasets"]))
    refs, names = _load_refs(path, wanted)
    ctx = MatchContext._from_refs(refs, cache_dir, backend, names)
    blobs = [marshal.dumps(r.to_row()) for r in refs]
    offsets = array("Q", [0])
    for blob in blobs:
        offsets.append(offsets[-1] + len(blob))
    _write_snapshot(snap_path, {
        "version": _SLIM_VERSION, "key": named, "datasets": names, "records": b"".join(blobs),
        "offsets": offsets.tobytes(), "engine": ctx.engine.snapshot(), "index": index_tables(refs),
    }, key[1])
    return ctx


#: Packed parts kept after the header, mapped, by section: a log scan seldom loads the engine's
#: line-regex databases (7.9 MB for sglang; unmarshalling copied them out of the file at every
#: start, ~5 ms), nor any table of the record index (~1.5 MB); the rest are copied only when used.
_BLOB_SECTIONS = {"engine": ("db", "prefix_db", "pre_db", "targets", "line_pieces"), "index": TABLES}


def _read_snapshot(path: str | Path) -> dict | None:
    """A context snapshot: the header's length (8 bytes), the marshalled header (the prefilter
    database as bytes, record offsets, where each blob lies), the blobs (the other compiled
    databases, the record index's tables), then the records blob (marshalled tuples end to end).

    The file is mapped, not read: a scan decodes a few thousand of ~30k records, so
    most of the blob's pages are never touched (reading and unmarshalling the whole
    file was ~0.045 s CPU of every fresh process; mapped: ~0.01).
    """
    try:
        with open(path, "rb") as f:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):   # missing, or empty (mmap refuses length 0)
        return None
    view = memoryview(data)
    size = int.from_bytes(view[:8], "little")
    try:
        snap = marshal.loads(view[8:8 + size])
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(snap, dict) or snap.get("version") != _SLIM_VERSION:
        return None
    base = 8 + size
    blobs = snap.pop("blobs", {})
    for (section, key), (offset, length) in blobs.items():   # views: copied only when loaded
        snap[section][key] = view[base + offset:base + offset + length]
    records = view[base + sum(length for _, length in blobs.values()):]
    if int.from_bytes(bytes(snap["offsets"][-8:]), "little") != len(records):   # cut short
        return None
    snap["records"] = records
    return snap


def _write_snapshot(path: str | Path, snap: dict, db_mtime_ns: int) -> None:
    from pathlib import Path

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _drop_stale(path.parent, db_mtime_ns)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        records = snap.pop("records")
        blobs, layout, at = [], {}, 0
        for section, keys in _BLOB_SECTIONS.items():
            part = snap.get(section)
            if not isinstance(part, dict):
                continue
            part = snap[section] = dict(part)
            for key in keys:
                blob = part.get(key)
                if isinstance(blob, bytes):
                    layout[(section, key)], part[key] = (at, len(blob)), None
                    blobs.append(blob)
                    at += len(blob)
        snap["blobs"] = layout
        header = marshal.dumps(snap)
        with open(tmp, "wb") as out:
            out.write(len(header).to_bytes(8, "little"))
            out.write(header)
            for blob in blobs:
                out.write(blob)
            out.write(records)
        os.replace(tmp, path)
    except OSError:  # a read-only location: the next run builds again
        pass


def _drop_stale(cache_dir: Path, db_mtime_ns: int) -> None:
    """Snapshots written before the index last changed can never be used again (nor old JSON slims)."""
    for old in [*cache_dir.glob("context-*.marshal"), *cache_dir.glob("records-*.json")]:
        try:
            if old.suffix == ".json" or old.stat().st_mtime_ns < db_mtime_ns:
                old.unlink()
        except OSError:
            pass


class LazyRecords(Sequence):
    """Records stored as marshal blobs end to end in one bytes object (record i
    between offsets i and i + 1), each decoded when first asked for.

    A scan touches a few hundred of ~30k records; decoding all of them
    would be most of a fresh process's start-up, and one blob loads ~6x
    faster than ~30k small ones.
    """

    def __init__(self, blob: bytes, offsets: bytes) -> None:
        self._blob = memoryview(blob)
        self._offsets = memoryview(offsets).cast("Q")
        self._count = len(self._offsets) - 1
        self._refs: list[RecordRef | None] = [None] * self._count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, idx):
        try:
            ref = self._refs[idx]   # an int, nearly always: asked ~30k times by a big log's scan
        except TypeError:
            if isinstance(idx, slice):
                return [self[i] for i in range(*idx.indices(len(self)))]
            raise
        if ref is None:
            if idx < 0:
                idx += self._count
            row = marshal.loads(self._blob[self._offsets[idx]:self._offsets[idx + 1]])
            ref = self._refs[idx] = RecordRef.from_row(row)
        return ref

    def __iter__(self):
        return (self[i] for i in range(self._count))


def _load_refs(path: str, wanted: list[str]) -> tuple[list[RecordRef], list[str]]:
    from errdex.store import Store

    store = Store.open(path, readonly=True)
    try:
        names = wanted or _default_datasets(store)
        refs: list[RecordRef] = []
        for name in names:
            info = store.resolve_dataset(name)
            for record in store.iter_records(info.name):
                refs.append(RecordRef.from_record(len(refs), record, info.name))
    finally:
        close = getattr(store, "close", None)
        if close:
            close()
    return refs, names


def _default_datasets(store) -> list[str]:
    """The newest published dataset of each repo."""
    newest: dict[str, object] = {}
    for info in store.datasets():
        current = newest.get(info.repo)
        if current is None or (info.published_at, info.id) > (current.published_at, current.id):
            newest[info.repo] = info
    return [info.name for info in newest.values()]


def text_of(text_or_exception: str | BaseException) -> str:
    if isinstance(text_or_exception, BaseException):
        import traceback

        exc = text_or_exception
        return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return text_or_exception


def events_of(text: str) -> list[ErrorEvent]:
    """Error events in pasted text; bare lines when nothing looks like an error."""
    lines = split_clean_lines(text)
    events = parse_events(lines)
    if events:
        found = [_as_pasted(e) for e in assert_above(exception_above_frames(events), lines)]
        if all(e.kind == "traceback" and e.error_class is None and not e.message for e in found):
            found += _logged_above(lines)
        return found
    body = [(i, line) for i, line in enumerate(lines) if line.strip()]
    out = [ErrorEvent(None, unwrapped(bare_message(line)), [], i + 1, kind="text") for i, line in body]
    for i, line in body:   # a sentence ending in a quoted message: the quote alone, as its writer marked it
        quoted = ending_code_span(line)
        if quoted is not None:
            out.append(ErrorEvent(None, unwrapped(quoted), [], i + 1, kind="text"))
    if len(body) > 1:  # a message that spanned several lines
        joined = " ".join(unwrapped(bare_message(line)) for _, line in body)
        out.append(ErrorEvent(None, joined, [], body[0][0] + 1, kind="text"))
    statement = raise_statement(" ".join(line.strip() for _, line in body)) if body else None
    if statement is not None:   # the code that raised, quoted: `raise ValueError(f"...")`
        out.append(ErrorEvent(statement[0], "", prose_frames(body[0][1]), body[0][0] + 1, kind="text",
                              raise_message=statement[1]))
    if len(body) == 1:
        statement = assert_statement(body[0][1]) or assert_statement(bare_message(body[0][1]))   # `[Bug] assert x`
        expr, message = statement or (body[0][1].strip(), None)
        frames = prose_frames(body[0][1]) if statement else []   # `assert x` fails in pkg/mod.py
        out.append(ErrorEvent("AssertionError", "", frames, body[0][0] + 1, kind="text", failing_expr=expr,
                              assert_message=message))
    return out


def _logged_above(lines: list[str]) -> list[ErrorEvent]:
    """The line right above each traceback header, as a message: a traceback cut before its
    exception line says nothing of its own, and `logger.exception(msg)` prints `msg` right above
    the traceback (set 3 #20: `Error in request: ...`, then frames only)."""
    out = []
    for i in range(1, len(lines)):
        above = lines[i - 1].strip()
        if above and TRACEBACK_HEADER.search(lines[i]) and not TRACEBACK_HEADER.search(above):
            out.append(ErrorEvent(None, unwrapped(bare_message(lines[i - 1])), [], i, kind="text"))
    return out


def _as_pasted(event: ErrorEvent) -> ErrorEvent:
    """A pasted event read as a writer shapes it, which a program's log does not: without its
    markdown span's closing backtick (`pasted.closing_mark_dropped`), and with the assert's
    test a writer put where Python prints nothing (`pasted.told_test`)."""
    message = closing_mark_dropped(event.message)
    told = told_test(message) if event.error_class == "AssertionError" and event.failing_expr is None else None
    if message == event.message and told is None:
        return event
    return replace(event, message=message, told_test=told)


def explain(text_or_exception: str | BaseException, db: str | os.PathLike | None = None,
            dataset: str | list[str] | None = None, *, context: MatchContext | None = None) -> list[Match]:
    """Ranked records for an error text, traceback, log excerpt or exception object."""
    ctx = context or load_context(db, dataset)
    text = text_of(text_or_exception)
    return named_first(match_events(events_of(text), ctx), text, ctx.index)


#: Texts searched for the names of tied matches' functions (a pasted excerpt, not a whole log).
_NAMED_TEXT_MAX = 1 << 20


def named_first(matches: list[Match], text: str, index: RecordIndex) -> list[Match]:
    """Among the best matches tied on score (one template at several sites), those whose function
    the text names (`in _alloc_slot` of a traceback retyped by hand, a log's own function name)
    first, or, when the sites share their function's name, those whose package a dotted value
    names; otherwise as ranked."""
    if len(matches) < 2 or matches[0].score != matches[1].score or len(text) > _NAMED_TEXT_MAX:
        return matches
    tied = 1
    while tied < len(matches) and matches[tied].score == matches[0].score:
        tied += 1
    by_id = index.by_id
    names = [by_id[m.id].function_name if m.id in by_id else "" for m in matches[:tied]]
    if len(set(names)) < 2:
        packages = [_packages_of(m.file_path) for m in matches[:tied]]
        if len(set(packages)) < 2:
            return matches
        # one function name at several sites: a value naming a module of one site's own package
        # (`Ignore import error when loading sglang.srt.models.glm4v_moe` of the models registry)
        named = [any(re.search(rf"(?<![\w.]){re.escape(p)}\.\w", text) for p in ps) for ps in packages]
    else:
        named = [bool(n) and re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text) is not None for n in names]
    if not any(named) or all(named):
        return matches
    head = [m for m, hit in zip(matches[:tied], named) if hit] + [m for m, hit in zip(matches[:tied], named) if not hit]
    return head + matches[tied:]


def _packages_of(file_path: str) -> tuple[str, ...]:
    """`sglang.srt.models` and `srt.models` for `python/sglang/srt/models/registry.py`: the dotted
    package of a file as an import may name it (a checkout's layout folder first, or none), at
    least two parts long."""
    parts = file_path.split("/")[:-1]
    if any("." in p for p in parts):
        return ()
    return tuple(".".join(parts[i:]) for i in range(len(parts) - 1))


def match_events(events: list[ErrorEvent], ctx: MatchContext) -> list[Match]:
    """All events' matches, best first, one entry per record."""
    best: dict[str, Match] = {}
    for event in events:
        for m in match_event(event, ctx.index, ctx.engine):
            if m.id not in best or m.score > best[m.id].score:
                best[m.id] = m
    return mirrors_after_originals(sorted(best.values(), key=lambda m: (-m.score, m.log_line or 0)))
