"""Source text of the analysed file's AST nodes: sliced from its lines, not unparsed.

`ast.unparse` was the largest single cost of per-site analysis. While
`analyzing(lines)` is active (the walker sets it once per site, see
`errdex.analyze.site`), `node_text` returns a node's text as written when it
sits on one line and the cut looks right; otherwise, and for nodes built
by the analysis itself (no positions), it falls back to `ast.unparse`. The
two agree as Python: only quotes, spacing and redundant parentheses differ.

The current lines are process-wide state: indexing workers analyse one
site at a time.
"""

from __future__ import annotations

import ast
import math

from errdex.analyze.exprs import expr_key, forget_file
from errdex.extract.scope import dotted_source

_current: list[list[str] | None] = [None]
#: First text seen per structure in the current file, so one call written with
#: different quotes in two places is still listed once (see `call_text`).
_canonical: dict[str, str] = {}
_canonical_of: list[list[str] | None] = [None]


#: Whether the current lines hold no `:=` (then no tree of theirs has a walrus), per `_canonical_of`.
_walrus_free_file: list[bool] = [False]
_walrus_free: list[bool] = [False]


class analyzing:
    """Context in which node positions refer to `lines` (the file's source lines)."""

    __slots__ = ("lines", "saved", "saved_walrus_free")

    def __init__(self, lines: list[str] | None) -> None:
        self.lines = lines
        self.saved: list[str] | None = None
        self.saved_walrus_free = False

    def __enter__(self) -> None:
        self.saved = _current[0]
        self.saved_walrus_free = _walrus_free[0]
        _current[0] = self.lines
        if self.lines is not _canonical_of[0]:
            _canonical.clear()
            _canonical_of[0] = self.lines
            _walrus_free_file[0] = self.lines is not None and ":=" not in "\n".join(self.lines)
            forget_file()
        _walrus_free[0] = _walrus_free_file[0]

    def __exit__(self, *exc: object) -> None:
        _current[0] = self.saved
        _walrus_free[0] = self.saved_walrus_free


def walrus_free() -> bool:
    """True while analysing a file whose source has no `:=`, so no walrus needs looking for."""
    return _walrus_free[0]


def node_text(node: ast.AST) -> str:
    """The node's source text (see module doc)."""
    lines = _current[0]
    if lines is not None:
        text = _slice(lines, node)
        if text is not None:
            return text
    return unparse(node)


#: Constant values `ast.unparse` writes as `repr(value)` (no `u` prefix, no inf/nan rewriting).
_REPR_CONSTANTS = frozenset({int, bool, type(None), str})


def unparse(node: ast.AST) -> str:
    """`ast.unparse(node)`; constants (`x > 16`), names and tuples of them without building an unparser."""
    kind = node.__class__
    if kind is ast.Tuple:   # `x in (8, 16)`, `isinstance(x, (int, float))`: written in parentheses
        parts = [_simple_text(e) for e in node.elts]
        if parts and None not in parts:
            return f"({parts[0]},)" if len(parts) == 1 else "(" + ", ".join(parts) + ")"
    else:
        text = _simple_text(node)
        if text is not None:
            return text
    return ast.unparse(node)


def _simple_text(node: ast.AST) -> str | None:
    """What `ast.unparse` writes for a name, a dotted name or a constant it writes as its `repr`; else None."""
    kind = node.__class__
    if kind is ast.Constant:
        value = node.value
        if getattr(node, "kind", None) is not None:
            return None
        if value.__class__ in _REPR_CONSTANTS or (value.__class__ is float and math.isfinite(value)):
            return repr(value)   # a finite float too: only inf and nan are rewritten
        return None
    if kind is ast.Name:
        return node.id
    if kind is ast.Attribute:
        return dotted_source(node)
    return None


def call_text(node: ast.AST) -> str:
    """`node_text`, but the same for structurally equal nodes of one file (calls are deduplicated by text)."""
    if _current[0] is None:
        return unparse(node)
    key = expr_key(node)
    text = _canonical.get(key)
    if text is None:
        text = _canonical[key] = node_text(node)
    return text


def _slice(lines: list[str], node: ast.AST) -> str | None:
    row = getattr(node, "lineno", None)
    if row is None or row != node.end_lineno or row > len(lines):
        return None
    line = lines[row - 1]
    start, end = node.col_offset, node.end_col_offset
    if line.isascii():
        text = line[start:end]
    else:
        try:
            text = line.encode()[start:end].decode()
        except UnicodeDecodeError:
            return None
    return text if _plausible(node, text) else None


#: Kinds whose bare source text is not what ast.unparse gives as a standalone expression.
_UNPARSED = frozenset({ast.Tuple, ast.NamedExpr, ast.GeneratorExp, ast.Starred, ast.Yield, ast.YieldFrom})


def _plausible(node: ast.AST, text: str) -> bool:
    """Cheap check that the cut is the node (positions inside f-strings can be off)."""
    if not text or text[0].isspace() or text[-1].isspace():
        return False
    kind = type(node)
    if kind in _UNPARSED:
        return False
    if kind is ast.Name:
        return text == node.id
    if kind is ast.Call:
        return text[-1] == ")" and text.count("(") == text.count(")") and text.count("[") == text.count("]")
    if kind is ast.Attribute:
        return text.endswith(node.attr)
    return text.count("(") == text.count(")") and text.count("[") == text.count("]") \
        and text.count("{") == text.count("}")
