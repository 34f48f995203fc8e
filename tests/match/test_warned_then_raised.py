"""A message printed as the default `UserWarning` by one version and raised by another:
the category says the text was warned, not which class the code gives it."""

import pytest

from errdex.match import explain, scan
from errdex.match.patterns import RecordRef
from errdex.match.resolve import class_agrees

from .conftest import both_engines, make_record

CHECKER = "python/acme/sched/checker.py"
NOTICES = "python/acme/util/notices.py"
LEAK = "request slot pool leak detected after the batch finished! free={free}, total={total}"


ctx = both_engines(lambda: [
    make_record(LEAK, file_path=CHECKER, line=40, function="Checker.check_slots"),
    make_record("{option} is deprecated", file_path=NOTICES, line=7, function="note"),
    make_record("the cache is nearly full, eviction may slow requests down", file_path=NOTICES, line=20,
                error_class="FutureWarning", bases=["Warning", "Exception"], error_type="warning"),
])


WARNED = ("/srv/app/python/acme/sched/scheduler.py:88: UserWarning: request slot pool leak detected after "
          "the batch finished! free=12, total=13\n  warnings.warn(msg)")


def test_a_default_warning_of_a_now_raised_message_is_read_as_classless(ctx):
    (m, *_) = explain(WARNED, context=ctx)
    assert (m.file_path, m.line_number, m.confidence) == (CHECKER, 40, "high")


def test_the_scan_reads_the_warning_line_as_explain_does(ctx, tmp_path):
    log = tmp_path / "run.log"
    log.write_text("INFO step 3\n" + WARNED.splitlines()[0] + "\n")
    found = [(o.log_line, o.file_path, o.confidence) for o in scan(log, context=ctx).occurrences]
    (m, *_) = explain(WARNED.splitlines()[0], context=ctx)
    assert found == [(2, m.file_path, m.confidence)] and m.file_path == CHECKER


def test_a_short_phrase_warned_by_someone_else_stays_low(ctx):
    (m, *_) = explain("UserWarning: torch.foo is deprecated", context=ctx)
    assert m.confidence == "low"


@pytest.mark.parametrize("printed, expected", [
    ("UserWarning", None),           # the default category: no class named
    ("DeprecationWarning", False),   # the code named this category, and the record raises
    ("ValueError", True),
])
def test_only_the_default_category_is_unknown_against_a_raised_record(printed, expected):
    rec = RecordRef.from_record(0, make_record(LEAK, file_path=CHECKER))
    assert class_agrees(printed, rec) is expected


def test_a_warning_record_still_disagrees_with_another_category():
    rec = RecordRef.from_record(0, make_record("cache nearly full", error_class="FutureWarning",
                                               bases=["Warning", "Exception"], error_type="warning"))
    assert class_agrees("UserWarning", rec) is False
