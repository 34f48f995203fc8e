"""Callers that check a site's own test before each call they make: `errdex.checkedBy`.

A site in `kernel(x, n)` raised when `n > 512` cannot be reached from `run(t, size)` when every
call `run` makes to `kernel` comes after `if size > 512: raise ...` (or `assert size <= 512`) and
passes `size` as `n`: that caller is not on the site's way, nor an entry point through it (review 24:
callers that already test the condition were named as the way to the site, and as the place to add
the check). Decided from facts the extraction keeps (`FunctionFacts.checks`, `.params`): the
site's own test, its parameters bound to each call's arguments, must be refuted by a check the
caller holds there, compared as canonical texts (`extract.checked_calls.check_conjuncts`).

Nothing is claimed when the test reads a value the function assigns before the site (its feeding
lines), a parameter the call leaves to its default, a name other than the parameters, builtins and
modules, or when any call of the caller to the function is not one of the checked ones.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterable, Mapping

from errdex.analyze.codegen import assigned
from errdex.extract.checked_calls import check_conjuncts
from errdex.models import FunctionFacts

_BUILTINS = frozenset(dir(builtins))


def refutable_test(own_text: str | None, params: tuple[str, ...], feeding: list[str] | None) -> ast.expr | None:
    """The site's own test, parsed, when it reads a parameter of its function that no feeding line
    assigns before the site; else None (nothing a caller's check can speak for)."""
    if not own_text or not params:
        return None
    try:
        test = ast.parse(own_text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names = {n.id for n in ast.walk(test) if n.__class__ is ast.Name}
    read = names.intersection(p.lstrip("*") for p in params)
    if not read or any(read & assigned(line) for line in feeding or ()):
        return None
    return test


def refute_key(test: ast.expr | None) -> tuple[str, ...] | None:
    """What a site's callers' checks are compared with, as a cache key part (`dataset.reach_key`)."""
    return None if test is None else tuple(check_conjuncts(test))


def checking_callers(qual: str, test: ast.expr, callers: Iterable[str], functions: Mapping[str, FunctionFacts],
                     target: Callable[[str], str | tuple[str, ...] | None]) -> frozenset[str]:
    """The callers of `qual` each of whose calls to it is made where a check refutes `test`."""
    fn = functions.get(qual)
    if fn is None:
        return frozenset()
    module = qual.rpartition(".")[0] if fn.cls is None else fn.cls.rpartition(".")[0]
    short = qual.rpartition(".")[2]
    names = {short, fn.cls.rpartition(".")[2]} if short == "__init__" and fn.cls else {short}
    out = set()
    for caller in callers:
        cfn = functions.get(caller)
        if cfn is None or not cfn.checks:
            continue
        same_module = caller.startswith(module + ".")
        if _refuted_by(cfn, qual, names, fn, test, same_module, target):
            out.add(caller)
    return frozenset(out)



def _refuted_by(caller: FunctionFacts, qual: str, names: set[str], fn: FunctionFacts, test: ast.expr,
                same_module: bool, target) -> bool:
    """Whether every way `caller` names the function is a checked call whose checks refute `test`."""
    reaching = False
    for name in (*caller.calls, *caller.passes, *caller.supers):
        if name.rpartition(".")[2] not in names:
            continue
        calls = caller.checks.get(name)
        if calls is None:
            return False   # a call (or a pass, a super() call) of that name with no check before it
        found = target(name)
        if qual not in (found if found.__class__ is tuple else (found,)):
            return False   # another function of that name: not sorted out here
        reaching = True
        for call in calls:
            if not _refutes(call, fn, test, same_module):
                return False
    return reaching


def _refutes(call: tuple, fn: FunctionFacts, test: ast.expr, same_module: bool) -> bool:
    receiver, args, keywords, holding = call
    bound = _bind(fn, receiver, args, keywords)
    if bound is None:
        return False
    parts = test.values if test.__class__ is ast.BoolOp and test.op.__class__ is ast.And else [test]
    holding = set(holding)
    params = {p.lstrip("*") for p in fn.params if p != "*"}
    for part in parts:   # one conjunct refuted refutes the test
        put = _substituted(part, bound, params, same_module)
        if put is not None and set(check_conjuncts(put, negate=True)) <= holding:
            return True
    return False


def _bind(fn: FunctionFacts, receiver: str, args: tuple[str, ...], keywords: tuple) -> dict[str, str] | None:
    """Parameter -> argument text for one call; None when the call's shape is not understood."""
    params = fn.params
    star = next((i for i, p in enumerate(params) if p.startswith("*")), len(params))
    positional = list(params[:star])
    bound: dict[str, str] = {}
    words = (fn.binding or "").split()
    if fn.cls is not None and "static" not in words and positional:
        first, positional = positional[0], positional[1:]
        if fn.qualname.endswith((".__init__", ".__new__")):
            pass   # `Cls(...)`: a new instance, named by nothing in the caller
        elif "class" in words or (receiver and not receiver.rpartition(".")[2][:1].isupper()):
            if receiver:
                bound[first] = receiver
        else:
            return None   # `Cls.method(obj, ...)`, or no receiver: the positions are not sure
    if len(args) > len(positional):
        return None   # extra positional arguments go to `*args`: not what is bound here
    bound.update(zip(positional, args))
    named = set(positional) | set(params[star + 1:])
    for key, value in keywords:
        if key not in named:
            return None
        bound[key] = value
    return bound


def _substituted(part: ast.expr, bound: dict[str, str], params: set[str], same_module: bool) -> ast.expr | None:
    """The test with parameters replaced by the caller's arguments; None when it reads a parameter
    the call does not pass, or a name whose meaning may differ in the caller's module."""
    values: dict[str, ast.expr] = {}
    heads = _heads(part)
    for node in ast.walk(part):
        if node.__class__ is not ast.Name or node.id in values:
            continue
        if node.id in params:
            text = bound.get(node.id)
            if text is None:
                return None   # left to its default, or not passed in a way read here
            try:
                values[node.id] = ast.parse(f"({text})", mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
        elif not (node.id in _BUILTINS or same_module or id(node) in heads):
            return None
    return _Put(values).visit(ast.parse(ast.unparse(part), mode="eval").body)


class _Put(ast.NodeTransformer):
    """Names replaced by the expressions bound to them."""

    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.values.get(node.id, node)


def _heads(part: ast.expr) -> set[int]:
    """Names read as the base of an attribute chain (`torch.float16`, `math.inf`): modules, most
    likely, meaning the same in either module."""
    out = set()
    for node in ast.walk(part):
        if node.__class__ is ast.Attribute:
            base = node.value
            while base.__class__ is ast.Attribute:
                base = base.value
            if base.__class__ is ast.Name:
                out.add(id(base))
    return out
