"""A site's trigger condition, taken apart for the generated fields.

The condition (`errdex.condition`) is a conjunction: the guards that earlier
checks in the function leave standing, then the test right before the raise.
The generated code and prose work on that last test (`own_test`), negate it
without changing its meaning (`negate`), read bounds off it (`bounds`) and say
it in words (`describe`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

_FLIP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
         ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_OP_TEXT = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
            ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_OP_WORDS = {ast.Eq: "equals", ast.NotEq: "differs from", ast.Lt: "is less than", ast.LtE: "is at most",
             ast.Gt: "is greater than", ast.GtE: "is at least", ast.Is: "is", ast.IsNot: "is not",
             ast.In: "is one of", ast.NotIn: "is not one of"}
_MAX_WORDS_PARTS = 4


@dataclass(slots=True)
class Condition:
    """A parsed trigger condition: the earlier guards and the test right before the raise."""

    text: str
    tree: ast.expr | None
    guards: list[ast.expr] = field(default_factory=list)
    own: ast.expr | None = None

    @property
    def is_except(self) -> bool:
        return "raised(" in self.text

    @property
    def constant(self) -> bool | None:
        return self.tree.value if isinstance(self.tree, ast.Constant) and isinstance(self.tree.value, bool) else None


def parse_condition(text: str | None) -> Condition:
    """Split the condition into its conjuncts; a condition that does not parse keeps `tree` None."""
    text = text or ""
    try:
        tree = ast.parse(text, mode="eval").body if text else None
    except (SyntaxError, ValueError, RecursionError):
        tree = None
    cond = Condition(text, tree)
    if tree is None:
        return cond
    parts = tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else [tree]
    cond.guards, cond.own = list(parts[:-1]), parts[-1]
    return cond


def negate(node: ast.expr) -> ast.expr:
    """`not node`, simplified where the meaning stays the same for every input: `!=` -> `==`, De Morgan."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIP:
        return ast.Compare(node.left, [_FLIP[type(node.ops[0])]()], node.comparators)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return ast.Constant(not node.value)
    if isinstance(node, ast.BoolOp) and len(node.values) <= 4:
        op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return ast.BoolOp(op, [negate(v) for v in node.values])
    return ast.UnaryOp(ast.Not(), node)


def code(node: ast.expr) -> str:
    return ast.unparse(node)


@dataclass(frozen=True, slots=True)
class Bound:
    """`subject op limit` read off a comparison with a constant side: the raise needs it."""

    subject: str
    op: str
    limit: str


def bounds(node: ast.expr | None) -> list[Bound]:
    """Comparisons of a name/expression with a literal, from a test or a conjunction/disjunction of them."""
    if node is None:
        return []
    if isinstance(node, ast.BoolOp):
        return [b for v in node.values for b in bounds(v)]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _OP_TEXT:
        left, right = node.left, node.comparators[0]
        if _literal(right) and not _literal(left):
            return [Bound(code(left), _OP_TEXT[type(node.ops[0])], code(right))]
    return []


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


def raised_calls(node: ast.expr | None) -> list[tuple[str, str]]:
    """(call, exception) of each `raised(call, E)` pseudo-call: the failure an except-site re-raises."""
    if node is None:
        return []
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "raised" \
                and len(sub.args) == 2:
            out.append((code(sub.args[0]), code(sub.args[1])))
    return out


def describe(node: ast.expr | None) -> str:
    """The test in words, every value in backticks."""
    if node is None:
        return "the condition could not be read"
    if isinstance(node, ast.BoolOp):
        joiner = ", and " if isinstance(node.op, ast.And) else ", or "
        parts = [describe(v) for v in node.values]
        if len(parts) > _MAX_WORDS_PARTS:
            word = "all" if isinstance(node.op, ast.And) else "any"
            return f"{word} of {len(parts)} tests hold (`{code(node)}`)"
        return joiner.join(parts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = node.operand
        if isinstance(inner, (ast.Name, ast.Attribute)):
            return f"`{code(inner)}` is falsy (empty, zero, None or False)"
        tests = type_tests(node)
        if tests:
            return f"`{tests[0][0]}` is not an instance of `{tests[0][1]}`"
        return f"it is not the case that {describe(inner)}"
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _OP_WORDS:
        return f"`{code(node.left)}` {_OP_WORDS[type(node.ops[0])]} `{code(node.comparators[0])}`"
    if isinstance(node, (ast.Name, ast.Attribute)):
        return f"`{code(node)}` is truthy"
    calls = raised_calls(node) if isinstance(node, ast.Call) else []
    if calls:
        call, exc = calls[0]
        return f"the call `{call}` raised `{exc}`"
    tests = type_tests(node)
    if tests:
        return f"`{tests[0][0]}` is an instance of `{tests[0][1]}`"
    if isinstance(node, ast.Constant):
        return "always" if node.value else "never"
    return f"`{code(node)}` holds"
