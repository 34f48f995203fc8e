"""Text from another version of the indexed code: a raising helper that moved far, and a
message whose later wording changed."""


from errdex.match import explain

from .conftest import both_engines, make_record

UTILS = "python/acme/utils/common.py"


ctx = both_engines(lambda: [
    # a helper raising whatever message it is given: the template is all values
    make_record("{message}", file_path=UTILS, line=5066, function="raise_or_warn"),
    make_record("{msg}", file_path=UTILS, line=900, function="fail_twice"),
    make_record("{msg}", file_path=UTILS, line=960, function="fail_twice"),
    make_record("slot allocation ran out of memory. Please lower `--max-requests`. pool.free()={free}, {n=}",
                file_path="python/acme/mem/alloc.py", line=344, function="alloc_slots",
                error_class="RuntimeError"),
    make_record("req_slots runs out of memory. Please set a smaller number for `--max-running-requests`. "
                "pool.available_size()={free}, {n=}",
                file_path="python/acme/mem/alloc.py", line=380, function="alloc_reqs", error_class="RuntimeError"),
    # two bare `raise NotImplementedError` of one function, and a ValueError beside them
    make_record("", file_path="python/acme/eplb/gather.py", line=410, function="init_new",
                error_class="NotImplementedError"),
    make_record("", file_path="python/acme/eplb/gather.py", line=422, function="init_new",
                error_class="NotImplementedError"),
    make_record("unknown mode", file_path="python/acme/eplb/gather.py", line=430, function="init_new"),
])


def _traceback(function: str, line: int, message: str, caller: str = "") -> str:
    frames = caller or '  File "/old/site-packages/acme/sched/check.py", line 423, in report\n    helper(msg)\n'
    return (f"Traceback (most recent call last):\n{frames}"
            f'  File "/old/site-packages/acme/utils/common.py", line {line}, in {function}\n'
            f"    raise ValueError(message)\nValueError: {message}\n")


def test_the_only_site_of_the_raising_function_is_found_however_far_it_moved(ctx):
    (m, *_) = explain(_traceback("raise_or_warn", 4691, "pool leak detected! total=9"), context=ctx)
    assert (m.line_number, m.via, m.confidence) == (5066, "frame", "high")


def test_a_function_with_two_sites_needs_the_line_to_be_near(ctx):
    matches = explain(_traceback("fail_twice", 400, "pool leak detected! total=9"), context=ctx)
    assert all(m.via != "frame" for m in matches)
    (m, *_) = explain(_traceback("fail_twice", 955, "pool leak detected! total=9"), context=ctx)
    assert (m.via, m.line_number) == ("frame", 960)


def test_a_caller_frame_is_not_taken_for_the_raising_one(ctx):
    # The deepest frame is indexed code that has no site (a KeyError-like failure inside it):
    # the helper above it must not be blamed.
    text = ("Traceback (most recent call last):\n"
            '  File "/old/site-packages/acme/utils/common.py", line 4691, in raise_or_warn\n'
            "    table[key]\n"
            '  File "/old/site-packages/acme/mem/alloc.py", line 10, in lookup\n'
            "    return cache[key]\nValueError: unknown key k\n")
    assert all(m.via != "frame" for m in explain(text, context=ctx))


def test_reworded_tail_still_names_the_site_but_low(ctx):
    text = ("RuntimeError: slot allocation ran out of memory. Please lower `--max-requests`. "
            "self.pool.available()=1, num=2,")
    (m,) = explain(text, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (344, "drift", "low")


def test_too_little_shared_opening_is_no_drift_match(ctx):
    assert explain("RuntimeError: slot allocation ran out of disk space on /dev/sda1", context=ctx) == []


def test_two_whole_sentences_of_its_own_words_and_its_class_make_a_reworded_tail_high(ctx):
    """80+ opening characters shared (where 40 find the site) and the printed class agreeing: the
    site's own words, in order; only debug values after them changed."""
    tail = ("req_slots runs out of memory. Please set a smaller number for `--max-running-requests`. "
            "self.pool.available_size()=1, num_reqs=2,")
    (m,) = explain("RuntimeError: " + tail, context=ctx)
    assert (m.line_number, m.match_kind, m.confidence) == (380, "drift", "high")
    for other in ("ValueError: " + tail, tail):   # a class that disagrees, or none printed: low
        assert [(m.line_number, m.confidence) for m in explain(other, context=ctx)] == [(380, "low")]


def test_a_bare_raise_printed_under_a_moved_frame_names_the_functions_bare_raises(ctx):
    """Set 3 #24: `raise NotImplementedError` at line 305 of a version where the function sat ~100
    lines higher: its sites raising that class with no message, not nothing."""
    text = ("Traceback (most recent call last):\n"
            '  File "/ws/acme/eplb/gather.py", line 135, in __init__\n'
            "    k: _Gatherer.init_new(args, meta, rank)\n"
            '  File "/ws/acme/eplb/gather.py", line 305, in init_new\n'
            "    raise NotImplementedError\n"
            "NotImplementedError\n")
    matches = explain(text, context=ctx)
    assert [(m.line_number, m.via, m.confidence) for m in matches] == [(410, "frame", "high"), (422, "frame", "high")]
    # another statement printed there names none of them
    assert all(m.via != "frame" for m in explain(text.replace("    raise NotImplementedError\n", "    run()\n"),
                                                   context=ctx))
