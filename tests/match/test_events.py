"""Cutting real-looking error text into events: tracebacks, chains, prefixes, pytest."""

from errdex.match.events import parse_events
from errdex.match.text import normalize_unknown, split_clean_lines, strip_log_prefix

CHAINED = '''Traceback (most recent call last):
  File "/srv/app/pkg/core/ops.py", line 10, in run
    table[key]
    ~~~~~^^^^^
KeyError: 'k'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/app/main.py", line 3, in <module>
    run()
  File "/srv/app/pkg/core/ops.py", line 12, in run
    raise ValueError(f"bad key {key}")
ValueError: bad key k
'''


def test_chained_traceback_gives_both_with_last_primary():
    events = parse_events(split_clean_lines(CHAINED))
    assert [e.error_class for e in events] == ["KeyError", "ValueError"]
    assert [e.primary for e in events] == [False, True]
    assert events[1].frames[-1].path == "/srv/app/pkg/core/ops.py"
    assert events[1].frames[-1].line == 12 and events[1].frames[-1].function == "run"
    assert events[1].log_line == 14 and events[0].log_line == 5


def test_interleaved_rank_prefixes_separate_and_ansi_crlf_are_removed():
    lines = []
    for rank in (0, 1):
        lines.append(f"[rank{rank}]: Traceback (most recent call last):")
    for rank in (0, 1):
        lines.append(f'[rank{rank}]:   File "/x/pkg/core/ops.py", line {20 + rank}, in run')
    lines.append("\x1b[31m[rank1]: ValueError: rank one failed\x1b[0m")
    lines.append("[rank0]: RuntimeError: rank zero failed")
    events = parse_events(split_clean_lines("\r\n".join(lines) + "\r\n"))
    by_class = {e.error_class: e for e in events}
    assert by_class["RuntimeError"].frames[0].line == 20
    assert by_class["ValueError"].frames[0].line == 21
    assert by_class["ValueError"].message == "rank one failed"


def test_timestamped_prefix_that_changes_per_line():
    text = "\n".join([
        "2024-05-01 10:00:00,001 ERROR worker: Traceback (most recent call last):",
        '2024-05-01 10:00:00,002 ERROR worker:   File "/x/pkg/a.py", line 5, in f',
        "2024-05-01 10:00:00,003 ERROR worker: TypeError: wrong type 3",
        "2024-05-01 10:00:01,000 INFO worker: next request",
    ])
    (event,) = parse_events(split_clean_lines(text))
    assert event.error_class == "TypeError" and event.message == "wrong type 3"
    assert event.frames[0].path == "/x/pkg/a.py" and event.log_line == 3


def test_logger_exception_prefixes_only_the_first_line_and_message_continues():
    text = "\n".join([
        "2024-05-01 10:00:00 ERROR Traceback (most recent call last):",
        '  File "/x/pkg/a.py", line 5, in f',
        "ValueError: first line",
        "second line of the message",
        "",
        "2024-05-01 10:00:01 INFO fine",
    ])
    (event,) = parse_events(split_clean_lines(text))
    assert event.message == "first line\nsecond line of the message"


def test_ray_headerless_frames_and_inner_class():
    text = "\n".join([
        "(RayWorker pid=4242) ray.exceptions.RayTaskError(ValueError): ray::Worker.step() (pid=4242)",
        '(RayWorker pid=4242)   File "/opt/site-packages/pkg/core/ops.py", line 30, in step',
        '(RayWorker pid=4242)     raise ValueError("too big")',
        "(RayWorker pid=4242) ValueError: too big",
    ])
    events = parse_events(split_clean_lines(text))
    last = events[-1]
    assert last.error_class == "ValueError" and last.message == "too big"
    assert last.frames[-1].line == 30 and last.log_line == 4


def test_truncated_traceback_keeps_frames():
    text = 'Traceback (most recent call last):\n  File "/x/pkg/a.py", line 5, in f\n    g()\n'
    (event,) = parse_events(split_clean_lines(text))
    assert event.error_class is None and event.frames[0].line == 5


def test_pytest_long_and_short_output():
    long_style = "\n".join([
        "    def f():",
        '>       raise ValueError("bad 3")',
        "E       ValueError: bad 3",
        "",
        "pkg/core/ops.py:41: ValueError",
    ])
    (event,) = parse_events(split_clean_lines(long_style))
    assert (event.error_class, event.message) == ("ValueError", "bad 3")
    assert event.frames[-1].path == "pkg/core/ops.py" and event.frames[-1].line == 41
    short = "\n".join([
        "tests/test_x.py:5: in test_x", "    f()",
        "pkg/core/ops.py:41: in f", '    raise ValueError("bad 3")', "E   ValueError: bad 3",
    ])
    (event,) = parse_events(split_clean_lines(short))
    assert [(f.line, f.function) for f in event.frames] == [(5, "test_x"), (41, "f")]
    (event,) = parse_events(split_clean_lines("E       assert x > 0\nE        +  where x = -1"))
    assert event.error_class == "AssertionError" and event.failing_expr == "x > 0"


def test_warning_line_carries_its_location():
    (event,) = parse_events(["/x/pkg/a.py:12: UserWarning: slow path taken"])
    assert event.kind == "warning" and event.frames[0].line == 12
    assert event.message == "slow path taken"


def test_log_prefix_stripping_and_unknown_normalisation():
    assert strip_log_prefix("2024-05-01T10:00:00.5Z [rank3]: ERROR | boom now") == "boom now"
    assert normalize_unknown("KeyError: 'abc' at 0x7f3a, 42 times") == normalize_unknown(
        "KeyError: 'xyz' at 0x1, 7 times")


def test_a_chain_marker_far_below_does_not_chain_an_earlier_traceback():
    """Only a marker within a few lines (other ranks' lines included) continues a chain."""
    def traceback(message):
        return ["[rank0]: Traceback (most recent call last):",
                '[rank0]:   File "/x/pkg/a.py", line 5, in f',
                "[rank0]:     raise ValueError(x)",
                f"[rank0]: ValueError: {message}"]
    lines = traceback("first")
    lines += [f"2024-05-01 10:00:{i % 60:02d} INFO other process line {i}" for i in range(150)]
    lines += ["", "[rank0]: During handling of the above exception, another exception occurred:", ""]
    lines += traceback("second")
    events = parse_events(split_clean_lines("\n".join(lines)))
    first = [e for e in events if e.message == "first"]
    assert len(first) == 1 and first[0].primary and first[0].chain == 0
    interleaved = traceback("inner") + [f"[rank1]: rank 1 line {i}" for i in range(6)] + \
        ["", "[rank0]: The above exception was the direct cause of the following exception:", ""] + traceback("outer")
    inner, outer = parse_events(split_clean_lines("\n".join(interleaved)))[:2]
    assert (inner.message, inner.primary, outer.message, outer.primary) == ("inner", False, "outer", True)


def test_a_frame_after_a_one_space_log_prefix_is_read_not_crashed_on():
    """Set 3 #23: `...848Z File "x", line 5, in f` (one space between prefix and frame) crashed the
    parser; the frame is read, and a headerless traceback under the same prefix gives its event."""
    text = ('ERROR 2025-04-07T19:13:52.317865848Z File "/x/pkg/models/llama.py", line 508, in load_weights\n'
            "ERROR 2025-04-07T19:13:52.317865848Z     param = params_dict[name]\n"
            "ERROR 2025-04-07T19:13:52.317865848Z KeyError: 'model.layers.0.mlp'\n")
    events = parse_events(split_clean_lines(text))
    assert [e.error_class for e in events] == ["KeyError"]
    assert events[0].frames[-1].path == "/x/pkg/models/llama.py" and events[0].frames[-1].line == 508
    assert parse_events(split_clean_lines(text.splitlines()[0])) is not None
