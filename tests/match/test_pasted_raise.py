"""A `raise` statement pasted from the code that raised (alone, over several lines, or in
backticks inside a sentence) names its site by class and its message's own literal text."""

import pytest

from errdex.match import explain
from errdex.match.events import raise_statement
from errdex.match.pasted import concatenated_skeleton

from .conftest import both_engines, make_record


ctx = both_engines(lambda: [
    make_record("Unknown block model family: {arch}", file_path="acme/blocks/config.py", line=72,
                function="load", error_class="RuntimeError", bases=["RuntimeError", "Exception"]),
    make_record("Slot size differs: here {a}, there {b}. Both sides must agree.", file_path="acme/link.py",
                line=1321, function="check", error_class="RuntimeError", bases=["RuntimeError", "Exception"]),
    make_record("Graph capture failed: {e}", file_path="acme/runner/a.py", line=602, function="capture",
                error_class="Exception", bases=["BaseException"]),
    make_record("Graph capture failed: {e}", file_path="acme/runner/b.py", line=296, function="capture",
                error_class="Exception", bases=["BaseException"]),
])


@pytest.mark.parametrize("line, expected", [
    ('raise RuntimeError(f"Unknown block model family: {arch}")', ("RuntimeError", 'f"Unknown block model family: {arch}"')),
    ("the line `raise errors.LinkError(msg, 3)` fires", ("LinkError", "msg")),
    ('raise RuntimeError(f"Unknown block model family: {arch}") from exc',
     ("RuntimeError", 'f"Unknown block model family: {arch}"')),
    ("raise ValueError", None),
    ("we raise the limit (twice)", None),
])
def test_a_raise_statement_is_read_alone_or_in_backticks(line, expected):
    assert raise_statement(line) == expected


def test_adjacent_literals_make_one_skeleton_and_anything_else_none():
    assert concatenated_skeleton('(f"Slot size {a}, " "there")') == "Slotsize,there"
    assert concatenated_skeleton('"Slot " + str(a)') is None
    assert concatenated_skeleton("msg") is None


def test_a_pasted_raise_names_its_one_site_high(ctx):
    (m, *_) = explain('raise RuntimeError(f"Unknown block model family: {arch}")', context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (72, "source", "high")


def test_a_raise_pasted_over_several_lines_is_read_whole(ctx):
    text = ('raise RuntimeError(\n    f"Slot size differs: here {self.a}, "\n'
            '    f"there {other.b}. "\n    "Both sides must agree."\n)')
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (1321, "source", "high")


def test_another_class_or_a_shared_template_is_not_high(ctx):
    matches = explain('raise ValueError(f"Unknown block model family: {arch}")', context=ctx)
    assert all(m.match_kind != "source" for m in matches)
    matches = explain('raise Exception(f"Graph capture failed: {e}")', context=ctx)
    assert {m.line_number for m in matches if m.match_kind == "source"} == {602, 296}
    assert all(m.confidence == "low" for m in matches)
