"""From error events to ranked records: frames first, then message patterns.

Ranking (highest first): a frame match; then a full-template match with the
class agreeing; then longer literal coverage; then fewer placeholders.
Records in test code rank below library code; the primary exception of a
chain ranks above the ones it wraps; among equal scores, files of the same name
nearer the package root come first (`mirrors_after_originals`).

Confidence is `high` when either
  * a frame of the traceback resolves to the record (file by path suffix,
    then the exact line, or the same function with the template matching or
    the line within drift) and the class agrees or is unknown; or
  * the template matches the whole message, the printed class agrees with the
    record's class or one of its ancestors, at least 12 literal characters of
    the template are present and they cover at least half of the message
    (no class printed: at least 20 literal characters); or
  * the message is a prefix of a rendering (a paste cut off), the class agrees
    and at least 30 literal characters covering half of the message match;
and, in both cases, the deepest frame printed (if any) lies in indexed code.
A bare `assert` record named by its failing expression is `high` when that
expression is the only one of its kind in the index, and so is a pasted `raise`
statement whose class and literal message text one site has. A whole rendering set
apart inside the text (behind a wrapper's label, quoted in a sentence, followed by
the writer's own words) is graded on the part it covers (see `contained_hit_is_high`).
Everything else is `low`; README's "How an error is matched" has every rule.

Last resort, when neither frames nor patterns found anything: the printed
class and a template with no usable literal (`assert c, f"{x}"`): one `low`
match via "class", kind "bare", naming how many records share that answer.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from errdex.match.bare import find_bare
from errdex.match.builtin_messages import interpreter_shaped
from errdex.match.engine import PatternEngine, raised_class_names
from errdex.match.events import ErrorEvent, Frame, printed_test
from errdex.match.grading import (
    HIGH_MIN_COVERAGE,
    HIGH_MIN_LITERAL_PREFIX,
    HIGH_MIN_LITERAL_PREFIX_CLASSLESS,
    contained_hit_is_high,
    cut_own_length,
    full_hit_is_high,
    hit_score,
    ranked_as,
    record_terms,
)
from errdex.match.pasted import (
    RETYPED_MIN_CHARS,
    cut_mark_dropped,
    quoted_parts,
    spelled,
    squash,
)
from errdex.match.patterns import (
    GENERIC_LABELS,
    MessageHit,
    RecordRef,
    normalize_space,
    normalized_chunks,
    verify_full,
    verify_prefix,
)
from errdex.match.record_index import RecordIndex
from errdex.match.statements import (
    assert_counts,
    asserts_with_message,
    cut_at_raise,
    raises_with_literal,
    rewritten_asserts,
)
from errdex.match.values import corroborated_length

if TYPE_CHECKING:   # condition checks run for explain, not for log scans: imported when first needed
    from errdex.match.conditions import ConditionCheck

LINE_DRIFT = 40
MAX_MATCHES_PER_EVENT = 10
#: A pasted statement's site: an assert named by its test; a raise named by its message's own
#: literal text, as much evidence as a whole-message match, ranked above the same record found
#: inside the statement's text.
_STATEMENT_SCORE = {"assert": 25.0, "source": 45.0}


@dataclass(slots=True)
class Match:
    """One record explaining one error event, with the values bound from the text."""

    id: str
    repo: str
    file_path: str
    line_number: int
    error_class: str | None
    error_message: str
    score: float
    confidence: str                     # "high" | "low"
    via: str                            # "frame" | "message"
    bindings: dict[str, str] = field(default_factory=dict)
    expressions: dict[str, str] = field(default_factory=dict)   # placeholder -> source expr
    match_kind: str = "full"            # full | contained | prefix | drift | line | assert | source | retyped | bare
    condition_check: ConditionCheck | None = None
    log_line: int | None = None
    chain: int = 0
    primary: bool = True
    dataset: str = ""
    # A bare match (`match_kind == "bare"`) stands for every record of the printed class
    # whose template is all placeholders: how many, and the first few ids in dataset order.
    candidates: int = 0
    candidate_ids: list[str] = field(default_factory=list)
    # `to_dict()` as JSON, without the log line and the closing brace: encoded by
    # the scan process that found it (see `encode.encode_occurrences`).
    encoded: str | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        out = {
            "id": self.id, "repo": self.repo, "filePath": self.file_path,
            "lineNumber": self.line_number, "errorClass": self.error_class,
            "errorMessage": self.error_message, "score": self.score,
            "confidence": self.confidence, "via": self.via, "bindings": dict(self.bindings),
            "expressions": dict(self.expressions), "matchKind": self.match_kind,
            "chain": self.chain, "primary": self.primary,
        }
        if self.condition_check is not None:
            out["conditionCheck"] = self.condition_check.to_dict()
        if self.candidates:
            out["candidates"] = self.candidates
            out["candidateIds"] = list(self.candidate_ids)
        if self.log_line is not None:
            out["logLine"] = self.log_line
        return out




#: The category `warnings.warn` gives a message when the code names none.
DEFAULT_WARNING = "UserWarning"


def class_agrees(text_class: str | None, rec: RecordRef) -> bool | None:
    """True/False when both sides name a class; None when either is unknown.

    A printed `UserWarning` against a raised record is unknown too: it is the category
    `warnings.warn(msg)` prints when the code names none, so it says the text was warned,
    not what class the code gives it (the same text raised once it became an error)."""
    if not text_class or not rec.error_class:
        return None
    name = text_class.rsplit(".", 1)[-1]
    if name == DEFAULT_WARNING and rec.error_type != "warning":
        return None
    if name == rec.error_class.rsplit(".", 1)[-1]:
        return True
    return any(name == base.rsplit(".", 1)[-1] for base in rec.class_bases)


def _agrees(text_class: str | None, rec: RecordRef, engine: PatternEngine) -> bool | None:
    """`class_agrees`, remembered per printed class and record: a log scan asks it twice
    per candidate and the same few classes again and again."""
    key = (text_class, rec.idx)
    memo = engine.agree_memo
    found = memo.get(key, _UNSET)
    if found is _UNSET:
        found = memo[key] = class_agrees(text_class, rec)
    return found


_UNSET = object()


@dataclass(slots=True)
class _Candidate:
    record: RecordRef
    via: str
    kind: str
    hit: MessageHit | None
    frame_quality: float = 0.0
    sites: int = 0   # a pasted assert statement: how many sites it fits (1: high)
    fits_another: bool = False   # a cut-paste reading of a text another class's template fits whole


def match_event(event: ErrorEvent, index: RecordIndex, engine: PatternEngine,
                top_only: bool = False, hint: set[int] | None = None,
                seen_in: str | None = None) -> list[Match]:
    """Ranked matches for one event (frame matches shadow message-only ones).

    `top_only` keeps just the best score and its ties, and skips the
    condition check (log scanning: thousands of occurrences); only those
    become `Match` objects. `hint`/`seen_in`: see `PatternEngine.match_message`.
    """
    whole, event = event, with_printed_class(event, engine)
    raised_outside = bool(event.frames) and not index.files_for(event.frames[-1].path) \
        and not index.in_indexed_package(event.frames[-1].path)
    candidates = _frame_candidates(event, index, engine)
    if not candidates:
        candidates = _message_candidates(event, index, engine, hint, seen_in)
    if not candidates and event is not whole:
        # what looked like a printed class was the text's own word (`... hit an exception: boom`,
        # `exception` being a name some site raises): the whole text is the message
        event = whole
        candidates = _message_candidates(event, index, engine, hint, seen_in)
    if "\n" in event.message and not any(c.via == "frame" or c.kind in _WHOLE_KINDS for c in candidates):
        candidates, event = _rewrapped(event, candidates, index, engine)
    if not candidates:
        candidates = _retyped_candidates(event, engine)
    if not candidates and whole.line_text:   # a caught error's repr inside a logged message: the message
        event = ErrorEvent(None, whole.line_text, [], whole.log_line, kind="text")
        candidates = _message_candidates(event, index, engine, None, None)
    if not candidates:   # no frame, no pattern: a printed class and an all-placeholder template
        bare = _bare_match(event, engine)
        return [bare] if bare is not None else []
    agrees = [_agrees(event.error_class, c.record, engine) for c in candidates]
    scores = [_score(c, event, a) for c, a in zip(candidates, agrees)]   # once each: a log scan meets thousands
    picked = range(len(candidates))
    if top_only and len(candidates) > 1:
        top = max(scores)
        picked = [i for i in picked if scores[i] == top]
    matches = [_to_match(candidates[i], event, engine, raised_outside, agrees[i], scores[i]) for i in picked]
    if len(matches) < 2:   # most log lines: nothing to rank
        ranked = matches
    else:
        best: dict[str, Match] = {}
        for m in matches:
            if m.id not in best or m.score > best[m.id].score:
                best[m.id] = m
        ranked = mirrors_after_originals(sorted(best.values(), key=lambda m: -m.score))
        if event.frames and not any(m.via == "frame" for m in ranked):
            ranked = _near_frames_first(ranked, event.frames)
    kept = [m for m in ranked if m.score == ranked[0].score] if top_only and ranked else cut_ranked(ranked)
    for m in kept if not top_only else ():
        m.condition_check = _condition(index.by_id[m.id], m.bindings)
    return kept


#: Kinds that account for a whole message (or its whole first line): nothing to read again.
_WHOLE_KINDS = frozenset({"full", "firstline", "assert", "source"})


def _rewrapped(event: ErrorEvent, candidates: list[_Candidate], index: RecordIndex,
               engine: PatternEngine) -> tuple[list[_Candidate], ErrorEvent]:
    """A message printed over several lines that no template fits whole, read again: its lines
    joined with nothing between them (a terminal's hard wrap inside a word: `pa` / `rallel`),
    taken when a template then fits whole; and when nothing but rewordings ("drift") fit, its
    first line alone (a cut paste: what follows is not the template's)."""
    lines = event.message.split("\n")
    joined = replace(event, message="".join(lines))
    found = [c for c in _message_candidates(joined, index, engine) if c.kind in _WHOLE_KINDS]
    if found:
        return found, joined
    if all(c.kind == "drift" and c.via == "message" for c in candidates):
        first = replace(event, message=lines[0])
        found = [c for c in _message_candidates(first, index, engine) if c.kind != "drift"]
        if found:
            return found, first
    return candidates, event


_GENERIC_HEAD = re.compile(r"(?P<cls>(?P<name>" + "|".join(sorted(GENERIC_LABELS)) + r")): ")
_CLASS_HEAD = re.compile(r"(?<![\w.])(?P<cls>(?:[A-Za-z_]\w*\.)*(?P<name>[A-Za-z_]\w*)): ")


def printed_class_of(event: ErrorEvent, engine: PatternEngine) -> re.Match | None:
    """`Name: ` in the head of a class-less event's text (after a logger name, say), when Name is
    a class the index raises: `_BadOpenAIRequest` or `CantImplement` do not look like exception
    classes by name, so the line parser left them in the message. A bare `error: ` is a logger's
    label (`patterns.GENERIC_LABELS`): Python prints a class of that name qualified (`re.error`)."""
    if event.error_class is not None or event.frames or ": " not in event.message[:160]:
        return None
    label = _GENERIC_HEAD.match(event.message)
    if label is not None:
        return label
    names = getattr(engine, "class_names", None)
    if names is None:
        names = engine.class_names = raised_class_names(engine.records)
    for head in _CLASS_HEAD.finditer(event.message, 0, 160):
        if head.group("name") in names and head.group("cls") not in GENERIC_LABELS:
            return head
    return None


def with_printed_class(event: ErrorEvent, engine: PatternEngine) -> ErrorEvent:
    """The event with its class split off the text (see `printed_class_of`), else itself; a
    logger's generic `Error: ` label is split off with no class (its words are no template's:
    left in, a template opening with a value would take them in, `{name} must be positive`
    beating the site that prints `recycle_interval must be positive`)."""
    head = printed_class_of(event, engine)
    if head is None:
        return event
    cls = head.group("cls")
    return ErrorEvent(None if cls in GENERIC_LABELS else cls, event.message[head.end():].strip(), event.frames,
                      event.log_line, event.chain, event.primary, event.kind, event.failing_expr)


def mirrors_after_originals(matches: list[Match]) -> list[Match]:
    """Among matches of equal score, those in files of the same name take their places
    nearest the package root first (`pkg/models/registry.py` before
    `pkg/extra/runtime/models/registry.py`): a subsystem copied into another tree (vendored,
    forked for a second product) sits deeper than the one it was copied from, and the text
    alone cannot tell them apart. Before that, a value naming a module (`Ignore import error when
    loading sglang.srt.models.deepseek_v2: ...`, printed by three registries alike) puts the sites
    whose module shares most of its dotted path first. Other ties keep their order."""
    out = list(matches)
    for start, end in _tie_groups(out):
        if not _ranked_first(out, start, end, _module_share):
            _mirror_order(out, start, end)
    return out


def _tie_groups(matches: list[Match]) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of two or more matches of equal score, in a ranked list."""
    start = 0
    while start < len(matches):
        end = start + 1
        while end < len(matches) and matches[end].score == matches[start].score:
            end += 1
        if end - start > 1:
            yield start, end
        start = end


def _ranked_first(matches: list[Match], start: int, end: int, rank: Callable[[Match], int]) -> bool:
    """Order the tie `matches[start:end]` by `rank`, highest first (stable); False, leaving it as
    it is, when all rank alike."""
    ranks = [rank(m) for m in matches[start:end]]
    if len(set(ranks)) < 2:
        return False
    order = sorted(range(start, end), key=lambda i: -ranks[i - start])
    matches[start:end] = [matches[i] for i in order]
    return True


def _shared_head(a: list[str], b: list[str]) -> int:
    """How many leading parts two paths share."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


_MODULE_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}")


def _module_share(m: Match) -> int:
    """How much of a module path bound in the match (the value, or its opening words: a cut
    message's rest) its own module shares."""
    best, module = 0, None
    for value in m.bindings.values():
        if not isinstance(value, str) or value.count(".") < 2:   # a module path has two dots at least
            continue
        found = _MODULE_PATH.match(value)
        if found is not None and value[found.end():found.end() + 1] in ("", " ", ".", ":", ",", ";", "'", '"'):
            if module is None:   # split only for a value naming a module (most tie no value to one)
                module = m.file_path[:-3].split("/") if m.file_path.endswith(".py") else m.file_path.split("/")
            best = max(best, _shared_head(found.group().split("."), module))
    return best


def _near_frames_first(matches: list[Match], frames: list[Frame]) -> list[Match]:
    """Among tied message matches, the sites in the directory the traceback's deepest frames name
    come first (a real report: four `Capture cuda graph failed: {e}` sites, the frames naming
    `sglang/srt/model_executor/cuda_graph_runner.py`, renamed since, and the decode runner under
    that directory ranked behind three speculative ones)."""
    def shared(m: Match) -> int:
        parts = m.file_path.split("/")[:-1]
        best = 0
        for frame in frames[-3:]:
            path = frame.path.replace("\\", "/")
            at = path.rfind("/" + parts[0] + "/") if parts else -1
            if at >= 0:
                best = max(best, _shared_head(path[at + 1:].split("/")[:-1], parts))
        return best

    out = list(matches)
    for start, end in _tie_groups(out):
        _ranked_first(out, start, end, shared)
    return out


def _mirror_order(matches: list[Match], start: int, end: int) -> None:
    by_name: dict[str, list[int]] = defaultdict(list)
    for i in range(start, end):
        by_name[matches[i].file_path.rsplit("/", 1)[-1]].append(i)
    for places in by_name.values():
        if len(places) > 1:
            group = sorted((matches[i] for i in places), key=lambda m: m.file_path.count("/"))
            for i, m in zip(places, group):
                matches[i] = m


def cut_ranked(matches: list[Match], limit: int = MAX_MATCHES_PER_EVENT) -> list[Match]:
    """The first `limit` matches, plus any tied with the last one kept."""
    if len(matches) <= limit:
        return matches
    edge = matches[limit - 1].score
    return [m for i, m in enumerate(matches) if i < limit or m.score == edge]


def _frame_candidates(event: ErrorEvent, index: RecordIndex, engine: PatternEngine) -> list[_Candidate]:
    """Walk indexed frames from the deepest up; stop at the first one that resolves."""
    if not event.frames:
        return []
    message = normalize_space(event.message)
    fallback: list[_Candidate] = []
    for depth, frame in enumerate(reversed(event.frames)):
        files = index.files_for(frame.path)
        if not files and depth == 0 and index.in_indexed_package(frame.path):
            return _moved_function(frame, event, message, index, engine)
        if not files or depth > 3:
            break
        found = _records_at(frame, files, event, message, index, engine, deepest=depth == 0)
        if not found:
            continue
        if message and all(not c.record.matchable and c.kind == "line" for c in found):
            fallback = fallback or found   # a helper's `raise X(msg)`: look at the caller
            continue
        return found
    return fallback


def _records_at(frame: Frame, files: list[str], event: ErrorEvent, message: str,
                index: RecordIndex, engine: PatternEngine, deepest: bool = True) -> list[_Candidate]:
    recs = [r for f in files for r in index.by_file[f] if class_agrees(event.error_class, r) is not False]
    if deepest and event.failing_expr:   # the failed assert's own test, printed under the frame
        expr = squash(event.failing_expr)
        # in the frame's function (set 4 #5: `assert self.quant_method is not None` in `__init__` once,
        # in `forward_impl` now: the same words in another function are another check)
        same_test = [r for r in recs if r.assert_test and squash(r.assert_test) == expr
                     and _in_function(r, frame)]
        if same_test:
            return [_Candidate(r, "frame", "line", None, 1.0 if r.line == frame.line else 0.7) for r in same_test]
    if deepest and message and event.printed and event.failing_expr is None and event.error_class == "AssertionError":
        # asserts of one message in one function (review of real reports: two `Hidden size mismatch`
        # asserts, the frame's line from another version): the test printed under the frame names one
        expr = squash(printed_test(event.printed))
        same_test = [(r, h) for r in recs if r.assert_test and squash(r.assert_test) == expr
                     and _in_function(r, frame) and (h := _verify(r, message, engine))]
        if same_test:
            return [_Candidate(r, "frame", h.kind, h, 1.0 if r.line == frame.line else 0.9) for r, h in same_test]
    exact = [r for r in recs if r.line == frame.line]
    if exact and deepest and event.failing_expr:
        # an assert printed under the frame that is not the one at that line here: the line is
        # another version's, and the same test elsewhere (moved with its function) is the site
        expr = squash(event.failing_expr)
        exact = [r for r in exact if not r.assert_test or squash(r.assert_test) == expr]
        if not exact and index.by_assert_test.get(expr):
            return []
    if exact:
        return [_Candidate(r, "frame", "line", _verify(r, message, engine), 1.0) for r in exact]
    same_func = [r for r in recs if frame.function and r.function_name == frame.function]
    pool = same_func or recs
    verified = [(r, h) for r in pool if r.matchable and (h := _verify(r, message, engine))]
    if verified:
        return [_Candidate(r, "frame", h.kind, h, 0.9 if same_func else 0.8) for r, h in verified]
    near = [r for r in same_func if abs(r.line - frame.line) <= LINE_DRIFT
            and (not r.matchable or not message)]
    if len(near) == 1 or (near and not message):
        return [_Candidate(r, "frame", "line", None, 0.6) for r in near]
    if deepest and not near and not message and event.printed and (bare := _BARE_RAISE.fullmatch(event.printed.strip())):
        # `raise NotImplementedError` printed under a frame whose line is another version's (set 3 #24):
        # the function's sites that raise that class with no message, wherever they moved
        name = bare.group(1).rpartition(".")[2]
        raised = [r for r in same_func if not r.error_message and (r.error_class or "").rpartition(".")[2] == name]
        if raised:
            return [_Candidate(r, "frame", "line", None, 0.5) for r in raised]
    if deepest and not near and len(same_func) == 1 and (not same_func[0].matchable or cut_at_raise(frame.source, message)):
        # The raising function has one site, and its template (all values: `raise ValueError(msg)`)
        # cannot disagree with the text, nor can a traceback cut before its message at the raising
        # statement: that site, however far the function moved between versions.
        return [_Candidate(same_func[0], "frame", "line", None, 0.5)]
    if deepest and message:
        reworded = [(r, h) for r in recs if abs(r.line - frame.line) <= LINE_DRIFT
                    and (h := _same_opening(r, message))]
        if len(reworded) == 1:
            return [_Candidate(reworded[0][0], "frame", "drift", reworded[0][1], 0.5)]
    if deepest and event.failing_expr:
        retold = rewritten_asserts(same_func, squash(event.failing_expr))
        if retold and len(retold) == len({r.file_path for r in retold}):   # one per file the path may name
            return [_Candidate(r, "frame", "drift", None, 0.5) for r in retold]
    return []


def _elsewhere_in_its_file(rec: RecordRef, frame: Frame) -> bool:
    """Whether the frame names the record's file (by its name) and a function other than the record's."""
    return frame.path.replace("\\", "/").rpartition("/")[2] == rec.file_path.rpartition("/")[2] \
        and not _in_function(rec, frame)


def _in_function(rec: RecordRef, frame: Frame) -> bool:
    """Whether the record lies in the function the frame names (any, when it names none)."""
    return not frame.function or frame.function.startswith("<") or rec.function_name == frame.function


#: A raise of a class with no message, as a traceback prints the statement (`raise NotImplementedError`).
_BARE_RAISE = re.compile(r"raise\s+([A-Za-z_][\w.]*)(?:\(\s*\))?")
#: Characters of a template's opening a message must share to name the one site near its frame
#: whose wording changed since (`did not become ready at` printed, `did not become live at` now).
FRAME_DRIFT_MIN_SHARED = 20


def _same_opening(rec: RecordRef, message: str) -> MessageHit | None:
    """The message opens with the template's first words, then departs from them."""
    first = normalized_chunks(rec)[0] if rec.matchable else ""
    shared = 0
    limit = min(len(first), len(message))
    while shared < limit and message[shared] == first[shared]:
        shared += 1
    return MessageHit(rec, "drift", [], shared, len(message)) if shared >= FRAME_DRIFT_MIN_SHARED else None


def _moved_function(frame: Frame, event: ErrorEvent, message: str, index: RecordIndex,
                    engine: PatternEngine) -> list[_Candidate]:
    """The deepest frame names a module of the indexed package that this version renamed or
    merged away: the function it names, now in another module, whose template the message
    fits. Its sites must lie in one file (a common name like `register` may be many
    functions; then the frame says nothing and the message alone decides)."""
    if not frame.function or not message:
        return []
    found = [(r, h) for r in index.by_function.get(frame.function, ())
             if r.matchable and class_agrees(event.error_class, r) is not False and (h := _verify(r, message, engine))]
    if not found or len({r.file_path for r, _ in found}) > 1:
        return []
    return [_Candidate(r, "frame", h.kind, h, 0.4) for r, h in found]


def _verify(rec: RecordRef, message: str, engine: PatternEngine) -> MessageHit | None:
    if not message or not rec.message_pattern:
        return None
    hit = verify_full(rec, message)
    return hit or verify_prefix(rec, message)


def _message_candidates(event: ErrorEvent, index: RecordIndex, engine: PatternEngine,
                        hint: set[int] | None = None, seen_in: str | None = None) -> list[_Candidate]:
    out: list[_Candidate] = []
    if event.raise_message is not None:   # a pasted `raise Class(<message>)` statement
        sites = [r for r in raises_with_literal(engine, event.raise_message) if class_agrees(event.error_class, r)]
        return [_Candidate(rec, "message", "source", None, sites=len(sites)) for rec in sites]
    if event.assert_message is not None:   # a pasted `assert <test>, <message>` statement
        sites = asserts_with_message(index, event.failing_expr or "", event.assert_message)
        out.extend(_Candidate(rec, "message", "assert", None, sites=len(sites)) for rec in sites)
    elif event.failing_expr or (event.error_class in (None, "AssertionError") and not event.message):
        expr = event.failing_expr or ""
        # Python printed no message, so the assert has none; a retold test may leave its message out.
        by_test = index.by_assert_test if event.kind == "text" else index.by_assert
        for rec in by_test.get(squash(expr), []) if expr else []:
            out.append(_Candidate(rec, "message", "assert", None))
    if event.message:
        disagreeing: list[_Candidate] = []
        disagreeing_any = whole_elsewhere = False
        hits = engine.match_message(event.message, hint, seen_in)
        cut = cut_mark_dropped(event.message)
        if cut is not None and not any(hit.kind in ("full", "contained", "firstline") for hit in hits):
            hits = engine.match_message(cut) or hits   # a cut text (`...Some GPUs …`): what the mark follows
        for hit in hits:
            if _agrees(event.error_class, hit.record, engine) is False:
                disagreeing_any = disagreeing_any or hit.kind != "prefix"   # prefixes: looked for already
                whole_elsewhere = whole_elsewhere or hit.kind == "full"
                if hit.literal_covered >= DISAGREEING_MIN_LITERAL:
                    disagreeing.append(_Candidate(hit.record, "message", hit.kind, hit))
                continue
            out.append(_Candidate(hit.record, "message", hit.kind, hit))
        if not out and disagreeing_any:   # every template found was another class's: a cut paste of one?
            out = [_Candidate(hit.record, "message", hit.kind, hit, fits_another=whole_elsewhere)
                   for hit in engine.prefix_hits(event.message) if _agrees(event.error_class, hit.record, engine) is not False]
        if not out:
            out = _quoted_candidates(event, engine) or disagreeing
        if event.told_test:   # pasted: the failed test written where Python prints nothing
            sites = index.by_told_test.get(event.told_test, [])
            out = [_Candidate(rec, "message", "assert", None, sites=len(sites)) for rec in sites] + out
    return out


#: Literal characters a message hit needs to be kept when its class disagrees with the printed
#: one (another version raised the same text as another class): always `low`, never dropped for
#: a guess by class alone.
DISAGREEING_MIN_LITERAL = 30


def _quoted_candidates(event: ErrorEvent, engine: PatternEngine) -> list[_Candidate]:
    """Hits of the message quoted or labelled inside the text (an issue title: `Testing X:
    "<message>"`, `Some words: <message, cut>`), when the text as a whole matched nothing."""
    out: list[_Candidate] = []
    for part in quoted_parts(event.message):
        for hit in engine.match_message(part):
            if _agrees(event.error_class, hit.record, engine) is not False:
                out.append(_Candidate(hit.record, "message", hit.kind, hit))
        if out:
            break
    return out


def _retyped_candidates(event: ErrorEvent, engine: PatternEngine) -> list[_Candidate]:
    """Templates without values whose letters and digits the message spells, case aside:
    a message retyped by hand (`SGlang only supports sm 75 and  above`). Always low. Only
    records whose longest word the text holds are read (a log scan reads no others)."""
    key = spelled(event.message)
    if len(key) < RETYPED_MIN_CHARS:
        return []
    out = []
    for idx in sorted(engine.token_candidates(normalize_space(event.message))):
        rec = engine.records[idx]
        if rec.error_message and not rec.groups and spelled(rec.error_message) == key \
                and _agrees(event.error_class, rec, engine) is not False:
            out.append(_Candidate(rec, "message", "retyped", None))
    return out


def _bare_match(event: ErrorEvent, engine: PatternEngine) -> Match | None:
    """One low-confidence match naming the bare records of the printed class the message fits.

    The first candidate in dataset order stands for the rest (its values bound); never
    `high`: hundreds of `assert c, f"{x}"` sites print the same way.
    """
    if not event.error_class or not event.message:
        return None
    found = find_bare(engine.bare_table(), engine.records, event.error_class, event.message, engine.bare_memo)
    if found is None:
        return None
    rec = found.first
    bindings = dict(zip(rec.groups, found.hit.values))
    return Match(
        id=rec.id, repo=rec.repo, file_path=rec.file_path, line_number=rec.line,
        error_class=rec.error_class, error_message=rec.error_message,
        score=_score(_Candidate(rec, "class", "bare", None), event, True),
        confidence="low", via="class", bindings=bindings,
        expressions={k: rec.placeholders.get(k, k) for k in bindings}, match_kind="bare",
        log_line=event.log_line, chain=event.chain, primary=event.primary, dataset=rec.dataset,
        candidates=found.count, candidate_ids=list(found.ids),
    )


def _to_match(c: _Candidate, event: ErrorEvent, engine: PatternEngine, raised_outside: bool,
              agrees: bool | None, score: float) -> Match:
    rec, hit = c.record, c.hit
    bindings = dict(zip(rec.groups, hit.values)) if hit else {}
    placeholders = rec.placeholders
    # Positional, in field order (id ... dataset): thousands per log scan.
    return Match(
        rec.id, rec.repo, rec.file_path, rec.line, rec.error_class, rec.error_message, score,
        _confidence(c, agrees, hit, raised_outside, engine, event), c.via, bindings,
        {k: placeholders.get(k, k) for k in bindings}, hit.kind if hit else c.kind,
        None, event.log_line, event.chain, event.primary, rec.dataset,
    )


def _score(c: _Candidate, event: ErrorEvent, agrees: bool | None) -> float:
    rec, hit = c.record, c.hit
    score = 100.0 + 10.0 * c.frame_quality if c.via == "frame" else 0.0
    if hit:
        kind, coverage = hit.kind, hit.coverage
        if kind == "contained":
            kind, coverage = ranked_as(normalized_chunks(rec), normalize_space(event.message), hit.literal_covered)
        return hit_score(score, kind, agrees, coverage, hit.literal_covered, rec, event.primary)
    score += _STATEMENT_SCORE.get(c.kind, 0.0)
    if agrees:
        score += 10.0
    return record_terms(score, rec, event.primary)


#: Opening characters a reworded message ("drift") must share with its template, the printed class
#: agreeing, to be high: whole sentences of the site's own words, where 40 only find it.
DRIFT_HIGH_SHARED = 80


def _confidence(c: _Candidate, agrees: bool | None, hit: MessageHit | None,
                raised_outside: bool, engine: PatternEngine, event: ErrorEvent) -> str:
    if raised_outside:
        return "low"
    if c.via == "frame":
        return "high"
    if c.kind in ("assert", "source") and c.sites:
        return "high" if c.sites == 1 else "low"
    if c.kind == "assert" and event.frames and _elsewhere_in_its_file(c.record, event.frames[-1]):
        return "low"   # set 4 #5: the frame names the file but another function: an older version's check
    if c.kind == "assert":
        expr = squash(event.failing_expr or "")
        return "high" if expr and assert_counts(engine).get(expr) == 1 else "low"
    if hit is None or agrees is False:
        return "low"
    if hit.kind in ("full", "firstline"):   # a template's whole first line is graded as a whole message
        high = full_hit_is_high(hit.coverage, hit.literal_covered, c.record, agrees, event, values=hit.values)
        return "high" if high else "low"
    if hit.kind == "contained":
        high = contained_hit_is_high(normalized_chunks(c.record), normalize_space(event.message),
                                     hit.literal_covered, c.record, agrees, event, hit.values)
        return "high" if high else "low"
    if hit.kind == "prefix" and not c.fits_another:   # a cut paste: literal text (and vouching values) for most of what is left
        # (when another template fits the text whole, the text need not be cut at all: low)
        rec = c.record
        evidence = hit.literal_covered + corroborated_length(rec.groups, rec.placeholders, hit.values)
        if evidence >= (HIGH_MIN_LITERAL_PREFIX if agrees else HIGH_MIN_LITERAL_PREFIX_CLASSLESS) \
                and evidence / cut_own_length(rec, hit.values, hit.message_length) >= HIGH_MIN_COVERAGE:
            return "low" if interpreter_shaped(event.error_class, event.message) else "high"
    if hit.kind == "drift" and agrees and hit.literal_covered >= DRIFT_HIGH_SHARED \
            and not interpreter_shaped(event.error_class, event.message):
        return "high"   # two sentences of the template's own words, in order, and its class: later words changed
    return "low"


def _condition(rec: RecordRef, bindings: dict[str, str]) -> ConditionCheck | None:
    if not rec.condition:
        return None
    from errdex.match.conditions import check_condition

    return check_condition(rec.condition, rec.condition_exact, bindings, rec.placeholders)
