"""What the pages show, computed from records: highlighted source, message parts, field basis.

Everything here returns plain data or Pygments' escaped HTML; the templates
escape all record text themselves (autoescape), so nothing from the indexed
code reaches a page unescaped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

#: CSS class of the Pygments output; its stylesheet is `static/pygments.css`.
SOURCE_CSS_CLASS = "source"
_LEXER = PythonLexer(stripnl=False, ensurenl=False)


def highlighted_source(record: dict) -> Markup:
    """The record's source window as HTML, numbered from `sourceCodeStart`, raise lines marked."""
    code = record.get("sourceCode") or ""
    start = int(record.get("sourceCodeStart") or 1)
    line = int(record.get("lineNumber") or start)
    end_line = int((record.get("errdex") or {}).get("endLine") or line)
    return Markup(_highlight(code, start, line, max(line, end_line)))


@lru_cache(maxsize=512)
def _highlight(code: str, start: int, line: int, end_line: int) -> str:
    """Pygments is the slowest part of an error page: popular records are highlighted once."""
    marked = [n - start + 1 for n in range(line, end_line + 1)]
    formatter = HtmlFormatter(linenos="inline", linenostart=start, hl_lines=marked,
                              cssclass=SOURCE_CSS_CLASS, wrapcode=True)
    return highlight(code, _LEXER, formatter)


def pygments_css() -> str:
    return HtmlFormatter(cssclass=SOURCE_CSS_CLASS).get_style_defs(f".{SOURCE_CSS_CLASS}")


@dataclass(frozen=True, slots=True)
class MessagePart:
    """A piece of a message: literal text, or a placeholder with the value bound to it (if any)."""

    text: str
    placeholder: str | None = None
    bound: bool = False


def message_parts(template: str, bindings: dict[str, str] | None = None,
                  placeholders: list[str] | None = None) -> list[MessagePart]:
    """Split `template` at its `{placeholder}`s, putting bound values in their place."""
    bindings = bindings or {}
    names = sorted({*bindings, *(placeholders or [])}, key=len, reverse=True)
    if not template or not names:
        return [MessagePart(template or "")]
    pattern = re.compile("|".join(re.escape("{" + n + "}") for n in names))
    parts: list[MessagePart] = []
    last = 0
    for found in pattern.finditer(template):
        if found.start() > last:
            parts.append(MessagePart(template[last:found.start()]))
        name = found.group()[1:-1]
        if name in bindings:
            parts.append(MessagePart(str(bindings[name]), name, True))
        else:
            parts.append(MessagePart(found.group(), name))
        last = found.end()
    if last < len(template):
        parts.append(MessagePart(template[last:]))
    return parts


def field_basis(record: dict, field: str) -> str:
    """"fact", "heuristic" or "model": how a field was derived, per `errdex.provenance`."""
    prov = (record.get("errdex") or {}).get("provenance") or {}
    value = str(prov.get(field, "fact"))
    if value.startswith("model"):
        return "model"
    return "heuristic" if value.startswith("heuristic") else "fact"


def fact_summary(record: dict) -> str:
    """A sentence from proven facts, shown when no prose explanation exists yet."""
    ex = record.get("errdex") or {}
    what = record.get("errorClass") or record.get("errorType") or "error"
    where = ex.get("function") or "<module>"
    module = ex.get("module")
    text = f"{what} raised in {where}" + (f" ({module})" if module else "")
    if ex.get("helper"):
        text += f" through the helper {ex['helper']}"
    if ex.get("condition"):
        text += f", when {ex['condition']}"
    return text + "."


def related_links(record: dict) -> list[tuple[str, str]]:
    """(record id, label) of each related error; accepts ids or {id, errorMessage} objects."""
    out = []
    for item in (record.get("errdex") or {}).get("related") or []:
        if isinstance(item, dict) and item.get("id"):
            label = item.get("errorMessage") or item.get("title") or item.get("slug") or item["id"]
            out.append((str(item["id"]), str(label)))
        elif isinstance(item, str):
            out.append((item, item))
    return out


def names_of(items: list) -> list[str]:
    """Callers / entry points as text, whether stored as strings or objects."""
    out = []
    for item in items or []:
        if isinstance(item, dict):
            name = item.get("qualname") or item.get("function") or item.get("name") or str(item)
            where = item.get("filePath")
            out.append(f"{name} ({where}:{item.get('lineNumber')})" if where else str(name))
        else:
            out.append(str(item))
    return out


def example_fix(record: dict) -> tuple[str | None, str | None, str | None]:
    """(before, after, free text) of `exampleFix`, whichever the record holds."""
    fix = record.get("exampleFix")
    if isinstance(fix, dict):
        return fix.get("before"), fix.get("after"), None
    if isinstance(fix, str) and fix.strip():
        return None, None, fix
    return None, None, None


def short_sha(value: str | None) -> str:
    return (value or "")[:10]


_SHA = re.compile(r"[0-9a-f]{40}")


def version_label(version: str) -> str:
    """A dataset version as shown: commits indexed from a git range by their short sha."""
    return version[:10] if _SHA.fullmatch(version or "") else version


def commit_date(seconds: int | None) -> str:
    """A commit time (unix seconds) as its UTC day."""
    return "" if not seconds else datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d")


def clip(text: str | None, n: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"
