"""Verification of model prose against a record's facts, and the safe condition evaluator."""

import pytest

from errdex.safe_eval import UNKNOWN, evaluate, free_names
from errdex.enrich.verify import repeats_error, verify_fields


@pytest.mark.parametrize("expr, values, expected", [
    ("M > 512", {"M": 0}, False),
    ("M > 512", {"M": 513}, True),
    ("M > 512", {}, UNKNOWN),
    ("M <= 512 and (N % 16 != 0 or N <= 0)", {"N": 24}, UNKNOWN),   # M unknown, rest true
    ("M <= 512 and (N % 16 != 0 or N <= 0)", {"N": 32}, False),     # rest false: decided
    ("a or f(x)", {"a": 1}, True),
    ("kind not in ('a', 'b')", {"kind": "a"}, False),
    ("x.shape > 3", {"x.shape": 4}, True),
    ("2 ** n > 10", {"n": 10 ** 6}, UNKNOWN),                       # huge power refused
    ("1 / n > 0", {"n": 0}, UNKNOWN),
    ("__import__('os').system('x')", {}, UNKNOWN),
    ("not (", {}, UNKNOWN),
    ("0 < k <= 8", {"k": 9}, False),
])
def test_evaluate(expr, values, expected):
    assert evaluate(expr, values) is expected if expected in (True, False, UNKNOWN) else None


def test_free_names():
    assert free_names("x.shape[0] > n and f(y)") == {"x", "x.shape", "n", "f", "y"}


def record(condition="M > 512", exact=True):
    return {"errorMessage": "gemm_ar: M={M} exceeds 512", "errorClass": "GemmError",
            "filePath": "kern/ops.py", "lineNumber": 7,
            "sourceCode": "def gemm_ar(M, N):\n    if M > 512:\n        raise GemmError(x)\n",
            "errdex": {"condition": condition, "conditionExact": exact, "function": "gemm_ar",
                       "placeholders": {"M": "M"}, "classAncestors": ["ValueError", "Exception"],
                       "endLine": 7}}


def verdict(field, value, rec=None):
    (v,) = verify_fields(rec or record(), {field: value})
    return v.reason


@pytest.mark.parametrize("text", [
    "gemm_ar raises when M <= 0.", "Raised if M is 0.", "The error occurs when M = 100.",
    "Triggered when M is less than 1.", "Fails if `M` >= 512.",
])
def test_triggering_value_ruled_out_by_condition(text):
    assert verdict("documentation", text) == "contradicts-condition"


@pytest.mark.parametrize("text", [
    "gemm_ar raises when M > 512.", "Raised when M = 1024.", "Happens if M exceeds 512.",
    "Keep M <= 512 to avoid it.",               # advice, not a trigger claim
    "The tuned cells cover M up to 512.",
])
def test_consistent_or_advisory_text_kept(text):
    assert verdict("documentation", text) is None


def test_inexact_condition_is_not_used_to_reject():
    assert verdict("triggerScenarios", "M = 0", record(exact=False)) is None


@pytest.mark.parametrize("field, text, reason", [
    ("documentation", "Raised as a TypeError by gemm_ar.", "unknown-class"),
    ("documentation", "See kern/other.py for the check.", "unknown-file"),
    ("documentation", "Raised at kern/ops.py:99.", "unknown-line"),
    ("documentation", "Raised on line 42.", "unknown-line"),
    ("triggerScenarios", "Calling launch_kernel() with a big batch.", "unknown-function"),
    ("exampleFix", "if M > 512:\n    M = 512 +", "code-does-not-parse"),
    ("validationCode", "assert M <= 512, M", None),
    ("exampleFix", "```python\nfor s in range(0, M, 512):\n    gemm_ar(512, N)\n```", None),
    ("documentation", "GemmError (a ValueError) is raised by gemm_ar at kern/ops.py:7.", None),
])
def test_names_and_code(field, text, reason):
    assert verdict(field, text) == reason


def test_solutions_repeating_the_error_are_dropped():
    (v,) = verify_fields(record(), {"solutions": ["gemm_ar: M exceeds 512", "Split M into chunks of 512."]})
    assert v.accepted and v.value == ["Split M into chunks of 512."] and v.dropped
    (v,) = verify_fields(record(), {"solutions": ["M exceeds 512"]})
    assert v.reason == "repeats-error"
    assert not repeats_error("Reduce the batch so M stays within the tuned cells.", "gemm_ar: M={M} exceeds 512")
