"""The example fix: the call unguarded, then guarded at the caller, with a test a caller can write.

The guard lets through every call off the site's path (`off_path`; of a long path, every call off its tests
nearest the site, so it may turn away some calls that would not raise), checks every element when the test
reads what a loop around the site binds (`over_loops`), and writes a local bound once to a plain
value as that value (`with_values`): a caller has the function's arguments, not its locals.
It never lets a call through that raises at the site.
"""

from __future__ import annotations

import ast
import re

from errdex.analyze.codegen import (
    assigned,
    feeding_for,
    header_reads,
    imports_needed,
    is_block,
    is_header,
    loop_targets,
    names_in,
    plain_assignment,
    reads_clock,
)
from errdex.analyze.condexpr import Condition, and_operand, nearest_conjuncts, negated_source, split_conjuncts
from errdex.analyze.changed import reads_changed
from errdex.analyze.names import dotted, read_chains, text_reads


#: Calls a value may make and still be written into a caller's guard: they read, and answer the same.
_PLAIN_CALLS = frozenset({"len", "int", "float", "str", "bool", "abs", "min", "max", "tuple", "sorted", "round",
                          "getattr", "hasattr", "isinstance", "type"})
#: Reads a caller may repeat: the environment, a path's state, a mapping's lookup, a string's or a
#: tensor's own view of itself (`mode = os.environ.get("MODE", "all")` -> the guard reads that call).
_PLAIN_DOTTED = frozenset({"os.environ.get", "os.getenv", "os.path.exists", "os.path.isfile", "os.path.isdir",
                           "os.path.join", "os.path.basename", "os.path.dirname", "os.path.splitext",
                           "math.prod", "math.ceil", "math.floor", "math.log2", "math.sqrt"})
_PLAIN_METHODS = frozenset({"get", "size", "dim", "numel", "lower", "upper", "strip", "lstrip", "rstrip", "split",
                            "startswith", "endswith", "keys", "values", "items", "count"})


def with_values(guard: str, feeding: list[str], restored: set[str] | None = None) -> str:
    """`guard` with each local name a feeding line binds once to a plain value written as that value
    (`n != len(kv_indices)` -> `len(token_ids) != len(kv_indices)`, with `n = len(token_ids)`): a
    caller has the function's arguments, not its locals. Unchanged when there is no such name.

    Unpacking binds each name to its part (`t, h = q.shape[0], q.shape[1]`; `b, n = x.shape` gives
    `x.shape[1]` for `n`). A value read before a loop header that binds one of its names is kept
    out of the `all(... for ...)` that header opens (the names would mean the loop's).

    A parameter normalised once from itself (`tp_size = int(tp_size)`, no loop around) is written
    as that value over the argument, in a last pass; its name goes into `restored`: the guard then
    reads what the caller passed, not what the function made of it."""
    values: dict[str, ast.expr] = {}
    own: dict[str, ast.expr] = {}   # `x = f(x)`: substituted once, last
    seen: set[str] = set()
    headers = any(is_header(line) for line in feeding)
    later_loops: set[str] = set()   # names bound by the `for` headers still to come
    for line in feeding:
        if is_header(line):
            later_loops |= loop_targets(line)
    for line in feeding:
        if is_header(line):
            later_loops -= loop_targets(line)
            continue
        if is_block(line):   # an `if` that may rebind: which value the test reads depends on the path
            for target in assigned(line):
                seen.add(target)
                values.pop(target, None)
            continue
        for target, value in _bound_values(line):
            if target in seen:
                values.pop(target, None)   # bound twice: which value the test reads depends on the path
                own.pop(target, None)
                continue
            seen.add(target)
            if value is None or read_chains(value) & later_loops:
                continue
            if target not in read_chains(value):
                values[target] = value   # `n = len(x)`, or `self.n = n` (a constructor's argument)
            elif not headers and target.isidentifier():
                own[target] = value
    if not (values or own) or names_in(guard).isdisjoint(name.rpartition(".")[2] for name in (*values, *own)):
        return guard
    try:
        tree = ast.parse(guard, mode="eval")
    except SyntaxError:
        return guard
    limit = 3 * len(guard) + 40
    for _ in range(3):   # a value written in terms of another local (`m = n + 1`, `n = len(x)`)
        changed = _Substitute(values).visit(tree)
        if not changed.__dict__.get("_errdex_changed"):
            break
        tree = changed
        if sum(1 for _ in ast.walk(tree)) > limit:   # values nested in values: too long to read anyway
            return guard
    if own:
        tree = _Substitute(own).visit(tree)
        if tree.__dict__.get("_errdex_changed") and restored is not None:
            restored.update(name for name in own if name in _guard_reads(guard) or name in names_in(guard))
    text = _unparsed(tree.body)
    return text if len(text) <= limit else guard


def _guard_reads(guard: str) -> frozenset[str]:
    """Names and attribute chains a guard reads (`batch.spec_info` reads no local `spec_info`)."""
    return text_reads((guard,))


def _fed_reads(guard: str, feeding: list[str] | None) -> frozenset[str]:
    """What the feeding lines the guard needs read (`n = len(d)` for a guard on `n`)."""
    reads: set[str] = set()
    for line in feeding_for(_guard_reads(guard), feeding) if feeding else []:
        reads |= names_in(line)
    return frozenset(reads)


def _unparsed(node: ast.expr) -> str:
    """`ast.unparse`, without the second brackets it writes around a lone generator argument."""
    text = ast.unparse(node)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], ast.GeneratorExp) and text.endswith("))"):
        head = ast.unparse(node.func)
        if text.startswith(head + "(("):
            return f"{head}({text[len(head) + 2:-2]})"
    return text


def _bound_values(line: str) -> list[tuple[str, ast.expr | None]]:
    """(target, plain value or None) for each name a feeding line `target = value` binds."""
    parts = plain_assignment(line)
    if parts is None:
        return []
    target, text = parts
    if "," not in target:
        ok = all(part.isidentifier() for part in target.split("."))
        return [(target, _plain_value(text) if ok else None)]
    names = [n.strip() for n in target.strip("()[] ").split(",") if n.strip()]
    starred = [i for i, n in enumerate(names) if n.startswith("*")]
    if len(starred) == 1 and all(n.lstrip("*").isidentifier() for n in names):
        # `*outer, k = x.shape`: the names after the star count from the end (`x.shape[-1]`)
        value = _plain_value(text)
        star = starred[0]
        if not isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):
            return [(n.lstrip("*"), None) for n in names]
        return [(n.lstrip("*"), None if i == star else ast.Subscript(
            value=value, slice=ast.Constant(i if i < star else i - len(names)), ctx=ast.Load()))
            for i, n in enumerate(names)]
    if not all(n.isidentifier() for n in names):   # nested: not one value per name
        return [(n.lstrip("*"), None) for n in names]
    value = _plain_value(text)
    if isinstance(value, ast.Tuple) and len(value.elts) == len(names) \
            and not any(isinstance(e, ast.Starred) for e in value.elts):
        return list(zip(names, value.elts))
    if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):   # `b, n = x.shape`: a sequence read
        return [(n, ast.Subscript(value=value, slice=ast.Constant(i), ctx=ast.Load())) for i, n in enumerate(names)]
    return [(n, None) for n in names]


def over_loops(guard: str, loops: list[str]) -> str:
    """`all(<guard> for req in reqs)` when the guard reads what a loop around the site binds: the
    caller has `reqs`, not one `req`, and the site checks every element (outer loops first)."""
    names = set(names_in(guard))
    chosen: list[str] = []
    for header in reversed(loops):
        if header.startswith("async "):
            break   # no `async for` inside `all(...)`
        targets = loop_targets(header)
        if targets and not targets.isdisjoint(names):
            chosen.insert(0, header)
            names |= header_reads(header)
    if not chosen:
        return guard
    return f"all({guard} {' '.join(chosen)})"


def _plain_value(text: str) -> ast.expr | None:
    """A feeding value a guard may hold instead of its name: reads, arithmetic and `len(...)`-like calls."""
    if len(text) > 80:
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    for inner in ast.walk(node):
        if isinstance(inner, (ast.Lambda, ast.NamedExpr, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                              ast.Await, ast.Yield, ast.YieldFrom, ast.IfExp, ast.Starred)):
            return None
        if isinstance(inner, ast.Call) and not _plain_call(inner.func):
            return None
    return node


def _plain_call(func: ast.expr) -> bool:
    """A call that only reads (`len`, `os.environ.get`, `d.get`, `s.lower`): repeated by a caller,
    it gives what the function got."""
    if isinstance(func, ast.Name):
        return func.id in _PLAIN_CALLS
    if not isinstance(func, ast.Attribute):
        return False
    return dotted(func) in _PLAIN_DOTTED or (func.attr in _PLAIN_METHODS and dotted(func.value) is not None)


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.values.get(node.id)
        if value is None or not isinstance(node.ctx, ast.Load):
            return node
        return _fresh(value)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.ctx, ast.Load):
            chain = dotted(node)
            value = self.values.get(chain) if chain else None
            if value is not None:
                return _fresh(value)
        return self.generic_visit(node)

    def visit_Expression(self, node: ast.Expression) -> ast.AST:
        before = ast.dump(node)
        node = self.generic_visit(node)
        node.__dict__["_errdex_changed"] = ast.dump(node) != before
        return node


def _fresh(value: ast.expr) -> ast.expr:
    """A new tree of `value` (parsed again: `copy.deepcopy` would follow whatever the analysis
    memoised on shared nodes such as the `Load` context)."""
    return ast.parse(ast.unparse(value), mode="eval").body


#: Characters of the site's path a caller's guard writes out whole (else its nearest tests).
_GUARD_PATH = 320


def off_path(cond: Condition) -> str:
    """The caller's guard: the own test negated, or the rest of the site's path failing (a short
    path, no failure fact in it): `if len(p) == 0` alone would skip every call that never takes
    the site's `if isinstance(p, list):` branch."""
    context = cond.context
    if context and len(context) > _GUARD_PATH:   # its tests nearest the site: the guard skips fewer calls
        last = split_conjuncts(context)[-1]
        context = nearest_conjuncts(context) or (last if len(last) <= 2 * _GUARD_PATH else "")
    if not context or "raised(" in context or ":=" in context or "lambda" in context:
        return cond.neg
    off = negated_source(context)
    if off is None:
        return cond.neg
    own = f"({cond.neg})" if " and " in cond.neg or " or " in cond.neg else cond.neg
    return f"{off} or {own}"


_SELF_WORD = re.compile(r"\bself\b")
_OBJ_WORD = re.compile(r"\bobj\b")
#: `self` read other than as `self.<field>` (passed on, compared): no field stands for it.
_BARE_SELF = re.compile(r"\bself\b(?!\.[A-Za-z_])")
_SELF_FIELD = re.compile(r"\bself\.(?=[A-Za-z_])")


#: How a site reports its message, by errorType: it raises a class, warns with a category,
#: logs through a logger's method, or answers an HTTP request with an error (with its object, and alone).
_VERBS = {"warning": ("warns with", "warns"), "log": ("logs with", "logs"),
          "response": ("answers the request with the HTTP error", "answers the request with an error"),
          "returned": ("returns this message as its error (for its caller to fail with)", "returns an error message")}


def report_verb(error_type: str, bare: bool = False) -> str:
    """`raises` (`raises`), `warns with` (`warns`), `logs with` (`logs`)."""
    with_object, alone = _VERBS.get(error_type, ("raises", "raises"))
    return alone if bare else with_object


def example_fix(cond: Condition, call: str, error_class: str, function: str, alternative: str,
                exact: bool = True, reason: str | None = None, error_type: str = "exception",
                feeding: list[str] | None = None, loops: list[str] | None = None,
                changed: list[str] | None = None, unfed: list[str] | None = None,
                imports: dict[str, str] | None = None) -> str | None:
    """Before/after: the call unguarded, then a guard at the caller that keeps it off the raising path.

    `imports` (`errdex.moduleImports`): the imports of the module-level names the guard reads
    (`torch` of `k.dtype is not torch.bfloat16`), written first in the "after" code.

    None when the guard would read a value the function changes before its check (`changed`,
    `errdex.changedBefore`): a caller's test of what it passes would not be that check; or a
    local only the function has (`unfed`, `errdex.unfedLocals`, or one a feeding line assigns
    that is neither written as its value nor assigned before the guard).

    The "raises when" comment names the earlier checks when there are some and
    says "approximately" when the condition is not exact: it claims no more
    than the condition does.
    """
    if cond.own is None or cond.is_except or cond.constant is not None or function.endswith("<module>") \
            or "raised(" in cond.own_text or reads_clock(cond.own_text):
        return None   # whether a call raised, or how long its wait took, no caller can test before it
    bare = call.split("  #")[0]
    when = f"{cond.context} and {and_operand(cond.own, cond.own_text)}" if cond.context else cond.own_text
    guard, names = off_path(cond), f"# names as in {function}"
    if function.endswith(".__post_init__") and not _BARE_SELF.search(when + " " + guard) \
            and not any(line.startswith("self.") for line in feeding or ()):   # no field set before the check
        # A dataclass's fields are what its constructor is given: `self.frames` is the `frames=` passed.
        guard, when = _SELF_FIELD.sub("", guard), _SELF_FIELD.sub("", when)
        names = f"# names: the fields given to {bare}"
    restored: set[str] = set()   # parameters the guard now reads as the caller passed them
    guard = with_values(guard, feeding, restored) if feeding else guard
    if loops:   # then the locals of the loop headers it opens (`range(bs)`)
        guard = over_loops(guard, loops)
        guard = with_values(guard, feeding) if feeding else guard
    if reads_clock(guard):
        return None   # `elapsed` written as `time.time() - start`: a caller cannot know it beforehand
    changed = [c for c in changed or () if c not in restored]
    if changed and reads_changed(_guard_reads(guard) | _fed_reads(guard, feeding), changed):
        return None
    reads = _guard_reads(guard)
    if not reads:
        return None   # review 25: `not error` with `error = []` written in became `if not []:`, a constant
    if "self" in reads:   # the instance: `obj` of `obj.meth(...)`; a constructor's own state no caller can test
        if not _OBJ_WORD.search(bare):
            return None
        guard = _SELF_WORD.sub("obj", guard)
    # Locals the guard still reads (bound on a branch, or by a call): their lines first, as in the
    # function, when nothing on the path comes before them (an early return, an enclosing `if`, an
    # earlier check would be skipped: the lines could fail on calls the guard lets through).
    fed = [] if loops or not feeding or cond.context or cond.guards else feeding_for(reads - restored, feeding)
    if any("self" in names_in(line) for line in fed):
        fed = []   # the function's own instance state: a caller would not replay it
    defined = frozenset().union(*(assigned(line) for line in fed)) if fed else frozenset()
    if any(not (assigned(line) & (reads - restored)) <= defined for line in feeding or ()):
        return None   # a local of the function, neither written as its value nor assigned here: no caller has it
    if unfed and not reads.isdisjoint(unfed):
        return None   # a local no feeding line assigns (bound in a `try`, a `with`, a branch): the same
    lines = "".join(f"{line}\n" for line in fed)
    code = f"{lines}if {guard}:\n    {bare}\nelse:\n    ...  # {alternative}\n"
    needed = imports_needed(code.splitlines(), imports) if imports else []
    after = names + "\n" + "".join(f"{line}\n" for line in needed) + code
    head = "" if exact else f"# approximate: {reason or 'not every path was followed'}\n"
    once = " (once the earlier checks in it pass)" if cond.guards else ""
    verb = report_verb(error_type) + (f" {error_class}" if error_class else "")
    return f"{head}# before\n{bare}  # {verb} when {when}{once}\n# after\n{after}"
