"""The code fields of a record: validationCode, typeGuard, tryCatchPattern, exampleFix.

Each is built from the parsed condition and the feeding assignments, and
always parses with `ast.parse` (a test checks it). Names inside are the
raising function's own names: the code says so in a comment where a reader
would otherwise assume they exist at the call site.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from errdex.analyze.condexpr import (
    Condition, and_operand, nearest_conjuncts, negated_source, type_tests, without_passed_calls,
)
from errdex.analyze.names import dotted
from errdex.analyze.operations import module_operation, operation
from errdex.analyze.purity import constant_display

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CHAIN = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)+")
_STRATEGY_BODY = {
    "validate": "    # the inputs broke a check the code makes; fix them at the caller\n    raise",
    "fallback": ("    # not supported for these inputs: run an alternative that is (another backend, option or layout);\n"
                 "    # there is no result to go on with here\n    result = alternative(...)"),
    "retry": "    # transient: retry with a backoff, then re-raise if it keeps failing\n    raise",
    "fix-configuration": "    # the configuration is not supported here; change it rather than catch this\n    raise",
    "propagate": "    raise",
}


_OBJ = re.compile(r"\bobj\b")
_STRINGS = re.compile(r"([rRbBuUfF]{0,2})('[^']*'|\"[^\"]*\")")
_FIELDS = re.compile(r"\{([^{}]*)\}")
_NAMES: dict[str, frozenset[str]] = {}


def names_in(expr: str) -> frozenset[str]:
    """Identifiers of an expression outside its string literals, and its attribute chains with their
    prefixes (`self.cfg.n`: `self.cfg`, `self.cfg.n`), which a feeding line may assign (cached per text)."""
    found = _NAMES.get(expr)
    if found is None:
        plain = _STRINGS.sub(_string_reads, expr) if "'" in expr or '"' in expr else expr
        found = set(_IDENT.findall(plain))
        if "." in plain:
            for chain in _CHAIN.findall(plain):
                parts = chain.replace(" ", "").split(".")
                found.update(".".join(parts[:i]) for i in range(2, len(parts) + 1))
        found = frozenset(found)
        if len(_NAMES) < 200_000:
            _NAMES[expr] = found
    return found


def _string_reads(m: re.Match) -> str:
    """A string literal as `names_in` reads it: nothing, or the names an f-string's replacement
    fields read (`f"{cpath}.role"` reads `cpath`)."""
    if "f" not in m.group(1).lower():
        return " "
    try:
        tree = ast.parse(m.group(0), mode="eval")
    except SyntaxError:   # cut by the quote-matching regex (a quote inside a field): its fields' words
        return " " + " ".join(_FIELDS.findall(m.group(2))) + " "
    return " " + " ".join(n.id for n in ast.walk(tree) if isinstance(n, ast.Name)) + " "


def feeding_for(names: set[str] | frozenset[str], feeding: list[str], loops: bool = False) -> list[str]:
    """The feeding assignments the names depend on, in source order: the backward slice over
    the lines, so `r = m.recipient` brings in `m = self.messages[-1]` too. An initial container
    (`found = []`) is left out: code fills it before reading it. `loops`: a `for` header binds its
    targets too (the lines after it in the slice are that loop's body)."""
    needed: set[str] | frozenset[str] = names
    picked = []
    for line in reversed(feeding):
        header = loops and _is_header(line)
        targets = _loop_targets(line) if header else _ASSIGNED.get(line)
        if targets is None:
            targets = _assigned(line)
        if not targets.isdisjoint(needed):
            if not header and _initial_value(line):
                continue   # `d = {"k": []}`, usually filled later (in place, or by a call it is passed to): shown, it would claim `d` stays empty
            picked.append(line.strip())
            needed = needed | (_header_reads(line) if header else _reads(line))
    picked.reverse()
    return picked


def _initial_value(line: str) -> bool:
    """`x = []`, `d = {"a": [], "b": 0}`, `s = set()`, `out = [None] * n`: a container of constants, which the
    function usually fills in place before it is read (cached per line, like `_assigned`: a record
    is read on every page, export and hook answer)."""
    found = _INITIAL.get(line)
    if found is None:
        m = _ASSIGN.match(line)
        try:
            found = m is not None and _preallocated(ast.parse(line[m.end():].strip(), mode="eval").body)
        except SyntaxError:
            found = False
        if len(_INITIAL) < 200_000:
            _INITIAL[line] = found
    return found


_INITIAL: dict[str, bool] = {}


def _preallocated(value: ast.expr) -> bool:
    """A container display of constants, or one repeated to a size (`[None] * len(frames)`)."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return any(isinstance(side, (ast.List, ast.Tuple)) and constant_display(side)
                   for side in (value.left, value.right))
    return constant_display(value)


def _reads(line: str) -> frozenset[str]:
    """Names a feeding line reads: those right of its `=`, and the target too for `x += ...`."""
    m = _ASSIGN.match(line)
    if m is None:
        return names_in(line)
    rhs = names_in(line[m.end():])
    return rhs | _assigned(line) if line[m.end() - 2] in _AUG_OPS else rhs


_AUG_OPS = frozenset("-+*/%&|^@<>")


_ASSIGNED: dict[str, frozenset[str]] = {}


_ASSIGN = re.compile(r"^\s*(\(?[A-Za-z_][\w\s,.\[\]*]*?\)?)\s*(?::[^=]*)?(?:[-+*/%&|^@]|//|\*\*|>>|<<)?=(?!=)")
_STATEMENT_WORDS = frozenset({"for", "if", "elif", "else", "while", "with", "except", "def", "class", "return",
                              "async", "try", "assert", "del", "global", "nonlocal", "import", "from", "yield",
                              "raise", "lambda", "print", "match", "case"})
_TARGET_NAME = re.compile(r"(?<![\w.\[])[A-Za-z_]\w*(?![\w(\[.])")
_TARGET_CHAIN = re.compile(r"(?<![\w.\[])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w(\[.])")


def _assigned(line: str) -> frozenset[str]:
    """Names a feeding line assigns: the bare names left of its `=`, and attribute chains
    (`self.n` of `self.n = n`), not subscripts.

    A regex, not a parse: a dataset holds tens of thousands of feeding lines.
    """
    found = _ASSIGNED.get(line)
    if found is None:
        first = line.lstrip().partition(" ")[0].rstrip(":")
        plain = "=" in line and ":=" not in line and not line.rstrip().endswith(":")
        m = _ASSIGN.match(line) if plain and first not in _STATEMENT_WORDS else None
        found = frozenset(_TARGET_NAME.findall(m.group(1))) | frozenset(_TARGET_CHAIN.findall(m.group(1))) \
            if m else frozenset()
        if len(_ASSIGNED) < 200_000:
            _ASSIGNED[line] = found
    return found


def _is_header(line: str) -> bool:
    """A feeding line that opens a block: a `for` header, or a `with` binding a name (`as f`)."""
    return line.startswith(("for ", "async for ", "with ", "async with "))


def _header_reads(header: str) -> frozenset[str]:
    """Names a `for` header's iterable reads (its targets are bound, not read)."""
    return names_in(header) - _loop_targets(header)


def binding_loop(loops: list[str], names: set[str] | frozenset[str]) -> str | None:
    """The innermost of the `for` headers around a site (`errdex.loops`) that binds one of `names`."""
    for header in reversed(loops):
        if not _loop_targets(header).isdisjoint(names):
            return header
    return None


@lru_cache(maxsize=4096)
def _loop_targets(header: str) -> frozenset[str]:
    """The names a `for` header (or a `with ... as` line) binds (read on every page of a record in a
    loop: parsed once)."""
    try:
        stmt = ast.parse(header.removeprefix("async ") + ": pass").body[0]
    except (SyntaxError, IndexError):
        return frozenset()
    if isinstance(stmt, ast.With):   # `with open(p) as f, lock:` binds `f`
        targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    else:
        targets = [getattr(stmt, "target", None)]
    return frozenset(n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name))


def validation_code(cond: Condition, feeding: list[str], placeholders: dict, function: str,
                    exact: bool, reason: str | None, fed: list[str] | None = None,
                    loops: list[str] | None = None) -> str | None:
    """The feeding assignments, then `assert <the test negated>`: it fails exactly where the site raises."""
    if cond.own is None or cond.is_except or cond.constant is not None:
        return None
    own = cond.own_text
    lines = []
    if not exact:
        lines.append(f"# approximate: {reason or 'not every path was followed'}")
    if cond.guards:
        lines.append(f"# assumes the earlier checks in {function} passed")
    context, passed = without_passed_calls(cond.context) if cond.context else ("", [])
    if context is None:
        return None
    by_class: dict[str, list[str]] = {}
    for call, exc in passed:   # no code tests it: the call either returns or raises
        by_class.setdefault(exc, []).append(call)
    for exc, calls in by_class.items():
        which = calls[0] if len(calls) == 1 else "none of " + ", ".join(calls)
        lines.append(f"# assumes {which} {'did not raise' if len(calls) == 1 else 'raised'} {exc}"
                     f" ({function} does not reach the check otherwise)")
    used = names_in(own)
    nest: list[str] = []   # the loop headers the check runs in, and what comes before them
    if loops:   # what a loop binds is each pass's: the check runs inside the loop, as in the function
        nest, before, inside = _in_loops(used, names_in(context) if context else frozenset(), feeding)
    if not nest:
        loop = binding_loop(loops, used | names_in(context)) if loops else None
        if loop:   # its header is not among the feeding lines kept: say so instead
            lines.append(f"# in each pass of `{loop}:` (the names it binds are that pass's)")
        if fed is None:   # the caller may pass the lines it already picked (the same rule)
            fed = feeding_for(used, feeding)
        # Lines the earlier guards read go before the `if`; the test's own lines go inside it, where
        # the function runs them too (`m = self.messages[-1]` after `if not self.messages: return`).
        before = feeding_for(names_in(context), feeding) if context else []
        inside = [line for line in fed if line not in before]
    if nest or before or inside:
        lines.append("# the assignments the check reads, in source order (other statements between them left out)")
    shown = [v for v in placeholders.values() if v.isidentifier() and v in used][:4]
    message = f", ({', '.join(shown)}{',' if len(shown) == 1 else ''})" if shown else ""
    pad = ""
    for line in nest:
        lines.append(pad + line + (":" if _is_header(line) else ""))
        if _is_header(line):
            pad += "    "
    lines += [pad + line for line in before] if context else []
    if context:   # the site's own path: the test holds only there
        lines.append(f"{pad}if {context}:")
        pad += "    "
    lines += [pad + line for line in inside]
    lines.append(f"{pad}assert {cond.neg}{message}")
    return "\n".join(lines)


def _in_loops(used: frozenset[str], context: frozenset[str], feeding: list[str]
              ) -> tuple[list[str], list[str], list[str]]:
    """The feeding lines for a check inside a loop, split in three: up to the last loop header
    they need (each header opens the lines after it), then the lines the earlier guards read,
    then the test's own. ([], ..) when no header is among them."""
    for_context = feeding_for(context, feeding, loops=True) if context else []
    for_own = feeding_for(used, feeding, loops=True)
    wanted = set(for_context) | set(for_own)
    ordered = [line.strip() for line in feeding if line.strip() in wanted]
    headers = [i for i, line in enumerate(ordered) if _is_header(line)]
    if not headers:
        return [], [], []
    nest, rest = ordered[:headers[-1] + 1], ordered[headers[-1] + 1:]
    before = [line for line in rest if line in for_context]
    return nest, before, [line for line in rest if line not in for_context]


def type_guard(cond: Condition) -> str | None:
    """A TypeGuard function for the isinstance test the site's condition makes."""
    if "isinstance" not in cond.own_text:   # no isinstance call in the own test's source: no type test (most)
        return None
    own = cond.own
    tests = type_tests(own)
    if not tests or cond.is_except:
        return None
    part_of_or = isinstance(own, ast.BoolOp)
    if part_of_or:
        # One part of an `or` that raises when the value is not of the type: the guard answers
        # only for that part (where it is False, the site raises); any other compound says less.
        negated_parts = [v for v in own.values if type_tests(v) and not isinstance(v, ast.BoolOp)
                         and type_tests(v)[0][2]] if isinstance(own.op, ast.Or) else []
        if not negated_parts:
            return None
        tests = type_tests(negated_parts[0])
    subject, types, negated = tests[0]
    name = "is_valid_" + ("_".join(_IDENT.findall(subject)).lower() or "value")
    if negated:
        shown = " | ".join(t.strip() for t in types.strip("()").split(",") if t.strip()) \
            if types.startswith("(") else types
        passes = f"is {'one of' if types.startswith('(') else 'a'} `{types}`, which the check also needs" \
            if part_of_or else "passes the check"
        text = (f"from typing import TypeGuard\n\n\ndef {name}(value: object) -> TypeGuard[{shown}]:\n"
                f"    \"\"\"True when `{subject}` {passes}; where it is False, the site raises.\"\"\"\n"
                f"    return isinstance(value, {types})\n")
    else:
        text = (f"def {name}(value: object) -> bool:\n"
                f"    \"\"\"True when `{subject}` passes the check; for a {types}, the site raises.\"\"\"\n"
                f"    return not isinstance(value, {types})\n")
    return _parsed(text)


def call_text(entry: str, method_of: str | None, binding: str | None = None) -> str:
    """How code calls a function: `f(...)`, `Cls(...)` for a constructor, `obj.meth(...)` for a method,
    the operation for any other special method (`obj[key]`, `setattr(obj, name, value)`)."""
    module, _, short = entry.rpartition(".")
    if short == "<module>":
        return f"import {module}" if module and all(p.isidentifier() for p in module.split(".")) else "..."
    if method_of:
        cls = method_of.rpartition(".")[2]
        if binding in ("static", "class"):   # `@staticmethod` / `@classmethod`: called on the class
            return f"{cls}.{short}(...)"
        special = operation(short, cls)
        if special is not None:   # `setattr(obj, name, value)`, not `obj.__setattr__(...)`
            return f"{special.code}  # obj: {cls}" if _OBJ.search(special.code) else special.code
        return f"obj.{short}(...)  # obj: {cls}"
    special = module_operation(short, module)
    return special.code if special is not None else f"{short}(...)"


def try_catch(call: str, error_class: str, error_type: str, strategy: str) -> str | None:
    """The nearest public entry point wrapped in try/except for the class."""
    body = _STRATEGY_BODY.get(strategy, "    raise")
    if error_type == "warning":
        text = (f"import warnings\n\ntry:\n    with warnings.catch_warnings():\n"
                f"        warnings.simplefilter(\"error\", {error_class})\n        {call}\n"
                f"except {error_class} as exc:\n{body}\n")
    else:
        text = f"try:\n    {call}\nexcept {error_class} as exc:\n{body}\n"
    return text


def example_fix(cond: Condition, call: str, error_class: str, function: str, alternative: str,
                exact: bool = True, reason: str | None = None, warning: bool = False,
                feeding: list[str] | None = None, loops: list[str] | None = None) -> str | None:
    """Before/after: the call unguarded, then a guard at the caller that keeps it off the raising path.

    The "raises when" comment names the earlier checks when there are some and
    says "approximately" when the condition is not exact: it claims no more
    than the condition does.
    """
    if cond.own is None or cond.is_except or cond.constant is not None or function.endswith("<module>"):
        return None
    bare = call.split("  #")[0]
    when = f"{cond.context} and {and_operand(cond.own, cond.own_text)}" if cond.context else cond.own_text
    guard, names = _off_path(cond), f"# names as in {function}"
    if function.endswith(".__post_init__") and not _BARE_SELF.search(when + " " + guard) \
            and not any(line.startswith("self.") for line in feeding or ()):   # no field set before the check
        # A dataclass's fields are what its constructor is given: `self.frames` is the `frames=` passed.
        guard, when = _SELF_FIELD.sub("", guard), _SELF_FIELD.sub("", when)
        names = f"# names: the fields given to {bare}"
    guard = with_values(guard, feeding) if feeding else guard
    guard = _over_loops(guard, loops) if loops else guard
    after = (f"{names}\nif {guard}:\n    {bare}\n"
             f"else:\n    ...  # {alternative}\n")
    head = "" if exact else f"# approximate: {reason or 'not every path was followed'}\n"
    once = " (once the earlier checks in it pass)" if cond.guards else ""
    verb = "warns with" if warning else "raises"
    return f"{head}# before\n{bare}  # {verb} {error_class} when {when}{once}\n# after\n{after}"


#: Calls a value may make and still be written into a caller's guard: they read, and answer the same.
_PLAIN_CALLS = frozenset({"len", "int", "float", "str", "bool", "abs", "min", "max", "tuple", "sorted", "round"})


def with_values(guard: str, feeding: list[str]) -> str:
    """`guard` with each local name a feeding line binds once to a plain value written as that value
    (`n != len(kv_indices)` -> `len(token_ids) != len(kv_indices)`, with `n = len(token_ids)`): a
    caller has the function's arguments, not its locals. Unchanged when there is no such name."""
    values: dict[str, ast.expr] = {}
    seen: set[str] = set()
    for line in feeding:
        m = _ASSIGN.match(line)
        if m is None or _is_header(line) or line[m.end() - 2] in _AUG_OPS:
            continue
        target = m.group(1).strip()
        if target in seen:
            values.pop(target, None)   # bound twice: which value the test reads depends on the path
            continue
        seen.add(target)
        value = _plain_value(line[m.end():].strip())
        if value is not None and target not in names_in(line[m.end():]) \
                and (target.isidentifier() or _DOTTED_TARGET.fullmatch(target)):
            values[target] = value   # `n = len(x)`, or `self.n = n` (a constructor's argument)
    if not values or names_in(guard).isdisjoint(name.rpartition(".")[2] for name in values):
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
    text = ast.unparse(tree)
    return text if len(text) <= limit else guard


_DOTTED_TARGET = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def _over_loops(guard: str, loops: list[str]) -> str:
    """`all(<guard> for req in reqs)` when the guard reads what a loop around the site binds: the
    caller has `reqs`, not one `req`, and the site checks every element (outer loops first)."""
    names = set(names_in(guard))
    chosen: list[str] = []
    for header in reversed(loops):
        if header.startswith("async "):
            break   # no `async for` inside `all(...)`
        targets = _loop_targets(header)
        if targets and not targets.isdisjoint(names):
            chosen.insert(0, header)
            names |= _header_reads(header)
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
        if isinstance(inner, ast.Call) and not (isinstance(inner.func, ast.Name) and inner.func.id in _PLAIN_CALLS):
            return None
    return node


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
_GUARD_PATH = 120


def _off_path(cond: Condition) -> str:
    """The caller's guard: the own test negated, or the rest of the site's path failing (a short
    path, no failure fact in it): `if len(p) == 0` alone would skip every call that never takes
    the site's `if isinstance(p, list):` branch."""
    context = cond.context
    if context and len(context) > _GUARD_PATH:   # its tests nearest the site: the guard skips fewer calls
        context = nearest_conjuncts(context)
    if not context or "raised(" in context or ":=" in context or "lambda" in context:
        return cond.neg
    off = negated_source(context)
    if off is None:
        return cond.neg
    own = f"({cond.neg})" if " and " in cond.neg or " or " in cond.neg else cond.neg
    return f"{off} or {own}"


#: `self` read other than as `self.<field>` (passed on, compared): no field stands for it.
_BARE_SELF = re.compile(r"\bself\b(?!\.[A-Za-z_])")
_SELF_FIELD = re.compile(r"\bself\.(?=[A-Za-z_])")


def _parsed(text: str) -> str | None:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return text
