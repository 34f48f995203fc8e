"""Cleaning pasted and logged text: ANSI colours, CRs, log prefixes, exception lines.

Only string-level helpers live here; `events.py` uses them to cut text into
error events.
"""

from __future__ import annotations

import json
import re

_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
#: A timestamp-like run inside a log prefix: it changes from line to line.
_TIMEISH = re.compile(
    r"\d{2,4}[-/:]\d\d(?:[-/:T ]\d\d)*(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?|\d+\.\d+"
)
_LOG_TOKEN = re.compile(
    r"""\s*(?:
        \d{4}-\d\d-\d\d(?:[T\s]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)?
      | \d\d:\d\d:\d\d(?:[.,]\d+)?
      | [IWEF]\d{4}
      | \[[^\]]{0,80}\]
      | \((?:[\w.]+\s+)?pid=\d+[^)]{0,80}\)
      | (?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|TRACE|NOTICE)\b
      | [\w.]*\.py:\d+\]?
      | [|:]
      | -{1,2}(?=\s|$)    # a separator, not the dashes of a `--flag` opening the message
    )""",
    re.X,
)
#: What a new log record's first line tends to start with.
LOG_START = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|[IWEF]\d{4} |\[\S|\((?:[\w.]+\s+)?pid="
    r"|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b)"
)
EXC_SUFFIX = r"(?:Error|Exception|Warning|Exit|Interrupt|Failure|Fault)"
#: `Class: message` anywhere in a line (free text): the class must look like one, or be the plain
#: `Exception` that `raise Exception(...)` prints (common in real code).
LOOSE_EXCEPTION = re.compile(
    r"(?<![\w.])(?P<cls>(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*" + EXC_SUFFIX + r"|Exception))"
    r"(?:\((?P<inner>[\w.]*)\))?(?::(?:\s(?P<msg>.*))?$|\s*$)"
)
#: The words a class `LOOSE_EXCEPTION` finds must end in: where the first one starts bounds
#: where a match can start (see `loose_exception`).
_CLASS_ENDING = re.compile(EXC_SUFFIX)
#: An exception as its repr prints it inside other text (asyncio's `... exception=ValueError("msg")>`,
#: a logged `repr(e)`): a class named like one, then the message quoted in brackets.
REPR_EXCEPTION = re.compile(
    r"(?<![\w.])(?P<cls>(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*" + EXC_SUFFIX + r"|Exception))"
    r"\((?P<q>['\"])(?P<msg>(?:\\.|(?!(?P=q)\)).)+)(?P=q)\)"
)
_REPR_ESCAPE = re.compile(r"\\(['\"\\n])")
#: `Class: message` as the last line of a traceback: any dotted name.
STRICT_EXCEPTION = re.compile(
    r"^(?P<cls>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)(?:\((?P<inner>[\w.]*)\))?(?::(?:\s?(?P<msg>.*))?)?$"
)
_NORMALIZE = re.compile(
    r"0x[0-9a-fA-F]+|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\b[0-9a-f]{8,}\b|\d+(?:\.\d+)?"
)


#: The right border of a box a log viewer or terminal UI drew around each line (`... │`).
_BOX_RIGHT = re.compile(r"\s*[│┃]\s*$")


#: A docker/kubernetes json-file log line: the printed line is the "log" string.
_DOCKER_LOG = '{"log":'
#: A frame printed as an escaped string (a log shipper's or a repr's `File \"...\"`).
_ESCAPED_FRAME = 'File \\"'
#: What `clean_line` changes; text holding none of these is clean already.
_CLEANED = ("\x1b", "\r", "│", "┃", _DOCKER_LOG, _ESCAPED_FRAME)


def needs_cleaning(text: str) -> bool:
    """Whether `clean_line` could change any line of this text (a log scan skips it when not)."""
    return any(mark in text for mark in _CLEANED)


def clean_line(line: str) -> str:
    """Drop ANSI escapes, carriage returns (CRLF logs, progress bars) and a drawn box's
    right border (the left one is a prefix like any other); unwrap a docker json-file
    log line and a frame printed with escaped quotes."""
    if line.startswith(_DOCKER_LOG):
        line = _docker_payload(line)
    if _ESCAPED_FRAME in line:
        line = line.replace('\\"', '"')
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "│" in line or "┃" in line:
        line = _BOX_RIGHT.sub("", line)
    if "\r" in line:
        line = line.rstrip("\r")
        if "\r" in line:  # progress-bar redraws: the last one is what was shown
            line = line.rsplit("\r", 1)[-1]
    return line


def _docker_payload(line: str) -> str:
    try:
        payload = json.loads(line).get("log")
    except (ValueError, AttributeError):
        return line
    return payload.rstrip("\n") if isinstance(payload, str) else line


def split_clean_lines(text: str) -> list[str]:
    """Text to cleaned lines, whatever the line endings."""
    return [clean_line(line) for line in text.replace("\r\n", "\n").split("\n")]


def prefix_regex(prefix: str) -> re.Pattern:
    """Match a log prefix on following lines: same text, timestamps free to change."""
    parts: list[str] = []
    last = 0
    for m in _TIMEISH.finditer(prefix):
        parts.append(re.escape(prefix[last:m.start()]))
        parts.append(r"[\dTZ:.,/+ -]+")
        last = m.end()
    parts.append(re.escape(prefix[last:]))
    return re.compile("".join(parts))


#: The message of an HTTP error body as a client prints it (`{"object":"error","message":"..."}`,
#: FastAPI's `{"detail":"..."}`): a JSON string, or a Python repr of one (`\\'`), or the body
#: printed as a Python dict (`{'object': 'error', 'message': "...", ...}`, the openai client).
_JSON_MESSAGE = re.compile(
    r"""(?P<k>["'])(?:message|detail|error)(?P=k)\s*:\s*(?P<q>["'])(?P<body>(?:[^"'\\]|\\.|(?!(?P=q))["'])*)(?P=q)"""
)
_PY_ESCAPE = re.compile(r"\\(['\"\\n])")
#: How the openai client prints a server's error: `Error code: 400 - {<the body as a dict>}`.
_CLIENT_STATUS = re.compile(r"^Error code: \d{3} - \{")


def json_error_message(line: str) -> str | None:
    """The error message inside a JSON error body on this line, unescaped, or None."""
    found = _JSON_MESSAGE.search(line) if '":' in line or "':" in line else None
    if found is None or not found.group("body").strip():
        return None
    if found.group("q") == "'":   # a Python repr
        return _PY_ESCAPE.sub(lambda e: "\n" if e.group(1) == "n" else e.group(1), found.group("body"))
    body = found.group("body").replace("\\'", "'")
    try:
        return json.loads(f'"{body}"')
    except ValueError:
        return body


def client_status_message(message: str) -> str | None:
    """The server's error message inside an HTTP client's status error (`openai.BadRequestError:
    Error code: 400 - {..., 'message': "<message>", ...}`), or None: the class is the client's,
    the message is what the server raised."""
    return json_error_message(message) if _CLIENT_STATUS.match(message) else None


def strip_log_prefix(line: str) -> str:
    """Remove timestamps, levels, `[rank3]:`, `(pid=1)` and similar from the start."""
    pos = 0
    while True:
        m = _LOG_TOKEN.match(line, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
    return line[pos:].strip()


def parse_exception_line(line: str, strict: bool) -> tuple[str | None, str, int] | None:
    """`(class, message, start column)` of an exception line, or None.

    Strict mode is for the line that ends a traceback (any dotted name is a
    class); loose mode searches free text for a name that looks like an
    exception class. A wrapper class such as `RayTaskError(ValueError)`
    reports the inner class.
    """
    if strict:
        m = STRICT_EXCEPTION.match(line.strip())
    else:
        m = loose_exception(line)
        if m is None and "(" in line:
            return _repr_exception(line)
    if m is None:
        return None
    inner, cls, message = m.group("inner", "cls", "msg")
    return inner or cls, (message or "").strip(), m.start()


def loose_exception(line: str) -> re.Match | None:
    """`LOOSE_EXCEPTION.search(line)`, started near the first class ending in the line: the
    search alone tries every position of a long message (~2 us a log line). A match is one
    run of word characters and dots that ends in such a word, so it starts no earlier than the
    last space before the first of them."""
    ending = _CLASS_ENDING.search(line)
    if ending is None:
        return None
    return LOOSE_EXCEPTION.search(line, line.rfind(" ", 0, ending.start()) + 1)


def _repr_exception(line: str) -> tuple[str, str, int] | None:
    """`(class, message, start column)` of an exception's repr in free text, its quotes
    and escapes undone (`ValueError('it\\'s')` says `it's`). A `raise` before it makes it
    source code (pytest's `>   raise ValueError("x")` above the `E` line), not a printout."""
    m = REPR_EXCEPTION.search(line)
    if m is None or re.search(r"\braise\s*$", line[:m.start()]):
        return None
    message = _REPR_ESCAPE.sub(lambda e: "\n" if e.group(1) == "n" else e.group(1), m.group("msg"))
    return m.group("cls"), message.strip(), m.start()


def normalize_unknown(text: str) -> str:
    """Group key for unmatched errors: numbers, hex and quoted strings replaced."""
    return re.sub(r"\s+", " ", _NORMALIZE.sub("<*>", text)).strip()[:300]
