"""One record's message pattern, taken apart for matching.

A record's `messagePattern` is literal chunks (regex-escaped) joined by `(.+?)`
groups. This module owns turning it back into chunks and deriving from them
everything the engines and the verifier need: the verification regexes, the
hyperscan expressions, the prefilter tokens, and the procedural prefix match
used for truncated text. Both engine backends share this code, so they give
identical answers as long as each returns a superset of the true candidates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

GROUP = "(.+?)"
#: A template's whitespace run as looked for in one raw log line: one space,
#: as Python renders it. (Pasted text is normalised first, so there any
#: whitespace run matches; a repeated class here would make hyperscan's
#: compile of ~15k patterns take minutes instead of seconds.)
LINE_SPACE = " "
#: Templates with fewer literal characters than this never match on their own.
MIN_LITERAL = 4
#: A prefix match must contain this many characters of the first literal chunk.
PREFIX_KEY_LEN = 16
PREFIX_MIN_CHUNK = 8

_WS = re.compile(r"\s+")
#: Whitespace a log line prints as it is, not as one space: two or more, or a tab or newline.
_WIDE_SPACE = re.compile(r"\s{2,}|[^\S ]")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


def normalize_space(text: str) -> str:
    """Every whitespace run becomes one space; the ends are stripped.

    `str.split()` and `re`'s `\\s` agree on what whitespace is (str.isspace).
    """
    return " ".join(text.split())


@dataclass(slots=True)
class RecordRef:
    """The slice of a record that matching needs (full records are large)."""

    idx: int
    id: str
    repo: str
    file_path: str
    line: int
    error_class: str | None
    error_message: str
    message_pattern: str
    error_type: str
    is_test: bool
    function: str
    class_bases: list[str]
    placeholders: dict[str, str]
    groups: list[str]
    condition: str | None
    condition_exact: bool | None
    assert_test: str | None
    dataset: str = ""
    chunks: list[str] = field(default_factory=list)
    # Derived on first use (a scan touches few records): not part of the state.
    norm_chunks: list[str] | None = field(default=None, repr=False, compare=False)
    literal_len: int = field(default=-1, repr=False, compare=False)
    prefix_parts: tuple | None = field(default=None, repr=False, compare=False)   # see `verify_prefix`

    @classmethod
    def from_record(cls, idx: int, record: dict, dataset: str = "") -> "RecordRef":
        """Build from a store record dict (seed fields plus `errdex`)."""
        extra = record.get("errdex") or {}
        pattern = record.get("messagePattern") or ""
        chunks = split_pattern(pattern)
        groups = list(extra.get("groups") or [])
        if len(groups) != len(chunks) - 1:
            groups = [f"_{i + 1}" for i in range(len(chunks) - 1)]
        return cls(
            idx=idx, id=record["id"], repo=record.get("repo") or "",
            file_path=record.get("filePath") or "", line=int(record.get("lineNumber") or 0),
            error_class=record.get("errorClass"), error_message=record.get("errorMessage") or "",
            message_pattern=pattern, error_type=record.get("errorType") or "exception",
            is_test="test" in (record.get("tags") or []) or bool(extra.get("test")),
            function=extra.get("function") or "",
            class_bases=list(dict.fromkeys((extra.get("classAncestors") or []) + (extra.get("classBases") or []))),
            placeholders=dict(extra.get("placeholders") or {}), groups=groups,
            condition=extra.get("guard") or extra.get("condition"), condition_exact=extra.get("conditionExact"),
            assert_test=extra.get("assertTest"), dataset=dataset, chunks=chunks,
        )

    def to_row(self) -> tuple:
        """The stored fields as a tuple, in STATE_FIELDS order (the on-disk cache)."""
        return tuple(getattr(self, name) for name in STATE_FIELDS)

    @classmethod
    def from_row(cls, row: tuple | list) -> "RecordRef":
        return cls(*row)

    def to_state(self) -> dict:
        """Plain dict of the stored fields."""
        return {name: getattr(self, name) for name in STATE_FIELDS}

    @classmethod
    def from_state(cls, state: dict) -> "RecordRef":
        return cls(**state)

    @property
    def literal_length(self) -> int:
        if self.literal_len < 0:
            self.literal_len = sum(map(len, map(str.strip, self.chunks)))
        return self.literal_len

    @property
    def matchable(self) -> bool:
        """False for all-placeholder or nearly-empty templates (frames only)."""
        return bool(self.message_pattern) and self.literal_length >= MIN_LITERAL

    @property
    def function_name(self) -> str:
        return self.function.rsplit(".", 1)[-1]


#: RecordRef fields kept in the on-disk cache, in constructor order.
STATE_FIELDS = (
    "idx", "id", "repo", "file_path", "line", "error_class", "error_message", "message_pattern",
    "error_type", "is_test", "function", "class_bases", "placeholders", "groups", "condition",
    "condition_exact", "assert_test", "dataset", "chunks",
)


def split_pattern(pattern: str) -> list[str]:
    """Literal chunks of a messagePattern, unescaped; `len(groups) + 1` items."""
    chunks: list[str] = []
    current: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith(GROUP, i):
            chunks.append("".join(current))
            current = []
            i += len(GROUP)
        elif pattern[i] == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            current.append(_SIMPLE_ESCAPES.get(nxt, nxt))
            i += 2
        else:
            current.append(pattern[i])
            i += 1
    chunks.append("".join(current))
    return chunks


def _chunk_regex(chunk: str, space: str) -> str:
    """Escape a literal chunk for Python `re`, whitespace runs flexible."""
    pieces = re.split(r"(\s+)", chunk)
    return "".join(space if p and p.isspace() else re.escape(p) for p in pieces)


def verify_regex(chunks: list[str], space: str = r"\s+") -> str:
    """The Python regex with one capture group per placeholder.

    Whitespace at the very start or end of the template is optional: the
    message it is checked against has been stripped.
    """
    inner = list(chunks)
    lead = r"\s*" if inner[0][:1].isspace() else ""
    inner[0] = inner[0].lstrip()
    trail = r"\s*" if inner[-1][-1:].isspace() else ""
    inner[-1] = inner[-1].rstrip()
    return lead + GROUP.join(_chunk_regex(c, space) for c in inner) + trail


def line_regex(chunks: list[str]) -> str:
    """Capture-free regex for finding a rendering inside one raw log line.

    Leading and trailing placeholders are dropped: they only need one
    character, and dropping them keeps hyperscan from reporting a match at
    every offset after the last literal.
    """
    return ".+?".join(_chunk_regex(c, LINE_SPACE) for c in line_chunks(chunks))


def line_chunks(chunks: list[str]) -> list[str]:
    """The literal pieces `line_regex` looks for, in order: the regex is these joined
    by `.+?` (see `line_has`). A raw log line keeps the template's whitespace, so a
    piece holds single spaces only: a wider run (`[BCG]   differing`, a tab, a newline)
    ends it, and the `.+?` after it stands for the run as printed."""
    inner = list(chunks)
    if len(inner) > 1 and inner[0] == "":
        inner = inner[1:]
    if len(inner) > 1 and inner[-1] == "":
        inner = inner[:-1]
    inner[0] = inner[0].lstrip()
    inner[-1] = inner[-1].rstrip()   # after the lstrip: a one-chunk template loses both edges
    pieces = [p for c in inner for p in _WIDE_SPACE.split(c) if p]
    return pieces or [""]


def line_has(line: bytes, pieces: tuple[bytes, ...]) -> bool:
    """Whether `line_regex` matches somewhere in one line (no newline in it), given its
    `line_chunks` as UTF-8: each piece at its leftmost place after the previous one
    and at least one byte later (`.+?`); the leftmost places end earliest, so no
    other placement can succeed where they fail. No regex compiled per template."""
    pos = line.find(pieces[0])
    if pos < 0:
        return False
    pos += len(pieces[0])
    for piece in pieces[1:]:
        pos = line.find(piece, pos + 1)
        if pos < 0:
            return False
        pos += len(piece)
    return True


def prefix_key(chunks: list[str]) -> str:
    """The text a prefix match must contain: the start of an early literal chunk.

    The first or second chunk with at least PREFIX_MIN_CHUNK characters; a
    template that starts with short bits between placeholders gets no prefix
    matching (keys like ": " would fire on every log line).
    """
    for chunk in chunks[:2]:
        norm = _WS.sub(" ", chunk)
        if len(norm.strip()) >= PREFIX_MIN_CHUNK:
            return norm[:PREFIX_KEY_LEN]
    return ""


def line_literal(chunks: list[str]) -> str:
    """The longest of the pieces `line_regex` looks for (`line_chunks`), stripped: every
    line the line regex matches contains it verbatim.

    Long chunks with their inner spaces (`must be divisible by`) are rare in
    ordinary log lines, unlike single words (`token`, `model`), so a database
    of these literals flags few lines and scans at literal-matcher speed.
    """
    return max((p.strip() for p in line_chunks(chunks)), key=len, default="")


def longest_token(text: str) -> str:
    """Longest whitespace-free piece: present verbatim in any rendering."""
    tokens = text.split()
    return max(tokens, key=len) if tokens else ""


def hs_escape(regex_text: str) -> bytes:
    """A Python regex built by this module, as hyperscan bytes.

    Our regexes use only `re.escape` output, `.+?` and the space class, all of
    which hyperscan reads the same way; non-ASCII literals go as UTF-8 bytes
    escaped one by one.
    """
    out = bytearray()
    for ch in regex_text:
        code = ord(ch)
        if code < 128:
            out += ch.encode()
        else:
            out += "".join(f"\\x{b:02x}" for b in ch.encode("utf-8")).encode()
    return bytes(out)


@dataclass(slots=True)
class MessageHit:
    """A record's template found in a message, with the captured values."""

    record: RecordRef
    kind: str                   # "full" | "contained" | "firstline" | "prefix" | "drift"
    values: list[str]           # one per capture group (fewer for a prefix match)
    literal_covered: int        # literal characters of the template seen in the text
    message_length: int

    @property
    def coverage(self) -> float:
        return self.literal_covered / max(1, self.message_length)


def verify_full(record: RecordRef, message: str) -> MessageHit | None:
    """Full or contained match of the template in a normalised message.

    A small backtracking matcher over the literal chunks that reads each
    group as `(.+?)` does (shortest first), without compiling a regex per
    template: a fresh process scanning a log meets thousands of templates.
    """
    found = place_template(normalized_chunks(record), message)
    if found is None:
        return None
    return MessageHit(record, found[0], found[1], record.literal_length, len(message))


def place_template(chunks: list[str], message: str) -> tuple[str, list[str]] | None:
    """`verify_full`'s (kind, values) for normalised chunks: the same for every record
    sharing them (a log scan verifies such a group once).

    Each attempt is one leftmost placement (`_place`); the answers are those of
    the backtracking matcher this replaced, work budget included: when the
    whole-message attempt fails and a contained one exists, that matcher's
    failed search is replayed (`_spent`) to know whether its budget was left.
    """
    if message.startswith(chunks[0]):
        values = _place(message, chunks, 0, True)
        if values is not None and _steps(chunks, True) <= _MATCH_BUDGET:
            return "full", values
        anchored_tried = True
    else:
        anchored_tried = False
    first = chunks[0]
    at = message.find(first) if first else 0
    values = _place(message, chunks, at, False) if at >= 0 else None
    if values is None:
        return None
    steps = _steps(chunks, False)
    if steps and anchored_tried and _MATCH_BUDGET - _spent(message, chunks) < steps:
        return None   # the backtracking matcher ran out of budget before its contained search
    return "contained", values


#: Characters of a wrapper's label ahead of a message it logs or re-raises ("Error in request: ").
WRAPPER_LABEL_MAX = 60


#: One-word labels a logger or server prints before a message it caught (`[http_server] Error:
#: <message>`): the generic word, which names no Python class (an index raising a class of
#: that name has it split off as the class first, see `resolve.printed_class_of`).
GENERIC_LABELS = frozenset({"Error", "error"})
#: A label that names a logger (`%(name)s: %(message)s`), not a class: its last part starts lower case.
_LOGGER_NAME = re.compile(r"(?:[A-Za-z_][\w-]*\.)*[a-z_][\w-]*")


def wrapped_start(chunks: list[str], message: str) -> int | None:
    """Where a whole rendering of the template begins inside the normalised message when
    all that precedes it is a short label of several words ending in ': ' (`Error in
    request: <message>`, how servers log an exception they caught), the generic word
    `Error: ` or a logger's name (`worker: `, `sglang.srt.managers: `: its last part lower
    case), else None. Another single word before ': ' (`Oops: `) reads as a class name,
    which class agreement decides, not this."""
    first = chunks[0] if chunks else ""
    if not first:
        return None
    at = message.find(first, 2)
    while 0 < at <= WRAPPER_LABEL_MAX + 2:
        label = message[:at - 2].strip()
        if message[:at].endswith(": ") and (" " in label or label in GENERIC_LABELS or _LOGGER_NAME.fullmatch(label)):
            placed = place_template(chunks, message[at:])
            if placed is not None and placed[0] == "full":
                return at
        at = message.find(first, at + 1)
    return None


def rendered_opening(chunks: list[str], message: str) -> int | None:
    """Where a whole rendering of the template that opens the normalised message ends, when
    the writer's own words follow it at a word boundary (`<message> when running X on 8 GPUs`,
    an issue title), else None. Only a template ending in literal text can be told apart from
    what follows; one ending in a value takes those words into the value."""
    first, last = (chunks[0], chunks[-1]) if chunks else ("", "")
    if not first or not last or not message.startswith(first):
        return None
    at = message.find(last, len(first) if len(chunks) > 1 else 0)
    while at != -1:
        end = at + len(last)
        if end < len(message) and not (message[end - 1].isalnum() and message[end].isalnum()):
            placed = place_template(chunks, message[:end])
            if placed is not None and placed[0] == "full":
                return end
        at = message.find(last, at + 1)
    return None


def rendered_closing(chunks: list[str], message: str) -> int | None:
    """Where a whole rendering of the template that ends the normalised message begins, when
    the writer's own words come before it at a word boundary (`[Bug] v0.4.4 <message>`, an
    issue title's tag and version), else None: `rendered_opening`'s mirror. Only a template
    opening and ending with literal text can be told apart from the words around it."""
    first, last = (chunks[0], chunks[-1]) if chunks else ("", "")
    if not first or not last:
        return None
    end = len(message.rstrip(" .…")) if not last.endswith((".", "…")) else len(message)   # the writer's period, a cut mark
    if not message[:end].endswith(last):
        return None
    text = message[:end]
    at = text.find(first, 1)
    while at != -1:
        if not (text[at - 1].isalnum() and text[at].isalnum()):
            placed = place_template(chunks, text[at:])
            if placed is not None and placed[0] == "full":
                return at
        at = text.find(first, at + 1)
    return None


#: Placement attempts the former backtracking matcher allowed per message (see `_spent`).
_MATCH_BUDGET = 5000


def _steps(chunks: list[str], anchored: bool) -> int:
    """Budget units a successful leftmost placement cost the backtracking matcher: one per
    value it searched for (a last value running to the text's end is not searched)."""
    last = len(chunks) - 1
    if last == 0:
        return 0
    return last - 1 if anchored or not chunks[last] else last


def _spent(message: str, chunks: list[str]) -> int:
    """Budget units the backtracking matcher spent failing to place the template on the
    whole message (its search, replayed: rare, and cheap for all but odd templates)."""
    budget = [_MATCH_BUDGET]
    _backtrack(message, chunks, 0, 0, budget)
    return _MATCH_BUDGET - budget[0]


def _backtrack(message: str, chunks: list[str], i: int, start: int, budget: list[int]) -> list[str] | None:
    """The former anchored matcher, kept only to count its work for `_spent`."""
    pos = start + len(chunks[i])
    if i == len(chunks) - 1:
        return [] if pos == len(message) else None
    nxt = chunks[i + 1]
    if i + 1 == len(chunks) - 1:
        if not nxt:
            return [message[pos:]] if len(message) > pos else None
        end = len(message) - len(nxt)
        return [message[pos:end]] if end > pos and message.endswith(nxt) else None
    j = message.find(nxt, pos + 1) if nxt else pos + 1
    while 0 <= j <= len(message) and (nxt or j < len(message)):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        rest = _backtrack(message, chunks, i + 1, j, budget)
        if rest is not None:
            return [message[pos:j]] + rest
        j = message.find(nxt, j + 1) if nxt else j + 1
    return None


def normalized_chunks(record: RecordRef) -> list[str]:
    """Chunks with whitespace runs as one space and outer edges stripped; computed once per record."""
    chunks = record.norm_chunks
    if chunks is None:
        chunks = [_single_spaced(c) for c in record.chunks]
        chunks[0] = chunks[0].lstrip()
        chunks[-1] = chunks[-1].rstrip()
        record.norm_chunks = chunks
    return chunks


def _single_spaced(text: str) -> str:
    """Whitespace runs as one space; most chunks have none but single spaces (every
    other whitespace character is unprintable), and skip the regex."""
    return text if text.isprintable() and "  " not in text else _WS.sub(" ", text)


def _place(message: str, chunks: list[str], start: int, anchored: bool) -> list[str] | None:
    """Values for the groups, chunk 0 sitting at `start`, as the regex reading of each group
    as `(.+?)` gives them (shortest first, backtracking), or None.

    Each chunk goes at its leftmost place at least one character after the
    previous one; that placement is the one the regex tries first, and when it
    fails every other fails too: any other puts each chunk at or after its
    leftmost place, and the constraints left (a later chunk found after it, the
    last one ending the text, a value at least one character long) only get
    harder as a chunk moves right. So no backtracking is needed.
    """
    values: list[str] = []
    pos = start + len(chunks[0])
    last = len(chunks) - 1
    size = len(message)
    for i in range(1, last + 1):
        nxt = chunks[i]
        if i == last and (anchored or not nxt):   # the last value runs up to the text's end
            if not nxt:
                if size <= pos:
                    return None
                values.append(message[pos:])
                return values
            end = size - len(nxt)
            if end <= pos or not message.endswith(nxt):
                return None
            values.append(message[pos:end])
            return values
        if nxt:
            j = message.find(nxt, pos + 1)
            if j < 0:
                return None
        else:
            j = pos + 1
            if j >= size:
                return None
        values.append(message[pos:j])
        pos = j + len(nxt)
    return values if (pos == size or not anchored) else None


def verify_prefix(record: RecordRef, message: str) -> MessageHit | None:
    """The message is a prefix of some rendering of the template (truncated text).

    Chunks are consumed in order with `str.find` (the lazy-group reading);
    the message may end inside a value or inside a literal chunk.
    """
    parts = record.prefix_parts
    if parts is None:
        parts = record.prefix_parts = _prefix_parts(record)
    chunks, key = parts
    if not key or key not in message:
        return None
    first = chunks[0]
    if len(message) <= len(first):
        if first.startswith(message) and len(message.strip()) >= len(key):
            return MessageHit(record, "prefix", [], len(message), len(message))
        return None
    if not message.startswith(first):
        return None
    pos, covered, values = len(first), len(first.strip()), []
    for i, chunk in enumerate(chunks[1:], 1):
        found = message.find(chunk, pos + 1) if chunk else -1
        if chunk and found > pos:
            values.append(message[pos:found])
            pos, covered = found + len(chunk), covered + len(chunk.strip())
            continue
        rest = message[pos:]
        cut = _partial_chunk_start(rest, chunk)
        values.append(rest[:cut] if cut else rest)
        covered += len(rest) - cut if cut else 0
        kind = "firstline" if not cut and rest and record.chunks[i].lstrip(" \t").startswith("\n") else "prefix"
        return MessageHit(record, kind, values, covered, len(message))
    return None  # the whole template fit: that is a full match, not a prefix


def _prefix_parts(record: RecordRef) -> tuple[list[str], str]:
    """`verify_prefix`'s chunks (whitespace runs as one space, the first one lstripped) and
    its stripped prefix key: the same at each call, and a scan asks again and again."""
    chunks = [_WS.sub(" ", c) for c in record.chunks]
    chunks[0] = chunks[0].lstrip()
    return chunks, prefix_key(record.chunks).strip()


#: Characters a message must share with the start of a template's opening literal for a
#: "drift" match: the same opening words, then wording that changed between versions.
DRIFT_MIN_SHARED = 40


def verify_drift(record: RecordRef, message: str) -> MessageHit | None:
    """The message opens like the template's first literal chunk, for at least
    DRIFT_MIN_SHARED characters, then departs from it: a rendering by another version
    whose later wording or debug values changed (always low confidence)."""
    first = _WS.sub(" ", record.chunks[0]).lstrip() if record.chunks else ""
    if len(first) < DRIFT_MIN_SHARED or not message.startswith(first[:DRIFT_MIN_SHARED]):
        return None
    shared = DRIFT_MIN_SHARED
    limit = min(len(first), len(message))
    while shared < limit and message[shared] == first[shared]:
        shared += 1
    return MessageHit(record, "drift", [], shared, len(message))


def _partial_chunk_start(rest: str, chunk: str) -> int:
    """Where a truncated start of `chunk` begins at the end of `rest` (0 if none): the first
    place, at least 1 and at most `len(chunk)` characters from the end, whose tail `chunk`
    starts with. Only places holding the chunk's first character are tried (each try was a
    slice and a comparison, at every place)."""
    if not chunk:
        return 0
    first = chunk[0]
    start = rest.find(first, max(1, len(rest) - len(chunk)))
    while start != -1:
        if chunk.startswith(rest[start:]):
            return start
        start = rest.find(first, start + 1)
    return 0
