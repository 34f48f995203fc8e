"""Shapes people paste into issue trackers: tracebacks that lost their indentation, a bare
assert retold as `AssertionError: assert <expr>` or `AssertionError: <expr>` inside a code
span, an HTTP client's JSON error body, and messages whose values are most of the text."""

import pytest

from errdex.match import explain, parse_events
from errdex.match.text import json_error_message, split_clean_lines

from .conftest import both_engines, make_record

COMM = "python/acme/dist/comm.py"


ctx = both_engines(lambda: [
    make_record("Collective failed: {error_str}", file_path=COMM, line=474, function="CHECK",
                error_class="RuntimeError"),
    make_record("Collective failed: {error_str}", file_path="python/acme/vendored/gen/dist/comm.py",
                line=342, function="CHECK", error_class="RuntimeError"),
    make_record("", file_path="python/acme/attn/indexer.py", line=90, function="forward",
                error_class="AssertionError", assert_test="scores.shape[0] == len(lens)",
                error_type="assertion"),
    make_record("The prompt ({n} tokens) exceeds the model's window ({limit} tokens).",
                file_path="python/acme/serve/tokens.py", line=30, function="check_len"),
    make_record("Backends {names} are not available here. Available backends: {known}",
                file_path="python/acme/registry.py", line=63, function="resolve"),
    make_record("Model families {names} are not supported by this build yet. Supported: {known}",
                file_path="python/acme/models/families.py", line=63, function="resolve"),
    make_record("Warming up the graph pool failed: {e}", file_path="python/acme/graphs.py", line=12,
                function="capture", error_class="Exception"),
    make_record("{what} failed: {e}", file_path="python/acme/misc.py", line=5, function="wrap",
                error_class="RuntimeError"),
    make_record("", file_path="python/acme/cache/slots.py", line=40, function="SlotPool.free",
                error_class="AssertionError", assert_test="self.slots.free_count() <= self.slots.capacity",
                error_type="assertion"),
    *(make_record("", file_path="python/acme/cache/pages.py", line=line, function=f"PagePool.step{line}",
                  error_class="AssertionError", assert_test="self.pages.used >= 0", error_type="assertion")
      for line in (12, 30)),
])


UNINDENTED = """File "/srv/env/site-packages/acme/dist/setup.py", line 110, in __init__
self.comm = self.lib.init_rank(
File "/srv/env/site-packages/acme/dist/comm.py", line 350, in CHECK
raise RuntimeError(f"Collective failed: {error_str}")
^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: Collective failed: unhandled system error
[12:00:01] worker exited
"""


def test_traceback_that_lost_its_indentation_keeps_its_frames():
    events = parse_events(split_clean_lines(UNINDENTED))
    (event,) = [e for e in events if e.error_class == "RuntimeError"]
    assert [f.line for f in event.frames] == [110, 350]
    assert event.message == "Collective failed: unhandled system error"


def test_unindented_frames_pick_the_site_the_text_alone_cannot(ctx):
    (m, *rest) = explain(UNINDENTED, context=ctx)
    assert (m.file_path, m.line_number, m.via, m.confidence) == (COMM, 474, "frame", "high")
    assert all(r.score < m.score for r in rest)


def test_a_cut_off_unindented_traceback_does_not_swallow_the_log_after_it():
    text = ('File "/x/acme/dist/comm.py", line 350, in CHECK\nraise RuntimeError(msg)\n'
            "[12:00:01] scheduler restarted\n[12:00:02] serving again\nValueError: later and unrelated\n")
    events = parse_events(split_clean_lines(text))
    assert [(e.error_class, e.log_line) for e in events][-1] == ("ValueError", 5)


def test_an_unindented_line_that_names_an_exception_class_ends_the_frames():
    text = 'File "/x/acme/attn/indexer.py", line 88, in forward\nAssertionError\n'
    (event,) = parse_events(split_clean_lines(text))
    assert event.error_class == "AssertionError" and event.frames[0].line == 88


def test_assert_retold_on_one_line_names_its_site(ctx):
    (m,) = explain("AssertionError: assert scores.shape[0] == len(lens)", context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (90, "assert", "high")
    assert all(m.confidence == "low" for m in explain("AssertionError: assert lens is not None", context=ctx))


@pytest.mark.parametrize("body, message", [
    ('{"object":"error","message":"it can\\\'t fit (3 tokens)","type":"BadRequestError","code":400}',
     "it can't fit (3 tokens)"),
    ('{"detail": "quote \\"x\\" and \\u00e9"}', 'quote "x" and \u00e9'),
    ("{'object': 'error', 'message': \"it can't fit\", 'code': 400}", "it can't fit"),   # a Python dict
    ("{'detail': 'it\\'s gone'}", "it's gone"),
    ('{"message": 3}', None),
    ("no json here", None),
])
def test_json_error_message(body, message):
    assert json_error_message(body) == message


def test_error_body_printed_by_an_http_client(ctx):
    # The client printed the body with Python's escapes: `model\'s`.
    body = ('{"object":"error","message":"The prompt (9000 tokens) exceeds the model\\\'s window '
            '(8192 tokens).","type":"BadRequestError","param":null,"code":400}')
    (m,) = explain(body, context=ctx)
    assert (m.line_number, m.confidence, m.bindings) == (30, "high", {"n": "9000", "limit": "8192"})


def test_an_http_clients_status_error_is_read_as_the_servers_message(ctx):
    text = ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"The prompt (9000 "
            "tokens) exceeds the model's window (8192 tokens).\", 'type': 'BadRequestError', 'param': None, "
            "'code': 400}")
    (event,) = parse_events(split_clean_lines(text))
    assert (event.error_class, event.message) == (None, "The prompt (9000 tokens) exceeds the model's window (8192 tokens).")
    (m,) = explain(text, context=ctx)
    assert (m.line_number, m.confidence) == (30, "high")


LONG_LIST = ", ".join(f"'Backend{i}ForSomething'" for i in range(40))


@pytest.mark.parametrize("text, confidence", [
    # values are most of the text, but the literal text is long, opens the message, the class agrees
    (f"ValueError: Backends ['Mine'] are not available here. Available backends: [{LONG_LIST}]", "high"),
    (f"Exception: Warming up the graph pool failed: {LONG_LIST}", "high"),
    # no class to agree with: the half-coverage rule stands
    (f"Backends ['Mine'] are not available here. Available backends: [{LONG_LIST}]", "low"),
    # a template opening with a value: the half-coverage rule stands
    (f"RuntimeError: Loading failed: {LONG_LIST}", "low"),
])
def test_long_values_with_a_long_opening_literal(ctx, text, confidence):
    (m, *_) = explain(text, context=ctx)
    assert m.confidence == confidence


@pytest.mark.parametrize("text, confidence", [
    # a server logging the exception it caught behind its own label
    ("[12:00:00] Error in request: The prompt (9 tokens) exceeds the model's window (8 tokens).", "high"),
    ("ValueError: Error in request: The prompt (9 tokens) exceeds the model's window (8 tokens).", "high"),
    # more text after the rendering: not the whole message
    ("Error in request: The prompt (9 tokens) exceeds the model's window (8 tokens). Retrying.", "low"),
    # a label that does not end in ': ', or one too long to be a label: still words before a whole
    # rendering that ends the text, graded like a cut paste (40 literal characters with no class)
    ("Error in request - The prompt (9 tokens) exceeds the model's window (8 tokens).", "high"),
    ("While serving the third batch of requests for tenant alpha in region eu, we saw: "
     "The prompt (9 tokens) exceeds the model's window (8 tokens).", "high"),
    ("Error in request - The prompt (9 tokens) exceeds the model's window (8 tokens). Retrying.", "low"),
])
def test_a_message_behind_a_wrappers_label(ctx, text, confidence):
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (30, "contained", confidence)


def test_lines_boxed_by_a_log_viewer_lose_their_right_border(ctx):
    text = "\n".join(line.ljust(90) + "│" for line in [
        "[10:00:00 TP7] worker crashed: Traceback (most recent call last):",
        '│   File "/srv/env/site-packages/acme/dist/comm.py", line 350, in CHECK',
        '│     raise RuntimeError(f"Collective failed: {error_str}")',
        "│ RuntimeError: Collective failed: unhandled system error",
    ])
    (event,) = parse_events(split_clean_lines(text))
    assert (event.message, event.frames[0].function) == ("Collective failed: unhandled system error", "CHECK")
    (m, *_) = explain(text, context=ctx)
    assert (m.file_path, m.via, m.confidence) == (COMM, "frame", "high")


def _docker(lines: list[str]) -> str:
    import json

    return "\n".join(json.dumps({"log": line + "\n", "stream": "stderr", "time": "2026-01-01T00:00:00Z"})
                     for line in lines)


TRACEBACK_LINES = [
    "Traceback (most recent call last):",
    '  File "/srv/env/site-packages/acme/dist/comm.py", line 350, in CHECK',
    '    raise RuntimeError(f"Collective failed: {error_str}")',
    "RuntimeError: Collective failed: unhandled system error",
]


def test_docker_json_file_log_lines_are_unwrapped(ctx):
    (m, *_) = explain(_docker(TRACEBACK_LINES), context=ctx)
    assert (m.file_path, m.via, m.confidence) == (COMM, "frame", "high")


def test_frames_printed_with_escaped_quotes():
    text = "\n".join(line.replace('"', '\\"') for line in TRACEBACK_LINES[1:3]) + "\n" + TRACEBACK_LINES[3]
    (event,) = parse_events(split_clean_lines(text))
    assert event.frames[0].path == "/srv/env/site-packages/acme/dist/comm.py" and event.frames[0].line == 350


@pytest.mark.parametrize("shape", ["boxed", "docker", "escaped"])
def test_a_log_scan_reads_these_shapes_as_explain_does(ctx, tmp_path, shape):
    from errdex.match import scan

    if shape == "boxed":
        text = "\n".join(line.ljust(90) + "│" for line in TRACEBACK_LINES)
    elif shape == "docker":
        text = _docker(TRACEBACK_LINES)
    else:
        text = "\n".join(line.replace('"', '\\"') if "File" in line else line for line in TRACEBACK_LINES)
    log = tmp_path / "server.log"
    log.write_text("[10:00:00] starting\n" + text + "\n[10:00:01] stopped\n")
    (occurrence,) = scan(log, context=ctx).occurrences
    (m, *_) = explain(text, context=ctx)
    assert (occurrence.file_path, occurrence.via, occurrence.confidence) == (m.file_path, m.via, m.confidence) \
        == (COMM, "frame", "high")


def test_a_message_quoted_as_code_with_a_question_mark_is_read_without_them(ctx):
    """An issue body quoting the message in backticks and asking about it: the marks around
    it and the writer's closing '?' are not the message's."""
    text = "`Model families ['TpuLMForCausal'] are not supported by this build yet? `"
    (m, *_) = explain(text, context=ctx)
    assert (m.file_path, m.match_kind, m.confidence) == ("python/acme/models/families.py", "prefix", "high")


@pytest.mark.parametrize("text, expected", [
    ("`x failed: y? `", "x failed: y"),
    ("'NoneType' object has no attribute 'x'", "'NoneType' object has no attribute 'x'"),
    ('"Collective failed"', "Collective failed"),
    ("What now??", "What now??"),
])
def test_unwrapped_keeps_quotes_that_belong_to_the_message(text, expected):
    from errdex.match.pasted import unwrapped

    assert unwrapped(text) == expected


SLOTS = "python/acme/cache/slots.py"


@pytest.mark.parametrize("text", [
    "It crashes after an hour with `AssertionError: slots.free_count() <= slots.capacity`",
    "AssertionError: self.slots.free_count() <= self.slots.capacity",
])
def test_a_bare_asserts_test_written_as_its_message_names_it(ctx, text):
    """Python prints a bare assert with no message; a writer puts its test there, often
    without `self.` and inside a code span opened before the class."""
    (m, *_) = explain(text, context=ctx)
    assert (m.file_path, m.line_number, m.match_kind, m.confidence) == (SLOTS, 40, "assert", "high")


def test_a_retold_test_standing_at_several_sites_stays_low(ctx):
    found = explain("AssertionError: pages.used >= 0", context=ctx)
    assert {(m.line_number, m.confidence) for m in found[:2]} == {(12, "low"), (30, "low")}


@pytest.mark.parametrize("message, expected", [
    ("slots", None),                                  # a name tests nothing
    ("the slots ran out", None),
    ("the pool (slots) is full", None),               # a sentence with a call-like part
    ("used == 3, got 4", None),                       # a tuple: a message, not a test
    ("slot in free and not busy", "slotinfreeandnotbusy"),
    ("self.pool.size() > 0", "pool.size()>0"),
])
def test_only_a_message_that_is_one_test_reads_as_a_retold_assert(message, expected):
    from errdex.match.pasted import told_test

    assert told_test(message) == expected


@pytest.mark.parametrize("message, expected", [
    ("bad x`", "bad x"),               # the span opened before the class
    ("set `x` to 2", "set `x` to 2"),  # a pair inside the message
    ("no marks", "no marks"),
])
def test_only_a_closing_mark_without_its_opener_is_dropped(message, expected):
    from errdex.match.pasted import closing_mark_dropped

    assert closing_mark_dropped(message) == expected
