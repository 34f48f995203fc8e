"""Feeding values: the assignments that give an error site's names their values.

`feeding_values(scope, path, names)` is a backward slice restricted to
statements that dominate the site: assignments (plain, augmented,
annotated, tuple targets, attribute targets such as `self.n = ...`),
walruses in `if`/`while` tests and assignment values, and the bindings of
the compound statements on the path (`for c in ...`, `with ... as f`,
`except E as e`). Starting from `names` (identifiers, or expressions such
as `input.shape[-1]` whose names are taken), the slice follows definitions
backwards, transitively, and returns their source text in source order,
keeping the last `MAX_FEEDING`. Function parameters are not assignments.

Only the statement lists on the path and their preceding siblings are
visited; statements nested in a preceding `if` (loop, `try`, `with`) do not
dominate the site and are left out, and a name they may rebind ends its
slice there: the earlier value is then not what the site reads. Nor is an
initial container (`found = {}`) they fill in place (`found[k] = v`).
A short `if` that only assigns (`if s.ndim == 1: s = s[:, None]`) is shown
whole instead, as one multi-line entry, and the slice goes on through it:
code that replays the lines then reads what the site reads.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from keyword import kwlist

from errdex.analyze.changed import MUTATORS
from errdex.analyze.codegen import names_in
from errdex.analyze.exprs import side_memo, side_table
from errdex.analyze.flow import leaves
from errdex.analyze.names import dotted, read_chains, shallow_walruses, target_names
from errdex.analyze.purity import constant_display
from errdex.analyze.source import node_text, walrus_free

MAX_FEEDING = 8


@dataclass(slots=True)
class _Definition:
    """One binding that dominates the site."""

    text_of: ast.AST            # what to render
    targets: list[ast.expr]     # what it binds
    reads: ast.AST | None       # where its value comes from
    augmented: bool = False
    #: a compound statement's nested bindings, which may or may not run: they end the slice of
    #: the names they bind (an earlier `x = None` is then not what the site reads) and are not shown
    hidden: bool = False
    #: of a hidden definition: what its blocks change in place (`d[k] = v`, `seen.add(x)`)
    filled: frozenset[str] = frozenset()
    #: objects whose attributes a call may change (`self` of `self.reload()` or `helper(self)`): what
    #: the slice needs inside them (`self.limit`) ends here; the names themselves stay
    inside: tuple[str, ...] = ()   # as prefixes, `self.`: what `str.startswith` is given
    #: of such a call, a statement of its own (`stage.extract(inputs)`): its object, as a prefix; the
    #: call is shown when the slice needs something inside it (what it is given is more often only
    #: read: `configure_logger(server_args)`)
    shown_for: str = ""
    #: defines/kills/uses/text, computed once: definitions are kept on their statement
    #: and reused by every later site of the function.
    cached_defines: set[str] | None = None
    cached_kills: set[str] | None = None
    cached_uses: set[str] | None = None
    cached_text: str | None = None
    #: of a hidden `if`: itself as a shown definition (`shown_block`), False when it cannot be shown
    cached_block: object = None

    def defines(self) -> set[str]:
        found = self.cached_defines
        if found is None:
            found = self.cached_defines = self._defines()
        return found

    def kills(self) -> set[str]:
        found = self.cached_kills
        if found is None:
            found = self.cached_kills = self._kills()
        return found

    def uses(self) -> set[str]:
        found = self.cached_uses
        if found is None:
            found = self.cached_uses = self._uses()
        return found

    def text(self) -> str:
        found = self.cached_text
        if found is None:
            found = self.cached_text = self._text()
        return found

    def _defines(self) -> set[str]:
        out: set[str] = set()
        for target in self.targets:
            chain = dotted(target)
            out.update(target_names(target) if chain is None or "." not in chain else [chain])
        return out

    def _kills(self) -> set[str]:
        if self.augmented:
            return set()
        out: set[str] = set()
        for target in self.targets:
            if isinstance(target, (ast.Name, ast.Tuple, ast.List, ast.Starred)):
                out.update(n for n in target_names(target))
            elif (chain := dotted(target)) is not None:
                out.add(chain)
        return out

    def _uses(self) -> set[str]:
        found = set(read_chains(self.reads)) if self.reads is not None else set()
        if self.augmented:
            for target in self.targets:
                found |= read_chains(target)
        for target in self.targets:
            if isinstance(target, (ast.Attribute, ast.Subscript)) and dotted(target) is None:
                found |= read_chains(target)
        return found

    def _text(self) -> str:
        node = self.text_of
        if isinstance(node, (ast.For, ast.AsyncFor)):
            return f"for {node_text(node.target)} in {node_text(node.iter)}"
        if isinstance(node, ast.withitem):
            return f"with {ast.unparse(node)}"
        if isinstance(node, ast.ExceptHandler):
            kind = node_text(node.type) if node.type is not None else "BaseException"
            return f"except {kind} as {node.name}"
        return node_text(node)


#: Lines an `if` shown whole as one feeding entry may span.
BLOCK_LINES = 6
#: Statements that make an `if` more than assignments (it leaves, loops, or defines).
_NOT_SHOWN = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr,
              ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.Global, ast.Nonlocal, ast.For,
              ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match, ast.Delete,
              ast.Import, ast.ImportFrom, ast.Assert)


def shown_block(definition: _Definition) -> _Definition | None:
    """A hidden `if` as a definition shown whole: short, its blocks only plain assignments and
    calls (no `return`, loop, `try` or nested definition). None for anything else."""
    found = definition.cached_block
    if found is None:
        found = definition.cached_block = _block_of(definition.text_of) or False
    return found or None


def _block_of(stmt: ast.AST) -> _Definition | None:
    if stmt.__class__ is not ast.If or stmt.end_lineno - stmt.lineno >= BLOCK_LINES:
        return None
    for node in ast.walk(stmt):
        if isinstance(node, _NOT_SHOWN):
            return None
    block = _Definition(stmt, [], None)
    block.cached_text = ast.unparse(stmt)
    bound: set[str] = set()
    filled: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.stmt) and node is not stmt:
            _bound_by(node, bound, filled)
    block.cached_defines, block.cached_kills = bound | filled, set()
    block.cached_uses = set(read_chains(stmt))
    return block


def _walrus_definitions(expr: ast.expr | None) -> list[_Definition]:
    if walrus_free():
        return []   # what the search below finds in a file without `:=`
    return [_Definition(w, [w.target], w.value) for w in shallow_walruses(expr)]


def _statement_definitions(stmt: ast.stmt) -> list[_Definition]:
    """Bindings made by a preceding sibling that surely ran (once per statement, see `_BlockDefinitions`)."""
    kind = stmt.__class__   # statement kinds are told by class: the parser makes no subclasses
    if kind is ast.Assign:
        return [*_walrus_definitions(stmt.value), *_call_changes(stmt, stmt.value),
                _Definition(stmt, list(stmt.targets), stmt.value)]
    if kind is ast.Expr:
        return [*_walrus_definitions(stmt.value), *_call_changes(stmt, stmt.value)]
    if kind is ast.AugAssign:
        return [*_call_changes(stmt, stmt.value), _Definition(stmt, [stmt.target], stmt.value, augmented=True)]
    if kind is ast.AnnAssign and stmt.value is not None:
        return [*_call_changes(stmt, stmt.value), _Definition(stmt, [stmt.target], stmt.value)]
    if kind is ast.If or kind is ast.While:
        return [*_walrus_definitions(stmt.test), *_call_changes(stmt, stmt.test), *_may_bind(stmt)]
    if kind is ast.With or kind is ast.AsyncWith:
        if not any(_SWALLOWS.search(dotted(item.context_expr.func) or "") for item in stmt.items
                   if item.context_expr.__class__ is ast.Call):
            # past a `with` its body ran to its end (review 19 pattern 3: `with open(p) as f:
            # data = json.load(f)` then `if not data: raise`: `data` was listed as a local no
            # line feeds), unless its manager may swallow an error raised half-way through it
            return [*_with_definitions(stmt), *(d for s in stmt.body for d in _statement_definitions(s))]
        return [*_with_definitions(stmt), *_may_bind(stmt)]
    if (kind is ast.Try or kind is ast.TryStar) and all(leaves(h.body) for h in stmt.handlers):
        # past a try whose every handler leaves (or a `try`/`finally`, with none), its body, else
        # and finally blocks ran to their ends
        return [d for s in (*stmt.body, *stmt.orelse, *stmt.finalbody) for d in _statement_definitions(s)]
    if kind in _COMPOUND:
        return _may_bind(stmt)
    return []


_COMPOUND = (ast.For, ast.AsyncFor, ast.Try, ast.TryStar, ast.Match)
#: Context managers that may swallow an error raised inside their block (`pytest.raises`,
#: `self.assertRaises`, `contextlib.suppress`): the block may stop half-way and the code go on.
_SWALLOWS = re.compile(r"raises|suppress|ignore|catch|expect|warns", re.I)
_NESTED_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


#: Calls that read their arguments and change nothing in them.
_READING_CALLS = frozenset({
    "len", "isinstance", "issubclass", "str", "repr", "int", "float", "bool", "print", "getattr", "hasattr",
    "type", "id", "sorted", "list", "tuple", "set", "frozenset", "dict", "min", "max", "sum", "any", "all",
    "enumerate", "zip", "range", "abs", "round", "format", "hash", "iter", "reversed", "callable", "divmod",
})
#: Methods that read their object: called, they change no attribute of it.
_READING_METHODS = frozenset({
    "get", "items", "keys", "values", "copy", "format", "startswith", "endswith", "count", "index", "find",
    "lower", "upper", "strip", "lstrip", "rstrip", "split", "rsplit", "join", "encode", "decode", "replace",
    "size", "dim", "numel", "item", "tolist", "debug", "info", "warning", "warn", "error", "exception",
    "critical", "log",
})


#: Names of calls that assert on their arguments, not change them (`assert_called_once_with`,
#: `_assert_inactive`, `response.raise_for_status()`); a `validate()` may fill in defaults, so only these.
_CHECKING = ("assert", "raise_for_")


def _call_changes(stmt: ast.stmt, expr: ast.expr | None) -> list[_Definition]:
    """One hidden definition for the objects whose attributes the call `expr` may change (the
    statement's own call, not those nested in its arguments: a walk of every expression would cost
    as much as the rest of the slice): the object of a method call (`self.reload()`), and what is
    passed to it (`helper(self)`)."""
    bases = _changed_by(expr)
    if not bases:
        return []
    receiver = _receiver(expr) if stmt.__class__ in _SHOWN_CALLS else None
    if receiver in ("self", "cls") and stmt.__class__ is not ast.Expr:
        # review 27 #19: `logits = self.gate(h)` computes a value (a submodule's forward, a getter):
        # shown before an assert on `self.shared_experts` it fed nothing; `self.reload()` alone is shown
        receiver = None
    hidden = _Definition(stmt, [], None, hidden=True, inside=tuple(sorted(b + "." for b in bases)),
                         shown_for=receiver + "." if receiver in bases else "")
    hidden.cached_defines = hidden.cached_kills = set()
    hidden.cached_uses = set()
    return [hidden]


#: Statements whose method call is shown for what it may change in its object: a call of its own,
#: or one whose result is bound (`put_ret = self.store.put(key, v)` before a check of
#: `self.store.is_exist(key)`, review 20 #25423).
_SHOWN_CALLS = (ast.Expr, ast.Assign, ast.AnnAssign)


def _receiver(expr: ast.expr) -> str | None:
    """The object whose method the call (awaited or not) is: `stage` of `stage.extract(x)`."""
    if expr.__class__ is ast.Await:
        expr = expr.value
    func = expr.func if expr.__class__ is ast.Call else None
    return dotted(func.value) if func.__class__ is ast.Attribute else None


def _changed_by(expr: ast.expr | None) -> set[str]:
    """Chains whose attributes the call `expr` (awaited or not) may change; empty for anything else."""
    if expr is not None and expr.__class__ is ast.Await:
        expr = expr.value
    if expr is None or expr.__class__ is not ast.Call:
        return set()
    bases: set[str] = set()
    func = expr.func
    if func.__class__ is ast.Attribute:
        if func.attr.lstrip("_").startswith(_CHECKING):
            return bases
        if func.attr not in _READING_METHODS and not func.attr.startswith(("is_", "has_", "get_")):
            chain = dotted(func.value)
            if chain is not None:
                bases.add(chain)
    elif func.__class__ is ast.Name and (func.id in _READING_CALLS or func.id.lstrip("_").startswith(_CHECKING)):
        return bases
    for arg in (*expr.args, *(k.value for k in expr.keywords)):
        chain = dotted(arg.value if arg.__class__ is ast.Starred else arg)
        if chain is not None:
            bases.add(chain)
    return bases


def _may_bind(stmt: ast.stmt) -> list[_Definition]:
    """The names and attribute chains bound inside a compound statement's blocks, as one hidden
    definition (none when it binds nothing): `info = None` then `try: info = load()` does not
    give the site `info = None`."""
    bound: set[str] = set()
    filled: set[str] = set()
    inside: set[str] = set()   # objects a call statement in its blocks may change (`self.reload()`)
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if node is not stmt:
            _bound_by(node, bound, filled)
            value = getattr(node, "value", None)
            if value is not None and value.__class__ in (ast.Call, ast.Await):
                inside |= _changed_by(value)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in _NESTED_BLOCKS:
            stack.extend(getattr(node, field, ()) or ())
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        _targets(stmt.target, bound, filled)
    if not bound and not filled and not inside:
        return []
    hidden = _Definition(stmt, [], None, hidden=True, filled=frozenset(filled),
                         inside=tuple(sorted(b + "." for b in inside)))
    hidden.cached_defines = bound | filled   # so the slice stops at it; it ends only what it binds
    hidden.cached_kills = bound
    hidden.cached_uses = set()
    return [hidden]


def _bound_by(stmt: ast.AST, out: set[str], filled: set[str]) -> None:
    """What one nested statement binds (`out`: names, attribute chains such as `self.n`) or
    changes in place (`filled`: `d` of `d[k] = v`, `seen` of `seen.add(x)`)."""
    kind = stmt.__class__
    if kind is ast.Assign:
        for target in stmt.targets:
            _targets(target, out, filled)
    elif kind in (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor):
        _targets(stmt.target, out, filled)
    elif kind is ast.Expr and stmt.value.__class__ is ast.Call:
        func = stmt.value.func
        if func.__class__ is ast.Attribute and (func.attr in MUTATORS or func.attr.endswith("_")
                                               and not func.attr.startswith("_")):
            chain = dotted(func.value)
            if chain is not None:
                filled.add(chain)
    elif kind in (ast.With, ast.AsyncWith):
        for item in stmt.items:
            if item.optional_vars is not None:
                _targets(item.optional_vars, out, filled)
    elif kind is ast.ExceptHandler and stmt.name:
        out.add(stmt.name)
    elif kind in (ast.Import, ast.ImportFrom):
        out.update((a.asname or a.name).split(".")[0] for a in stmt.names)
    elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        out.add(stmt.name)
    elif kind is ast.Delete:
        for target in stmt.targets:
            _targets(target, out, filled)
    if not walrus_free():
        for value in ast.walk(stmt) if kind not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) else ():
            if isinstance(value, ast.NamedExpr):
                out.add(value.target.id)


def _targets(target: ast.expr, out: set[str], filled: set[str]) -> None:
    if isinstance(target, ast.Name):
        out.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _targets(element, out, filled)
    elif isinstance(target, ast.Starred):
        _targets(target.value, out, filled)
    elif isinstance(target, ast.Attribute):
        chain = dotted(target)
        if chain is not None:
            out.add(chain)
    elif isinstance(target, ast.Subscript):
        chain = dotted(target.value)
        if chain is not None:
            filled.add(chain)


def _with_definitions(stmt: ast.With | ast.AsyncWith) -> list[_Definition]:
    return [_Definition(item, [item.optional_vars], item.context_expr)
            for item in stmt.items if item.optional_vars is not None]


_ENTRIES = side_table()


def _entry_definitions(element: ast.AST, child: ast.AST) -> list[_Definition]:
    """Bindings made by a compound statement on the path before `child` runs.

    Kept per statement, so every site inside it shares their texts and name sets.
    """
    if isinstance(element, (ast.For, ast.AsyncFor)) and child not in element.body:
        return []
    hit = _ENTRIES.get(id(element))   # `side_memo`'s lookup, inlined for the hits
    return hit[1] if hit is not None else side_memo(_ENTRIES, element, _new_entry_definitions)


def _new_entry_definitions(element: ast.AST) -> list[_Definition]:
    """`_entry_definitions` for a child inside the statement's body (the loop body for `for`)."""
    if isinstance(element, (ast.For, ast.AsyncFor)):
        return [*_loop_carried(element), _Definition(element, [element.target], element.iter)]
    if isinstance(element, ast.While):
        return [*_loop_carried(element), *_walrus_definitions(element.test)]
    if isinstance(element, ast.If):
        return _walrus_definitions(element.test)
    if isinstance(element, (ast.With, ast.AsyncWith)):
        return _with_definitions(element)
    if isinstance(element, ast.ExceptHandler) and element.name:
        return [_Definition(element, [ast.Name(element.name)], None)]
    return []


def _loop_carried(loop: ast.For | ast.AsyncFor | ast.While) -> list[_Definition]:
    """What the loop body binds or fills anywhere, as one hidden definition at the loop's entry: from
    the second pass on, `total = 0` before the loop is not what a site inside it reads when the body
    goes on to `total = total + n`. A `for`'s own targets are bound afresh each pass (by its header)."""
    found = _may_bind(loop)
    if not found or not isinstance(loop, (ast.For, ast.AsyncFor)):
        return found
    hidden = found[0]
    own: set[str] = set()
    _targets(loop.target, own, set())
    bound = hidden.cached_kills - own
    if not bound and not hidden.filled:
        return []
    hidden.cached_kills = bound
    hidden.cached_defines = bound | hidden.filled
    return [hidden]


class _BlockDefinitions:
    """The definitions of a block's statements in order, worked out as far as a site needs them.

    Every later site in the block reuses them; `ends[k]` counts the
    definitions of the first k statements.
    """

    __slots__ = ("block", "flat", "ends", "positions")

    def __init__(self, block: list[ast.AST]) -> None:
        self.block = block
        self.flat: list[_Definition] = []
        self.ends = [0]
        self.positions = {id(s): i for i, s in enumerate(block)}

    def count_before(self, element: ast.AST) -> int:
        """How many definitions the statements before `element` make (all of the block's if it is not in it)."""
        block = self.block
        position = self.positions.get(id(element))
        limit = position if position is not None and block[position] is element else len(block)
        ends, flat = self.ends, self.flat
        while len(ends) <= limit:
            flat.extend(_statement_definitions(block[len(ends) - 1]))
            ends.append(len(flat))
        return ends[limit]


_BLOCKS = side_table()


def _child_block(element: ast.AST, child: ast.AST) -> list[ast.AST] | None:
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        stmts = getattr(element, name, None)
        if stmts and child in stmts:   # AST nodes compare by identity
            return stmts
    return None


def _needed(names: Iterable[str]) -> set[str]:
    names = names if isinstance(names, (set, frozenset)) else set(names)
    plain = {name for name in names if name.isidentifier()}
    need = plain - _KEYWORDS   # no definition binds a keyword: it could never feed anything
    if len(plain) < len(names):
        for name in names - plain:   # an expression: its names and attribute chains (a regex, cached per text)
            need |= {n for n in names_in(name) - _KEYWORDS if "." in n or _read_bare(n, name)}
    return need


def _read_bare(name: str, expr: str) -> bool:
    """Whether the expression reads `name` itself, not only as an attribute (`runtime_quant_config` of
    `quant_spec.runtime_quant_config` is no local: review 29 #21 fed it from `runtime_quant_config = ...`)."""
    start = expr.find(name)
    while start >= 0:
        end = start + len(name)
        if (start == 0 or not (expr[start - 1].isalnum() or expr[start - 1] in "._")) \
                and (end == len(expr) or not (expr[end].isalnum() or expr[end] == "_")):
            return True
        start = expr.find(name, start + 1)
    return False


_KEYWORDS = frozenset(kwlist)


def _full(kept: list[_Definition]) -> bool:
    """`MAX_FEEDING` statements kept, each counted once (review 27 #17: a statement kept twice, for the
    name it binds and for what its call changes, took two places and left out the first assignment)."""
    return len(kept) >= MAX_FEEDING and len({id(d.text_of) for d in kept}) >= MAX_FEEDING


def _texts(kept: list[_Definition]) -> list[str]:
    """The kept definitions' texts in source order, each statement once (one bound from a call
    may be kept both for the name it binds and for what its call changes)."""
    out: list[str] = []
    seen: set[int] = set()
    for d in reversed(kept):
        if id(d.text_of) not in seen:
            seen.add(id(d.text_of))
            out.append(d.text())
    return out


def _whole(chains: set[str] | frozenset[str]) -> set[str]:
    """The chains of a read set that are not the prefix of a longer one in it: read as they are."""
    return {c for c in chains if not any(o.startswith(c) and o[len(c):len(c) + 1] == "." for o in chains)}


def _stores_into(defines: set[str], whole: set[str]) -> bool:
    """Whether a definition sets an attribute of an object the slice reads whole (`module.mapping`
    of `module`), the function's own instance aside (`self.x = ...` stores are what the function
    does to it, not what a value it is given holds)."""
    for chain in defines:
        head, dot, _ = chain.partition(".")
        if dot and head not in ("self", "cls") and any(
                chain.startswith(owner) and chain[len(owner):len(owner) + 1] == "." for owner in whole):
            return True
    return False


def _surviving(need: set[str], kills: set[str]) -> set[str]:
    """The needed names that are neither killed nor inside a killed one (`self.n.k` after `self.n = ...`).

    `kills` holds only needed names: a needed name's prefixes are all needed too.
    """
    inside = tuple(f"{k}." for k in kills)
    return {n for n in need if n not in kills and not n.startswith(inside)}


def _dominating_groups(scope: ast.AST, path: Sequence[ast.AST]) -> list[tuple[list[_Definition], int]]:
    """The definitions that dominate the site, in groups `(definitions, count)` whose first `count`
    dominate, outermost first (block prefixes are read in place, not copied)."""
    groups: list[tuple[list[_Definition], int]] = []
    block: list[ast.AST] | None = getattr(scope, "body", None)
    for index, element in enumerate(path):
        if block and block[0] is not element:   # nothing precedes a block's first statement
            hit = _BLOCKS.get(id(block))   # `side_memo`'s lookup, inlined for the hits
            definitions = hit[1] if hit is not None else side_memo(_BLOCKS, block, _BlockDefinitions)
            groups.append((definitions.flat, definitions.count_before(element)))
        child = path[index + 1] if index + 1 < len(path) else None
        if child is None:
            break
        entry = _entry_definitions(element, child)
        if entry:
            groups.append((entry, len(entry)))
        block = _child_block(element, child)
    return groups


def feeding_values(scope: ast.AST, path: Sequence[ast.AST], names: Iterable[str]) -> list[str]:
    """Source of the dominating assignments that feed `names` (see module doc).

    The needed names hold every dotted prefix of their chains (`self`, `self.n`
    with `self.n.k`: `read_chains` gives them all, and a kill drops a chain with
    everything inside it), so they are also exactly what a definition must bind
    to feed them.
    """
    need = _needed(names)
    if not need:
        return []
    whole = _whole(need)   # read as they are, not only through their attributes (`len(items)`)
    kept: list[_Definition] = []
    filled: set[str] = set()   # changed in place by a compound statement before the site
    for definitions, count in reversed(_dominating_groups(scope, path)):
        for position in range(count - 1, -1, -1):   # the last definition first
            definition = definitions[position]
            inside = definition.inside
            if inside:   # a call may change these objects' attributes: what is inside them ends
                dead = {n for n in need if n.startswith(inside)}
                shown_for = definition.shown_for
                if shown_for and shown_for[:-1] in whole and shown_for[:-1] in need:
                    # the object itself is read (`"vae" in index` after `index.pop("x")`, `len(items)`
                    # after `items.append(x)`): its method changed it in place (review 19 pattern 2)
                    dead.add(shown_for)
                if dead and shown_for and any(n.startswith(shown_for) for n in dead):
                    # ... unless the call is a statement of its own (`stage.extract(inputs)`): shown,
                    # the replay changes them as the function does (review 18: a check replaying
                    # `stage = make()` alone read the attributes the calls after it fill)
                    kept.append(definition)
                    if _full(kept):
                        return _texts(kept)
                    added = read_chains(definition.text_of)
                    need |= added
                    whole |= _whole(added)
                    continue
                if dead:
                    need = need - dead
            defines = definition.cached_defines
            if defines is None:
                defines = definition.defines()
            if need.isdisjoint(defines):
                if definition.hidden or not _stores_into(defines, whole):
                    continue
                # review 22 #11: `module.mapping = {...}` after `module = Module()`, the object then
                # read whole (`resolve(module, "proj")`): what the call reads in it is set here
                kept.append(definition)
                if _full(kept):
                    return _texts(kept)
                need |= definition.uses()
                whole |= _whole(definition.uses())
                continue
            if definition.hidden:   # may have rebound them: what the site reads is not shown
                killed = need & definition.kills()
                block = shown_block(definition) if killed else None
                if block is not None:   # ... unless it is a short `if` that only assigns: shown whole
                    kept.append(block)
                    if _full(kept):
                        return _texts(kept)
                    need |= block.uses()   # the names stay needed: the branch may not run
                    whole |= _whole(block.uses())
                    continue
                need = _surviving(need, killed)
                if definition.filled:
                    filled |= definition.filled
                continue
            if filled and definition.reads is not None and not filled.isdisjoint(definition.defines()) \
                    and constant_display(definition.reads):
                # `found = {}` filled in place later: shown, it would claim `found` stays empty
                need = _surviving(need, need & definition.kills())
                continue
            kept.append(definition)
            if _full(kept):
                return _texts(kept)
            kills = definition.kills()
            dead = kills & need if kills else kills
            if dead:
                need = _surviving(need, dead)
            need |= definition.uses()
            whole |= _whole(definition.uses())
    return _texts(kept)
