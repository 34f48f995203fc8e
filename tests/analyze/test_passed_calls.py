"""`not raised(call, E)` on a site's path (a try whose handlers all leave): generated code cannot
test it, so it is taken as true, wherever it sits in the and/or of the path, and said as assumed."""

import ast

import pytest

from errdex.analyze.condexpr import without_passed_calls


@pytest.mark.parametrize("context, rest, passed", [
    ("strict", "strict", []),
    ("a and not raised(f(x), E) and b", "a and b", [("f(x)", "E")]),
    ("not raised(f(), E)", "", [("f()", "E")]),
    ("p and (q or not raised(f(), E))", "p", [("f()", "E")]),
    ("(m is not None or (b != 1 and not raised(g(), Exception))) and c",
     "(m is not None or b != 1) and c", [("g()", "Exception")]),
    ("(a or b and c) and not raised(f(), E)", "a or (b and c)", [("f()", "E")]),
    ("(u if v else w) and not raised(f(), E)", "(u if v else w)", [("f()", "E")]),
])
def test_passed_calls_are_taken_out_as_true(context, rest, passed):
    got_rest, got_passed = without_passed_calls(context)
    assert (got_rest, got_passed) == (rest, passed)
    if rest:   # what is left means, with every fact true, what the context means
        full = context.replace("not raised(", "_true(")
        calls = {"_true": lambda *a: True, "f": lambda *a: None, "g": lambda *a: None}
        names = sorted({n.id for n in ast.walk(ast.parse(full, mode="eval")) if isinstance(n, ast.Name)}
                       - set(calls) - {"E", "Exception", "x"})
        for bits in range(1 << len(names)):
            env = {n: bool(bits >> i & 1) for i, n in enumerate(names)} | calls | {"E": 0, "Exception": 0, "x": 0}
            assert eval(rest, env) == eval(full, env), (rest, env)


@pytest.mark.parametrize("context", ["raised(f(), E) and x", "x if raised(f(), E) else y"])
def test_a_fact_that_holds_is_not_taken_out(context):
    assert without_passed_calls(context) == (None, [])


def test_a_preallocated_list_is_no_value_to_show():
    """`out = [None] * len(frames)` is filled in place before it is read (like `out = []`): shown as
    what `out` holds, it made a validation code assert that fails on every input."""
    from errdex.analyze.codegen import feeding_for

    assert feeding_for({"out"}, ["out: list = [None] * len(frames)"]) == []
    assert feeding_for({"out"}, ["out = len(frames) * [0]"]) == []
    assert feeding_for({"out"}, ["out = frames * 2"]) == ["out = frames * 2"]
    assert feeding_for({"out"}, ["out = [f(x)] * 3"]) == ["out = [f(x)] * 3"]


@pytest.mark.parametrize("condition, says", [
    ("not isinstance(x, list)", "True when `x` passes the check"),
    ("not isinstance(x, list) or not all(isinstance(n, str) for n in x)",
     "True when `x` is a `list`, which the check also needs"),
    ("y > 0 or (x is not None and not isinstance(x, list))", None),   # False does not mean the site raises
])
def test_a_type_guard_claims_only_what_its_test_decides(condition, says):
    from errdex.analyze.codegen import type_guard
    from errdex.analyze.condexpr import parse_condition

    got = type_guard(parse_condition(condition))
    assert (got is None) if says is None else (says in got and "where it is False, the site raises" in got)


def test_a_type_guard_on_a_path_says_it_holds_where_the_check_is_reached():
    """Review 19 (presentation.py:201): `value=None` fails the guard, yet the function returns
    early for it: "where it is False, the site raises" held only where the check is reached."""
    from errdex.analyze.codegen import type_guard
    from errdex.analyze.condexpr import parse_condition

    got = type_guard(parse_condition("value is not None and (not isinstance(value, list) or isinstance(value, str))"))
    assert "where it is False and the function reaches the check, the site raises" in got


@pytest.mark.parametrize("error_type, does", [("log", "logs"), ("warning", "warns"), ("exception", "raises")])
def test_a_type_guard_says_what_the_site_does(error_type, does):
    """Review 28 #19: a log site's guard said "the site raises"."""
    from errdex.analyze.codegen import type_guard
    from errdex.analyze.condexpr import parse_condition
    from errdex.analyze.fixes import report_verb

    got = type_guard(parse_condition("not isinstance(error, KnownError)"), does=report_verb(error_type, bare=True))
    assert f"where it is False, the site {does}." in got
