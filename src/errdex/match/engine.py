"""PatternEngine: every record's message pattern in one linear-time matcher.

Two backends give the same answers:

* hyperscan (when importable): one block-mode database holding each distinct
  capture-free line regex plus a few marker patterns for log scanning, and
  one of prefix keys (pasted text only). A log block is first scanned by a
  prefilter database of one required literal per line regex plus the
  markers (literal matching: ~3x faster than the 16k regexes over a big
  log); each line holding a literal is then checked against the line regexes
  holding that literal only, by `patterns.line_has` (a few `bytes.find`).
  Compiled databases are serialized to `<cache dir>/<sha256>.hsdb`, so later
  runs load them in well under a second instead of compiling again.
* pure Python: pyahocorasick over each pattern's longest whitespace-free
  literal token, which any rendering contains verbatim, then `re`.

Backends only propose candidates (a superset of the true ones for the
fallback, the exact set for hyperscan); the verification in `patterns.py`
decides, so results cannot depend on the backend.
"""

from __future__ import annotations

import marshal
import os
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from errdex.match.bare import BareTable, bare_table
from errdex.match.patterns import (
    MessageHit, RecordRef, hs_escape, line_chunks, line_has, line_literal, line_regex, longest_token,
    normalize_space, prefix_key, verify_drift, verify_full, verify_prefix, LINE_SPACE,
)

if TYPE_CHECKING:
    from pathlib import Path

try:  # hyperscan ships wheels for x86-64 Linux only
    import hyperscan
except ImportError:  # pragma: no cover - depends on the platform
    hyperscan = None

#: Marker patterns for log scanning: what makes a line worth a closer look.
MARKERS: dict[str, str] = {
    "traceback": r"Traceback \(most recent call last\):",
    "frame": r'File "[^"\n]+", line [0-9]+',
    "errline": r"(Error|Exception|Warning|Exit|Interrupt)(\([A-Za-z0-9_.]*\))?(:|\r?$)",
    "pytest": r"^E {2,}[^ \n]",
}
MARKER_NAMES = tuple(MARKERS)


@dataclass(slots=True)
class LineHits:
    """What the engine saw on one line of a scanned block."""

    start: int = 0                                       # byte offset of the line in the block
    candidates: set[int] = field(default_factory=set)   # record indexes (line regex hit)
    markers: set[str] = field(default_factory=set)
    end: int = -1                                        # offset of its newline (or the block end); -1: unknown


class BlockHits(dict):
    """Line index -> LineHits for one block, plus the block's newline count
    (found on the way, so the caller need not count the block again)."""

    newlines: int = 0


@dataclass(slots=True)
class EngineStats:
    backend: str
    patterns: int
    build_seconds: float
    loaded_from_cache: bool
    size_bytes: int = 0


class PatternEngine:
    """All matchable records of the chosen datasets, compiled once."""

    def __init__(self, records: list[RecordRef], cache_dir: Path | None = None,
                 backend: str = "auto", snapshot: dict | None = None) -> None:
        self.records = records
        self.count = len(records)
        self._line: dict[int, re.Pattern] = {}
        self._matchable: list[RecordRef] | None = None
        self._fallback: _TokenCandidates | None = None
        self._bare: BareTable | None = None
        self.bare_memo: dict = {}   # (class, fitting shapes) -> answer, see `bare.find_bare`
        self.agree_memo: dict = {}  # (printed class, record index) -> `resolve.class_agrees`
        started = time.perf_counter()
        if backend == "auto":
            backend = "hyperscan" if hyperscan is not None else "python"
        if backend == "hyperscan":
            self._backend = _HyperscanBackend(self, cache_dir, snapshot)
        elif backend == "python":
            self._backend = _AhoCorasickBackend(self)
        else:
            raise ValueError(f"unknown engine backend {backend!r}")
        self._backend_name = backend
        self.stats = EngineStats(
            backend=backend, patterns=getattr(self._backend, "patterns", 0) or len(self.matchable),
            build_seconds=time.perf_counter() - started,
            loaded_from_cache=getattr(self._backend, "loaded_from_cache", False),
            size_bytes=getattr(self._backend, "size_bytes", 0),
        )

    def token_table(self) -> dict[str, tuple[int, ...]]:
        """From the snapshot when there is one: deriving it decodes every record."""
        backend = self._backend
        table = getattr(backend, "tokens", None)
        if isinstance(table, bytes):   # kept packed in the snapshot: a scan seldom needs it
            table = backend.tokens = marshal.loads(table)
        return table if table is not None else token_table(self.matchable)

    def bare_table(self) -> BareTable:
        """Bare records by printed class (see `bare.py`): from the snapshot when there is
        one, else built on first need (it reads every record once)."""
        table = self._bare
        if table is None:
            table = getattr(self._backend, "bare", None)
            if isinstance(table, bytes):
                table = marshal.loads(table)
            if table is None:
                table = bare_table(self.records)
            self._bare = table
        return table

    @property
    def matchable(self) -> list[RecordRef]:
        """Records with enough literal text to match on their own (built on first use:
        a context loaded from a snapshot never needs the full list to scan)."""
        if self._matchable is None:
            self._matchable = [r for r in self.records if r.matchable]
        return self._matchable

    @property
    def backend(self) -> str:
        return self.stats.backend

    def snapshot(self) -> dict | None:
        """The compiled state as plain data (bytes, tuples), or None for the pure-Python backend.

        Given back to the constructor it skips deriving ~15k expressions and
        hashing them: a process that only scans starts in a fraction of a second.
        """
        snap = getattr(self._backend, "snapshot", None)
        return snap() if snap else None

    def line_pattern(self, idx: int) -> re.Pattern:
        compiled = self._line.get(idx)
        if compiled is None:
            compiled = self._line[idx] = re.compile(line_regex(self.records[idx].chunks))
        return compiled

    def match_message(self, message: str, hint: set[int] | None = None,
                      seen_in: str | None = None) -> list[MessageHit]:
        """Every record whose template matches the message fully or inside it;
        prefix matches (truncated text) only when no template matches at all.

        `hint` is the candidate set a block scan already found on the line
        `seen_in`; when the normalised message lies verbatim in that line the
        hint is a superset of the message's own candidates, so the second
        engine scan is skipped (verification decides either way).
        """
        text = normalize_space(message)
        if not text:
            return []
        hits: list[MessageHit] = []
        done: set[int] = set()
        if hint is not None and seen_in is not None and text in seen_in:
            candidates = hint
        else:
            candidates = self._backend.full_candidates(text)
        for idx in sorted(candidates):
            hit = verify_full(self.records[idx], text)
            if hit is not None:
                hits.append(hit)
                done.add(idx)
        if not hits and self._backend_name == "hyperscan":
            hits = self._second_opinion(text)
        if hits and any(hit.kind == "full" for hit in hits):
            return hits
        if hits:   # found inside the text only: a template's whole first line may be the text, or
            # the text a cut rendering of a template that explains more of it than they do
            first, cuts = self.cut_renderings(text, done, max(hit.literal_covered for hit in hits))
            return first + hits if first else cuts or hits
        drifted: list[MessageHit] = []
        for idx in sorted(self._backend.prefix_candidates(text) - done):
            hit = verify_prefix(self.records[idx], text)
            if hit is not None:
                hits.append(hit)
            elif not hits and (hit := verify_drift(self.records[idx], text)) is not None:
                drifted.append(hit)
        return hits or drifted

    def prefix_hits(self, message: str) -> list[MessageHit]:
        """Records the message is a cut rendering of (`verify_prefix`), asked for when every
        template `match_message` found was another class's (it looks no further then)."""
        text = normalize_space(message)
        found = (verify_prefix(self.records[idx], text) for idx in sorted(self._backend.prefix_candidates(text)))
        return [hit for hit in found if hit is not None]

    def cut_renderings(self, text: str, done: set[int], literal: int) -> tuple[list[MessageHit], list[MessageHit]]:
        """For a text that only holds templates inside it (`literal`: the most literal text one of
        them covers): the templates whose first line the text is, whole (`Capture failed: {e}`
        then hint lines that a pasted exception line does not carry), and the templates the text
        is a cut rendering of that cover more literal text than that, from its start: a message
        built in parts, whose last part is left out (`... with exception {e}` then ` (HiCache
        ... failed)` added on another branch), holds the error it appends inside it."""
        first: list[MessageHit] = []
        cuts: list[MessageHit] = []
        for idx in sorted(self._backend.prefix_candidates(text) - done):
            hit = verify_prefix(self.records[idx], text)
            if hit is None:
                continue
            if hit.kind == "firstline":
                first.append(hit)
            elif hit.kind == "prefix" and hit.literal_covered > literal:
                cuts.append(hit)
        return first, cuts

    def _second_opinion(self, text: str) -> list[MessageHit]:
        """Full matches by the pure-Python candidates, for text hyperscan found none in.

        hyperscan 5.4 can lose a match when another pattern shares its
        literal tail (`` `out` must have shape .+? \\(got`` next to
        `` `.+?` must have shape .+?, got``), so a message with no full match gets
        a second look; built on first need, it costs nothing on clean logs.
        """
        hits = []
        for idx in sorted(self.token_candidates(text)):
            hit = verify_full(self.records[idx], text)
            if hit is not None:
                hits.append(hit)
        return hits

    def token_candidates(self, text: str) -> set[int]:
        """Records whose longest literal token occurs in the text.

        A short text (a log scan's bare `AssertionError: 4096`) looks its
        whitespace-free substrings up in the token table instead: the same set,
        without building the automaton (~15 ms, once per process) for it.
        """
        if self._fallback is None:
            words = text.split()   # a token holds no whitespace: it lies inside one word
            if sum(len(w) * (len(w) + 1) for w in words) <= 2 * _SUBSTRING_LOOKUPS:
                table, found = self.token_table(), set()
                for word in words:
                    size = len(word)
                    for start in range(size):
                        for end in range(start + 1, size + 1):
                            ids = table.get(word[start:end])
                            if ids:
                                found.update(ids)
                return found
            self._fallback = _TokenCandidates(self.token_table())
        return self._fallback.candidates(text)

    def scan_block(self, data: bytes) -> BlockHits:
        """Lines (0-based within `data`) holding a template rendering or a marker."""
        return self._backend.scan_block(data)

    def prepare_scan(self) -> None:
        """Load now what every block scan reads, not in each forked worker's first block."""
        prepare = getattr(self._backend, "prepare_scan", None)
        if prepare is not None:
            prepare()


#: Substring look-ups a text may cost before the token automaton is built instead.
_SUBSTRING_LOOKUPS = 2000


class _HyperscanBackend:
    """Candidates from one hyperscan block-mode database."""

    def __init__(self, engine: PatternEngine, cache_dir: Path | None, snapshot: dict | None = None) -> None:
        self.engine = engine
        if snapshot is not None and self._restore(snapshot):
            return
        # Many records share a template: compile each expression once and map
        # its hyperscan id back to every record it stands for. Two databases:
        # line regexes + markers (logs and text), prefix keys (pasted text only).
        full: dict[bytes, list[int]] = defaultdict(list)
        prefix: dict[bytes, list[int]] = defaultdict(list)
        literals: dict[str, set[bytes]] = defaultdict(set)   # literal -> the line regexes holding it
        pieces: dict[bytes, tuple[bytes, ...]] = {}
        for rec in engine.matchable:
            expr = hs_escape(line_regex(rec.chunks))
            full[expr].append(rec.idx)
            literals[line_literal(rec.chunks)].add(expr)
            pieces[expr] = tuple(c.encode("utf-8") for c in line_chunks(rec.chunks))
            key = prefix_key(rec.chunks).strip()
            if key:
                prefix[hs_escape(_space_regex(key))].append(rec.idx)
        exprs = list(full)
        self._targets: list[tuple[int, ...]] | None = [tuple(full[e]) for e in exprs]
        expr_id = {e: i for i, e in enumerate(exprs)}
        self._line_pieces: tuple[list, list] | None = (
            [pieces[e] for e in exprs],
            [tuple(sorted(expr_id[e] for e in literals[lit])) for lit in sorted(literals)])
        self._prefix_targets: list[tuple[int, ...]] | None = [tuple(v) for v in prefix.values()]
        flags = [0] * len(exprs)
        self.marker_base = len(exprs)
        for name in MARKER_NAMES:
            exprs.append(MARKERS[name].encode())
            flags.append(hyperscan.HS_FLAG_MULTILINE)
        self.loaded_from_cache = True
        self._db = self._load_or_compile(exprs, flags, cache_dir)
        self._prefix_db = self._load_or_compile(list(prefix), [0] * len(prefix), cache_dir) if prefix else None
        self._packed = None
        exprs, flags = _prefilter_expressions(literals)
        self.pre_marker_base = len(literals)
        self.pre_db = self._load_or_compile(exprs, flags, cache_dir)
        self.size_bytes = sum(db.size() for db in (self.db, self.prefix_db, self.pre_db) if db is not None)

    def snapshot(self) -> dict:
        return {
            "hyperscan": hyperscan.__version__ if hasattr(hyperscan, "__version__") else "",
            "count": self.engine.count, "patterns": len(self.engine.matchable),
            "targets": marshal.dumps(self.targets), "line_pieces": marshal.dumps(self.line_pieces),
            "prefix_targets": marshal.dumps(self.prefix_targets), "marker_base": self.marker_base,
            "markers": MARKER_NAMES, "tokens": marshal.dumps(self.engine.token_table()),
            "bare": marshal.dumps(self.engine.bare_table()),
            "class_names": sorted(raised_class_names(self.engine.records)),
            "db": hyperscan.dumpb(self.db),
            "prefix_db": hyperscan.dumpb(self.prefix_db) if self.prefix_db is not None else None,
            "pre_db": hyperscan.dumpb(self.pre_db), "pre_marker_base": self.pre_marker_base,
            "size_bytes": self.size_bytes,
        }

    # The line-regex and prefix databases serve pasted text and the rare log event the
    # block scan's candidates do not cover: a scan of a clean log never needs them, so a
    # snapshot's are loaded on first use (~6 ms of a fresh process's start-up).
    @property
    def db(self):
        if self._db is None:
            self._db = _loaded(self._packed["db"])
        return self._db

    @property
    def prefix_db(self):
        if self._prefix_db is None and self._packed is not None and self._packed["prefix_db"] is not None:
            self._prefix_db = _loaded(self._packed["prefix_db"])
        return self._prefix_db

    @property
    def prefix_targets(self) -> list[tuple[int, ...]]:
        if self._prefix_targets is None:   # packed in the snapshot: only pasted text asks (~1 ms to unpack)
            self._prefix_targets = [tuple(t) for t in marshal.loads(self._packed["prefix_targets"])]
        return self._prefix_targets

    # What verifies a block's flagged lines (and maps line regexes to records) is packed in the
    # snapshot too: a log without an error line, or one line of pasted text, never reads
    # `line_pieces`, and unpacking them with the targets was ~4 ms of every start (~20k tuples).
    @property
    def targets(self) -> list[tuple[int, ...]]:
        """Line regex id -> the records it stands for."""
        if self._targets is None:
            self._targets = marshal.loads(self._packed["targets"])
        return self._targets

    @property
    def line_pieces(self) -> tuple[list, list]:
        """(each line regex's literal pieces as bytes, prefilter literal id -> the line regexes holding it)."""
        if self._line_pieces is None:
            self._line_pieces = marshal.loads(self._packed["line_pieces"])
        return self._line_pieces

    def prepare_scan(self) -> None:
        """Unpack what a block scan reads, so that forked workers share it."""
        for packed in ("targets", "line_pieces"):
            getattr(self, packed)

    def _restore(self, snap: dict) -> bool:
        """Take a snapshot's databases; False when it does not fit this build."""
        version = hyperscan.__version__ if hasattr(hyperscan, "__version__") else ""
        if (snap.get("hyperscan") != version or snap.get("count") != self.engine.count
                or tuple(snap.get("markers") or ()) != MARKER_NAMES or not snap.get("pre_db")
                or "line_pieces" not in snap or "size_bytes" not in snap):
            return False
        try:   # the prefilter now (it proves the snapshot fits this platform), the others on first use
            self.pre_db = _loaded(snap["pre_db"])
            self.pre_marker_base = snap["pre_marker_base"]
        except Exception:  # foreign platform or a damaged file: build again
            return False
        self._db = self._prefix_db = self._prefix_targets = self._targets = self._line_pieces = None
        self._packed = {key: snap[key] for key in ("db", "prefix_db", "prefix_targets", "targets", "line_pieces")}
        self.marker_base = snap["marker_base"]
        self.patterns = snap.get("patterns", 0)
        self.tokens = snap.get("tokens")
        self.bare = snap.get("bare")
        names = snap.get("class_names")
        if names is not None:   # `resolve.printed_class_of` asks on a scan's first class-less error line
            self.engine.class_names = frozenset(names)
        self.loaded_from_cache = True
        self.size_bytes = snap["size_bytes"]
        return True

    def _load_or_compile(self, exprs, flags, cache_dir: Path | None):
        import hashlib   # compiling only: a scan loads its databases from the context snapshot
        from pathlib import Path

        cache_dir = Path(cache_dir) if cache_dir else None
        ids = list(range(len(exprs)))
        digest = hashlib.sha256()
        for expr, flag in zip(exprs, flags):
            digest.update(b"%d:" % flag + expr + b"\0")
        path = cache_dir / f"{digest.hexdigest()[:32]}.hsdb" if cache_dir else None
        if path is not None and path.exists():
            try:
                db = hyperscan.loadb(path.read_bytes(), hyperscan.HS_MODE_BLOCK)
                db.scratch = hyperscan.Scratch(db)
                return db
            except Exception:  # stale or foreign platform: compile again
                pass
        self.loaded_from_cache = False
        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        db.compile(expressions=exprs, ids=ids, elements=len(exprs), flags=flags)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(hyperscan.dumpb(db))
            os.replace(tmp, path)
        return db

    def full_candidates(self, text: str) -> set[int]:
        hs_ids: set[int] = set()
        self.db.scan(text.encode("utf-8"), match_event_handler=_collect_ids, context=hs_ids)
        return {t for h in hs_ids if h < self.marker_base for t in self.targets[h]}

    def prefix_candidates(self, text: str) -> set[int]:
        if self.prefix_db is None:
            return set()
        hs_ids: set[int] = set()
        self.prefix_db.scan(text.encode("utf-8"), match_event_handler=_collect_ids, context=hs_ids)
        return {t for h in hs_ids for t in self.prefix_targets[h]}

    def scan_block(self, data: bytes) -> BlockHits:
        """The prefilter over the block; each line holding a literal is then checked against
        the line regexes holding that literal only (`line_has`: a few `bytes.find` each,
        where a full-database scan of the line cost ~26 us)."""
        raw: list[tuple[int, int]] = []
        self.pre_db.scan(data, match_event_handler=_collect_offsets, context=raw)
        raw.sort()   # (end, pattern id): by position
        lines = BlockHits()
        line_no, pos, line_end = 0, 0, -1
        hits = None
        flagged: list[tuple[int, LineHits, set[int]]] = []   # lines holding literals, their literal ids
        literal_ids: set[int] | None = None
        pre_base = self.pre_marker_base
        for end, pid in raw:
            if end > line_end:   # the match's last byte (end - 1) lies past the current line
                at = end - 1
                line_no += data.count(b"\n", pos, at)
                pos = at
                line_end = data.find(b"\n", at)
                if line_end < 0:
                    line_end = len(data)
                hits = lines[line_no] = LineHits(data.rfind(b"\n", 0, at) + 1, end=line_end)
                literal_ids = None
            if pid >= pre_base:
                hits.markers.add(MARKER_NAMES[pid - pre_base])
            elif literal_ids is None:
                literal_ids = {pid}
                flagged.append((line_no, hits, literal_ids))
            else:
                literal_ids.add(pid)
        self._verify_lines(data, flagged, lines)
        lines.newlines = line_no + data.count(b"\n", pos)
        return lines

    def _verify_lines(self, data: bytes, flagged, lines: BlockHits) -> None:
        """Candidates of each line holding a literal: the records of the line regexes found
        in it; a line with neither a candidate nor a marker is dropped."""
        (pieces, literal_exprs), targets = self.line_pieces, self.targets
        for line_no, hits, literal_ids in flagged:
            line = data[hits.start:hits.end]
            candidates = hits.candidates
            for lit in literal_ids:   # in any order: the candidates are a set, read sorted
                for e in literal_exprs[lit]:
                    if line_has(line, pieces[e]):
                        candidates.update(targets[e])
            if not candidates and not hits.markers:
                del lines[line_no]


def raised_class_names(records) -> frozenset[str]:
    """The last dotted part of every class the records raise (`resolve.printed_class_of`'s
    `engine.class_names`): kept in the context snapshot, since deriving it decodes every
    record (~28k for sglang: ~0.1 s and ~40 MB in each scan process)."""
    return frozenset(r.error_class.rpartition(".")[2] for r in records if r.error_class)


def _prefilter_expressions(literals) -> tuple[list[bytes], list[int]]:
    """Prefilter expressions and flags: each literal (every byte escaped), then the markers.

    Every literal keeps an id of its own: with one id shared by all of
    them hyperscan's compile took minutes instead of half a second.
    """
    exprs = ["".join(f"\\x{b:02x}" for b in lit.encode("utf-8")).encode() for lit in sorted(literals)]
    flags = [0] * len(exprs)
    for name in MARKER_NAMES:
        exprs.append(MARKERS[name].encode())
        flags.append(hyperscan.HS_FLAG_MULTILINE)
    return exprs, flags


def _loaded(data: bytes | memoryview):
    """A serialized database (bytes, or a view of the mapped snapshot), ready to scan."""
    db = hyperscan.loadb(data if isinstance(data, bytes) else bytes(data), hyperscan.HS_MODE_BLOCK)
    db.scratch = hyperscan.Scratch(db)
    return db


def _collect_ids(pid, start, end, flags, context) -> None:
    context.add(pid)


def _collect_offsets(pid, start, end, flags, context) -> None:
    context.append((end, pid))


def _space_regex(text: str) -> str:
    return LINE_SPACE.join(re.escape(p) for p in text.split())


def token_table(records) -> dict[str, tuple[int, ...]]:
    """Each matchable record's longest literal token -> the records it stands for."""
    table: dict[str, list[int]] = defaultdict(list)
    for rec in records:
        token = max((longest_token(c) for c in rec.chunks), key=len, default="")
        if token:
            table[token].append(rec.idx)
    return {token: tuple(ids) for token, ids in table.items()}


class _TokenCandidates:
    """Records whose longest literal token occurs in a text (pyahocorasick; ~10 ms to build)."""

    def __init__(self, table: dict[str, tuple[int, ...]]) -> None:
        import ahocorasick

        self.automaton = ahocorasick.Automaton()
        for token, ids in table.items():
            self.automaton.add_word(token, tuple(ids))
        self.empty = not table
        if table:
            self.automaton.make_automaton()

    def candidates(self, text: str) -> set[int]:
        found: set[int] = set()
        if not self.empty:
            for _end, ids in self.automaton.iter(text):
                found.update(ids)
        return found


class _AhoCorasickBackend:
    """Pure-Python candidates: Aho-Corasick on literal tokens, then `re`."""

    def __init__(self, engine: PatternEngine) -> None:
        import ahocorasick

        self.engine = engine
        n = engine.count
        table: dict[str, list[int]] = defaultdict(list)
        for rec in engine.matchable:
            token = max((longest_token(c) for c in rec.chunks), key=len, default="")
            if token:
                table[token].append(rec.idx)
            key_token = longest_token(prefix_key(rec.chunks))
            if key_token:
                table[key_token].append(n + rec.idx)
        self.automaton = ahocorasick.Automaton()
        self.bytes_automaton = ahocorasick.Automaton()
        for token, ids in table.items():
            self.automaton.add_word(token, tuple(ids))
            # Same token as it looks in UTF-8 bytes read as latin-1 (log blocks).
            self.bytes_automaton.add_word(token.encode("utf-8").decode("latin-1"), tuple(ids))
        if table:
            self.automaton.make_automaton()
            self.bytes_automaton.make_automaton()
        self.empty = not table
        self.markers = {name: re.compile(rx, re.M) for name, rx in MARKERS.items()}

    def _tokens(self, text: str) -> set[int]:
        found: set[int] = set()
        if self.empty:
            return found
        for _end, ids in self.automaton.iter(text):
            found.update(ids)
        return found

    def full_candidates(self, text: str) -> set[int]:
        n = self.engine.count
        return {i for i in self._tokens(text) if i < n and self.engine.line_pattern(i).search(text)}

    def prefix_candidates(self, text: str) -> set[int]:
        n = self.engine.count
        return {i - n for i in self._tokens(text) if i >= n}

    def scan_block(self, data: bytes) -> BlockHits:
        n = self.engine.count
        text = data.decode("latin-1")   # one char per byte: offsets are byte offsets
        starts = _LineStarts(text)
        lines = BlockHits()
        lines.newlines = len(starts.starts) - 1
        if not self.empty:
            per_line: dict[int, set[int]] = defaultdict(set)
            for end, ids in self.bytes_automaton.iter(text):
                per_line[starts.line_of(end)].update(i for i in ids if i < n)
            for line_no, ids in per_line.items():
                line = starts.line_text(line_no).encode("latin-1").decode("utf-8", "replace")
                good = {i for i in ids if self.engine.line_pattern(i).search(line)}
                if good:
                    hits = lines.setdefault(line_no, LineHits(starts.starts[line_no]))
                    hits.candidates.update(good)
        for name, rx in self.markers.items():
            for m in rx.finditer(text):
                line_no = starts.line_of(m.end() - 1)
                lines.setdefault(line_no, LineHits(starts.starts[line_no])).markers.add(name)
        return lines


class _LineStarts:
    """Offset -> line number over one block of text, by binary search."""

    def __init__(self, text: str) -> None:
        import bisect

        self._bisect = bisect.bisect_right
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, offset: int) -> int:
        return self._bisect(self.starts, offset) - 1

    def line_text(self, line_no: int) -> str:
        start = self.starts[line_no]
        end = self.starts[line_no + 1] - 1 if line_no + 1 < len(self.starts) else len(self.text)
        return self.text[start:end]
