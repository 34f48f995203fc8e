"""What the lines around a site say, read off its source window (`sourceCode`): the statement
itself (`raise ... from None`) and the ones that run after it (a `return` or `raise` after a
report, a `raise` after an `if` whose whole body is the site). Text, not a parse: a record
carries its window, not its file's tree, and the prose is written when the record is read.
"""

from __future__ import annotations

import re

_FROM_NONE = re.compile(r"\bfrom\s+None\b")


def statement_lines(record: dict) -> tuple[list[str], int, int] | None:
    """The window's lines with the site's statement at `[at:end + 1]`, or None without a window."""
    text, start = record.get("sourceCode"), record.get("sourceCodeStart")
    if not text or not isinstance(start, int):
        return None
    line = record.get("lineNumber") or 0
    return text.split("\n"), line - start, (record["errdex"].get("endLine") or line) - start


def _inside_window(record: dict) -> tuple[list[str], int, int] | None:
    """`statement_lines`, when the statement has a line of the window above it (its block's header
    may be read there)."""
    found = statement_lines(record)
    return found if found is not None and 0 < found[1] < len(found[0]) else None


def from_none(record: dict) -> bool:
    """Whether the raise statement ends in `from None` (read off its lines in the window): the error
    it handles is then not shown with this one (review 26: "which Python chains to this one")."""
    found = statement_lines(record)
    if found is None:
        return False
    lines, at, end = found
    return any(_FROM_NONE.search(part) for part in lines[max(0, at):max(0, end + 1)])


def next_statement(record: dict) -> str | None:
    """"return" or "raise" when the statement that runs right after a report is one (read off the
    window): the function then does not go on past it (review 26: "logs this and goes on" of
    `logger.error(msg)` followed by `return False, msg`). A `raise` is also found past the end of
    the `if`/`else`, `with` or `except` blocks holding the report (review 27 #0: `if i: log(...)
    else: log(...)`, then `raise`); a `return` there is the function's own end, not a way out, and
    a loop's end or a `finally`'s reach is not followed."""
    found = statement_lines(record)
    if found is None:
        return None
    lines, at, end = found
    if not 0 <= at < len(lines):
        return None
    indent = _indent(lines[at])
    i = end + 1
    left = False   # out of the report's own block
    while i < len(lines):
        line = lines[i]
        body = line.strip()
        if not body or body.startswith("#") or _indent(line) > indent:
            i += 1   # a blank line, a comment, or the body of a clause skipped below
            continue
        word = body.split(None, 1)[0].rstrip(":;(")
        if _indent(line) == indent:
            if word in ("else", "elif", "except"):   # another branch of the block that was left
                i += 1
                continue
            return word if word == "raise" or (word == "return" and not left) else None
        left = True
        at = _header(lines, at, indent)   # the block the site's statement lies in
        words = lines[at].split(None, 2) if at is not None else []
        if not words or (words[1] if words[0] == "async" and len(words) > 1 else words[0]).rstrip(":") \
                not in _LEFT_FOR_NEXT:
            return None
        indent = _indent(lines[at])
    return None


def raise_after_its_if(record: dict) -> bool:
    """Whether the site is the whole body of an `if` whose next statement, in the same block, is a
    `raise` (review 28 #22: `if isinstance(b, BaseException): raise X from b`, then `raise X(...)`):
    the test only picks which of two raises runs."""
    found = _inside_window(record)
    if found is None:
        return False
    lines, at, end = found
    indent = _indent(lines[at])
    header = _header(lines, at, indent)
    if header is None or not lines[header].lstrip().startswith(("if ", "if(", "elif ")) or any(
            _indent(lines[k]) == indent and lines[k].strip() and not lines[k].lstrip().startswith("#")
            for k in range(header + 1, at)):
        return False   # a multi-line header's last line (`):`) is no `if`: not read
    level = _indent(lines[header])
    for line in lines[end + 1:]:
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        if _indent(line) > level:
            if _indent(line) == indent:
                return False   # another statement in the `if` body
            continue
        return _indent(line) == level and body.split(None, 1)[0].rstrip("(") == "raise"
    return False


#: Blocks whose end leads on to the statement after their compound statement (a loop's goes back
#: to its header; a `try` body's end may run `else`/`finally` first, so it is not followed either).
_LEFT_FOR_NEXT = frozenset({"if", "elif", "else", "with", "except"})


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _header(lines: list[str], at: int, indent: int) -> int | None:
    """The nearest line above `at` indented less than `indent`: the header of the block holding it."""
    for k in range(at - 1, -1, -1):
        text = lines[k].strip()
        if text and not text.startswith("#") and _indent(lines[k]) < indent:
            return k
    return None


def enclosing_while(record: dict) -> str | None:
    """The test of the innermost `while` loop whose body holds the site (`start < len(values)` of
    `while start < len(values):`), read off the window, or None: its test holds in each pass that
    reaches the site, not once (review 29 #20). Only a one-line header inside the window counts."""
    found = _inside_window(record)
    if found is None:
        return None
    lines, at, _end = found
    indent = _indent(lines[at])
    while indent > 0:
        header = _header(lines, at, indent)
        if header is None:
            return None
        text = lines[header].strip()
        if text.startswith(("def ", "async def ", "class ")):
            return None
        if text.startswith("while ") and text.endswith(":"):
            return text[6:-1].strip() or None
        at, indent = header, _indent(lines[header])
    return None
