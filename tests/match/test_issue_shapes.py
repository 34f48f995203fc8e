"""More shapes of error text in issue trackers: a traceback indented as a whole inside a
markdown list, issue titles, and a message quoted or labelled inside a sentence."""


from errdex.match import MatchContext, explain, parse_events
from errdex.match.text import split_clean_lines

from .conftest import both_engines, make_record

QUANT = "acme/layers/quant/blocks.py"


ctx = both_engines(lambda: [
    make_record("Weight rows = {rows} are not a multiple of the block height = {block}.",
                file_path=QUANT, line=606, function="check_blocks"),
    make_record("Weight cols = {cols} are not a multiple of the block width = {block}.",
                file_path=QUANT, line=597, function="check_blocks"),
])


INDENTED = """  File "/srv/acme/layers/quant/blocks.py", line 350, in check_blocks
      raise ValueError(
  ValueError: Weight rows = 320 are not a multiple of the block height = 128.
"""


def test_a_traceback_indented_as_a_whole_keeps_its_exception_line():
    (event,) = parse_events(split_clean_lines(INDENTED))
    assert event.error_class == "ValueError"
    assert event.message.startswith("Weight rows = 320")
    assert [f.function for f in event.frames] == ["check_blocks"]


def test_the_indented_traceback_names_its_site(ctx):
    (m, *_) = explain(INDENTED, context=ctx)
    assert (m.line_number, m.confidence) == (606, "high")


def test_lines_deeper_than_the_frames_stay_source_lines():
    text = ("Traceback (most recent call last):\n"
            '  File "/srv/acme/layers/quant/blocks.py", line 350, in check_blocks\n'
            "    ValueError(rows)\n"
            "ValueError: Weight rows = 3 are not a multiple of the block height = 2.\n")
    (event,) = parse_events(split_clean_lines(text))
    assert event.message.startswith("Weight rows = 3")


def test_a_repeated_line_note_at_frame_depth_is_not_an_exception():
    text = ("Traceback (most recent call last):\n"
            '  File "/srv/acme/layers/quant/blocks.py", line 350, in check_blocks\n'
            "    check_blocks(x)\n"
            "  [Previous line repeated 996 more times]\n"
            "RecursionError: maximum recursion depth exceeded\n")
    (event,) = parse_events(split_clean_lines(text))
    assert (event.error_class, len(event.frames)) == ("RecursionError", 1)


titles = both_engines(lambda: [
    make_record("Model backends {names} are not supported by this server for now. Supported backends: {known}",
                file_path="acme/models/registry.py", line=63, function="resolve"),
    make_record("The pool capacity is unbalanced across devices. {detail}", file_path="acme/dist/boot.py",
                line=450, function="check_balance", error_class="RuntimeError"),
    make_record("{num}", file_path="acme/kernels/gemm.py", line=45, function="launch"),   # a bare `raise ValueError(n)`
])


def test_an_issue_title_cut_before_the_templates_end_is_high_with_enough_text(titles):
    (m,) = explain("[Bug] Model backends ['X'] are not supported by this server for now.", context=titles)
    assert (m.line_number, m.match_kind, m.confidence) == (63, "prefix", "high")


def test_a_short_classless_prefix_stays_low(titles):
    (m,) = explain("[Bug] Model backends ['X'] are not supported", context=titles)
    assert (m.line_number, m.confidence) == (63, "low")


def test_a_message_quoted_in_a_title_is_found(titles):
    text = 'Trying the new model: "Model backends [\'X\'] are not supported by this server for now."'
    (m,) = explain(text, context=titles)
    assert (m.line_number, m.confidence) == (63, "high")


def test_a_cut_message_behind_a_label_of_several_words_is_found(titles):
    text = "Two hints contradict: Model backends ['X'] are not supported by this server for"
    (m,) = explain(text, context=titles)
    assert m.line_number == 63


def test_a_class_another_version_used_keeps_the_message_match_low_over_a_bare_guess(titles):
    (m,) = explain("ValueError: The pool capacity is unbalanced across devices. free=1, total=2", context=titles)
    assert (m.line_number, m.via, m.confidence) == (450, "message", "low")


asserts = both_engines(lambda: [
    make_record("res={res!r}, res.text={res.text!r}", file_path="acme/server.py", line=2376,
                function="warmup", error_class="AssertionError", error_type="assertion",
                assert_test="res.status_code == 200", placeholders={"res!r": "res", "res.text!r": "res.text"}),
    make_record("{res.text}", file_path="acme/server.py", line=2501, function="generate",
                error_class="AssertionError", error_type="assertion", assert_test="res.status_code == 200"),
    make_record("", file_path="acme/kits/radix.py", line=54, function="check",
                error_class="AssertionError", error_type="assertion", assert_test="res.status_code == 200"),
])


def test_a_pasted_assert_statement_is_found_by_its_test_and_message_source(asserts):
    (m,) = explain('assert res.status_code == 200, f"{res=}, {res.text=}"', context=asserts)
    assert (m.line_number, m.match_kind, m.confidence) == (2376, "assert", "high")


def test_a_pasted_statement_whose_message_is_a_name_fits_every_such_assert_low(asserts):
    matches = explain("assert res.status_code == 200, msg", context=asserts)
    assert {m.line_number for m in matches} == {2376, 2501, 54}
    assert all(m.confidence == "low" for m in matches)


def test_the_statement_split_skips_commas_in_brackets_and_strings():
    from errdex.match.events import assert_statement

    assert assert_statement('assert f(a, b) == ",", "no, really"') == ('f(a, b) == ","', '"no, really"')
    assert assert_statement("assert x") == ("x", None)
    assert assert_statement("x == 1") is None


def test_a_message_retyped_with_other_case_and_spacing_names_its_site_low(tmp_path):
    records = [make_record("Acme only supports sm75 and above.", file_path="acme/boot.py", line=91,
                           function="check_arch", error_class="RuntimeError")]
    ctx = MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend="python")
    (m,) = explain("ACME only supports sm 75 and  above", context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (91, "retyped", "low")
    assert explain("ValueError: ACME only supports sm 75 and above", context=ctx) == []   # class disagrees
    assert explain("only sm 75", context=ctx) == []


hinted = both_engines(lambda: [
    make_record("Graph capture failed in the runner: {e}\nPossible fixes:\n1. lower the batch size\n2. disable graphs",
                file_path="acme/runner/graphs.py", line=602, function="capture", error_class="Exception"),
    make_record("Device error: {err}", file_path="acme/utils/common.py", line=1321, function="check",
                error_class="RuntimeError", bases=["builtins.Exception"]),
])


LINE = "Exception: Graph capture failed in the runner: Device error: capturing stream has unjoined work"


def test_a_pasted_first_line_of_a_template_with_hint_lines_is_graded_whole(hinted):
    (m, *rest) = explain(LINE, context=hinted)
    assert (m.line_number, m.match_kind, m.confidence) == (602, "firstline", "high")
    assert [r.line_number for r in rest] == [1321]   # found inside the text: below it


def test_a_first_line_cut_inside_its_literal_stays_a_low_prefix(hinted):
    (m,) = explain("Exception: Graph capture fai", context=hinted)
    assert (m.match_kind, m.confidence) == ("prefix", "low")


def test_the_line_fast_path_defers_to_the_first_line_match(hinted):
    from errdex.match.events import line_event
    from errdex.match.linematch import LineMatcher
    from errdex.match.resolve import match_event

    line = "ERROR " + LINE
    hint = hinted.engine.scan_block(line.encode())[0].candidates
    event = line_event(line, 1)
    slow = match_event(event, hinted.index, hinted.engine, top_only=True, hint=hint, seen_in=line)
    assert [m.line_number for m in slow] == [602]
    fast = LineMatcher(hinted.engine).match(event, hint, line)
    assert fast is None or [m.to_dict() for m in fast] == [m.to_dict() for m in slow]


def test_a_message_after_a_full_width_colon_label_is_found(titles):
    (m,) = explain("错误信息：Model backends ['X'] are not supported by this server for now.", context=titles)
    assert (m.line_number, m.confidence) == (63, "high")


cut_with_rivals = both_engines(lambda: [
    make_record("Spatial tiling is unsupported here; use whole-tile parallel decode instead",
                file_path="acme/vae.py", line=88, function="decode"),
    make_record("unsupported", file_path="acme/misc.py", line=3, function="f", error_class="TypeError",
                bases=["TypeError", "Exception"]),
    make_record("Slot {n} cannot hold the batch of {m} rows at this size; lower the batch",
                file_path="acme/slots.py", line=179, function="fit"),
    make_record("{a} cannot hold {b}", file_path="acme/base.py", line=9, function="g",
                error_class="AssertionError", bases=["AssertionError", "Exception"]),
])


def test_a_cut_paste_is_found_past_templates_of_another_class_inside_it(cut_with_rivals):
    (m, *_) = explain("ValueError: Spatial tiling is unsupported here; use whole-tile pa", context=cut_with_rivals)
    assert (m.line_number, m.match_kind, m.confidence) == (88, "prefix", "high")


def test_a_cut_reading_of_a_text_another_template_fits_whole_stays_low(cut_with_rivals):
    (m, *_) = explain("ValueError: Slot 7 cannot hold the batch of 9 rows at this size", context=cut_with_rivals)
    assert (m.line_number, m.match_kind, m.confidence) == (179, "prefix", "low")


ARCH = both_engines(lambda: [
    make_record("Model architectures {architectures} failed to be inspected. Please check the logs.",
                file_path="acme/models/registry.py", line=58, function="resolve"),
    make_record("Model architectures {architectures} are not supported for now. Supported architectures: {known}",
                file_path="acme/models/registry.py", line=63, function="resolve"),
])
arch = ARCH


def test_a_sentence_ending_in_a_quoted_message_is_read_for_the_quote_alone(arch):
    """A real report: ``in particular `Model architectures ['X'] are not supported for now? ` ``:
    the writer's question mark inside the span made only the shared opening fit."""
    text = ("But it fails, with the messages below: in particular "
            "`Model architectures ['LlavaNext'] are not supported for now? `")
    (first, *_) = explain(text, context=arch)
    assert first.line_number == 63
