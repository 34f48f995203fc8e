"""`simple_unparse` writes what `ast.unparse` writes, or declines (None) so the caller falls back to it."""

import ast
import inspect
import typing

import pytest

from errdex.extract.unparse import simple_unparse

SHAPES = [
    "x == 1", "self.n is not None", "len(items) > 0", "a.b.c(d, e=f) in g[h]", "k not in seen",
    "isinstance(x, int)", "x == 'plain text'", "f() <= g.h[0] < 10", "x is ...", "y == True",
    "d['key'] != other['key']", "x.shape[0] == y.shape[-1]", "(a) == b", "a == (1, 2)", "s == 'it\\'s'",
    "n == 0x10", "n == 1_000", "x == 1.5", "a[1:2] == b", "f(*args) == 1", "f(**kw) == 2", "1 .real == 1",
    "s == u'text'", "s == 'tab\\there'", "s == \"quote\"", "not x", "a and b == c", "x == (lambda: 1)", "-x == y", "x.y == -z.w", "(-x).y == 1", "f(-1, k=~a) == -g(+1)",
    "s == r'\\d'", "x == b'bytes'", "f(x for x in y) == 1", "x[a, b] == 1", "x == -1",
]


@pytest.mark.parametrize("source", SHAPES)
def test_written_exactly_as_ast_unparse_or_declined(source):
    node = ast.parse(source, mode="eval").body
    fast = simple_unparse(node)
    assert fast is None or fast == ast.unparse(node)


def test_the_common_shapes_are_taken_not_declined():
    for source in ("x == 1", "len(items) > 0", "a.b.c(d, e=f) in g[h]", "isinstance(x, int)", "y is None"):
        assert simple_unparse(ast.parse(source, mode="eval").body) is not None


def test_every_comparison_of_real_modules_matches():
    seen = 0
    for module in (ast, inspect, typing, pytest):
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Compare, ast.Call, ast.Attribute, ast.Subscript)):
                fast = simple_unparse(node)
                if fast is not None:
                    seen += 1
                    assert fast == ast.unparse(node)
    assert seen > 500
