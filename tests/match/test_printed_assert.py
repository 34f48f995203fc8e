"""Asserts of one message in one function, told apart by the test Python prints under the frame
(a real report: two `Hidden size mismatch` asserts, the frame's line number from another version)."""

from errdex.match import explain

from .conftest import both_engines, make_record

MOE = "acme/moe/fused.py"


def _assert(line: int, test: str) -> dict:
    return make_record("Hidden size mismatch", file_path=MOE, line=line, function="fused_impl",
                       error_class="AssertionError", error_type="assertion", assert_test=test,
                       bases=["AssertionError", "Exception"])


ctx = both_engines(lambda: [_assert(117, "hidden.shape[1] // 2 == w1.shape[2]"),
                            _assert(119, "hidden.shape[1] == w1.shape[2] - padded")])


def _traceback(printed: str, line: int = 905) -> str:
    return ("Traceback (most recent call last):\n"
            '  File "/srv/acme/moe/fused.py", line 40, in fused\n'
            "    fused_impl(\n"
            f'  File "/srv/acme/moe/fused.py", line {line}, in fused_impl\n'
            f"    {printed}\n"
            "AssertionError: Hidden size mismatch\n")


def test_the_printed_test_names_the_assert_when_the_line_moved(ctx):
    matches = explain(_traceback("hidden.shape[1] == w1.shape[2] - padded"), context=ctx)
    assert [(m.line_number, m.confidence) for m in matches] == [(119, "high")]
    (other,) = explain(_traceback("assert hidden.shape[1] // 2 == w1.shape[2], ("), context=ctx)
    assert other.line_number == 117


def test_without_a_printed_test_both_stay_candidates(ctx):
    matches = explain(_traceback("fused_impl_inner(x)"), context=ctx)
    assert sorted(m.line_number for m in matches) == [117, 119]
