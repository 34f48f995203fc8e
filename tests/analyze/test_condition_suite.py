"""A labelled suite of small functions, each with the exact expected trigger
condition of one site. Equivalence is checked by evaluating both conditions
on many generated inputs, not by comparing strings. `expected=None` means
only `exact` is checked (the condition is an approximation)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

import pytest

from .analyze_support import mismatches, site_path
from errdex.analyze import trigger_condition


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    expected: str | None
    exact: bool = True
    site: int = 0


CASES = [
    # --- branches ---------------------------------------------------------
    Case("unconditional", """
def f(x):
    raise ValueError("x")
""", "True"),
    Case("simple_if", """
def f(x):
    if x > 3:
        raise ValueError("big")
""", "x > 3"),
    Case("else_branch", """
def f(x):
    if x > 3:
        return 1
    else:
        raise ValueError("small")
""", "not (x > 3)"),
    Case("elif_negates_earlier", """
def f(x):
    if x < 0:
        return -1
    elif x == 0:
        raise ValueError("zero")
""", "x == 0"),
    Case("elif_else_no_exit", """
def f(x):
    if x < 0:
        y = 1
    elif x > 10:
        y = 2
    else:
        raise ValueError("mid")
""", "0 <= x <= 10"),
    Case("nested_if", """
def f(x, y):
    if x > 3:
        if y:
            raise ValueError("both")
""", "x > 3 and y"),
    Case("nested_elif_in_else", """
def f(x, y):
    if x is None:
        return
    else:
        if y is None:
            raise ValueError("y")
""", "x is not None and y is None"),
    Case("double_not", """
def f(x):
    if not (x is not None):
        raise ValueError("none")
""", "x is None"),
    Case("not_compare", """
def f(x):
    if not x > 3:
        raise ValueError("small")
""", "x <= 3"),
    Case("isinstance", """
def f(x):
    if not isinstance(x, int):
        raise TypeError("int")
""", "not isinstance(x, int)"),
    Case("len_check", """
def f(xs):
    if len(xs) == 0:
        raise ValueError("empty")
""", "len(xs) == 0"),
    Case("or_test_guard", """
def f(a, b):
    if a or b:
        return 0
    raise ValueError("neither")
""", "not a and not b"),
    Case("and_test_in_site", """
def f(x, y):
    if x is None and y is None:
        raise ValueError("need one")
""", "x is None and y is None"),
    Case("or_none_guard", """
def f(x, y):
    if x is None or y is None:
        return None
    raise ValueError("both set")
""", "x is not None and y is not None"),
    # --- unreachable ------------------------------------------------------
    Case("contradiction_nested", """
def f(x):
    if x > 3:
        if x < 2:
            raise ValueError("never")
""", "False"),
    Case("after_return", """
def f(x):
    return 1
    raise ValueError("dead")
""", "False"),
    Case("if_false", """
def f(x):
    if False:
        raise ValueError("dead")
""", "False"),
    Case("if_true_return", """
def f(x):
    if True:
        return 1
    raise ValueError("dead")
""", "False"),
    Case("both_branches_leave", """
def f(a):
    if a:
        return 1
    else:
        raise KeyError("k")
    raise ValueError("dead")
""", "False", site=1),
    Case("contradiction_in_test", """
def f(x):
    if x > 5 and x < 3:
        raise ValueError("never")
""", "False"),
    Case("after_while_true_without_break", """
def f(x):
    while True:
        if x:
            return 1
    raise ValueError("dead")
""", "False"),
    # --- early exits before the site ---------------------------------------
    Case("early_return_none", """
def f(x):
    if x is None:
        return None
    if x > 5:
        raise ValueError("big")
""", "x is not None and x > 5"),
    Case("early_raise_sibling", """
def f(x):
    if x < 0:
        raise ValueError("negative")
    raise KeyError("other")
""", "x >= 0", site=1),
    Case("partial_exit_nested", """
def f(a, b):
    if a:
        if b:
            return 1
    raise ValueError("x")
""", "not (a and b)"),
    Case("no_exit_if_adds_nothing", """
def f(a, x):
    if a:
        y = 1
    if x:
        raise ValueError("x")
""", "x"),
    Case("early_assert", """
def f(x):
    assert x is not None
    if x > 3:
        raise ValueError("big")
""", "x is not None and x > 3", site=1),
    Case("in_test_early_return", """
def f(k, d):
    if k in d:
        return d[k]
    raise KeyError(k)
""", "k not in d"),
    Case("not_in_site", """
def f(k, d):
    if k not in d:
        raise KeyError(k)
""", "k not in d"),
    Case("negative_constants_merge", """
def f(x):
    if x < -1:
        return 0
    if x < 5:
        raise ValueError("low")
""", "-1 <= x < 5"),
    Case("merge_equality", """
def f(x):
    if x != 3:
        return 0
    if x > 2:
        raise ValueError("three")
""", "x == 3"),
    Case("sys_exit_leaves", """
def f(x):
    if x:
        sys.exit(1)
    raise ValueError("x")
""", "not x"),
    Case("earlier_branch_takes_every_case", """
def f(mla, dsa, mamba):
    if mla and dsa and not mamba:
        return 0
    elif mla and not mamba:
        assert not dsa, "dsa needs its own pool"
""", "False"),
    Case("earlier_branch_takes_some_cases", """
def f(mla, dsa, mamba):
    if mla and dsa and not mamba:
        return 0
    elif mla:
        assert not dsa, "dsa needs its own pool"
""", "mla and dsa and mamba"),
    Case("pytest_skip_leaves", """
def test_f(exists, inflight):
    if not exists:
        pytest.skip("needs the path")
    assert not inflight
""", "exists and inflight"),
    Case("nested_def_transparent", """
def f(x):
    def g():
        return 1
    if x:
        raise ValueError("x")
""", "x"),
    Case("elif_chain_partial_exit", """
def f(x, y):
    if x > 10:
        return 0
    elif x > 5:
        if y:
            return 1
    raise ValueError("x")
""", "x <= 10 and (x <= 5 or not y)"),
    Case("if_pass_elif_return", """
def f(x):
    if x == 1:
        pass
    elif x == 2:
        return 0
    raise ValueError("x")
""", "x != 2"),
    # --- chained comparisons ----------------------------------------------
    Case("chained_site", """
def f(x):
    if not 0 < x <= 5:
        raise ValueError("range")
""", "x <= 0 or x > 5"),
    Case("chained_guard", """
def f(x):
    if 0 < x <= 5:
        return x
    raise ValueError("range")
""", "not (0 < x <= 5)"),
    Case("chained_contradiction", """
def f(x):
    if 0 < x < 5:
        if x > 7:
            raise ValueError("never")
""", "False"),
    # --- asserts ------------------------------------------------------------
    Case("assert_site", """
def f(x):
    assert x > 0, "positive"
""", "x <= 0"),
    Case("assert_and", """
def f(a, b):
    assert a and b, "both"
""", "not (a and b)"),
    Case("assert_in_if", """
def f(mode, n):
    if mode == 1:
        assert n > 0, "n"
""", "mode == 1 and n <= 0"),
    Case("assert_after_assert", """
def f(x):
    assert x is not None
    assert x >= 0, "neg"
""", "x is not None and x < 0", site=1),
    Case("warn_site", """
def f(x):
    if x > 1:
        warnings.warn("big")
""", "x > 1"),
    # --- loops over literals ------------------------------------------------
    Case("cell_of", """
def _cell_of(m: int) -> int:
    for c in (8, 16, 32, 64, 128, 256, 512):
        if m <= c:
            return c
    raise ValueError(f"gemm_ar: M={m} outside [1, {MAX_TOKENS}]")
""", "m > 512"),
    Case("literal_list_eq", """
def f(x):
    for c in [1, 2, 3]:
        if x == c:
            return c
    raise ValueError("x")
""", "x not in (1, 2, 3)"),
    Case("literal_tuple_pairs", """
def f(x):
    for lo, hi in ((0, 10), (20, 30)):
        if lo <= x < hi:
            return lo
    raise ValueError("x")
""", "not (0 <= x < 10) and not (20 <= x < 30)"),
    Case("literal_range", """
def f(x):
    for i in range(3):
        if x == i:
            return i
    raise ValueError("x")
""", "x not in (0, 1, 2)"),
    Case("literal_continue", """
def f(x):
    for c in (1, 2, 3):
        if x < c:
            continue
        return c
    raise ValueError("x")
""", "x < 1"),
    Case("literal_else_continue", """
def f(x):
    for c in (1, 2):
        if x == c:
            return c
        else:
            continue
    raise ValueError("x")
""", "x != 1 and x != 2"),
    Case("for_else_break", """
def f(x):
    for c in (1, 2, 3):
        if x == c:
            break
    else:
        raise ValueError("x")
""", "x not in (1, 2, 3)"),
    Case("for_else_return", """
def f(x):
    for c in (1, 2):
        if x == c:
            return c
    else:
        raise ValueError("x")
""", "x != 1 and x != 2"),
    Case("after_loop_with_break", """
def f(x):
    for c in (1, 2):
        if x == c:
            break
    raise ValueError("x")
""", "True"),
    Case("after_loop_else_returns", """
def f(x):
    for c in (1, 2):
        if x == c:
            break
    else:
        return 0
    raise ValueError("x")
""", "x == 1 or x == 2"),
    Case("empty_literal_loop", """
def f(x):
    for c in ():
        if x == c:
            return c
    raise ValueError("x")
""", "True"),
    Case("loop_body_rebinds", """
def f(x):
    for c in (1, 2):
        x = x + c
        if x > 5:
            return x
    raise ValueError("x")
""", None, exact=False),
    # --- loops over other iterables, loop bodies ---------------------------
    Case("non_literal_loop", """
def f(m, cells):
    for c in cells:
        if m <= c:
            return c
    raise ValueError("m")
""", "all(not m <= c for c in cells)"),   # the body only tests and leaves: exact
    Case("non_literal_loop_leaving_branch_binds", """
def f(items):
    for x in items:
        if x > 0:
            y = x + 1
            return y
    raise ValueError("no positive")
""", "all(x <= 0 for x in items)"),   # the binding is on the way out only
    Case("non_literal_loop_changing_state", """
def f(xs, seen):
    for x in xs:
        if x in seen:
            return x
        seen.add(x)
    raise LookupError("none seen")
""", "all(x not in seen for x in xs)", exact=False),   # `seen` grows between passes
    Case("non_literal_loop_binding", """
def f(plugins):
    for detect in plugins:
        found = detect()
        if found is not None:
            return found
    raise RuntimeError("none")
""", "all(detect() is None for detect in plugins)"),   # each pass's value written into its test
    Case("non_literal_loop_value_tested_twice", """
def f(queue, xs):
    for x in xs:
        v = queue.pop()
        if v is None or v < x:
            return v
    raise RuntimeError("drained")
""", None, exact=False),   # written in twice, queue.pop() would run twice a pass
    Case("non_literal_loop_carried_value", """
def f(xs):
    prev = None
    for x in xs:
        if x == prev:
            return x
        prev = x
    raise ValueError("no repeat")
""", None, exact=False),   # the test reads the previous pass's value
    Case("non_literal_loop_retry", """
def f(device, avoid, tries):
    for _ in range(tries):
        stream = device.new_stream(priority=0)
        if stream not in avoid:
            return stream
    raise RuntimeError("no distinct stream")
""", "all(device.new_stream(priority=0) in avoid for _ in range(tries))"),   # a retry: the same calls
    Case("non_literal_loop_retry_search", """
def f(scheduler, steps):
    for _ in range(steps):
        if scheduler.is_fully_idle():
            break
    else:
        raise RuntimeError("not idle")
""", "all(not scheduler.is_fully_idle() for _ in range(steps))"),   # each pass calls it once, as `all` does
    Case("non_literal_loop_search_with_other_statements", """
def f(scheduler, steps):
    for _ in range(steps):
        yield
        if scheduler.is_fully_idle():
            break
    else:
        raise RuntimeError("not idle")
""", "all(not scheduler.is_fully_idle() for _ in range(steps))", exact=False),   # what `yield` lets change is not written in
    Case("non_literal_loop_search_after_a_step", """
def f(items, name):
    for item in items:
        item.refresh()
        if item.name == name:
            break
    else:
        raise KeyError(name)
    return item
""", "all(item.name != name for item in items)", exact=False),
    Case("non_literal_loop_break", """
def f(m, cells):
    for c in cells:
        if m == c:
            break
    raise ValueError("m")
""", "True"),   # nothing in the loop leaves the function: it ends, by break or at its end
    Case("non_literal_loop_no_exit", """
def f(m, cells):
    for c in cells:
        m = c
    raise ValueError("m")
""", "True"),
    Case("site_in_loop_body", """
def f(xs):
    for c in xs:
        if c < 0:
            raise ValueError("neg")
""", "c < 0"),
    Case("continue_before_site", """
def f(xs):
    for c in xs:
        if c is None:
            continue
        if c < 0:
            raise ValueError("neg")
""", "c is not None and c < 0"),
    Case("loop_with_a_later_check", """
def f(schedule):
    for value in schedule:
        if not isinstance(value, float):
            raise TypeError("not a float")
        if value < 0:
            raise ValueError("negative")
""", "not isinstance(value, float)", exact=False),   # blind 16 #3: earlier passes must pass `value < 0` too
    Case("loop_with_an_earlier_return", """
def f(xs):
    for x in xs:
        if x == 0:
            return x
        if x < 0:
            raise ValueError("negative")
""", "x != 0 and x < 0", exact=False),
    Case("after_a_loop_reading_a_value_each_pass_sets_alike", """
def f(self, groups, late):
    for labels in groups:
        if not labels:
            raise ValueError("empty group")
        if self.tok is not None:
            vocab = self.tok.size
            for t in labels:
                if t >= vocab:
                    raise ValueError("out of vocabulary")
    if late:
        raise ValueError("late")
""", "all(labels and (self.tok is None or all(not t >= self.tok.size for t in labels)) for labels in groups)"
     " and late", site=2),   # blind 17 #27: `vocab` is the same in each pass, written in
    Case("after_a_loop_of_asserts", """
def f(items, strict):
    for it in items:
        assert it >= 0
        assert it < 10, "too big"
    if strict:
        raise ValueError("strict")
""", "all(it >= 0 and it < 10 for it in items) and strict", site=2),
    Case("after_a_loop_whose_value_each_pass_computes_anew", """
def f(items, strict):
    for it in items:
        n = measure(it)
        if n < 0:
            raise ValueError("negative")
    if strict:
        raise ValueError("strict")
""", "all(not measure(it) < 0 for it in items) and strict", site=1),   # each pass's value written in
    Case("loop_with_its_own_check_only", """
def f(xs):
    for x in xs:
        if x < 0:
            raise ValueError("negative")
""", "x < 0"),
    Case("break_before_site", """
def f(xs):
    for c in xs:
        if c == 0:
            break
        raise ValueError("nonzero")
""", "c != 0"),
    Case("while_body_site", """
def f(n):
    while n > 0:
        if n == 3:
            raise ValueError("three")
        n -= 1
""", "n == 3"),
    Case("while_body_after_rebind", """
def f(n):
    while n > 0:
        n -= 1
        if n == 3:
            raise ValueError("three")
""", None, exact=False),
    Case("while_else_with_break", """
def f(n):
    while n > 0:
        if n == 5:
            break
        n -= 1
    else:
        raise ValueError("n")
""", None, exact=False),   # runs for n < 5 (n counts down past 5 or never meets it): not followed
    Case("while_skipping_then_break", """
def f(parts, i):
    while i < len(parts):
        if "=" in parts[i]:
            i += 1
            continue
        break
    if not parts[i:]:
        raise ValueError("only assignments")
""", "not parts[i:]"),   # nothing leaves the function in the loop: the code after runs however it ended
    Case("comprehension_name_is_its_own", """
def f(items, flags, default):
    if any(config is not None for config in flags):
        for config in flags:
            if config == 1:
                return config
        return default
    if default == 2:
        raise ValueError("two")
""", "not any(config is not None for config in flags) and default == 2"),   # the guard's `config` is the generator's
    Case("branch_that_leaves_binds_nothing_after", """
def f(flag, items, default):
    if flag:
        for flag in items:
            if flag == 1:
                return flag
        return default
    if default is None:
        raise ValueError("no default")
""", "not flag and default is None"),   # `flag` is rebound only in the branch that returns
    Case("branch_that_leaves_approximates_nothing_after", """
def f(flag, rows, selected):
    if flag:
        for row in rows:
            if row is None:
                raise ValueError("missing")
            print(row)
        return rows
    if selected is None:
        raise TypeError("no selection")
""", "not flag and selected is None", site=1),
    Case("while_true_with_break", """
def f(x):
    while True:
        if x:
            break
    raise ValueError("x")
""", "True", exact=False),
    Case("while_exits_on_test", """
def f(i, n):
    while i < n:
        i += 1
    raise ValueError("i")
""", "True"),   # the loop runs `i` up to `n`: the code after runs whatever `i` and `n` were
    Case("while_drain_is_no_guard", """
def f(queue, sleeping):
    while queue:
        queue.pop()
    while len(queue) >= 4:
        queue.pop()
    if sleeping:
        raise RuntimeError("asleep")
""", "sleeping"),   # review 18: the drained queue's tests held only after the loops emptied it
    Case("while_unchanging_test_never_ends", """
def f(ready, x):
    while not ready:
        x + 1
    if x:
        raise ValueError("x")
""", "ready and x"),   # no pass changes `ready`: entered, the loop never ends
    Case("while_waiting_keeps_its_test", """
def f(ready, x):
    while not ready:
        time.sleep(1)
    if x:
        raise ValueError("x")
""", "ready and x"),   # the world sets `ready` (a global, another thread): the code after runs once it is set
    Case("while_calling_a_method_of_its_test", """
def f(items, x):
    while items:
        items.pop()
    if x:
        raise ValueError("x")
""", "x"),   # each pass empties `items` a little: the loop runs until it is empty
    Case("while_false_body", """
def f(x):
    while False:
        raise ValueError("dead")
""", "False"),
    # --- try / except -------------------------------------------------------
    Case("except_single_call", """
def f(s):
    try:
        v = int(s)
    except ValueError:
        raise TypeError("bad")
""", "raised(int(s), ValueError)"),
    Case("except_several_calls", """
def f(x):
    try:
        a = g(x)
        b = h(a)
    except KeyError:
        raise ValueError("bad")
""", "raised(g(x), KeyError) or raised(h(a), KeyError)"),
    Case("except_guarded", """
def f(s):
    if s is None:
        return None
    try:
        return int(s.strip())
    except (TypeError, ValueError) as e:
        raise ValueError("bad") from e
""", "s is not None and raised(int(s.strip()), (TypeError, ValueError))"),
    Case("bare_except", """
def f():
    try:
        g()
    except:
        raise
""", "raised(g(), BaseException)"),
    Case("except_after_a_narrower_handler", """
def f(s):
    try:
        v = int(s)
    except ValueError:
        return None
    except Exception as e:
        raise RuntimeError("bad") from e
""", "not raised(int(s), ValueError) and raised(int(s), Exception)"),   # review 21: the earlier one takes its part
    Case("except_after_two_handlers", """
def f(x):
    try:
        a = g(x)
        b = h(a)
    except KeyError:
        return 0
    except MyError:
        return 1
    except LookupError:
        raise ValueError("bad")
""", "not raised(g(x), (KeyError, MyError)) and not raised(h(a), (KeyError, MyError))"
     " and (raised(g(x), LookupError) or raised(h(a), LookupError))"),   # a class of the code's may derive from any
    Case("except_after_a_handler_with_many_calls", """
def f(x):
    try:
        a = g(x)
        b = h(a)
        c = k(b)
    except ValueError:
        return None
    except Exception:
        raise RuntimeError("bad")
""", "raised(g(x), Exception) or raised(h(a), Exception) or raised(k(b), Exception)", exact=False),
    Case("except_after_an_unrelated_builtin", """
def f(s):
    try:
        v = int(s)
    except KeyError:
        return None
    except ValueError:
        raise TypeError("bad")
""", "raised(int(s), ValueError)"),   # no KeyError is a ValueError
    Case("guard_in_handler", """
def f(s, strict):
    try:
        v = int(s)
    except ValueError:
        if strict:
            raise
""", "raised(int(s), ValueError) and strict"),
    Case("raise_in_try_body", """
def f(x):
    try:
        if x < 0:
            raise ValueError("neg")
    except KeyError:
        pass
""", "x < 0"),
    Case("try_else_site", """
def f(s):
    try:
        v = int(s)
    except ValueError:
        return None
    else:
        if v < 0:
            raise ValueError("neg")
""", "not raised(int(s), ValueError) and v < 0"),   # the else runs only when int(s) went through
    Case("try_else_expecting_a_raise", """
def f(check):
    try:
        check(0)
    except ValueError:
        pass
    else:
        raise AssertionError("expected a ValueError")
""", "not raised(check(0), ValueError)"),   # review 22: a test's way to say the call must raise
    Case("after_try_handler_returns", """
def f(s):
    try:
        v = int(s)
    except ValueError:
        return None
    if v > 3:
        raise ValueError("big")
""", "not raised(int(s), ValueError) and v > 3"),   # past the try only when int(s) did not raise
    Case("after_try_handlers_reraise", """
def f(s, strict):
    try:
        v = int(s)
    except ValueError as err:
        raise RuntimeError("bad") from err
    except TypeError:
        raise
    if strict and v > 3:
        raise ValueError("big")
""", "not raised(int(s), ValueError) and not raised(int(s), TypeError) and strict and v > 3", site=2),
    Case("after_try_that_goes_on_both_ways", """
def f(url, alive):
    try:
        status = get(url)
        if status == 200:
            return status
    except OSError:
        pass
    if not alive:
        raise RuntimeError("died")
""", "(status != 200 or raised(get(url), OSError)) and not alive"),
    Case("except_lookup_beside_a_call", """
def f(table, key):
    try:
        value = table[key]
        port = int(value)
    except KeyError:
        raise RuntimeError("no entry")
""", "raised(table[key], KeyError) or raised(int(value), KeyError)"),   # the lookup may be what failed
    Case("except_lookups_of_a_conditional", """
def f(args, kwargs, key):
    try:
        ref = args[key] if isinstance(key, int) else kwargs[key]
    except (IndexError, KeyError):
        raise RuntimeError("no argument")
""", "raised(args[key], (IndexError, KeyError)) or raised(kwargs[key], (IndexError, KeyError))"),
    Case("enum_lookup_is_no_mapping_test", """
def f(cls, name):
    try:
        return cls[name]
    except KeyError:
        raise ValueError("unknown")
""", "raised(cls[name], KeyError)", exact=False),
    Case("after_try_handler_falls_through", """
def f(x):
    try:
        if x:
            return 1
    except KeyError:
        pass
    raise ValueError("x")
""", "True", exact=False),
    Case("site_in_finally", """
def f(x):
    try:
        return g(x)
    finally:
        if x is None:
            raise ValueError("none")
""", "x is None"),
    # --- with ---------------------------------------------------------------
    Case("with_transparent", """
def f(lock, x):
    with lock:
        if x > 1:
            raise ValueError("x")
""", "x > 1"),
    Case("with_preceding_exit", """
def f(lock, x):
    with lock:
        if x:
            return 0
    raise ValueError("x")
""", "not x"),
    # --- match ----------------------------------------------------------------
    Case("match_literal", """
def f(cmd):
    match cmd:
        case "a":
            return 1
        case "b":
            raise ValueError("b")
""", "cmd == 'b'"),
    Case("match_wildcard", """
def f(n):
    match n:
        case 1:
            return 1
        case 2:
            return 2
        case _:
            raise ValueError("n")
""", "n != 1 and n != 2"),
    Case("match_none", """
def f(x):
    match x:
        case None:
            raise ValueError("none")
""", "x is None"),
    Case("match_or", """
def f(n):
    match n:
        case 1 | 2:
            raise ValueError("small")
""", "n in (1, 2)"),
    Case("match_class_pattern", """
def f(p):
    match p:
        case int():
            raise ValueError("an int")
""", "isinstance(p, int)"),
    Case("match_class_pattern_after_another", """
def f(p):
    match p:
        case str("a"):
            return 1
        case str(s):
            raise ValueError(s)
""", "isinstance(p, str) and p != 'a'"),   # `str(x)` matches the subject itself
    Case("match_class_positional_unknown", """
def f(p):
    match p:
        case Point(0, y):
            raise ValueError("on the axis")
""", None, exact=False),   # which attribute `0` is tested against is in Point.__match_args__
    Case("match_capture_guard", """
def f(n):
    match n:
        case k if k > 10:
            raise ValueError("big")
""", "n > 10"),
    Case("after_match", """
def f(n):
    match n:
        case 1:
            return 1
        case 2:
            return 2
    raise ValueError("n")
""", "n not in (1, 2)"),
    Case("after_match_wildcard_returns", """
def f(n):
    match n:
        case 1:
            x = 1
        case _:
            return 2
    raise ValueError("n")
""", "n == 1"),
    # --- and/or used for their value, not their truth ------------------------
    Case("or_default_compared", """
def f(ring):
    if (ring or 1) != 1:
        raise ValueError("ring")
""", "(ring or 1) != 1"),
    Case("or_default_compared_after_check", """
def f(enabled, beams):
    if enabled and (beams or 1) > 1:
        raise ValueError("beams")
""", "enabled and (beams or 1) > 1"),
    Case("and_value_negated", """
def f(a, b):
    if -(a and b) < -2:
        raise ValueError("big")
""", "-(a and b) < -2"),
    # --- names reassigned between guard and site ----------------------------
    Case("guard_then_rebind", """
def f(x):
    if x is None:
        return None
    x = g(x)
    if x > 3:
        raise ValueError("big")
""", None, exact=False),
    Case("bound_inside_before_its_guard", """
def f(fast, x):
    if fast:
        from m import kernel as k
        if k.covers(x):
            return k.run(x)
    if x > 3:
        raise ValueError("slow path too big")
""", "(not fast or not k.covers(x)) and x > 3"),
    Case("bound_inside_on_each_branch_before_reads", """
def f(v):
    if isinstance(v, str):
        s = v.strip()
        if s == "yes":
            return True
        if s == "no":
            return False
    raise ValueError("not a flag")
""", "not isinstance(v, str) or (s != 'yes' and s != 'no')"),
    Case("read_then_bound_in_the_other_branch", """
def f(x):
    if x > 3:
        return 1
    else:
        x = 0
    if x == 0:
        raise ValueError("zero")
""", None, exact=False),
    Case("loop_over_a_display_of_names", """
def f(k_scale, v_scale, x):
    for name, scale in (("k", k_scale), ("v", v_scale)):
        if scale not in (None, 1.0):
            raise ValueError(f"{name} scale unsupported")
    if x > 3:
        raise ValueError("x")
""", "k_scale in (None, 1.0) and v_scale in (None, 1.0) and x > 3", site=1),
    Case("loop_fall_through_over_a_display_of_names", """
def f(a, b):
    for v in [a, b]:
        if v > 3:
            return v
    raise ValueError("none big")
""", "a <= 3 and b <= 3"),
    Case("loop_over_a_display_whose_names_the_body_rebinds", """
def f(a, b):
    for v in (a, b):
        a = 0
        if v > 3:
            return v
    raise ValueError("none big")
""", None, exact=False),
    Case("bound_again_after_the_read", """
def f(a, x):
    if a:
        y = x + 1
        if y > 3:
            return y
        y = 0
    if x < 0:
        raise ValueError("neg")
""", None, exact=False),
]


def test_suite_is_large_and_names_unique():
    assert len(CASES) >= 60
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_condition(case: Case):
    func, path = site_path(case.source, case.site)
    got = trigger_condition(func, path)
    ast.parse(got.expr, mode="eval")
    assert got.exact is case.exact, (got.expr, got.reason)
    assert (got.reason is None) is got.exact
    if case.expected is None:
        return
    bad, compared = mismatches(got.expr, case.expected, objects=True)
    assert compared > 0
    assert not bad, f"{got.expr!r} vs {case.expected!r}: {bad[:5]}"


def test_a_site_after_a_checking_helper_call_is_not_exact(tmp_path):
    """`_check(a, ...)` then `_check(b, ...)`: the second raises only when `a` held, which the
    path walk does not see inside the helper, so neither that call nor a later raise is exact."""
    from errdex.pipeline import index_source
    from errdex.store import Store

    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "checks.py").write_text(
        "def _check(ok, msg):\n"
        "    if not ok:\n"
        "        raise ValueError(msg)\n"
        "\n"
        "def load(a, b, c):\n"
        "    _check(a > 0, 'a must be positive')\n"
        "    _check(b > 0, f'b must be positive, got {b}')\n"
        "    if c:\n"
        "        raise RuntimeError('c is set')\n"
        "\n"
        "def alone(d):\n"
        "    _check(d, 'd is required')\n")
    index_source(str(tmp_path / "src"), tmp_path / "i.db", jobs=1, repo="o/p", version="1")
    with Store.open(tmp_path / "i.db", readonly=True) as store:
        by_message = {r["errorMessage"]: r["errdex"] for r in store.iter_records()}
    assert by_message["a must be positive"]["conditionExact"] is True
    assert by_message["d is required"]["conditionExact"] is True
    for later in ("b must be positive, got {b}", "c is set"):
        assert by_message[later]["conditionExact"] is False
        reason = by_message[later]["conditionReason"]
        assert "`_check(...)` (line 6) are not followed" in reason or "earlier call to _check (line 6)" in reason


def test_a_guard_on_an_attribute_changed_after_it_says_so():
    """`cls.devices = []` after `if cls.devices[1] is None:` changes what the guard read without
    rebinding `cls`: the reason says the name was changed in place, not only reassigned."""
    func, path = site_path("""
def setup(cls):
    if cls.devices[1] is None:
        cls.devices = []
        warnings.warn("no devices given")
""")
    got = trigger_condition(func, path)
    assert not got.exact
    assert got.reason == "`cls` tested on the way, then assigned again or changed, so that test may speak of an earlier value"


def test_names_rebound_after_several_tests_are_told_in_one_reason():
    """Each test read before a rebinding adds its names; the reason says them once, together,
    rather than repeating the sentence per test (the prose quotes the reason in every field)."""
    func, path = site_path("""
def step(a, b, c):
    if a < 0:
        return
    a = a + 1
    if b < 0:
        return
    b = b + 1
    if c < 0 or a > b:
        return
    c = c + 1
    if c > 9:
        raise ValueError("too far")
""")
    got = trigger_condition(func, path)
    assert not got.exact
    assert got.reason == ("`a`, `b` and `c` tested on the way, then assigned again or changed, so those tests"
                          " may speak of earlier values")


@pytest.mark.parametrize(("source", "exact"), [
    # another attribute of the object is set between the check and the site: the check still holds
    ("""
def init(self, heads, kv_heads, tp):
    self.heads = heads
    assert self.heads % tp == 0
    self.per_rank = self.heads // tp
    self.kv_heads = kv_heads
    assert self.kv_heads % tp == 0
""", True),
    # the very attribute the check read is set again
    ("""
def init(self, heads, tp):
    self.heads = heads
    assert self.heads % tp == 0
    self.heads = heads * 2
    assert tp > 0
""", False),
    # a method of the object was called by the check: it may read what was set
    ("""
def init(self, heads, tp):
    assert self.fits(tp)
    self.heads = heads
    assert tp > 0
""", False),
])
def test_setting_an_attribute_stales_only_guards_that_read_it(source, exact):
    func, path = site_path(source, 1)
    got = trigger_condition(func, path)
    assert got.exact is exact, (got.expr, got.reason)


@pytest.mark.parametrize(("source", "expected", "exact"), [
    # a statement after the pass's last way out cannot decide that pass: the loop is still told,
    # not exactly (it may change what a later pass tests)
    ("""
def f(comps, tag, flag):
    out = []
    for c in comps:
        t = c.build(tag)
        if t is None:
            return 0
        out.append((c, t))
    if flag:
        raise ValueError("after the loop")
""", "all(c.build(tag) is not None for c in comps) and flag", False),
    # a name bound on both branches of an `if` is that `if`'s value in the test after it
    ("""
def f(items, n, flag):
    for i in range(n):
        part = items[i]
        if part is None:
            chunk = None
        else:
            chunk = [part]
        if chunk is None:
            return None
    if flag:
        raise ValueError("after the loop")
""", "all(items[i] is not None for i in range(n)) and flag", True),
])
def test_a_loop_whose_test_reads_what_its_pass_computed(source, expected, exact):
    """Before, the loop's condition was dropped whole (`flag` alone). Compared by evaluation on
    every list of up to three elements, each None or not."""
    func, path = site_path(source)
    got = trigger_condition(func, path)
    assert got.exact is exact
    built = type("C", (), {"build": lambda self, tag: None if self.v is None else [self.v]})

    def make(v):
        one = built()
        one.v = v
        return one

    import itertools
    for size in range(4):
        for values in itertools.product([None, 1], repeat=size):
            for flag in (False, True):
                env = {"comps": [make(v) for v in values], "tag": 0, "items": list(values), "n": size,
                       "flag": flag}
                assert eval(got.expr, env) == eval(expected, env), (got.expr, values, flag)


@pytest.mark.parametrize(("source", "expected"), [
    ("""
def f(self):
    if not self.mode:
        return None
    self.mode = self.mode.strip()
    if not self.mode:
        raise ValueError("blank mode")
""", "not self.mode"),
    ("""
def g(self):
    if self.n == 0:
        return None
    self.n -= 1
    if self.n == 0:
        raise ValueError("ran out")
""", "self.n == 0"),
])
def test_an_attribute_tested_then_rebound_from_itself_does_not_contradict_itself(source, expected):
    """As for a plain name (`s = s.strip()`), the guard read before the rebinding is left out: joined
    with the later test of the same text it would read as a path no input takes."""
    func, path = site_path(source)
    got = trigger_condition(func, path)
    assert (got.expr, got.exact) == (expected, False)


@pytest.mark.parametrize(("source", "expected"), [
    # the table search: `else` raises when no cell fits
    ("""
def pick(m, cells):
    for c in cells:
        if m <= c:
            break
    else:
        raise ValueError(f"M={m} outside [1, {cells[-1]}]")
    return c
""", "all(not m <= c for c in cells)"),
    # go on only when some pattern matches (`else: return`), then the site
    ("""
def k(name, patterns, table):
    for p in patterns:
        if p in name:
            break
    else:
        return None
    if name not in table:
        raise KeyError(name)
""", "any(p in name for p in patterns) and name not in table"),
])
def test_a_search_loop_with_an_else_is_told_exactly(source, expected):
    """A `for` whose passes only test their element and break: it ends at its end exactly when no
    element breaks (`all`), by `break` exactly when one does (`any`)."""
    func, path = site_path(source)
    got = trigger_condition(func, path)
    assert (got.expr, got.exact) == (expected, True)


def test_a_class_pattern_tests_the_class_and_its_keyword_attributes():
    """Review 18 (http_server.py:120): `case ScriptFailed(traceback=tb): raise` read as any reply;
    the pattern says the reply is a ScriptFailed, and a keyword sub-pattern tests that attribute."""
    func, path = site_path("""
def f(reply):
    match reply:
        case Done(code=0):
            return
        case Failed(traceback=tb):
            raise AssertionError(tb)
""")
    got = trigger_condition(func, path)
    assert got.exact, got.reason

    class Done:
        def __init__(self, code):
            self.code = code

    class Failed:
        traceback = "tb"

    def holds(reply) -> bool:
        return bool(eval(got.expr, {"Done": Done, "Failed": Failed}, {"reply": reply}))

    assert holds(Failed()) and not holds(Done(0)) and not holds(Done(1)) and not holds("text")
