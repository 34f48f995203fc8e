"""Tracebacks as issues show them: fenced in markdown, paths elided (`.../attn.py`), cut
before their exception line, or pasted below the exception line; and the failing assert's
test rewritten since the reporter's version."""

import pytest

from errdex.match import MatchContext, explain, parse_events
from errdex.match.text import split_clean_lines

from .conftest import both_engines, make_record

ATTN = "acme/layers/attention/attn.py"


def _assert(test: str, file_path: str, line: int, function: str, template: str = "") -> dict:
    return make_record(template, file_path=file_path, line=line, function=function, error_class="AssertionError",
                       error_type="assertion", assert_test=test, bases=["AssertionError", "Exception"])


ctx = both_engines(lambda: [
    _assert("not get_config().use_chunked_cache", ATTN, 1881, "Backend.forward_extend"),
    _assert("batch.chunk_idx is not None", ATTN, 1883, "Backend.forward_extend"),
    _assert("not get_config().use_chunked_cache", "acme/layers/attention/other.py", 40, "Backend.forward_decode"),
    make_record("Decode state missing for request {rid}", file_path="acme/managers/detok.py", line=385,
                function="Detok.decode_batch", error_class="RuntimeError", bases=["RuntimeError", "Exception"]),
    _assert("param.size() == loaded.size()", "acme/layers/linear.py", 376, "Linear.weight_loader",
            template="param={param.shape}"),
    _assert("param.size() == loaded.size()", "acme/layers/norm.py", 90, "Norm.load"),
    _assert("param.size() == loaded.size()", "acme/models/big.py", 529, "load"),
    make_record("Error while serving request {rid}: {e}", file_path="acme/serve/base.py", line=137,
                function="Serving.handle", error_class="logger.exception", error_type="log"),
])


FENCED = """```
File ".../attn.py", line 832, in forward_extend
    assert not get_server_args().use_chunked_cache
AssertionError
```"""


def test_a_markdown_fence_ends_the_message_and_the_source_names_the_assert():
    (event,) = parse_events(split_clean_lines(FENCED))
    assert (event.error_class, event.message) == ("AssertionError", "")
    assert event.failing_expr == "not get_server_args().use_chunked_cache"


def test_an_elided_path_names_the_file_after_the_elision(ctx):
    assert ctx.index.files_for(".../attn.py") == [ATTN]
    assert ctx.index.files_for(".../layers/linear.py") == ["acme/layers/linear.py"]


def test_an_assert_whose_test_was_rewritten_is_found_in_the_frames_function(ctx):
    (m,) = explain(FENCED, context=ctx)
    assert (m.file_path, m.line_number, m.match_kind, m.confidence) == (ATTN, 1881, "drift", "high")


def test_an_unrelated_test_in_the_same_function_is_not_taken_for_a_rewrite(ctx):
    text = FENCED.replace("not get_server_args().use_chunked_cache", "x.size == y.size")
    assert explain(text, context=ctx) == [] or explain(text, context=ctx)[0].match_kind != "drift"


CUT = """[2026-02-20 01:04:15] Detok hit an exception: Traceback (most recent call last):
  File "/home/u/acme/managers/detok.py", line 309, in decode_batch
    s = self.state[rid]
KeyError: 'x'

During handling of the above exception, another exception occurred:

  File "/home/u/acme/managers/detok.py", line 311, in decode_batch
    raise Runt"""


def test_a_traceback_cut_before_its_message_names_the_functions_one_site(ctx):
    (m, *_) = explain(CUT, context=ctx)
    assert (m.line_number, m.via, m.confidence) == (385, "frame", "high")


ABOVE = """AssertionError: assert param.size() == loaded.size()

File ".../acme/layers/linear.py", line 269, in weight_loader
    weight_loader(param, fused_weight)"""


def test_an_exception_line_pasted_above_its_frames_is_read_with_them(ctx):
    (m,) = explain(ABOVE, context=ctx)
    assert (m.file_path, m.line_number, m.via, m.confidence) == ("acme/layers/linear.py", 376, "frame", "high")


def test_the_exception_line_alone_fits_every_such_assert_without_a_message_low(ctx):
    matches = explain(ABOVE.split("\n")[0], context=ctx)
    assert {m.line_number for m in matches} == {90, 529} and all(m.confidence == "low" for m in matches)


def test_a_traceback_cut_at_a_call_names_no_site_of_the_caller(ctx):
    """The callee's frames were cut away: the error came from deeper, not from the caller's one raise."""
    text = CUT.replace("    raise Runt", "    self.tokenizer.decode(ids)")
    assert all(m.line_number != 385 for m in explain(text, context=ctx))


def test_the_cut_tracebacks_last_frame_keeps_its_statement():
    events = parse_events(split_clean_lines(CUT))
    assert events[-1].frames[-1].source == "raise Runt"


def test_a_message_hard_wrapped_inside_a_word_is_read_joined(tmp_path):
    records = [make_record("Spatial tiling is unsupported here; use whole-tile parallel decode instead",
                           file_path="acme/vae.py", line=88, function="decode")]
    ctx = MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend="python")
    text = ('Traceback (most recent call last):\n  File "/srv/app/main.py", line 12, in run\n'
            "    decode(x)\nValueError: Spatial tiling is unsupported here; use whole-tile pa\n"
            "rallel decode instead")
    (m,) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind) == (88, "full")


def test_a_hard_wrap_is_read_joined_even_when_a_generic_template_fits_the_text_cut(tmp_path):
    records = [
        make_record("the unified key scheme requires a non-empty model_id for the following reason",
                    file_path="acme/keys.py", line=12, function="make_key"),
        make_record("{mode} requires {n} output scale values", file_path="acme/quant.py", line=5, function="q"),
    ]
    ctx = MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend="python")
    text = ('Traceback (most recent call last):\n  File "/srv/app/main.py", line 12, in run\n    go()\n'
            "ValueError: the unified key scheme requires a non-empty model_id for the fo\nllowing reason")
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind) == (12, "full")


@pytest.mark.parametrize("text", [
    "    assert batch.chunk_idx is not None\nAssertionError",                              # from the source line on
    "  line 1883, in forward_extend\n    assert batch.chunk_idx is not None\nAssertionError",   # a mangled frame
    "[rank0]:     assert batch.chunk_idx is not None\n[rank0]:            ^^^^^^\n[rank0]: AssertionError",
    "    assert (\n        batch.chunk_idx is not None\n    )\nAssertionError",               # over several lines
])
def test_the_statement_above_a_bare_assertion_error_names_the_assert(ctx, text):
    (m,) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (1883, "assert", "high")


def test_a_blank_line_between_keeps_the_statement_apart(ctx):
    assert explain("    assert batch.chunk_idx is not None\n\nAssertionError", context=ctx) == []


def test_a_cut_first_line_followed_by_other_text_is_read_alone(tmp_path):
    records = [make_record("Slot size mismatch between the prefill side and the decode side; both must use {x}",
                           file_path="acme/link.py", line=1321, function="check")]
    ctx = MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend="python")
    text = ('Traceback (most recent call last):\n  File "/srv/app/main.py", line 12, in run\n    go()\n'
            "ValueError: Slot size mismatch between the prefill side and the deco\n"
            "worker 3 exited with code 1")
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind) == (1321, "prefix")


CUT_AT_ASSERT = """Draft write failed (best-effort), skipping.
Traceback (most recent call last):
  File "/srv/acme/managers/cache.py", line 1097, in _draft_page_set
    self.backend.forward_extend(keys, data)
  File "/srv/acme/layers/attention/attn.py", line 845, in forward_extend
    assert batch.chunk_idx is not None
"""


def test_a_traceback_cut_right_at_an_assert_names_that_assert(ctx):
    """A real report: the paste ended at the assert's line, no exception line under it; the
    function has two asserts and the frame's line is another version's."""
    (event,) = [e for e in parse_events(split_clean_lines(CUT_AT_ASSERT)) if e.frames]
    assert event.error_class is None and event.failing_expr == "batch.chunk_idx is not None"
    (first, *_) = explain(CUT_AT_ASSERT, context=ctx)
    assert (first.file_path, first.line_number, first.confidence) == (ATTN, 1883, "high")


def test_the_line_logged_above_a_traceback_cut_before_its_exception_line_is_read(ctx):
    """Set 3 #20: `logger.exception(msg)` prints `msg`, then the traceback; pasted with the traceback
    cut after its first frame, the text had nothing to match. The logged line is the message."""
    text = ("[2025-08-26 10:38:03] Error while serving request 7f3a: Tokenizer.apply() got an unexpected keyword\n"
            "Traceback (most recent call last):\n"
            '  File "/ws/acme/serve/chat.py", line 223, in render\n')
    (m, *_) = explain(text, context=ctx)
    assert (m.file_path, m.line_number, m.via) == ("acme/serve/base.py", 137, "message")
    assert m.bindings == {"rid": "7f3a", "e": "Tokenizer.apply() got an unexpected keyword"}


def test_the_same_assert_in_another_function_is_no_frame_match(ctx):
    """Set 4 #5: `assert batch.chunk_idx is not None` printed under a frame `in __init__` (an older
    version checked it there): the same words in `forward_extend` now are another check, not high."""
    text = CUT_AT_ASSERT.replace("in forward_extend", "in __init__") + "AssertionError\n"
    matches = explain(text, context=ctx)
    assert all(m.via != "frame" and m.confidence == "low" for m in matches)
    assert explain(CUT_AT_ASSERT + "AssertionError\n", context=ctx)[0].confidence == "high"
