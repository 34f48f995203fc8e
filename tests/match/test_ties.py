"""Identical templates at several sites: the text cannot tell them apart, so ties stay ties,
but a copy of a subsystem in a deeper tree (same file name) ranks after its original."""

import pytest

from errdex.match import MatchContext, explain
from errdex.match.events import line_event
from errdex.match.linematch import LineMatcher
from errdex.match.resolve import match_event

from .conftest import make_record

MSG = "Backends {names} are not supported in this build. Supported: {known}"
COPY = "python/acme/gen/runtime/models/registry.py"
ORIGINAL = "python/acme/srv/models/registry.py"


@pytest.fixture(params=["hyperscan", "python"])
def ctx(request, tmp_path):
    records = [   # dataset order puts the copy first (it sorts first by path)
        make_record(MSG, file_path=COPY, line=264, function="resolve"),
        make_record(MSG, file_path=ORIGINAL, line=63, function="resolve"),
        make_record("Graph capture failed: {e}", file_path="python/acme/runner/decode_graphs.py", line=602,
                    error_class="Exception"),
        make_record("Graph capture failed: {e}", file_path="python/acme/spec/draft_graphs.py", line=296,
                    error_class="Exception"),
    ]
    return MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend=request.param)


def test_the_copy_in_a_deeper_tree_ranks_after_the_original(ctx):
    first, second = explain("ValueError: Backends ['x'] are not supported in this build. Supported: a, b",
                            context=ctx)
    assert first.score == second.score
    assert (first.file_path, second.file_path) == (ORIGINAL, COPY)


def test_ties_between_different_files_keep_their_order(ctx):
    first, second = explain("Exception: Graph capture failed: out of memory", context=ctx)
    assert first.score == second.score
    assert [first.line_number, second.line_number] == [602, 296]


def test_a_scans_fast_path_orders_ties_as_explain_does(ctx):
    line = "ERROR ValueError: Backends ['x'] are not supported in this build. Supported: a, b"
    hits = ctx.engine.scan_block(line.encode())
    event = line_event(line, 1)
    fast = LineMatcher(ctx.engine).match(event, hits[0].candidates, line)
    slow = match_event(event, ctx.index, ctx.engine, top_only=True, hint=hits[0].candidates, seen_in=line)
    assert [m.file_path for m in fast] == [m.file_path for m in slow] == [ORIGINAL, COPY]


@pytest.fixture(params=["hyperscan", "python"])
def named_ctx(request, tmp_path):
    records = [
        make_record("Can not alloc slot", file_path="python/acme/cache/slots.py", line=221,
                    function="finish_match", error_class="AssertionError", error_type="assertion"),
        make_record("Can not alloc slot", file_path="python/acme/cache/slots.py", line=552,
                    function="_alloc_slot", error_class="AssertionError", error_type="assertion"),
    ]
    return MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend=request.param)


def test_a_tie_goes_first_to_the_site_whose_function_the_text_names(named_ctx):
    """A traceback retyped by hand (no `File "..."`): its frames are not parsed, yet they name the
    function, and of two sites with one template that names one."""
    text = ("AssertionError: Can not alloc slot\n"
            "  slot_component.py, line 498, in _alloc_slot\n"
            "  slot_component.py, line 589, in prepare\n")
    first, second = explain(text, context=named_ctx)
    assert first.score == second.score
    assert [first.line_number, second.line_number] == [552, 221]
    first, second = explain("AssertionError: Can not alloc slot", context=named_ctx)
    assert [first.line_number, second.line_number] == [221, 552]   # nothing named: as ranked
