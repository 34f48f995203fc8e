"""Bound values that name what their placeholders name count as evidence with the literal text."""

import pytest

from errdex.match import explain
from errdex.match.values import corroborates

from .conftest import both_engines, make_record

CHECKER = "python/acme/sched/invariants.py"


@pytest.mark.parametrize("expression, value, expected", [
    ("pool_name", "token_to_kv_pool_allocator", True),     # names a pool, as the placeholder says
    ("self.pool.name", "req_pool", True),
    ("backend_name", "FlashBackend", True),                 # camel case splits into words too
    ("name", "weight_scale", False),                        # a generic name says nothing
    ("pool_name", "token to kv pool", False),               # not one identifier
    ("dtype", "torch.float16", False),
    ("pool_name", "kv", False),                             # too short to tell
])
def test_a_value_corroborates_only_what_its_placeholder_specifically_names(expression, value, expected):
    assert corroborates(expression, value) is expected


ctx = both_engines(lambda: [
    make_record("{pool_name} memory leak detected! {token_msg}", file_path=CHECKER, line=454,
                function="Checker.report_leak"),
    make_record("{name} must be contiguous", file_path="python/acme/ops/layout.py", line=9, function="check",
                error_class="AssertionError"),
    make_record("Cache pages out of balance: {report}", file_path="python/acme/cache/audit.py", line=30,
                function="audit"),
])


@pytest.mark.parametrize("text", [
    ("ValueError: token_to_kv_pool_allocator memory leak detected! available=644, evictable=269628, protected=0, "
     "self.max_total_num_tokens=270331"),
    "ValueError: token_to_kv_pool_allocator memory leak detected!",     # the values after it cut off
])
def test_a_pool_named_where_the_template_names_a_pool_makes_a_short_phrase_high(ctx, text):
    (m, *_) = explain(text, context=ctx)
    assert (m.file_path, m.confidence) == (CHECKER, "high")


@pytest.mark.parametrize("text", [
    "ValueError: some_thing memory leak detected! available=644, evictable=269628, protected=0, total=270331",
    "AssertionError: weight_scale must be contiguous",
])
def test_values_that_name_something_else_leave_the_phrase_low(ctx, text):
    (m, *_) = explain(text, context=ctx)
    assert m.confidence == "low"


LONG_VALUES = "free=12, held=3, evictable=40, protected=0, session_held=0, uncached=7, total=62"


@pytest.mark.parametrize("cls, expected", [("ValueError: ", "high"), ("", "low")])
def test_values_filling_most_of_the_message_need_more_text_without_a_class(ctx, cls, expected):
    """28 literal characters opening the message: enough with the class agreeing, not
    without one (as much as a class-less cut paste needs)."""
    (m, *_) = explain(f"{cls}Cache pages out of balance: {LONG_VALUES}", context=ctx)
    assert (m.file_path, m.confidence) == ("python/acme/cache/audit.py", expected)


def test_a_vouching_leading_value_and_the_words_make_enough_text_without_a_class(ctx):
    (m, *_) = explain(f"token_to_kv_pool_allocator memory leak detected! {LONG_VALUES}", context=ctx)
    assert (m.file_path, m.confidence) == (CHECKER, "high")
    (m, *_) = explain(f"some_thing memory leak detected! {LONG_VALUES}", context=ctx)
    assert m.confidence == "low"
