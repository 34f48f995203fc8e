"""The analysis's shortcuts give what the general computation gives.

Each shortcut (quiet compound statements, negation keys written without the
negation, unparse of simple nodes, prefix-closed needed names) is checked
against the slower path it replaces, on real parsed code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from errdex.analyze.exprs import expr_key
from errdex.analyze.flow import FALLS_THROUGH, FlowAnalyzer
from errdex.analyze.names import read_chains
from errdex.analyze.simplify import negate, negation_key, render, simplify
from errdex.analyze.source import unparse

COMPARISONS = [
    "x < 3", "3 < x", "x >= y.n", "a.b[0] == 'q'", "x is None", "x is not None", "k in d",
    "k not in (1, 2, 3)", "f(x) != 0", "-x <= 2.5", "x.shape[-1] % 8 == 0", "(a or b) == c",
]


@pytest.mark.parametrize("text", COMPARISONS)
def test_negation_key_is_the_key_of_the_built_negation(text):
    term = simplify(ast.parse(text, mode="eval").body)
    expected = expr_key(negate(simplify(ast.parse(text, mode="eval").body)))
    assert negation_key(term) == expected
    assert negation_key(term) != expr_key(term)


class _FullFlow(FlowAnalyzer):
    """The flow analysis without the quiet-statement shortcut."""

    def _quiet(self, stmt: ast.stmt) -> bool:
        return type(stmt) in (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Pass, ast.Import, ast.ImportFrom,
                              ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Delete)


QUIET_AND_NOT = '''
def f(xs, m, d):
    if m:
        y = 1
    else:
        y = 2
    for x in xs:
        if x:
            log(x)
    with open(m) as fh:
        try:
            data = fh.read()
        except OSError:
            data = None
        finally:
            close()
    for c in (8, 16):
        z = c
    for a, b in [(1, 2, 3)]:
        pass
    while m:
        m -= 1
    if d:
        return 1
    for x in xs:
        if x:
            break
    try:
        g()
    except ValueError:
        sys.exit(1)
    match m:
        case 1:
            pass
'''


def test_quiet_statements_exit_as_the_full_computation_says():
    func = ast.parse(QUIET_AND_NOT).body[0]
    fast, full = FlowAnalyzer(), _FullFlow()
    quiet = 0
    for stmt in func.body:
        got, want = fast.stmt_exits(stmt), full.stmt_exits(stmt)
        assert [render(e) for e in (got.next, got.brk, got.cont)] == [render(e) for e in (want.next, want.brk, want.cont)]
        assert got.approx == want.approx
        quiet += got is FALLS_THROUGH
    # the if/else, the with/try, and the four `for` loops that cannot leave the function (they end,
    # by `break` or at their end); none of the others
    assert quiet == 6
    assert fast.block_exits(func.body).approx == full.block_exits(func.body).approx


SIMPLE = ["(1, 2)", "(a,)", "(a.b.c, 'x', None, True)", "('it''s', \"q\")", "x", "a.b", "(0.5, -2.5, 1e300)",
          "(-1, 2)", "((1, 2), 3)", "(a().b, 1)", "f(x)", "(1 .real, 2)", "('a\\nb', b'x')"]


@pytest.mark.parametrize("text", SIMPLE)
def test_unparse_of_simple_nodes_is_ast_unparse(text):
    node = ast.parse(text, mode="eval").body
    assert unparse(node) == ast.unparse(node)
    for built in (ast.Constant(float("inf")), ast.Constant(3.0), ast.Constant(-0.0)):
        assert unparse(built) == ast.unparse(built)


@pytest.mark.parametrize("text", ["self.cfg.n + a.b[i].c", "f(x.y).z", "[u.v for u in w.t]", "d[k.m.n]"])
def test_read_chains_hold_every_prefix_of_their_chains(text):
    chains = read_chains(ast.parse(text, mode="eval").body)
    for chain in chains:
        parts = chain.split(".")
        assert all(".".join(parts[:i]) in chains for i in range(1, len(parts)))


def test_read_chains_follow_chains_on_names_only():
    chains = read_chains(ast.parse("self.cfg.n + a.b[i].c + f(x.y).z", mode="eval").body)
    assert chains == {"self", "self.cfg", "self.cfg.n", "a", "a.b", "i", "f", "x", "x.y"}


def _every_expression(root: Path) -> list[ast.expr]:
    """Every expression node of errdex's own analysis modules: real code of every kind."""
    found: list[ast.expr] = []
    for path in sorted(root.glob("*.py")):
        found.extend(n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.expr))
    return found


ANALYZE_SOURCES = Path(__file__).resolve().parents[2] / "src" / "errdex" / "analyze"


def test_names_only_is_the_walk_over_every_node():
    from errdex.analyze.conjunction import _names_only

    kinds = (ast.Name, ast.Constant, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.Tuple,
             ast.expr_context, ast.unaryop, ast.operator, ast.boolop, ast.cmpop)
    exprs = _every_expression(ANALYZE_SOURCES) + [ast.parse(t, mode="eval").body for t in (
        "a < b < 3", "not (a or -b)", "(a, (b, 1)) == c", "(a, [b])", "x == (a, b.c)", "a + b[0]")]
    answers = {_names_only(e) for e in exprs}
    assert answers == {True, False}
    for expr in exprs:
        assert _names_only(expr) == all(isinstance(n, kinds) for n in ast.walk(expr)), ast.dump(expr)


@pytest.mark.parametrize("text", ["x > 3", "3 <= x", "x != 0x10", "n not in (1, 2, 3)", "s == 'a'", "-2.5 < y.v"])
def test_a_bounded_term_reads_the_same_alone_and_after_its_first_use(text):
    from errdex.analyze.conjunction import EMPTY
    from errdex.analyze.intervals import _as_bounds, _Bound, _write

    term = simplify(ast.parse(text, mode="eval").body)
    operand, _, pairs = _as_bounds(term)
    bound = _Bound(operand)
    for op, value in pairs:
        bound.add(op, value)
    expected = " and ".join(render(w) for w in _write(bound))
    first, again = EMPTY.add(term), EMPTY.add(term)   # the second reuses what the first worked out
    assert first.text() == again.text() == expected
    narrowed = simplify(ast.parse(f"({text}) and {render(operand)} != 7", mode="eval").body)
    assert EMPTY.add(term).add(narrowed).text() == EMPTY.add(narrowed).text()


@pytest.mark.parametrize("test", ["0.0 <= p <= 1.0", "x > 0.5", "-x <= 2.5", "x >= -1e-6"])
def test_an_order_on_a_float_is_negated_whole_so_nan_keeps_its_answer(test):
    """NaN fails `x <= 1.0` and `x > 1.0` alike: flipping the test would drop it from the negation
    (review 17 P9: `if not 0.0 <= min_p <= 1.0` told as `min_p < 0.0 or min_p > 1.0`, marked exact)."""
    negated = render(negate(simplify(ast.parse(test, mode="eval").body)))
    for value in (float("nan"), 0.25, 3.0, -2.0):
        names = {"p": value, "x": value}
        assert eval(negated, names) == (not eval(test, names)), (negated, value)
