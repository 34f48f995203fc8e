"""Simplification keeps the truth value of every input and reads like code."""

from __future__ import annotations

import ast

import pytest

from .analyze_support import mismatches
from errdex.analyze.simplify import only_unordered, render, simplify

REWRITES = [
    ("m > 8 and m > 16", "m > 16"),
    ("x > 3 and x < 2", "False"),
    ("not (a < b)", "not a < b"),   # NaN is neither: the flip would change what it means
    ("not (m <= 8) and not (m <= 512)", "not m <= 512"),
    ("not (m <= 8) and m <= 600", "m > 8 and m <= 600"),   # NaN fails `m <= 600`: the flip is safe here
    ("not (m <= 8) and not (m >= 4)", "not m <= 8 and not m >= 4"),   # NaN meets it: not False
    ("not (len(x) > 5)", "len(x) <= 5"),   # an int on both sides: no NaN to keep
    ("not (len(x) > 5.0)", "not len(x) > 5.0"),
    ("not (int(s) > 5)", "int(s) <= 5"),   # `int(...)` is an int, or raises
    ("not (round(v) < 0)", "round(v) >= 0"),
    ("not (round(v, 2) < 0)", "not round(v, 2) < 0"),   # with digits: a float, maybe NaN
    ("n > cap and n <= cap", "False"),   # no number meets both, and NaN fails both
    ("n > cap or n <= cap", "n > cap or n <= cap"),   # NaN meets neither: no tautology
    ("not (x is None)", "x is not None"),
    ("not (x in y)", "x not in y"),
    ("not not x", "x"),
    ("not (0 < x <= 5)", "not x > 0 or not x <= 5"),
    ("3 < x", "x > 3"),
    ("8 <= 16 and x", "x"),
    ("x and False", "False"),
    ("x or True", "True"),
    ("x == 3 and x > 2", "x == 3"),
    ("x >= 3 and x <= 3", "x == 3"),
    ("x > -2 and x >= -2", "x > -2"),
    ("x != 1 and x != 2 and x != 3 and x > 2", "x > 2 and x != 3"),
    ("x != 1 and x != 2 and x != 5", "x not in (1, 2, 5)"),
    ("x not in (1, 2, 3) and x == 2", "False"),
    ("s == 'a' and s != 'b'", "s == 'a'"),
    ("s == 'a' and s == 'b'", "False"),
    ("a and not a", "False"),
    ("a or not a", "True"),
    ("a or b or (not a and not b)", "True"),
    ("None is None", "True"),
    ("x > 1.5 and x < 1.5", "False"),
    # a term meets its negation whatever kind it is (negations are built only for kinds present)
    ("d[k] or not d[k]", "True"),
    ("(a + b) and not (a + b)", "False"),
    ("a < b and not (a < b)", "False"),
    ("a is None or a is not None", "True"),
    ("not a and a.b and a", "False"),
    ("a and a.b and b < c", "a and a.b and b < c"),
    # absorption: a term absorbs a compound of the other kind that holds it
    ("(not ring or n > 1) and not ring and m < 2", "not ring and m < 2"),
    ("a or (a and b)", "a"),
    ("x > 3 and (x > 3 or y)", "x > 3"),
    ("(a or b) and c", "(a or b) and c"),
]


@pytest.mark.parametrize(("source", "expected"), REWRITES, ids=[r[0] for r in REWRITES])
def test_rewrite(source: str, expected: str):
    got = render(simplify(ast.parse(source, mode="eval").body))
    assert got == expected
    bad, compared = mismatches(got, source)
    assert compared > 0 and not bad, bad[:3]


@pytest.mark.parametrize(("source", "expected"), [
    ("not (q.shape[-1] > 128) and not (q.numel() <= 0)", "q.shape[-1] <= 128 and q.numel() > 0"),
    ("not (x.ndim < 2) and not (len(x) >= x.size(0))", "x.ndim >= 2 and len(x) < x.size(0)"),
    ("not (q.shape[1:] > k)", "not q.shape[1:] > k"),   # a slice is a tuple, `k` anything
    ("not (q.shape[0] > k)", "not q.shape[0] > k"),     # `k` may be NaN
])
def test_a_negated_order_between_sizes_is_flipped(source: str, expected: str):
    """Sizes are ints by torch's and numpy's contracts: no NaN for the flip to drop."""
    assert render(simplify(ast.parse(source, mode="eval").body)) == expected


KEPT = [
    "f() and not f()",      # calls may differ between evaluations
    "(f() or y) and f()",   # an impure term absorbs nothing
    "x is None and x > 3",  # mixed None check and order: left as written
    "a < f() < b",          # the middle call must not be evaluated twice
]


@pytest.mark.parametrize("source", KEPT)
def test_impure_or_mixed_terms_are_not_merged(source: str):
    tree = simplify(ast.parse(source, mode="eval").body)
    assert render(tree) == source


def test_constant_comparisons_of_mixed_types_are_left_alone():
    tree = simplify(ast.parse("1 < 'a'", mode="eval").body)
    assert render(tree) == "1 < 'a'"


def test_render_parenthesises_only_where_needed():
    tree = ast.parse("(a or b) and c and not (d and e)", mode="eval").body
    assert render(tree) == "(a or b) and c and not (d and e)"


def test_attribute_meets_its_negation():
    for source, expected in (("self.n and not self.n", "False"), ("not self.n or self.n", "True")):
        assert render(simplify(ast.parse(source, mode="eval").body)) == expected


@pytest.mark.parametrize(("source", "nan_only"), [
    ("not n > cap and not n <= cap", True),
    ("not x <= 1.0 and not x > 1.0 and flag", True),
    ("not x < 0 and not x >= 0 and not x > 9", True),
    ("not n > cap", False),
    ("not n > cap and n > 3", False),
    ("n > cap or not n > cap", False),
])
def test_only_unordered_tells_a_condition_only_nan_meets(source: str, nan_only: bool):
    """Checked against evaluation: a NaN-only condition holds for some NaN and for no number."""
    tree = simplify(ast.parse(source, mode="eval").body)
    assert only_unordered(tree) is nan_only
    code = render(tree)
    values = (-1.0, 0.0, 3.5, 7.0, 12.0)
    numbers = [{"n": a, "cap": b, "x": a, "flag": True} for a in values for b in values]
    nan = float("nan")
    with_nan = [{"n": nan, "cap": c, "x": nan, "flag": True} for c in values]
    assert any(eval(code, env) for env in numbers + with_nan)   # never False
    assert (not any(eval(code, env) for env in numbers)) is nan_only
