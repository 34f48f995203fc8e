"""Arguments a site needs passed: parameters whose default value the path to the site refutes.

`def plan(self, batch, full_v2p=None): ... if full_v2p is not None: assert ...` is
reached only by a call that passes `full_v2p`; a caller that leaves it out (or
passes `None`) never gets there. Read here, in the worker, from the function's
signature and the site's path condition: each top-level term of the condition
that reads one parameter alone, whose default is a literal the term is False
for, and that the function does not change before the site. The dataset stage
(`analyze.reach`) then reads each caller's calls against these.
"""

from __future__ import annotations

import ast

from errdex.analyze.changed import changed_inputs
from errdex.analyze.exprs import memo
from errdex.safe_eval import evaluate

#: The nodes a term may hold: tests of one value against literals (no call, no attribute).
_PLAIN = (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Name, ast.Constant, ast.Load, ast.And, ast.Or, ast.Not,
          ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
          ast.Tuple, ast.List, ast.Set)


def optional_args(scope: ast.AST, condition: str | None, site_line: int, path: list) -> dict[str, dict]:
    """{parameter: {"default": its literal's source, "test": the term, "position": its place among
    the positional parameters after `self`/`cls`, or None for a keyword-only one}}."""
    defaults = memo(scope, "_errdex_literal_defaults", _literal_defaults)   # once per function: its sites share it
    if not defaults or not condition or not any(name in condition for name in defaults):
        return {}
    try:
        tree = ast.parse(condition, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return {}
    terms = tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else [tree]
    plain = condition.isascii()   # offsets count bytes: they index the text only when it is ASCII
    found: dict[str, dict] = {}
    changed: list[str] | None = None
    for term in terms:
        text = condition[term.col_offset:term.end_col_offset] if plain and term.end_lineno == 1 \
            else ast.unparse(term)   # (`get_source_segment` splits the whole condition for each term)
        if not any(name in text for name in defaults):
            continue   # most terms: no walk
        name = _single_name(term)
        if name is None or name not in defaults or name in found:
            continue
        default, position = defaults[name]
        if evaluate(text, {name: ast.literal_eval(default)}) is not False:
            continue
        if changed is None:
            changed = changed_inputs(scope, site_line, path)
        if any(c == name or c.startswith(name + ".") for c in changed):
            continue
        found[name] = {"default": ast.unparse(default), "test": text, "position": position}
    return found


def _single_name(term: ast.expr) -> str | None:
    """The one name a plain test reads (`x is not None`, `mode in ("a", "b")`), else None."""
    names: set[str] = set()
    for node in ast.walk(term):
        if not isinstance(node, _PLAIN):
            return None
        if isinstance(node, ast.Name):
            names.add(node.id)
    return names.pop() if len(names) == 1 else None


def _literal_defaults(scope: ast.AST) -> dict[str, tuple[ast.expr, int | None]]:
    """Parameters with a literal default (`None`, `False`, `0`, `"auto"`), with their positions."""
    args = getattr(scope, "args", None)
    if args is None:
        return {}
    positional = [*args.posonlyargs, *args.args]
    offset = 1 if positional and positional[0].arg in ("self", "cls") else 0
    out: dict[str, tuple[ast.expr, int | None]] = {}
    first_default = len(positional) - len(args.defaults)
    for i, (arg, default) in enumerate(zip(positional[first_default:], args.defaults), first_default):
        if _literal(default):
            out[arg.arg] = (default, i - offset if i >= offset else None)
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is not None and _literal(default):
            out[arg.arg] = (default, None)
    return out


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return False
    return True
