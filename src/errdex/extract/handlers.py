"""What an `except` clause does with the error it catches, read from its syntax alone.

Two readers need it: a raise inside a `try` of its own function (`analyze.caught`:
does the error leave the function?) and a call inside a `try` (the call graph:
does an error raised below reach the callers above?). Names are compared by
their last dotted part, as the source writes them (`except errors.ShapeError`).
"""

from __future__ import annotations

import ast

from errdex.extract.scope import own_nodes

#: Classes a handler for `Exception` does not catch.
BASE_ONLY = frozenset({"BaseException", "SystemExit", "KeyboardInterrupt", "GeneratorExit"})

#: (class names the handler catches, True when it stops the error: it neither re-raises it nor may)
Handler = tuple[tuple[str, ...], bool]


def caught_names(handler: ast.ExceptHandler) -> tuple[str, ...]:
    """`except (A, m.B)` -> ("A", "B"); a bare `except:` catches BaseException."""
    if handler.type is None:
        return ("BaseException",)
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return tuple(k.id if isinstance(k, ast.Name) else k.attr if isinstance(k, ast.Attribute) else "?" for k in kinds)


def outcome(handler: ast.ExceptHandler) -> tuple[str, str | None]:
    """How the handler ends: `reraised` (a bare `raise`, or `raise e` of the caught error),
    `converted` (it raises another error: its class name second) or `handled`."""
    last = handler.body[-1] if handler.body else None
    if isinstance(last, ast.Raise):
        if _reraises(last, handler):
            return "reraised", None
        exc = last.exc.func if isinstance(last.exc, ast.Call) else last.exc
        name = exc.id if isinstance(exc, ast.Name) else exc.attr if isinstance(exc, ast.Attribute) else None
        return "converted", name
    return "handled", None


def stops(handler: ast.ExceptHandler) -> bool:
    """The caught error never leaves the handler as it is: no `raise` of it anywhere in the body
    (`if retry: raise` lets it through on some calls, so that handler does not stop it)."""
    return not any(isinstance(node, ast.Raise) and _reraises(node, handler) for node in own_nodes(handler.body))


def _reraises(node: ast.Raise, handler: ast.ExceptHandler) -> bool:
    """A bare `raise`, or `raise e` of the error the handler caught as `e`."""
    return node.exc is None or (isinstance(node.exc, ast.Name) and node.exc.id == handler.name)


def error_names(error_class: str, ancestors: list[str] | tuple[str, ...]) -> tuple[frozenset[str], bool]:
    """The names a handler may catch an error of this class by, and whether `except Exception` catches it."""
    own = error_class.rpartition(".")[2]
    names = frozenset({own, *(a.rpartition(".")[2] for a in ancestors)})
    return names, own != "BaseException" and names.isdisjoint(BASE_ONLY - {"BaseException"})


def catches(caught: tuple[str, ...], names: frozenset[str], under_exception: bool) -> bool:
    return not names.isdisjoint(caught) or "BaseException" in caught or ("Exception" in caught and under_exception)


def chain_stops(chain: tuple[Handler, ...], names: frozenset[str], under_exception: bool) -> bool:
    """The first handler of `chain` (innermost try first) that catches the error stops it."""
    for caught, stopping in chain:
        if catches(caught, names, under_exception):
            return stopping
    return False
