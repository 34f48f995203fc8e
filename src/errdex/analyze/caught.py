"""A raise inside a `try` of its own function may never leave that function as raised.

`try: ... raise ValueError(...) ... except ValueError: raise AssertionError(...)` turns the
error into another class; `except Exception: log(...)` handles it, and the function goes on.
The walker notes the handlers around each site (innermost first, with what each does);
once the class's ancestors are known (`records`), the first handler that catches it says
what a caller sees.
"""

from __future__ import annotations

import ast

from errdex.extract.handlers import catches, caught_names, error_names, outcome


def enclosing_handlers(path: list) -> list[tuple[int, tuple[str, ...], str, str | None]]:
    """(line, caught class names, outcome, new class) of the handlers of each `try` whose body holds
    the site, innermost try first. Outcome: `reraised` (a bare `raise` ends it), `converted` (it ends
    raising another error: its class in the last item), or `handled` (anything else)."""
    out = []
    for node, inner in reversed(list(zip(path, path[1:]))):
        if not isinstance(node, (ast.Try, ast.TryStar)) or not any(inner is s for s in node.body):
            continue
        for handler in node.handlers:
            out.append((handler.lineno, caught_names(handler), *outcome(handler)))
    return out


def caught_by(handlers: list, error_class: str | None, ancestors: list[str]) -> dict | None:
    """The first handler around the site that catches its class, when it does not re-raise it as
    it is: {"line", "handler", "outcome", "into"}; None when the error leaves the function."""
    if not handlers or not error_class:
        return None
    names, under_exception = error_names(error_class, ancestors)
    for line, caught, outcome_, into in handlers:
        if not catches(caught, names, under_exception):
            continue
        if outcome_ == "reraised":
            return None
        shown = caught[0] if len(caught) == 1 else "(" + ", ".join(caught) + ")"
        return {"line": line, "handler": f"except {shown}", "outcome": outcome_, "into": into}
    return None
