"""The source lines of a site that decide when its message or guard changed.

Read from a record's source window alone: the raise/assert statement's lines
(`lineNumber`..`errdex.endLine`) and the guard lines, the headers of the
blocks that enclose the raise (`if`/`elif`/`else`/`while`/`except`/...)
inside its function.
"""

from __future__ import annotations

_GUARD_HEADS = ("if ", "elif ", "else", "while ", "for ", "except", "try", "with ", "match ", "case ")
_SCOPE_HEADS = ("def ", "async def ", "class ")


def _window(record: dict) -> tuple[list[str], int]:
    return (record.get("sourceCode") or "").split("\n"), int(record.get("sourceCodeStart") or 1)


def raise_lines(record: dict) -> list[str]:
    """The statement that raises, stripped of indentation."""
    lines, start = _window(record)
    first = int(record.get("lineNumber") or 0)
    last = max(first, int((record.get("errdex") or {}).get("endLine") or first))
    return [s.strip() for s in lines[first - start:last - start + 1]]


def guard_lines(record: dict) -> list[str]:
    """Headers of the blocks around the raise, innermost first, up to the enclosing def."""
    lines, start = _window(record)
    index = int(record.get("lineNumber") or 0) - start
    if not 0 <= index < len(lines):
        return []
    indent = _indent(lines[index])
    out = []
    for text in reversed(lines[:index]):
        stripped = text.strip()
        if not stripped or stripped.startswith("#") or _indent(text) >= indent:
            continue
        indent = _indent(text)
        if stripped.startswith(_SCOPE_HEADS):
            break
        if stripped.startswith(_GUARD_HEADS):
            out.append(stripped)
    return out


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())
