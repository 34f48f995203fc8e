"""A check inside a loop (or a `with` block that binds a name) is written inside it, and runs."""

from __future__ import annotations

import pytest

from errdex.analyze.codegen import feeding_for, names_in, validation_code
from errdex.analyze.condexpr import parse_condition

FEEDING = ["scale = 2", "with open(path) as fh", "for (line_no, line) in enumerate(fh, start=1)",
           "n = len(line) * scale"]


def test_the_check_runs_in_each_pass_of_its_loop(tmp_path):
    code = validation_code(parse_condition("n > cap", "n > cap"), FEEDING, {}, "m.load", True, None,
                           loops=["for (line_no, line) in enumerate(fh, start=1)"])
    assert code.splitlines()[1:] == [
        "scale = 2",
        "with open(path) as fh:",
        "    for (line_no, line) in enumerate(fh, start=1):",
        "        n = len(line) * scale",
        "        assert n <= cap"]
    log = tmp_path / "in.txt"
    log.write_text("ab\nabcd\n")
    exec(code, {"path": str(log), "cap": 10})   # noqa: S102 - the generated check, run as a user would
    with pytest.raises(AssertionError):
        exec(code, {"path": str(log), "cap": 9})   # noqa: S102


def test_names_an_f_string_reads_are_read():
    assert names_in('f"{cpath}.role" + "{not_read}"') == {"cpath"}
    assert feeding_for({"role"}, ['cpath = f"{path}[{i}]"', 'role = get(f"{cpath}.role")']) == \
        ['cpath = f"{path}[{i}]"', 'role = get(f"{cpath}.role")']


def test_a_callers_guard_over_a_loops_element_checks_every_element():
    """The caller has `reqs`, not one `req`: the guard says every element passes."""
    from errdex.analyze.fixes import example_fix

    cond = parse_condition("req.delimiters[0] < 0", "req.delimiters[0] < 0")
    fix = example_fix(cond, "check_requests(...)", "ValueError", "m.check_requests", "skip",
                      loops=["for req in reqs"])
    assert "if all(req.delimiters[0] >= 0 for req in reqs):" in fix.splitlines()
    inner = example_fix(parse_condition("x > n", "x > n"), "f(...)", "ValueError", "m.f", "skip",
                        loops=["for row in rows", "for x in row"])
    assert "if all(x <= n for row in rows for x in row):" in inner.splitlines()
