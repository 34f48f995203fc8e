"""explain(): frames beat messages, class agreement, negatives from other libraries, bindings."""

import pytest

from errdex.match import explain

from .conftest import both_engines, make_record

KERNEL = "python/sglang/kernels/ops/fused.py"


ctx = both_engines(lambda: [
    make_record("Packed decode kernel only supports NK=1 (got K={K}, BK={BK}).", file_path=KERNEL,
                line=358, function="packed_decode", condition="triton.cdiv(K, BK) != 1"),
    make_record("Invalid head config inferred from mixed_qkv: H={H}, HV={HV}.", file_path=KERNEL,
                line=350, function="packed_decode"),
    make_record("{msg}", file_path="python/sglang/utils.py", line=5, function="fail", error_class="RuntimeError"),
    make_record("Unknown model name {name}, expected one of a, b", file_path="python/sglang/models.py",
                line=20, function="load", error_class="RuntimeError"),
    make_record("", file_path=KERNEL, line=370, function="packed_decode",
                error_class="AssertionError", assert_test="V > 0", error_type="assertion"),
    make_record("Unknown model name {name}, expected one of a, b", file_path="tests/test_models.py",
                line=7, function="test_load", error_class="RuntimeError", tags=["test"]),
    make_record("out of memory", file_path="python/sglang/mem.py", line=3, function="alloc",
                error_class="MemoryLimitError", bases=["RuntimeError", "Exception"]),
    make_record("Generate subcommand is not yet supported for model: {model_path}",
                file_path="python/sglang/cli/generate.py", line=47, function="generate", error_class="Exception"),
])


def test_bare_line_binds_values_and_checks_condition(ctx):
    (m, *_) = explain("ValueError: Packed decode kernel only supports NK=1 (got K=0, BK=1).", context=ctx)
    assert (m.line_number, m.confidence, m.via) == (358, "high", "message")
    assert m.bindings == {"K": "0", "BK": "1"}
    assert m.condition_check.satisfied is True
    assert "K = 0" in m.condition_check.text
    d = m.to_dict()
    assert {"id", "repo", "filePath", "lineNumber", "errorClass", "errorMessage", "score",
            "confidence", "via", "bindings", "conditionCheck", "logLine"} <= set(d)


@pytest.mark.parametrize("line", [
    "Exception: Generate subcommand is not yet supported for model: /m/llama",
    "2026-01-01 12:00:00 ERROR [rank0] Exception: Generate subcommand is not yet supported for model: /m/llama",
])
def test_plain_exception_lines_are_error_lines(ctx, line):
    """`raise Exception(...)` prints the bare base class; it is recognised like any other class."""
    (m, *_) = explain(line, context=ctx)
    assert (m.line_number, m.confidence, m.error_class) == (47, "high", "Exception")
    assert m.bindings == {"model_path": "/m/llama"}


def test_traceback_from_another_machine_resolves_by_frame_with_line_drift(ctx):
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/someone/.venv/lib/python3.11/site-packages/sglang/kernels/ops/fused.py", line 361, in packed_decode\n'
        "    raise ValueError(\n"
        "ValueError: Packed decode kernel only supports NK=1 (got K=7, BK=8).\n"
    )
    (m, *_) = explain(text, context=ctx)
    assert (m.via, m.confidence, m.line_number, m.bindings["K"]) == ("frame", "high", 358, "7")


def test_helper_raise_resolves_to_the_calling_site(ctx):
    text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/sglang/models.py", line 20, in load\n    fail(...)\n'
        '  File "/srv/sglang/utils.py", line 5, in fail\n    raise RuntimeError(msg)\n'
        "RuntimeError: Unknown model name zz, expected one of a, b\n"
    )
    (m, *_) = explain(text, context=ctx)
    assert (m.file_path, m.via, m.bindings) == ("python/sglang/models.py", "frame", {"name": "zz"})


def test_library_code_ranks_above_test_code_and_ties_show(ctx):
    matches = explain("RuntimeError: Unknown model name q, expected one of a, b", context=ctx)
    assert [m.file_path for m in matches] == ["python/sglang/models.py", "tests/test_models.py"]
    assert matches[0].score > matches[1].score


@pytest.mark.parametrize("text", [
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "KeyError: 'x'",
    "ValueError: invalid literal for int() with base 10: 'a'",
    'Traceback (most recent call last):\n  File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode\n'
    "    raise JSONDecodeError(\"Expecting value\", s, err.value) from None\n"
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
])
def test_errors_from_code_that_is_not_indexed_get_no_high_confidence(ctx, text):
    assert all(m.confidence == "low" for m in explain(text, context=ctx))


def test_raised_in_torch_even_if_message_matches_is_low(ctx):
    text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/sglang/kernels/ops/fused.py", line 300, in packed_decode\n    torch.op()\n'
        '  File "/venv/site-packages/torch/_ops.py", line 10, in __call__\n    raise\n'
        "ValueError: Packed decode kernel only supports NK=1 (got K=7, BK=8).\n"
    )
    assert all(m.confidence == "low" for m in explain(text, context=ctx))


def test_class_must_agree_but_a_base_class_is_fine(ctx):
    # Another class printing the whole template (another version's class, or another
    # library's) still names the site, but never with confidence.
    (m,) = explain("TypeError: Packed decode kernel only supports NK=1 (got K=0, BK=1).", context=ctx)
    assert (m.confidence, m.error_class) == ("low", "ValueError")
    assert explain("TypeError: Packed decode kernel only", context=ctx) == []   # too little text for that
    (m,) = explain("RuntimeError: out of memory", context=ctx)
    assert m.error_class == "MemoryLimitError"


def test_bare_assert_by_frame_and_by_expression(ctx):
    text = ('Traceback (most recent call last):\n  File "/x/sglang/kernels/ops/fused.py", line 370, in packed_decode\n'
            "    assert V > 0\nAssertionError\n")
    (m, *_) = explain(text, context=ctx)
    assert (m.line_number, m.via, m.confidence) == (370, "frame", "high")
    (m,) = explain("assert V>0", context=ctx)
    assert m.line_number == 370 and m.match_kind == "assert"


def test_exception_object_is_formatted(ctx):
    try:
        raise ValueError("Invalid head config inferred from mixed_qkv: H=3, HV=8.")
    except ValueError as exc:
        (m,) = explain(exc, context=ctx)
    assert m.line_number == 350 and m.bindings == {"H": "3", "HV": "8"}


@pytest.mark.parametrize("text, confidence", [
    # the full message pasted without its class: enough literal text to be sure
    ("Packed decode kernel only supports NK=1 (got K=0, BK=1).", "high"),
    # a short message without a class could come from anywhere
    ("out of memory", "low"),
    # an issue title cut off mid-message, class agreeing and a long literal part
    ("ValueError: Packed decode kernel only supports NK=1 (got K=0", "high"),
    # a cut-off paste with too little text
    ("ValueError: Packed decode kern", "low"),
])
def test_confidence_without_class_and_for_cut_off_pastes(ctx, text, confidence):
    matches = explain(text, context=ctx)
    assert matches and matches[0].line_number in (358, 3)
    assert matches[0].confidence == confidence
