"""Errors printed inside other text: an exception's repr in a log line (asyncio's
`exception=ValueError("...")>`), and a message behind a logger's generic `Error: ` label."""

import io

import pytest

from errdex.match import MatchContext, explain, parse_events
from errdex.match.scan import scan
from errdex.match.text import parse_exception_line, split_clean_lines

from .conftest import both_engines, make_record


ctx = both_engines(lambda: [
    make_record("Client went away while streaming (kind {kind}). Dropping request {rid}",
                file_path="acme/serve/streams.py", line=2070, function="stream"),
    make_record("Budget {n} exceeded", file_path="acme/serve/budget.py", line=12, function="admit"),
    make_record("recycle_interval must be positive", file_path="acme/serve/recycle.py", line=30, function="cfg"),
    make_record("{name} must be positive", file_path="acme/utils/checks.py", line=5, function="check"),
    make_record("Error querying ranks from bootstrap: {e}", file_path="acme/serve/conn.py", line=2735,
                function="query", error_class="logger.error", error_type="log"),
])


REPR_LINE = ("future: <Task finished name='Task-7' coro=<<gen>()> "
             "exception=ValueError(\"Client went away while streaming (kind 3). Dropping request rid='a1'\")>")


def test_an_exception_repr_in_a_line_gives_its_class_and_unescaped_message():
    assert parse_exception_line(REPR_LINE, strict=False)[:2] == (
        "ValueError", "Client went away while streaming (kind 3). Dropping request rid='a1'")
    assert parse_exception_line("got KeyError('it\\'s') here", strict=False)[:2] == ("KeyError", "it's")
    assert parse_exception_line('value = compute("not an error")', strict=False) is None
    assert parse_exception_line('>       raise ValueError("source, not a printout")', strict=False) is None


def test_an_exception_repr_names_its_site_high(ctx):
    (m,) = explain(REPR_LINE, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (2070, "full", "high")


def test_a_message_behind_the_generic_error_label_is_graded_whole(ctx):
    text = "[http_server] Error: Client went away while streaming (kind 3). Dropping request rid='a1'"
    (m,) = explain(text, context=ctx)
    assert (m.line_number, m.confidence) == (2070, "high")


def test_another_single_word_label_reads_as_an_unknown_class_and_stays_low(ctx):
    (m,) = explain("[srv] Oops: Client went away while streaming (kind 3). Dropping request rid='a1'", context=ctx)
    assert (m.line_number, m.confidence) == (2070, "low")


def test_a_whole_rendering_quoted_in_a_sentence_is_graded_whole(ctx):
    text = "I got `Client went away while streaming (kind 1). Dropping request rid='b2'` when streaming"
    (m,) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (2070, "contained", "high")


def test_a_quoted_span_holding_more_than_the_rendering_stays_low(ctx):
    text = "I got `while retrying the Client went away while streaming (kind 1). Dropping request rid='b2'` twice"
    (m,) = explain(text, context=ctx)
    assert (m.line_number, m.confidence) == (2070, "low")


@pytest.mark.parametrize("line", [
    "Starting fails with `ValueError: Budget 12 exceeded` on the second request",
    'Starting fails with "ValueError: Budget 12 exceeded" on the second request',
    "Starting fails with “ValueError: Budget 12 exceeded” on the second request",
])
def test_an_error_quoted_in_a_sentence_ends_where_its_quote_closes(ctx, line):
    (event,) = parse_events(split_clean_lines(line))
    assert (event.error_class, event.message) == ("ValueError", "Budget 12 exceeded")
    (m,) = explain(line, context=ctx)
    assert (m.line_number, m.match_kind) == (12, "full")


@pytest.mark.parametrize("line, message", [
    ("It fails with `ValueError: `--tp` must divide `--dp`.` every time", "`--tp` must divide `--dp`."),
    ("It fails with `ValueError: set `--tp` first", "set `--tp` first"),     # never closed: left whole
])
def test_the_messages_own_marks_come_in_pairs_and_the_last_closes_the_quote(line, message):
    (event,) = parse_events(split_clean_lines(line))
    assert event.message == message


def test_a_quote_opened_and_closed_before_the_class_leaves_the_message_whole():
    (event,) = parse_events(split_clean_lines('The "budget" check: ValueError: Budget `12` exceeded'))
    assert event.message == "Budget `12` exceeded"


titled = both_engines(lambda: [
    make_record("The page pool of {n} pages cannot hold one request of this length.", file_path="acme/pool.py",
                line=246, function="alloc", error_class="RuntimeError", bases=["RuntimeError", "Exception"]),
    make_record("Invalid value", file_path="acme/short.py", line=3, function="check"),
    make_record("The slot map of {n} entries overflowed its table", file_path="acme/slots.py", line=9,
                function="put", error_class="RuntimeError", bases=["RuntimeError", "Exception"]),
])


def test_the_writers_words_after_a_whole_rendering_leave_it_high(titled):
    text = "[Bug] RuntimeError: The page pool of 64 pages cannot hold one request of this length. when running 8 GPUs"
    (m,) = explain(text, context=titled)
    assert (m.line_number, m.match_kind, m.confidence) == (246, "contained", "high")


def test_words_after_a_short_rendering_or_inside_a_word_stay_low(titled):
    assert explain("ValueError: Invalid value for --tp-size", context=titled)[0].confidence == "low"   # 13 characters
    text = "RuntimeError: The slot map of 9 entries overflowed its tables and more"
    assert all(m.confidence == "low" for m in explain(text, context=titled))


def test_rendered_opening_ends_at_a_word_boundary():
    from errdex.match.patterns import rendered_opening

    chunks = ["Pool of ", " pages is full."]
    assert rendered_opening(chunks, "Pool of 8 pages is full. after a day") == len("Pool of 8 pages is full.")
    assert rendered_opening(chunks, "Pool of 8 pages is full.") is None   # nothing follows: a whole message
    assert rendered_opening(["Pool of ", ""], "Pool of 8 pages") is None   # ends in a value


def test_the_generic_label_is_no_value_of_a_template_opening_with_one(ctx):
    (m, *_) = explain("[srv] Error: recycle_interval must be positive", context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (30, "full", "high")


def test_a_rendering_behind_a_label_of_words_outranks_a_template_taking_the_label_in(ctx):
    (m, *_) = explain("Failed to start the server: recycle_interval must be positive", context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (30, "contained", "high")


def test_a_template_whose_own_words_are_the_label_still_ranks_first(tmp_path):
    records = [
        make_record("Graph capture failed: {e}", file_path="acme/runner.py", line=602, function="capture",
                    error_class="Exception", bases=["BaseException"]),
        make_record("Device error: {err}", file_path="acme/utils.py", line=1321, function="check",
                    error_class="RuntimeError", bases=["RuntimeError", "Exception"]),
    ]
    ctx = MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend="python")
    (m, *rest) = explain("Exception: Graph capture failed: Device error: stream has unjoined work", context=ctx)
    assert m.line_number == 602 and [r.line_number for r in rest] == [1321]


generic_rival = both_engines(lambda: [
    make_record("block_size must be a power of 2, got {n}", file_path="acme/blocks.py", line=40, function="check"),
    make_record("{name} must be {what}, got {value}", file_path="acme/validate.py", line=7, function="check"),
])


@pytest.mark.parametrize("text", [
    'I got "block_size must be a power of 2, got 96" when starting the server',         # quoted in a sentence
    "[Bug] ValueError: block_size must be a power of 2, got 96. when running on 8 GPUs",  # the writer's words after
])
def test_a_set_apart_rendering_outranks_a_template_taking_the_rest_into_its_values(generic_rival, text):
    (m, *_) = explain(text, context=generic_rival)
    assert m.line_number == 40


@pytest.mark.parametrize("line, rest", [
    ("[Bug] --tp-size must divide the GPU count", "--tp-size must divide the GPU count"),   # a flag opens it
    ("2025-01-01 10:00:00,123 - ERROR - --tp-size must divide the GPU count", "--tp-size must divide the GPU count"),
    ("10:00:00 | WARN | budget low", "budget low"),
])
def test_a_log_prefix_ends_before_a_flag_that_opens_the_message(line, rest):
    from errdex.match.text import strip_log_prefix

    assert strip_log_prefix(line) == rest


built = both_engines(lambda: [
    make_record("Decode transfer failed for request rank={rank} room={room} with exception {e} "
                "(local restore failed on this rank)", file_path="acme/decode.py", line=2884,
                function="poll", error_class="logger.error", error_type="log", bases=[]),
    make_record("TransferError(room={room}): {reason}", file_path="acme/conn.py", line=2452,
                function="fail", error_class="TransferError", bases=["Exception"]),
    make_record("Lost {n} pages", file_path="acme/pool.py", line=7, function="free"),
])

#: The message built in parts (`+=` under an `except` and an `if`): the line carries the first
#: two, the last part's branch did not run; the appended exception is another site's message.
CUT_BUILT = ("[2025-09-17 16:23:13 TP1] Decode transfer failed for request rank=1 room=1655 with exception "
             "TransferError(room=1655): Failed due to an unknown reason from another rank")


def test_a_cut_rendering_that_explains_more_outranks_a_template_inside_it(built):
    """Review of held-out line d:5: the appended error's own template, found inside the line, used
    to win (low, at the wrong site) over the template the line opens, cut before its last part."""
    matches = explain(CUT_BUILT, context=built)
    assert [(m.line_number, m.match_kind, m.confidence) for m in matches] == [(2884, "prefix", "high")]
    assert matches[0].bindings["e"].startswith("TransferError(room=1655)")


def test_the_appended_error_alone_still_names_its_own_site(built):
    (m,) = explain("TransferError(room=1655): Failed due to an unknown reason from another rank", context=built)
    assert (m.line_number, m.match_kind) == (2452, "full")


def test_a_cut_rendering_explaining_less_leaves_the_template_inside(built):
    """`Lost {n} pages` inside a line opening with a few words of another template: the cut
    rendering covers less literal text than the template inside, which keeps the line."""
    (m,) = explain("Decode transfer failed: Lost 3 pages", context=built)
    assert m.line_number == 7


def test_scan_agrees_on_the_cut_rendering(built, tmp_path):
    from errdex.match.scan import scan

    log = tmp_path / "run.log"
    log.write_text("INFO ok\n" + CUT_BUILT + "\nINFO ok\n")
    report = scan(str(log), context=built)
    assert [(m.line_number, m.confidence, m.log_line) for m in report.occurrences] == [(2884, "high", 2)]


log_ctx = both_engines(lambda: [
    make_record("[Diffusion BCG]   differing fields (serving vs captured): {diffs[:8]}", error_class="logger.warning",
                error_type="log", file_path="acme/graphs/runner.py", line=375, function="replay"),
    make_record("Client went away while streaming (kind {kind}). Dropping request {rid}",
                file_path="acme/serve/streams.py", line=2070, function="stream"),
])


def test_a_logged_template_keeps_its_wide_whitespace_in_a_scanned_log(log_ctx, tmp_path):
    """A log line prints the template's three spaces as they are: the line is found at its
    site (it was missed when the template's whitespace was looked for as one space)."""
    from errdex.match import scan

    log = tmp_path / "run.log"
    log.write_text("2026-01-01 12:00:00 INFO worker: warmup done\n"
                   "2026-01-01 12:00:01 WARNING worker: [Diffusion BCG]   differing fields (serving vs captured):"
                   " ['height', 'width']\n"
                   "2026-01-01 12:00:02 WARNING worker: [Diffusion BCG] differing fields (serving vs captured): x\n")
    found = [(m.log_line, m.line_number) for m in scan(log, context=log_ctx).occurrences]
    assert found == [(2, 375), (3, 375)]


@pytest.mark.parametrize("label", ["worker", "sglang.srt.managers.scheduler", "uvicorn.error"])
def test_a_logger_name_before_a_whole_rendering_is_a_label_and_high(log_ctx, label):
    (m,) = explain(f"2026-01-01 12:00:00 ERROR {label}: Client went away while streaming (kind 3)."
                   " Dropping request rid='a1'", context=log_ctx)
    assert (m.line_number, m.confidence) == (2070, "high")


@pytest.mark.parametrize("label", ["Oops", "pkg.Oops"])
def test_a_capitalised_label_may_be_a_class_and_stays_low(log_ctx, label):
    (m,) = explain(f"{label}: Client went away while streaming (kind 3). Dropping request rid='a1'", context=log_ctx)
    assert (m.line_number, m.confidence) == (2070, "low")


def test_a_foreign_error_repr_inside_a_logged_message_leaves_the_message_to_match(ctx):
    """Set 3 #29: a logged message printing a caught error (`... (Caused by NewConnectionError("..."))`)
    was read as that error alone, which no site raises: the whole line is the logged message."""
    text = ("[2025-03-03 06:49:28] Error querying ranks from bootstrap: HTTPConnectionPool(host='10.0.0.4', "
            "port=38711): Max retries exceeded (Caused by NewConnectionError(\"Failed to establish a new "
            "connection: [Errno 99] Cannot assign requested address\"))")
    (m,) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (2735, "full", "high")
    assert m.bindings["e"].startswith("HTTPConnectionPool(host='10.0.0.4'")
    # a repr that is the whole text is still the error itself, and finds nothing here
    assert explain('NewConnectionError("Failed to establish a new connection")', context=ctx) == []
    # a log scan reads the line the same way
    report = scan(io.BytesIO(("INFO start\n" + text + "\nINFO done\n").encode()), context=ctx)
    assert [(o.line_number, o.log_line, o.confidence) for o in report.occurrences] == [(2735, 2, "high")]
