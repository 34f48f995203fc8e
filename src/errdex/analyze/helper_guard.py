"""A helper call's trigger condition: the path to the call, and the helper's own check with the
call's arguments in place of its parameters.

`def fail_if(strict, msg): if strict: raise ValueError(msg)` raises at `fail_if(n > 3, "big")`
only when `n > 3`: the call site's path alone would say it always does. The helper's condition
was worked out where the helper is (over its parameters); here each parameter becomes the
argument's source text. A check that reads anything but its parameters (a global, an attribute
of its own object) or a parameter the call leaves to its default cannot be written at the call,
so the condition is the path alone and says it is not exact.
"""

from __future__ import annotations

import ast
import builtins
import copy

from errdex.analyze.condexpr import UNBOUND_HELPER_CHECK
from errdex.analyze.simplify import conjoin, render, simplify
from errdex.models import ErrorSite, HelperDef

_BUILTINS = frozenset(dir(builtins)) | {"raised"}


def add_helper_check(site: ErrorSite, helper: HelperDef | None, sources: dict[str, str]) -> None:
    """Join the helper's own check, bound to the call's arguments (`sources`), to the call site's condition."""
    check = helper.site.condition if helper is not None else None
    if check is None or check == "True" or site.condition is None:
        return
    bound = bound_check(check, helper.params, sources)
    if bound is None:
        _not_exact(site, UNBOUND_HELPER_CHECK.format(helper=helper.qualname.rpartition('.')[2], check=check))
        return
    site.condition = with_helper_check(site.condition, bound)
    site.guard = with_helper_check(site.guard, bound)
    if helper.site.condition_exact is False:
        _not_exact(site, f"the helper's own check: {helper.site.condition_reason}")


def note_earlier_checks(sites: list[ErrorSite], through_helpers: list[ErrorSite]) -> None:
    """A site after a call to a checking helper in its function is reached only if that check
    passed, and the path walk does not follow into the helper: such a condition is not exact.

    `_check(a, "..."); _check(b, "...")` raises at the second call only when `a` held. The
    check is named by its call's line; whether the call lies on the site's own path is not
    asked (an earlier call in another branch also makes the condition not exact).
    """
    calls: dict[tuple[str, str], list[ErrorSite]] = {}
    for call in through_helpers:
        calls.setdefault((call.file_path, call.function), []).append(call)
    for site in sites:
        if not site.condition_exact:
            continue
        earlier = [c for c in calls.get((site.file_path, site.function), ()) if c.line < site.line]
        if earlier:
            first = min(earlier, key=lambda c: c.line)
            name = (first.helper or "").rpartition(".")[2] or "a checking helper"
            _not_exact(site, f"the check of an earlier call to {name} (line {first.line}) is not followed")


def _not_exact(site: ErrorSite, reason: str) -> None:
    site.condition_exact = False
    site.condition_reason = f"{site.condition_reason}; {reason}" if site.condition_reason else reason


def bound_check(check: str, params: list[str], sources: dict[str, str]) -> str | None:
    """`check` (over the helper's parameters) with each parameter replaced by the call's argument
    (`sources`: by position as "0", "1"... or by keyword), or None when that cannot be written."""
    try:
        tree = ast.parse(check, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    by_param: dict[str, ast.expr] = {}
    for name in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - _BUILTINS:
        if name not in params:
            return None   # the helper reads a name of its own
        source = sources.get(str(params.index(name))) or sources.get(name)
        if source is None or source.startswith("*"):
            return None   # left to its default, or spread from a sequence
        try:
            by_param[name] = ast.parse(source, mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            return None
    return render(simplify(_Bind(by_param).visit(tree)))


def with_helper_check(path: str | None, check: str) -> str:
    """The call site's path condition and the bound helper check, both holding."""
    if path is None or path == "True":
        return check
    return render(simplify(conjoin([ast.parse(path, mode="eval").body, ast.parse(check, mode="eval").body])))


class _Bind(ast.NodeTransformer):
    def __init__(self, by_param: dict[str, ast.expr]) -> None:
        self.by_param = by_param

    def visit_Name(self, node: ast.Name) -> ast.expr:
        found = self.by_param.get(node.id)
        return node if found is None else copy.deepcopy(found)   # each use its own node
