"""Golden strings: what users read must stay readable, not just equivalent."""

from __future__ import annotations

import pytest

from .analyze_support import site_path
from errdex.analyze import trigger_condition
from errdex.analyze.raised import MAX_CANDIDATES, SEVERAL_CALLS

GOLDEN = [
    ("""
def _cell_of(m: int) -> int:
    for c in (8, 16, 32, 64, 128, 256, 512):
        if m <= c:
            return c
    raise ValueError(f"gemm_ar: M={m} outside [1, {MAX_TOKENS}]")
""", "not m <= 512"),
    ("""
def f(x):
    if x is None:
        return
    if x > 5:
        raise ValueError
""", "x is not None and x > 5"),
    ("""
def f(k, d):
    if k in d:
        return d[k]
    raise KeyError(k)
""", "k not in d"),
    ("""
def f(s):
    try:
        v = int(s)
    except ValueError as e:
        raise TypeError("bad") from e
""", "raised(int(s), ValueError)"),
    ("""
def f(x):
    if 0 < x <= 5:
        return x
    raise ValueError
""", "not x > 0 or not x <= 5"),
    ("""
def f(a, b):
    if a or b:
        return 1
    raise ValueError
""", "not a and not b"),
    ("""
def f(x):
    for c in [1, 2, 3]:
        if x == c:
            return c
    raise ValueError
""", "x not in (1, 2, 3)"),
    ("""
def f(m, cells):
    for c in cells:
        if m <= c:
            return c
    raise ValueError
""", "all(not m <= c for c in cells)"),
]


@pytest.mark.parametrize(("source", "expected"), GOLDEN, ids=[g[1] for g in GOLDEN])
def test_golden_text(source: str, expected: str):
    func, path = site_path(source)
    assert trigger_condition(func, path).expr == expected


def test_an_earlier_branch_that_takes_every_case_leaves_the_site_unreachable():
    """Review 16 #17: the `elif` before the assert takes every case in which it would fail; the
    negated branch `(not a or not b or c)` with the units `a`, `b`, `not c` cannot hold."""
    func, path = site_path("""
def build(self, is_dsa_model, mtp_pool):
    if mtp_pool is not None:
        return 1
    elif self.use_mla_backend and is_dsa_model and not self.mambaish_config:
        return 2
    elif self.use_mla_backend and not self.mambaish_config:
        assert not is_dsa_model
""")
    got = trigger_condition(func, path)
    assert (got.expr, got.exact) == ("False", True)
    # an attribute read again after a call may differ: the same tests across a call stay apart
    func, path = site_path("""
def build(self, is_dsa_model):
    if self.use_mla_backend and is_dsa_model and not self.mambaish_config:
        return 2
    self.reload()
    if self.use_mla_backend and not self.mambaish_config:
        assert not is_dsa_model
""")
    got = trigger_condition(func, path)
    assert got.expr != "False" and not got.exact
    assert got.reason.endswith("; a value tested before a call is tested again after it, which may change it")


def test_packed_decode_condition_and_calls():
    func, path = site_path("""
def decode(K):
    BK = triton.next_power_of_2(K)
    if triton.cdiv(K, BK) != 1:
        raise ValueError(f"Packed decode kernel only supports NK=1 (got K={K}, BK={BK}).")
""")
    got = trigger_condition(func, path)
    assert (got.expr, got.exact, got.reason) == ("triton.cdiv(K, BK) != 1", True, None)
    assert got.calls == ["triton.cdiv(K, BK)"]


def test_except_site_lists_every_candidate_call():
    func, path = site_path("""
def f(x):
    try:
        a = g(x)
        b = h(int(a))
    except KeyError:
        raise ValueError("bad")
""")
    got = trigger_condition(func, path)
    assert got.expr == "raised(g(x), KeyError) or raised(h(int(a)), KeyError)"
    assert got.exact and got.reason is None
    assert got.calls == ["g(x)", "h(int(a))"]


def test_except_site_with_more_calls_than_named_is_not_exact():
    body = "\n".join(f"        v{i} = g{i}(x)" for i in range(MAX_CANDIDATES + 1))
    func, path = site_path(f"""
def f(x):
    try:
{body}
    except KeyError:
        raise ValueError("bad")
""")
    got = trigger_condition(func, path)
    named = [f"raised(g{i}(x), KeyError)" for i in range(MAX_CANDIDATES)]
    assert got.expr == " or ".join(named)
    assert not got.exact and got.reason == SEVERAL_CALLS


def test_module_scope_site():
    import ast

    tree = ast.parse("import sys\nif sys.version_info < (3, 8):\n    raise ImportError('old')\n")
    got = trigger_condition(tree, [tree.body[1], tree.body[1].body[0]])
    assert got.expr == "sys.version_info < (3, 8)"
    assert got.exact


def test_path_element_missing_from_its_block_is_reported():
    import ast

    tree = ast.parse("def f(x):\n    raise ValueError\n")
    stray = ast.parse("raise KeyError").body[0]
    got = trigger_condition(tree.body[0], [stray])
    assert not got.exact and "not found" in got.reason


def test_repeated_calls_on_one_scope_agree():
    func, path = site_path("""
def f(x, y):
    if x is None:
        return
    for c in (1, 2):
        if y == c:
            return
    if x > 1:
        raise ValueError
""")
    first = trigger_condition(func, path)
    second = trigger_condition(func, path)
    assert first == second
    assert first.expr == "x is not None and y != 1 and y != 2 and x > 1"


def test_guard_leaves_out_earlier_raise_only_checks_but_keeps_returns():
    import ast as _ast

    from errdex.analyze import trigger_condition as _tc

    src = (
        "def f(mixed, K, H, HV, x):\n"
        "    if mixed.ndim != 2:\n"
        "        raise ValueError('ndim')\n"
        "    assert K > 0, 'k'\n"
        "    if x is None:\n"
        "        return 0\n"
        "    if H <= 0:\n"
        "        raise ValueError('head')\n"
        "    elif HV % H:\n"
        "        raise ValueError('ratio')\n"
        "    BK = triton.next_power_of_2(K)\n"
        "    if triton.cdiv(K, BK) != 1:\n"
        "        raise ValueError('packed')\n"
    )
    fn = _ast.parse(src).body[0]
    last = fn.body[-1]
    cond = _tc(fn, [last, last.body[0]])
    assert cond.guard == "x is not None and triton.cdiv(K, BK) != 1"
    assert cond.expr.startswith("mixed.ndim == 2 and K > 0 and x is not None")
    assert cond.expr.endswith("triton.cdiv(K, BK) != 1")
