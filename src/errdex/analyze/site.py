"""Per-site local analysis, run inside the indexing workers where the AST is at hand.

Fills an ErrorSite's trigger condition and feeding values from its enclosing
function; the cross-file analysis (callers, related errors, prose) runs later
on records.
"""

from __future__ import annotations

import ast

from errdex.analyze.caught import enclosing_handlers
from errdex.analyze.changed import changed_inputs, reads_changed
from errdex.analyze.codegen import assigned, header_reads, is_header, line_reads, loop_targets, names_in, root_names_in
from errdex.analyze.condition import trigger_condition
from errdex.analyze.exprs import memo
from errdex.analyze.feeding import feeding_values
from errdex.analyze.flow import free_names
from errdex.analyze.names import block_bound_names, parameter_names, text_reads
from errdex.analyze.optional_args import optional_args
from errdex.analyze.simplify import only_unordered
from errdex.analyze.source import analyzing, node_text
from errdex.models import ErrorSite, Placeholder



def analyze_site(scope: ast.AST, path: list, site: ErrorSite, lines: list[str] | None = None) -> None:
    """Trigger condition and the assignments feeding it and the message's placeholders.

    `lines` (the file's source lines) lets texts be cut from the source instead of unparsed.
    """
    with analyzing(lines):
        _analyze(scope, path, site)


def _analyze(scope: ast.AST, path: list, site: ErrorSite) -> None:
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        site.condition, site.guard, site.condition_exact = "True", "True", False
        site.condition_reason = "raised in a class body"
        return
    cond = trigger_condition(scope, path)
    site.condition = cond.expr
    site.guard = cond.guard
    site.holds = cond.holds
    site.unordered = cond.exact and _unordered_only(cond.expr)   # not where stale tests meet (approximate)
    site.condition_exact = cond.exact
    site.condition_reason = cond.reason
    site.condition_calls = list(cond.calls)
    # Feed the site's own guard, not every earlier check: as expressions, so what they read is
    # taken whole (`self.group_size` needs `self.group_size = ...`, not a local `group_size`).
    names = {cond.guard} if cond.guard else set()   # `feeding._needed` parses each once
    for seg in site.message.segments:
        if isinstance(seg, Placeholder) and seg.expr:
            names.add(seg.expr)
    if names:
        site.feeding = feeding_values(scope, path, names)
    site.loops = _loops(path)
    site.handlers = enclosing_handlers(path)
    in_function = isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
    if in_function:
        site.optional_args = optional_args(scope, cond.expr, site.line, path)
    if cond.guard and in_function:
        site.unfed = _unfed_locals(scope, cond.guard, site.feeding, site.loops)
        if site.unfed:   # a local import is no value to set: the snippet imports it too
            imports = memo(scope, "_errdex_imports", local_imports)
            wanted = [imports[name] for name in site.unfed if name in imports]
            if wanted:
                site.unfed = [name for name in site.unfed if name not in imports]
                site.feeding = [*dict.fromkeys(wanted), *site.feeding]
    reads_input = bool(cond.guard) and _reads_a_parameter(scope, cond.guard, site.feeding)
    if cond.guard and in_function and not reads_input:
        site.no_input = True   # module state, or values the function makes from nothing a caller passes
    if reads_input and in_function and site.error_type == "assertion":
        site.checks_args = _checks_arguments(scope, cond.guard)
    if reads_input:
        changed = changed_inputs(scope, site.line, path)
        if changed:   # only those the own guard or its feeding values read
            site.changed = reads_changed(text_reads((cond.guard, *site.feeding)), changed)


def _unfed_locals(scope: ast.FunctionDef | ast.AsyncFunctionDef, guard: str, feeding: list[str],
                  loops: list[str]) -> list[str]:
    """Names the guard or its feeding lines read that the function binds but no feeding line
    assigns (nor a loop header around the site): values only the function has."""
    reads = set(names_in(guard))
    made: set[str] = set()
    for line in feeding:
        if is_header(line):
            reads |= header_reads(line)
            made |= loop_targets(line)
        else:
            reads |= line_reads(line)
            made |= assigned(line)
    reads = {n for n in reads if "." not in n} - made - parameter_names(scope)
    for header in loops:
        reads -= loop_targets(header)
    if not reads:
        return []
    bound = memo(scope, "_errdex_bound", bound_in)   # once per function: its sites share it
    found = reads & bound
    if found:   # an attribute's name is no local (review 18: `model_path` of `case.server_args.model_path`)
        found &= root_names_in(guard).union(*(root_names_in(line) for line in feeding))
    if found:   # a comprehension's own targets (`item` of `all(... for item in items)`) are no local's value
        found -= _comprehension_targets((guard, *feeding))
    return sorted(found)


def _comprehension_targets(texts) -> set[str]:
    """Names bound by the comprehensions and lambdas inside these texts (parsed only when one holds
    `for ` or `lambda`: most guards hold neither)."""
    out: set[str] = set()
    for text in texts:
        if "for " not in text and "lambda" not in text:
            continue
        try:
            tree = ast.parse(text.strip())   # a guard, an assignment or an `if` block (a loop header fails: skipped)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.comprehension):
                out.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
            elif isinstance(node, ast.Lambda):
                out.update(a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
    return out


def bound_in(scope: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    return block_bound_names(scope.body)


def local_imports(scope: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Each name an `import` inside the function binds (not in a nested def), with that import
    written for it alone (`from a import b as c`); a name imported twice, differently, is left out."""
    found: dict[str, str] = {}
    clashes: set[str] = set()
    stack: list[ast.AST] = list(scope.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not (isinstance(node, ast.ImportFrom) and node.level):
            for alias in node.names:
                if alias.name == "*":
                    continue
                name = alias.asname or alias.name.partition(".")[0]
                as_ = f" as {alias.asname}" if alias.asname else ""
                text = f"from {node.module} import {alias.name}{as_}" if isinstance(node, ast.ImportFrom) \
                    else f"import {alias.name}{as_}"
                if found.setdefault(name, text) != text:
                    clashes.add(name)
            continue
        stack.extend(ast.iter_child_nodes(node))
    for name in clashes:
        del found[name]
    return found


def _reads_a_parameter(scope: ast.AST, guard: str, feeding: list[str]) -> bool:
    """A cheap first look (names by regex, cached per text): most guards read no parameter the
    function could have changed, and need no walk of its statements."""
    params = parameter_names(scope)
    return bool(params) and any(not params.isdisjoint(names_in(text)) for text in (guard, *feeding))


def _checks_arguments(scope: ast.FunctionDef | ast.AsyncFunctionDef, guard: str) -> bool:
    """Whether the guard reads parameters (not `self`/`cls`) and no other local of the function:
    `assert x.ndim == 2` checks an input; `assert self.ready` or `assert n > 0` after `n = ...` do not.
    Module names (`torch`, constants) may be read besides."""
    try:
        tree = ast.parse(guard.strip(), mode="eval")
    except SyntaxError:
        return False
    read = free_names(tree.body)
    params = parameter_names(scope) - {"self", "cls"}
    if read.isdisjoint(params) or "self" in read or "cls" in read:
        return False
    own = memo(scope, "_errdex_bound", bound_in)
    return read.isdisjoint(own - params)


def _loops(path: list) -> list[str]:
    """The headers of the `for` loops whose body holds the site (`for req in reqs`), outermost
    first: the names they bind are read at the site without an assignment to show."""
    out = []
    for node, inner in zip(path, path[1:]):
        if isinstance(node, (ast.For, ast.AsyncFor)) and any(inner is s for s in node.body):
            kind = "async for" if isinstance(node, ast.AsyncFor) else "for"
            out.append(f"{kind} {node_text(node.target)} in {node_text(node.iter)}")
    return out


def _unordered_only(condition: str) -> bool:
    """Whether only a NaN meets `condition` (see `only_unordered`); read from its text, since few
    conditions hold a negated order test."""
    if "not " not in condition or ("<" not in condition and ">" not in condition):
        return False
    try:
        tree = ast.parse(condition, mode="eval").body
    except SyntaxError:
        return False
    return only_unordered(tree)
