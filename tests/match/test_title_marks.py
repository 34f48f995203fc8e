"""Error text as issue writers set it in their own prose: a whole message ending an issue
title after a tag and a version, a message in markdown bold inside a sentence, and a
title cut by the tracker with an ellipsis."""

import pytest

from errdex.match import explain, parse_events
from errdex.match.patterns import rendered_closing
from errdex.match.text import split_clean_lines

from .conftest import both_engines, make_record


ctx = both_engines(lambda: [
    make_record("Currently the paged backend only supports page_size=1 for draft decoding",
                file_path="acme/attn/paged.py", line=1197, function="init"),
    make_record("Prefill ran out of pages. Try to lower your batch size.\nTry to allocate {n} pages.",
                file_path="acme/cache/alloc.py", line=246, function="alloc",
                error_class="RuntimeError", bases=["RuntimeError", "Exception"]),
    make_record("the memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
                "local={a} min={b}", file_path="acme/dist/boot.py", line=450, function="boot",
                error_class="RuntimeError", bases=["RuntimeError", "Exception"]),
    make_record("Unknown value", file_path="acme/short.py", line=3, function="check"),
])


@pytest.mark.parametrize("text", [
    "[Bug] 0.4.4post1 Currently the paged backend only supports page_size=1 for draft decoding",
    "[Bug] v0.5 on H100: Currently the paged backend only supports page_size=1 for draft decoding.",
    "Fix: fix the exception 'Currently the paged backend only supports page_size=1 for draft decoding …",   # not cut after all
    "Fix: fix the exception 'currently the paged backend only supports page_size=1 for draft decoding …",
])
def test_a_title_ending_with_a_whole_rendering_after_its_tag_is_high(ctx, text):
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.confidence) == (1197, "high")


def test_a_short_rendering_ending_a_title_stays_low(ctx):
    (m, *_) = explain("[Bug] flag --mode gives Unknown value", context=ctx)
    assert (m.line_number, m.confidence) == (3, "low")


def test_rendered_closing_starts_at_a_word_boundary():
    chunks = ["Pool of ", " pages is full"]
    assert rendered_closing(chunks, "[Bug] v1 Pool of 8 pages is full") == len("[Bug] v1 ")
    assert rendered_closing(chunks, "[Bug] v1 Pool of 8 pages is full.") == len("[Bug] v1 ")   # the writer's period
    assert rendered_closing(chunks, "[Bug] v1 Pool of 8 pages is full …") == len("[Bug] v1 ")   # a cut mark
    assert rendered_closing(chunks, "Pool of 8 pages is full") is None      # nothing before: a whole message
    assert rendered_closing(chunks, "XPool of 8 pages is full") is None     # inside a word
    assert rendered_closing(["", " pages is full"], "v1 8 pages is full") is None   # opens with a value
    assert rendered_closing(chunks, "v1 Pool of 8 pages is full today") is None       # words after it


def test_a_message_in_markdown_bold_ends_where_the_bold_closes(ctx):
    text = "This leads to a wrong length and can cause _**RuntimeError: Prefill ran out of pages. Try to lower your batch size**_."
    (event,) = parse_events(split_clean_lines(text))
    assert (event.error_class, event.message) == ("RuntimeError", "Prefill ran out of pages. Try to lower your batch size")
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.confidence) == (246, "high")


@pytest.mark.parametrize("text", [
    "Fix: fix the exception 'the memory capacity is unbalanced. Some GPUs …",    # a quote the cut left open, lowered
    'Fix the "memory capacity is unbalanced" error: "the memory capacity is unbalanced. Some GPUs may…',
    "[Bug] RuntimeError: the memory capacity is unbalanced. Some GPUs may be occupied…",   # the whole title, cut
])
def test_a_title_cut_with_an_ellipsis_reads_as_a_cut_paste(ctx, text):
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (450, "prefix", "high")


def test_a_short_cut_quote_stays_low(ctx):
    found = explain("Fix: fix the exception 'the memory capacity is unbal…", context=ctx)
    assert all(m.confidence == "low" for m in found)


def test_cut_marks_and_unclosed_quotes():
    from errdex.match.pasted import cut_mark_dropped, quoted_parts

    assert cut_mark_dropped("Some GPUs …") == "Some GPUs"
    assert cut_mark_dropped("Some GPUs...") == "Some GPUs"
    assert cut_mark_dropped("Some GPUs") is None
    assert cut_mark_dropped("…") is None
    parts = quoted_parts("fix the exception 'the memory capacity is unbalanced …")
    assert parts == ["the memory capacity is unbalanced", "The memory capacity is unbalanced"]
    assert quoted_parts("fix the exception 'the memory capacity is unbalanced") == []   # not cut: no quote held open


adapters = both_engines(lambda: [
    make_record("The following requested adapters are not loaded into the server: {name}\nLoaded adapters: {loaded}.",
                file_path="acme/lora/registry.py", line=138, function="lookup"),
    make_record("Requested adapters are not loaded: {name}\nLoaded: {loaded}.",
                file_path="acme/lora/short.py", line=20, function="lookup"),
    make_record("{name} adapters are not loaded into the server, the loaded ones being: {loaded}.",
                file_path="acme/lora/open.py", line=30, function="lookup"),
])


NAMES = "{'org-one/llama-3.1-8b-ocr-correction-adapter'}"
LOADED = "{'org-two/code-llama-3-1-8b-text-to-sql-lora': 'org-two/code-llama-3-1-8b-text-to-sql-lora'}"


def test_long_values_between_many_words_leave_a_classless_quote_high(adapters):
    text = f"request fails with 400 and an error like: `The following requested adapters are not loaded into the server: {NAMES} Loaded adapters: {LOADED}`."
    (m, *_) = explain(text, context=adapters)
    assert (m.line_number, m.confidence) == (138, "high")


@pytest.mark.parametrize("text, line", [
    (f"I got `Requested adapters are not loaded: {NAMES} Loaded: {LOADED}.`", 20),        # too few words
    (f"I got `{NAMES} adapters are not loaded into the server, the loaded ones being: {LOADED}.`", 30),  # opens with a value
])
def test_long_values_around_fewer_words_or_before_them_stay_low(adapters, text, line):
    (m, *_) = explain(text, context=adapters)
    assert (m.line_number, m.confidence) == (line, "low")
