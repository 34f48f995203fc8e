"""The scan's fast paths answer as the general ones: `LineMatcher` against `match_event`,
`line_event` against `parse_at`, the leftmost template placement against the
backtracking matcher it replaced, a whole scan with and without the fast path, token
candidates by substring look-up against the automaton, and a traceback block's
skipping of other processes' lines against the line-by-line walk."""

import random

import pytest

from errdex.match import MatchContext, scan
from errdex.match.events import line_event, opens_block, parse_at
from errdex.match.linematch import LineMatcher
from errdex.match.patterns import place_template
from errdex.match.resolve import match_event
from errdex.match.scan import BlockScanner
from errdex.match.text import clean_line

from .conftest import make_record

SHARED = "Expected {n} experts per rank, got {m}"


def _records():
    return [
        # one template, three records (two library sites and a test): verified once per line
        make_record(SHARED, file_path="pkg/moe/a.py", line=10),
        make_record(SHARED, file_path="pkg/moe/b.py", line=20, error_class="RuntimeError",
                    bases=["RuntimeError", "Exception"]),
        make_record(SHARED, file_path="tests/test_moe.py", line=30, tags=["test"]),
        # the same literal with a different shape: the literal is on the line, the pattern may not be
        make_record("Expected {n} experts per rank", file_path="pkg/moe/c.py", line=40),
        make_record("Request {rid} exceeded the token budget of {n}", file_path="pkg/admit.py",
                    line=50, error_class="RuntimeError", bases=["RuntimeError", "Exception"]),
        make_record("{a}{b} is not a valid shard spec for {name}", file_path="pkg/shard.py", line=60,
                    error_class=None),
        make_record("Unknown quantization method {method}", file_path="pkg/quant.py", line=70,
                    error_class="KeyError", bases=["LookupError", "Exception"]),
        make_record("", file_path="pkg/moe/d.py", line=80, error_class="AssertionError",
                    assert_test="self.rank < world_size", error_type="assertion"),
    ]


LINES = [
    "2024-01-01 00:00:01 ERROR w: ValueError: Expected 8 experts per rank, got 7",
    "2024-01-01 00:00:01 ERROR w: RuntimeError: Expected 8 experts per rank, got 7",
    "2024-01-01 00:00:01 ERROR w: Exception: Expected 8 experts per rank, got 7",
    "ERROR ValueError: Expected 8 experts per rank",
    "ERROR ValueError: wrapped: Expected 4 experts per rank, got 2 (retrying)",
    "ERROR RuntimeError: Worker failed: Request r3 exceeded the token budget of 4096",   # a wrapper's label
    "ERROR TypeError: Expected 8 experts per rank, got 7",                 # no record of this class
    "ERROR ValueError: Expected  8 experts per rank,  got 7",              # double spaces
    "ERROR Expected 8 experts per rank, got 7 ValueError: something else",  # literal before the class
    "ERROR RuntimeError: Request r1 exceeded the token budget of 4096",
    "ERROR RuntimeError: Request r1 exceeded the token budget of 4096",    # repeated
    "ERROR RuntimeError: Request exceeded the token budget of 4096",      # literal there, pattern not
    "ERROR RuntimeError: Request r1 exceeded the token budget of ",        # line regex there, template not
    "ERROR Request r1 exceeded the token budget of 5 RuntimeError: other",
    "ERROR KeyError: Unknown quantization method 'fp3'",
    "ERROR ValueError: xy is not a valid shard spec for w1",
    "WARN UserWarning: Expected 2 experts per rank, got 1",
    "ERROR MyError: Request r2 exceeded the token budget of 1",
    "ERROR AssertionError: rank < world_size",                           # a bare assert's test retold
    "ERROR AssertionError: Expected 8 experts per rank",
    "ERROR RuntimeError: Error: Request r1 exceeded the token budget of 4096",   # the generic label
    "Task done exception=RuntimeError('Request r1 exceeded the token budget of 4096')>",   # a repr
    "ERROR ValueError: Expected 8 experts per rank when loading shard 3",   # words after a whole rendering
    'ERROR ValueError: worker said "Expected 8 experts per rank" twice',    # a rendering quoted
]


@pytest.fixture(params=["hyperscan", "python"])
def ctx(request, tmp_path):
    return MatchContext.from_records(_records(), cache_dir=tmp_path / "engine", backend=request.param)


def test_line_matcher_equals_match_event_where_it_answers(ctx):
    fast = LineMatcher(ctx.engine)
    answered = 0
    for number, raw in enumerate(LINES, 1):
        hits = ctx.engine.scan_block(raw.encode())
        line = clean_line(raw)
        event = line_event(line, number)
        if event is None or 0 not in hits:
            continue
        hint = hits[0].candidates
        slow = match_event(event, ctx.index, ctx.engine, top_only=True, hint=hint, seen_in=line)
        got = fast.match(event, hint, line) if hint else None
        if got is not None:
            answered += 1
            assert got == slow, raw
            assert [m.to_dict() for m in got] == [m.to_dict() for m in slow], raw
    assert answered >= 9


def test_line_matcher_declines_what_it_does_not_cover(ctx):
    fast = LineMatcher(ctx.engine)
    for raw in ("ERROR Request r1 exceeded the token budget of 5 RuntimeError: other",   # not in the message
                "ERROR RuntimeError: Request r1 exceeded the token budget of "):       # the line regex only
        event = line_event(raw, 1)
        hint = ctx.engine.scan_block(raw.encode())[0].candidates
        assert hint and fast.match(event, hint, raw) is None
    raw = "ERROR TypeError: Expected 8 experts per rank, got 7"            # only other classes' records
    event = line_event(raw, 1)
    assert fast.match(event, ctx.engine.scan_block(raw.encode())[0].candidates, raw) is None


def test_scan_with_and_without_the_fast_path(ctx, tmp_path, monkeypatch):
    rng = random.Random(3)
    lines = [rng.choice(LINES) if rng.random() < 0.3 else f"INFO step {i} ok" for i in range(400)]
    log = tmp_path / "run.log"
    log.write_text("\n".join(lines) + "\n")
    calls = []
    real = LineMatcher.match

    def counted(self, *args):
        found = real(self, *args)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(LineMatcher, "match", counted)
    fast = scan(log, context=ctx, chunk_size=2048).to_dict()
    assert sum(calls) >= 6   # the distinct lines it covers (repeats reuse the first answer)
    monkeypatch.setattr(LineMatcher, "match", lambda self, *args: None)
    slow = scan(log, context=ctx, chunk_size=2048).to_dict()
    for report in (fast, slow):
        report.pop("stats")
    assert fast == slow
    assert len(fast["occurrences"]) > 60


@pytest.mark.parametrize("line", [
    "ERROR ValueError: Expected 8 experts per rank, got 7",
    "pkg/a.py:12: UserWarning: careful",
    "Traceback (most recent call last):",
    '  File "/x/pkg/a.py", line 3, in f',
    "E       ValueError: boom",
    "E   ",
    "E  assert 1 == 2",
    "Error",
    "ERROR: nothing here",
    "[rank0]: RayTaskError(ValueError): Expected 1 experts per rank, got 2",
])
def test_line_event_is_parse_at_for_lines_that_open_no_block(line):
    parsed = parse_at([line], 0, 7)
    if opens_block(line):
        return
    event = line_event(line, 7)
    assert (event is None) == (parsed is None)
    if event is not None:
        assert parsed.events == [event] and parsed.consumed == {0} and parsed.complete


def test_opens_block_marks_what_parse_at_reads_as_blocks():
    assert opens_block("Traceback (most recent call last):")
    assert opens_block('  File "a.py", line 1, in f')
    assert opens_block("E   x") and not opens_block("E x") and not opens_block("ERROR x")


def _backtracking(chunks, message):
    """The matcher `place_template` replaced (shortest values first, backtracking, a budget of
    5000 placements per message shared by the whole and the contained attempt): the oracle."""
    budget = [5000]

    def place(i, start, anchored):
        pos = start + len(chunks[i])
        if i == len(chunks) - 1:
            return [] if (pos == len(message) or not anchored) else None
        nxt = chunks[i + 1]
        if i + 1 == len(chunks) - 1 and (anchored or not nxt):
            if not nxt:
                return [message[pos:]] if len(message) > pos else None
            end = len(message) - len(nxt)
            return [message[pos:end]] if end > pos and message.endswith(nxt) else None
        j = message.find(nxt, pos + 1) if nxt else pos + 1
        while 0 <= j <= len(message) and (nxt or j < len(message)):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            rest = place(i + 1, j, anchored)
            if rest is not None:
                return [message[pos:j]] + rest
            j = message.find(nxt, j + 1) if nxt else j + 1
        return None

    if message.startswith(chunks[0]):
        values = place(0, 0, True)
        if values is not None:
            return "full", values
    if not chunks[0]:
        values = place(0, 0, False)
        return ("contained", values) if values is not None else None
    at = message.find(chunks[0])
    while at >= 0:
        values = place(0, at, False)
        if values is not None:
            return "contained", values
        at = message.find(chunks[0], at + 1)
    return None


@pytest.mark.parametrize("alphabet,longest", [("ab c", 14), ("aab", 40)])
def test_leftmost_placement_answers_as_the_backtracking_matcher(alphabet, longest):
    rng = random.Random(len(alphabet))
    kinds = set()
    for _ in range(20000):
        chunks = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3)))
                  for _ in range(rng.randint(1, 8))]
        message = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest)))
        expected = _backtracking(chunks, message)
        assert place_template(chunks, message) == expected, (chunks, message)
        kinds.add(expected[0] if expected else None)
    assert kinds == {"full", "contained", None}


def test_budget_the_backtracking_matcher_ran_out_of_is_kept():
    # Its whole-message search spends the budget; the contained match after it is then not found.
    chunks, message = ["b", "", "", "bb", "", "", "a"], "bababbaaabbaaabbbbaababab"
    assert _backtracking(chunks, message) is None
    assert place_template(chunks, message) is None
    assert place_template(chunks[:4], message) == _backtracking(chunks[:4], message) is not None


def test_block_scanner_takes_the_fast_path_for_plain_error_lines(ctx):
    from errdex.match.scan import ScanReport

    scanner = BlockScanner(ctx, ScanReport())
    seen = []
    real = scanner._lines.match
    scanner._lines.match = lambda *args: seen.append(real(*args)) or seen[-1]
    scanner.block(("\n".join(LINES[:3]) + "\n").encode(), final=True)
    assert len(seen) == 3 and all(found is not None for found in seen)
    assert sorted({m.log_line for m in scanner.report.occurrences}) == [1, 2, 3]


def test_token_candidates_of_short_texts_equal_the_automatons(tmp_path):
    from errdex.match.engine import _TokenCandidates

    records = _records() + [make_record(t, file_path=f"pkg/m{i}.py", line=i) for i, t in enumerate(
        ["shape (2, 3) {x} mismatch", "got 4096 tokens for {n}", "{a} -> {b} failed: 1e-05"])]
    ctx = MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend="hyperscan")
    automaton = _TokenCandidates(ctx.engine.token_table())
    rng = random.Random(9)
    words = ["4096", "(2,", "3)", "experts", "rank,", "->", "1e-05", "xExpectedy", "quantization", "budget"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) for _ in range(300)]
    texts.append("x" * 200 + "budget")   # past the look-up limit: the automaton is built and used
    found_any = 0
    for text in texts:
        expected = automaton.candidates(text)
        assert ctx.engine.token_candidates(text) == expected, text
        found_any += bool(expected)
    assert found_any > 100 and ctx.engine._fallback is not None


def _interleaved_log(rng):
    """Tracebacks of rank 0 with other ranks' lines between their lines (0 to 260 of them)."""
    lines = []
    for n in range(12):
        gap = lambda: [f"[rank1]: step {rng.randint(0, 99)} ok" for _ in range(rng.choice([0, 1, 3, 150, 199, 260]))]
        lines += ["[rank0]: Traceback (most recent call last):", *gap(),
                  '[rank0]:   File "/srv/pkg/admit.py", line 50, in admit', *gap(),
                  f"[rank0]: RuntimeError: Request r{n} exceeded the token budget of {n}", *gap()]
        if n % 3 == 0:
            lines += ["[rank0]: more detail of the message", *gap(),
                      "[rank0]: During handling of the above exception, another exception occurred:", *gap()]
            lines += ["[rank0]: Traceback (most recent call last):", f"[rank0]: ValueError: Expected {n} experts per rank, got 1"]
    return lines


def test_skipping_other_processes_lines_in_one_loop_answers_as_the_walk(ctx, tmp_path, monkeypatch):
    from errdex.match import events

    lines = _interleaved_log(random.Random(4))
    log = tmp_path / "ranks.log"
    log.write_text("\n".join(lines) + "\n")
    quick = (events.parse_events(lines), scan(log, context=ctx, chunk_size=4096).to_dict())
    monkeypatch.setattr(events, "_WALK_BEFORE_SEARCH", 10 ** 9)   # never leave the line-by-line walk
    walked = (events.parse_events(lines), scan(log, context=ctx, chunk_size=4096).to_dict())
    for report in (quick[1], walked[1]):
        report.pop("stats")
    assert quick == walked
    assert len(quick[0]) >= 12 and any(e.chain for e in quick[0])


def test_loose_exception_search_started_late_finds_what_the_whole_search_finds():
    from errdex.match.text import LOOSE_EXCEPTION, loose_exception

    rng = random.Random(11)
    pieces = ["Error", "Exception", "Warning", "Exit", "Interrupt", "Failure", "Fault", "Value", "x", "_",
              "pkg.", ".", " ", "  ", ":", ": ", "(", ")", "(Key", "'", "7", "é", "\t", "\r", "\n", "-"]
    found = 0
    for _ in range(20000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        whole, late = LOOSE_EXCEPTION.search(line), loose_exception(line)
        assert (whole and (whole.span(), whole.groupdict())) == (late and (late.span(), late.groupdict())), line
        found += whole is not None
    assert found > 2000


def test_verify_prefix_on_a_record_asked_before_answers_as_on_a_fresh_one():
    from errdex.match.patterns import RecordRef, verify_prefix

    rec = make_record("Expected {n} experts per rank, got {m}\n  see the {doc} for shards")
    texts = ["Expected 8 experts per rank, got 7", "Expected 8 experts per", "Expected 8 exp",
             "Expected 8 experts per rank, got 7 see the", "Expected 8 experts per rank, got 7 see the guide for sh",
             "Other: Expected 8 experts per rank", "Expected"]
    asked = RecordRef.from_record(0, rec)
    for text in texts + texts[::-1]:
        assert verify_prefix(asked, text) == verify_prefix(RecordRef.from_record(0, rec), text), text
    assert sum(verify_prefix(asked, t) is not None for t in texts) >= 4


def _ranked_as_worked_out(chunks, text, literal):
    """`grading.ranked_as` as it was before `set_apart` (the oracle)."""
    from errdex.match.pasted import quoted_rendering
    from errdex.match.patterns import rendered_closing, rendered_opening, wrapped_start

    if (start := wrapped_start(chunks, text)) is not None:
        return "wrapped", literal / max(1, len(text) - start)
    if (end := rendered_opening(chunks, text)) is not None:
        return "wrapped", literal / end
    if (start := rendered_closing(chunks, text)) is not None:
        return "wrapped", literal / max(1, len(text) - start)
    if "`" in text or '"' in text or "“" in text:
        if (span := quoted_rendering(chunks, text)) is not None:
            return "wrapped", literal / max(1, len(span))
    return "contained", literal / max(1, len(text))


def _contained_high_worked_out(chunks, text, literal, rec, agrees, event):
    """`grading.contained_hit_is_high` as it was before `set_apart` (the oracle)."""
    from errdex.match.grading import HIGH_MIN_LITERAL_PREFIX, HIGH_MIN_LITERAL_PREFIX_CLASSLESS, full_hit_is_high
    from errdex.match.pasted import quoted_rendering
    from errdex.match.patterns import rendered_closing, rendered_opening, wrapped_start

    need = HIGH_MIN_LITERAL_PREFIX if agrees else HIGH_MIN_LITERAL_PREFIX_CLASSLESS
    if (start := wrapped_start(chunks, text)) is not None:
        part = text[start:]
    elif (end := rendered_opening(chunks, text)) is not None:
        return literal >= need and full_hit_is_high(literal / end, literal, rec, agrees, event, text[:end])
    elif (start := rendered_closing(chunks, text)) is not None:
        part = text[start:]
        return literal >= need and full_hit_is_high(literal / len(part), literal, rec, agrees, event, part)
    elif "`" in text or '"' in text or "“" in text:
        if (part := quoted_rendering(chunks, text)) is None:
            return False
    else:
        return False
    return full_hit_is_high(literal / max(1, len(part)), literal, rec, agrees, event, part)


@pytest.mark.parametrize("event_line", LINES + [
    "ERROR ValueError: [Bug] v0.4.4 Expected 8 experts per rank.",    # the writer's words before it
    'ERROR ValueError: I got "Request r1 exceeded the token budget of 4096" twice',
    "ERROR Failed to start: Unknown quantization method fp3",
    "ERROR Unknown quantization method fp3 when loading shard 3 of the checkpoint for the model",
])
def test_grading_given_set_apart_answers_as_working_it_out(event_line):
    from errdex.match.grading import contained_hit_is_high, ranked_as, set_apart
    from errdex.match.patterns import RecordRef, normalize_space, normalized_chunks

    event = line_event(event_line, 1)
    if event is None:
        return
    text = normalize_space(event.message)
    for i, record in enumerate(_records()):
        rec = RecordRef.from_record(i, record)
        if not rec.chunks or not rec.message_pattern:
            continue
        chunks, literal = normalized_chunks(rec), rec.literal_length
        apart = set_apart(chunks, text)
        assert ranked_as(chunks, text, literal, apart) == ranked_as(chunks, text, literal) \
            == _ranked_as_worked_out(chunks, text, literal)
        for agrees in (True, None, False):
            assert contained_hit_is_high(chunks, text, literal, rec, agrees, event, (), apart) \
                == contained_hit_is_high(chunks, text, literal, rec, agrees, event) \
                == _contained_high_worked_out(chunks, text, literal, rec, agrees, event)


def test_quote_closed_with_no_mark_before_answers_as_counting_them():
    from errdex.match.events import _QUOTE_MARKS, _quote_closed

    def counted(before, message):   # the loop alone (the oracle)
        for opener, closer in _QUOTE_MARKS.items():
            opened = before.count(opener) % 2 == 1 if opener == closer else before.count(opener) > before.count(closer)
            if not opened:
                continue
            marks = message.count(closer) if opener == closer else message.count(closer) - message.count(opener)
            if marks > 0 and marks % 2 == 1:
                return message[:message.rindex(closer) if marks > 1 else message.index(closer)].rstrip()
        return message

    rng = random.Random(5)
    pieces = ["`", '"', "“", "”", "**", "*", "x", " ", "ERROR w: "]
    for _ in range(20000):
        before, message = ("".join(rng.choice(pieces) for _ in range(rng.randint(0, 5))) for _ in range(2))
        assert _quote_closed(before, message) == counted(before, message), (before, message)


def test_partial_chunk_start_answers_as_trying_every_place():
    from errdex.match.patterns import _partial_chunk_start

    def every_place(rest, chunk):   # the oracle: every start, in order
        for start in range(max(1, len(rest) - len(chunk)), len(rest)):
            tail = rest[start:]
            if len(tail) <= len(chunk) and chunk.startswith(tail):
                return start
        return 0

    rng = random.Random(6)
    found = 0
    for _ in range(30000):
        rest = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 12)))
        chunk = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 6)))
        assert _partial_chunk_start(rest, chunk) == every_place(rest, chunk), (rest, chunk)
        found += every_place(rest, chunk) > 0
    assert found > 5000


def test_module_share_skipping_values_without_two_dots_answers_as_matching_each():
    from errdex.match.resolve import _MODULE_PATH, Match, _module_share, _shared_head

    def each(m):   # the oracle: every value through the regex
        module = m.file_path[:-3].split("/") if m.file_path.endswith(".py") else m.file_path.split("/")
        best = 0
        for value in m.bindings.values():
            found = _MODULE_PATH.match(value) if isinstance(value, str) else None
            if found is not None and value[found.end():found.end() + 1] in ("", " ", ".", ":", ",", ";", "'", '"'):
                best = max(best, _shared_head(found.group().split("."), module))
        return best

    rng = random.Random(8)
    names, seps = ["sglang", "srt", "models", "x1", "7", "_a", "é", ""], [".", ".", "..", " ", ":", "'", ""]

    def value():   # a dotted run of names (a module path, or not quite one) between other text
        dotted = rng.choice(seps[:3]).join(rng.choice(names) for _ in range(rng.randint(1, 5)))
        return rng.choice(["", "", "x ", "'"]) + dotted + rng.choice(seps) + rng.choice(names)

    shared = 0
    for _ in range(5000):
        values = {f"v{i}": value() for i in range(rng.randint(0, 3))}
        path = rng.choice(["sglang/srt/models/llama.py", "sglang/srt/x1.py", "pkg/a", "srt/models/y.py"])
        m = Match("id", "repo", path, 1, None, "msg", 1.0, "high", "message", values)
        assert _module_share(m) == each(m), (path, values)
        shared += each(m) > 0
    assert shared > 40
