"""The one condition evaluator that matching and prose verification share: decided answers only."""

import pytest

from errdex.match.conditions import check_condition
from errdex.safe_eval import UNKNOWN, canonical, evaluate, lookups, parses


@pytest.mark.parametrize(("expr", "values", "expected"), [
    ("triton.cdiv(K, BK) != 1", {"K": 0, "BK": 1}, True),
    ("triton.cdiv(K, BK) != 1", {"K": 64, "BK": 64}, False),
    ("next_power_of_2(n) > 512", {"n": 300}, False),
    ("x.shape[0] % 16 != 0", {"x.shape[0]": 24}, True),             # a subscript bound by its source text
    ("cfg['mode'] == 'fast'", {"cfg['mode']": "fast"}, True),
    ("M > 512 and unknown_call(y)", {"M": 100}, False),           # one False conjunct decides
    ("M > 512 or unknown_call(y)", {"M": 1000}, True),
    ("M > 512 and unknown_call(y)", {"M": 1000}, UNKNOWN),
    ("n if flag else -n", {"flag": False, "n": 3}, -3),
    ("len(shape) not in (2, 3)", {"shape": (1, 2, 3, 4)}, True),
    ("1 < 'a'", {}, UNKNOWN),
    ("2 ** n > 10", {"n": 10 ** 6}, UNKNOWN),
    ("1 << n", {"n": 10 ** 6}, UNKNOWN),
    ("len(s * n) > 5", {"s": "a", "n": 10 ** 12}, UNKNOWN),        # would build a terabyte string
    ("len(n * s) > 5", {"s": "ab", "n": 3}, True),
    ("open('/etc/passwd')", {}, UNKNOWN),                         # only the listed pure helpers are called
    ("min(a, b, key=f)", {"a": 1, "b": 2}, UNKNOWN),
])
def test_evaluate(expr, values, expected):
    got = evaluate(expr, values)
    assert got is expected if expected is UNKNOWN or isinstance(expected, bool) else got == expected


def test_lookups_and_keys_are_canonical_source_text():
    assert lookups("x.shape[ 0 ]>n and f( y )") == {"x", "x.shape", "x.shape[0]", "n", "f", "f(y)", "y"}
    assert canonical("x.shape[ 0 ]") == "x.shape[0]"
    assert parses("a > b") and not parses("not (")


def test_a_bound_line_decides_a_condition_with_an_unknown_part():
    # `M` comes from the message; `backend` does not: the False part alone decides it.
    check = check_condition("M > 512 and backend.supports(M)", True, {"m": "100"}, {"m": "M"})
    assert check is not None and check.satisfied is False and check.bound == {"M": 100}
    undecided = check_condition("M > 512 and backend.supports(M)", True, {"m": "600"}, {"m": "M"})
    assert undecided.satisfied is None
    assert check_condition("not (", True, {}, {}) is None


@pytest.mark.parametrize(("condition", "port", "satisfied"), [
    # the site was reached: the try it went past caught nothing, the handler it sits in ran
    ("not raised(int(text), ValueError) and port < 1024", "80", True),
    ("not raised(int(text), ValueError) and port < 1024", "8080", False),
    ("raised(f(x), KeyError) and port < 1024", "80", True),
    ("not raised(g(')'), OSError) and port < 1024", "80", None),   # a bracket in a string: left to decide
    ("(raised(a(), E) or raised(b(), E)) and port < 1024", "80", True),
    ("raised(a(), E) or port < 1024", "8080", None),              # not a conjunct of its own
])
def test_what_reaching_the_site_says_of_raised_facts_is_known(condition, port, satisfied):
    check = check_condition(condition, True, {"port": port}, {"port": "port"})
    assert check.satisfied is satisfied and check.condition == condition
