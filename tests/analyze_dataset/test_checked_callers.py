"""Callers that check a site's own test before calling are not on its way (review 24): `checkedBy`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from errdex.extract.checked_calls import check_conjuncts

from .sources import index_sources, records_by_message, reindexed_and_fresh

KERNELS = {
    "kern/__init__.py": "",
    "kern/ops.py": """
        def gemm(x, m, *, block=64):
            assert x.is_contiguous(), "x must be contiguous"
            if m > 512:
                raise ValueError(f"gemm: M={m} outside [1, 512]")
            if block not in (32, 64):
                raise ValueError(f"block {block} unsupported")
            return x


        def shifted(x, m):
            m = m + 1
            if m > 512:
                raise ValueError(f"shifted: M={m} too big")
            return x


        class Runner:
            def __init__(self, size):
                if size <= 0:
                    raise ValueError(f"size {size} must be positive")
                self.size = size

            def launch(self, t):
                if t.dim() != 2:
                    raise ValueError("launch wants a 2-D tensor")
                return t

            def run(self, t):
                assert t.dim() == 2
                return self.launch(t)
        """,
    "app/__init__.py": "",
    "app/entry.py": """
        from kern.ops import Runner, gemm, shifted


        def checked(t, rows):
            assert t.is_contiguous()
            if rows > 512:
                raise ValueError("rows above 512")
            return gemm(t, rows)


        def checked_as_assert(t, rows):
            assert rows <= 512 and t.is_contiguous()
            return gemm(t, m=rows, block=32)


        def unchecked(t, rows):
            return gemm(t, rows)


        def checked_then_rebound(t, rows):
            assert rows <= 512
            rows = rows * 2
            return gemm(t, rows)


        def checked_once_of_two(t, rows):
            out = gemm(t, rows)
            assert rows <= 512
            return gemm(out, rows)


        def checked_in_a_lambda(t, rows):
            assert rows <= 512
            later = lambda: gemm(t, rows)
            return later


        def checked_other_value(t, rows, cols):
            assert cols <= 512
            return gemm(t, rows)


        def checked_fed(t, rows):
            assert rows <= 512
            return shifted(t, rows)


        def makes(n):
            if n <= 0:
                raise ValueError("n must be positive")
            return Runner(n)        """,
}


def _records(tmp_path: Path) -> dict[str, dict]:
    return records_by_message(index_sources(tmp_path, KERNELS, "o/checked"))


def test_a_caller_checking_the_bound_before_its_call_is_not_on_the_way(tmp_path):
    r = _records(tmp_path)["gemm: M={m} outside [1, 512]"]["errdex"]
    assert r["checkedBy"] == ["app.entry.checked", "app.entry.checked_as_assert"]
    assert r["provenance"]["checkedBy"] == "fact"
    assert r["callers"] == ["app.entry.checked_in_a_lambda", "app.entry.checked_once_of_two",
                            "app.entry.checked_other_value", "app.entry.checked_then_rebound",
                            "app.entry.unchecked"]
    assert "app.entry.checked" not in r["entryPoints"]
    assert "app.entry.unchecked" in r["entryPoints"]


def test_each_test_is_compared_on_its_own_with_arguments_bound(tmp_path):
    recs = _records(tmp_path)
    contiguous = recs["x must be contiguous"]["errdex"]
    assert contiguous["checkedBy"] == ["app.entry.checked", "app.entry.checked_as_assert"]
    # `block`: passed 32 by one caller, which checks nothing about it; left to its default
    # (accepted) by the other, which is no way to the site for that reason (`unreachedFrom`)
    block = recs["block {block} unsupported"]["errdex"]
    assert "checkedBy" not in block
    assert "app.entry.checked_as_assert" in block["callers"]
    assert "app.entry.checked" in block["unreachedFrom"]


def test_a_parameter_the_function_rebinds_before_its_test_is_no_callers_value(tmp_path):
    r = _records(tmp_path)["shifted: M={m} too big"]["errdex"]
    assert "checkedBy" not in r
    assert r["callers"] == ["app.entry.checked_fed"]


def test_a_constructor_and_a_method_bind_their_arguments_past_self(tmp_path):
    recs = _records(tmp_path)
    assert recs["size {size} must be positive"]["errdex"]["checkedBy"] == ["app.entry.makes"]
    assert recs["launch wants a 2-D tensor"]["errdex"]["checkedBy"] == ["kern.ops.Runner.run"]


def _same(a: str, b: str, negate: bool = False) -> bool:
    return check_conjuncts(ast.parse(a, mode="eval").body, negate) == check_conjuncts(ast.parse(b, mode="eval").body)


def test_canonical_tests_flip_negated_comparisons_and_split_conjunctions():
    assert _same("m > 512", "m <= 512", negate=True)
    assert _same("not (a is None or b in c)", "a is not None and b not in c")
    assert _same("not not x.ok()", "x.ok()")
    assert not _same("m > 512", "m < 512", negate=True)
    assert check_conjuncts(ast.parse("a < b < c", mode="eval").body, True) == ["not a < b < c"]


def test_the_trigger_scenario_names_the_callers_that_check_first(tmp_path):
    r = _records(tmp_path)["gemm: M={m} outside [1, 512]"]
    assert r["triggerScenarios"].endswith(
        " `checked`, `checked_as_assert` check this before each call to `gemm`, so no call from there"
        " gets here with it failing.")
    assert "`checked`" not in r["triggerScenarios"].partition(" when ")[0]   # not named as a way here


def _reach(db) -> dict:
    from errdex.store import Store

    with Store.open(db, readonly=True) as store:
        return {r["errorMessage"]: (r["errdex"]["callers"], r["errdex"].get("checkedBy"), r["errdex"]["entryPoints"])
                for r in store.iter_records()}


def test_a_reindex_keeps_the_answer_when_the_site_changes_and_its_callers_do_not(tmp_path):
    def edit(src):   # the callee's message reworded, its lines shifted: its file offers the same
        ops = src / "kern" / "ops.py"
        ops.write_text("\n\n" + ops.read_text().replace("outside [1, 512]", "not in [1, 512]"))

    again, db, fresh = reindexed_and_fresh(tmp_path, KERNELS, "o/checked", edit)
    assert again.in_place
    assert _reach(db) == _reach(fresh)
    assert _reach(db)["gemm: M={m} not in [1, 512]"][1] == ["app.entry.checked", "app.entry.checked_as_assert"]


@pytest.mark.parametrize("path, old, new, checked", [
    # a caller drops its check: it is a way to the site again
    ("app/entry.py", "    assert rows <= 512 and t.is_contiguous()\n", "", ["app.entry.checked"]),
    # the site tests another bound: no caller's check refutes it
    ("kern/ops.py", "    if m > 512:\n", "    if m > 256:\n", None),
])
def test_a_reindex_after_a_check_changes_matches_a_fresh_index(tmp_path, path, old, new, checked):
    def edit(src):
        target = src / path
        target.write_text(target.read_text().replace(old, new))

    _again, db, fresh = reindexed_and_fresh(tmp_path, KERNELS, "o/checked", edit)
    assert _reach(db) == _reach(fresh)
    assert _reach(db)["gemm: M={m} outside [1, 512]"][1] == checked
