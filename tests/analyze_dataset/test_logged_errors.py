"""What a log shows as an error or warning (`logger.error(...)`, `self.logger.warning(...)`) is a
site of its own, errorType "log": users paste those lines as often as raised ones. Indexed from
small codebases into a real SQLite file, then explained from log lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from errdex.match import explain
from errdex.store import Store
from .sources import index_sources

CODE = {
    "svc/__init__.py": "",
    "svc/manager.py": """
        import logging

        logger = logging.getLogger(__name__)


        def get_exception_traceback():
            return "Traceback (most recent call last): ..."


        class Manager:
            def __init__(self):
                self.logger = logging.getLogger("svc")

            def handle(self, rid, state):
                if state is None:
                    logger.warning(f"Received output for rid={rid} but the state was deleted in Manager.")
                    return
                try:
                    state.apply()
                except Exception:
                    traceback = get_exception_traceback()
                    self.logger.error("Manager hit an exception: %s", traceback)
                logger.info(f"done {rid}")          # not an error: no site
                logger.exception(state)             # no words of its own: nothing to match it by
                logger.error(f"{state} rid={rid}")  # too little text: would flag every `rid=` line of a log
                logging.critical("Scheduler died with code %s on rank %s", state.code, rid)


        def bad(exception):
            raise exception
        """,
}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return index_sources(tmp_path_factory.mktemp("logs"), CODE, "o/svc")


@pytest.fixture(scope="module")
def recs(db) -> dict[str, dict]:
    with Store.open(db, readonly=True) as store:
        return {r["errorMessage"]: r for r in store.iter_records(limit=100) if r["errorType"] == "log"}


def test_error_and_warning_logs_are_sites_and_nothing_else_is(recs):
    assert sorted(recs) == ["Manager hit an exception: {traceback}",
                            "Received output for rid={rid} but the state was deleted in Manager.",
                            "Scheduler died with code {state.code} on rank {rid}"]
    warned = recs["Received output for rid={rid} but the state was deleted in Manager."]
    assert (warned["errorClass"], warned["severity"], warned["lineNumber"]) == ("logger.warning", "warning", 17)
    logged = recs["Manager hit an exception: {traceback}"]   # `%s` arguments fill the message
    assert (logged["errorClass"], logged["severity"]) == ("self.logger.error", "error")
    assert recs["Scheduler died with code {state.code} on rank {rid}"]["errorClass"] == "logging.critical"


def test_a_log_is_told_as_logged_and_never_caught(recs):
    warned = recs["Received output for rid={rid} but the state was deleted in Manager."]
    assert warned["documentation"].startswith("`svc.manager.Manager.handle` logs with `logger.warning` when")
    assert warned["errdex"]["condition"] == "state is None"
    assert warned["tryCatchPattern"] is None          # a log raises nothing to catch
    assert warned["exampleFix"] is None   # the call goes on after logging: no guard may skip its work
    ast.parse(warned["validationCode"])
    logged = recs["Manager hit an exception: {traceback}"]
    assert logged["errdex"].get("caughtBy") is None   # `except Exception` around it catches nothing
    # review 16 #25: a log chains nothing; the underlying error reaches the log only if passed to it
    assert logged["solutions"][0].startswith("Fix the underlying failure first: the call `state.apply()` raised")
    assert "Python chains" not in logged["solutions"][0] and "logger.exception" in logged["solutions"][0]


@pytest.mark.parametrize("line, message", [
    ("[2025-10-31 00:07:33] Manager hit an exception: Traceback (most recent call last):",
     "Manager hit an exception: {traceback}"),
    ("[2026-08-24 06:49:47 TP0] Received output for rid='e71f2' but the state was deleted in Manager.",
     "Received output for rid={rid} but the state was deleted in Manager."),
])
def test_a_log_line_finds_its_log_site(db, line, message):
    (m, *_) = explain(line, db=db)
    assert (m.error_message, m.confidence) == (message, "high")


def test_a_word_before_a_colon_that_some_site_raises_is_not_a_printed_class(db):
    """`raise exception` makes `exception` a raised name; `hit an exception: boom` still reads whole."""
    (m, *_) = explain("Manager hit an exception: boom", db=db)
    assert (m.error_message, m.bindings) == ("Manager hit an exception: {traceback}", {"traceback": "boom"})


def test_a_caught_failure_logged_then_gone_past_is_a_fallback(recs):
    """Review 23 #2/#12: `except Exception: log...` then the code goes on without what failed was
    told `propagate`; a log outside any handler passes on as it is."""
    caught = recs["Manager hit an exception: {traceback}"]
    assert caught["handlingStrategy"] == "fallback"
    assert caught["errdex"]["provenance"]["handlingStrategy"] == "heuristic:strategy:reported-caught"
    plain = recs["Scheduler died with code {state.code} on rank {rid}"]
    assert plain["handlingStrategy"] == "propagate"
