"""Among templates a text fits alike, the one with more literal text wins, whatever its placeholder count."""

import pytest

from errdex.match import explain, scan

from .conftest import both_engines, make_record


ctx = both_engines(lambda: [
    make_record("Invalid attention backend for {device}", file_path="pkg/a.py", line=3),
    make_record("Invalid attention backend for {device}: {backend}", file_path="pkg/b.py", line=9),
    make_record("Invalid residency assignment: {value!r}", file_path="pkg/c.py", line=4),
    make_record("Invalid residency assignment: {selector!r}={mode!r}", file_path="pkg/d.py", line=8),
])


@pytest.mark.parametrize("line, path, bindings", [
    ("ValueError: Invalid attention backend for cuda: 'flashinfer'", "pkg/b.py",
     {"device": "cuda", "backend": "'flashinfer'"}),
    ("ValueError: Invalid residency assignment: 128=None", "pkg/d.py", {"selector!r": "128", "mode!r": "None"}),
    ("ValueError: Invalid attention backend for cuda", "pkg/a.py", {"device": "cuda"}),
])
def test_the_more_literal_template_wins(ctx, tmp_path, line, path, bindings):
    (top, *rest) = explain(line, context=ctx)
    assert (top.file_path, top.bindings) == (path, bindings)
    assert all(m.score < top.score for m in rest)
    log = tmp_path / "one.log"
    log.write_text(f"2026-01-01 INFO start\n2026-01-01 ERROR {line}\n")
    (occurrence,) = scan(log, context=ctx).occurrences   # the scan's line fast path ranks alike
    assert (occurrence.file_path, occurrence.score) == (path, top.score)


odd_classes = both_engines(lambda: [
    make_record("Request body must be a JSON object, got {kind}", file_path="pkg/api.py", line=12,
                error_class="_BadRequest", bases=["ValueError", "Exception"]),
    make_record("the scaled GEMM takes e4m3 A/B; got {a}, {b}", file_path="pkg/gemm.py", line=54,
                error_class="testing.CantImplement", bases=["Exception"]),
    make_record("bad character range {lo}-{hi}", file_path="pkg/regex.py", line=7, error_class="error",
                bases=["Exception"]),   # `raise error(...)` (a module's own `error` class)
])


@pytest.mark.parametrize("line, path", [
    ("_BadRequest: Request body must be a JSON object, got list", "pkg/api.py"),
    ("CantImplement: the scaled GEMM takes e4m3 A/B; got bf16, fp8", "pkg/gemm.py"),
])
def test_a_class_the_index_raises_is_read_off_the_line_whatever_its_name(odd_classes, tmp_path, line, path):
    (top, *_) = explain(line, context=odd_classes)
    assert (top.file_path, top.match_kind, top.confidence) == (path, "full", "high")
    log = tmp_path / "odd.log"
    log.write_text(f"2026-01-01 10:00:00 INFO up\n2026-01-01 10:00:01 ERROR worker: {line}\n")
    (occurrence,) = scan(log, context=odd_classes).occurrences
    assert (occurrence.file_path, occurrence.match_kind, occurrence.confidence) == (path, "full", "high")


def test_a_bare_error_label_is_a_loggers_word_even_when_the_index_raises_an_error_class(odd_classes, tmp_path):
    line = "error: Request body must be a JSON object, got list"
    (top, *_) = explain(line, context=odd_classes)
    assert (top.file_path, top.confidence) == ("pkg/api.py", "high")
    log = tmp_path / "label.log"
    log.write_text(f"2026-01-01 10:00:00 INFO up\n2026-01-01 10:00:01 ERROR worker: {line}\n")
    (occurrence,) = scan(log, context=odd_classes).occurrences
    assert (occurrence.file_path, occurrence.confidence) == ("pkg/api.py", "high")


def test_a_name_the_index_does_not_raise_stays_part_of_the_message(odd_classes):
    (top, *_) = explain("Note: Request body must be a JSON object, got list", context=odd_classes)
    assert top.match_kind != "full" and top.confidence == "low"


generic = both_engines(lambda: [
    make_record("{name} must be contiguous", file_path="pkg/attn.py", line=25, error_class="AssertionError",
                bases=["Exception"]),
    make_record("{numerator} is not divisible by {denominator}", file_path="pkg/dist.py", line=42,
                error_class="AssertionError", bases=["Exception"]),
    make_record("KV cache dtype {dtype} is not supported", file_path="pkg/kv.py", line=7),
])


@pytest.mark.parametrize("line", ["AssertionError: Tensor must be contiguous", "AssertionError: 8 is not divisible by 3"])
def test_a_template_opening_with_a_placeholder_needs_more_text_for_high_confidence(generic, tmp_path, line):
    """torch, flash-attn and Megatron print these phrases too: found, but not claimed."""
    (top, *_) = explain(line, context=generic)
    assert (top.match_kind, top.confidence) == ("full", "low")
    log = tmp_path / "generic.log"
    log.write_text(f"INFO start\nERROR {line}\n")
    (occurrence,) = scan(log, context=generic).occurrences
    assert occurrence.confidence == "low"


def test_the_same_amount_of_text_after_a_literal_opening_stays_high(generic):
    (top, *_) = explain("ValueError: KV cache dtype fp8_e5m2 is not supported", context=generic)
    assert (top.file_path, top.confidence) == ("pkg/kv.py", "high")


appended = both_engines(lambda: [
    make_record("{pkg} is older than the minimum version this build supports, {min_version}. {message}",
                file_path="pkg/versions.py", line=2429, error_class="Exception", bases=["BaseException"]),
    make_record("Unsupported layout: {layout}", file_path="pkg/codec.py", line=38),
])


HINT = "Please uninstall it and reinstall the latest release by following the instructions on the project's site."


def test_a_long_hint_appended_by_the_caller_leaves_the_sites_own_part_to_cover(appended, tmp_path):
    line = f"Exception: fastkernels is older than the minimum version this build supports, 0.6.4. {HINT}"
    (top,) = explain(line, context=appended)
    assert (top.line_number, top.match_kind, top.confidence) == (2429, "full", "high")
    log = tmp_path / "appended.log"
    log.write_text(f"INFO start\nERROR {line}\n")
    (occurrence,) = scan(log, context=appended).occurrences
    assert occurrence.confidence == "high"


def test_the_own_part_rule_wants_the_class_and_as_much_text_as_long_values_do(appended):
    line = f"fastkernels is older than the minimum version this build supports, 0.6.4. {HINT}"
    assert explain(line, context=appended)[0].confidence == "low"    # no class printed
    long_value = "ValueError: Unsupported layout: " + "x" * 60
    assert explain(long_value, context=appended)[0].confidence == "low"   # 20 literal characters
