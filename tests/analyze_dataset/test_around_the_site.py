"""What the statement itself and the one after it say (review 26): `raise ... from None` shows no
caught error, and a report followed by `return` does not go on."""

from __future__ import annotations

from .sources import index_sources, records_by_message

FILES = {
    "tmpl/__init__.py": "",
    "tmpl/load.py": """
        import logging

        logger = logging.getLogger(__name__)
        STYLES = {"plain": 1, "chat": 2}


        def style_of(name):
            try:
                return int(name)
            except ValueError:
                raise ValueError(f"unknown style {name!r}") from None


        def style_chained(name):
            try:
                return int(name)
            except ValueError as e:
                raise ValueError(f"no style {name!r}") from e


        def update(targets):
            if not targets:
                error_msg = "no target modules to update"
                logger.error(error_msg)
                return False, error_msg
            return True, ""


        def note(targets):
            if not targets:
                logger.warning("nothing to note")
            return len(targets)
        """,
}


def _recs(tmp_path):
    return records_by_message(index_sources(tmp_path, FILES, "o/tmpl"))


def test_a_raise_from_none_is_not_said_to_chain_the_caught_error(tmp_path):
    recs = _recs(tmp_path)
    hidden = " ".join(recs["unknown style {name!r}"]["solutions"])
    assert "`from None` keeps it out of this one's traceback" in hidden
    assert "chains to this one" not in hidden
    shown = " ".join(recs["no style {name!r}"]["solutions"])
    assert "which Python chains to this one" in shown


def test_a_report_followed_by_a_return_is_not_said_to_go_on(tmp_path):
    recs = _recs(tmp_path)
    returns = recs["no target modules to update"]["solutions"][0]
    assert "logs this and then returns (its caller gets what it returns)" in returns
    goes_on = recs["nothing to note"]["solutions"][0]
    assert "logs this and goes on" in goes_on


SWITCHED = {
    "pool/__init__.py": "",
    "pool/common.py": """
        import logging

        logger = logging.getLogger(__name__)


        def raise_error_or_warn(obj, strict, message):
            if strict:
                raise ValueError(message)
            logger.warning(message)
        """,
    "pool/check.py": """
        import os

        from pool.common import raise_error_or_warn


        class Checker:
            def check_pool(self, free, total):
                if len(free) != total:
                    raise_error_or_warn(self, os.environ.get("STRICT_CHECK") == "1",
                                        f"pool leak: {len(free)} free of {total}")
        """,
}


def test_a_setting_that_only_chooses_raising_is_not_the_fix(tmp_path):
    """Review 26: a leak check raised through `raise_error_or_warn(self, <setting>, msg)` was told
    "make sure the setting is off": that hides the leak; what the function found is the fix."""
    recs = records_by_message(index_sources(tmp_path, SWITCHED, "o/pool"))
    r = recs["pool leak: {len(free)} free of {total}"]
    assert r["errdex"]["helper"] == "pool.common.raise_error_or_warn"
    assert r["solutions"][0] == (
        "Find why `len(free) != total` holds where `check_pool` checks it: that is what it found."
        " `raise_error_or_warn` raises it only while `os.environ.get('STRICT_CHECK') == '1'` holds: turning"
        " that setting off stops the error, not its cause.")


REPORTED_THEN_RAISED = {
    "gen/__init__.py": "",
    "gen/timer.py": """
        import logging
        from contextlib import contextmanager

        logger = logging.getLogger(__name__)


        @contextmanager
        def timed(idx=None):
            try:
                yield
            except Exception as e:
                if idx is not None:
                    logger.error(f"Failed to generate output for prompt {idx}: {e}")
                else:
                    logger.error(f"Failed to generate output for a prompt: {e}")
                raise


        def tolerant(items):
            for item in items:
                try:
                    item.run()
                except Exception as e:
                    logger.error(f"item {item} failed to run: {e}")
            return len(items)
        """,
}


def test_a_report_whose_handler_raises_after_its_branch_propagates(tmp_path):
    """Review 27 #0: the log is the last statement of an `if`/`else` branch of an `except` block that
    ends in `raise`: nothing falls back, the caller gets the error; a handler that goes on falls back."""
    recs = records_by_message(index_sources(tmp_path, REPORTED_THEN_RAISED, "o/gen"))
    for message in ("Failed to generate output for prompt {idx}: {e}", "Failed to generate output for a prompt: {e}"):
        r = recs[message]
        assert r["handlingStrategy"] == "propagate"
        assert "the code run while it waits at `yield` (the body of the caller's `with` block" in r["documentation"]
    assert recs["item {item} failed to run: {e}"]["handlingStrategy"] == "fallback"


INTEGERS = {
    "kern/__init__.py": "",
    "kern/topk.py": """
        MAX_BLOCKS = 16384


        def page_table(score):
            heads, batch, blocks = score.shape
            assert blocks <= MAX_BLOCKS, f"{blocks} exceeds the block limit"
            return heads * batch


        def resolve(raw, ratio):
            rank = int(raw)
            assert rank <= 64, f"rank {rank} is out of range"
            scaled = ratio / 2
            assert scaled <= 8, f"scaled ratio {scaled} is too large"
        """,
}


def test_values_the_code_makes_integers_are_never_said_to_be_nan(tmp_path):
    """Review 27 #9, #15: parts unpacked from `t.shape`, `int(...)` results and module constants are
    integers, so "(or ... is NaN)" is no case of theirs; a division's result keeps it."""
    recs = records_by_message(index_sources(tmp_path, INTEGERS, "o/kern"))
    assert "`blocks` is greater than `MAX_BLOCKS`" in recs["{blocks} exceeds the block limit"]["documentation"]
    assert "NaN" not in recs["{blocks} exceeds the block limit"]["documentation"]
    assert "NaN" not in recs["rank {rank} is out of range"]["documentation"]
    assert "(or `scaled` is NaN)" in recs["scaled ratio {scaled} is too large"]["documentation"]


BOTH_RAISE = {
    "par/__init__.py": "",
    "par/exec.py": """
        def run_stage(stage, batch, broadcast):
            success, result = broadcast(stage, batch)
            if not success:
                if isinstance(result, BaseException):
                    raise RuntimeError("Error on rank 0") from result
                raise RuntimeError(f"Error on rank 0: {result}")
            return result
        """,
}


def test_a_test_that_only_picks_which_raise_runs_is_not_the_fix(tmp_path):
    """Review 28 #22: `if isinstance(r, BaseException): raise ... from r`, then `raise ...` right after:
    keeping `r` no exception only moves the error to the next line; `success` decides."""
    recs = records_by_message(index_sources(tmp_path, BOTH_RAISE, "o/par"))
    first = recs["Error on rank 0"]["solutions"]
    assert first[0].startswith("Keeping `not isinstance(result, BaseException)` does not avoid an error")
    assert "What keeps it from both is `success`" in first[0]
    second = recs["Error on rank 0: {result}"]["solutions"]
    assert not second[0].startswith("Keeping")


LOGGED_ONCE = {
    "once/__init__.py": "",
    "once/kernels.py": """
        import logging

        logger = logging.getLogger(__name__)
        HAS_FAST = False
        _missing_fast_logged = False


        def eligible(backend):
            if backend != "fast":
                return True
            if not HAS_FAST:
                global _missing_fast_logged
                if not _missing_fast_logged:
                    _missing_fast_logged = True
                    logger.warning("fast kernels are unavailable; falling back to the reference path")
                return False
            return True
        """,
}


def test_a_flag_set_after_its_own_test_is_not_replayed_before_it(tmp_path):
    """Review 28 #19: `if not _logged: _logged = True; log(...)`: the snippet set `_logged = True`,
    then tested `not _logged`, which never holds. The flag is a value to set as it was when tested."""
    rec = records_by_message(index_sources(tmp_path, LOGGED_ONCE, "o/once"))[
        "fast kernels are unavailable; falling back to the reference path"]
    code = rec["validationCode"]
    assert "_missing_fast_logged = True" not in code
    assert "if not _missing_fast_logged:" in code or "not _missing_fast_logged" in code
    assert rec["errdex"]["feeding"] == ["_missing_fast_logged = True"]   # the stored facts stay as found


GENERATED = {
    "gen2/__init__.py": "",
    "gen2/parts.py": """
        def partitions(values):
            start = 0
            while start < len(values):
                first = values[start]
                if first.shape[0] < 1:
                    raise ValueError("empty partition")
                yield first
                start += 1
        """,
}


def test_a_generators_check_runs_as_it_is_consumed(tmp_path):
    """Review 29 #20: calling a generator runs none of its body; its checks fail as it is iterated."""
    rec = records_by_message(index_sources(tmp_path, GENERATED, "o/gen2"))["empty partition"]
    assert rec["errdex"]["siteRuns"] == "generator"
    assert rec["triggerScenarios"].startswith("Iterating over what `gen2.parts.partitions` returns (a generator:")


def test_a_check_inside_a_while_loop_is_said_per_pass(tmp_path):
    """Review 29 #20: `while start < len(values):` read as a one-time test; its test holds in each
    pass that reaches the check."""
    rec = records_by_message(index_sources(tmp_path, GENERATED, "o/gen2"))["empty partition"]
    assert "in a pass of `while start < len(values)`" in rec["documentation"]
