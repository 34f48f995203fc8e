"""Every message form becomes the right template, placeholders and messagePattern."""

import re

import pytest


def one_site(extract, body):
    _, sites, _ = extract({"m.py": body})
    assert len(sites) == 1, [s.message.text() for s in sites]
    return sites[0]


@pytest.mark.parametrize("code, template, placeholders", [
    ('raise ValueError("plain text")', "plain text", {}),
    ('raise ValueError("implicit " "concatenation")', "implicit concatenation", {}),
    ('raise ValueError(f"M={m} outside [1, {MAX}]")', "M={m} outside [1, {MAX}]", {"m": "m", "MAX": "MAX"}),
    ('raise ValueError(f"got {x!r} and {y:.2f}")', "got {x!r} and {y:.2f}", {"x!r": "x", "y:.2f": "y"}),
    ('raise ValueError(f"shape {t.shape[-1]} vs {len(xs)}")', "shape {t.shape[-1]} vs {len(xs)}",
     {"t.shape[-1]": "t.shape[-1]", "len(xs)": "len(xs)"}),
    ('raise ValueError("a %s b %d" % (x, n + 1))', "a {x} b {n + 1}", {"x": "x", "n + 1": "n + 1"}),
    ('raise ValueError("only %s" % x)', "only {x}", {"x": "x"}),
    ('raise ValueError("%(a)s=%(b)r" % {"a": k, "b": v})', "{k}={v}", {"k": "k", "v": "v"}),
    ('raise ValueError("100%% of %s" % x)', "100% of {x}", {"x": "x"}),
    ('raise ValueError("{} and {}".format(a, b.c))', "{a} and {b.c}", {"a": "a", "b.c": "b.c"}),
    ('raise ValueError("{1}/{0}".format(a, b))', "{b}/{a}", {"b": "b", "a": "a"}),
    ('raise ValueError("n={n} max={m:>4}".format(n=len(x), m=top))', "n={n} max={m:>4}",
     {"n": "len(x)", "m:>4": "top"}),
    ('raise ValueError("bad value: " + str(x) + "!")', "bad value: {x}!", {"x": "x"}),
    ('raise ValueError("bad value: " + repr(x))', "bad value: {repr(x)}", {"repr(x)": "repr(x)"}),
    ('raise KeyError', "", {}),
    ('raise ValueError()', "", {}),
    ('raise RuntimeError(message="kw " f"{v}")', "kw {v}", {"v": "v"}),
])
def test_message_forms(extract, code, template, placeholders):
    site = one_site(extract, f"def f(x, y, m, MAX, t, xs, n, k, v, a, b, top):\n    {code}\n")
    assert site.message.text() == template
    assert site.message.placeholders() == placeholders
    assert site.line == 2


def test_local_variable_built_earlier_including_augmented(extract):
    site = one_site(extract, '''
        def f(n):
            msg = f"bad n={n}"
            if n > 3:
                msg += "; too big"
            raise ValueError(msg)
    ''')
    assert site.message.text() == "bad n={n}; too big"
    assert site.message.form == "variable"


def test_a_string_built_earlier_inside_an_f_string_is_its_text(extract):
    """A real report: `raise ValueError(f"{msg} To allow ...")` after `msg = f"... ({n}) ..."` was
    the template `{msg} To allow ...`, which a printed message fits only loosely."""
    site = one_site(extract, '''
        LIMIT = "at most 8"
        def f(n, reason):
            msg = f"Warning: {reason} n ({n}) is too big."
            raise ValueError(f"{msg} To allow it, set X=1; {LIMIT}, not {n!r}")
    ''')
    assert site.message.text() == "Warning: {reason} n ({n}) is too big. To allow it, set X=1; at most 8, not {n!r}"
    assert site.message.placeholders() == {"reason": "reason", "n": "n", "n!r": "n"}


def test_module_constant(extract):
    site = one_site(extract, '''
        ERR = "the widget is " "broken"
        def f():
            raise RuntimeError(ERR)
    ''')
    assert site.message.text() == "the widget is broken"


def test_raise_from_and_exception_object_in_local(extract):
    _, sites, _ = extract({"m.py": '''
        def f(x):
            try:
                g(x)
            except KeyError as e:
                raise LookupError(f"no {x}") from e
        def h(x):
            err = TypeError("wrong type " + type(x).__name__)
            raise err
    '''})
    assert [(s.error_class, s.message.text()) for s in sites] == [
        ("LookupError", "no {x}"), ("TypeError", "wrong type {type(x).__name__}")]


def test_bare_raise_and_reraise_are_not_sites(extract):
    _, sites, _ = extract({"m.py": '''
        def f():
            try:
                g()
            except ValueError as e:
                log(e)
                raise
            except KeyError as e:
                raise e
    '''})
    assert sites == []


def test_pattern_escapes_only_metacharacters_and_matches_rendering(extract):
    site = one_site(extract, 'def f(K, BK):\n    raise ValueError(f"Packed decode kernel only supports NK=1 (got K={K}, BK={BK}).")\n')
    assert site.message.pattern() == r"Packed decode kernel only supports NK=1 \(got K=(.+?), BK=(.+?)\)\."
    m = re.fullmatch(site.message.pattern(), "Packed decode kernel only supports NK=1 (got K=0, BK=1).")
    assert m.groups() == ("0", "1")
    assert site.message.groups() == ["K", "BK"]


def test_template_with_literal_braces_and_regex_chars(extract):
    site = one_site(extract, 'def f(x):\n    raise ValueError(f"expected {{a: [1-9]+}} got {x}$")\n')
    assert site.message.text() == "expected {{a: [1-9]+}} got {x}$"  # as written in the f-string
    assert re.fullmatch(site.message.pattern(), "expected {a: [1-9]+} got 7$").group(1) == "7"


@pytest.mark.parametrize("code, template, shown", [
    ('assert n == 1, (f"cp size {n} should equal 1",)', "('cp size {n} should equal 1',)",
     str(AssertionError(("cp size 2 should equal 1",)))),
    # no text of its own: one placeholder, as any message is (brackets and commas alone would
    # match every log line, and made scan 3x slower)
    ('assert a == b, (a, b)', "{(a, b)}", str(AssertionError(((2, 3), "x")))),
    ('assert a, (f"{a}", b)', '{(f"{a}", b)}', str(AssertionError(("1", 2)))),
    ('assert a, ("it\'s bad", n)', "(\"it's bad\", {n!r})", str(AssertionError(("it's bad", 7)))),
])
def test_an_assert_tuple_message_is_the_text_python_shows(extract, code, template, shown):
    """Review 22 #13: `assert ok, (f"...",)` was one placeholder, `(.+?)`, matching any message;
    Python shows the tuple's repr, and the template is that text."""
    site = one_site(extract, f"def f(n, a, b):\n    {code}\n")
    assert site.message.text() == template
    assert re.fullmatch(site.message.pattern(), shown), (site.message.pattern(), shown)
