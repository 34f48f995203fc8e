"""A raise inside a `try` of its own function may never leave that function as raised.

`try: ... raise ValueError(...) ... except ValueError: raise AssertionError(...)` turns the
error into another class; `except Exception: log(...)` handles it, and the function goes on.
The walker notes the handlers around each site (innermost first, with what each does);
once the class's ancestors are known (`records`), the first handler that catches it says
what a caller sees.
"""

from __future__ import annotations

import ast

#: Classes a handler for `Exception` does not catch.
_BASE_ONLY = frozenset({"BaseException", "SystemExit", "KeyboardInterrupt", "GeneratorExit"})


def enclosing_handlers(path: list) -> list[tuple[int, tuple[str, ...], str, str | None]]:
    """(line, caught class names, outcome, new class) of the handlers of each `try` whose body holds
    the site, innermost try first. Outcome: `reraised` (a bare `raise` ends it), `converted` (it ends
    raising another error: its class in the last item), or `handled` (anything else)."""
    out = []
    for node, inner in reversed(list(zip(path, path[1:]))):
        if not isinstance(node, (ast.Try, ast.TryStar)) or not any(inner is s for s in node.body):
            continue
        for handler in node.handlers:
            out.append((handler.lineno, _caught(handler), *_outcome(handler)))
    return out


def _caught(handler: ast.ExceptHandler) -> tuple[str, ...]:
    if handler.type is None:
        return ("BaseException",)
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return tuple(k.id if isinstance(k, ast.Name) else k.attr if isinstance(k, ast.Attribute) else "?" for k in kinds)


def _outcome(handler: ast.ExceptHandler) -> tuple[str, str | None]:
    last = handler.body[-1] if handler.body else None
    if isinstance(last, ast.Raise):
        if last.exc is None or (isinstance(last.exc, ast.Name) and last.exc.id == handler.name):
            return "reraised", None
        exc = last.exc.func if isinstance(last.exc, ast.Call) else last.exc
        name = exc.id if isinstance(exc, ast.Name) else exc.attr if isinstance(exc, ast.Attribute) else None
        return "converted", name
    return "handled", None


def caught_by(handlers: list, error_class: str | None, ancestors: list[str]) -> dict | None:
    """The first handler around the site that catches its class, when it does not re-raise it as
    it is: {"line", "handler", "outcome", "into"}; None when the error leaves the function."""
    if not handlers or not error_class:
        return None
    own = error_class.rpartition(".")[2]
    names = {own, *(a.rpartition(".")[2] for a in ancestors)}
    # `except Exception` catches all but BaseException itself, SystemExit, KeyboardInterrupt and GeneratorExit
    under_exception = own != "BaseException" and names.isdisjoint(_BASE_ONLY - {"BaseException"})
    for line, caught, outcome, into in handlers:
        if names.isdisjoint(caught) and "BaseException" not in caught and not ("Exception" in caught and under_exception):
            continue
        if outcome == "reraised":
            return None
        shown = caught[0] if len(caught) == 1 else "(" + ", ".join(caught) + ")"
        return {"line": line, "handler": f"except {shown}", "outcome": outcome, "into": into}
    return None
