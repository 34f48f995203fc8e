"""A site's trigger condition, taken apart for the generated fields.

The condition (`errdex.condition`) is a conjunction: the guards that earlier
checks in the function leave standing, then the test right before the raise.
The generated code and prose work on that last test (`own_test`), negate it
without changing its meaning (`negate`), read bounds off it (`bounds`) and say
it in words (`describe`).
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from errdex.analyze.exprs import memo
from errdex.exprsplit import split_top_level

_FLIP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
         ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_OP_TEXT = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
            ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
#: `not a >= b` in words: the opposite order, which NaN also meets (no order holds for it).
_NOT_ORDER = {ast.GtE: "is less than", ast.Gt: "is at most", ast.LtE: "is greater than", ast.Lt: "is at least"}
_OP_WORDS = {ast.Eq: "equals", ast.NotEq: "differs from", ast.Lt: "is less than", ast.LtE: "is at most",
             ast.Gt: "is greater than", ast.GtE: "is at least", ast.Is: "is", ast.IsNot: "is not",
             ast.In: "is one of", ast.NotIn: "is not one of"}
_MAX_WORDS_PARTS = 4
#: Right sides of `in` that are plainly values to pick from: "is one of" them.
_DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict)


class Condition:
    """A parsed trigger condition: the earlier guards and the test right before the raise.

    A plain slotted class, not a dataclass: the runtime hook reads it too, and the
    dataclasses module would add ~5 ms to a crashing process's start-up.
    """

    __slots__ = ("text", "tree", "guards", "own", "own_text", "neg", "constant", "context")

    def __init__(self, text: str, tree: ast.expr | None, guards: list[str] | None = None,
                 own: ast.expr | None = None, own_text: str = "", neg: str = "",
                 constant: bool | None = None, context: str = "") -> None:
        self.text = text
        self.tree = tree
        self.guards = guards if guards is not None else []   # earlier checks that passed, as one text (or none)
        self.own = own
        self.own_text = own_text     # the own test as source ("" when there is none)
        self.neg = neg               # the own test negated, as source
        self.constant = constant     # the whole condition when it is a literal True/False
        self.context = context       # the rest of the site's own path, ahead of the own test (`a` of `if a and b:`)

    def __repr__(self) -> str:
        return f"Condition({self.text!r}, own={self.own_text!r}, context={self.context!r})"

    @property
    def is_except(self) -> bool:
        """The site re-reports a failure: a `raised(call, E)` fact holds (one that did not happen,
        `not raised(...)` past a try whose handlers all leave, is an earlier check)."""
        text = self.text
        return "raised(" in text and _RAISED_FACT.search(text) is not None and any(
            map(failure_fact, split_conjuncts(text)))


def parse_condition(text: str | None, guard: str | None = None) -> Condition:
    """The condition's own test, parsed: the last conjunct (or a trailing run of exclusions on
    one name) of the site's `guard` when the analysis gave one, else of the whole condition.

    Conjuncts of the condition outside the guard are earlier checks that passed
    (`guards`); the guard's conjuncts ahead of the own test are the rest of the
    site's path (`context`: an enclosing `if`, or `a` of `if a and b: raise`).
    Neither is an earlier check, so the generated fields keep them apart.
    The conjuncts are found from the right (`tail_conjuncts`), so a condition
    of thirty guards costs one small parse, not a large one.
    """
    text = text or ""
    path = guard if guard and guard not in ("True", "False") else None   # the site's own path, when known
    earlier = _earlier_checks(text, path) if path is not None else ""
    rest, tail = tail_conjuncts(path if path is not None else text)
    own = _parse_cached(" and ".join(tail)) if tail else None
    if own is None and rest:   # brackets inside strings fooled the quick split
        parts = split_conjuncts(path if path is not None else text)
        rest, tail = " and ".join(parts[:-1]), parts[-1:]
        own = _parse_cached(tail[0]) if tail else None
    head, context = (earlier, rest) if path is not None else (rest, "")
    cond = Condition(text, own, [head] if head else [], own, context=context)
    _CURRENT[0] = own
    _CURRENT_TEXT[0] = text
    if own is not None:
        # Computed once per parsed test (records often share one): the prose and every code field use them.
        texts = getattr(own, "_errdex_texts", None)
        if texts is None:
            texts = own._errdex_texts = (code(own), negate_code(own))  # type: ignore[attr-defined]
        cond.own_text, cond.neg = texts
        if head or context:
            cond.tree = ast.BoolOp(ast.And(), [ast.Name("_guard"), own])
        elif isinstance(own, ast.Constant) and isinstance(own.value, bool):
            cond.constant = own.value
    return cond


def _earlier_checks(text: str, guard: str) -> str:
    """The conjuncts of the condition outside the site's guard, as text ("" when there are none):
    checks earlier in the function that passed. The guard is usually the condition's tail; when
    its conjuncts are interleaved with earlier checks (`if a: ...; if not b: raise; if c: raise`
    gives `a and b and c` for the guard `a and c`), the conjuncts not in the guard are (review 27:
    the site's own test was listed among the earlier checks of ~1,150 pages)."""
    if guard == text:
        return ""
    if text.endswith(" and " + guard):
        return text[: len(text) - len(guard) - 5].strip()
    if text.endswith(f" and ({guard})"):   # an `or` guard, bracketed as a conjunct (review 28 #11)
        return text[: len(text) - len(guard) - 7].strip()
    own = {_unbracketed(c) for c in split_conjuncts(guard)}
    return " and ".join(c for c in split_conjuncts(text) if _unbracketed(c) not in own)


def _unbracketed(text: str) -> str:
    """A conjunct without the brackets around the whole of it (`(a or b)` is `a or b`)."""
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(text) - 1:
                return text   # `(a) or (b)`: the first bracket closes before the end
        text = text[1:-1].strip()
    return text


def own_test_source(text: str | None, guard: str | None = None) -> str | None:
    """The own test of `parse_condition` as written (its conjuncts joined), without parsing it:
    what readers of its words need (`tags`). ~30x cheaper than `parse_condition`; on sglang
    0.5.23 every record's tags and backgroundTag come out the same from either."""
    text = text or ""
    path = guard if guard and guard not in ("True", "False") else None
    tail = tail_conjuncts(path if path is not None else text)[1]
    return " and ".join(tail) if tail else None


def tail_conjuncts(text: str) -> tuple[str, list[str]]:
    """(the earlier conjuncts as text, the own test's parts), splitting at depth-0 ` and ` from the right."""
    end = len(text)
    parts: list[str] = []
    subject = None
    while True:
        at = _balanced_split(text, end)
        part = text[at + 5 if at >= 0 else 0:end].strip()
        if parts and (subject is None or _excluded_subject(part) != subject):
            return text[:end].strip(), parts
        parts.insert(0, part)
        subject = _excluded_subject(part)
        if at < 0:
            return "", parts
        end = at


def _balanced_split(text: str, end: int) -> int:
    """Rightmost ` and ` before `end` whose right side has balanced brackets and quotes, else -1."""
    at = text.rfind(" and ", 0, end)
    while at >= 0:
        seg = text[at + 5:end]
        if (seg.count("(") == seg.count(")") and seg.count("[") == seg.count("]")
                and seg.count("{") == seg.count("}") and seg.count("'") % 2 == 0 and seg.count('"') % 2 == 0):
            return at
        at = text.rfind(" and ", 0, at)
    return -1


_PARSED: dict[str, ast.expr | None] = {}


def _parse_cached(text: str) -> ast.expr | None:
    if text in _PARSED:
        return _PARSED[text]
    try:
        node = ast.parse(text, mode="eval").body if text.strip() else None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        node = None
    if node is not None:
        node._errdex_root = (text, None if text.isascii() else text.encode())  # type: ignore[attr-defined]
    if len(_PARSED) < 100_000:
        _PARSED[text] = node
    return node


#: A `raised(` that is not negated.
_RAISED_FACT = re.compile(r"(?<!not )\braised\(")
_EXCLUDES = re.compile(r"^([A-Za-z_][\w.]*) (?:!=|not in) ")


def _excluded_subject(part: str) -> str | None:
    """`backend != 'x'` / `backend not in (...)` -> `backend`: a run of these is one test (the else of a chain)."""
    m = _EXCLUDES.match(part)
    return m.group(1) if m else None


def split_conjuncts(text: str) -> list[str]:
    """`a and (b or c) and d` -> [`a`, `(b or c)`, `d`], respecting brackets and string literals."""
    if " and " not in text:
        return [text.strip()] if text.strip() else []
    parts = [p.strip() for p in split_top_level(text, " and ")]
    if any(p.startswith(("lambda", "not ")) and ":" in p for p in parts):
        return [text.strip()]
    return [p for p in parts if p]


_CURRENT_TEXT: list = [""]
_CURRENT: list = [None]   # the own test parsed last: the generated fields work on one record at a time


def code(node: ast.expr) -> str:
    """Source text of a node of the current condition (sliced from its text, not unparsed)."""
    root_node = _CURRENT[0]
    root = getattr(root_node, "_errdex_root", None)
    if root is not None and getattr(node, "lineno", 0) == 1 and getattr(node, "end_lineno", 0) == 1:
        text, raw = root
        return raw[node.col_offset:node.end_col_offset].decode() if raw else text[node.col_offset:node.end_col_offset]
    return ast.unparse(node)


#: Expressions that bind tighter than `not`: `not x.y[0]` needs no brackets.
ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)
#: Calls that answer True or False: a test of one is "is False", not "is falsy".
_BOOL_BUILTINS = frozenset({"callable", "hasattr", "isinstance", "issubclass", "all", "any", "bool"})
_BOOL_METHODS = frozenset({
    "startswith", "endswith", "isdigit", "isalpha", "isalnum", "isnumeric", "isdecimal", "isspace",
    "islower", "isupper", "isidentifier", "isascii", "exists", "is_file", "is_dir", "is_contiguous",
    "is_available", "is_floating_point", "is_complex", "equal", "allclose", "array_equal", "issubset",
    "issuperset", "isdisjoint", "isfile", "isdir", "isabs", "islink",
})
_BOOL_PREFIXES = ("is_", "has_", "can_", "should_", "supports_", "use_")


def returns_bool(node: ast.expr) -> bool:
    """Whether a call answers True or False: a builtin predicate, a predicate method of str, pathlib
    and torch, or a function named as one (`is_`, `has_`, `can_`...)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if isinstance(func, ast.Name) and name in _BOOL_BUILTINS:
        return True
    return name in _BOOL_METHODS or name.startswith(_BOOL_PREFIXES)
#: Names that say a value is a flag (`seq_lens.is_cuda`, `enable_mixed_chunk`): tested alone, True or False.
_FLAG_PREFIXES = (*_BOOL_PREFIXES, "enable_", "disable_", "allow_", "needs_", "requires_", "skip_", "force_")
_FLAG_WORDS = frozenset({"enabled", "disabled", "training", "debug", "verbose", "is_cuda", "requires_grad"})


def flag_named(node: ast.expr) -> bool:
    """A name or attribute named as a flag: "`x.is_cuda` is False", where "falsy" would hedge over
    kinds of value it never holds."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    name = name.lower().lstrip("_")
    return name in _FLAG_WORDS or name.startswith(_FLAG_PREFIXES)


_WHOLE_CALLS = frozenset({"len", "int", "round", "numel", "dim", "bit_length", "count", "index", "element_size",
                          "nelement", "get_device", "cdiv", "next_power_of_2", "ndimension"})
_WHOLE_OPS = (ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)


#: Names the record at hand binds to integers only (`never_nan`), and constants (ALL_CAPS):
#: no NaN reaches an order test on them either.
_NOT_NAN: list[frozenset[str]] = [frozenset()]


def never_nan(names: frozenset[str]) -> None:
    """Set the names of the record being written that its code makes integers (`int(...)`, unpacked
    from `t.shape`), for the NaN words of `describe` (review 27 #9, #15)."""
    _NOT_NAN[0] = names


_ASSIGNED = re.compile(r"^\s*([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*(\+|-|\*|//|/|%|)=(?!=)\s*(.+?)\s*$")
_CHAIN = re.compile(r"[A-Za-z_][\w.]*")


def integer_assignments(lines: list[str], test: str) -> frozenset[str]:
    """The names (and `a.b` chains) `test` reads that every one-line assignment among `lines` makes an
    integer: `_whole_number` values (`int(x)`, `len(x)`, `n % m` of such), or parts unpacked from
    `t.shape` / `t.size()`. A name assigned anything else there (or over several lines) is left out."""
    wanted = set(_CHAIN.findall(test))
    verdict: dict[str, bool] = {}
    for line in lines:
        m = _ASSIGNED.match(line)
        if m is None:
            continue
        targets = [t.strip() for t in m.group(1).split(",")]
        if wanted.isdisjoint(targets):
            continue
        known = frozenset(n for n, ok in verdict.items() if ok)
        try:
            value = ast.parse(m.group(3), mode="eval").body
        except SyntaxError:   # a value continued on the next lines
            value = None
        if value is None or m.group(2) not in ("", "+", "-", "*", "//", "%"):
            whole = False
        elif len(targets) > 1:
            whole = _sizes(value)
        else:
            whole = _whole_number(value, known)
        for t in targets:
            if t in wanted:
                verdict[t] = verdict.get(t, True) and whole
    return frozenset(n for n, ok in verdict.items() if ok)


def _sizes(node: ast.expr) -> bool:
    """`t.shape`, `t.shape[:2]`, `t.size()`: a tuple of sizes, each an integer."""
    if node.__class__ is ast.Subscript and node.slice.__class__ is ast.Slice:
        node = node.value
    if node.__class__ is ast.Call and not node.args and node.func.__class__ is ast.Attribute:
        return node.func.attr == "size"
    return node.__class__ is ast.Attribute and node.attr == "shape"


def _constant(name: str) -> bool:
    return len(name) > 1 and name.isupper()


def _whole_number(node: ast.expr, known: frozenset[str] | None = None) -> bool:
    """Whether the expression is an integer by its form (an int literal, `len(x)`, `t.dim()`,
    `t.ndim`, `t.shape[0]`, `a % b`, `a & b`), a name the code makes one (`known`, by default the
    record's `never_nan` names) or a constant: no NaN can reach an order test on it."""
    if known is None:
        known = _NOT_NAN[0]
    cls = node.__class__
    if cls is ast.Constant:
        return node.value.__class__ is int
    if cls is ast.Name:
        return node.id in known or _constant(node.id)
    if cls is ast.Call:
        func = node.func
        name = func.id if func.__class__ is ast.Name else func.attr if func.__class__ is ast.Attribute else ""
        return name in _WHOLE_CALLS
    if cls is ast.Attribute:
        return node.attr in ("ndim", "itemsize") or _constant(node.attr) or bool(known and ast.unparse(node) in known)
    if cls is ast.Subscript:
        return node.value.__class__ is ast.Attribute and node.value.attr == "shape" \
            and node.slice.__class__ is not ast.Slice
    if cls is ast.BinOp:
        if node.op.__class__ in _WHOLE_OPS:
            return node.op.__class__ not in (ast.FloorDiv, ast.Mod) or (
                _whole_number(node.left, known) and _whole_number(node.right, known))
        return node.op.__class__ in (ast.Add, ast.Sub, ast.Mult) and _whole_number(node.left, known) \
            and _whole_number(node.right, known)
    if cls is ast.UnaryOp:
        return node.op.__class__ is ast.USub and _whole_number(node.operand, known)
    return False


def _len_of(node: ast.expr) -> ast.expr | None:
    """`x` of a `len(x)` test ("`x` is empty")."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and not node.keywords:
        return node.args[0]
    return None


_LOOSE = (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr, ast.Compare)


def _wrap(node: ast.expr) -> str:
    text = code(node)
    loose = isinstance(node, _LOOSE) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))
    return f"({text})" if loose else text


def and_operand(node: ast.expr, text: str) -> str:
    """`text` (the source of `node`) as an operand of `and`: an `or`, a conditional, a lambda or a
    walrus binds looser and needs brackets; a comparison or `not` does not."""
    loose = (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)) or isinstance(
        node, (ast.IfExp, ast.NamedExpr, ast.Lambda))
    return f"({text})" if loose else text


_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_SET_CALLS = frozenset({"set", "frozenset"})
_VIEW_METHODS = frozenset({"keys", "items"})


def set_order(node: ast.Compare) -> bool:
    """`{"a", "b"} <= set(xs)`, `a.keys() >= b`: an order test on a set, where `not a <= b` is
    no `a > b` (sets are ordered by inclusion, not totally). Told from the operands' syntax."""
    return node.ops[0].__class__ in _ORDER and any(map(set_like, (node.left, *node.comparators)))


#: The function whose conditions are being worked out (`analysing`): a test on its names that
#: hold sets (`set_names_of`, found the first time a test asks) is an inclusion test too.
_ANALYSING: list = [None]
_SETS = "_errdex_set_names"


def analysing(scope: ast.AST | None) -> None:
    _ANALYSING[0] = scope


def function_sets(scope: ast.AST) -> frozenset[str]:
    """`set_names_of`, once per function."""
    return memo(scope, _SETS, set_names_of)


def set_names_of(scope: ast.AST) -> frozenset[str]:
    """Names every binding of which in the function's statements (outside nested definitions) is
    a set: a set display or call (`_set_syntax`), or a set annotation; parameters so annotated.
    Statements only: this runs once per function that compares a name."""
    sets: set[str] = set()
    others: set[str] = set()
    args = getattr(scope, "args", None)
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs) if args is not None else ():
        if arg.annotation is not None and _set_annotation(arg.annotation):
            sets.add(arg.arg)
    stack = list(getattr(scope, "body", ()))
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind is ast.Assign:
            names = [t.id for t in node.targets if t.__class__ is ast.Name]
            (sets if _set_syntax(node.value) else others).update(names)
        elif kind is ast.AnnAssign:
            if node.target.__class__ is ast.Name:
                typed = _set_annotation(node.annotation) or (node.value is not None and _set_syntax(node.value))
                (sets if typed else others).add(node.target.id)
        elif kind in (ast.For, ast.AsyncFor):
            others.update(n.id for n in ast.walk(node.target) if n.__class__ is ast.Name)
        elif kind in (ast.With, ast.AsyncWith):
            others.update(n.id for i in node.items if i.optional_vars is not None
                          for n in ast.walk(i.optional_vars) if n.__class__ is ast.Name)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, field, ()) or ())
    return frozenset(sets - others)


_SET_TYPES = frozenset({"set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet"})


def _set_annotation(node: ast.expr) -> bool:
    """`set[str]`, `Set[int]`, `frozenset`, `typing.AbstractSet[...]`."""
    if node.__class__ is ast.Subscript:
        node = node.value
    if node.__class__ is ast.Attribute:
        return node.attr in _SET_TYPES
    return node.__class__ is ast.Name and node.id in _SET_TYPES


def set_like(node: ast.expr) -> bool:
    """A set by its syntax, or a name of the analysed function that holds one."""
    if node.__class__ is ast.Name:
        scope = _ANALYSING[0]
        return scope is not None and node.id in function_sets(scope)
    return _set_syntax(node, set_like)


def _set_syntax(node: ast.expr, operand=None) -> bool:
    """A set display or comprehension, `set(...)`/`frozenset(...)`, `.keys()`/`.items()`, or set
    arithmetic on one (`operand` tells the sides apart; by default, by syntax alone)."""
    operand = operand or _set_syntax
    kind = node.__class__
    if kind is ast.Set or kind is ast.SetComp:
        return True
    if kind is ast.Call:
        func = node.func
        return (func.__class__ is ast.Name and func.id in _SET_CALLS) or \
            (func.__class__ is ast.Attribute and func.attr in _VIEW_METHODS and not node.args)
    if kind is ast.BinOp and node.op.__class__ in (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor):
        return operand(node.left) or operand(node.right)
    return False


def negated_source(text: str) -> str | None:
    """`not (text)` as `negate_code` writes it, for a condition text other than the current record's
    own test (a part of its path), or None when it does not parse."""
    node = _parse_cached(text)
    if node is None:
        return None
    saved = _CURRENT[0]
    _CURRENT[0] = node   # `code` slices the text this node was parsed from
    try:
        return negate_code(node)
    finally:
        _CURRENT[0] = saved


def negate_code(node: ast.expr) -> str:
    """`not node` as source, simplified without changing its meaning: `!=` -> `==`, De Morgan."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIP and not set_order(node):
        op = _OP_TEXT[_FLIP[type(node.ops[0])]]
        return f"{_wrap(node.left)} {op} {_wrap(node.comparators[0])}"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = node.operand
        return f"({code(inner)})" if isinstance(inner, (ast.NamedExpr, ast.Lambda, ast.IfExp)) else code(inner)
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return str(not node.value)
    if isinstance(node, ATOMS):
        return f"not {code(node)}"
    if isinstance(node, ast.BoolOp) and len(node.values) <= 4:
        joiner = " or " if isinstance(node.op, ast.And) else " and "
        parts = []
        for v in node.values:
            text = negate_code(v)
            parts.append(f"({text})" if isinstance(v, ast.BoolOp) or " and " in text or " or " in text else text)
        return joiner.join(parts)
    return f"not ({code(node)})"


class Bound(NamedTuple):
    """`subject op limit` read off a comparison with a constant side: the raise needs it."""

    subject: str
    op: str
    limit: str


def bounds(node: ast.expr | None) -> list[Bound]:
    """Comparisons of a name/expression with a literal, from a test or a conjunction/disjunction of them."""
    if node is None:
        return []
    if isinstance(node, ast.BoolOp):
        # one bound per plain comparison: `a is None or (b and c == d)` has two literal bounds for two
        # parts, but "keep a is not None and b is None" would say more than the code
        if any(isinstance(v, ast.BoolOp) for v in node.values):
            return []
        return [b for v in node.values for b in bounds(v)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Compare) \
            and len(node.operand.ops) == 1 and type(node.operand.ops[0]) in _NOT_ORDER:
        # `not (m <= 512)`, kept whole for NaN: what to keep is its test, `m <= 512`
        return [Bound(b.subject, _NOT_ORDER_TEXT[b.op], b.limit) for b in bounds(node.operand)]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _OP_TEXT:
        left, right = node.left, node.comparators[0]
        if _literal(right) and not _literal(left):
            subject = code(left)
            if isinstance(left, _BELOW_COMPARISON):   # `(x or 1) <= 1`, not `x or 1 <= 1`
                subject = f"({subject})"
            return [Bound(subject, _OP_TEXT[type(node.ops[0])], code(right))]
    return []


#: The op a `Bound` of `not (x op c)` stands for: what `_keep` flips back is then the test itself.
_NOT_ORDER_TEXT = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}


#: Expressions that bind less tightly than a comparison: written in brackets as its left side.
_BELOW_COMPARISON = (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda, ast.Compare, ast.UnaryOp)


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _literal(node.operand)
    return False


def type_tests(node: ast.expr | None) -> list[tuple[str, str, bool]]:
    """(subject, types, negated) for each isinstance/type test in a test."""
    if node is None:
        return []
    if isinstance(node, ast.BoolOp):
        return [t for v in node.values for t in type_tests(v)]
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    inner = node.operand if negated else node
    if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "isinstance"
            and len(inner.args) == 2):
        return [(code(inner.args[0]), code(inner.args[1]), negated)]
    return []


def dispatch_types(cond: Condition) -> tuple[str, list[str]] | None:
    """(subject, every type the code handles) when the site ends a type dispatch: its own test is
    `not isinstance(x, T)` and the rest of its path holds `not isinstance(x, U)` for earlier
    branches (`if isinstance(x, str): return ...; if isinstance(x, bytes): ...; raise`). Any of
    the types passes; None for anything else."""
    if cond.own is None or "isinstance" not in (cond.context or ""):
        return None
    own = _negated_type_test(cond.own)
    if own is None:
        return None
    subject, types = own[0], [own[1]]
    for part in split_conjuncts(cond.context):
        try:
            found = _negated_type_test(ast.parse(part, mode="eval").body)
        except SyntaxError:
            continue
        if found is not None and found[0] == subject:
            types.insert(-1, found[1])
    if len(types) < 2:
        return None
    flat: list[str] = []
    for t in types:   # `(int, float)` contributes both
        for one in (t[1:-1].split(",") if t.startswith("(") and t.endswith(")") else [t]):
            if one.strip() and one.strip() not in flat:
                flat.append(one.strip())
    return subject, flat


def tests_types_on_the_way(cond: Condition) -> bool:
    """The rest of the site's path type-tests a value its own test type-tests too: earlier
    branches take other types, so the own test's types alone are not what the code accepts."""
    context = cond.context or ""
    return "isinstance(" in context and any(f"isinstance({subject}," in context for subject, _, _ in type_tests(cond.own))


def _negated_type_test(node: ast.expr) -> tuple[str, str] | None:
    """(subject, types) of `not isinstance(subject, types)`, written as `ast.unparse` writes them."""
    if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return None
    call = node.operand
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "isinstance"
            and len(call.args) == 2 and not call.keywords):
        return ast.unparse(call.args[0]), ast.unparse(call.args[1])
    return None


def raised_calls(node: ast.expr | None) -> list[tuple[str, str]]:
    """(call, exception) of each `raised(call, E)` fact: the failure an except-site re-reports.

    The facts of one `raised(a, E) or raised(b, E)` (a try body with several
    calls) are one failure with alternative calls: `call` then holds them
    joined by `ALTERNATIVES` (see `call_words`).
    """
    if node is None or "raised(" not in _CURRENT_TEXT[0]:
        return []
    return _raised_facts(node, code)


#: Joins the alternative calls of one failure (`raised(a, E) or raised(b, E)`).
ALTERNATIVES = "\n"


def expected_raises(cond: Condition) -> list[tuple[str, str]]:
    """(call, exception) when the site's own test is that calls did not raise (`not raised(check(0),
    ValueError)`: the `else:` of a try, a test's way to say the call must raise); else none."""
    own = cond.own
    if own is None or "raised(" not in cond.own_text:
        return []
    out: list[tuple[str, str]] = []
    for part in own.values if isinstance(own, ast.BoolOp) and isinstance(own.op, ast.And) else [own]:
        if not (isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not)):
            return []
        found = _raised_facts(part.operand, ast.unparse)
        if not found:
            return []
        out.extend(found)
    return out


def _raised_facts(node: ast.expr, write) -> list[tuple[str, str]]:
    """The facts under `node`, those under a `not` aside (a call that did not raise is no failure);
    `write` gives a node's text (`code` for the condition's own tree)."""
    out: list[tuple[str, str]] = []
    for sub in _outside_not(node):
        if isinstance(sub, ast.BoolOp) and isinstance(sub.op, ast.Or) and sub.values and all(
                _is_raised(v) for v in sub.values):
            kinds = {write(v.args[1]) for v in sub.values}
            if len(kinds) == 1:
                out.append((ALTERNATIVES.join(write(v.args[0]) for v in sub.values), kinds.pop()))
                continue
        if _is_raised(sub):
            out.append((write(sub.args[0]), write(sub.args[1])))
    return _without_repeats(out)


def _outside_not(node: ast.AST):
    """`ast.walk`, not entering a `not`."""
    stack = [node]
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.Not):
            continue
        yield sub
        stack.extend(reversed(list(ast.iter_child_nodes(sub))))


def _is_raised(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "raised"
            and len(node.args) == 2)


def _without_repeats(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop the single facts already named as an alternative of a disjunction."""
    named = {(call, exc) for calls, exc in pairs if ALTERNATIVES in calls for call in calls.split(ALTERNATIVES)}
    out: list[tuple[str, str]] = []
    for pair in pairs:
        if pair not in named and pair not in out:
            out.append(pair)
    return out


def raised_in(cond: Condition) -> list[tuple[str, str]]:
    """(call, exception) of the `raised(call, E)` conjuncts anywhere in the condition, own test first.

    An except-site's own test may be a further check (`... and e.status == 404`):
    the failure it re-reports then sits in an earlier conjunct, read here as text.
    """
    found = raised_calls(cond.own)
    if found or not cond.is_except:
        return found
    for part in split_conjuncts(cond.text):
        if failure_fact(part):
            found.extend(_raised_facts(ast.parse(part, mode="eval").body, ast.unparse))
    return found


def failure_fact(part: str) -> bool:
    """Whether a conjunct says the failure a handler re-reports: `raised(call, E)`, or the
    alternatives of one try block (`raised(a, E) or raised(b, E)`); not one that may or may not
    have happened (`(r.status != 200 or raised(g(), E))`, past a try that goes on both ways)."""
    if not part.lstrip("(").startswith("raised(") or not part.endswith(")"):
        return False
    try:   # a few hundred except-sites per dataset: a parse each is cheap
        node = ast.parse(part, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return False
    # An except-site's: the try block's calls (a raise of the block's own may follow them:
    # `raised(load(), E) or not callable(f)`). Past a try that goes on both ways, the block's way
    # on comes first (`flow._caught_or_not`).
    return _is_raised(node) or (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)
                                and _is_raised(node.values[0]))


def call_words(call: str) -> str:
    """How the prose names the failing call: `raised(None, E)` means no call in the try block, and
    a culprit that is no call is the block's first expression; alternatives (see `raised_calls`)
    are named as one of them."""
    if call == "None":
        return "the code in its `try` block"
    if ALTERNATIVES in call:
        calls = call.split(ALTERNATIVES)
        modules = [m.group(1) for m in map(_IMPORTED.fullmatch, calls) if m]
        if len(modules) == len(calls):
            return "importing one of " + ", ".join(f"`{m}`" for m in modules)
        if not modules:
            return "one of the calls " + ", ".join(f"`{c}`" for c in calls)
        return "one of " + ", ".join(_one_call(c) for c in calls)
    if not call.endswith(")") and not _YIELDED.match(call):   # a try block without calls: its first
        return f"evaluating `{call}`"                            # expression (`d[k]`, `obj.attr`)
    return _one_call(call)


_IMPORTED = re.compile(r"__import__\('([\w.]+)'\)")


def _one_call(call: str) -> str:
    """A named culprit: "importing `m`" for an import statement (`raised._import_calls`), the code
    run while a generator waits at a `yield` (`raised._culprits`), else the call."""
    imported = _IMPORTED.fullmatch(call)
    if imported:
        return f"importing `{imported.group(1)}`"
    if _YIELDED.match(call):
        return (f"the code run while it waits at `{call.strip('()')}` (the body of the caller's `with` block for"
                " a context manager, or the generator's consumer)")
    return f"the call `{call}`"


_YIELDED = re.compile(r"\(*yield\b")


def exception_words(exc: str) -> str:
    """The caught class in words: `(A, B)` (an except tuple) is "one of `A`, `B`"."""
    if exc.startswith("(") and exc.endswith(")") and "," in exc:
        names = [n.strip() for n in exc[1:-1].split(",") if n.strip()]
        if all(n.replace(".", "").replace("_", "").isalnum() for n in names):
            return "one of " + ", ".join(f"`{n}`" for n in names)
    return f"`{exc}`"


#: `helper_guard`'s reason for a helper's check it cannot write at the call, and its reader (`fields`).
UNBOUND_HELPER_CHECK = "raised only when {helper}'s own check holds: {check}"
_UNBOUND = re.compile(r"raised only when (\w+)'s own check holds: (.+?)(?:; |$)")


def unbound_helper_check(reason: str | None) -> tuple[str, str] | None:
    """(helper, check) from a condition's reason written with `UNBOUND_HELPER_CHECK`, or None."""
    found = _UNBOUND.search(reason or "")
    return (found.group(1), found.group(2)) if found else None


#: Context up to this long is named inline in the prose; a longer one is left to the code field.
CONTEXT_SHOWN = 80


def context_words(cond: Condition) -> str:
    """How the prose names the rest of the site's path (`Condition.context`), to follow the own test."""
    if not cond.context:
        return ""
    context = cond.context
    if "raised(" in context:   # an except-site's failure is told by its own sentence (`prose`)
        context = " and ".join(p for p in split_conjuncts(context) if not failure_fact(p))
    rest, passed = without_passed_calls(context)
    if rest is not None and not passed and len(context) > CONTEXT_SHOWN:
        nearest = nearest_conjuncts(context)
        if nearest:   # the tests nearest the site decide most: said; the rest is shown as code
            return f", where `{nearest}` holds, among other conditions on its path"
    if rest is None or len(context) > CONTEXT_SHOWN or (passed and not _top_level_facts(context)):
        return ", once the conditions ahead of it on its path hold"
    said = [f"{call_words(call)} did not raise {exception_words(exc)}" for call, exc in passed]
    if rest:
        said.append(f"`{rest}` holds")
    return ", where " + " and ".join(said) if said else ""


def nearest_conjuncts(context: str) -> str:
    """The last conjuncts of a long path condition that fit in `CONTEXT_SHOWN` characters (the
    enclosing tests nearest the site, `isinstance(cfg, ShortConvConfig)` before `is_npu()`), or ""."""
    parts = split_conjuncts(context)
    kept: list[str] = []
    size = 0
    for part in reversed(parts[1:]):   # never all of them: then the context would be short
        size += len(part) + (5 if kept else 0)
        if size > CONTEXT_SHOWN:
            break
        kept.append(part)
    return " and ".join(reversed(kept))


def without_passed_calls(context: str) -> tuple[str | None, list[tuple[str, str]]]:
    """(`context` with each `not raised(call, E)` taken as true, as written, and their (call, E)).

    Such a fact is a try the path went through whose handlers all leave (`except E: return
    None`): no code can test it, the call either returns or raises, so generated code assumes
    it. The text is returned whole when it has none; "" when nothing else is left; None when
    a `raised(` sits anywhere else in it.
    """
    if "raised(" not in context:
        return context, []
    try:
        node = ast.parse(context, mode="eval").body
    except SyntaxError:
        return None, []
    passed: list[tuple[str, str]] = []
    kept = _assume_passed(node, context, passed)
    if kept is None:
        return None, []
    return ("" if kept is True else kept[0]), passed


def _top_level_facts(context: str) -> bool:
    """Whether every `raised(` of the context is a whole `not raised(...)` conjunct of it."""
    node = ast.parse(context, mode="eval").body
    parts = node.values if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) else [node]
    facts = sum(isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not) and _is_raised(p.operand) for p in parts)
    return facts == context.count("raised(")


def _assume_passed(node: ast.expr, source: str, passed: list) -> tuple[str, type | None] | bool | None:
    """`node`'s text with its `not raised(...)` facts true, and the and/or joining its parts at the
    top (None: one part); True when nothing else is left, None for a `raised(` it cannot take out."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and _is_raised(node.operand):
        passed.extend(_raised_facts(node.operand, ast.unparse))
        return True
    if isinstance(node, ast.BoolOp):
        op = type(node.op)
        kept = []
        for value in node.values:
            got = _assume_passed(value, source, passed)
            if got is None:
                return None
            if got is True:
                if op is ast.Or:
                    return True          # `a or True`
                continue                 # `a and True`
            kept.append(got)
        if len(kept) <= 1:
            return kept[0] if kept else True
        parts = [f"({text})" if joined is not None and joined is not op else text for text, joined in kept]
        return (" and " if op is ast.And else " or ").join(parts), op
    text = ast.get_source_segment(source, node)
    if text is None or "raised(" in text:
        return None
    return (f"({text})" if isinstance(node, (ast.IfExp, ast.Lambda, ast.NamedExpr)) else text), None


def describe_own(cond: Condition) -> str:
    """`describe` of the own test, kept on its parsed node: records often share one."""
    known = getattr(cond.own, "_errdex_said", None)
    if known is not None and known[0] is _NOT_NAN[0]:   # the words depend on the record's `never_nan` names
        return known[1]
    said = describe(cond.own)
    if cond.own is not None:
        cond.own._errdex_said = (_NOT_NAN[0], said)  # type: ignore[attr-defined]
    return said


def _grouped(node: ast.expr) -> str:
    """A part of an and/or in words; an or inside an and (or the reverse) in brackets, so
    `a or (b and c)` does not read as "a, or b, and c"."""
    if isinstance(node, ast.BoolOp) and len(node.values) <= _MAX_WORDS_PARTS:
        joiner = " and " if isinstance(node.op, ast.And) else " or "
        return "(" + joiner.join(_grouped(v) for v in node.values) + ")"
    return describe(node)


#: Order tests on sets (`set_order`) in words: inclusion, not size.
_SET_WORDS = {ast.LtE: "a subset of", ast.Lt: "a proper subset of", ast.GtE: "a superset of",
              ast.Gt: "a proper superset of"}


def _quantified(node: ast.expr) -> str | None:
    """`all(t for x in xs)` as "t, for every `x` in `xs`" (`any`: "for some"), the loop
    fall-through's shape; None for any other node."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("all", "any")
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp)):
        return None
    gen = node.args[0]
    if len(gen.generators) != 1 or gen.generators[0].ifs or gen.generators[0].is_async:
        return None
    loop = gen.generators[0]
    which = "every" if node.func.id == "all" else "some"
    return f"{describe(gen.elt)}, for {which} `{code(loop.target)}` in `{code(loop.iter)}`"


def describe(node: ast.expr | None) -> str:
    """The test in words, every value in backticks."""
    if node is None:
        return "the condition could not be read"
    if isinstance(node, ast.BoolOp):
        joiner = ", and " if isinstance(node.op, ast.And) else ", or "
        if len(node.values) > _MAX_WORDS_PARTS:
            word = "all" if isinstance(node.op, ast.And) else "any"
            return f"{word} of {len(node.values)} tests hold (`{code(node)}`)"
        return joiner.join(_grouped(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Compare) \
            and len(node.operand.ops) == 1 and set_order(node.operand):
        inner = node.operand
        return f"`{code(inner.left)}` is not {_SET_WORDS[type(inner.ops[0])]} `{code(inner.comparators[0])}`"
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and set_order(node):
        return f"`{code(node.left)}` is {_SET_WORDS[type(node.ops[0])]} `{code(node.comparators[0])}`"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = node.operand
        calls = raised_calls(inner) if isinstance(inner, ast.Call) else []
        if calls:
            call, exc = calls[0]
            return f"{call_words(call)} did not raise {exception_words(exc)}"
        tests = type_tests(node)
        if tests:
            return f"`{tests[0][0]}` is not an instance of `{tests[0][1]}`"
        if isinstance(inner, ATOMS):
            sized = _len_of(inner)
            if sized is not None:
                return f"`{code(sized)}` is empty"
            if returns_bool(inner) or flag_named(inner):
                return f"`{code(inner)}` is False"
            # which falsy values can reach here the code rarely says (review 15: None crashed earlier): none listed
            return f"`{code(inner)}` is falsy (`bool({code(inner)})` is False)"
        if isinstance(inner, ast.BinOp):
            return f"`{code(inner)}` is zero"
        if isinstance(inner, ast.Compare) and len(inner.ops) == 1 and type(inner.ops[0]) in _NOT_ORDER:
            # kept whole for NaN (`simplify._float_order`): said as its opposite, NaN named
            left, right = inner.left, inner.comparators[0]
            said = f"`{code(left)}` {_NOT_ORDER[type(inner.ops[0])]} `{code(right)}`"
            if all(_whole_number(side) for side in (left, right)):
                return said   # review 25 #22: "(or `blk_k` is NaN)" of a count, which no NaN can be
            nan = (f"`{code(left)}`" if isinstance(right, ast.Constant) else
                   f"`{code(right)}`" if isinstance(left, ast.Constant) else "one of them")
            return f"{said} (or {nan} is NaN)"
        return f"it is not the case that {describe(inner)}"
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _OP_WORDS:
        left, op, right = node.left, type(node.ops[0]), node.comparators[0]
        if op in (ast.In, ast.NotIn) and not isinstance(right, _DISPLAYS):
            # not a list of values: a text (`"x" in name`) or a container of unknown kind (review 19:
            # "`"lit"` is not one of `var`" for a substring test)
            if isinstance(left, ast.Constant) and isinstance(left.value, str):
                return f"`{code(right)}` {'contains' if op is ast.In else 'does not contain'} `{code(left)}`"
            return f"`{code(left)}` {'is in' if op is ast.In else 'is not in'} `{code(right)}`"
        return f"`{code(left)}` {_OP_WORDS[op]} `{code(right)}`"
    if isinstance(node, (ast.Name, ast.Attribute)):
        return f"`{code(node)}` is True" if flag_named(node) else f"`{code(node)}` is truthy"
    sized = _len_of(node)
    if sized is not None:
        return f"`{code(sized)}` is not empty"
    every = _quantified(node)
    if every is not None:
        return every
    calls = raised_calls(node) if isinstance(node, ast.Call) else []
    if calls:
        call, exc = calls[0]
        return f"{call_words(call)} raised {exception_words(exc)}"
    tests = type_tests(node)
    if tests:
        return f"`{tests[0][0]}` is an instance of `{tests[0][1]}`"
    if isinstance(node, ast.Constant):
        return "this line is reached" if node.value else "no input reaches this line"
    if isinstance(node, ast.BinOp):   # arithmetic as a test: `n & (n - 1)` is true when it is not zero
        return f"`{code(node)}` is nonzero"
    return f"`{code(node)}` holds"
