"""Cut cleaned lines into error events: tracebacks, pytest failures, warnings, bare lines.

A traceback block starts at `Traceback (most recent call last):` (or at a
header-less frame, as Ray prints remote errors); whatever precedes the header
on its line is the block's prefix, and following lines carrying the same
prefix (timestamps may change) belong to the block, so interleaved output of
several processes separates cleanly. Chained exceptions form one chain whose
last printed exception is the primary one.

Pasted text (an issue) also carries statements of the code that raised (`assert x`,
`raise X(...)`), read here into the event, and shapes a writer makes that a log never
does (an exception line above its cut frames, a bare `AssertionError` under its source
line), joined here for `explain`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from errdex.exprsplit import split_top_level
from errdex.match.text import (
    EXC_SUFFIX, LOG_START, client_status_message, json_error_message, parse_exception_line, prefix_regex, strip_log_prefix,
)

TRACEBACK_HEADER = re.compile(r"(?:Exception Group )?Traceback \(most recent call last\):")
# Literals each pattern below cannot match without: `in` finds them at memchr speed, while
# the searches cost 2-4 us per log line (an optional group or a lazy `.*?` up front).
_HEADER_TEXT = "Traceback (most recent call last):"
_FRAME_TEXT = 'File "'
_WARNING_TEXT = ".py:"
FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$')
_FRAME_START = re.compile(r'^(?P<pre>.*?)\s*File "[^"]+", line \d+')
_CHAIN = ("During handling of the above exception", "The above exception was the direct cause")
_PYTEST_E = re.compile(r"^E(?P<pad> {2,})(?P<body>.*)$")
_PYTEST_IN = re.compile(r"^(?P<path>\S[^:]*\.py):(?P<line>\d+): in (?P<func>\S+)\s*$")
_PYTEST_AT = re.compile(r"^(?P<path>\S[^:]*\.py):(?P<line>\d+): (?P<cls>[A-Za-z_][\w.]*)?\s*$")
_PYTEST_SECTION = re.compile(r"^(?:_{3,}|={3,})")
_WARNING_AT = re.compile(r"(?P<path>\S+\.py):(?P<line>\d+):\s*$")
MAX_BLOCK_LINES = 2000
#: Lines of other processes a traceback block looks past for its next line.
MAX_SKIPPED = 200
#: Lines read looking for a chain marker after an exception line, other processes' included (eight
#: ranks printing at once interleave a few lines each); a message's next line is never skipped to.
MAX_CHAIN_SKIPPED = 32
_WALK_BEFORE_SEARCH = 2   # foreign lines walked one by one before `_rest_of_walk` takes over
MAX_MESSAGE_LINES = 20


@dataclass(slots=True)
class Frame:
    path: str
    line: int
    function: str | None = None
    #: The statement printed under the deepest frame of a traceback cut before its exception line.
    source: str | None = field(default=None, compare=False)


@dataclass(slots=True)
class ErrorEvent:
    """One exception (or warning) as printed."""

    error_class: str | None
    message: str
    frames: list[Frame] = field(default_factory=list)
    log_line: int | None = None       # 1-based line of the message line
    chain: int = 0                    # position in its chain, 0 = printed first
    primary: bool = True              # last printed exception of its chain
    kind: str = "line"                # traceback | pytest | warning | line | text
    failing_expr: str | None = None   # `assert <expr>` shown by pytest, or retold on a line
    assert_message: str | None = None  # message source of an `assert <expr>, <msg>` statement pasted alone
    told_test: str | None = None      # pasted `AssertionError: <test>`: the test, as `pasted.told_test` reads it
    raise_message: str | None = None  # message source of a `raise Class(<msg>)` statement pasted alone
    #: the statement printed under the deepest frame (its first line), when the traceback prints one
    printed: str | None = field(default=None, compare=False)
    #: the whole line (log prefix stripped) when the event is an exception's repr inside other text
    #: (`Error querying ranks: ... (Caused by NewConnectionError("..."))`): a logged message that
    #: prints a caught error, read whole when the repr matches nothing (set 3 #29)
    line_text: str | None = field(default=None, compare=False)


@dataclass(slots=True)
class ParsedBlock:
    events: list[ErrorEvent]
    consumed: set[int]                # line indexes used by the block
    complete: bool                    # False when the lines ran out mid-block


def parse_events(lines: list[str], first_line: int = 1) -> list[ErrorEvent]:
    """Every error event in cleaned lines, in order of their message line."""
    events: list[ErrorEvent] = []
    consumed: set[int] = set()
    for i, line in enumerate(lines):
        if i in consumed:
            continue
        block = parse_at(lines, i, first_line)
        if block is None:
            continue
        consumed |= block.consumed
        events.extend(block.events)
    events.sort(key=lambda e: (e.log_line or 0, e.chain))
    return events


def parse_at(lines: list[str], i: int, first_line: int = 1) -> ParsedBlock | None:
    """The event(s) starting at line `i`, if that line starts one."""
    line = lines[i]
    header = TRACEBACK_HEADER.search(line) if _HEADER_TEXT in line else None
    if header:
        return _parse_traceback(lines, i, line[:header.start()], True, first_line)
    frame = _FRAME_START.match(line) if _FRAME_TEXT in line else None
    if frame and FRAME.match(line[len(frame.group("pre")):]):
        # Frames sit two spaces in from where the exception line will start; a log prefix may leave
        # one space only (`...848Z File "x.py", line 5, in f`, set 3 #23): the prefix then ends at it.
        at = line.index('File "')
        prefix = line[:at - 2] if line[max(0, at - 2):at] == "  " else line[:at].rstrip()
        return _parse_traceback(lines, i, prefix, False, first_line)
    if _PYTEST_E.match(line):
        return _parse_pytest(lines, i, first_line)
    return _parse_line(line, i, first_line)


def _parse_line(line: str, i: int, first_line: int) -> ParsedBlock | None:
    event = line_event(line, first_line + i)
    return ParsedBlock([event], {i}, True) if event is not None else None


def opens_block(line: str) -> bool:
    """Whether `parse_at` could read more than this one line from here (a traceback
    header, a frame, a pytest `E` line); when not, `line_event` is its answer."""
    return _HEADER_TEXT in line or _FRAME_TEXT in line or line.startswith("E  ")


def line_event(line: str, log_line: int) -> ErrorEvent | None:
    """The event of a line that opens no block (see `opens_block`): `Class: message`
    found anywhere in it, or None."""
    parsed = parse_exception_line(line, strict=False)
    if parsed is None:
        return None
    cls, message, start = parsed
    message = _quote_closed(line[:start], message)
    served = client_status_message(message) if message.startswith("Error code: ") else None
    if served is not None:   # an HTTP client's status error: the server's message, its class unknown
        return ErrorEvent(None, served, [], log_line, kind="line")
    frames = []
    at = _WARNING_AT.search(line[:start]) if _WARNING_TEXT in line else None
    if at:  # warnings.showwarning: "path.py:12: UserWarning: message"
        frames.append(Frame(at.group("path"), int(at.group("line"))))
    kind = "warning" if cls and cls.endswith("Warning") else "line"
    failing = _asserted(cls, message)
    if failing is None and cls == "AssertionError" and not message and "assert " in line[:start]:
        told = assert_statement(strip_log_prefix(line[:start]))   # `assert x is None AssertionError`
        if told is not None:   # a writer's retelling, not Python's printout: the message may be left out
            return ErrorEvent(cls, message, frames, log_line, kind="text", failing_expr=told[0])
    event = ErrorEvent(cls, message, frames, log_line, kind=kind, failing_expr=failing)
    if start > 0 and cls and line.startswith("(", start + len(cls)):
        event.line_text = strip_log_prefix(line).strip() or None
    return event


#: Marks a writer quotes an error with inside a sentence: opener -> closer (markdown's bold
#: `**` too: ``can cause _**RuntimeError: out of memory**_.``).
_QUOTE_MARKS = {"`": "`", '"': '"', "“": "”", "**": "**"}


def _quote_closed(before: str, message: str) -> str:
    """The message up to the mark that closes a quote opened before its class (``fails with
    `ValueError: bad x` on startup``): the writer's sentence goes on after it. With more
    such marks in the message, an odd number, the message's own come in pairs (``use `--x` ``)
    and the last one closes the quote; with an even number, the quote was never closed."""
    if "`" not in before and '"' not in before and "“" not in before and "*" not in before:
        return message   # no mark before the class (most log prefixes): nothing to count
    for opener, closer in _QUOTE_MARKS.items():
        opened = before.count(opener) % 2 == 1 if opener == closer else before.count(opener) > before.count(closer)
        if not opened:   # most log prefixes open no quote: the message is not counted
            continue
        marks = message.count(closer) if opener == closer else message.count(closer) - message.count(opener)
        if marks > 0 and marks % 2 == 1:
            return message[:message.rindex(closer) if marks > 1 else message.index(closer)].rstrip()
    return message


def _asserted(cls: str | None, message: str) -> str | None:
    """The expression of `AssertionError: assert <expr>`: how people retell a bare assert
    (the way pytest shows it), which names the site by its condition."""
    if cls == "AssertionError" and message.startswith("assert ") and len(message) > len("assert "):
        return message[len("assert "):].strip()
    return None


class _BlockLines:
    """Lines of one block: those carrying the block's prefix, with it removed."""

    def __init__(self, lines: list[str], start: int, prefix: str) -> None:
        self.lines, self.pos = lines, start
        self.prefix_re = prefix_regex(prefix) if prefix.strip() else None
        self.plain_indent = len(prefix) if not prefix.strip() else 0
        self.consumed: set[int] = {start}

    def next(self, reads: int = MAX_SKIPPED) -> tuple[int, str] | None:
        """The next line of this block, reading at most `reads` lines (other processes' lines skipped)."""
        skipped = 0
        while self.pos + 1 < len(self.lines) and skipped < reads:
            self.pos += 1
            line = self.lines[self.pos]
            body = self._body(line)
            if body is not None:
                return self.pos, body
            skipped += 1
            if skipped == _WALK_BEFORE_SEARCH and self.prefix_re is not None:
                return self._rest_of_walk(reads - skipped)
        return None

    def _rest_of_walk(self, allowed: int) -> tuple[int, str] | None:
        """The rest of `next`'s walk in one tight loop over the lines it would read (a
        traceback's end is often followed by hundreds of other processes' lines, and
        `next` is asked three times there); the same answer, position and lines read."""
        lines = self.lines
        first = self.pos + 1
        stop = min(len(lines), first + allowed)
        if first >= stop:
            return None
        match = self.prefix_re.match
        for at, line in enumerate(list.__getitem__(lines, slice(first, stop)), first):   # unwatched: below
            if match(line):
                self.pos = at
                return at, self._body(lines[at])
        self.pos = stop - 1
        lines[self.pos]   # the walk's last read, for a caller watching which lines were read
        return None

    def peek(self, reads: int = MAX_SKIPPED) -> tuple[int, str] | None:
        saved = self.pos
        found = self.next(reads)
        self.pos = saved
        return found

    def _body(self, line: str) -> str | None:
        if self.prefix_re is None:
            return line[self.plain_indent:] if line[:self.plain_indent].isspace() else line
        m = self.prefix_re.match(line)
        return line[m.end():] if m else None

    def drop_prefix(self) -> None:
        """Logging's `logger.exception` prefixes only the first line."""
        self.prefix_re, self.plain_indent = None, 0


def _parse_traceback(lines: list[str], start: int, prefix: str, header: bool,
                     first_line: int) -> ParsedBlock:
    block = _BlockLines(lines, start, prefix)
    if prefix.strip():
        nxt = block.peek()
        ahead = lines[start + 1] if start + 1 < len(lines) else ""
        if (nxt is None or nxt[0] != start + 1) and FRAME.match(ahead):
            block.drop_prefix()
    events: list[ErrorEvent] = []
    frames: list[Frame] = []
    frame_indent = -1   # where the last frame line starts: an exception line never starts right of it
    if not header:
        body0 = lines[start][len(prefix):]
        first = FRAME.match(body0.lstrip())
        frames.append(Frame(first.group("path"), int(first.group("line")), first.group("func")))
        frame_indent = _indent(body0)
    complete = False
    # Unindented lines still read as the last frame's source (see `_unindented_source`).
    source_lines = 0 if header else _SOURCE_LINES
    source: str | None = None if header else ""   # the statement printed under the last frame
    while (item := block.next()) is not None:
        idx, body = item
        if idx - start > MAX_BLOCK_LINES:
            break
        stripped = body.strip()
        frame = FRAME.match(body)
        under_frame, source_lines = source_lines, _SOURCE_LINES if frame else 0
        if frame:
            frames.append(Frame(frame.group("path"), int(frame.group("line")), frame.group("func")))
            frame_indent = _indent(body)
            source = ""
        elif TRACEBACK_HEADER.match(stripped):
            frames = []
        elif (not stripped or body[:1].isspace() or stripped.startswith(_CHAIN)) \
                and not _shifted_exception(body, stripped, frame_indent):
            source = _first_source(source, stripped)   # source lines, carets, "[Previous line repeated]", chain markers
        elif under_frame and _unindented_source(stripped):
            source_lines = under_frame - 1   # a paste that lost its indentation: source, then carets
            source = _first_source(source, stripped)
        else:
            parsed = parse_exception_line(stripped, strict=True)
            if parsed is None:
                block.consumed.add(idx)
                break
            cls, message = parsed[0], parsed[1]
            message = _continuation(block, message)
            events.append(ErrorEvent(cls, message, frames, first_line + idx, kind="traceback",
                                     failing_expr=_failed_assert(cls, message, source), printed=source or None))
            block.consumed.add(idx)
            frames = []
            if not _chain_follows(block):
                complete = True
                break
            continue
        block.consumed.add(idx)
    if not complete and frames:  # cut off before the exception line
        frames[-1].source = source or None
        # cut at an `assert`: its test names the site as a bare assert's does (a real report's paste
        # ended at `assert target_locations is not None and ...`, the function having several)
        events.append(ErrorEvent(None, "", frames, first_line + block.pos, kind="traceback",
                                 failing_expr=_failed_assert("AssertionError", "", source)))
    _mark_chain(events)
    return ParsedBlock(events, block.consumed, complete)


_CARETS = re.compile(r"[~^]+")
#: Unindented lines under a frame read as its source: a statement may span lines, then carets.
_SOURCE_LINES = 3
_EXCEPTION_NAME = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:" + EXC_SUFFIX + r"|Exception)(?:\(|:|$)")


def _first_source(source: str | None, stripped: str) -> str | None:
    """The statement under a frame: its first non-blank line after the frame, carets aside."""
    if source == "" and stripped and not _CARETS.fullmatch(stripped) and not stripped.startswith(_CHAIN):
        return stripped
    return source


def printed_test(source: str) -> str:
    """The test an assert statement printed under a frame reads: `assert t, msg` or `assert t, (`
    gives `t`; Python 3.11+ prints a statement spanning lines as its failing part, the test alone."""
    text = source[len("assert "):] if source.startswith("assert ") else source
    return split_top_level(text, ",", maxsplit=1)[0].strip()


def _failed_assert(cls: str | None, message: str, source: str | None) -> str | None:
    """The test of a bare `assert` that failed: Python prints no message for one, only the
    statement under the deepest frame (`assert x is not None`), which names the site."""
    if cls != "AssertionError" or message or not source or not source.startswith("assert "):
        return None
    test = split_top_level(source[len("assert "):], ",", maxsplit=1)[0].strip()
    return test if test and test[-1] not in "([{\\" else None   # a statement continued on the next line


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _shifted_exception(body: str, stripped: str, frame_indent: int) -> bool:
    """Whether an indented line is the exception line of a traceback pasted with extra
    indentation (a markdown list, a quote): it starts no further right than the frames
    do, where source lines and carets always sit deeper, and it names a class like one."""
    return (0 <= _indent(body) <= frame_indent and stripped[:1] != "["
            and _EXCEPTION_NAME.match(stripped) is not None)


def _unindented_source(line: str) -> bool:
    """Whether a line right under a frame, printed at column 0, is the frame's source line
    (or its carets) rather than the exception line: pasted into an issue, a traceback often
    loses its indentation. An exception line names a class like one (`...Error: `), or
    `Name: message`; source (`raise RuntimeError(msg)`, `self.check(`) does neither."""
    if _CARETS.fullmatch(line):
        return True
    if _EXCEPTION_NAME.match(line):
        return False
    parsed = parse_exception_line(line, strict=True)
    return parsed is None or not parsed[1]


#: A markdown code fence: a pasted traceback's block ends there, and its message with it.
_FENCES = ("```", "~~~")


def _continuation(block: _BlockLines, message: str) -> str:
    """Further lines of a multi-line exception message: the lines right after it only,
    up to a markdown fence closing the pasted block.

    Frames may be looked for past other processes' lines, a message's next line is
    not: with a prefix as common as `<time> ERROR`, the search would take other
    error lines hundreds of lines further down for the message's continuation
    (and hide them from the scan).
    """
    parts = [message]
    for _ in range(MAX_MESSAGE_LINES):
        item = block.peek(1)   # the very next line, or none
        if item is None:
            break
        idx, body = item
        stripped = body.strip()
        if (not stripped or stripped.startswith(_CHAIN) or stripped.startswith(_FENCES)
                or (_HEADER_TEXT in body and TRACEBACK_HEADER.search(body))
                or FRAME.match(body) or LOG_START.match(body) or (_FRAME_TEXT in body and _FRAME_START.match(body))):
            break
        block.next()
        block.consumed.add(idx)
        parts.append(stripped)
    return "\n".join(p for p in parts if p)


def _chain_follows(block: _BlockLines) -> bool:
    """After an exception line: does a chained traceback come next?"""
    saved = block.pos
    for _ in range(3):
        item = block.next(MAX_CHAIN_SKIPPED)
        if item is None:
            break
        idx, body = item
        stripped = body.strip()
        if stripped.startswith(_CHAIN) or TRACEBACK_HEADER.match(stripped):
            block.consumed.add(idx)
            return True
        if stripped:
            break
    block.pos = saved
    return False


def _mark_chain(events: list[ErrorEvent]) -> None:
    for position, event in enumerate(events):
        event.chain = position
        event.primary = position == len(events) - 1


def _parse_pytest(lines: list[str], i: int, first_line: int) -> ParsedBlock:
    """A run of pytest `E   ` lines, with the frames pytest printed around it."""
    run: list[str] = []
    j = i
    while j < len(lines) and (m := _PYTEST_E.match(lines[j])):
        run.append(m.group("body"))
        j += 1
    consumed = set(range(i, j))
    frames = _pytest_frames_before(lines, i)
    for k in range(j, min(j + 3, len(lines))):
        at = _PYTEST_AT.match(lines[k])
        if at:
            frames.append(Frame(at.group("path"), int(at.group("line"))))
            consumed.add(k)
            break
    event = _pytest_event(run, first_line + i)
    event.frames = frames
    return ParsedBlock([event], consumed, True)


def _pytest_frames_before(lines: list[str], i: int) -> list[Frame]:
    frames: list[Frame] = []
    for k in range(i - 1, max(-1, i - 300), -1):
        line = lines[k]
        if _PYTEST_SECTION.match(line):
            break
        m = _PYTEST_IN.match(line)
        if m:
            frames.append(Frame(m.group("path"), int(m.group("line")), m.group("func")))
    frames.reverse()
    return frames


def _pytest_event(run: list[str], log_line: int) -> ErrorEvent:
    first = run[0].strip()
    if first.startswith("assert "):
        return ErrorEvent("AssertionError", "", [], log_line, kind="pytest",
                          failing_expr=first[len("assert "):])
    parsed = parse_exception_line(first, strict=False) or parse_exception_line(first, strict=True)
    cls, message = (parsed[0], parsed[1]) if parsed else (None, first)
    rest = [line.strip() for line in run[1:] if line.strip()]
    expr = None
    if rest and rest[0].startswith("assert "):
        expr = rest[0][len("assert "):]
        rest = []
    message = "\n".join([message] + [r for r in rest if not r.startswith(("+", "-", "?"))])
    return ErrorEvent(cls, message.strip(), [], log_line, kind="pytest", failing_expr=expr)


def exception_above_frames(events: list[ErrorEvent]) -> list[ErrorEvent]:
    """Events with an exception line joined to the cut traceback that follows it: a writer
    who pastes `AssertionError: assert x` first and then a few frames (a traceback with no
    exception line of its own) shows one error, the line above naming what the frames raised."""
    out: list[ErrorEvent] = []
    for event in events:
        above = out[-1] if out else None
        if (above is not None and above.error_class and not above.frames and above.kind == "line"
                and event.kind == "traceback" and event.frames and event.error_class is None
                and not event.message):
            out[-1] = replace(above, frames=event.frames)
            continue
        out.append(event)
    return out


#: Lines above a bare `AssertionError` searched for the statement that failed.
_STATEMENT_LINES = 6


def assert_above(events: list[ErrorEvent], lines: list[str], first_line: int = 1) -> list[ErrorEvent]:
    """Events with a bare `AssertionError` line given the test of the `assert` statement printed
    right above it (`    assert x is None` / `AssertionError`): a traceback pasted from its
    source line on, its frame line cut or mangled (`line 265, in f`), still names the site."""
    out = []
    for event in events:
        if event.error_class == "AssertionError" and not event.message and event.failing_expr is None \
                and not event.frames and event.log_line is not None:
            test = _statement_above(lines, event.log_line - first_line)
            if test is not None:
                event = replace(event, failing_expr=test)
        out.append(event)
    return out


def _statement_above(lines: list[str], at: int) -> str | None:
    """The test of an `assert` statement ending right above line `at` (over several lines too)."""
    parts: list[str] = []
    for i in range(at - 1, max(-1, at - 1 - _STATEMENT_LINES), -1):
        text = strip_log_prefix(lines[i])
        if not text or _CARETS.fullmatch(text):
            if parts or not text:
                break
            continue
        parts.insert(0, text)
        if text.startswith("assert"):
            test = _failed_assert("AssertionError", "", " ".join(parts))
            return _unbracketed(test) if test else None
    return None


def _unbracketed(test: str) -> str:
    """A test without the brackets a statement over several lines wraps it in: `(x is None)`."""
    if not (test.startswith("(") and test.endswith(")")):
        return test
    depth = 0
    for i, ch in enumerate(test):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and i < len(test) - 1:
            return test   # `(a) and (b)`: the brackets are the test's own
    return test[1:-1].strip()


def bare_message(line: str) -> str:
    """The message part of a line that names no class: after the log prefix, or inside a
    JSON error body (an HTTP client's printout of the server's error)."""
    return json_error_message(line) or strip_log_prefix(line)


def assert_statement(line: str) -> tuple[str, str | None] | None:
    """`(test, message source or None)` of a pasted `assert <test>[, <message>]` statement
    (an issue titled with the failing line), or None: the comma that splits them is the
    first one outside brackets and string literals. A statement inside a sentence counts
    too: quoted (`` the check `assert x` fails ``, `due to "assert x AssertionError"`, the
    class the writer pasted after it dropped), or ending it (`How to fix assert x`)."""
    text = line.strip()
    if not text.startswith("assert "):
        quoted = _QUOTED_ASSERT.search(text)
        told = quoted or _TOLD_ASSERT.search(text)
        if told is None:
            return None
        text = "assert " + told.group("rest").strip()
    text = _CLASS_AFTER.sub("", text)
    if len(text) <= len("assert "):
        return None
    parts = split_top_level(text[len("assert "):], ",", maxsplit=1)
    return parts[0].strip(), (parts[1].strip() or None) if len(parts) == 2 else None


_RAISE = re.compile(r"^raise\s+(?P<cls>[A-Za-z_][\w.]*)\s*\((?P<args>.*?)\)?\s*$", re.S)
_QUOTED_RAISE = re.compile(r"`(?P<stmt>raise [^`]+)`")
_RAISED_FROM = re.compile(r"\)\s+from\s+[\w.]+\s*$")   # `raise X(...) from e`: the chain is no argument


def raise_statement(line: str) -> tuple[str, str] | None:
    """`(class, message source)` of a pasted `raise Class(<message>, ...)` statement (a line of
    the code that raised, quoted in an issue), alone or in backticks inside a sentence, or None.
    The class is its last dotted part."""
    text = line.strip()
    if not text.startswith("raise "):
        quoted = _QUOTED_RAISE.search(text)
        if quoted is None:
            return None
        text = quoted.group("stmt").strip()
    found = _RAISE.match(_RAISED_FROM.sub(")", text))
    if found is None or not found.group("args").strip():
        return None
    message = split_top_level(found.group("args"), ",", maxsplit=1)[0].strip()
    return found.group("cls").rsplit(".", 1)[-1], message


_PROSE_PATH = re.compile(r"(?:\bline (?P<before>\d+) of )?(?P<path>(?:[\w.-]+/)+[\w.-]+\.py)\b"
                         r"(?::(?P<colon>\d+)|,? line (?P<after>\d+))?")


def prose_frames(line: str) -> list[Frame]:
    """Source files a sentence names (`in line 1839 of pkg/sched.py`, `pkg/sched.py:1839`),
    as frames: where the writer saw the error raised, retold."""
    frames = []
    for m in _PROSE_PATH.finditer(line):
        number = m.group("before") or m.group("colon") or m.group("after")
        frames.append(Frame(m.group("path"), int(number) if number else 0))
    return frames


_QUOTED_ASSERT = re.compile(r"[`\"“]assert (?P<rest>[^`\"“”]+)[`\"”]")
#: The class a writer pasted after the quoted statement (`"assert x is None AssertionError"`).
_CLASS_AFTER = re.compile(r"\s+AssertionError:?\s*$")
#: `assert` as the last clause of a sentence, after a word: what follows is the statement.
_TOLD_ASSERT = re.compile(r"(?<=[\w:]) assert (?P<rest>\S.*)$")
