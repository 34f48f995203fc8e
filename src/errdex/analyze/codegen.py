"""The code fields of a record: validationCode, typeGuard, tryCatchPattern, exampleFix.

Each is built from the parsed condition and the feeding assignments, and
always parses with `ast.parse` (a test checks it). Names inside are the
raising function's own names: the code says so in a comment where a reader
would otherwise assume they exist at the call site.
"""

from __future__ import annotations

import ast
import builtins
import re
from functools import lru_cache

from errdex.analyze.condexpr import (
    Condition,
    dispatch_types,
    tests_types_on_the_way,
    type_tests,
    without_passed_calls,
)
from errdex.analyze.names import dotted
from errdex.analyze.operations import module_operation, operation
from errdex.analyze.purity import constant_display

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CHAIN = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)+")
#: What a caller can do on catching the error, by handling strategy. The other strategies
#: (validate, fix-configuration, propagate) leave the caller nothing to do but let it go: for
#: them no try/except is written, as one that re-raises what it caught would teach nothing.
_STRATEGY_BODY = {
    "fallback": ("    # not supported for these inputs: run an alternative that is (another backend, option or layout);\n"
                 "    # there is no result to go on with here\n    result = alternative(...)"),
}

_OBJ = re.compile(r"\bobj\b")
_STRINGS = re.compile(r"([rRbBuUfF]{0,2})('[^']*'|\"[^\"]*\")")
_FIELDS = re.compile(r"\{([^{}]*)\}")
_NAMES: dict[str, frozenset[str]] = {}


#: A read of the clock (`time.perf_counter() - start > timeout`): how long the function's own wait
#: took, which no code run before the call can know (review 23 #3: the replay set `start` and
#: compared at once, so it always passed).
_CLOCK = re.compile(r"(?<![\w.])(?:time\.)?(?:time|perf_counter|monotonic)(?:_ns)?\(\)")


def reads_clock(text: str) -> bool:
    return "()" in text and _CLOCK.search(text) is not None


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


_ROOT = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def root_names_in(text: str) -> frozenset[str]:
    """Identifiers of an expression or line that are no attribute's name (`case` and `model_path`
    of `case.server_args.model_path`, `model_path` not), outside its string literals."""
    plain = _STRINGS.sub(_string_reads, text) if "'" in text or '"' in text else text
    return frozenset(_ROOT.findall(plain))


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
        header = loops and is_header(line)
        targets = loop_targets(line) if header else _ASSIGNED.get(line)
        if targets is None:
            targets = assigned(line)
        if not targets and not header:   # a call the slice shows for what it may change (`stage.extract(x)`)
            targets = _call_targets(line)
        elif not header and targets and all("." in t and not t.startswith(("self.", "cls.")) for t in targets):
            # `module.mapping = {...}`: what it sets is read by what reads `module` whole
            targets = targets | {part for t in targets for part in _prefixes(t)}
        if not targets.isdisjoint(needed):
            if not header and _initial_value(line):
                continue   # `d = {"k": []}`, usually filled later (in place, or by a call it is passed to): shown, it would claim `d` stays empty
            picked.append(line.strip())
            needed = needed | (header_reads(line) if header else line_reads(line))
    picked.reverse()
    return picked


_CALL_TARGETS: dict[str, frozenset[str]] = {}


def _call_targets(line: str) -> frozenset[str]:
    """What a call statement among the feeding lines may change: its object and what it is given,
    with their names (`stage`, `stage.cache` and `inputs` for `stage.cache.fill(inputs)`); empty for
    any other line."""
    found = _CALL_TARGETS.get(line)
    if found is not None:
        return found
    found = frozenset()
    if "(" in line and not is_header(line):
        try:
            tree = ast.parse(line.strip())
        except (SyntaxError, ValueError, RecursionError):
            tree = None
        stmt = tree.body[0] if tree is not None and len(tree.body) == 1 else None
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Await):
            call = call.value
        if isinstance(call, ast.Call):
            chains = {dotted(v.value if isinstance(v, ast.Starred) else v) for v in _handed(call)}
            found = frozenset(part for chain in chains if chain for part in _prefixes(chain))
    if len(_CALL_TARGETS) < 200_000:
        _CALL_TARGETS[line] = found
    return found


def _handed(call: ast.Call) -> list[ast.expr]:
    """What a call is given and may change in place: its arguments, and the object of a method."""
    handed = [*call.args, *(k.value for k in call.keywords)]
    if isinstance(call.func, ast.Attribute):
        handed.append(call.func.value)
    return handed


def _prefixes(chain: str) -> list[str]:
    parts = chain.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _initial_value(line: str) -> bool:
    """`x = []`, `d = {"a": [], "b": 0}`, `s = set()`, `out = [None] * n`: a container of constants, which the
    function usually fills in place before it is read (cached per line, like `assigned`: a record
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
    """A container display of blank constants (`[]`, `{"a": [], "b": 0}`, `set()`), or one repeated to a
    size (`[None] * len(frames)`). A display of real values (`methods = {"modelopt", "fp8"}`) is what
    the check reads, and a tuple is never filled in place: both are shown."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return any(isinstance(side, (ast.List, ast.Tuple)) and constant_display(side)
                   for side in (value.left, value.right))
    return not isinstance(value, ast.Tuple) and constant_display(value) and _blank(value)


def _blank(node: ast.expr) -> bool:
    """Only placeholders inside: None, zero, False, empty strings and empty containers (dict keys aside)."""
    if isinstance(node, ast.Constant):
        return not node.value
    if isinstance(node, (ast.List, ast.Set, ast.Tuple)):
        return all(_blank(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(v is not None and _blank(v) for v in node.values)
    return isinstance(node, ast.Call)   # `list()`, `set()` (`constant_display` let only those through)


def line_reads(line: str) -> frozenset[str]:
    """Names a feeding line reads: those right of its `=`, and the target too for `x += ...`."""
    m = _ASSIGN.match(line)
    if m is None or is_block(line):   # an `if` entry reads its test and its blocks' right-hand sides
        return names_in(line)
    rhs = names_in(line[m.end():])
    return rhs | assigned(line) if line[m.end() - 2] in _AUG_OPS else rhs


_AUG_OPS = frozenset("-+*/%&|^@<>")


_ASSIGNED: dict[str, frozenset[str]] = {}


_ASSIGN = re.compile(r"^\s*([(\[]?\*?[A-Za-z_][\w\s,.\[\]*]*?[)\]]?)\s*(?::[^=]*)?(?:[-+*/%&|^@]|//|\*\*|>>|<<)?=(?!=)")
_STATEMENT_WORDS = frozenset({"for", "if", "elif", "else", "while", "with", "except", "def", "class", "return",
                              "async", "try", "assert", "del", "global", "nonlocal", "import", "from", "yield",
                              "raise", "lambda", "print", "match", "case"})
_TARGET_NAME = re.compile(r"(?<![\w.\[])[A-Za-z_]\w*(?![\w(\[.])")
_TARGET_CHAIN = re.compile(r"(?<![\w.\[])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w(\[.])")


def assigned(line: str) -> frozenset[str]:
    """Names a feeding line assigns: the bare names left of its `=`, and attribute chains
    (`self.n` of `self.n = n`), not subscripts.

    A regex, not a parse: a dataset holds tens of thousands of feeding lines.
    """
    found = _ASSIGNED.get(line)
    if found is None and is_block(line):
        found = _ASSIGNED[line] = _block_assigned(line)
    if found is None and line.startswith(("import ", "from ")):   # a local import `site` put first
        found = _ASSIGNED[line] = _import_targets(line)
    if found is None:
        first = line.lstrip().partition(" ")[0].rstrip(":")
        plain = "=" in line and ":=" not in line and not line.rstrip().endswith(":")
        m = _ASSIGN.match(line) if plain and first not in _STATEMENT_WORDS else None
        found = frozenset(_TARGET_NAME.findall(m.group(1))) | frozenset(_TARGET_CHAIN.findall(m.group(1))) \
            if m else frozenset()
        if not found and plain and first not in _STATEMENT_WORDS:   # `[(a, b)] = pairs`: too nested for the regex
            found = _parsed_targets(line)
        if len(_ASSIGNED) < 200_000:
            _ASSIGNED[line] = found
    return found


def _import_targets(line: str) -> frozenset[str]:
    """The names `import a.b` (`a`) or `from m import x as y` (`y`) binds."""
    try:
        tree = ast.parse(line.strip())
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    stmt = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return frozenset()
    return frozenset(a.asname or a.name.partition(".")[0] for a in stmt.names)


def _parsed_targets(line: str) -> frozenset[str]:
    """The names an assignment line binds, read from its parse (rare: the regex covers the rest)."""
    try:
        tree = ast.parse(line.strip())
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    stmt = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return frozenset()
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return frozenset(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))


def is_block(line: str) -> bool:
    """A feeding entry that is a whole `if` statement (`feeding.shown_block`), several lines long."""
    return "\n" in line and line.startswith("if ")


def one_line(entry: str) -> str:
    """A feeding entry for prose: a block on one line (`if s.ndim == 1: s = s[:, None]`, then `...`
    for any further line)."""
    if not is_block(entry):
        return entry
    lines = entry.split("\n")
    return f"{lines[0]} {lines[1].strip()}" + (" ..." if len(lines) > 2 else "")


def _block_assigned(entry: str) -> frozenset[str]:
    """Names and attribute chains an `if` entry's blocks assign (what it may rebind)."""
    try:
        tree = ast.parse(entry)
    except SyntaxError:
        return frozenset()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            chain = dotted(node)
            if chain is not None:
                found.add(chain)
    return frozenset(found)


def indented(entry: str, pad: str) -> str:
    """A feeding entry at `pad`, every line of a block too."""
    return pad + entry.replace("\n", "\n" + pad) if pad else entry


def plain_assignment(line: str) -> tuple[str, str] | None:
    """(target, value) of a feeding line `target = value`; None for an augmented assignment or a
    block header."""
    m = _ASSIGN.match(line)
    if m is None or is_header(line) or is_block(line) or line[m.end() - 2] in _AUG_OPS:
        return None
    return m.group(1).strip(), line[m.end():].strip()


def is_header(line: str) -> bool:
    """A feeding line that opens a block: a `for` header, or a `with` binding a name (`as f`)."""
    return line.startswith(("for ", "async for ", "with ", "async with "))


def header_reads(header: str) -> frozenset[str]:
    """Names a `for` header's iterable reads (its targets are bound, not read)."""
    return names_in(header) - loop_targets(header)


def binding_loop(loops: list[str], names: set[str] | frozenset[str]) -> str | None:
    """The innermost of the `for` headers around a site (`errdex.loops`) that binds one of `names`."""
    for header in reversed(loops):
        if not loop_targets(header).isdisjoint(names):
            return header
    return None


@lru_cache(maxsize=4096)
def loop_targets(header: str) -> frozenset[str]:
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
                    loops: list[str] | None = None, changed: list[str] | None = None,
                    unfed: list[str] | None = None, error_type: str | None = None,
                    imports: dict[str, str] | None = None) -> str | None:
    """The feeding assignments, then `assert <the test negated>`: it fails exactly where the site raises.

    A log or a warning is no failure (the call goes on): its code computes `reported`, True exactly
    where the site reports, instead of asserting the opposite (review 16 P7: an assert rejected valid
    multi-node setups a warning only mentions).

    `unfed` (`errdex.unfedLocals`): locals the function makes in ways no shown line replays (in a
    `try`, a `with`, a branch); those the code reads are named as values to set, not left undefined,
    as are the targets of feeding lines not shown (`_values_to_set`).

    `imports` (`errdex.moduleImports`): the import of each module-level name the function reads;
    those the code reads go first (review 21: `torch.cdiv` in a snippet that never imported torch)."""
    if cond.own is None or cond.is_except or cond.constant is not None or "raised(" in cond.own_text \
            or reads_clock(cond.own_text):
        return None   # whether a call raised, or how long a wait took, no code tests but the call itself
    own = cond.own_text
    lines = []
    if not exact:
        lines.append(f"# approximate: {reason or 'not every path was followed'}")
    unshown = [c for c in changed or () if not any(c in assigned(line) for line in feeding)]
    if unshown:   # the check reads them as the function leaves them, which the lines below do not replay
        shown = ", ".join(f"`{c}`" for c in unshown[:4])
        lines.append(f"# {function} changes {shown} before the check: run this where the check runs,"
                     " not on what a caller passes")
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
    if feeding and any(reads_clock(line) for line in feeding_for(used, feeding)):
        return None   # `elapsed = time.time() - start`: the own test reads how long the wait took
    shown_effects = [line for line in feeding_for(used | names_in(context or ""), feeding, loops=bool(loops))
                     if _effectful(line)] if feeding else []
    made = feeding
    if shown_effects:   # review 20 #5550: a check's snippet started servers and posted requests
        feeding = [line for line in feeding if line.strip() not in shown_effects]
        fed = None
        calls = ", ".join(f"`{_effect_call(line)}`" for line in shown_effects[:3])
        lines.append(f"# not replayed, for what else they do (a process, a request, a file, a socket): {calls}")
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
    notes = len(lines)
    if nest or before or inside:
        lines.append("# the assignments the check reads, in source order (other statements between them left out)")
    shown = [v for v in placeholders.values() if v.isidentifier() and v in used][:4]
    message = f", ({', '.join(shown)}{',' if len(shown) == 1 else ''})" if shown else ""
    pad = ""
    replayed = [*nest, *before]
    # review 18: `if not rule: return` then `r = rule[0]`: a line runs past the guards it needs only
    # (review 20: a loop's lines too, and a line under an `if` on what an earlier line made)
    gates, then = _gates(context, replayed) if context else ({}, None)
    for i, line in enumerate(replayed):
        if i in gates:
            lines.append(f"{pad}if {gates[i]}:")
            pad += "    "
        lines.append(indented(line, pad) + (":" if is_header(line) else ""))
        if is_header(line):
            pad += "    "
    if then:   # the site's own path: the test holds only there
        lines.append(f"{pad}if {then}:")
        pad += "    "
    lines += [indented(line, pad) for line in inside]
    if error_type in _REPORTS:
        says = f"  # {function} {_REPORTS[error_type]} here and raises nothing"
        if nest or context:   # False where the path does not lead to the site
            lines.insert(notes, "reported = False")
            lines += [f"{pad}if {own}:", f"{pad}    reported = True{says}"]
        else:
            lines.append(f"reported = {f'({own})' if ':=' in own else own}{says}")
    else:
        lines.append(f"{pad}assert {cond.neg}{message}")
    if "self." in "".join(lines[notes:]):   # review 21: `self.idx = ...` replayed advanced the object twice
        kept = _stores_in_locals(lines[notes:])
        if kept is not None:
            code, stored = kept
            lines[notes:] = [f"# what {function} sets on the object is kept in locals here"
                             f" ({', '.join(f'`{name}`' for name in stored)}), leaving the object as it is", *code]
    if any("await " in line for line in lines[notes:] if not line.startswith("#")):
        _in_coroutine(lines, notes)   # review 17 P8: a top-level `await` does not compile
    names = code_names(lines[notes:])   # read once: for the imports and for the values to set
    if imports and names is not None:
        needed = imports_needed(lines[notes:], imports, names)
        lines[notes:notes] = needed
        if needed:   # what they import is bound too
            names = (names[0], names[1].union(*(_import_targets(line) for line in needed)), names[2])
    given = _values_to_set(names, made, unfed, loops)
    if given:
        shown = ", ".join(f"`{name}`" for name in given)
        one = len(given) == 1
        lines.insert(notes, f"# {shown}: {'a value' if one else 'values'} {function} makes before the check"
                            f" that these lines do not replay: set {'it as it is' if one else 'them as they are'} there")
    return "\n".join(lines)


#: `self.a = v`, `self.a, b = v`, `self.a: T = v` or `self.a += v`, on one line.
_SELF_STORE = re.compile(r"^(?P<pad>\s*)(?P<targets>(?:self\.\w+|\w+)(?:\s*,\s*(?:self\.\w+|\w+))*)"
                         r"\s*(?::[^=]+)?(?P<op>(?:[-+*/%|&^@]|//|\*\*|<<|>>)?=)(?!=)\s*(?P<value>.+)$")
_SIMPLE = re.compile(r"[\w.]+")
_BARE_SELF = re.compile(r"(?<![\w.])self\b(?!\s*\.)")
_SELF_READ = re.compile(r"(?<![\w.])self\.(\w+)\b")


def _stores_in_locals(code: list[str]) -> tuple[list[str], list[str]] | None:
    """The code with each `self.<a> = ...` line written as `<a> = ...` and the reads of `self.<a>`
    after it read from that local: a check run outside the function must not change the object it
    looks at (a ring index advanced, then advanced again by the call), nor need one that does not
    exist yet (an `__init__`'s). A store under a test (`if isinstance(self.p, list): self.p =
    tuple(self.p)`) first copies the attribute into the local. None when there is no store; a store
    whose local the code after it would read outside its block is left as it is."""
    if any(_BARE_SELF.search(line) for line in code if not line.startswith("#")):
        return None   # the object itself is read (`validate(self)`): what is set on it must be there
    taken = {m.group(0) for line in code if not line.startswith("#")
             for m in re.finditer(r"(?<![\w.])[A-Za-z_]\w*", line)}
    renamed: dict[str, str] = {}
    out: list[str] = []
    for i, entry in enumerate(code):
        if entry.startswith("#") or "self." not in entry:
            out.append(entry)
            continue
        parts = entry.split("\n")
        top = _indent(parts[0])
        rest = [line for later in code[i + 1:] if not later.startswith("#") for line in later.split("\n")]
        free = not any(_indent(line) < top for line in rest)   # no later line outside this entry's block
        written = []
        for j, line in enumerate(parts):
            m = _SELF_STORE.match(line)
            targets = [t.strip() for t in m.group("targets").split(",")] if m else []
            if not free or not any(t.startswith("self.") for t in targets) or (m.group("op") != "=" and len(targets) > 1):
                written.append(_read_locals(line, renamed))
                continue
            pad, value = m.group("pad"), _read_locals(m.group("value"), renamed)
            names = []
            for target in targets:
                if not target.startswith("self."):
                    names.append(target)
                    continue
                attr = target[5:]
                local = renamed.get(attr) or (attr if attr not in taken else f"self_{attr}")
                if attr not in renamed and (j or len(parts) > 1 and _indent(line) > top):
                    out.append(f"{' ' * top}{local} = self.{attr}")   # the store may not run: the value as it was
                if m.group("op") != "=":   # `self.n += 1`: the new value from the one read now
                    operand = value if _SIMPLE.fullmatch(value) else f"({value})"
                    value = f"{_read_locals(target, renamed)} {m.group('op')[:-1]} {operand}"
                renamed[attr] = local
                taken.add(local)
                names.append(local)
            written.append(f"{pad}{', '.join(names)} = {value}")
        out.append("\n".join(written))
    if not renamed:
        return None
    return out, list(dict.fromkeys(renamed.values()))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _read_locals(text: str, renamed: dict[str, str]) -> str:
    return _SELF_READ.sub(lambda m: renamed.get(m.group(1), m.group(0)), text)


def _gates(context: str, replayed: list[str]) -> tuple[dict[int, str], str | None]:
    """The path's test cut around the replayed lines: ({line index: the terms tested just before
    it}, the terms tested after the last line). A term goes before the first line that reads one of
    its names, once every line that binds them or hands them to a call (which may fill them:
    `encode(m, images=images)`) has run: its value is then the one the site sees, and the line runs
    only where the function runs it (`rule = rules[0]` past `if not rules: return`). A term that
    only tests what a name is (`x is None`, `isinstance(x, T)`) is not changed by a call on it."""
    if not replayed:
        return {}, context
    try:
        tree = ast.parse(context, mode="eval").body
    except SyntaxError:
        return {}, context
    values = tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else [tree]
    made = [loop_targets(line) if is_header(line) else assigned(line) for line in replayed]
    handed = [_handed_to_calls(line) for line in replayed]
    risky = [_risky_reads(line) for line in replayed]
    early: dict[int, list[str]] = {}
    rest: list[str] = []
    for value in values:
        term = _wrapped(value, ast.get_source_segment(context, value) or ast.unparse(value))
        names = names_in(term)
        changing = names - _identity_tested(value)
        start = 0
        for i in range(len(replayed)):
            if names & made[i] or changing & handed[i]:
                start = i + 1
        subjects = _subjects(value)
        need = next((i for i in range(start, len(replayed)) if subjects & risky[i]), None)
        (early.setdefault(need, []) if need is not None else rest).append(term)
    if not early:
        return {}, context
    return {i: " and ".join(terms) for i, terms in early.items()}, " and ".join(rest) or None


def _subjects(node: ast.expr) -> frozenset[str]:
    """What a term reads, each as its longest name or attribute chain (`self.cfg.n`, not `self`)."""
    inner: set[int] = set()   # chains inside a longer one
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute):
            inner.add(id(sub.value))
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Name, ast.Attribute)) and id(sub) not in inner:
            chain = dotted(sub)
            if chain is not None:
                found.add(chain)
    return frozenset(found)


_RISKY: dict[str, frozenset[str]] = {}


def _risky_reads(line: str) -> frozenset[str]:
    """The names and attribute chains a replayed line reads where a wrong value makes it raise: an
    attribute's or an item's object, a call's function and arguments, an iterable, an operand of
    arithmetic or of an ordering or `in` test (`rope.get(...)` with `rope` None); not one only
    tested for truth or identity. A line that does not parse counts as reading everything it names."""
    found = _RISKY.get(line)
    if found is not None:
        return found
    text = line.strip()
    try:
        tree = ast.parse(f"{text}\n    pass" if is_header(text) else text)
    except (SyntaxError, ValueError, RecursionError):
        tree = None
    if tree is None:
        found = names_in(line)
    else:
        positions: list[ast.expr] = []
        for node in ast.walk(tree):
            if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
                positions.append(node.value)
            elif isinstance(node, ast.Call):
                positions += [node.func, *node.args, *(k.value for k in node.keywords)]
            elif isinstance(node, (ast.comprehension, ast.For, ast.AsyncFor)):
                positions.append(node.iter)
            elif isinstance(node, ast.BinOp):
                positions += [node.left, node.right]
            elif isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                for op, left, right in zip(node.ops, operands, operands[1:]):
                    if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                        positions += [left, right]
                    elif isinstance(op, (ast.In, ast.NotIn)):
                        positions.append(right)
            elif isinstance(node, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets):
                positions.append(node.value)   # unpacked
        found = frozenset(chain for p in positions for chain in _prefixes_of(p))
    if len(_RISKY) < 100_000:
        _RISKY[line] = found
    return found


def _prefixes_of(node: ast.expr) -> list[str]:
    """A name or attribute chain with each chain it is built on (`a.b.c`: `a`, `a.b`, `a.b.c`)."""
    chain = dotted(node)
    if chain is None:
        return []
    parts = chain.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _identity_tested(node: ast.expr) -> frozenset[str]:
    """Names whose every read in `node` asks only what object they are (`x is None`, `x is not
    MISSING`, `isinstance(x, T)`): a method call on the object cannot change the answer."""
    asked: set[int] = set()   # the reads that are such operands, by node identity
    for sub in ast.walk(node):
        if isinstance(sub, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in sub.ops):
            asked.update(id(o) for o in (sub.left, *sub.comparators))
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in ("isinstance", "type") \
                and sub.args:
            asked.add(id(sub.args[0]))
    tested: set[str] = set()
    other: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            (tested if id(sub) in asked else other).add(sub.id)
    return frozenset(tested - other)


def _handed_to_calls(line: str) -> frozenset[str]:
    """Names and attribute chains a line passes to a call or calls a method of: what it may change
    in place."""
    try:
        tree = ast.parse(line.strip())
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for value in _handed(node):
                for inner in ast.walk(value):
                    chain = dotted(inner) if isinstance(inner, (ast.Name, ast.Attribute)) else None
                    if chain is not None:
                        found.add(chain)
    return frozenset(found)


def _wrapped(node: ast.expr, term: str) -> str:
    """A term of an `and` as written, bracketed again when it is an `or`, a lambda, a walrus or a
    conditional (as it was inside the `and`)."""
    return f"({term})" if isinstance(node, (ast.BoolOp, ast.Lambda, ast.NamedExpr, ast.IfExp)) else term


def _in_coroutine(lines: list[str], start: int) -> None:
    """The code from `start` on as the body of `async def check()`, as the function awaits in it."""
    body = [line if line.startswith("#") else "    " + line.replace("\n", "\n    ") for line in lines[start:]]
    lines[start:] = ["# the check awaits, as the function does: run it with asyncio.run(check())",
                     "async def check():", *body]


#: What a reporting site does, as validationCode's comment says it.
_REPORTS = {"log": "logs this", "warning": "warns with this", "response": "answers the request with this error",
            "returned": "returns this message as its error"}

#: Calls run for what they do besides giving a value: processes, requests, files, sockets, servers.
#: `x.start()` only as a statement (`pos = m.start()` is a match's offset).
_EFFECT = re.compile(
    r"(?<![\w.])(?:subprocess\.\w+|os\.(?:system|remove|unlink|rmdir|removedirs|makedirs|mkdir|kill|killpg|rename"
    r"|replace|truncate)|shutil\.(?:rmtree|move|copy\w*)|(?:requests|httpx)\.(?:get|post|put|patch|delete|head"
    r"|request)|(?:urllib\.request\.)?urlopen|time\.sleep|torch\.save|\w*launch_server\w*|popen_\w+)\s*\("
    r"|\.(?:launch\w*|send\w*|post|connect|bind|listen|write|writelines|write_text|write_bytes|mkdir|unlink"
    r"|rmdir|kill|terminate|recv\w*|sendall|save_pretrained|push_to_hub)\s*\(")
_STARTED = re.compile(r"^\s*(?:await\s+)?[\w.]+\.start\(")


def _effectful(line: str) -> bool:
    """A feeding line a snippet must not replay: it starts, sends, writes or waits (a statement
    opening a block is kept: the lines under it need it)."""
    return not is_header(line) and ("(" in line) and bool(_EFFECT.search(line) or _STARTED.match(line))


def _effect_call(line: str) -> str:
    """The call that makes `line` effectful, as `name(...)`."""
    found = _EFFECT.search(line) or _STARTED.match(line)
    text = found.group(0).strip() if found else line.strip()
    if text.startswith("."):   # a method: with its object
        head = line[:found.start()]
        owner = re.search(r"[\w.]*$", head)
        text = (owner.group(0) if owner else "") + text
    return text.rstrip("(").rstrip() + "(...)"


def code_names(code: list[str]) -> tuple[list[str], frozenset[str], frozenset[str]] | None:
    """What code (comment lines aside) reads, in walk order, what it binds (assignments, imports),
    and the parameters of its lambdas; None when it does not parse."""
    try:
        tree = ast.parse("\n".join(line for line in code if not line.startswith("#")))
    except SyntaxError:
        return None
    read: list[str] = []
    bound: set[str] = set()
    params: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                read.append(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, ast.alias):   # `import json` binds `json`
            bound.add(node.asname or node.name.partition(".")[0])
        elif isinstance(node, ast.arg):
            params.add(node.arg)
    return read, frozenset(bound), frozenset(params)


def imports_needed(code: list[str], imports: dict[str, str],
                   names: tuple[list[str], frozenset[str], frozenset[str]] | None = None) -> list[str]:
    """The import lines for the module-level names `code` reads and does not bind, in the order
    of the first read (`names`: `code_names(code)`, when the caller has it)."""
    names = names if names is not None else code_names(code)
    if names is None:
        return []
    read, bound, params = names
    out: list[str] = []
    for name in read:
        line = imports.get(name)
        if line is not None and name not in bound and name not in params:
            out.extend(part for part in line.split("\n") if part not in out)
    return out


def _values_to_set(names: tuple[list[str], frozenset[str], frozenset[str]] | None, feeding: list[str],
                   unfed: list[str] | None, loops: list[str] | None) -> list[str]:
    """Locals the code (`code_names` of it) reads and never binds that the function makes before the
    check: unfed ones (bound in a branch, a try, a with), those of feeding lines not shown (a
    container filled after `= []`, a `with ... as` target) and those of loops around the site that
    are not shown."""
    made = set(unfed or ())
    for line in (*feeding, *(loops or ())):
        made |= loop_targets(line) if is_header(line) else assigned(line)
    if not made or names is None:
        return []
    read, bound, _ = names
    return sorted((set(read) - bound) & made)


def _in_loops(used: frozenset[str], context: frozenset[str], feeding: list[str]
              ) -> tuple[list[str], list[str], list[str]]:
    """The feeding lines for a check inside a loop, split in three: up to the last loop header
    they need (each header opens the lines after it), then the lines the earlier guards read,
    then the test's own. ([], ..) when no header is among them."""
    for_context = feeding_for(context, feeding, loops=True) if context else []
    for_own = feeding_for(used, feeding, loops=True)
    wanted = set(for_context) | set(for_own)
    ordered = [line.strip() for line in feeding if line.strip() in wanted]
    headers = [i for i, line in enumerate(ordered) if is_header(line)]
    if not headers:
        return [], [], []
    nest, rest = ordered[:headers[-1] + 1], ordered[headers[-1] + 1:]
    before = [line for line in rest if line in for_context]
    return nest, before, [line for line in rest if line not in for_context]


def type_guard(cond: Condition, module: str | None = None, does: str = "raises") -> str | None:
    """A TypeGuard function for the isinstance test the site's condition makes, importing the
    types it names from the site's `module` (what the module names, it can be imported from).
    `does`: what the site does where the test holds, as its docstring says it (`fixes.report_verb`
    alone: "raises", "logs", "warns", ...; review 28 #19)."""
    text = _type_guard(cond, does)
    if text is None or not module:
        return text
    heads: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
            heads.update(n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name))
    heads = {h for h in heads if not hasattr(builtins, h)}
    if not heads:
        return text
    return _parsed(f"from {module} import {', '.join(sorted(heads))}\n" + text)


def _type_guard(cond: Condition, does: str = "raises") -> str | None:
    if "isinstance" not in cond.own_text:   # no isinstance call in the own test's source: no type test (most)
        return None
    own = cond.own
    tests = type_tests(own)
    if not tests or cond.is_except:
        return None
    dispatch = dispatch_types(cond)
    if dispatch is not None:   # earlier branches take other types: any of them passes
        subject, types = dispatch
        name = _guard_name(subject)
        text = (f"from typing import TypeGuard\n\n\ndef {name}(value: object) -> TypeGuard[{' | '.join(types)}]:\n"
                f"    \"\"\"True when `{subject}` is of a type the code handles; for any other, the site {does}.\"\"\"\n"
                f"    return isinstance(value, ({', '.join(types)}))\n")
        return _parsed(text)
    if tests_types_on_the_way(cond):   # other types take earlier branches: this test's alone says too little
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
    name = _guard_name(subject)
    # review 19 (presentation.py:201): `None` fails the guard but returns early, before the check
    reached = bool(cond.context or cond.guards)
    if negated:
        shown = " | ".join(t.strip() for t in types.strip("()").split(",") if t.strip()) \
            if types.startswith("(") else types
        passes = f"is {'one of' if types.startswith('(') else 'a'} `{types}`, which the check also needs" \
            if part_of_or else "passes the check"
        text = (f"from typing import TypeGuard\n\n\ndef {name}(value: object) -> TypeGuard[{shown}]:\n"
                f"    \"\"\"True when `{subject}` {passes}; where it is False"
                f"{' and the function reaches the check' if reached else ''}, the site {does}.\"\"\"\n"
                f"    return isinstance(value, {types})\n")
    else:
        text = (f"def {name}(value: object) -> bool:\n"
                f"    \"\"\"True when `{subject}` passes the check; for a {types}"
                f"{' reaching the check' if reached else ''}, the site {does}.\"\"\"\n"
                f"    return not isinstance(value, {types})\n")
    return _parsed(text)


def call_text(entry: str, method_of: str | None, binding: str | None = None, runs: str | None = None) -> str:
    """How code calls a function: `f(...)`, `Cls(...)` for a constructor, `obj.meth(...)` for a method,
    the operation for any other special method (`obj[key]`, `setattr(obj, name, value)`); `runs`
    (`errdex.siteRuns`): a coroutine is awaited, a generator consumed (`list(gen(...))`: its body,
    and so the raise, runs only as it is iterated), a context manager entered (`with cm(...): ...`)."""
    if runs and "autograd" in runs and method_of:   # a torch.autograd.Function: run through `apply`
        cls, short = method_of.rpartition(".")[2], entry.rpartition(".")[2]
        return f"{cls}.apply(...)" + (".backward(...)" if short == "backward" else "")
    text = _call_text(entry, method_of, binding)
    if not runs:
        return text
    call, sep, note = text.partition("  # ")
    if "context" in runs:
        call = f"{'async with' if 'async' in runs else 'with'} {call}: ..."
    elif "generator" in runs:
        call = f"[item async for item in {call}]" if "async" in runs else f"list({call})"
    elif "async" in runs:
        call = f"await {call}"
    return call + sep + note


def _call_text(entry: str, method_of: str | None, binding: str | None) -> str:
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


def try_catch(call: str, error_class: str, error_type: str, strategy: str, tag: str | None = None) -> str | None:
    """The nearest public entry point wrapped in try/except for the class, when catching it can
    lead somewhere: an alternative (fallback) or another attempt (retry). None otherwise, and
    for a log, a warning or an HTTP error answered, which raise nothing to catch (a report's `fallback` is what the code
    itself does)."""
    if error_type in ("log", "warning", "response", "returned") or tag == "deprecation":
        return None
    if strategy == "retry":   # transient: a few attempts with a growing pause, then the error itself
        return (f"import time\n\nfor attempt in range(3):\n    try:\n        {call}\n        break\n"
                f"    except {error_class}:\n        if attempt == 2:\n            raise\n"
                f"        time.sleep(2 ** attempt)\n")
    body = _STRATEGY_BODY.get(strategy)
    if body is None:
        return None
    return f"try:\n    {call}\nexcept {error_class} as exc:\n{body}\n"


def _guard_name(subject: str) -> str:
    """`is_valid_img` for `img`, `is_valid_self_cfg` for `self.cfg`."""
    return "is_valid_" + ("_".join(_IDENT.findall(subject)).lower() or "value")


def _parsed(text: str) -> str | None:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return text
