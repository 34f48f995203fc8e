"""The `raised(call, E)` pseudo-call of except-sites, and call listing.

A raise inside `except E:` happens when something in the `try` body raised
an `E`. The candidates are the outermost calls of the try body in source
order (`int(s.strip())` is one call, not two); the fact is their
disjunction, `raised(f(x), E) or raised(g(y), E)` (a later call runs only
when the earlier ones returned, which the `or` already says); an import
statement counts as the `__import__` call it makes, and under a handler that catches a
failed lookup (`KeyError`, `IndexError`, `LookupError`, `Exception`) a subscript read outside
any call is a candidate too (`table[key]` beside `int(value)`). Beyond
`MAX_CANDIDATES` calls the first ones are named and the result is marked
approximate. A try body whose only operation that can fail is `d[k]`,
under `except KeyError`, gives `k not in d`. Only the try body's own
expressions are visited, never the whole function.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from errdex.analyze.exprs import memo
from errdex.analyze.purity import is_pure
from errdex.analyze.source import call_text
from errdex.extract.logcalls import LOGGER_METHODS, is_logger

SEVERAL_CALLS = "the `try` body makes more calls that may raise than are named"
NO_CALL = "the `try` body makes no call to name as the failure"
EARLIER_HANDLER = "an earlier handler of the try (`except {kind}`, line {line}) takes part of what this one catches"
#: With more calls than this in the try body, the earlier handlers' classes are not taken out call
#: by call (a `not raised(call, T)` each) but said to be left out.
MAX_EXCLUDED = 2
#: `from m import n` raises ImportError also when `m` imports but has no `n`, which `__import__('m')`
#: (the call the statement is named by) does not say.
FROM_IMPORT = "a name imported from a module may be what is missing"
MAX_CANDIDATES = 8
#: review 27 #9: `int(rank) % count` under `except Exception` fails for `count == 0` too.
DIVISION = "the `try` body also computes `{division}`, which raises ZeroDivisionError for a zero divisor"

_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


@dataclass(frozen=True, slots=True)
class RaisedCondition:
    """`raised(call, E)` for one handler, with the calls that could have raised."""

    expr: ast.expr
    approx: tuple[str, ...]
    candidates: list[str]
    #: `not raised(call, T)` for each earlier handler's `T` that may catch part of what this one
    #: does (`except ValueError: return` before `except Exception as e: raise ...`): true too here
    excluded: list[ast.expr] = field(default_factory=list)


_NO_CALLS_INSIDE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _outer_call_nodes(node: ast.AST) -> list[ast.Call]:
    """Calls not nested inside another call, in source order (no nested defs)."""
    found: list[ast.Call] = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.__class__
        if kind is ast.Call:
            found.append(current)
            continue
        if kind is ast.Name or kind is ast.Constant or isinstance(current, _NO_CALLS_INSIDE):
            continue
        children: list[ast.AST] = []
        values = current.__dict__
        for name in current._fields:   # operators and contexts (no fields) hold no call
            value = values.get(name)
            if value.__class__ is list:
                children.extend([v for v in value if isinstance(v, ast.AST) and v._fields])
            elif isinstance(value, ast.AST) and value._fields:
                children.append(value)
        children.reverse()   # the first child is visited first
        stack.extend(children)
    return found


def outer_calls(expr: ast.AST) -> list[str]:
    """Source of the outermost calls of an expression; `raised(c, E)` yields `c`."""
    return list(memo(expr, "_errdex_calls", _outer_calls))


def outer_call_texts(expr: ast.AST) -> tuple[str, ...]:
    """`outer_calls` as the memoised tuple (no copy): `memo(expr, "_errdex_calls", outer_call_texts)`."""
    return _outer_calls(expr)


def _outer_calls(expr: ast.AST) -> tuple[str, ...]:
    if isinstance(expr, ast.BoolOp):
        found: list[str] = []
        for value in expr.values:
            found.extend(c for c in outer_calls(value) if c not in found)
        return tuple(found)
    found = []
    for call in _outer_call_nodes(expr):
        if isinstance(call.func, ast.Name) and call.func.id == "raised" and call.args:
            found.extend(c for c in outer_calls(call.args[0]) if c not in found)
            continue
        if isinstance(call.func, ast.Name) and call.func.id == "all" and call.args:
            found.extend(c for c in outer_calls(call.args[0]) if c not in found)
            continue
        text = call_text(call)
        if text not in found:
            found.append(text)
    return tuple(found)


#: Builtins that answer about their argument and do not raise for it: not a failing call.
NEVER_RAISING = frozenset({"isinstance", "issubclass", "callable", "id", "hasattr", "print"})
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _try_body_calls(stmts: list[ast.stmt], lookups: bool = False, attributes: bool = False) -> list[ast.expr]:
    """The try body's candidate culprits: outer calls, or a comprehension holding calls as one.

    `[float(x) for x in xs]` is named whole (its `x` means nothing outside
    it); `isinstance(v, str)` and the like are left out when other calls
    remain, since they do not raise.
    """
    found: list[ast.expr] = []
    for stmt in stmts:
        _culprits(stmt, found, lookups, attributes)
    unique: list[ast.expr] = []
    for node in found:
        if not any(node is u for u in unique):
            unique.append(node)
    kept = [n for n in unique if not _never_raises(n)]
    return kept or unique


def _never_raises(node: ast.expr) -> bool:
    """`isinstance(...)`, `print(...)`, `logger.info(...)`: calls that answer or report, not culprits."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in NEVER_RAISING
    # logging reports a failure to emit and carries on: it does not raise
    return (isinstance(func, ast.Attribute) and func.attr in LOGGER_METHODS
            and isinstance(func.value, (ast.Name, ast.Attribute))
            and is_logger(func.value.id if isinstance(func.value, ast.Name) else func.value.attr))


def _culprits(stmt: ast.stmt, found: list[ast.expr], lookups: bool = False, attributes: bool = False) -> None:
    """Append the outer calls of `stmt` in source order, a comprehension holding calls in their place
    (once), and not the exception a `raise E(...)` builds (see `condition._caught_raises`);
    `lookups`: subscripts read outside a call too; `attributes`: attribute reads (`a.b.c` whole)."""
    stack: list[tuple[ast.AST, ast.expr | None]] = [(stmt, None)]
    while stack:
        current, comprehension = stack.pop()
        kind = current.__class__
        if kind is ast.Call or (lookups and kind is ast.Subscript and current.ctx.__class__ is ast.Load
                                and comprehension is None):
            found.append(comprehension or current)   # repeats of a comprehension are dropped by the caller
            continue
        if (kind is ast.Yield or kind is ast.YieldFrom) and comprehension is None:
            # review 27 #0: what the `with` block of a @contextmanager's caller (or a generator's
            # consumer, through `throw`) raises surfaces at the yield
            found.append(current)
        if attributes and kind is ast.Attribute and current.ctx.__class__ is ast.Load and comprehension is None:
            found.append(current)
            continue
        if kind is ast.Name or kind is ast.Constant or isinstance(current, _NO_CALLS_INSIDE):
            continue
        if kind is ast.Import or kind is ast.ImportFrom:
            found.extend(_import_calls(current))
            continue
        if comprehension is None and isinstance(current, _COMPREHENSIONS):
            comprehension = current
        children = [c for c in ast.iter_child_nodes(current) if c._fields]
        if kind is ast.Raise and current.exc is not None:
            children = [c for c in children if c is not current.exc]
        stack.extend((child, comprehension) for child in reversed(children))


def _import_calls(stmt: ast.Import | ast.ImportFrom) -> list[ast.Call]:
    """An import statement as the `__import__` calls it makes: `import a, b` is `__import__('a')`
    then `__import__('b')`; `from .m import x` is `__import__('.m')` (`from . import x`: `'.x'`).
    So a try block of imports names the import that failed, like any call."""
    if isinstance(stmt, ast.Import):
        modules = [alias.name for alias in stmt.names]
    else:
        dots = "." * (stmt.level or 0)
        modules = [dots + (stmt.module or (stmt.names[0].name if stmt.names else ""))]
    calls = [ast.Call(func=ast.Name("__import__"), args=[ast.Constant(m)], keywords=[]) for m in modules]
    if isinstance(stmt, ast.ImportFrom) and stmt.module:   # `from m import n`: `n` may be missing
        for call in calls:
            call._errdex_from = True   # type: ignore[attr-defined]
    return calls


def _body_calls(node: ast.Try | ast.TryStar) -> list[ast.Call]:
    """The try body's outer calls (kept on the try: they are its own descendants, no reference cycle)."""
    return _try_body_calls(node.body)


def _body_calls_and_lookups(node: ast.Try | ast.TryStar) -> list[ast.expr]:
    """The try body's outer calls and the subscripts read outside them, in source order: under
    `except KeyError` (or `IndexError`, `LookupError`, ...) `d[k]` may be what failed."""
    return _try_body_calls(node.body, lookups=True)


def _body_calls_and_attributes(node: ast.Try | ast.TryStar) -> list[ast.expr]:
    """The try body's outer calls and the attribute reads outside them: under `except AttributeError`
    `cfg.media_proc_cfg` may be what failed."""
    return _try_body_calls(node.body, attributes=True)


def _body_culprits(node: ast.Try | ast.TryStar) -> list[ast.expr]:
    """Calls, subscripts and attribute reads: a handler for both kinds of failure."""
    return _try_body_calls(node.body, lookups=True, attributes=True)


#: Classes that catch a ZeroDivisionError.
_DIVISION_CATCHERS = frozenset({"ZeroDivisionError", "ArithmeticError", "Exception", "BaseException"})
_DIVIDES = (ast.Div, ast.FloorDiv, ast.Mod)


def _division(node: ast.Try | ast.TryStar) -> str | None:
    """The first numeric division (`/`, `//`, `%`) of the try body, as written; a `%` of a string
    literal formats, it does not divide."""
    for stmt in node.body:
        for sub in ast.walk(stmt):
            if sub.__class__ is ast.BinOp and isinstance(sub.op, _DIVIDES) and not (
                    isinstance(sub.left, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(sub.left, "value", ""), str)):
                return ast.unparse(sub)
    return None


#: Classes a failing `d[k]` raises, or catches it.
_LOOKUP_CATCHERS = frozenset({"KeyError", "IndexError", "LookupError", "Exception", "BaseException"})
#: Classes a failing `from m import n` raises, or catches it (not ModuleNotFoundError, which a
#: missing name does not raise).
_IMPORT_CATCHERS = frozenset({"ImportError", "Exception", "BaseException"})


def _catches(handler: ast.ExceptHandler, classes: frozenset[str]) -> bool:
    """Whether the handler is bare or names (as `E` or `mod.E`) one of `classes`."""
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((k.id if isinstance(k, ast.Name) else k.attr if isinstance(k, ast.Attribute) else None) in classes
               for k in kinds)


def _names(handler: ast.ExceptHandler, name: str) -> bool:
    """Whether the handler names the class `name` itself (`except (KeyError, AttributeError)`)."""
    if handler.type is None:
        return False
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((k.id if isinstance(k, ast.Name) else k.attr if isinstance(k, ast.Attribute) else None) == name
               for k in kinds)


def raised_condition(node: ast.Try | ast.TryStar, handler: ast.ExceptHandler) -> RaisedCondition:
    """The `raised(call, E)` fact for entering `handler` of `node`."""
    kind: ast.expr = handler.type if handler.type is not None else ast.Name("BaseException")
    calls = memo(node, "_errdex_try_calls", _body_calls)   # every except-site of the try asks again
    attributes = _names(handler, "AttributeError")   # named, not only caught: under `except Exception` every read would be
    lookups = (bool(calls) or attributes) and _catches(handler, _LOOKUP_CATCHERS)   # `d[k]` beside them may have failed
    if attributes:
        calls = memo(node, "_errdex_try_culprits", _body_culprits) if lookups else \
            memo(node, "_errdex_try_attributes", _body_calls_and_attributes)
    elif lookups:
        calls = memo(node, "_errdex_try_lookups", _body_calls_and_lookups)
    approx: tuple[str, ...] = ()
    candidates: list[str] = []
    culprits: list[ast.expr] = []
    for call in calls:
        text = call_text(call)
        if text in candidates:
            continue
        if len(candidates) == MAX_CANDIDATES:
            approx = (SEVERAL_CALLS,)
            break
        candidates.append(text)
        culprits.append(call)
    if not culprits:
        lookup = _missing_key(node.body, handler)
        if lookup is not None:
            return RaisedCondition(lookup, (), [])
        culprits = [_first_expression(node.body)]
        approx = (NO_CALL,)
    if _catches(handler, _IMPORT_CATCHERS) and any(getattr(c, "_errdex_from", False) for c in culprits):
        approx = (*approx, FROM_IMPORT)
    if _catches(handler, _DIVISION_CATCHERS):
        division = memo(node, "_errdex_try_division", _division)
        if division is not None:
            approx = (*approx, DIVISION.format(division=division))
    facts = [ast.Call(func=ast.Name("raised"), args=[culprit, kind], keywords=[]) for culprit in culprits]
    expr = facts[0] if len(facts) == 1 else ast.BoolOp(op=ast.Or(), values=facts)
    # Only one call of the body raises: the others did not, so no culprit raised an earlier T.
    earlier = _earlier_kinds(node, handler, kind)
    if earlier and len(culprits) > MAX_EXCLUDED:
        first = earlier[0]
        return RaisedCondition(expr, (*approx, EARLIER_HANDLER.format(kind=ast.unparse(first), line=first.lineno)),
                               candidates)
    if len(earlier) > 1:   # `not raised(f(), (ValueError, KeyError))`: one fact per call
        earlier = [ast.Tuple(elts=[e for k in earlier for e in (k.elts if isinstance(k, ast.Tuple) else [k])],
                             ctx=ast.Load())]
    excluded = [ast.UnaryOp(op=ast.Not(), operand=ast.Call(func=ast.Name("raised"), args=[culprit, earlier[0]],
                                                           keywords=[]))
                for culprit in culprits] if earlier else []
    return RaisedCondition(expr, approx, candidates, excluded)


def _earlier_kinds(node: ast.Try | ast.TryStar, handler: ast.ExceptHandler, kind: ast.expr) -> list[ast.expr]:
    """The classes of the handlers before `handler` that may catch what it catches (review 21: an
    earlier `except ValueError: return None` was not taken out of a later `except Exception`)."""
    out = []
    for earlier in node.handlers:
        if earlier is handler:
            break
        if earlier.type is not None and _may_overlap(earlier.type, kind):
            out.append(earlier.type)
    return out


def _may_overlap(first: ast.expr, second: ast.expr) -> bool:
    """Whether an exception may be an instance of both: False only for builtin classes neither of
    which derives from the other (`KeyError` and `ValueError`); a class of the code's may derive
    from either."""
    for a in first.elts if isinstance(first, ast.Tuple) else [first]:
        for b in second.elts if isinstance(second, ast.Tuple) else [second]:
            x, y = _builtin_class(a), _builtin_class(b)
            if x is None or y is None or issubclass(x, y) or issubclass(y, x):
                return True
    return False


def _builtin_class(node: ast.expr) -> type | None:
    value = getattr(builtins, node.id, None) if isinstance(node, ast.Name) else None
    return value if isinstance(value, type) and issubclass(value, BaseException) else None


def _class_like(node: ast.expr) -> bool:
    """A class, by its name: `cls` (a classmethod's own class) or a CapWords name or attribute
    (`Color`, `enums.Color`); an ALL_CAPS name is a constant, a mapping more often than not."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name == "cls" or (name[:1].isupper() and not name.isupper())


def _missing_key(stmts: list[ast.stmt], handler: ast.ExceptHandler) -> ast.expr | None:
    """`k not in d` when the try body's one operation that can fail is `d[k]` and `E` is KeyError.

    Read by the mapping protocol: `d[k]` raises KeyError exactly when `k`
    is not a key of `d` (a mapping with `__missing__`, such as a
    defaultdict, never raises it, and is not what such code catches).
    """
    if not (isinstance(handler.type, ast.Name) and handler.type.id == "KeyError"):
        return None
    nodes = [n for stmt in stmts for n in ast.walk(stmt)]
    if any(isinstance(n, (*_COMPREHENSIONS, *_NO_CALLS_INSIDE)) for n in nodes):
        return None   # a name bound inside would mean nothing outside
    subscripts = [n for n in nodes if isinstance(n, ast.Subscript)]
    if len(subscripts) != 1 or not isinstance(subscripts[0].ctx, ast.Load):
        return None
    lookup = subscripts[0]
    if isinstance(lookup.slice, ast.Slice) or not (is_pure(lookup.value) and is_pure(lookup.slice)):
        return None
    if _class_like(lookup.value):
        return None   # `Color[name]` looks an Enum member up by name: `in` tests members, not names
    return ast.Compare(left=lookup.slice, ops=[ast.NotIn()], comparators=[lookup.value])


def _first_expression(stmts: list[ast.stmt]) -> ast.expr:
    """What the first statement evaluates (`d[k]` for `x = d[k]`)."""
    for stmt in stmts:
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.expr):
            return value
        test = getattr(stmt, "test", None)
        if isinstance(test, ast.expr):
            return test
    return ast.Constant(None)
