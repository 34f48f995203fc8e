"""Constructs met on real code that the first condition builder got wrong, each
reproduced in a small function written here and checked by evaluation:

- an attribute checked, then a call, then checked again so that the path looks
  impossible: the two reads may differ, so the site is not declared unreachable
  and the condition says it is not exact (a call or a `with` block between two
  reads of the same value: not exact either);
- a literal loop whose body computes a name before testing it (`T = w * 32`);
- nested loops over non-literal iterables that return from the inner one;
- an except-site whose try body holds several calls (any of them may raise).
"""

from __future__ import annotations

import ast
import itertools
from types import SimpleNamespace

import pytest

from .analyze_support import mismatches, site_path
from errdex.analyze import trigger_condition
from errdex.analyze.condexpr import call_words, describe, parse_condition, raised_in
from errdex.analyze.flow import LOOP_REBINDS


def _condition(source: str, site: int = 0):
    func, path = site_path(source, site)
    got = trigger_condition(func, path)
    ast.parse(got.expr, mode="eval")
    assert (got.reason is None) is got.exact
    return got


def _agree_on_boxes(produced: str, expected: str, values: list[object]) -> int:
    """Evaluate both over `box.n` in `values` (a name with an attribute); the number compared."""
    compared = 0
    for n in values:
        env = {"box": SimpleNamespace(n=n)}
        want = eval(expected, dict(env))   # noqa: S307 - test-written expressions
        assert bool(eval(produced, dict(env))) == bool(want), (produced, n)   # noqa: S307
        compared += 1
    return compared


# --- reads that a call in between may change ---------------------------------

CHECK_CALL_CHECK = """
def f(box):
    assert box.n == 76
    box.release()
    assert box.n == 76
"""


def test_attribute_checked_again_after_a_call_is_not_found_unreachable():
    got = _condition(CHECK_CALL_CHECK, 1)
    assert got.expr != "False"
    assert not got.exact and "box.n" in got.reason
    # As an expression over the names it reads the two checks literally.
    assert _agree_on_boxes(got.expr, "box.n == 76 and box.n != 76", [75, 76, 77]) == 3


def test_attribute_checked_again_without_a_call_in_between_is_unreachable():
    got = _condition("""
def f(box, k):
    assert box.n == 76
    k = k + 1
    assert box.n == 76
""", 1)
    assert (got.expr, got.exact) == ("False", True)


def test_interval_reads_across_a_call_are_not_merged():
    got = _condition("""
def f(box):
    if box.n > 8:
        return 0
    box.grow()
    if box.n > 16:
        raise ValueError("big")
""")
    assert got.expr != "False" and not got.exact
    assert _agree_on_boxes(got.expr, "box.n <= 8 and box.n > 16", [7, 8, 9, 16, 17]) == 5


def test_attribute_reads_across_a_call_still_merge_when_the_path_stays_possible():
    got = _condition("""
def f(box, log):
    if box.n > 8:
        return 0
    log.write("checked")
    if box.n > 4:
        raise ValueError("big")
""")
    assert got.exact   # attributes are taken as unchanged by calls unless that rules the path out
    assert _agree_on_boxes(got.expr, "4 < box.n <= 8", [3, 4, 5, 8, 9]) == 5


def test_an_attribute_tested_again_after_a_method_of_its_object_is_not_one_value():
    """Blind sample 17 #14: `assert not manager.layers`, `manager.prepare()`, `assert {0, 1} <=
    manager.layers` was exact, both tests read as one value; a test made again after a method of
    its object ran is there because the call changes what it reads."""
    got = _condition("""
def f(box):
    if box.n > 8:
        return 0
    box.grow()
    if box.n > 4:
        raise ValueError("big")
""")
    assert not got.exact and got.reason == "`box.n` tested again after a call that may change it"
    for leaves in ("return a.view(n)", "raise ValueError(a.resize())"):   # a branch that leaves runs no call after
        got = _condition(f"""
def f(a, n, mod):
    if a.ndim == 2:
        {leaves}
    x = mod.empty(n)
    if a.ndim == 3:
        raise ValueError("three")
""")
        assert got.exact, (leaves, got.reason)


def test_with_block_entered_between_checks():
    got = _condition("""
def f(gate):
    assert not gate.on
    with enabled(gate):
        assert gate.on and gate.level == 1
""", 1)
    assert not got.exact and "gate.on" in got.reason
    assert got.expr != "not gate.on"   # the merge that reads `not gate.on` into the with block


def test_same_call_asserted_to_give_two_answers():
    source = """
def f(reg, model):
    assert reg.compile_once() == 2
    assert reg.compile_once() == 0
    assert model.ok
"""
    got = _condition(source, 2)
    assert not got.exact and "reg.compile_once()" in got.reason
    assert got.expr != "False"
    # The second assert's own failure (`== 2`, then `!= 0`) is possible with one answer: exact.
    assert _condition(source, 1).exact


def test_a_call_seen_answering_two_literals_keeps_only_its_latest_reads():
    """Review 17 P7: a test's asserts on one stateful call, each expecting the next answer
    (`None`, then one list, then another), are not one impossible conjunction claimed exact:
    the reads before the call answered otherwise are left out, and the condition is not exact."""
    source = """
def test_state(state):
    assert state.sample(3) is None
    state.receive([["w"], ["a"], ["s"], ["d"]])
    assert state.sample(3) == [["w"], ["a"], ["s"]]
    assert state.sample(3) == [["d"], [], []]
    assert state.sample(3) == [[], [], []]
    assert state.done
"""
    def same(produced: str, expected: str) -> bool:
        return ast.dump(ast.parse(produced)) == ast.dump(ast.parse(expected))

    third = _condition(source, 2)
    assert same(third.expr, 'state.sample(3) != [["d"], [], []]')
    assert not third.exact and "state.sample(3)" in third.reason
    fourth = _condition(source, 3)
    assert same(fourth.expr, "state.sample(3) != [[], [], []]") and not fourth.exact
    last = _condition(source, 4)
    assert same(last.expr, "state.sample(3) == [[], [], []] and not state.done") and not last.exact
    # Two answers that can be one (`is None`, then `!= [...]`) keep the reading that a call answers the same.
    assert _condition(source, 1).exact


def test_names_only_guards_stay_exact_across_calls():
    got = _condition("""
def f(n):
    if n > 3:
        return 0
    log(n)
    if n > 5:
        raise ValueError("big")
""")
    assert (got.expr, got.exact) == ("False", True)


def test_attribute_guard_without_a_second_read_stays_exact():
    got = _condition("""
def f(box, n):
    if box.n is None:
        return 0
    box.release()
    if n > 5:
        raise ValueError("big")
""")
    assert got.exact
    bad, compared = mismatches(got.expr.replace("box.n", "box_n"), "box_n is not None and n > 5")
    assert compared and not bad


# --- literal loops whose body computes the tested value ----------------------

def test_literal_loop_with_a_computed_test_value_is_unrolled():
    got = _condition("""
def pick(total, atom):
    for w in (4, 2, 1):
        t = w * 32
        if total % t:
            continue
        if total // t % atom == 0:
            return w
    raise ValueError("none")
""")
    assert got.exact, got.reason
    expected = " and ".join(f"(total % {t} or total // {t} % atom != 0)" for t in (128, 64, 32))
    for total, atom in itertools.product(range(0, 600, 16), (1, 2, 3, 4)):
        env = {"total": total, "atom": atom}
        assert bool(eval(got.expr, dict(env))) == bool(eval(expected, dict(env))), (total, atom)  # noqa: S307
    assert "128" in got.expr and "w * 32" not in got.expr   # arithmetic on the unrolled values is folded


def test_literal_loop_whose_computed_value_reads_a_changing_name_is_not_exact():
    got = _condition("""
def pick(total):
    acc = 0
    for w in (4, 2):
        acc = acc + w
        if total == acc:
            return w
    raise ValueError("none")
""")
    assert not got.exact and got.reason == LOOP_REBINDS


# --- nested loops over non-literal iterables -----------------------------------

NESTED = """
def aspect(width, height, table):
    for sizes in table.values():
        for name, (w, h) in sizes.items():
            if width == w and height == h:
                return name
    raise ValueError("no aspect")
"""


@pytest.mark.parametrize("table", [{}, {"a": {}}, {"a": {"x": (1, 2)}}, {"a": {"x": (1, 2)}, "b": {"y": (3, 4)}}])
def test_nested_non_literal_loops_fall_through_when_no_element_returns(table):
    got = _condition(NESTED)
    assert got.exact, got.reason   # each pass only tests: the inner loop is one test of tests and exits
    assert "all(" in got.expr
    for width, height in itertools.product(range(5), range(5)):
        env = {"width": width, "height": height, "table": table}
        want = not any(width == w and height == h for sizes in table.values() for w, h in sizes.values())
        assert bool(eval(got.expr, dict(env))) == want, (got.expr, env)  # noqa: S307


# --- except-sites with several calls in the try body ---------------------------

def test_except_site_with_two_calls_is_their_disjunction():
    got = _condition("""
def load():
    try:
        mod = import_module("a")
        sub = import_module("a.b")
    except ImportError as exc:
        raise RuntimeError("missing") from exc
""")
    assert got.exact
    bad, compared = mismatches(
        got.expr, "raised(import_module('a'), ImportError) or raised(import_module('a.b'), ImportError)")
    assert compared == 4 and not bad


def test_prose_names_every_alternative_call():
    cond = parse_condition("(raised(g(x), KeyError) or raised(h(a), KeyError)) and y")
    found = raised_in(cond)
    assert len(found) == 1 and found[0][1] == "KeyError"
    assert call_words(found[0][0]) == "one of the calls `g(x)`, `h(a)`"
    both = raised_in(parse_condition("(raised(__import__('a'), E) or raised(__import__('b.c'), E)) and y"))
    assert call_words(both[0][0]) == "importing one of `a`, `b.c`"
    mixed = raised_in(parse_condition("(raised(__import__('a'), E) or raised(load(p), E)) and y"))
    assert call_words(mixed[0][0]) == "one of importing `a`, the call `load(p)`"


def test_printing_and_logging_are_not_culprits_next_to_a_call():
    got = _condition("""
def load(path):
    try:
        print("loading")
        logger.info("from %s", path)
        data = read(path)
    except OSError:
        raise RuntimeError("cannot load")
""")
    assert got.exact and got.expr == "raised(read(path), OSError)"


def test_loop_body_rebinding_its_target_before_the_test_is_not_read_as_the_element():
    got = _condition("""
def parse(text):
    for part in text.split(","):
        part = part.strip()
        if part and "=" not in part:
            return part
    raise ValueError("no bare part")
""")
    assert not got.exact
    # `all(not (part and '=' not in part) for part in text.split(','))` would test the unstripped
    # parts: on "a=1, " it says a part returns (" " has no "="), while the code strips it to ""
    # and reaches the raise.
    env = {"text": "a=1, "}
    assert bool(eval(got.expr, dict(env))) is True   # noqa: S307 - the site is not excluded wrongly


def test_literal_loop_body_rebinding_its_target_is_not_exact():
    got = _condition("""
def f(m):
    for c in (8, 16):
        c = c * 2
        if m <= c:
            return c
    raise ValueError("big")
""")
    # `c = c * 2` reads the target the body rebinds: not forwarded, so not unrolled exactly.
    assert not got.exact and got.reason == LOOP_REBINDS


def test_checks_inside_a_with_block_then_after_it_are_not_found_impossible():
    # The block's own exits hold both reads of `gate.on` (before and after the inner `with`).
    got = _condition("""
def f(gate):
    with enabled(gate, True):
        assert gate.on
        with enabled(gate, False):
            assert not gate.on
    assert not gate.on
""", 2)
    assert got.expr != "False" and not got.exact


def test_checks_in_one_block_without_a_change_between_stay_impossible():
    got = _condition("""
def f(gate):
    log("start")
    with lock:
        assert gate.on
        assert not gate.on
    raise ValueError("never")
""", 2)
    assert (got.expr, got.exact) == ("False", True)


# --- with blocks that catch what their body raises ------------------------------

def test_code_after_a_pytest_raises_block_is_reachable():
    got = _condition("""
def test_it(model):
    with pytest.raises(RuntimeError):
        raise RuntimeError("load failed")
    assert model.ok
""", 1)
    assert got.expr == "not model.ok"
    assert not got.exact and "catches exceptions" in got.reason


def test_code_after_a_plain_with_block_that_raises_is_unreachable():
    got = _condition("""
def f(model):
    with opened(model):
        raise RuntimeError("load failed")
    assert model.ok
""", 1)
    assert (got.expr, got.exact) == ("False", True)


# --- what an except-site's try body can fail at --------------------------------

def test_key_lookup_under_except_key_error_is_a_missing_key():
    got = _condition("""
def offset_of(offsets, layer, expert):
    try:
        found = offsets[(layer, expert)]
    except KeyError as exc:
        raise ValueError("no object") from exc
""")
    assert got.exact
    for offsets in ({}, {(1, 2): 0}, {(2, 1): 5}):
        for layer, expert in ((1, 2), (2, 1), (0, 0)):
            env = {"offsets": offsets, "layer": layer, "expert": expert}
            assert bool(eval(got.expr, dict(env))) == ((layer, expert) not in offsets)  # noqa: S307


def test_key_lookup_in_a_comprehension_stays_a_raised_fact():
    got = _condition("""
def f(d, ks):
    try:
        vals = [d[k] for k in ks]
    except KeyError:
        raise ValueError("missing")
""")
    assert "raised(" in got.expr and "not in" not in got.expr


def test_comprehension_with_calls_is_named_whole_and_type_tests_are_not_culprits():
    got = _condition("""
def parse(value, xs):
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
        numbers = [float(x) for x in xs]
    except (ValueError, TypeError) as exc:
        raise ValueError("bad") from exc
""")
    assert got.exact
    bad, compared = mismatches(got.expr, "raised(json.loads(value), (ValueError, TypeError)) or "
                                         "raised([float(x) for x in xs], (ValueError, TypeError))")
    assert compared == 4 and not bad


def test_literal_loop_forwards_a_getattr_into_its_test():
    got = _condition("""
def trunk(model):
    for attr in ("language_model", "model"):
        candidate = getattr(model, attr, None)
        if candidate is not None and hasattr(candidate, "layers"):
            return candidate
    raise AttributeError("no trunk")
""")
    assert got.exact, got.reason

    class Trunk:
        layers = ()

    for model in (SimpleNamespace(), SimpleNamespace(model=Trunk()), SimpleNamespace(language_model=1),
                  SimpleNamespace(language_model=Trunk(), model=None)):
        want = not any(getattr(model, a, None) is not None and hasattr(getattr(model, a, None), "layers")
                       for a in ("language_model", "model"))
        assert bool(eval(got.expr, {"model": model})) == want  # noqa: S307


def test_literal_loop_over_attribute_names_reads_the_attributes():
    got = _condition("""
def check(batch, n):
    for key in ("input_ids", "positions"):
        value = getattr(batch, key)
        assert value.shape[0] == n
    raise ValueError("after")
""", 1)
    assert got.exact
    assert "batch.input_ids.shape[0]" in got.expr and "getattr" not in got.expr
    ok = SimpleNamespace(input_ids=SimpleNamespace(shape=(3,)), positions=SimpleNamespace(shape=(3,)))
    short = SimpleNamespace(input_ids=SimpleNamespace(shape=(3,)), positions=SimpleNamespace(shape=(2,)))
    assert eval(got.expr, {"batch": ok, "n": 3}) and not eval(got.expr, {"batch": short, "n": 3})  # noqa: S307


def test_a_raise_in_the_try_body_caught_by_the_handler_is_a_way_in():
    got = _condition("""
def require(lib):
    try:
        if parse(lib.version) < parse("0.46"):
            raise ImportError("too old")
    except ImportError as err:
        raise ImportError("install a newer one") from err
""", 1)
    assert got.exact, got.reason
    # `old` stands for the version test, so the evaluation does not call `parse`
    bad, compared = mismatches(
        got.expr.replace("parse(lib.version) < parse('0.46')", "old"),
        "raised(parse(lib.version), ImportError) or raised(parse('0.46'), ImportError) or old")
    assert compared and not bad, got.expr


def test_a_raise_of_a_builtin_subclass_is_caught_and_an_unrelated_one_is_not():
    got = _condition("""
def f(d, k, n):
    try:
        if k not in d:
            raise KeyError(k)
        if n < 0:
            raise TypeError("negative")
    except LookupError:
        raise ValueError("missing")
""", 2)
    assert got.exact and "TypeError" not in got.expr
    assert eval(got.expr, {"d": {}, "k": 1, "n": 5}) and not eval(got.expr, {"d": {1: 2}, "k": 1, "n": -1})  # noqa: S307


def test_a_raise_of_a_class_that_may_subclass_the_caught_one_is_not_exact():
    got = _condition("""
def f(x):
    try:
        if x:
            raise ConfigError("bad")
        run(x)
    except ValueError:
        raise RuntimeError("failed")
""", 1)
    assert not got.exact and "subclass" in got.reason


def test_a_builtin_exception_is_not_caught_by_a_library_class():
    got = _condition("""
def f(sock):
    try:
        reply = sock.recv()
        if not reply:
            raise RuntimeError("empty")
    except zmq.Again:
        raise TimeoutError("no reply")
""", 1)
    assert got.exact and got.expr == "raised(sock.recv(), zmq.Again)"


def test_a_value_read_before_a_call_is_not_forwarded_past_it():
    got = _condition("""
def f(group, steps):
    for step in (1, 2):
        before = group.count
        group.run(step)
        if group.count > before:
            continue
        return step
    raise ValueError("every step gathered")
""")
    # `group.count > group.count` would be the forwarded (wrong) test
    assert "group.count > group.count" not in got.expr
    assert not got.exact and got.reason == LOOP_REBINDS


def test_an_import_next_to_calls_in_the_try_body_is_named_in_order():
    got = _condition("""
def load(minimum):
    try:
        import recipe
        if parse(recipe.version) < parse(minimum):
            raise ImportError("too old")
    except ImportError as exc:
        raise RuntimeError("install recipe") from exc
""", 1)
    # `import recipe` is the `__import__` call it makes, first in source order
    assert got.exact, got.reason
    assert got.expr.startswith("raised(__import__('recipe'), ImportError) or raised(parse(recipe.version), ImportError)")
    assert got.expr.endswith(" or parse(recipe.version) < parse(minimum)")


def test_an_import_alone_in_the_try_body_is_the_culprit():
    got = _condition("""
def load():
    try:
        import recipe, extras.plugin
        from .local import thing
        from . import sibling
    except ImportError:
        raise RuntimeError("no recipe")
""")
    # `from .local import thing` also fails when `.local` imports but has no `thing`: not exact
    assert not got.exact and got.reason == "a name imported from a module may be what is missing", got.reason
    assert got.expr == ("raised(__import__('recipe'), ImportError) or raised(__import__('extras.plugin'), ImportError)"
                        " or raised(__import__('.local'), ImportError) or raised(__import__('.sibling'), ImportError)")
    plain = _condition("""
def load():
    try:
        import recipe
        from . import sibling
    except ImportError:
        raise RuntimeError("no recipe")
""")
    assert plain.exact, plain.reason
    caught = _condition("""
def load():
    try:
        from recipe import thing
    except ModuleNotFoundError:   # a missing name raises ImportError, which this does not catch
        raise RuntimeError("no recipe")
""")
    assert caught.exact, caught.reason
    assert call_words("__import__('extras.plugin')") == "importing `extras.plugin`"


def test_an_except_tuple_reads_as_one_of_its_classes():
    got = parse_condition("raised(load(p), (ImportError, OSError))")
    assert describe(got.own) == "the call `load(p)` raised one of `ImportError`, `OSError`"


def test_a_case_excluded_then_tested_again_reads_once():
    """`if ring and not ok: raise` then `if not ring and bad: raise`: the second site's path holds
    `not ring or ok` and then `not ring`, which absorbs it (`a and (a or b)` is `a`)."""
    got = _condition("""
def f(ring, ok, n):
    if ring and not ok:
        raise ValueError("ring")
    if not ring and n > 2:
        raise ValueError("no ring")
""", 1)
    assert got.exact and got.expr == "not ring and n > 2"
    bad, compared = mismatches(got.expr, "(not ring or ok) and not ring and n > 2")
    assert compared and not bad


def test_an_attribute_read_again_is_not_absorbed():
    """Two reads of `gate.on` may differ (a call between): the disjunction stays."""
    got = _condition("""
def f(gate, n):
    if gate.on and n > 1:
        raise ValueError("on")
    gate.toggle()
    if not gate.on and n > 2:
        raise ValueError("off")
""", 1)
    assert "or" in got.expr


def test_a_loop_whose_every_path_goes_on_falls_through_always():
    """`if isinstance(s, tuple): ...; continue` then more of the body: every element goes on, so the
    raise after the loop depends on nothing the loop tests (`not isinstance(s, T) or isinstance(s, T)`)."""
    got = _condition("""
def geometry(segments, total):
    cursor = 0
    for segment in segments:
        if isinstance(segment, tuple):
            cursor += segment[0]
            continue
        cursor += segment
    if cursor != total:
        raise ValueError("geometry mismatch")
""")
    assert "isinstance" not in got.expr and "all(" not in got.expr
    assert got.expr == "cursor != total"


def test_past_a_try_whose_body_always_returns_its_handler_ran():
    """`try: load(x); return` / `except (A, B): pass`: the code after it runs only when `load(x)` raised."""
    got = _condition("""
def load_with(loader, x, key):
    try:
        loader(x, key)
        return
    except (AssertionError, TypeError):
        pass
    if isinstance(key, str) and not key.isdigit():
        raise TypeError("unsupported key")
""")
    assert got.exact, got.reason
    assert got.expr == ("raised(loader(x, key), (AssertionError, TypeError)) and isinstance(key, str)"
                        " and not key.isdigit()")


def test_past_a_try_with_a_raise_inside_is_not_narrowed_to_its_calls():
    """A `raise` in the body may be what the handler caught: naming only the calls would be too narrow."""
    got = _condition("""
def check(loader, x):
    try:
        if loader(x) is None:
            raise KeyError(x)
        return
    except KeyError:
        pass
    raise ValueError("missing")
""", 1)
    assert not got.exact and "raised(" not in got.expr


def test_a_literal_bound_in_a_branch_is_written_into_its_tests():
    """`mapping = {...}` then `if key in mapping: return` inside a branch: outside the branch the test
    would read a name the branch binds (stale); the literal written in keeps it exact."""
    got = _condition("""
def load(key):
    if isinstance(key, str):
        mapping = {"q": 0, "k": 1}
        if key in mapping:
            return mapping[key]
    elif isinstance(key, int):
        mapping = {0: "q", 1: "k"}
        if key in mapping:
            return mapping[key]
    raise KeyError(key)
""")
    assert got.exact, got.reason
    assert "mapping" not in got.expr
    assert got.expr.replace('"', "'") == ("(isinstance(key, str) and key not in {'q': 0, 'k': 1}) or"
                                          " (not isinstance(key, str) and (not isinstance(key, int) or"
                                          " key not in {0: 'q', 1: 'k'}))")


def test_a_container_filled_before_the_test_is_not_written_in():
    """`found = []` then `found.append(...)` in a branch: the later test reads the filled list."""
    got = _condition("""
def check(a, b, mode):
    if mode == "x":
        found = []
        if a:
            found.append("a")
        if b:
            found.append("b")
        if found:
            return found
    raise ValueError("nothing found")
""")
    assert "[]" not in got.expr


def test_a_subset_test_negates_to_not_a_subset():
    """`not a <= b` on sets is no `a > b`: sets are ordered by inclusion, not totally."""
    got = _condition("""
def load(modules):
    assert {"model", "tokenizer"} <= set(modules), "missing parts"
""")
    assert got.exact
    assert got.expr.replace('"', "'") == "not {'model', 'tokenizer'} <= set(modules)"
    cond = parse_condition(got.expr)
    assert describe(cond.own).replace('"', "'") == "`{'model', 'tokenizer'}` is not a subset of `set(modules)`"
    assert cond.neg.replace('"', "'") == "{'model', 'tokenizer'} <= set(modules)"


def test_a_subset_test_on_names_bound_to_sets_negates_to_not_a_subset():
    got = _condition("""
def check(server_args, allowed_full: set[str]):
    backends = set(attention_backends_of(server_args))
    backends.discard(None)
    assert backends <= allowed_full, "backends not allowed"
""")
    assert got.exact
    assert got.expr == "not backends <= allowed_full"
    numbers = _condition("""
def check(n, limit):
    assert n <= limit, "too big"
""")
    assert numbers.expr == "not n <= limit"   # kept whole: NaN is neither `<= limit` nor `> limit`


def test_a_name_tested_again_after_it_is_bound_again_is_no_impossible_path():
    """`if not s: return`, `s = s.strip()`, `if not s: raise`: the tests read two values of `s`.
    Joined they read as `s and not s`, which is no input at all; the site raises for '  '."""
    got = _condition("""
def f(s):
    if not s:
        return None
    s = s.strip()
    if not s:
        raise ValueError("blank after strip")
""")
    assert got.expr == "not s" and not got.exact and "assigned again" in got.reason


def test_a_name_bound_once_in_a_block_with_a_loop_is_read_as_its_tests_left_it():
    """`with open(p) as f: meta = f.meta(); if meta.get("q") != "fp8": raise ...; for name in f: ...`:
    the loop binds other names, so after the block `meta` is what its test read (exact); a loop
    that binds `meta` again makes the test speak of an earlier value."""
    source = """
def f(path):
    layers = []
    with open(path) as fh:
        meta = fh.meta()
        if meta.get("q") != "fp8":
            raise ValueError("not fp8")
        for name in fh.keys():
            layers.append(name)
    if not layers:
        raise ValueError("no layers")
"""
    _exact_until_changed(source, "meta.get('q') == 'fp8' and not layers", "meta",
                         "for name in fh.keys():\n            layers.append(name)",
                         "for meta in fh.keys():\n            layers.append(meta)")


def test_importing_the_same_name_again_changes_nothing():
    """`from m import f` in two branches binds the same function: a test of `f()` before the
    second import still holds after it (exact); an import of another module's `f` does not."""
    source = """
def g(cfg):
    if cfg.a:
        from m.util import supported
        assert supported(), "a needs support"
    if cfg.b:
        from m.util import supported
        assert cfg.size > 1, "b needs size"
"""
    _exact_until_changed(source, "(not cfg.a or supported()) and cfg.b and not cfg.size > 1", "supported",
                         "        from m.util import supported\n        assert cfg.size",
                         "        from m.other import supported\n        assert cfg.size")


def _exact_until_changed(source: str, expected: str, name: str, old: str, new: str) -> None:
    """The second site's condition is `expected`, exact; with `old` replaced by `new` (which changes
    `name` after its test) it is approximate, saying so."""
    got = _condition(source, 1)
    assert got.exact and got.expr == expected
    got = _condition(source.replace(old, new), 1)
    assert not got.exact and f"`{name}` tested on the way" in got.reason


def test_checks_inside_a_branch_that_goes_on_are_earlier_checks_not_the_sites_path():
    """`if offsets is not None: assert offsets.shape[1] == 1; offsets = ...` only raises or goes on:
    its test is an earlier check (in the condition), not part of the site's own path (the guard);
    a caller guard built from that path would let calls through that fail the assert."""
    got = _condition("""
def g(topk, offsets):
    group = budget(topk)
    if offsets is not None and offsets.ndim == 2:
        assert offsets.shape[1] == 1
        offsets = offsets.squeeze(1)
    if group not in (128, 256):
        raise NotImplementedError("group")
""", 1)
    assert got.guard == "group != 128 and group != 256"
    assert "offsets.shape[1] == 1" in got.expr


def test_a_stale_test_left_out_keeps_the_earlier_checks_out_of_the_sites_path():
    """When a test of a name bound again is left out, the site's own path still leaves out the
    earlier raise-only checks (`isinstance(raw, dict)` raises on its own)."""
    got = _condition("""
def resolve(raw):
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError("must be a dict")
    unknown = set(raw) - KEYS
    if unknown:
        raise ValueError("unknown keys")
    secondary = raw.get("secondary")
    if secondary is not None:
        unknown = set(secondary) - KNOBS
        if unknown:
            raise ValueError("unknown secondary keys")
""", 2)
    assert "isinstance(raw, dict)" in got.expr and "isinstance" not in got.guard
    assert got.guard == "raw is not None and secondary is not None and unknown"


def test_a_type_checking_block_never_runs():
    """`if TYPE_CHECKING:` is True for a type checker only: an assert inside it never raises."""
    source = """
def f(x):
    if TYPE_CHECKING:
        assert isinstance(x, int)
    if not typing.TYPE_CHECKING and x < 0:
        raise ValueError("neg")
"""
    got = _condition(source, 0)
    assert got.expr == "False" and got.exact
    assert _condition(source, 1).expr == "x < 0"


def test_a_site_after_a_call_that_checks_is_not_exact():
    """Review 18: `_assert_supported(x)`, `super()._validate()` or `torch.testing.assert_close(a, b)`
    before the site raise when their own checks fail, which the walk does not follow: the condition
    holds only if they returned, so it is not exact (the first one is named); other calls are not checks."""
    checked = _condition("""
def f(self, x, y):
    self.cache.update(x)
    _assert_supported(x)
    super()._validate()
    torch.testing.assert_close(x, y)
    if y > 3:
        raise ValueError("big")
""")
    assert checked.expr == "y > 3" and not checked.exact
    assert checked.reason.startswith("the checks inside `_assert_supported(...)` (line 4) are not followed")
    assert "_validate" not in checked.reason   # one named
    plain = _condition("""
def f(x, y):
    log.update(x)
    await asyncio.sleep(0)
    if y > 3:
        raise ValueError("big")
""")
    assert plain.exact


def test_one_call_text_made_at_two_lines_in_raised_terms_is_not_exact():
    """Review 19, storage_attachment.py:227: `drain()` at the first try's line must not raise, at
    the second it may; `raised(cache.drain(), E)` names both alike, so the formula forbids the case
    where the second one raised. Said, with both lines, and not exact."""
    cond = _condition('''
        def detach(cache, controller):
            try:
                cache.drain()
                controller.detach()
            except Exception:
                return False
            try:
                cache.release()
                cache.drain()
            except Exception:
                raise RuntimeError("cleanup failed")
        ''')
    assert "raised(cache.drain(), Exception)" in cond.expr
    assert not cond.exact
    assert "`cache.drain()` is made at lines 4 and 10" in cond.reason


def test_one_call_made_once_in_raised_terms_stays_exact():
    cond = _condition('''
        def detach(cache, controller):
            try:
                cache.drain()
            except Exception:
                return False
            try:
                cache.release()
            except Exception:
                raise RuntimeError("cleanup failed")
        ''')
    assert cond.expr == "not raised(cache.drain(), Exception) and raised(cache.release(), Exception)"
    assert cond.exact, cond.reason


def test_earlier_checks_interleaved_with_the_sites_path_leave_the_own_test_out():
    """Review 27 #14: `if x is None: return`, `if not x: raise`, `if min(x) < 1: raise` gives
    `x is not None and x and min(x) < 1` for the guard `x is not None and min(x) < 1`; the earlier
    checks are `x` alone, not the site's own test too."""
    got = _condition("""
def check(x):
    if x is None:
        return
    if not x:
        raise ValueError("empty")
    if min(x) < 1:
        raise ValueError("small")
""", 1)
    cond = parse_condition(got.expr, got.guard)
    assert cond.guards == ["x"]
    assert cond.own_text == "min(x) < 1" and cond.context == "x is not None"


def test_a_division_in_the_try_body_leaves_an_except_site_approximate():
    """Review 27 #9: `int(rank) % count` under `except Exception` also fails for `count == 0`: the
    named call is not the only way in. A `%` that formats a string divides nothing."""
    got = _condition("""
def resolve(count):
    try:
        rank = int(tp_rank()) % count
    except Exception as exc:
        raise RuntimeError("cannot resolve") from exc
""")
    assert got.expr == "raised(int(tp_rank()), Exception)" and not got.exact
    assert "`int(tp_rank()) % count`, which raises ZeroDivisionError" in got.reason
    got = _condition("""
def name(rank):
    try:
        return "rank-%d" % int(rank)
    except ValueError:
        raise RuntimeError("bad rank")
""")
    assert got.exact


def test_a_yield_in_the_try_body_is_a_way_in():
    """Review 27 #0: in a @contextmanager, the caller's `with` block raises at the `yield`."""
    got = _condition("""
def timed():
    start = now()
    try:
        yield
        took = now() - start
    except Exception:
        raise RuntimeError("failed")
""")
    assert got.expr == "raised((yield), Exception) or raised(now(), Exception)"
    assert describe(parse_condition(got.expr).own).startswith("the code run while it waits at `yield`")


def test_a_finished_check_loop_with_unpacking_in_its_body_stays_in_the_condition():
    """Conditions 32 #2, #9: a loop whose passes unpack values (`a, b = names[i], names[j]`,
    `dtype, shape = meta`) before their check was dropped (`True`), so the later site's condition
    let through what the loop had already rejected; the unpacked values are written in instead."""
    got = _condition("""
def fwd(present, names, cu):
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, b = names[i], names[j]
            assert present[a].dtype == present[b].dtype, "dtypes differ"
    if cu is not None:
        raise ValueError("cu")
""", 1)
    assert got.expr == ("all(all((present[names[i]].dtype == present[names[j]].dtype for j in range(i + 1,"
                        " len(names)))) for i in range(len(names))) and cu is not None")
    got = _condition("""
def check(prefixes, meta, missing):
    for prefix in prefixes:
        weight_dtype, weight_shape = meta[prefix]
        if weight_dtype != "F8" or len(weight_shape) != 2:
            raise ValueError("incompatible")
    if missing:
        raise ValueError("missing")
""", 1)
    assert got.expr == ("all(meta[prefix][0] == 'F8' and len(meta[prefix][1]) == 2 for prefix in prefixes)"
                        " and missing")
    assert got.exact


def test_an_or_guard_bracketed_in_the_condition_is_no_earlier_check():
    """Review 28 #11: `if idx < 0 or idx >= n: raise` after two asserts listed its own `or` test,
    bracketed in the condition, among the earlier checks."""
    got = _condition("""
def pick(self, idx):
    assert len(self.a) == len(self.b)
    n = len(self.a)
    if idx < 0 or idx >= n:
        raise IndexError("bad index")
""", 1)
    assert got.expr.endswith("and (idx < 0 or idx >= n)")
    cond = parse_condition(got.expr, got.guard)
    assert cond.guards == ["len(self.a) == len(self.b)"]


def test_a_binding_in_the_other_branch_than_the_test_does_not_make_it_stale():
    """Review 29 #2: `if kind == "sliding": size = f(); if size is None: raise` / `else: size = -1`:
    the else-branch binding never runs after that test, so the later site's condition is exact."""
    got = _condition("""
def layer(kind, cfg):
    if kind == "sliding":
        size = cfg.window
        if size is None:
            raise ValueError("window missing")
    else:
        size = -1
    if cfg.heads % 2:
        raise ValueError("odd heads")
""", 1)
    assert got.exact and "tested on the way" not in (got.reason or "")
    assert got.expr == "(kind != 'sliding' or size is not None) and cfg.heads % 2"
