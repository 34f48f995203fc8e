"""An assert statement retold inside a sentence (an issue title or its first line)."""

import pytest

from errdex.match import explain
from errdex.match.events import assert_statement, prose_frames

from .conftest import both_engines, make_record

SCHED = "python/acme/managers/sched.py"
DECODE = "python/acme/disagg/decode.py"
UTILS = "python/acme/dist/utils.py"


ctx = both_engines(lambda: [
    make_record("", file_path=SCHED, line=4326, function="Scheduler.next_batch", error_class="AssertionError",
                assert_test="self.pending_req is None"),
    make_record("", file_path=DECODE, line=3248, function="Decoder.next_batch", error_class="AssertionError",
                assert_test="self.pending_req is None"),
    make_record("{numerator} is not divisible by {denominator}", file_path=UTILS, line=70,
                function="ensure_divisibility", error_class="AssertionError",
                assert_test="numerator % denominator == 0"),
])


@pytest.mark.parametrize("line, expected", [
    ("How to solve assert numerator % denominator == 0", ("numerator % denominator == 0", None)),
    ("The check `assert a.b is None` fails on the second batch", ("a.b is None", None)),
    ("assert ok, 'message'", ("ok", "'message'")),
    ('Model failed to start due to "assert use_tp_group is False AssertionError"', ("use_tp_group is False", None)),
    ("It stops at “assert x.ready” every time", ("x.ready", None)),
    ("I assert", None),
    ("Nothing to see here", None),
])
def test_a_statement_is_read_inside_a_sentence(line, expected):
    assert assert_statement(line) == expected


def test_paths_named_in_a_sentence_read_as_frames():
    frames = prose_frames("fails in line 1839 of python/acme/sched.py, then in acme/io.py:12 and acme/x.py")
    assert [(f.path, f.line) for f in frames] == [("python/acme/sched.py", 1839), ("acme/io.py", 12),
                                                  ("acme/x.py", 0)]


def test_a_retold_test_finds_the_assert_even_with_its_message_left_out(ctx):
    (m, *_) = explain("How to solve assert numerator % denominator == 0", context=ctx)
    assert (m.file_path, m.line_number, m.confidence) == (UTILS, 70, "high")


def test_a_test_asserted_at_two_sites_is_low_until_the_sentence_names_the_file(ctx):
    told = "Assertion `assert self.pending_req is None` is triggered with a small chunk size"
    assert {(m.file_path, m.confidence) for m in explain(told, context=ctx)} == {(SCHED, "low"), (DECODE, "low")}
    named = ("Assertion `assert self.pending_req is None` in line 1839 of python/acme/managers/sched.py "
             "is triggered with a small chunk size")
    (m, *rest) = explain(named, context=ctx)
    assert (m.file_path, m.via, m.confidence) == (SCHED, "frame", "high") and DECODE not in {r.file_path for r in rest}


def test_a_statement_quoted_with_its_class_after_it_names_its_one_site(ctx):
    (m,) = explain('[Bug] Fails to start due to "assert numerator % denominator == 0 AssertionError"', context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (70, "assert", "high")


@pytest.mark.parametrize("title", [
    "[Bug] assert numerator % denominator == 0",                    # behind a title's tag
    "[Bug] assert numerator % denominator == 0 AssertionError",     # the class pasted after it
])
def test_a_titled_statement_names_its_one_site(ctx, title):
    (m,) = explain(title, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (70, "assert", "high")


def test_a_statement_before_the_class_on_a_line_is_the_failed_test():
    from errdex.match.events import line_event

    event = line_event("[Bug] assert self.pending_req is None AssertionError", 1)
    assert (event.error_class, event.message, event.failing_expr) == ("AssertionError", "", "self.pending_req is None")
    assert event.kind == "text"   # retold by a writer: looked up among asserts with a message too
