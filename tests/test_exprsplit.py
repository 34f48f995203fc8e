"""Expression text cut at top-level separators: brackets and string literals (escapes included) hold theirs."""

import pytest

from errdex.analyze.condexpr import split_conjuncts
from errdex.exprsplit import closing_bracket, split_top_level
from errdex.match.events import assert_statement


def test_separators_inside_brackets_and_literals_are_not_cuts():
    text = "a and f(b and c) and 'x and y' and \"q\\\" and r\" and [d and e] and z"
    assert split_top_level(text, " and ") == ["a", "f(b and c)", "'x and y'", "\"q\\\" and r\"", "[d and e]", "z"]


def test_maxsplit_keeps_the_rest_whole():
    assert split_top_level("x > 0, 'a, b', (c, d)", ",", maxsplit=1) == ["x > 0", " 'a, b', (c, d)"]
    assert split_top_level("no separator here", ",", maxsplit=1) == ["no separator here"]


def test_the_two_readers_built_on_it():
    assert split_conjuncts("a and (b or c) and d") == ["a", "(b or c)", "d"]
    assert assert_statement("assert res.status == 200, f\"{res=}, {res.text=}\"") == \
        ("res.status == 200", "f\"{res=}, {res.text=}\"")
    assert assert_statement("assert n < 10, (n, 'a, b')") == ("n < 10", "(n, 'a, b')")
    assert assert_statement("assert ok") == ("ok", None)


@pytest.mark.parametrize("text, expected", [
    ("f(a, b) + g(c)", 6),
    ("f(a, ')', [1, (2)]) x", 18),
    ('f("""a)\nb""", c) y', 15),
    ("f(a,  # a ) here\n  b)", 20),
    ("f('it\\'s)', x)", 13),
    ("f(a, (b)", None),
])
def test_closing_bracket_skips_strings_and_comments(text, expected):
    assert closing_bracket(text, 1) == expected
